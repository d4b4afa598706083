//! Run-time values of the interpreter: Python's ints (i64 fast path, exact big ints beyond), floats, strings,
//! lists, tuples, dicts, sets, ranges, functions and iterators, with Python's truthiness, hash keys and `repr`.
//!
//! Lists, dicts and sets are shared by reference (`Rc<RefCell<..>>`), so `a = b; a.append(1)` changes `b`,
//! exactly as in Python. Equality and ordering live in `compare`, CPython's hash of a value's key in `hash`, the
//! insertion-ordered dict in `dict` and the set, which reproduces CPython's hash-table iteration order for
//! ints, in `set`.

pub mod dict;
pub mod set;

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};

use super::ast::FunctionDef;
use super::builtin_names::Builtin;
use super::error::{ExcClass, PyError};
use super::hash::HashKey;
use dict::Dict;
use set::PySet;

/// A shared, mutable list.
pub type ListRef = Rc<RefCell<Vec<PyValue>>>;
/// A closure cell.
pub type CellRef = Rc<RefCell<Option<PyValue>>>;

/// A Python value.
#[derive(Clone, Debug)]
pub enum PyValue {
    None,
    Bool(bool),
    /// An int that fits in 64 bits.
    Int(i64),
    /// An int outside the `i64` range (never holds a value that would fit `Int`).
    Big(Rc<BigInt>),
    Float(f64),
    Str(Rc<str>),
    List(ListRef),
    Tuple(Rc<Vec<PyValue>>),
    Dict(Rc<RefCell<Dict>>),
    Set(Rc<RefCell<PySet>>),
    Range(Rc<RangeVal>),
    Func(Rc<Function>),
    Builtin(Builtin),
    /// A method bound to its receiver (`a.append` used as a value).
    Method(Rc<(PyValue, String)>),
    /// An iterator object (`enumerate(...)`, `zip(...)`, `reversed(...)`, `map(...)`, `iter(...)`).
    Iter(Rc<RefCell<PyIter>>),
    /// `d.keys()`, `d.values()`, `d.items()`.
    DictView(Rc<(Rc<RefCell<Dict>>, ViewKind)>),
}

/// Which view of a dict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    Keys,
    Values,
    Items,
}

/// `range(start, stop, step)` with 64-bit bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeVal {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}

impl RangeVal {
    /// Number of items.
    pub fn len(&self) -> i64 {
        let (start, stop, step) = (self.start as i128, self.stop as i128, self.step as i128);
        let n = if step > 0 && start < stop {
            (stop - start + step - 1) / step
        } else if step < 0 && start > stop {
            (start - stop - step - 1) / (-step)
        } else {
            0
        };
        n.min(i64::MAX as i128) as i64
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th item (`0 <= i < len`).
    pub fn item(&self, i: i64) -> i64 {
        (self.start as i128 + self.step as i128 * i as i128) as i64
    }
}

/// A user function together with its default values and captured cells.
#[derive(Debug)]
pub struct Function {
    pub def: Rc<FunctionDef>,
    pub defaults: Vec<PyValue>,
    pub cells: Vec<CellRef>,
}

/// Iterator state.
#[derive(Debug)]
pub enum PyIter {
    /// Over a list (live: sees appends), a tuple or a materialized vector.
    List {
        list: ListRef,
        index: usize,
    },
    Values {
        items: Rc<Vec<PyValue>>,
        index: usize,
    },
    Str {
        text: Rc<str>,
        byte: usize,
    },
    Range {
        next: i64,
        remaining: i64,
        step: i64,
    },
    Dict {
        dict: Rc<RefCell<Dict>>,
        index: usize,
        version: u64,
        kind: ViewKind,
    },
    Set {
        set: Rc<RefCell<PySet>>,
        index: usize,
        version: u64,
    },
    Enumerate {
        inner: Box<PyIter>,
        count: PyValue,
    },
    Zip {
        inners: Vec<PyIter>,
    },
    ReversedList {
        list: ListRef,
        index: usize,
    },
    Map {
        func: PyValue,
        inners: Vec<PyIter>,
    },
    Filter {
        func: PyValue,
        inner: Box<PyIter>,
    },
    /// Advancing a shared iterator object.
    Shared(Rc<RefCell<PyIter>>),
    Done,
}

/// Deepest nesting of containers that equality, ordering, hashing and `repr` walk through.
pub(crate) const MAX_COMPARE_DEPTH: u32 = 200;

impl PyValue {
    /// A string value.
    pub fn str(s: &str) -> PyValue {
        PyValue::Str(Rc::from(s))
    }

