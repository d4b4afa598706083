//! The names of the builtin functions and types a program can call (`len`, `sorted`, `int`, ...): the
//! `Builtin` enum the resolver binds names to and values carry, without the code that runs them.

/// The builtin functions and types that can be called by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Len,
    Range,
    Max,
    Min,
    Sum,
    Sorted,
    Enumerate,
    Zip,
    Abs,
    List,
    Set,
    Dict,
    Tuple,
    Int,
    Str,
    Bool,
    Float,
    Any,
    All,
    Reversed,
    Divmod,
    Pow,
    Map,
    Filter,
    Iter,
    Next,
    Print,
    Round,
    Chr,
    Ord,
    Bin,
    Hex,
}

const ALL_BUILTINS: &[Builtin] = &[
    Builtin::Len,
    Builtin::Range,
    Builtin::Max,
    Builtin::Min,
    Builtin::Sum,
    Builtin::Sorted,
    Builtin::Enumerate,
    Builtin::Zip,
    Builtin::Abs,
    Builtin::List,
    Builtin::Set,
    Builtin::Dict,
    Builtin::Tuple,
    Builtin::Int,
    Builtin::Str,
    Builtin::Bool,
    Builtin::Float,
    Builtin::Any,
    Builtin::All,
    Builtin::Reversed,
    Builtin::Divmod,
    Builtin::Pow,
    Builtin::Map,
    Builtin::Filter,
    Builtin::Iter,
    Builtin::Next,
    Builtin::Print,
    Builtin::Round,
    Builtin::Chr,
    Builtin::Ord,
    Builtin::Bin,
    Builtin::Hex,
];

impl Builtin {
    /// The Python name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Len => "len",
            Builtin::Range => "range",
            Builtin::Max => "max",
            Builtin::Min => "min",
            Builtin::Sum => "sum",
            Builtin::Sorted => "sorted",
            Builtin::Enumerate => "enumerate",
            Builtin::Zip => "zip",
            Builtin::Abs => "abs",
            Builtin::List => "list",
            Builtin::Set => "set",
            Builtin::Dict => "dict",
            Builtin::Tuple => "tuple",
            Builtin::Int => "int",
            Builtin::Str => "str",
            Builtin::Bool => "bool",
            Builtin::Float => "float",
            Builtin::Any => "any",
            Builtin::All => "all",
            Builtin::Reversed => "reversed",
            Builtin::Divmod => "divmod",
            Builtin::Pow => "pow",
            Builtin::Map => "map",
            Builtin::Filter => "filter",
            Builtin::Iter => "iter",
            Builtin::Next => "next",
            Builtin::Print => "print",
            Builtin::Round => "round",
            Builtin::Chr => "chr",
            Builtin::Ord => "ord",
            Builtin::Bin => "bin",
            Builtin::Hex => "hex",
        }
    }

    /// Looks a builtin up by name.
    pub fn lookup(name: &str) -> Option<Builtin> {
        ALL_BUILTINS.iter().copied().find(|b| b.name() == name)
    }
}
