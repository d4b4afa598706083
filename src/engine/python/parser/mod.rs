//! Recursive-descent parser from tokens to the syntax tree, following Python's grammar for the supported
//! subset; valid Python outside the subset becomes `ParseError::UnsupportedFeature` at its exact position.
//!
//! Nesting (brackets, blocks, unary and binary operator chains) is capped at `MAX_NESTING` so that no input can
//! exhaust the native stack while parsing, resolving, printing or evaluating.
//!
//! This file holds the parser's cursor over the tokens and the rules both halves share; `stmt` parses
//! statements and blocks, `expr` expressions by precedence level.

mod expr;
mod stmt;

use super::ast::{Expr, ExprKind, Stmt};
use super::error::{ParseError, Pos};
use super::lexer::{tokenize, Tok, Token};

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