    /// A new list.
    pub fn list(items: Vec<PyValue>) -> PyValue {
        PyValue::List(Rc::new(RefCell::new(items)))
    }

    /// A new tuple.
    pub fn tuple(items: Vec<PyValue>) -> PyValue {
        PyValue::Tuple(Rc::new(items))
    }

    /// An int from a big integer, normalised to `Int` when it fits.
    pub fn from_bigint(b: BigInt) -> PyValue {
        match b.to_i64() {
            Some(i) => PyValue::Int(i),
            None => PyValue::Big(Rc::new(b)),
        }
    }

    /// An int from an `i128`.
    pub fn from_i128(v: i128) -> PyValue {
        match i64::try_from(v) {
            Ok(i) => PyValue::Int(i),
            Err(_) => PyValue::Big(Rc::new(BigInt::from(v))),
        }
    }

    /// The int value as a big integer (bools count as ints).
    pub fn to_bigint(&self) -> Option<BigInt> {
        match self {
            PyValue::Bool(b) => Some(BigInt::from(*b as i64)),
            PyValue::Int(i) => Some(BigInt::from(*i)),
            PyValue::Big(b) => Some((**b).clone()),
            _ => None,
        }
    }

    /// The small-int value (bools count as ints).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            PyValue::Bool(b) => Some(*b as i64),
            PyValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// True for int or bool (Python's `isinstance(x, int)`).
    pub fn is_int(&self) -> bool {
        matches!(self, PyValue::Bool(_) | PyValue::Int(_) | PyValue::Big(_))
    }

