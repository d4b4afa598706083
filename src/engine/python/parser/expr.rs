//! Expressions, one method per precedence level from `lambda` and conditional expressions down to atoms:
//! boolean operators, comparison chains, binary operator chains, unary operators, power, calls,
//! subscripts and slices, attributes, displays and comprehensions, and `for` targets.

use std::rc::Rc;

use super::{check_target, is_keyword, PResult, Parser};
use crate::engine::python::ast::{
    BinOp, BoolOp, CmpOp, Comprehension, Expr, ExprKind, FunctionDef, Keyword, Layout, NameRef, Stmt, StmtKind, UnaryOp,
};
use crate::engine::python::error::{ParseError, Pos};
use crate::engine::python::lexer::Tok;
use crate::engine::python::value::PyValue;

impl Parser {
    fn starts_expr(&self) -> bool {
        match self.tok() {
            Tok::Name(n) => !is_keyword(n) || matches!(n.as_str(), "True" | "False" | "None" | "not" | "lambda" | "await" | "yield"),
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) => true,
            Tok::Op(o) => matches!(*o, "(" | "[" | "{" | "-" | "+" | "~" | "..." | "*"),
            _ => false,
        }
    }

    /// `a, b` (a tuple when there is a comma), starred items rejected.
    pub(super) fn testlist(&mut self) -> PResult<Expr> {
        self.testlist_star()
    }

    pub(super) fn testlist_star(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let first = self.star_or_named()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if !self.starts_expr() {
                break;
            }
            items.push(self.star_or_named()?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), pos))
    }

    fn star_or_named(&mut self) -> PResult<Expr> {
        if self.is_op("*") {
            return Err(ParseError::unsupported(self.pos(), "starred expressions"));
        }
        self.named_test()
    }

    /// A `test`, or `name := test`.
    pub(super) fn named_test(&mut self) -> PResult<Expr> {
        if let (Tok::Name(n), Tok::Op(":=")) = (self.tok(), self.tok_at(1)) {
            if !is_keyword(n) {
                let pos = self.pos();
                let target = n.clone();
                self.i += 2;
                self.enter()?;
                let value = self.test()?;
                self.leave(1);
                return Ok(Expr::new(ExprKind::NamedExpr { target, slot: NameRef::Unresolved, value: Box::new(value) }, pos));
            }
        }
        self.test()
    }

    pub(super) fn test(&mut self) -> PResult<Expr> {
        self.enter()?;
        let result = self.test_inner();
        self.leave(1);
        result
    }

    fn test_inner(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.is_kw("lambda") {
            self.i += 1;
            let params = self.params(":", false)?;
            self.expect_op(":")?;
            let body = self.test()?;
            let body_pos = body.pos;
            let def = FunctionDef {
                name: "<lambda>".into(),
                params,
                returns: None,
                body: vec![Stmt { kind: StmtKind::Return(Some(body)), pos: body_pos }],
                pos,
                is_lambda: true,
                slot: NameRef::Unresolved,
                layout: Layout::default(),
            };
            return Ok(Expr::new(ExprKind::Lambda(Rc::new(def)), pos));
        }
        if self.is_kw("yield") {
            return Err(ParseError::unsupported(pos, "generators (yield)"));
        }
        let body = self.or_test()?;
        if self.is_kw("if") {
            self.i += 1;
            let test = self.or_test()?;
            self.expect_kw("else")?;
            let orelse = self.test()?;
            return Ok(Expr::new(ExprKind::IfExp { test: Box::new(test), body: Box::new(body), orelse: Box::new(orelse) }, pos));
        }
        Ok(body)
    }

    fn or_test(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let first = self.and_test()?;
        if !self.is_kw("or") {
            return Ok(first);
        }
        let mut values = vec![first];
        while self.eat_kw("or") {
            values.push(self.and_test()?);
        }
        Ok(Expr::new(ExprKind::BoolOp { op: BoolOp::Or, values }, pos))
    }

    fn and_test(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let first = self.not_test()?;
        if !self.is_kw("and") {
            return Ok(first);
        }
        let mut values = vec![first];
        while self.eat_kw("and") {
            values.push(self.not_test()?);
        }
        Ok(Expr::new(ExprKind::BoolOp { op: BoolOp::And, values }, pos))
    }

    fn not_test(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.eat_kw("not") {
            self.enter()?;
            let operand = self.not_test()?;
            self.leave(1);
            return Ok(Expr::new(ExprKind::UnaryOp { op: UnaryOp::Not, operand: Box::new(operand) }, pos));
        }
        self.comparison()
    }

    fn comp_op(&mut self) -> Option<CmpOp> {
        let op = match self.tok() {
            Tok::Op("<") => CmpOp::Lt,
            Tok::Op(">") => CmpOp::Gt,
            Tok::Op("==") => CmpOp::Eq,
            Tok::Op(">=") => CmpOp::GtE,
            Tok::Op("<=") => CmpOp::LtE,
            Tok::Op("!=") => CmpOp::NotEq,
            Tok::Name(n) if n == "in" => CmpOp::In,
            Tok::Name(n) if n == "not" && matches!(self.tok_at(1), Tok::Name(m) if m == "in") => {
                self.i += 1;
                CmpOp::NotIn
            }
            Tok::Name(n) if n == "is" => {
                if matches!(self.tok_at(1), Tok::Name(m) if m == "not") {
                    self.i += 1;
                    CmpOp::IsNot
                } else {
                    CmpOp::Is
                }
            }
            _ => return None,
        };
        self.i += 1;
        Some(op)
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let left = self.bitor()?;
        let mut ops = Vec::new();
        let mut comparators = Vec::new();
        while let Some(op) = self.comp_op() {
            ops.push(op);
            comparators.push(self.bitor()?);
        }
        if ops.is_empty() {
            return Ok(left);
        }
        Ok(Expr::new(ExprKind::Compare { left: Box::new(left), ops, comparators }, pos))
    }

    fn binary_chain(&mut self, ops: &[(&str, BinOp)], next: fn(&mut Parser) -> PResult<Expr>) -> PResult<Expr> {
        let pos = self.pos();
        let mut left = next(self)?;
        let mut levels = 0;
        while let Some(&(sym, op)) = ops.iter().find(|(sym, _)| self.is_op(sym)) {
            if sym == "@" {
                return Err(ParseError::unsupported(self.pos(), "matrix multiplication"));
            }
            self.i += 1;
            self.enter()?;
            levels += 1;
            let right = next(self)?;
            left = Expr::new(ExprKind::BinOp { left: Box::new(left), op, right: Box::new(right) }, pos);
        }
        self.leave(levels);
        Ok(left)
    }

    pub(super) fn bitor(&mut self) -> PResult<Expr> {
        self.binary_chain(&[("|", BinOp::BitOr)], Parser::bitxor)
    }

    fn bitxor(&mut self) -> PResult<Expr> {
        self.binary_chain(&[("^", BinOp::BitXor)], Parser::bitand)
    }

    fn bitand(&mut self) -> PResult<Expr> {
        self.binary_chain(&[("&", BinOp::BitAnd)], Parser::shift)
    }

    fn shift(&mut self) -> PResult<Expr> {
        self.binary_chain(&[("<<", BinOp::LShift), (">>", BinOp::RShift)], Parser::arith)
    }

    fn arith(&mut self) -> PResult<Expr> {
        self.binary_chain(&[("+", BinOp::Add), ("-", BinOp::Sub)], Parser::term)
    }

    fn term(&mut self) -> PResult<Expr> {
        self.binary_chain(
            &[("*", BinOp::Mul), ("/", BinOp::Div), ("//", BinOp::FloorDiv), ("%", BinOp::Mod), ("@", BinOp::Mul)],
            Parser::factor,
        )
    }

    fn factor(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let op = match self.tok() {
            Tok::Op("-") => Some(UnaryOp::Neg),
            Tok::Op("+") => Some(UnaryOp::Pos),
            Tok::Op("~") => Some(UnaryOp::Invert),
            _ => None,
        };
        if let Some(op) = op {
            self.i += 1;
            self.enter()?;
            let operand = self.factor()?;
            self.leave(1);
            return Ok(Expr::new(ExprKind::UnaryOp { op, operand: Box::new(operand) }, pos));
        }
        self.power()
    }

    fn power(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.is_kw("await") {
            return Err(ParseError::unsupported(pos, "async code"));
        }
        let base = self.primary()?;
        if self.eat_op("**") {
            self.enter()?;
            let exponent = self.factor()?;
            self.leave(1);
            return Ok(Expr::new(ExprKind::BinOp { left: Box::new(base), op: BinOp::Pow, right: Box::new(exponent) }, pos));
        }
        Ok(base)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let mut e = self.atom()?;
        let mut levels = 0;
        loop {
            if self.is_op("(") {
                self.i += 1;
                let (args, keywords) = self.call_args()?;
                self.expect_op(")")?;
                e = Expr::new(ExprKind::Call { func: Box::new(e), args, keywords }, pos);
            } else if self.is_op("[") {
                self.i += 1;
                let index = self.subscript()?;
                self.expect_op("]")?;
                e = Expr::new(ExprKind::Subscript { value: Box::new(e), index: Box::new(index) }, pos);
            } else if self.is_op(".") {
                self.i += 1;
                let attr = self.name()?;
                e = Expr::new(ExprKind::Attribute { value: Box::new(e), attr }, pos);
            } else {
                break;
            }
            self.enter()?;
            levels += 1;
        }
        self.leave(levels);
        Ok(e)
    }

    fn call_args(&mut self) -> PResult<(Vec<Expr>, Vec<Keyword>)> {
        let mut args = Vec::new();
        let mut keywords: Vec<Keyword> = Vec::new();
        while !self.is_op(")") {
            let pos = self.pos();
            if self.is_op("*") || self.is_op("**") {
                return Err(ParseError::unsupported(pos, "argument unpacking (*args, **kwargs)"));
            }
            if let (Tok::Name(n), Tok::Op("=")) = (self.tok(), self.tok_at(1)) {
                let name = n.clone();
                if is_keyword(&name) {
                    return Err(ParseError::syntax(pos, "expected a keyword argument name"));
                }
                self.i += 2;
                if keywords.iter().any(|k| k.name == name) {
                    return Err(ParseError::syntax(pos, format!("keyword argument repeated: {name}")));
                }
                let value = self.test()?;
                keywords.push(Keyword { name, value });
            } else {
                if !keywords.is_empty() {
                    return Err(ParseError::syntax(pos, "positional argument follows keyword argument"));
                }
                let arg = self.named_test()?;
                if self.is_kw("for") || self.is_kw("async") {
                    let gens = self.comprehension_clauses()?;
                    let genexp = Expr::new(ExprKind::GenExp { elt: Box::new(arg), gens }, pos);
                    if !args.is_empty() || !self.is_op(")") {
                        return Err(ParseError::syntax(pos, "generator expression must be parenthesized"));
                    }
                    args.push(genexp);
                    break;
                }
                args.push(arg);
            }
            if !self.eat_op(",") {
                break;
            }
        }
        Ok((args, keywords))
    }

    fn subscript(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let first = self.slice_item()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.is_op("]") {
                break;
            }
            items.push(self.slice_item()?);
        }
        if items.iter().any(|e| matches!(e.kind, ExprKind::Slice { .. })) {
            return Err(ParseError::unsupported(pos, "multi-dimensional slicing"));
        }
        Ok(Expr::new(ExprKind::Tuple(items), pos))
    }

    fn slice_item(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let lower = if self.is_op(":") { None } else { Some(Box::new(self.named_test()?)) };
        if !self.eat_op(":") {
            return lower.map(|b| *b).ok_or_else(|| self.expected("an index"));
        }
        let upper = if self.is_op(":") || self.is_op("]") || self.is_op(",") { None } else { Some(Box::new(self.test()?)) };
        let step = if self.eat_op(":") {
            if self.is_op("]") || self.is_op(",") {
                None
            } else {
                Some(Box::new(self.test()?))
            }
        } else {
            None
        };
        Ok(Expr::new(ExprKind::Slice { lower, upper, step }, pos))
    }

    fn comprehension_clauses(&mut self) -> PResult<Vec<Comprehension>> {
        let mut gens = Vec::new();
        loop {
            if self.is_kw("async") {
                return Err(ParseError::unsupported(self.pos(), "async code"));
            }
            if !self.eat_kw("for") {
                break;
            }
            let target = self.target_list()?;
            self.expect_kw("in")?;
            let iter = self.or_test()?;
            let mut ifs = Vec::new();
            while self.eat_kw("if") {
                ifs.push(self.or_test_or_named()?);
            }
            gens.push(Comprehension { target, iter, ifs });
        }
        Ok(gens)
    }

    fn or_test_or_named(&mut self) -> PResult<Expr> {
        if matches!((self.tok(), self.tok_at(1)), (Tok::Name(_), Tok::Op(":="))) {
            return Err(ParseError::syntax(self.pos(), "an assignment expression must be parenthesized here"));
        }
        self.or_test()
    }

    /// Targets of `for` (stops before `in`).
    pub(super) fn target_list(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.is_op("*") {
            return Err(ParseError::unsupported(pos, "starred assignment targets"));
        }
        let first = self.bitor()?;
        let target = if self.is_op(",") {
            let mut items = vec![first];
            while self.eat_op(",") {
                if self.is_kw("in") {
                    break;
                }
                if self.is_op("*") {
                    return Err(ParseError::unsupported(self.pos(), "starred assignment targets"));
                }
                items.push(self.bitor()?);
            }
            Expr::new(ExprKind::Tuple(items), pos)
        } else {
            first
        };
        check_target(&target, "assign to")?;
        Ok(target)
    }

    fn atom(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        self.enter()?;
        let result = self.atom_inner(pos);
        self.leave(1);
        result
    }

    fn atom_inner(&mut self, pos: Pos) -> PResult<Expr> {
        match self.advance() {
            Tok::Int(v) => Ok(Expr::new(ExprKind::Const(v), pos)),
            Tok::Float(f) => Ok(Expr::new(ExprKind::Const(PyValue::Float(f)), pos)),
            Tok::Str(s) => {
                let mut s = s;
                while let Tok::Str(more) = self.tok() {
                    s.push_str(more);
                    self.i += 1;
                }
                Ok(Expr::new(ExprKind::Const(PyValue::str(&s)), pos))
            }
            Tok::Name(n) => match n.as_str() {
                "True" => Ok(Expr::new(ExprKind::Const(PyValue::Bool(true)), pos)),
                "False" => Ok(Expr::new(ExprKind::Const(PyValue::Bool(false)), pos)),
                "None" => Ok(Expr::new(ExprKind::Const(PyValue::None), pos)),
                "yield" => Err(ParseError::unsupported(pos, "generators (yield)")),
                "await" | "async" => Err(ParseError::unsupported(pos, "async code")),
                _ if is_keyword(&n) => {
                    self.i -= 1;
                    Err(self.expected("an expression"))
                }
                _ => Ok(Expr::new(ExprKind::Name { id: n, slot: NameRef::Unresolved }, pos)),
            },
            Tok::Op("(") => {
                if self.eat_op(")") {
                    return Ok(Expr::new(ExprKind::Tuple(Vec::new()), pos));
                }
                if self.is_kw("yield") {
                    return Err(ParseError::unsupported(self.pos(), "generators (yield)"));
                }
                let first = self.star_or_named()?;
                if self.is_kw("for") || self.is_kw("async") {
                    let gens = self.comprehension_clauses()?;
                    self.expect_op(")")?;
                    return Ok(Expr::new(ExprKind::GenExp { elt: Box::new(first), gens }, pos));
                }
                if self.eat_op(")") {
                    return Ok(first);
                }
                let mut items = vec![first];
                while self.eat_op(",") {
                    if self.is_op(")") {
                        break;
                    }
                    items.push(self.star_or_named()?);
                }
                self.expect_op(")")?;
                Ok(Expr::new(ExprKind::Tuple(items), pos))
            }
            Tok::Op("[") => {
                if self.eat_op("]") {
                    return Ok(Expr::new(ExprKind::List(Vec::new()), pos));
                }
                let first = self.star_or_named()?;
                if self.is_kw("for") || self.is_kw("async") {
                    let gens = self.comprehension_clauses()?;
                    self.expect_op("]")?;
                    return Ok(Expr::new(ExprKind::ListComp { elt: Box::new(first), gens }, pos));
                }
                let mut items = vec![first];
                while self.eat_op(",") {
                    if self.is_op("]") {
                        break;
                    }
                    items.push(self.star_or_named()?);
                }
                self.expect_op("]")?;
                Ok(Expr::new(ExprKind::List(items), pos))
            }
            Tok::Op("{") => {
                if self.eat_op("}") {
                    return Ok(Expr::new(ExprKind::Dict(Vec::new()), pos));
                }
                if self.is_op("**") {
                    return Err(ParseError::unsupported(self.pos(), "dictionary unpacking"));
                }
                let first = self.star_or_named()?;
                if self.eat_op(":") {
                    let value = self.test()?;
                    if self.is_kw("for") || self.is_kw("async") {
                        let gens = self.comprehension_clauses()?;
                        self.expect_op("}")?;
                        return Ok(Expr::new(ExprKind::DictComp { key: Box::new(first), value: Box::new(value), gens }, pos));
                    }
                    let mut pairs = vec![(first, value)];
                    while self.eat_op(",") {
                        if self.is_op("}") {
                            break;
                        }
                        if self.is_op("**") {
                            return Err(ParseError::unsupported(self.pos(), "dictionary unpacking"));
                        }
                        let k = self.test()?;
                        self.expect_op(":")?;
                        let v = self.test()?;
                        pairs.push((k, v));
                    }
                    self.expect_op("}")?;
                    return Ok(Expr::new(ExprKind::Dict(pairs), pos));
                }
                if self.is_kw("for") || self.is_kw("async") {
                    let gens = self.comprehension_clauses()?;
                    self.expect_op("}")?;
                    return Ok(Expr::new(ExprKind::SetComp { elt: Box::new(first), gens }, pos));
                }
                let mut items = vec![first];
                while self.eat_op(",") {
                    if self.is_op("}") {
                        break;
                    }
                    items.push(self.star_or_named()?);
                }
                self.expect_op("}")?;
                Ok(Expr::new(ExprKind::Set(items), pos))
            }
            Tok::Op("...") => Err(ParseError::unsupported(pos, "the Ellipsis literal")),
            _ => {
                self.i = self.i.saturating_sub(1);
                Err(self.expected("an expression"))
            }
        }
    }
}
