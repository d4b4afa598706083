//! Run-time values of the interpreter: Python's ints (i64 fast path, exact big ints beyond), floats, strings,
//! lists, tuples, dicts, sets, ranges, functions and iterators, with Python's equality, ordering, hashing,
//! truthiness and `repr`.
//!
//! Lists, dicts and sets are shared by reference (`Rc<RefCell<..>>`), so `a = b; a.append(1)` changes `b`,
//! exactly as in Python. Dicts keep insertion order; sets reproduce CPython's hash-table iteration order for
//! ints (see `PySet`).

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};

use super::ast::FunctionDef;
use super::builtins::Builtin;
use super::error::{ExcClass, PyError};

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

/// A hashable key, normalised so that equal Python values (`1`, `1.0`, `True`) give equal keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HashKey {
    None,
    Int(i64),
    Big(BigInt),
    Float(u64),
    Str(Rc<str>),
    Tuple(Vec<HashKey>),
    /// Objects hashed by identity (functions, builtins, ranges).
    Identity(usize),
}

fn exc(class: ExcClass, message: impl Into<String>) -> PyError {
    PyError { class, message: message.into(), line: 0 }
}

/// Deepest nesting of containers that equality, ordering, hashing and `repr` walk through.
const MAX_COMPARE_DEPTH: u32 = 200;

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
            return Err(exc(ExcClass::RecursionError, "maximum recursion depth exceeded while hashing"));
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
                return Err(exc(ExcClass::TypeError, format!("unhashable type: '{}'", self.type_name())))
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
            PyValue::Str(s) => out.push_str(&super::lexer::str_repr(s)),
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

/// `a == b` with Python semantics (numbers across int/bool/float, containers element-wise).
pub fn py_eq(a: &PyValue, b: &PyValue) -> Result<bool, PyError> {
    eq_depth(a, b, 0)
}

fn eq_depth(a: &PyValue, b: &PyValue, depth: u32) -> Result<bool, PyError> {
    use PyValue as V;
    if depth > MAX_COMPARE_DEPTH {
        return Err(exc(ExcClass::RecursionError, "maximum recursion depth exceeded in comparison"));
    }
    Ok(match (a, b) {
        (V::Int(x), V::Int(y)) => x == y,
        (V::None, V::None) => true,
        (V::Str(x), V::Str(y)) => x == y,
        (V::List(x), V::List(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ok(true);
            }
            let (x, y) = (x.borrow(), y.borrow());
            seq_eq(&x, &y, depth)?
        }
        (V::Tuple(x), V::Tuple(y)) => seq_eq(x, y, depth)?,
        (V::Dict(x), V::Dict(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ok(true);
            }
            let (x, y) = (x.borrow(), y.borrow());
            if x.len() != y.len() {
                return Ok(false);
            }
            for (k, v) in x.pairs() {
                match y.get(&k.hash_key()?) {
                    Some(w) => {
                        if !eq_depth(&v, w, depth + 1)? {
                            return Ok(false);
                        }
                    }
                    None => return Ok(false),
                }
            }
            true
        }
        (V::Set(x), V::Set(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len() && x.keys().all(|k| y.contains(k))
        }
        (V::Range(x), V::Range(y)) => {
            let (lx, ly) = (x.len(), y.len());
            lx == ly && (lx == 0 || (x.start == y.start && (lx == 1 || x.step == y.step)))
        }
        (V::Func(x), V::Func(y)) => Rc::ptr_eq(x, y),
        (V::Builtin(x), V::Builtin(y)) => x == y,
        (V::Iter(x), V::Iter(y)) => Rc::ptr_eq(x, y),
        (V::DictView(x), V::DictView(y)) if x.1 == ViewKind::Keys && y.1 == ViewKind::Keys => {
            let (dx, dy) = (x.0.borrow(), y.0.borrow());
            dx.len() == dy.len() && dx.keys().iter().all(|k| k.hash_key().is_ok_and(|h| dy.get(&h).is_some()))
        }
        _ => match num_cmp(a, b) {
            Some(ord) => ord == Some(Ordering::Equal),
            None => false,
        },
    })
}

fn seq_eq(x: &[PyValue], y: &[PyValue], depth: u32) -> Result<bool, PyError> {
    if x.len() != y.len() {
        return Ok(false);
    }
    for (p, q) in x.iter().zip(y) {
        if !eq_depth(p, q, depth + 1)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Compares two numbers (int, bool, big int or float); `None` if either is not a number, `Some(None)` for NaN.
pub fn num_cmp(a: &PyValue, b: &PyValue) -> Option<Option<Ordering>> {
    use PyValue as V;
    Some(match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::Float(x), V::Float(y)) => x.partial_cmp(y),
        (V::Float(x), _) => {
            let y = b.to_bigint()?;
            cmp_int_float(&y, *x).map(Ordering::reverse)
        }
        (_, V::Float(y)) => {
            let x = a.to_bigint()?;
            cmp_int_float(&x, *y)
        }
        _ => {
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                Some(x.cmp(&y))
            } else {
                let (x, y) = (a.to_bigint()?, b.to_bigint()?);
                Some(x.cmp(&y))
            }
        }
    })
}