    /// Python's type name, as in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) | PyValue::Big(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
            PyValue::Set(_) => "set",
            PyValue::Range(_) => "range",
            PyValue::Func(_) => "function",
            PyValue::Builtin(_) => "builtin_function_or_method",
            PyValue::Method(_) => "builtin_function_or_method",
            PyValue::Iter(it) => match &*it.borrow() {
                PyIter::Enumerate { .. } => "enumerate",
                PyIter::Zip { .. } => "zip",
                PyIter::Map { .. } => "map",
                PyIter::Filter { .. } => "filter",
                PyIter::ReversedList { .. } => "list_reverseiterator",
                _ => "iterator",
            },
            PyValue::DictView(v) => match v.1 {
                ViewKind::Keys => "dict_keys",
                ViewKind::Values => "dict_values",
                ViewKind::Items => "dict_items",
            },
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            PyValue::None => false,
            PyValue::Bool(b) => *b,
            PyValue::Int(i) => *i != 0,
            PyValue::Big(_) => true,
            PyValue::Float(f) => *f != 0.0,
            PyValue::Str(s) => !s.is_empty(),
            PyValue::List(l) => !l.borrow().is_empty(),
            PyValue::Tuple(t) => !t.is_empty(),
            PyValue::Dict(d) => !d.borrow().is_empty(),
            PyValue::Set(s) => !s.borrow().is_empty(),
            PyValue::Range(r) => !r.is_empty(),
            PyValue::DictView(v) => !v.0.borrow().is_empty(),
            _ => true,
        }
    }
    /// The hash key of a value, or TypeError for unhashable values.
    pub fn hash_key(&self) -> Result<HashKey, PyError> {
        self.hash_key_depth(0)
    }

    fn hash_key_depth(&self, depth: u32) -> Result<HashKey, PyError> {
        if depth > MAX_COMPARE_DEPTH {
            return Err(PyError::new(ExcClass::RecursionError, "maximum recursion depth exceeded while hashing"));
        }
        Ok(match self {
            PyValue::None => HashKey::None,
            PyValue::Bool(b) => HashKey::Int(*b as i64),
            PyValue::Int(i) => HashKey::Int(*i),
            PyValue::Big(b) => HashKey::Big((**b).clone()),
            PyValue::Float(f) => {
                if f.is_finite() && f.fract() == 0.0 {
                    if f.abs() < 9.2e18 {
                        HashKey::Int(*f as i64)
                    } else {
                        match BigInt::from_f64(*f) {
                            Some(b) => match b.to_i64() {
                                Some(i) => HashKey::Int(i),
                                None => HashKey::Big(b),
                            },
                            None => HashKey::Float(f.to_bits()),
                        }
                    }
                } else {
                    HashKey::Float(f.to_bits())
                }
            }
            PyValue::Str(s) => HashKey::Str(s.clone()),
            PyValue::Tuple(items) => HashKey::Tuple(items.iter().map(|v| v.hash_key_depth(depth + 1)).collect::<Result<_, _>>()?),
            PyValue::Func(f) => HashKey::Identity(Rc::as_ptr(f) as *const u8 as usize),
            PyValue::Builtin(b) => HashKey::Identity(*b as usize),
            PyValue::Range(r) => HashKey::Identity(Rc::as_ptr(r) as *const u8 as usize),
            PyValue::Iter(r) => HashKey::Identity(Rc::as_ptr(r) as *const u8 as usize),
            PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_) | PyValue::DictView(_) | PyValue::Method(_) => {
                return Err(PyError::new(ExcClass::TypeError, format!("unhashable type: '{}'", self.type_name())))
            }
        })
    }

    /// Python `repr`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        let mut seen = Vec::new();
        self.write_repr(&mut out, &mut seen);
        out
    }

    /// Python `str` (strings unquoted, everything else as `repr`).
    pub fn to_str(&self) -> String {
        match self {
            PyValue::Str(s) => s.to_string(),
            other => other.repr(),
        }
    }

    fn write_repr(&self, out: &mut String, seen: &mut Vec<usize>) {
        fn seq(out: &mut String, seen: &mut Vec<usize>, id: usize, open: &str, close: &str, items: &[PyValue], one_comma: bool) {
            if seen.contains(&id) || seen.len() > MAX_COMPARE_DEPTH as usize {
                out.push_str(open);
                out.push_str("...");
                out.push_str(close);
                return;
            }
            seen.push(id);
            out.push_str(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                item.write_repr(out, seen);
            }
            if one_comma && items.len() == 1 {
                out.push(',');
            }
            out.push_str(close);
            seen.pop();
        }
        match self {
            PyValue::None => out.push_str("None"),
            PyValue::Bool(true) => out.push_str("True"),
            PyValue::Bool(false) => out.push_str("False"),
            PyValue::Int(i) => out.push_str(&i.to_string()),
            PyValue::Big(b) => out.push_str(&b.to_string()),
            PyValue::Float(f) => out.push_str(&crate::engine::value::python_float_repr(*f)),
            PyValue::Str(s) => out.push_str(&str_repr(s)),
            PyValue::List(l) => {
                let id = Rc::as_ptr(l) as *const u8 as usize;
                match l.try_borrow() {
                    Ok(items) => seq(out, seen, id, "[", "]", &items, false),
                    Err(_) => out.push_str("[...]"),
                }
            }
            PyValue::Tuple(t) => seq(out, seen, Rc::as_ptr(t) as *const u8 as usize, "(", ")", t, true),
            PyValue::Set(s) => {
                let items = s.borrow().items();
                if items.is_empty() {
                    out.push_str("set()");
                } else {
                    seq(out, seen, Rc::as_ptr(s) as *const u8 as usize, "{", "}", &items, false);
                }
            }
            PyValue::Dict(d) => {
                let id = Rc::as_ptr(d) as *const u8 as usize;
                if seen.contains(&id) || seen.len() > MAX_COMPARE_DEPTH as usize {
                    out.push_str("{...}");
                    return;
                }
                seen.push(id);
                out.push('{');
                let pairs: Vec<(PyValue, PyValue)> = d.borrow().pairs();
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out, seen);
                    out.push_str(": ");
                    v.write_repr(out, seen);
                }
                out.push('}');
                seen.pop();
            }
            PyValue::Range(r) => {
                if r.step == 1 {
                    out.push_str(&format!("range({}, {})", r.start, r.stop));
                } else {
                    out.push_str(&format!("range({}, {}, {})", r.start, r.stop, r.step));
                }
            }
            PyValue::Func(f) => out.push_str(&format!("<function {}>", f.def.name)),
            PyValue::Builtin(b) => out.push_str(&format!("<built-in function {}>", b.name())),
            PyValue::Method(m) => out.push_str(&format!("<built-in method {} of {} object>", m.1, m.0.type_name())),
            PyValue::Iter(_) => out.push_str(&format!("<{} object>", self.type_name())),
            PyValue::DictView(v) => {
                let d = v.0.borrow();
                let items: Vec<PyValue> = match v.1 {
                    ViewKind::Keys => d.keys(),
                    ViewKind::Values => d.pairs().into_iter().map(|p| p.1).collect(),
                    ViewKind::Items => d.pairs().into_iter().map(|(k, v)| PyValue::tuple(vec![k, v])).collect(),
                };
                drop(d);
                out.push_str(self.type_name());
                seq(out, seen, 0, "([", "])", &items, false);
            }
        }
    }
}

