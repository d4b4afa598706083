//! Statements: the file and indented blocks, compound statements (`if`/`elif`/`else`, `while`, `for`, `def`
//! with its parameters) and simple ones (assignment in all its forms, `return`, `del`, `assert`, `pass`,
//! `from typing import ...`), rejecting the unsupported ones at their position.

use std::rc::Rc;

use super::{check_target, PResult, Parser};
use crate::engine::python::ast::{BinOp, ExprKind, FunctionDef, Layout, NameRef, Param, Stmt, StmtKind};
use crate::engine::python::error::{ParseError, Pos};
use crate::engine::python::lexer::Tok;

impl Parser {
    pub(super) fn file(&mut self) -> PResult<Vec<Stmt>> {
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

    pub(super) fn block(&mut self) -> PResult<Vec<Stmt>> {
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

    pub(super) fn params(&mut self, close: &str, annotations: bool) -> PResult<Vec<Param>> {
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