/// Exact comparison of an int with a float.
fn cmp_int_float(i: &BigInt, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 { Ordering::Less } else { Ordering::Greater });
    }
    if let Some(small) = i.to_i64() {
        if small.unsigned_abs() < (1u64 << 53) {
            return (small as f64).partial_cmp(&f);
        }
    }
    let floor = f.floor();
    let fb = BigInt::from_f64(floor)?;
    Some(match i.cmp(&fb) {
        Ordering::Equal if f > floor => Ordering::Less,
        other => other,
    })
}

/// Rich comparison for `<`, `<=`, `>`, `>=`: numbers, strings, lists and tuples (lexicographic), sets (subset).
pub fn py_order(a: &PyValue, b: &PyValue, op: super::ast::CmpOp) -> Result<bool, PyError> {
    order_depth(a, b, op, 0)
}

fn apply_ord(ord: Ordering, op: super::ast::CmpOp) -> bool {
    use super::ast::CmpOp::*;
    match op {
        Lt => ord == Ordering::Less,
        LtE => ord != Ordering::Greater,
        Gt => ord == Ordering::Greater,
        GtE => ord != Ordering::Less,
        Eq => ord == Ordering::Equal,
        _ => ord != Ordering::Equal,
    }
}

fn order_depth(a: &PyValue, b: &PyValue, op: super::ast::CmpOp, depth: u32) -> Result<bool, PyError> {
    use PyValue as V;
    if depth > MAX_COMPARE_DEPTH {
        return Err(exc(ExcClass::RecursionError, "maximum recursion depth exceeded in comparison"));
    }
    if let (V::Int(x), V::Int(y)) = (a, b) {
        return Ok(apply_ord(x.cmp(y), op));
    }
    if let Some(ord) = num_cmp(a, b) {
        return Ok(match ord {
            Some(ord) => apply_ord(ord, op),
            None => false,
        });
    }
    match (a, b) {
        (V::Str(x), V::Str(y)) => Ok(apply_ord(x.as_ref().cmp(y.as_ref()), op)),
        (V::List(x), V::List(y)) => {
            let (x, y) = (x.borrow().clone(), y.borrow().clone());
            seq_order(&x, &y, op, depth)
        }
        (V::Tuple(x), V::Tuple(y)) => seq_order(x, y, op, depth),
        (V::Set(x), V::Set(y)) => {
            use super::ast::CmpOp::*;
            let (x, y) = (x.borrow(), y.borrow());
            let subset = |p: &PySet, q: &PySet| p.keys().all(|k| q.contains(k));
            Ok(match op {
                LtE => subset(&x, &y),
                Lt => x.len() < y.len() && subset(&x, &y),
                GtE => subset(&y, &x),
                _ => y.len() < x.len() && subset(&y, &x),
            })
        }
        _ => Err(exc(
            ExcClass::TypeError,
            format!("'{}' not supported between instances of '{}' and '{}'", op.symbol(), a.type_name(), b.type_name()),
        )),
    }
}