/// Python's `repr` of a string: single quotes unless the text contains `'` and no `"`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Drops a value without recursion: containers whose last reference this is are taken apart on a heap
/// worklist, so dropping a million-deep `a = [a]` chain cannot overflow the native stack.
pub fn release(v: PyValue) {
    let is_unique_container = |v: &PyValue| match v {
        PyValue::List(l) => Rc::strong_count(l) == 1,
        PyValue::Tuple(t) => Rc::strong_count(t) == 1,
        PyValue::Dict(d) => Rc::strong_count(d) == 1,
        PyValue::Set(s) => Rc::strong_count(s) == 1,
        PyValue::Func(f) => Rc::strong_count(f) == 1,
        _ => false,
    };
    if !is_unique_container(&v) {
        return;
    }
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            PyValue::List(l) => {
                if let Ok(cell) = Rc::try_unwrap(l) {
                    stack.extend(cell.into_inner().into_iter().filter(|x| is_unique_container(x)));
                }
            }
            PyValue::Tuple(t) => {
                if let Ok(items) = Rc::try_unwrap(t) {
                    stack.extend(items.into_iter().filter(|x| is_unique_container(x)));
                }
            }
            PyValue::Dict(d) => {
                if let Ok(cell) = Rc::try_unwrap(d) {
                    for (k, v) in cell.into_inner().into_pairs() {
                        stack.extend([k, v].into_iter().filter(|x| is_unique_container(x)));
                    }
                }
            }
            PyValue::Set(s) => {
                if let Ok(cell) = Rc::try_unwrap(s) {
                    stack.extend(cell.into_inner().items().into_iter().filter(|x| is_unique_container(x)));
                }
            }
            PyValue::Func(f) => {
                if let Ok(func) = Rc::try_unwrap(f) {
                    stack.extend(func.defaults.into_iter().filter(|x| is_unique_container(x)));
                    for c in func.cells {
                        if let Ok(cell) = Rc::try_unwrap(c) {
                            stack.extend(cell.into_inner().filter(|x| is_unique_container(x)));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// How deeply containers nest inside `v`, capped at `limit + 1` (walks without recursion).
pub fn nesting_depth(v: &PyValue, limit: usize) -> usize {
    let mut stack: Vec<(PyValue, usize)> = vec![(v.clone(), 0)];
    let mut deepest = 0;
    let mut visited = 0usize;
    while let Some((v, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        visited += 1;
        if deepest > limit || visited > 1_000_000 {
            return deepest.max(limit + 1);
        }
        let children: Vec<PyValue> = match &v {
            PyValue::List(l) => l.borrow().clone(),
            PyValue::Tuple(t) => t.to_vec(),
            PyValue::Dict(d) => d.borrow().pairs().into_iter().flat_map(|(k, v)| [k, v]).collect(),
            PyValue::Set(s) => s.borrow().items(),
            _ => Vec::new(),
        };
        stack.extend(
            children
                .into_iter()
                .filter(|c| matches!(c, PyValue::List(_) | PyValue::Tuple(_) | PyValue::Dict(_) | PyValue::Set(_)))
                .map(|c| (c, depth + 1)),
        );
    }
    deepest
}

/// Converts a big int to f64 (saturating to ±inf), for true division.
pub fn big_to_f64(b: &BigInt) -> f64 {
    b.to_f64().unwrap_or(if b.is_negative() { f64::NEG_INFINITY } else { f64::INFINITY })
}

/// True if the big int is zero.
pub fn big_is_zero(b: &BigInt) -> bool {
    b.is_zero()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_numbers_of_different_types_share_a_hash_key() {
        assert_eq!(PyValue::Bool(true).hash_key(), PyValue::Int(1).hash_key());
        assert_eq!(PyValue::Float(2.0).hash_key(), PyValue::Int(2).hash_key());
        assert!(PyValue::list(vec![]).hash_key().is_err());
    }

    #[test]
    fn strings_repr_like_python() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
    }
}
