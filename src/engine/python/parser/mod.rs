//! Recursive-descent parser from tokens to the syntax tree, following Python's grammar for the supported
//! subset; valid Python outside the subset becomes `ParseError::UnsupportedFeature` at its exact position.
//!
//! Nesting (brackets, blocks, unary and binary operator chains) is capped at `MAX_NESTING` so that no input can
//! exhaust the native stack while parsing, resolving, printing or evaluating.

use std::rc::Rc;

use super::ast::*;
use super::error::{ParseError, Pos};
use super::lexer::{tokenize, Tok, Token};
use super::value::PyValue;

/// Deepest nesting of expressions and blocks the parser accepts.
pub const MAX_NESTING: u32 = 90;

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
    "while", "with", "yield",
];

/// True for Python's reserved words.
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// Parses source text into an unresolved syntax tree (use `parse_module` for a runnable one).
pub fn parse_tree(src: &str) -> Result<Vec<Stmt>, ParseError> {
    let tokens = tokenize(src)?;
    let mut parser = Parser { toks: tokens, i: 0, depth: 0 };
    parser.file()
}

struct Parser {
    toks: Vec<Token>,
    i: usize,
    depth: u32,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn tok(&self) -> &Tok {
        self.toks.get(self.i).map(|t| &t.tok).unwrap_or(&Tok::End)
    }

    fn tok_at(&self, k: usize) -> &Tok {
        self.toks.get(self.i + k).map(|t| &t.tok).unwrap_or(&Tok::End)
    }

    fn pos(&self) -> Pos {
        self.toks.get(self.i).or(self.toks.last()).map(|t| t.pos).unwrap_or_default()
    }

