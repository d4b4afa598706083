//! The syntax tree of the Python subset, with positions, plus the name-resolution slots the resolver fills in
//! (the unparser and the renamer ignore the slots).

use std::rc::Rc;

use super::error::Pos;
use super::value::PyValue;

/// A parsed (and resolved) module: top-level statements, normally one or more `def`s.
#[derive(Clone, Debug)]
pub struct Module {
    pub body: Vec<Stmt>,
    /// Names of the module-level variables, indexed by `NameRef::Global`.
    pub globals: Vec<String>,
    /// Frame layout for module-level code (comprehension variables at top level).
    pub layout: Layout,
}

/// Where a name lives at run time; filled by the resolver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NameRef {
    /// Not resolved yet (never seen after `parse_module`).
    #[default]
    Unresolved,
    /// A plain local slot of the current frame.
    Local(u32),
    /// A cell of the current frame (own captured locals first, then free variables).
    Cell(u32),
    /// A module-level variable.
    Global(u32),
    /// A builtin function or type.
    Builtin(super::builtin_names::Builtin),
}

/// The frame shape of a function (or of module-level code).
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Number of plain local slots.
    pub n_locals: u32,
    /// Number of cells the frame creates itself (captured locals).
    pub n_own_cells: u32,
    /// For each free variable, the cell index in the *defining* frame to capture.
    pub captures: Vec<u32>,
    /// Where each parameter is stored.
    pub param_slots: Vec<NameRef>,
}

/// A statement with its position.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub pos: Pos,
}

/// Statement kinds.
#[derive(Clone, Debug)]
pub enum StmtKind {
    Expr(Expr),
    /// `t1 = t2 = value` (targets in source order).
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// `x: int = value` (the annotation is never evaluated).
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    Pass,
    Break,
    Continue,
    Return(Option<Expr>),
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    FunctionDef(Rc<FunctionDef>),
    Delete(Vec<Expr>),
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `from typing import ...`: accepted and ignored, since annotations are never evaluated.
    ImportTyping {
        names: Vec<String>,
    },
}

/// A function definition (also used for `lambda`, whose body is one `return`).
#[derive(Clone, Debug)]
pub struct FunctionDef {
    pub name: String,
    pub params: Vec<Param>,
    pub returns: Option<Expr>,
    pub body: Vec<Stmt>,
    pub pos: Pos,
    /// True for `lambda`.
    pub is_lambda: bool,
    /// Where the defining scope stores the function (set by the resolver; unused for lambdas).
    pub slot: NameRef,
    pub layout: Layout,
}

/// A parameter of a function.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub annotation: Option<Expr>,
    pub default: Option<Expr>,
    pub pos: Pos,
}

/// An expression with its position.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

/// Expression kinds.
#[derive(Clone, Debug)]
pub enum ExprKind {
    Name {
        id: String,
        slot: NameRef,
    },
    /// A literal: int, float, str, bool or None.
    Const(PyValue),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Set(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    ListComp {
        elt: Box<Expr>,
        gens: Vec<Comprehension>,
    },
    SetComp {
        elt: Box<Expr>,
        gens: Vec<Comprehension>,
    },
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        gens: Vec<Comprehension>,
    },
    /// A generator expression (only allowed as a call argument).
    GenExp {
        elt: Box<Expr>,
        gens: Vec<Comprehension>,
    },
    BinOp {
        left: Box<Expr>,
        op: BinOp,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    Compare {
        left: Box<Expr>,
        ops: Vec<CmpOp>,
        comparators: Vec<Expr>,
    },
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<Keyword>,
    },
    Attribute {
        value: Box<Expr>,
        attr: String,
    },
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    /// `lower:upper:step`, only as a subscript index.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    /// `(name := value)`.
    NamedExpr {
        target: String,
        slot: NameRef,
        value: Box<Expr>,
    },
    Lambda(Rc<FunctionDef>),
}

/// A keyword argument `name=value`.
#[derive(Clone, Debug)]
pub struct Keyword {
    pub name: String,
    pub value: Expr,
}

/// One `for target in iter if cond ...` clause of a comprehension.
#[derive(Clone, Debug)]
pub struct Comprehension {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
}

impl BinOp {
    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

/// `and` / `or`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl Expr {
    /// A new expression.
    pub fn new(kind: ExprKind, pos: Pos) -> Expr {
        Expr { kind, pos }
    }
}

impl Module {
    /// The first top-level function named `name`.
    pub fn function(&self, name: &str) -> Option<&Rc<FunctionDef>> {
        self.body.iter().find_map(|s| match &s.kind {
            StmtKind::FunctionDef(def) if def.name == name => Some(def),
            _ => None,
        })
    }

    /// The first top-level function, if any.
    pub fn first_function(&self) -> Option<&Rc<FunctionDef>> {
        self.body.iter().find_map(|s| match &s.kind {
            StmtKind::FunctionDef(def) => Some(def),
            _ => None,
        })
    }
}