fn seq_order(x: &[PyValue], y: &[PyValue], op: super::ast::CmpOp, depth: u32) -> Result<bool, PyError> {
    for (p, q) in x.iter().zip(y) {
        if !eq_depth(p, q, depth + 1)? {
            return order_depth(p, q, op, depth + 1);
        }
    }
    Ok(apply_ord(x.len().cmp(&y.len()), op))
}

/// Total order used by `sorted`/`min`/`max`: `Less` iff `a < b`; errors for incomparable values.
pub fn py_less(a: &PyValue, b: &PyValue) -> Result<bool, PyError> {
    if let (PyValue::Int(x), PyValue::Int(y)) = (a, b) {
        return Ok(x < y);
    }
    py_order(a, b, super::ast::CmpOp::Lt)
}

/// A small, fast, deterministic hasher for dict indexes (FxHash's multiply-rotate); iteration order never
/// depends on it, since dicts keep insertion order.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
}

type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// An insertion-ordered dict.
#[derive(Clone, Debug, Default)]
pub struct Dict {
    entries: Vec<Option<(PyValue, PyValue)>>,
    index: HashMap<HashKey, usize, FxBuild>,
    /// Bumped when keys are added or removed (iterators detect changes).
    pub version: u64,
}

impl Dict {
    /// An empty dict.
    pub fn new() -> Dict {
        Dict::default()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The value for a key.
    pub fn get(&self, key: &HashKey) -> Option<&PyValue> {
        self.index.get(key).and_then(|&i| self.entries[i].as_ref()).map(|e| &e.1)
    }

    /// Mutable access to the value for a key.
    pub fn get_mut(&mut self, key: &HashKey) -> Option<&mut PyValue> {
        match self.index.get(key) {
            Some(&i) => self.entries[i].as_mut().map(|e| &mut e.1),
            None => None,
        }
    }

    /// Inserts or replaces (an existing key keeps its original key object and position). Returns true if new.
    pub fn insert(&mut self, hk: HashKey, key: PyValue, value: PyValue) -> bool {
        if let Some(&i) = self.index.get(&hk) {
            if let Some(e) = self.entries[i].as_mut() {
                e.1 = value;
            }
            return false;
        }
        self.index.insert(hk, self.entries.len());
        self.entries.push(Some((key, value)));
        self.version += 1;
        true
    }

    /// Removes a key, returning its pair.
    pub fn remove(&mut self, hk: &HashKey) -> Option<(PyValue, PyValue)> {
        let i = self.index.remove(hk)?;
        let pair = self.entries[i].take();
        self.version += 1;
        if self.entries.len() > 16 && self.entries.len() > 2 * self.index.len() {
            self.compact();
        }
        pair
    }

    fn compact(&mut self) {
        self.entries.retain(|e| e.is_some());
        self.index.clear();
        for (i, e) in self.entries.iter().enumerate() {
            if let Some((k, _)) = e {
                if let Ok(hk) = k.hash_key() {
                    self.index.insert(hk, i);
                }
            }
        }
    }

    /// The entry at a raw slot (iteration): `None` past the end, `Some(None)` for a hole.
    pub fn slot(&self, i: usize) -> Option<Option<&(PyValue, PyValue)>> {
        self.entries.get(i).map(Option::as_ref)
    }

    /// Keys in order.
    pub fn keys(&self) -> Vec<PyValue> {
        self.entries.iter().flatten().map(|e| e.0.clone()).collect()
    }

    /// Pairs in order.
    pub fn pairs(&self) -> Vec<(PyValue, PyValue)> {
        self.entries.iter().flatten().cloned().collect()
    }

    /// Removes and returns the last pair.
    pub fn pop_last(&mut self) -> Option<(PyValue, PyValue)> {
        let (k, _) = self.entries.iter().rev().flatten().next()?.clone();
        let hk = k.hash_key().ok()?;
        self.remove(&hk)
    }
}

const PERTURB_SHIFT: u32 = 5;
const LINEAR_PROBES: usize = 9;
const SET_MIN_SIZE: usize = 8;

/// One slot of a set table: `(hash, None)` is a deleted-entry dummy, `(hash, Some((key, value)))` an element.
type SetSlot = Option<(i64, Option<(HashKey, PyValue)>)>;

/// A set laid out like CPython's open-addressing table (linear probes, then perturbation), so iteration order
/// (`list(set(...))`, `for x in s`) matches CPython for ints, whose hashes are deterministic.
#[derive(Clone, Debug)]
pub struct PySet {
    /// Table slots: `None` empty, `Some((hash, None))` a deleted-entry dummy, `Some((hash, Some(key)))` active.
    table: Vec<SetSlot>,
    fill: usize,
    used: usize,
    /// Where `pop` starts looking (CPython's search finger).
    finger: usize,
    /// Bumped when elements are added or removed.
    pub version: u64,
}

impl Default for PySet {
    fn default() -> Self {
        PySet { table: vec![None; SET_MIN_SIZE], fill: 0, used: 0, finger: 0, version: 0 }
    }
}

/// CPython's hash for the normalised key (ints exact; other keys get a stable stand-in).
pub fn cpython_hash(key: &HashKey) -> i64 {
    const MODULUS: u64 = (1u64 << 61) - 1;
    let h: i64 = match key {
        HashKey::Int(i) => {
            let m = (i.unsigned_abs() % MODULUS) as i64;
            if *i < 0 {
                -m
            } else {
                m
            }
        }
        HashKey::Big(b) => {
            let m = (b.abs() % BigInt::from(MODULUS)).to_i64().unwrap_or(0);
            if b.is_negative() {
                -m
            } else {
                m
            }
        }
        HashKey::None => 0xFCA86420,
        HashKey::Float(bits) => float_hash(f64::from_bits(*bits)),
        HashKey::Str(s) => {
            // CPython randomises string hashes per process; any deterministic hash is as good.
            let mut h: u64 = 0xcbf29ce484222325;
            for b in s.bytes() {
                h = (h ^ b as u64).wrapping_mul(0x100000001b3);
            }
            h as i64
        }
        HashKey::Tuple(items) => {
            // CPython's xxHash-based tuple hash (3.8+).
            const P1: u64 = 11400714785074694791;
            const P2: u64 = 14029467366897019727;
            const P5: u64 = 2870177450012600261;
            let mut acc: u64 = P5;
            for item in items {
                let lane = cpython_hash(item) as u64;
                acc = acc.wrapping_add(lane.wrapping_mul(P2));
                acc = acc.rotate_left(31);
                acc = acc.wrapping_mul(P1);
            }
            acc = acc.wrapping_add((items.len() as u64) ^ (P5 ^ 3527539));
            if acc == u64::MAX {
                1546275796
            } else {
                acc as i64
            }
        }
        HashKey::Identity(p) => (*p >> 4) as i64,
    };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `frexp`: `v = m * 2**e` with `0.5 <= |m| < 1` (zero, infinities and NaN come back unchanged with `e = 0`).
fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (v, 0);
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(v * f64::from_bits((1023u64 + 54) << 52));
        return (m, e - 54);
    }
    (f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52)), biased - 1022)
}

