//! Prints a syntax tree back as Python source in one canonical style (4-space indents, minimal parentheses,
//! `elif` chains, no comments), so rewritten functions can be shown in prompts.

use super::ast::*;
use super::value::{str_repr, PyValue};

const NAMED: u8 = 1;
const TUPLE: u8 = 2;
const TEST: u8 = 4;
const OR: u8 = 5;
const AND: u8 = 6;
const NOT: u8 = 7;
const CMP: u8 = 8;
const BOR: u8 = 10;
const BXOR: u8 = 11;
const BAND: u8 = 12;
const SHIFT: u8 = 13;
const ARITH: u8 = 14;
const TERM: u8 = 15;
const FACTOR: u8 = 16;
const POWER: u8 = 17;
const ATOM: u8 = 19;

/// Source text of a whole module.
pub fn unparse_module(body: &[Stmt]) -> String {
    let mut out = String::new();
    for (i, s) in body.iter().enumerate() {
        if i > 0 && (matches!(s.kind, StmtKind::FunctionDef(_)) || matches!(body[i - 1].kind, StmtKind::FunctionDef(_))) {
            out.push('\n');
        }
        stmt(&mut out, s, 0);
    }
    out
}

/// Source text of one function definition (ends with a newline).
pub fn unparse_function(def: &FunctionDef) -> String {
    let mut out = String::new();
    funcdef(&mut out, def, 0);
    out
}