    fn advance(&mut self) -> Tok {
        let t = self.tok().clone();
        if self.i < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.tok(), Tok::Op(o) if *o == op)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.tok(), Tok::Name(n) if n == kw)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn describe(&self) -> String {
        match self.tok() {
            Tok::Name(n) => format!("'{n}'"),
            Tok::Int(v) => v.repr(),
            Tok::Float(f) => format!("{f}"),
            Tok::Str(_) => "a string".into(),
            Tok::Op(o) => format!("'{o}'"),
            Tok::Newline => "end of line".into(),
            Tok::Indent => "an indented block".into(),
            Tok::Dedent => "the end of a block".into(),
            Tok::End => "end of file".into(),
        }
    }

    fn expected(&self, what: &str) -> ParseError {
        ParseError::syntax(self.pos(), format!("expected {what}, found {}", self.describe()))
    }

    fn expect_op(&mut self, op: &str) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{op}'")))
        }
    }

    fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{kw}'")))
        }
    }

    fn name(&mut self) -> PResult<String> {
        match self.tok() {
            Tok::Name(n) if !is_keyword(n) => {
                let n = n.clone();
                self.i += 1;
                Ok(n)
            }
            _ => Err(self.expected("a name")),
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ParseError::syntax(self.pos(), format!("too deeply nested (more than {MAX_NESTING} levels)")));
        }
        Ok(())
    }

    fn leave(&mut self, levels: u32) {
        self.depth = self.depth.saturating_sub(levels);
    }

    // ---------------------------------------------------------------- statements

    fn file(&mut self) -> PResult<Vec<Stmt>> {
        let mut body = Vec::new();
        loop {
            match self.tok() {
                Tok::End => break,
                Tok::Newline => {
                    self.i += 1;
                }
                Tok::Indent => return Err(ParseError::syntax(self.pos(), "unexpected indent")),
                _ => self.statement(&mut body)?,
            }
        }
        Ok(body)
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect_op(":")?;
        self.enter()?;
        let mut body = Vec::new();
        if matches!(self.tok(), Tok::Newline) {
            self.i += 1;
            if !matches!(self.tok(), Tok::Indent) {
                return Err(ParseError::syntax(self.pos(), "expected an indented block"));
            }
            self.i += 1;
            loop {
                match self.tok() {
                    Tok::Dedent => {
                        self.i += 1;
                        break;
                    }
                    Tok::End => break,
                    Tok::Indent => return Err(ParseError::syntax(self.pos(), "unexpected indent")),
                    _ => self.statement(&mut body)?,
                }
            }
        } else {
            self.simple_statements(&mut body)?;
        }
        self.leave(1);
        Ok(body)
    }

    fn statement(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let pos = self.pos();
        let Tok::Name(word) = self.tok() else {
            if self.is_op("@") {
                return Err(ParseError::unsupported(pos, "decorators"));
            }
            return self.simple_statements(out);
        };
        match word.as_str() {
            "if" => {
                self.i += 1;
                let stmt = self.if_rest(pos)?;
                out.push(stmt);
            }
            "while" => {
                self.i += 1;
                let test = self.named_test()?;
                let body = self.block()?;
                let orelse = if self.eat_kw("else") { self.block()? } else { Vec::new() };
                out.push(Stmt { kind: StmtKind::While { test, body, orelse }, pos });
            }
            "for" => {
                self.i += 1;
                let target = self.target_list()?;
                self.expect_kw("in")?;
                let iter = self.testlist()?;
                let body = self.block()?;
                let orelse = if self.eat_kw("else") { self.block()? } else { Vec::new() };
                out.push(Stmt { kind: StmtKind::For { target, iter, body, orelse }, pos });
            }
            "def" => {
                self.i += 1;
                let def = self.funcdef(pos)?;
                out.push(Stmt { kind: StmtKind::FunctionDef(Rc::new(def)), pos });
            }
            "class" => return Err(ParseError::unsupported(pos, "class definitions")),
            "try" => return Err(ParseError::unsupported(pos, "try statements")),
            "with" => return Err(ParseError::unsupported(pos, "with statements")),
            "async" => return Err(ParseError::unsupported(pos, "async code")),
            _ => self.simple_statements(out)?,
        }
        Ok(())
    }

    fn if_rest(&mut self, pos: Pos) -> PResult<Stmt> {
        let test = self.named_test()?;
        let body = self.block()?;
        let orelse = if self.is_kw("elif") {
            let elif_pos = self.pos();
            self.i += 1;
            self.enter()?;
            let nested = self.if_rest(elif_pos)?;
            self.leave(1);
            vec![nested]
        } else if self.eat_kw("else") {
            self.block()?
        } else {
            Vec::new()
        };
        Ok(Stmt { kind: StmtKind::If { test, body, orelse }, pos })
    }

    fn funcdef(&mut self, pos: Pos) -> PResult<FunctionDef> {
        let name = self.name()?;
        self.expect_op("(")?;
        let params = self.params(")", true)?;
        self.expect_op(")")?;
        let returns = if self.eat_op("->") { Some(self.test()?) } else { None };
        let body = self.block()?;
        Ok(FunctionDef { name, params, returns, body, pos, is_lambda: false, slot: NameRef::Unresolved, layout: Layout::default() })
    }

    fn params(&mut self, close: &str, annotations: bool) -> PResult<Vec<Param>> {
        let mut params: Vec<Param> = Vec::new();
        while !self.is_op(close) {
            let pos = self.pos();
            if self.is_op("*") || self.is_op("**") {
                return Err(ParseError::unsupported(pos, "*args, **kwargs and keyword-only parameters"));
            }
            if self.is_op("/") {
                return Err(ParseError::unsupported(pos, "positional-only parameters"));
            }
            let name = self.name()?;
            if params.iter().any(|p| p.name == name) {
                return Err(ParseError::syntax(pos, format!("duplicate argument '{name}' in function definition")));
            }
            let annotation = if annotations && self.eat_op(":") { Some(self.test()?) } else { None };
            let default = if self.eat_op("=") {
                Some(self.test()?)
            } else {
                if params.last().is_some_and(|p| p.default.is_some()) {
                    return Err(ParseError::syntax(pos, "parameter without a default follows parameter with a default"));
                }
                None
            };
            params.push(Param { name, annotation, default, pos });
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(params)
    }

    fn simple_statements(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        loop {
            let stmt = self.simple_statement()?;
            out.push(stmt);
            if self.eat_op(";") {
                if matches!(self.tok(), Tok::Newline | Tok::End) {
                    break;
                }
                continue;
            }
            break;
        }
        match self.tok() {
            Tok::Newline => {
                self.i += 1;
                Ok(())
            }
            Tok::End => Ok(()),
            _ => Err(self.expected("end of line")),
        }
    }

    fn simple_statement(&mut self) -> PResult<Stmt> {
        let pos = self.pos();
        if let Tok::Name(word) = self.tok() {
            let kind = match word.as_str() {
                "pass" => Some(StmtKind::Pass),
                "break" => Some(StmtKind::Break),
                "continue" => Some(StmtKind::Continue),
                _ => None,
            };
            if let Some(kind) = kind {
                self.i += 1;
                return Ok(Stmt { kind, pos });
            }
            match word.as_str() {
                "return" => {
                    self.i += 1;
                    let value =
                        if matches!(self.tok(), Tok::Newline | Tok::End) || self.is_op(";") { None } else { Some(self.testlist()?) };
                    return Ok(Stmt { kind: StmtKind::Return(value), pos });
                }
                "del" => {
                    self.i += 1;
                    let mut targets = Vec::new();
                    loop {
                        let t = self.bitor()?;
                        check_target(&t, "delete")?;
                        targets.push(t);
                        if !self.eat_op(",") || matches!(self.tok(), Tok::Newline | Tok::End) {
                            break;
                        }
                    }
                    return Ok(Stmt { kind: StmtKind::Delete(targets), pos });
                }
                "assert" => {
                    self.i += 1;
                    let test = self.test()?;
                    let msg = if self.eat_op(",") { Some(self.test()?) } else { None };
                    return Ok(Stmt { kind: StmtKind::Assert { test, msg }, pos });
                }
                "global" | "nonlocal" => return Err(ParseError::unsupported(pos, format!("{word} declarations"))),
                "import" => return Err(ParseError::unsupported(pos, "import statements")),
                "raise" => return Err(ParseError::unsupported(pos, "raise statements")),
                "yield" => return Err(ParseError::unsupported(pos, "generators (yield)")),
                "from" => return self.import_from(pos),
                _ => {}
            }
        }
        let first = self.testlist_star()?;
        if self.eat_op("=") {
            let mut targets = vec![first];
            let mut value = self.testlist_star()?;
            while self.eat_op("=") {
                targets.push(value);
                value = self.testlist_star()?;
            }
            for t in &targets {
                check_target(t, "assign to")?;
            }
            return Ok(Stmt { kind: StmtKind::Assign { targets, value }, pos });
        }
        if let Tok::Op(op) = self.tok() {
            if let Some(bin) = aug_op(op) {
                if bin == BinOp::Mul && *op == "@=" {
                    return Err(ParseError::unsupported(pos, "matrix multiplication"));
                }
                self.i += 1;
                if !matches!(first.kind, ExprKind::Name { .. } | ExprKind::Subscript { .. } | ExprKind::Attribute { .. }) {
                    return Err(ParseError::syntax(first.pos, "illegal expression for augmented assignment"));
                }
                check_target(&first, "assign to")?;
                let value = self.testlist()?;
                return Ok(Stmt { kind: StmtKind::AugAssign { target: first, op: bin, value }, pos });
            }
        }
        if self.is_op(":") {
            self.i += 1;
            if !matches!(first.kind, ExprKind::Name { .. } | ExprKind::Subscript { .. } | ExprKind::Attribute { .. }) {
                return Err(ParseError::syntax(first.pos, "only single target (not tuple) can be annotated"));
            }
            check_target(&first, "assign to")?;
            let annotation = self.test()?;
            let value = if self.eat_op("=") { Some(self.testlist()?) } else { None };
            return Ok(Stmt { kind: StmtKind::AnnAssign { target: first, annotation, value }, pos });
        }
        if let ExprKind::NamedExpr { .. } = first.kind {
            return Err(ParseError::syntax(first.pos, "an assignment expression must be parenthesized here"));
        }
        Ok(Stmt { kind: StmtKind::Expr(first), pos })
    }

    fn import_from(&mut self, pos: Pos) -> PResult<Stmt> {
        self.i += 1;
        let module = self.name()?;
        if module != "typing" || self.is_op(".") {
            return Err(ParseError::unsupported(pos, "import statements (only `from typing import ...` is accepted)"));
        }
        self.expect_kw("import")?;
        let paren = self.eat_op("(");
        let mut names = Vec::new();
        loop {
            if self.is_op("*") {
                self.i += 1;
                names.push("*".to_string());
            } else {
                names.push(self.name()?);
                if self.eat_kw("as") {
                    return Err(ParseError::unsupported(pos, "import aliases"));
                }
            }
            if !self.eat_op(",") || (paren && self.is_op(")")) {
                break;
            }
        }
        if paren {
            self.expect_op(")")?;
        }
        Ok(Stmt { kind: StmtKind::ImportTyping { names }, pos })
    }

    // ---------------------------------------------------------------- expressions

    fn starts_expr(&self) -> bool {
        match self.tok() {
            Tok::Name(n) => !is_keyword(n) || matches!(n.as_str(), "True" | "False" | "None" | "not" | "lambda" | "await" | "yield"),
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) => true,
            Tok::Op(o) => matches!(*o, "(" | "[" | "{" | "-" | "+" | "~" | "..." | "*"),
            _ => false,
        }
    }

    /// `a, b` (a tuple when there is a comma), starred items rejected.
    fn testlist(&mut self) -> PResult<Expr> {
        self.testlist_star()
    }

    fn testlist_star(&mut self) -> PResult<Expr> {
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
    fn named_test(&mut self) -> PResult<Expr> {
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

    fn test(&mut self) -> PResult<Expr> {
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

    fn bitor(&mut self) -> PResult<Expr> {
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
    fn target_list(&mut self) -> PResult<Expr> {
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

fn aug_op(op: &str) -> Option<BinOp> {
    Some(match op {
        "+=" => BinOp::Add,
        "-=" => BinOp::Sub,
        "*=" | "@=" => BinOp::Mul,
        "/=" => BinOp::Div,
        "//=" => BinOp::FloorDiv,
        "%=" => BinOp::Mod,
        "**=" => BinOp::Pow,
        "<<=" => BinOp::LShift,
        ">>=" => BinOp::RShift,
        "|=" => BinOp::BitOr,
        "^=" => BinOp::BitXor,
        "&=" => BinOp::BitAnd,
        _ => return None,
    })
}

/// Checks that `e` can be assigned to (names, subscripts, tuples/lists of targets).
fn check_target(e: &Expr, verb: &str) -> PResult<()> {
    match &e.kind {
        ExprKind::Name { .. } | ExprKind::Subscript { .. } => Ok(()),
        ExprKind::Attribute { .. } => Err(ParseError::unsupported(e.pos, "attribute assignment")),
        ExprKind::Tuple(items) | ExprKind::List(items) if verb != "delete" || !items.is_empty() => {
            items.iter().try_for_each(|item| check_target(item, verb))
        }
        ExprKind::Const(_) => Err(ParseError::syntax(e.pos, format!("cannot {verb} literal"))),
        ExprKind::Call { .. } => Err(ParseError::syntax(e.pos, format!("cannot {verb} function call"))),
        _ => Err(ParseError::syntax(e.pos, format!("cannot {verb} expression"))),
    }
}