/// CPython's hash of a float that is not a whole number (`_Py_HashDouble`): the value reduced modulo the
/// Mersenne prime 2**61 - 1, so it agrees with the int hash; infinities hash to ±314159. NaN hashes by identity
/// in CPython, so any stand-in is as good.
fn float_hash(v: f64) -> i64 {
    const BITS: i32 = 61;
    const MODULUS: u64 = (1u64 << 61) - 1;
    if v.is_nan() {
        return 0;
    }
    if v.is_infinite() {
        return if v > 0.0 { 314159 } else { -314159 };
    }
    let (mut m, mut e) = frexp(v);
    let negative = m < 0.0;
    if negative {
        m = -m;
    }
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | x >> (BITS - 28);
        m *= 268435456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    let e = if e >= 0 { e % BITS } else { BITS - 1 - ((-1 - e) % BITS) };
    x = ((x << e) & MODULUS) | x >> (BITS - e);
    if negative {
        x = x.wrapping_neg();
    }
    x as i64
}

impl PySet {
    /// An empty set.
    pub fn new() -> PySet {
        PySet::default()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.used
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    fn mask(&self) -> usize {
        self.table.len() - 1
    }

    fn find(&self, hk: &HashKey, hash: i64) -> Option<usize> {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in i..=i + probes {
                match &self.table[j] {
                    None => return None,
                    Some((h, Some((k, _)))) if *h == hash && k == hk => return Some(j),
                    _ => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
    }

    /// True if the set holds the key.
    pub fn contains(&self, hk: &HashKey) -> bool {
        self.find(hk, cpython_hash(hk)).is_some()
    }

    /// Adds an element; returns true if it was new.
    pub fn insert(&mut self, hk: HashKey, value: PyValue) -> bool {
        let hash = cpython_hash(&hk);
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut freeslot: Option<usize> = None;
        let slot = 'search: loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in i..=i + probes {
                match &self.table[j] {
                    None => break 'search j,
                    Some((h, Some((k, _)))) => {
                        if *h == hash && *k == hk {
                            return false;
                        }
                    }
                    // CPython 3.11 reuses the last deleted slot met before the empty one that ends the search.
                    Some((_, None)) => freeslot = Some(j),
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        };
        self.version += 1;
        self.used += 1;
        if let Some(free) = freeslot {
            self.table[free] = Some((hash, Some((hk, value))));
            return true;
        }
        self.fill += 1;
        self.table[slot] = Some((hash, Some((hk, value))));
        if self.fill * 5 >= mask * 3 {
            let minused = if self.used > 50000 { self.used * 2 } else { self.used * 4 };
            self.resize(minused);
        }
        true
    }

    fn resize(&mut self, minused: usize) {
        let mut newsize = SET_MIN_SIZE;
        while newsize <= minused {
            newsize <<= 1;
        }
        let old = std::mem::replace(&mut self.table, vec![None; newsize]);
        self.fill = self.used;
        for (hash, entry) in old.into_iter().flatten() {
            if let Some(entry) = entry {
                self.insert_clean(hash, entry);
            }
        }
    }

    /// Places an element known to be absent into the first free slot of its probe sequence (CPython's
    /// `set_insert_clean`); the caller keeps `fill` and `used` right.
    fn insert_clean(&mut self, hash: i64, entry: (HashKey, PyValue)) {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let slot = 'search: loop {
            if self.table[i].is_none() {
                break 'search i;
            }
            if i + LINEAR_PROBES <= mask {
                for j in i + 1..=i + LINEAR_PROBES {
                    if self.table[j].is_none() {
                        break 'search j;
                    }
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        };
        self.table[slot] = Some((hash, Some(entry)));
    }

    /// Adds every element of another set the way CPython's `set_merge` does (`set(s)`, `s.copy()`, `s | t`,
    /// `s.update(t)`): one resize up front for `used + other.used` elements, then a verbatim copy of the table
    /// when this set is empty and both tables have the same size and `other` has no deleted entries, clean
    /// insertion in `other`'s slot order when this set is empty, and ordinary insertion otherwise.
    pub fn merge(&mut self, other: &PySet) {
        if other.used == 0 {
            return;
        }
        if (self.fill + other.used) * 5 >= self.mask() * 3 {
            self.resize((self.used + other.used) * 2);
        }
        if self.fill == 0 && self.mask() == other.mask() && other.fill == other.used {
            self.table = other.table.clone();
            self.fill = other.fill;
            self.used = other.used;
            self.version += 1;
            return;
        }
        let entries = other.table.iter().flatten().filter_map(|(hash, entry)| entry.as_ref().map(|e| (*hash, e.clone())));
        if self.fill == 0 {
            for (hash, entry) in entries {
                self.insert_clean(hash, entry);
            }
            self.fill = other.used;
            self.used = other.used;
            self.version += 1;
            return;
        }
        for (_, (hk, value)) in entries {
            self.insert(hk, value);
        }
    }

    /// Prepares for the keys of a dict of `incoming` entries the way CPython's `set_update_internal` does before
    /// inserting them: one resize to fit `(used + incoming) * 2` when the table would pass its fill limit.
    pub fn presize_for_dict(&mut self, incoming: usize) {
        if (self.fill + incoming) * 5 >= self.mask() * 3 {
            self.resize((self.used + incoming) * 2);
        }
    }

    /// Removes an element; returns true if it was present.
    pub fn remove(&mut self, hk: &HashKey) -> bool {
        let hash = cpython_hash(hk);
        match self.find(hk, hash) {
            Some(j) => {
                self.table[j] = Some((-1, None));
                self.used -= 1;
                self.version += 1;
                true
            }
            None => false,
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        *self = PySet { version: self.version + 1, finger: self.finger, ..PySet::default() };
    }

    /// The element at a raw slot (iteration): `None` past the end, `Some(None)` for an empty slot.
    pub fn slot(&self, i: usize) -> Option<Option<&PyValue>> {
        match self.table.get(i) {
            Some(Some((_, Some((_, v))))) => Some(Some(v)),
            Some(_) => Some(None),
            None => None,
        }
    }

    /// Elements in iteration order.
    pub fn items(&self) -> Vec<PyValue> {
        self.table.iter().filter_map(|e| e.as_ref().and_then(|(_, kv)| kv.as_ref()).map(|(_, v)| v.clone())).collect()
    }

    /// Keys in iteration order.
    pub fn keys(&self) -> impl Iterator<Item = &HashKey> {
        self.table.iter().filter_map(|e| e.as_ref().and_then(|(_, kv)| kv.as_ref()).map(|(k, _)| k))
    }

    /// Removes and returns an element the way CPython's `set.pop` does: the first active slot at or after the
    /// search finger (wrapping around), which then moves past it.
    pub fn pop_first(&mut self) -> Option<PyValue> {
        if self.used == 0 {
            return None;
        }
        let mask = self.mask();
        let mut j = self.finger & mask;
        while !matches!(self.table[j], Some((_, Some(_)))) {
            j = if j >= mask { 0 } else { j + 1 };
        }
        let taken = self.table[j].replace((-1, None));
        self.used -= 1;
        self.version += 1;
        self.finger = j + 1;
        taken.and_then(|(_, kv)| kv).map(|(_, v)| v)
    }

    /// Replaces the elements with another set's table (CPython's `set_swap_bodies`, as `s &= t` does), keeping
    /// this set's search finger and bumping its version.
    pub fn take_contents(&mut self, other: PySet) {
        let (finger, version) = (self.finger, self.version + 1);
        *self = PySet { finger, version, ..other };
    }

    /// Active elements in slot order, with their keys.
    pub fn entries(&self) -> Vec<(HashKey, PyValue)> {
        self.table.iter().flatten().filter_map(|(_, kv)| kv.clone()).collect()
    }

    /// `a & b` for two distinct sets (CPython's `set_intersection`): walks the smaller set (the right one on a
    /// tie) and adds, in its slot order, the elements the other set holds.
    pub fn intersection(&self, other: &PySet) -> PySet {
        let (walked, probed) = if other.len() > self.len() { (self, other) } else { (other, self) };
        let mut out = PySet::new();
        for (hk, v) in walked.entries() {
            if probed.contains(&hk) {
                out.insert(hk, v);
            }
        }
        out
    }

    /// `a - b` (CPython's `set_difference` with a set or dict of `other_len` elements, membership by
    /// `in_other`): a set much larger than the other is copied and then has the other's elements removed;
    /// otherwise the elements missing from the other are added to a new set in slot order.
    pub fn difference_by(&self, other_len: usize, in_other: impl Fn(&HashKey) -> bool, other_keys: impl FnOnce() -> Vec<HashKey>) -> PySet {
        let mut out = PySet::new();
        if (self.len() >> 2) > other_len {
            out.merge(self);
            out.discard_all(other_keys());
            return out;
        }
        for (hk, v) in self.entries() {
            if !in_other(&hk) {
                out.insert(hk, v);
            }
        }
        out
    }

    /// `s -= t` for a distinct set (CPython's `set_difference_update_internal`): removes t's elements (only
    /// those of `s & t` when t is more than 8 times larger), then drops deleted slots if over a quarter are.
    pub fn difference_update(&mut self, other: &PySet) {
        let keys: Vec<HashKey> = if (other.len() >> 3) > self.len() {
            self.intersection(other).entries().into_iter().map(|(k, _)| k).collect()
        } else {
            other.entries().into_iter().map(|(k, _)| k).collect()
        };
        self.discard_all(keys);
    }

    /// Removes every key given (in order), then resizes away deleted slots if over a quarter of the table are.
    pub fn discard_all(&mut self, keys: Vec<HashKey>) {
        for k in keys {
            self.remove(&k);
        }
        if self.fill - self.used > self.mask() / 4 {
            let minused = if self.used > 50000 { self.used * 2 } else { self.used * 4 };
            self.resize(minused);
        }
    }

    /// `s ^= t` for a distinct set (CPython's `set_symmetric_difference_update`): each element of t, in slot
    /// order, is removed from s if present and added otherwise.
    pub fn symmetric_difference_update(&mut self, other: &PySet) {
        for (hk, v) in other.entries() {
            if !self.remove(&hk) {
                self.insert(hk, v);
            }
        }
    }
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
                    for (k, v) in cell.into_inner().entries.into_iter().flatten() {
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

    fn int_set(items: &[i64]) -> Vec<i64> {
        let mut s = PySet::new();
        for &i in items {
            s.insert(HashKey::Int(i), PyValue::Int(i));
        }
        s.items().iter().filter_map(|v| v.as_i64()).collect()
    }

    #[test]
    fn set_iteration_order_follows_cpython_hash_table() {
        // Checked against CPython 3.11: list({3, 1, 2}) == [1, 2, 3]; list({-1, 5, 9}) == [9, 5, -1];
        // list(set([10, -3, 7, 100, 0])) == [0, 100, 7, 10, -3].
        assert_eq!(int_set(&[3, 1, 2]), vec![1, 2, 3]);
        assert_eq!(int_set(&[-1, 5, 9]), vec![9, 5, -1]);
        assert_eq!(int_set(&[10, -3, 7, 100, 0]), vec![0, 100, 7, 10, -3]);
    }

    #[test]
    fn float_hashes_match_cpython() {
        // python3 -c 'print([hash(x) for x in [1.5, -1.5, 0.1, 2.5e-300, 5e-324, float("inf"), -float("inf")]])'
        // (2.5e-300 exercises the negative exponent wrap, 5e-324 a subnormal)
        let h = |f: f64| PyValue::Float(f).hash_key().map(|k| cpython_hash(&k)).unwrap_or(0);
        let got: Vec<i64> = [1.5, -1.5, 0.1, 2.5e-300, 5e-324, f64::INFINITY, f64::NEG_INFINITY].into_iter().map(h).collect();
        assert_eq!(got, vec![1152921504606846977, -1152921504606846977, 230584300921369408, 52920977297143526, 16777216, 314159, -314159]);
    }

    #[test]
    fn equal_numbers_of_different_types_share_a_hash_key() {
        assert_eq!(PyValue::Bool(true).hash_key(), PyValue::Int(1).hash_key());
        assert_eq!(PyValue::Float(2.0).hash_key(), PyValue::Int(2).hash_key());
        assert!(PyValue::list(vec![]).hash_key().is_err());
    }

    #[test]
    fn tuples_compare_lexicographically_and_mixed_types_raise() {
        let t = |a: i64, b: i64| PyValue::tuple(vec![PyValue::Int(a), PyValue::Int(b)]);
        assert_eq!(py_less(&t(1, 5), &t(2, 0)), Ok(true));
        assert_eq!(py_less(&t(1, 5), &t(1, 4)), Ok(false));
        assert_eq!(py_less(&PyValue::Int(1), &PyValue::str("a")).map_err(|e| e.class), Err(ExcClass::TypeError));
        assert_eq!(py_eq(&PyValue::Int(1), &PyValue::Float(1.0)), Ok(true));
    }
}