/// Source text of one expression.
pub fn unparse_expr(e: &Expr) -> String {
    expr(e, TUPLE)
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

fn block(out: &mut String, body: &[Stmt], level: usize) {
    if body.is_empty() {
        indent(out, level);
        out.push_str("pass\n");
    }
    for s in body {
        stmt(out, s, level);
    }
}

fn funcdef(out: &mut String, def: &FunctionDef, level: usize) {
    indent(out, level);
    out.push_str("def ");
    out.push_str(&def.name);
    out.push('(');
    out.push_str(&params(&def.params, true));
    out.push(')');
    if let Some(r) = &def.returns {
        out.push_str(" -> ");
        out.push_str(&expr(r, TEST));
    }
    out.push_str(":\n");
    block(out, &def.body, level + 1);
}

fn params(ps: &[Param], annotations: bool) -> String {
    ps.iter()
        .map(|p| {
            let mut s = p.name.clone();
            let annotated = annotations && p.annotation.is_some();
            if let (true, Some(a)) = (annotations, &p.annotation) {
                s.push_str(": ");
                s.push_str(&expr(a, TEST));
            }
            if let Some(d) = &p.default {
                s.push_str(if annotated { " = " } else { "=" });
                s.push_str(&expr(d, TEST));
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A tuple target or value at statement level, printed without parentheses.
fn top(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Tuple(items) if !items.is_empty() => tuple_items(items),
        _ => expr(e, TEST),
    }
}

fn tuple_items(items: &[Expr]) -> String {
    let mut s = items.iter().map(|i| expr(i, TEST)).collect::<Vec<_>>().join(", ");
    if items.len() == 1 {
        s.push(',');
    }
    s
}

fn stmt(out: &mut String, s: &Stmt, level: usize) {
    if let StmtKind::FunctionDef(def) = &s.kind {
        funcdef(out, def, level);
        return;
    }
    indent(out, level);
    match &s.kind {
        StmtKind::Expr(e) => out.push_str(&top(e)),
        StmtKind::Assign { targets, value } => {
            for t in targets {
                out.push_str(&top(t));
                out.push_str(" = ");
            }
            out.push_str(&top(value));
        }
        StmtKind::AugAssign { target, op, value } => {
            out.push_str(&expr(target, TEST));
            out.push_str(&format!(" {}= ", op.symbol()));
            out.push_str(&top(value));
        }
        StmtKind::AnnAssign { target, annotation, value } => {
            out.push_str(&expr(target, TEST));
            out.push_str(": ");
            out.push_str(&expr(annotation, TEST));
            if let Some(v) = value {
                out.push_str(" = ");
                out.push_str(&top(v));
            }
        }
        StmtKind::Pass => out.push_str("pass"),
        StmtKind::Break => out.push_str("break"),
        StmtKind::Continue => out.push_str("continue"),
        StmtKind::Return(None) => out.push_str("return"),
        StmtKind::Return(Some(e)) => {
            out.push_str("return ");
            out.push_str(&top(e));
        }
        StmtKind::If { test, body, orelse } => {
            out.push_str("if ");
            out.push_str(&expr(test, NAMED));
            out.push_str(":\n");
            block(out, body, level + 1);
            let mut orelse = orelse;
            loop {
                match orelse.as_slice() {
                    [] => return,
                    [Stmt { kind: StmtKind::If { test, body, orelse: rest }, .. }] => {
                        indent(out, level);
                        out.push_str("elif ");
                        out.push_str(&expr(test, NAMED));
                        out.push_str(":\n");
                        block(out, body, level + 1);
                        orelse = rest;
                    }
                    _ => {
                        indent(out, level);
                        out.push_str("else:\n");
                        block(out, orelse, level + 1);
                        return;
                    }
                }
            }
        }
        StmtKind::While { test, body, orelse } => {
            out.push_str("while ");
            out.push_str(&expr(test, NAMED));
            out.push_str(":\n");
            block(out, body, level + 1);
            if !orelse.is_empty() {
                indent(out, level);
                out.push_str("else:\n");
                block(out, orelse, level + 1);
            }
            return;
        }
        StmtKind::For { target, iter, body, orelse } => {
            out.push_str("for ");
            out.push_str(&top(target));
            out.push_str(" in ");
            out.push_str(&top(iter));
            out.push_str(":\n");
            block(out, body, level + 1);
            if !orelse.is_empty() {
                indent(out, level);
                out.push_str("else:\n");
                block(out, orelse, level + 1);
            }
            return;
        }
        StmtKind::Delete(targets) => {
            out.push_str("del ");
            out.push_str(&targets.iter().map(|t| expr(t, TEST)).collect::<Vec<_>>().join(", "));
        }
        StmtKind::Assert { test, msg } => {
            out.push_str("assert ");
            out.push_str(&expr(test, TEST));
            if let Some(m) = msg {
                out.push_str(", ");
                out.push_str(&expr(m, TEST));
            }
        }
        StmtKind::ImportTyping { names } => {
            out.push_str("from typing import ");
            out.push_str(&names.join(", "));
        }
        StmtKind::FunctionDef(_) => {}
    }
    out.push('\n');
}

/// The most digits of a decimal int literal Python reads (`sys.get_int_max_str_digits()`).
const MAX_DECIMAL_DIGITS: usize = 4300;
/// Ints of at most this many bits have at most 4,300 decimal digits (2^14,000 has 4,215), so only larger ones are
/// printed to count their digits.
const HEX_BITS: u64 = 14_000;

fn wrap(s: String, own: u8, required: u8) -> String {
    if own < required {
        format!("({s})")
    } else {
        s
    }
}

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => BOR,
        BinOp::BitXor => BXOR,
        BinOp::BitAnd => BAND,
        BinOp::LShift | BinOp::RShift => SHIFT,
        BinOp::Add | BinOp::Sub => ARITH,
        BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => TERM,
        BinOp::Pow => POWER,
    }
}

fn comprehension(gens: &[Comprehension]) -> String {
    let mut s = String::new();
    for g in gens {
        s.push_str(" for ");
        s.push_str(&top(&g.target));
        s.push_str(" in ");
        s.push_str(&expr(&g.iter, OR));
        for c in &g.ifs {
            s.push_str(" if ");
            s.push_str(&expr(c, OR));
        }
    }
    s
}

fn expr(e: &Expr, required: u8) -> String {
    match &e.kind {
        ExprKind::Name { id, .. } => id.clone(),
        ExprKind::Const(v) => match v {
            PyValue::Str(s) => str_repr(s),
            PyValue::Int(i) if *i < 0 => wrap(i.to_string(), FACTOR, required),
            PyValue::Big(b) if b.bits() > HEX_BITS && b.to_string().trim_start_matches('-').len() > MAX_DECIMAL_DIGITS => {
                // Python reads no decimal literal of over 4,300 digits, but a hexadecimal one of any length.
                let hex = if b.sign() == num_bigint::Sign::Minus { format!("-0x{:x}", b.magnitude()) } else { format!("0x{:x}", b.magnitude()) };
                if b.sign() == num_bigint::Sign::Minus { wrap(hex, FACTOR, required) } else { hex }
            }
            other => other.repr(),
        },
        ExprKind::List(items) => format!("[{}]", items.iter().map(|i| expr(i, TEST)).collect::<Vec<_>>().join(", ")),
        ExprKind::Tuple(items) => {
            if items.is_empty() {
                "()".into()
            } else {
                format!("({})", tuple_items(items))
            }
        }
        ExprKind::Set(items) => format!("{{{}}}", items.iter().map(|i| expr(i, TEST)).collect::<Vec<_>>().join(", ")),
        ExprKind::Dict(pairs) => {
            format!("{{{}}}", pairs.iter().map(|(k, v)| format!("{}: {}", expr(k, TEST), expr(v, TEST))).collect::<Vec<_>>().join(", "))
        }
        ExprKind::ListComp { elt, gens } => format!("[{}{}]", expr(elt, TEST), comprehension(gens)),
        ExprKind::SetComp { elt, gens } => format!("{{{}{}}}", expr(elt, TEST), comprehension(gens)),
        ExprKind::DictComp { key, value, gens } => format!("{{{}: {}{}}}", expr(key, TEST), expr(value, TEST), comprehension(gens)),
        ExprKind::GenExp { elt, gens } => format!("({}{})", expr(elt, TEST), comprehension(gens)),
        ExprKind::BinOp { left, op, right } => {
            let p = binop_prec(*op);
            let (lp, rp) = if *op == BinOp::Pow { (p + 1, FACTOR) } else { (p, p + 1) };
            wrap(format!("{} {} {}", expr(left, lp), op.symbol(), expr(right, rp)), p, required)
        }
        ExprKind::UnaryOp { op, operand } => match op {
            UnaryOp::Not => wrap(format!("not {}", expr(operand, NOT)), NOT, required),
            UnaryOp::Neg => wrap(format!("-{}", expr(operand, FACTOR)), FACTOR, required),
            UnaryOp::Pos => wrap(format!("+{}", expr(operand, FACTOR)), FACTOR, required),
            UnaryOp::Invert => wrap(format!("~{}", expr(operand, FACTOR)), FACTOR, required),
        },
        ExprKind::BoolOp { op, values } => {
            let (p, word) = match op {
                BoolOp::And => (AND, " and "),
                BoolOp::Or => (OR, " or "),
            };
            wrap(values.iter().map(|v| expr(v, p + 1)).collect::<Vec<_>>().join(word), p, required)
        }
        ExprKind::Compare { left, ops, comparators } => {
            let mut s = expr(left, CMP + 1);
            for (op, c) in ops.iter().zip(comparators) {
                s.push(' ');
                s.push_str(op.symbol());
                s.push(' ');
                s.push_str(&expr(c, CMP + 1));
            }
            wrap(s, CMP, required)
        }
        ExprKind::IfExp { test, body, orelse } => {
            wrap(format!("{} if {} else {}", expr(body, TEST + 1), expr(test, TEST + 1), expr(orelse, TEST)), TEST, required)
        }
        ExprKind::Call { func, args, keywords } => {
            let mut parts: Vec<String> = Vec::new();
            if let [Expr { kind: ExprKind::GenExp { elt, gens }, .. }] = args.as_slice() {
                if keywords.is_empty() {
                    return format!("{}({}{})", expr(func, ATOM), expr(elt, TEST), comprehension(gens));
                }
            }
            parts.extend(args.iter().map(|a| expr(a, TEST)));
            parts.extend(keywords.iter().map(|k| format!("{}={}", k.name, expr(&k.value, TEST))));
            format!("{}({})", expr(func, ATOM), parts.join(", "))
        }
        ExprKind::Attribute { value, attr } => {
            let base = expr(value, ATOM);
            // `1.real` would read as the float `1.` then a name; big ints too (found by fuzzing the parser).
            if matches!(value.kind, ExprKind::Const(PyValue::Int(_) | PyValue::Big(_))) {
                format!("({base}).{attr}")
            } else {
                format!("{base}.{attr}")
            }
        }
        ExprKind::Subscript { value, index } => {
            let idx = match &index.kind {
                ExprKind::Tuple(items) if !items.is_empty() => tuple_items(items),
                _ => expr(index, TUPLE),
            };
            format!("{}[{}]", expr(value, ATOM), idx)
        }
        ExprKind::Slice { lower, upper, step } => {
            let part = |p: &Option<Box<Expr>>| p.as_ref().map(|e| expr(e, TEST)).unwrap_or_default();
            let mut s = format!("{}:{}", part(lower), part(upper));
            if step.is_some() {
                s.push(':');
                s.push_str(&part(step));
            }
            s
        }
        ExprKind::NamedExpr { target, value, .. } => format!("({} := {})", target, expr(value, TEST)),
        ExprKind::Lambda(def) => {
            let body = match def.body.first().map(|s| &s.kind) {
                Some(StmtKind::Return(Some(e))) => expr(e, TEST),
                _ => "None".into(),
            };
            let ps = params(&def.params, false);
            let head = if ps.is_empty() { "lambda".to_string() } else { format!("lambda {ps}") };
            wrap(format!("{head}: {body}"), TEST, required)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse_tree;
    use super::*;

    fn check(src: &str, expected: &str) {
        let tree = parse_tree(src).map_err(|e| e.to_string());
        let printed = tree.as_ref().map(|t| unparse_module(t)).unwrap_or_else(|e| e.clone());
        assert_eq!(printed, expected, "source:\n{src}");
        // Printing is a fixed point: the output parses back to the same text.
        let again = parse_tree(&printed).map(|t| unparse_module(&t)).unwrap_or_else(|e| e.to_string());
        assert_eq!(again, printed);
    }

    #[test]
    fn ints_too_long_for_a_decimal_literal_print_in_hexadecimal() {
        // 3,600 hex digits are about 4,335 decimal ones: over the 4,300 Python reads back (found by fuzzing).
        let hex = format!("0x{}", "f".repeat(3600));
        check(&format!("x = {hex}\n"), &format!("x = {hex}\n"));
        check(&format!("y = -{hex} + 1\n"), &format!("y = -{hex} + 1\n"));
        // Up to 4,300 digits an int prints in decimal, as Python prints it.
        let decimal = format!("1{}", "0".repeat(4299));
        check(&format!("z = 0x{}\n", num_bigint::BigInt::parse_bytes(decimal.as_bytes(), 10).unwrap().to_str_radix(16)), &format!("z = {decimal}\n"));
    }

    #[test]
    fn an_attribute_of_an_int_literal_keeps_its_parentheses_at_any_size() {
        check("a = (1).real\n", "a = (1).real\n");
        let big = format!("1{}", "0".repeat(30));
        check(&format!("b = ({big}).bit_length()\n"), &format!("b = ({big}).bit_length()\n"));
        check(&format!("c = 0x{}.real\n", "4".repeat(40)), &format!("c = ({}).real\n", num_bigint::BigInt::parse_bytes("4".repeat(40).as_bytes(), 16).unwrap()));
    }

    #[test]
    fn precedence_keeps_only_needed_parentheses() {
        check("x = (a + b) * c - (d - e) - f\n", "x = (a + b) * c - (d - e) - f\n");
        check("y = -2 ** 2 + (-2) ** 2 + 2 ** -1\n", "y = -2 ** 2 + (-2) ** 2 + 2 ** -1\n");
        check("z = (a if b else c) + (not d)\n", "z = (a if b else c) + (not d)\n");
        check("w = a and (b or c) or d\n", "w = a and (b or c) or d\n");
    }

    #[test]
    fn statements_print_in_canonical_style() {
        check(
            "def f(a: List[int], k: int=3) -> int:\n  if a: return 1\n  elif k: pass\n  else:\n    (a[0], a[1]) = (a[1], a[0])\n  return sum(x for x in a if x > 0)\n",
            "def f(a: List[int], k: int = 3) -> int:\n    if a:\n        return 1\n    elif k:\n        pass\n    else:\n        a[0], a[1] = a[1], a[0]\n    return sum(x for x in a if x > 0)\n",
        );
        check(
            "for (i, (x, _)) in enumerate(zip(a, b)):\n    d[x] = {k: v for k, v in d.items()}\n",
            "for i, (x, _) in enumerate(zip(a, b)):\n    d[x] = {k: v for k, v in d.items()}\n",
        );
        check("while (n := n - 1) > 0:\n    s = a[::-1][1:] + [(1,)]\n", "while (n := n - 1) > 0:\n    s = a[::-1][1:] + [(1,)]\n");
    }
}
