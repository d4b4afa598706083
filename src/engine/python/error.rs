//! Errors of the Python-subset interpreter: located parse errors, unsupported features, Python exceptions
//! (with their class) and resource errors (step budget, memory cap), which are not Python exceptions.

use std::fmt;

/// A 1-based source position (line, column in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub col: u32,
}

impl Pos {
    /// A position from a line and a column.
    pub fn new(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }
}

/// Why source text could not be turned into a runnable module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text is not valid Python (or not valid for this subset's grammar).
    #[error("syntax error at line {line}, column {column}: {message}")]
    Syntax { message: String, line: u32, column: u32 },
    /// Valid Python that this interpreter deliberately does not run (classes, imports, `try`, ...).
    #[error("unsupported feature at line {line}, column {column}: {what}")]
    UnsupportedFeature { what: String, line: u32, column: u32 },
}

impl ParseError {
    /// A syntax error at `pos`.
    pub fn syntax(pos: Pos, message: impl Into<String>) -> ParseError {
        ParseError::Syntax { message: message.into(), line: pos.line, column: pos.col }
    }

    /// An unsupported feature at `pos`.
    pub fn unsupported(pos: Pos, what: impl Into<String>) -> ParseError {
        ParseError::UnsupportedFeature { what: what.into(), line: pos.line, column: pos.col }
    }

    /// Where the problem is.
    pub fn pos(&self) -> Pos {
        match self {
            ParseError::Syntax { line, column, .. } | ParseError::UnsupportedFeature { line, column, .. } => Pos::new(*line, *column),
        }
    }
}

/// The Python exception classes this interpreter raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExcClass {
    IndexError,
    KeyError,
    ZeroDivisionError,
    ValueError,
    TypeError,
    NameError,
    UnboundLocalError,
    AttributeError,
    RecursionError,
    OverflowError,
    AssertionError,
    RuntimeError,
    StopIteration,
}

impl ExcClass {
    /// The class name as CPython prints it.
    pub fn name(self) -> &'static str {
        match self {
            ExcClass::IndexError => "IndexError",
            ExcClass::KeyError => "KeyError",
            ExcClass::ZeroDivisionError => "ZeroDivisionError",
            ExcClass::ValueError => "ValueError",
            ExcClass::TypeError => "TypeError",
            ExcClass::NameError => "NameError",
            ExcClass::UnboundLocalError => "UnboundLocalError",
            ExcClass::AttributeError => "AttributeError",
            ExcClass::RecursionError => "RecursionError",
            ExcClass::OverflowError => "OverflowError",
            ExcClass::AssertionError => "AssertionError",
            ExcClass::RuntimeError => "RuntimeError",
            ExcClass::StopIteration => "StopIteration",
        }
    }
}

impl fmt::Display for ExcClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Python exception raised by the running code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{class}: {message} (line {line})")]
pub struct PyError {
    pub class: ExcClass,
    pub message: String,
    /// The line of the statement that raised (0 when raised outside any statement, e.g. binding arguments).
    pub line: u32,
}

impl PyError {
    /// An exception not located yet (the evaluator fills in the line of the statement that raised it).
    pub fn new(class: ExcClass, message: impl Into<String>) -> PyError {
        PyError { class, message: message.into(), line: 0 }
    }
}

/// Why a call did not return a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The code raised a Python exception.
    #[error(transparent)]
    Exception(#[from] PyError),
    /// The code ran longer than the step budget allows (runaway loops end here).
    #[error("step budget of {limit} steps exceeded at line {line}")]
    StepBudgetExceeded { limit: u64, line: u32 },
    /// The code allocated more list/dict/set elements or big-integer digits than the memory cap allows.
    #[error("memory cap of {limit} units exceeded at line {line}")]
    MemoryExceeded { limit: u64, line: u32 },
}

impl RunError {
    /// `Class: message` in the form the batch tracer prints (`ValueError: max() arg is an empty sequence`).
    pub fn summary(&self) -> String {
        match self {
            RunError::Exception(e) => format!("{}: {}", e.class, e.message),
            RunError::StepBudgetExceeded { limit, line } => format!("StepBudgetExceeded: more than {limit} steps (at line {line})"),
            RunError::MemoryExceeded { limit, line } => format!("MemoryExceeded: more than {limit} allocated units (at line {line})"),
        }
    }

    /// The Python exception class, if this is a Python exception.
    pub fn class(&self) -> Option<ExcClass> {
        match self {
            RunError::Exception(e) => Some(e.class),
            _ => None,
        }
    }
}
