//! Builtin functions (`len`, `range`, `max`, `sorted`, ...) and the methods of lists, dicts, sets, strings and
//! tuples, with CPython's argument rules and exception classes.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{Num, Signed};

use super::ast::BinOp;
use super::compare::{py_eq, py_less};
use super::dict::Dict;
use super::error::ExcClass;
use super::eval::{exc, Interp, Res};
use super::set::PySet;
use super::value::*;

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

const LIST_METHODS: &[&str] = &["append", "pop", "insert", "extend", "sort", "index", "count", "reverse", "remove", "copy", "clear"];
const DICT_METHODS: &[&str] = &["get", "items", "keys", "values", "setdefault", "pop", "copy", "clear", "update", "popitem"];
const SET_METHODS: &[&str] =
    &["add", "clear", "remove", "discard", "pop", "copy", "update", "union", "intersection", "difference", "issubset", "issuperset"];
const STR_METHODS: &[&str] = &[
    "join",
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "isdigit",
    "isalpha",
    "upper",
    "lower",
    "startswith",
    "endswith",
    "count",
    "find",
    "index",
    "replace",
];
const TUPLE_METHODS: &[&str] = &["index", "count"];

/// True if `obj` has a method called `name`.
pub fn has_method(obj: &PyValue, name: &str) -> bool {
    let methods = match obj {
        PyValue::List(_) => LIST_METHODS,
        PyValue::Dict(_) => DICT_METHODS,
        PyValue::Set(_) => SET_METHODS,
        PyValue::Str(_) => STR_METHODS,
        PyValue::Tuple(_) => TUPLE_METHODS,
        _ => &[],
    };
    methods.contains(&name)
}

fn arity(name: impl std::fmt::Display, args: &[PyValue], min: usize, max: usize) -> Res<()> {
    if args.len() < min || args.len() > max {
        let expected = if min == max {
            format!("exactly {min}")
        } else if args.len() < min {
            format!("at least {min}")
        } else {
            format!("at most {max}")
        };
        return Err(exc(
            ExcClass::TypeError,
            format!("{name}() takes {expected} argument{} ({} given)", if max == 1 { "" } else { "s" }, args.len()),
        ));
    }
    Ok(())
}

/// `type.method`, formatted only when an error message needs it.
#[derive(Clone, Copy)]
struct Qual<'a>(&'static str, &'a str);

impl std::fmt::Display for Qual<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

fn take_kw(kwargs: &mut Vec<(String, PyValue)>, name: &str) -> Option<PyValue> {
    let i = kwargs.iter().position(|(k, _)| k == name)?;
    Some(kwargs.remove(i).1)
}

fn no_kwargs(fname: impl std::fmt::Display, kwargs: &[(String, PyValue)]) -> Res<()> {
    match kwargs.first() {
        Some((k, _)) => Err(exc(ExcClass::TypeError, format!("'{k}' is an invalid keyword argument for {fname}()"))),
        None => Ok(()),
    }
}

fn to_index(v: &PyValue) -> Res<i64> {
    match v {
        PyValue::Big(_) => Err(exc(ExcClass::OverflowError, "Python int too large to convert to C ssize_t")),
        other => other
            .as_i64()
            .ok_or_else(|| exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", other.type_name()))),
    }
}

impl Interp<'_> {
    /// Sorts values stably by `<` on their keys (CPython's `list.sort` semantics, including `reverse`).
    #[inline(never)]
    pub(crate) fn sort_values(&mut self, items: Vec<PyValue>, key: Option<&PyValue>, reverse: bool) -> Res<Vec<PyValue>> {
        let n = items.len() as u64;
        self.tick_n(n * (64 - n.leading_zeros() as u64) / 4)?;
        if key.is_none() && items.iter().all(|v| matches!(v, PyValue::Int(_))) {
            let mut ints: Vec<i64> = items.iter().filter_map(PyValue::as_i64).collect();
            ints.sort_unstable();
            if reverse {
                ints.reverse();
            }
            return Ok(ints.into_iter().map(PyValue::Int).collect());
        }
        let mut keyed: Vec<(PyValue, PyValue)> = Vec::with_capacity(items.len());
        for v in items {
            let k = match key {
                Some(f) if !matches!(f, PyValue::None) => self.call_value(f, vec![v.clone()], Vec::new())?,
                _ => v.clone(),
            };
            keyed.push((k, v));
        }
        if reverse {
            keyed.reverse();
        }
        let mut sorted = merge_sort(keyed)?;
        if reverse {
            sorted.reverse();
        }
        Ok(sorted.into_iter().map(|(_, v)| v).collect())
    }

    fn min_max(&mut self, name: &str, mut args: Vec<PyValue>, mut kwargs: Vec<(String, PyValue)>, want_max: bool) -> Res<PyValue> {
        let key = take_kw(&mut kwargs, "key").filter(|k| !matches!(k, PyValue::None));
        let default = take_kw(&mut kwargs, "default");
        no_kwargs(name, &kwargs)?;
        let items = match args.len() {
            0 => return Err(exc(ExcClass::TypeError, format!("{name} expected at least 1 argument, got 0"))),
            1 => {
                let only = args.pop().unwrap_or(PyValue::None);
                self.collect(&only)?
            }
            _ => {
                if default.is_some() {
                    return Err(exc(
                        ExcClass::TypeError,
                        format!("Cannot specify a default for {name}() with multiple positional arguments"),
                    ));
                }
                args
            }
        };
        let mut best: Option<(PyValue, PyValue)> = None;
        for v in items {
            self.tick()?;
            let k = match &key {
                Some(f) => self.call_value(f, vec![v.clone()], Vec::new())?,
                None => v.clone(),
            };
            let replace = match &best {
                None => true,
                Some((bk, _)) => {
                    if want_max {
                        py_less(bk, &k)?
                    } else {
                        py_less(&k, bk)?
                    }
                }
            };
            if replace {
                best = Some((k, v));
            }
        }
        match (best, default) {
            (Some((_, v)), _) => Ok(v),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(exc(ExcClass::ValueError, format!("{name}() arg is an empty sequence"))),
        }
    }

    /// Calls a builtin function.
    #[inline(never)]
    pub(crate) fn call_builtin(&mut self, b: Builtin, mut args: Vec<PyValue>, mut kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
        let name = b.name();
        match b {
            Builtin::Max => return self.min_max(name, args, kwargs, true),
            Builtin::Min => return self.min_max(name, args, kwargs, false),
            Builtin::Sorted => {
                let key = take_kw(&mut kwargs, "key");
                let reverse = take_kw(&mut kwargs, "reverse").map(|r| r.truthy()).unwrap_or(false);
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                let items = self.collect(&args[0])?;
                self.charge(items.len() as u64)?;
                let sorted = self.sort_values(items, key.as_ref(), reverse)?;
                return Ok(PyValue::list(sorted));
            }
            Builtin::Sum => {
                let start = take_kw(&mut kwargs, "start");
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 2)?;
                let mut acc = if args.len() == 2 { args.pop().unwrap_or(PyValue::Int(0)) } else { start.unwrap_or(PyValue::Int(0)) };
                if matches!(acc, PyValue::Str(_)) {
                    return Err(exc(ExcClass::TypeError, "sum() can't sum strings [use ''.join(seq) instead]"));
                }
                let mut it = self.iter_of(&args[0])?;
                while let Some(x) = self.next(&mut it)? {
                    self.tick()?;
                    acc = self.binop(BinOp::Add, &acc, &x)?;
                }
                return Ok(acc);
            }
            Builtin::Enumerate => {
                let start = take_kw(&mut kwargs, "start");
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 2)?;
                let count = if args.len() == 2 { args.pop().unwrap_or(PyValue::Int(0)) } else { start.unwrap_or(PyValue::Int(0)) };
                if !count.is_int() {
                    return Err(exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", count.type_name())));
                }
                let inner = self.iter_of(&args[0])?;
                return Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Enumerate { inner: Box::new(inner), count }))));
            }
            Builtin::Print => return Ok(PyValue::None),
            Builtin::Dict => {
                arity(name, &args, 0, 1)?;
                let mut d = match args.first() {
                    None => Dict::new(),
                    Some(PyValue::Dict(src)) => src.borrow().clone(),
                    Some(other) => {
                        let mut d = Dict::new();
                        for pair in self.collect(other)? {
                            let kv = self
                                .collect(&pair)
                                .map_err(|_| exc(ExcClass::TypeError, "cannot convert dictionary update sequence element"))?;
                            if kv.len() != 2 {
                                return Err(exc(
                                    ExcClass::ValueError,
                                    format!("dictionary update sequence element has length {}; 2 is required", kv.len()),
                                ));
                            }
                            let mut kv = kv.into_iter();
                            if let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                                d.insert(k.hash_key()?, k, v);
                            }
                        }
                        d
                    }
                };
                for (k, v) in kwargs {
                    let key = PyValue::str(&k);
                    d.insert(key.hash_key()?, key, v);
                }
                self.charge(d.len() as u64)?;
                return Ok(PyValue::Dict(Rc::new(RefCell::new(d))));
            }
            _ => {}
        }
        if b != Builtin::Int {
            no_kwargs(name, &kwargs)?;
        }
        match b {
            Builtin::Len => {
                arity(name, &args, 1, 1)?;
                let n = match &args[0] {
                    PyValue::List(l) => l.borrow().len(),
                    PyValue::Tuple(t) => t.len(),
                    PyValue::Str(s) => s.chars().count(),
                    PyValue::Dict(d) => d.borrow().len(),
                    PyValue::Set(s) => s.borrow().len(),
                    PyValue::Range(r) => r.len() as usize,
                    PyValue::DictView(v) => v.0.borrow().len(),
                    other => return Err(exc(ExcClass::TypeError, format!("object of type '{}' has no len()", other.type_name()))),
                };
                Ok(PyValue::Int(n as i64))
            }
            Builtin::Range => {
                arity(name, &args, 1, 3)?;
                let mut v = Vec::with_capacity(3);
                for a in &args {
                    v.push(match a {
                        PyValue::Big(_) => return Err(exc(ExcClass::OverflowError, "range() bounds beyond 64 bits are not supported")),
                        other => other.as_i64().ok_or_else(|| {
                            exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", other.type_name()))
                        })?,
                    });
                }
                let (start, stop, step) = match v.as_slice() {
                    [stop] => (0, *stop, 1),
                    [start, stop] => (*start, *stop, 1),
                    [start, stop, step] => (*start, *stop, *step),
                    _ => (0, 0, 1),
                };
                if step == 0 {
                    return Err(exc(ExcClass::ValueError, "range() arg 3 must not be zero"));
                }
                Ok(PyValue::Range(Rc::new(RangeVal { start, stop, step })))
            }
            Builtin::Zip => {
                let mut inners = Vec::with_capacity(args.len());
                for a in &args {
                    inners.push(self.iter_of(a)?);
                }
                Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Zip { inners }))))
            }
            Builtin::Abs => {
                arity(name, &args, 1, 1)?;
                match &args[0] {
                    PyValue::Float(f) => Ok(PyValue::Float(f.abs())),
                    PyValue::Big(b) => Ok(PyValue::from_bigint(b.abs())),
                    v if v.is_int() => match v.as_i64().and_then(i64::checked_abs) {
                        Some(a) => Ok(PyValue::Int(a)),
                        None => Ok(PyValue::from_bigint(v.to_bigint().unwrap_or_default().abs())),
                    },
                    other => Err(exc(ExcClass::TypeError, format!("bad operand type for abs(): '{}'", other.type_name()))),
                }
            }
            Builtin::List | Builtin::Tuple => {
                arity(name, &args, 0, 1)?;
                let items = match args.first() {
                    Some(v) => self.collect(v)?,
                    None => Vec::new(),
                };
                self.charge(items.len() as u64)?;
                Ok(if b == Builtin::List { PyValue::list(items) } else { PyValue::tuple(items) })
            }
            Builtin::Set => {
                arity(name, &args, 0, 1)?;
                let mut set = PySet::new();
                if let Some(v) = args.first() {
                    let source = self.set_source(v)?;
                    add_to_set(&mut set, source)?;
                }
                self.charge(set.len() as u64)?;
                Ok(PyValue::Set(Rc::new(RefCell::new(set))))
            }
            Builtin::Int => {
                let base = take_kw(&mut kwargs, "base");
                no_kwargs(name, &kwargs)?;
                arity(name, &args, 0, 2)?;
                let base = match args.get(1).cloned().or(base) {
                    Some(b) => Some(to_index(&b)?),
                    None => None,
                };
                match args.first() {
                    None => Ok(PyValue::Int(0)),
                    Some(PyValue::Str(s)) => parse_int(s, base.unwrap_or(10)),
                    Some(_) if base.is_some() => Err(exc(ExcClass::TypeError, "int() can't convert non-string with explicit base")),
                    Some(PyValue::Float(f)) => {
                        if f.is_nan() {
                            return Err(exc(ExcClass::ValueError, "cannot convert float NaN to integer"));
                        }
                        if f.is_infinite() {
                            return Err(exc(ExcClass::OverflowError, "cannot convert float infinity to integer"));
                        }
                        Ok(PyValue::from_bigint(num_bigint::BigInt::from_f64_trunc(*f)))
                    }
                    Some(PyValue::Bool(x)) => Ok(PyValue::Int(*x as i64)),
                    Some(v) if v.is_int() => Ok(v.clone()),
                    Some(other) => Err(exc(
                        ExcClass::TypeError,
                        format!("int() argument must be a string, a bytes-like object or a real number, not '{}'", other.type_name()),
                    )),
                }
            }
            Builtin::Str => {
                arity(name, &args, 0, 1)?;
                match args.first() {
                    None => Ok(PyValue::str("")),
                    Some(PyValue::Big(b)) if b.bits() > 14_000 && b.to_string().trim_start_matches('-').len() > 4300 => Err(exc(
                        ExcClass::ValueError,
                        "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit",
                    )),
                    Some(v) => {
                        let s = v.to_str();
                        self.charge(s.len() as u64 / 8)?;
                        Ok(PyValue::str(&s))
                    }
                }
            }
            Builtin::Bool => {
                arity(name, &args, 0, 1)?;
                Ok(PyValue::Bool(args.first().is_some_and(PyValue::truthy)))
            }
            Builtin::Float => {
                arity(name, &args, 0, 1)?;
                match args.first() {
                    None => Ok(PyValue::Float(0.0)),
                    Some(PyValue::Float(f)) => Ok(PyValue::Float(*f)),
                    Some(PyValue::Str(s)) => parse_float(s),
                    Some(v) if v.is_int() => {
                        let f = match v {
                            PyValue::Big(b) => big_to_f64(b),
                            other => other.as_i64().unwrap_or(0) as f64,
                        };
                        if f.is_infinite() {
                            return Err(exc(ExcClass::OverflowError, "int too large to convert to float"));
                        }
                        Ok(PyValue::Float(f))
                    }
                    Some(other) => Err(exc(
                        ExcClass::TypeError,
                        format!("float() argument must be a string or a real number, not '{}'", other.type_name()),
                    )),
                }
            }
            Builtin::Any | Builtin::All => {
                arity(name, &args, 1, 1)?;
                let any = b == Builtin::Any;
                let mut it = self.iter_of(&args[0])?;
                while let Some(x) = self.next(&mut it)? {
                    self.tick()?;
                    if x.truthy() == any {
                        return Ok(PyValue::Bool(any));
                    }
                }
                Ok(PyValue::Bool(!any))
            }
            Builtin::Reversed => {
                arity(name, &args, 1, 1)?;
                let it = match &args[0] {
                    PyValue::List(l) => {
                        let n = l.borrow().len();
                        PyIter::ReversedList { list: l.clone(), index: n }
                    }
                    v @ (PyValue::Tuple(_) | PyValue::Str(_) | PyValue::Range(_) | PyValue::Dict(_) | PyValue::DictView(_)) => {
                        let mut items = self.collect(v)?;
                        items.reverse();
                        PyIter::Values { items: Rc::new(items), index: 0 }
                    }
                    other => return Err(exc(ExcClass::TypeError, format!("'{}' object is not reversible", other.type_name()))),
                };
                Ok(PyValue::Iter(Rc::new(RefCell::new(it))))
            }
            Builtin::Divmod => {
                arity(name, &args, 2, 2)?;
                let q = self.binop(BinOp::FloorDiv, &args[0], &args[1])?;
                let r = self.binop(BinOp::Mod, &args[0], &args[1])?;
                Ok(PyValue::tuple(vec![q, r]))
            }
            Builtin::Pow => {
                arity(name, &args, 2, 3)?;
                if args.len() == 2 || matches!(args[2], PyValue::None) {
                    return self.binop(BinOp::Pow, &args[0], &args[1]);
                }
                let (Some(base), Some(e), Some(m)) = (args[0].to_bigint(), args[1].to_bigint(), args[2].to_bigint()) else {
                    return Err(exc(ExcClass::TypeError, "pow() 3rd argument not allowed unless all arguments are integers"));
                };
                if m == BigInt::from(0) {
                    return Err(exc(ExcClass::ValueError, "pow() 3rd argument cannot be 0"));
                }
                if e.is_negative() {
                    return Err(exc(ExcClass::ValueError, "pow() with a negative exponent and a modulus is not supported"));
                }
                let r = base.modpow(&e, &m.abs());
                let r = if m.is_negative() && r != BigInt::from(0) { r + &m } else { r };
                let r = if !m.is_negative() && r.is_negative() { r + &m } else { r };
                Ok(PyValue::from_bigint(r))
            }
            Builtin::Map => {
                if args.len() < 2 {
                    return Err(exc(ExcClass::TypeError, "map() must have at least two arguments."));
                }
                let func = args.remove(0);
                let mut inners = Vec::with_capacity(args.len());
                for a in &args {
                    inners.push(self.iter_of(a)?);
                }
                Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Map { func, inners }))))
            }
            Builtin::Filter => {
                arity(name, &args, 2, 2)?;
                let inner = self.iter_of(&args[1])?;
                Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Filter { func: args[0].clone(), inner: Box::new(inner) }))))
            }
            Builtin::Iter => {
                arity(name, &args, 1, 1)?;
                if let PyValue::Iter(_) = &args[0] {
                    return Ok(args[0].clone());
                }
                let it = self.iter_of(&args[0])?;
                Ok(PyValue::Iter(Rc::new(RefCell::new(it))))
            }
            Builtin::Next => {
                arity(name, &args, 1, 2)?;
                let PyValue::Iter(_) = &args[0] else {
                    return Err(exc(ExcClass::TypeError, format!("'{}' object is not an iterator", args[0].type_name())));
                };
                let mut it = self.iter_of(&args[0])?;
                match self.next(&mut it)? {
                    Some(v) => Ok(v),
                    None => args.get(1).cloned().ok_or_else(|| exc(ExcClass::StopIteration, "")),
                }
            }
            Builtin::Round => {
                arity(name, &args, 1, 2)?;
                let digits = args.get(1).filter(|d| !matches!(d, PyValue::None)).map(to_index).transpose()?;
                match (&args[0], digits) {
                    (v, None) if v.is_int() => {
                        Ok(PyValue::Int(v.as_i64().unwrap_or(0))).map(|r| if let PyValue::Big(_) = v { v.clone() } else { r })
                    }
                    (v, Some(_)) if v.is_int() => Ok(v.clone()),
                    (PyValue::Float(f), None) => {
                        if !f.is_finite() {
                            return Err(exc(ExcClass::OverflowError, "cannot convert float infinity to integer"));
                        }
                        Ok(PyValue::from_bigint(BigInt::from_f64_trunc(f.round_ties_even())))
                    }
                    (PyValue::Float(f), Some(n)) => {
                        let scale = 10f64.powi(n.clamp(-300, 300) as i32);
                        Ok(PyValue::Float((f * scale).round_ties_even() / scale))
                    }
                    (other, _) => Err(exc(ExcClass::TypeError, format!("type {} doesn't define __round__ method", other.type_name()))),
                }
            }
            Builtin::Chr => {
                arity(name, &args, 1, 1)?;
                let code = to_index(&args[0])?;
                match u32::try_from(code).ok().and_then(char::from_u32) {
                    Some(c) => Ok(PyValue::str(c.encode_utf8(&mut [0u8; 4]))),
                    None => Err(exc(ExcClass::ValueError, "chr() arg not in range(0x110000)")),
                }
            }
            Builtin::Ord => {
                arity(name, &args, 1, 1)?;
                match &args[0] {
                    PyValue::Str(s) if s.chars().count() == 1 => Ok(PyValue::Int(s.chars().next().map(|c| c as i64).unwrap_or(0))),
                    PyValue::Str(s) => Err(exc(
                        ExcClass::TypeError,
                        format!("ord() expected a character, but string of length {} found", s.chars().count()),
                    )),
                    other => Err(exc(ExcClass::TypeError, format!("ord() expected string of length 1, but {} found", other.type_name()))),
                }
            }
            Builtin::Bin | Builtin::Hex => {
                arity(name, &args, 1, 1)?;
                let Some(v) = args[0].to_bigint() else {
                    return Err(exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", args[0].type_name())));
                };
                let (sign, mag) = if v.is_negative() { ("-", -v) } else { ("", v) };
                let text = if b == Builtin::Bin {
                    format!("{sign}0b{}", mag.to_str_radix(2))
                } else {
                    format!("{sign}0x{}", mag.to_str_radix(16))
                };
                Ok(PyValue::str(&text))
            }
            Builtin::Max | Builtin::Min | Builtin::Sorted | Builtin::Sum | Builtin::Enumerate | Builtin::Print | Builtin::Dict => {
                Err(exc(ExcClass::RuntimeError, "unreachable builtin dispatch"))
            }
        }
    }

    /// Calls `obj.name(*args, **kwargs)`.
    #[inline(never)]
    pub(crate) fn call_method(
        &mut self,
        obj: &PyValue,
        name: &str,
        mut args: Vec<PyValue>,
        mut kwargs: Vec<(String, PyValue)>,
    ) -> Res<PyValue> {
        if !has_method(obj, name) {
            return Err(exc(ExcClass::AttributeError, format!("'{}' object has no attribute '{name}'", obj.type_name())));
        }
        let qual = Qual(obj.type_name(), name);
        if !(matches!(obj, PyValue::List(_)) && name == "sort") {
            no_kwargs(qual, &kwargs)?;
        }
        match obj {
            PyValue::List(l) => match name {
                "append" => {
                    arity(qual, &args, 1, 1)?;
                    self.charge(1)?;
                    l.borrow_mut().push(args.pop().unwrap_or(PyValue::None));
                    Ok(PyValue::None)
                }
                "pop" => {
                    arity(qual, &args, 0, 1)?;
                    let len = l.borrow().len();
                    if len == 0 {
                        return Err(exc(ExcClass::IndexError, "pop from empty list"));
                    }
                    let i = match args.first() {
                        None => len - 1,
                        Some(v) => {
                            let i = to_index(v)?;
                            let j = if i < 0 { i + len as i64 } else { i };
                            if j < 0 || j >= len as i64 {
                                return Err(exc(ExcClass::IndexError, "pop index out of range"));
                            }
                            j as usize
                        }
                    };
                    Ok(l.borrow_mut().remove(i))
                }
                "insert" => {
                    arity(qual, &args, 2, 2)?;
                    let i = to_index(&args[0])?;
                    let len = l.borrow().len() as i64;
                    let j = if i < 0 { (i + len).max(0) } else { i.min(len) };
                    self.charge(1)?;
                    let v = args.pop().unwrap_or(PyValue::None);
                    l.borrow_mut().insert(j as usize, v);
                    Ok(PyValue::None)
                }
                "extend" => {
                    arity(qual, &args, 1, 1)?;
                    let items = self.collect(&args[0])?;
                    self.charge(items.len() as u64)?;
                    l.borrow_mut().extend(items);
                    Ok(PyValue::None)
                }
                "sort" => {
                    arity(qual, &args, 0, 0)?;
                    let key = take_kw(&mut kwargs, "key");
                    let reverse = take_kw(&mut kwargs, "reverse").map(|r| r.truthy()).unwrap_or(false);
                    no_kwargs(qual, &kwargs)?;
                    let items = std::mem::take(&mut *l.borrow_mut());
                    let sorted = self.sort_values(items.clone(), key.as_ref(), reverse);
                    let modified = !l.borrow().is_empty();
                    match sorted {
                        Ok(sorted) => {
                            *l.borrow_mut() = sorted;
                            if modified {
                                return Err(exc(ExcClass::ValueError, "list modified during sort"));
                            }
                            Ok(PyValue::None)
                        }
                        Err(e) => {
                            *l.borrow_mut() = items;
                            Err(e)
                        }
                    }
                }
                "index" => {
                    arity(qual, &args, 1, 3)?;
                    let items = l.borrow().clone();
                    let (start, stop) = self.search_bounds(&args, items.len())?;
                    for (i, x) in items.iter().enumerate().take(stop).skip(start) {
                        self.tick()?;
                        if py_eq(x, &args[0])? {
                            return Ok(PyValue::Int(i as i64));
                        }
                    }
                    Err(exc(ExcClass::ValueError, format!("{} is not in list", args[0].repr())))
                }
                "count" => {
                    arity(qual, &args, 1, 1)?;
                    let items = l.borrow().clone();
                    self.tick_n(items.len() as u64 / 8)?;
                    let mut n = 0;
                    for x in &items {
                        if py_eq(x, &args[0])? {
                            n += 1;
                        }
                    }
                    Ok(PyValue::Int(n))
                }
                "reverse" => {
                    arity(qual, &args, 0, 0)?;
                    l.borrow_mut().reverse();
                    Ok(PyValue::None)
                }
                "remove" => {
                    arity(qual, &args, 1, 1)?;
                    let items = l.borrow().clone();
                    for (i, x) in items.iter().enumerate() {
                        if py_eq(x, &args[0])? {
                            l.borrow_mut().remove(i);
                            return Ok(PyValue::None);
                        }
                    }
                    Err(exc(ExcClass::ValueError, "list.remove(x): x not in list"))
                }
                "copy" => {
                    arity(qual, &args, 0, 0)?;
                    let items = l.borrow().clone();
                    self.charge(items.len() as u64)?;
                    Ok(PyValue::list(items))
                }
                _ => {
                    arity(qual, &args, 0, 0)?;
                    l.borrow_mut().clear();
                    Ok(PyValue::None)
                }
            },
            PyValue::Dict(d) => match name {
                "get" => {
                    arity(qual, &args, 1, 2)?;
                    let hk = args[0].hash_key()?;
                    let found = d.borrow().get(&hk).cloned();
                    Ok(found.unwrap_or_else(|| args.get(1).cloned().unwrap_or(PyValue::None)))
                }
                "items" | "keys" | "values" => {
                    arity(qual, &args, 0, 0)?;
                    let kind = match name {
                        "items" => ViewKind::Items,
                        "keys" => ViewKind::Keys,
                        _ => ViewKind::Values,
                    };
                    Ok(PyValue::DictView(Rc::new((d.clone(), kind))))
                }
                "setdefault" => {
                    arity(qual, &args, 1, 2)?;
                    let hk = args[0].hash_key()?;
                    if let Some(v) = d.borrow().get(&hk) {
                        return Ok(v.clone());
                    }
                    let v = args.get(1).cloned().unwrap_or(PyValue::None);
                    self.charge(1)?;
                    d.borrow_mut().insert(hk, args[0].clone(), v.clone());
                    Ok(v)
                }
                "pop" => {
                    arity(qual, &args, 1, 2)?;
                    let hk = args[0].hash_key()?;
                    let removed = d.borrow_mut().remove(&hk);
                    match removed {
                        Some((_, v)) => Ok(v),
                        None => args.get(1).cloned().ok_or_else(|| exc(ExcClass::KeyError, args[0].repr())),
                    }
                }
                "popitem" => {
                    arity(qual, &args, 0, 0)?;
                    let last = d.borrow_mut().pop_last();
                    match last {
                        Some((k, v)) => Ok(PyValue::tuple(vec![k, v])),
                        None => Err(exc(ExcClass::KeyError, "'popitem(): dictionary is empty'")),
                    }
                }
                "copy" => {
                    arity(qual, &args, 0, 0)?;
                    let copy = d.borrow().clone();
                    self.charge(copy.len() as u64)?;
                    Ok(PyValue::Dict(Rc::new(RefCell::new(copy))))
                }
                "update" => {
                    arity(qual, &args, 1, 1)?;
                    let pairs = match &args[0] {
                        PyValue::Dict(src) => src.borrow().pairs(),
                        other => {
                            let mut pairs = Vec::new();
                            for pair in self.collect(other)? {
                                let kv = self.collect(&pair)?;
                                if kv.len() != 2 {
                                    return Err(exc(ExcClass::ValueError, "dictionary update sequence element has the wrong length"));
                                }
                                pairs.push((kv[0].clone(), kv[1].clone()));
                            }
                            pairs
                        }
                    };
                    for (k, v) in pairs {
                        let hk = k.hash_key()?;
                        if d.borrow_mut().insert(hk, k, v) {
                            self.charge(1)?;
                        }
                    }
                    Ok(PyValue::None)
                }
                _ => {
                    arity(qual, &args, 0, 0)?;
                    let version = d.borrow().version;
                    *d.borrow_mut() = Dict::new();
                    d.borrow_mut().version = version + 1;
                    Ok(PyValue::None)
                }
            },
            PyValue::Set(s) => match name {
                "add" => {
                    arity(qual, &args, 1, 1)?;
                    let hk = args[0].hash_key()?;
                    if s.borrow_mut().insert(hk, args[0].clone()) {
                        self.charge(1)?;
                    }
                    Ok(PyValue::None)
                }
                "clear" => {
                    arity(qual, &args, 0, 0)?;
                    s.borrow_mut().clear();
                    Ok(PyValue::None)
                }
                "remove" | "discard" => {
                    arity(qual, &args, 1, 1)?;
                    let hk = args[0].hash_key()?;
                    let removed = s.borrow_mut().remove(&hk);
                    if !removed && name == "remove" {
                        return Err(exc(ExcClass::KeyError, args[0].repr()));
                    }
                    Ok(PyValue::None)
                }
                "pop" => {
                    arity(qual, &args, 0, 0)?;
                    let popped = s.borrow_mut().pop_first();
                    popped.ok_or_else(|| exc(ExcClass::KeyError, "'pop from an empty set'"))
                }
                "copy" => {
                    arity(qual, &args, 0, 0)?;
                    let mut copy = PySet::new();
                    copy.merge(&s.borrow());
                    self.charge(copy.len() as u64)?;
                    Ok(PyValue::Set(Rc::new(RefCell::new(copy))))
                }
                "update" => {
                    for a in &args {
                        if let PyValue::Set(other) = a {
                            if Rc::ptr_eq(s, other) {
                                continue;
                            }
                        }
                        // Read the argument first: iterating it may run code that looks at this set.
                        let source = self.set_source(a)?;
                        let before = s.borrow().len();
                        let added = add_to_set(&mut s.borrow_mut(), source);
                        self.charge((s.borrow().len() - before) as u64)?;
                        added?;
                    }
                    Ok(PyValue::None)
                }
                "union" => {
                    let mut acc = PySet::new();
                    acc.merge(&s.borrow());
                    for a in &args {
                        let source = self.set_source(a)?;
                        add_to_set(&mut acc, source)?;
                    }
                    self.charge(acc.len() as u64)?;
                    Ok(PyValue::Set(Rc::new(RefCell::new(acc))))
                }
                "issubset" | "issuperset" => {
                    arity(qual, &args, 1, 1)?;
                    let mut other = PySet::new();
                    for item in self.collect(&args[0])? {
                        other.insert(item.hash_key()?, item);
                    }
                    let this = s.borrow();
                    Ok(PyValue::Bool(if name == "issubset" {
                        this.keys().all(|k| other.contains(k))
                    } else {
                        other.keys().all(|k| this.contains(k))
                    }))
                }
                "intersection" => {
                    // CPython's set_intersection_multi: intersect with each argument in turn; a set argument
                    // walks the smaller side, any other iterable is walked in its own order.
                    let mut acc = PySet::new();
                    acc.merge(&s.borrow());
                    let mut acc_is_self = true;
                    for a in &args {
                        acc = match self.set_source(a)? {
                            SetSource::Set(other) => match a {
                                PyValue::Set(o) if acc_is_self && Rc::ptr_eq(s, o) => acc,
                                _ if acc_is_self => s.borrow().intersection(&other),
                                _ => acc.intersection(&other),
                            },
                            SetSource::DictKeys(items) | SetSource::Items(items) => {
                                let base = if acc_is_self { s.borrow().clone() } else { acc };
                                let mut out = PySet::new();
                                for item in items {
                                    let hk = item.hash_key()?;
                                    if base.contains(&hk) {
                                        out.insert(hk, item);
                                    }
                                }
                                out
                            }
                        };
                        acc_is_self = false;
                    }
                    self.charge(acc.len() as u64)?;
                    Ok(PyValue::Set(Rc::new(RefCell::new(acc))))
                }
                _ => {
                    // CPython's set_difference_multi: a difference with the first argument, then in-place removal
                    // of each further argument's elements.
                    let mut acc: Option<PySet> = None;
                    for a in &args {
                        let source = self.set_source(a)?;
                        let keys = |items: &[PyValue]| items.iter().map(|v| v.hash_key()).collect::<Result<Vec<_>, _>>();
                        acc = Some(match (acc, source) {
                            (None, SetSource::Set(other)) => {
                                s.borrow().difference_by(other.len(), |k| other.contains(k), || other.entries().into_iter().map(|(k, _)| k).collect())
                            }
                            (None, SetSource::DictKeys(items)) => {
                                let ks = keys(&items)?;
                                let mut lookup = PySet::new();
                                for (k, v) in ks.iter().zip(&items) {
                                    lookup.insert(k.clone(), v.clone());
                                }
                                s.borrow().difference_by(ks.len(), |k| lookup.contains(k), || ks.clone())
                            }
                            (None, SetSource::Items(items)) => {
                                let ks = keys(&items)?;
                                let mut out = PySet::new();
                                out.merge(&s.borrow());
                                out.discard_all(ks);
                                out
                            }
                            (Some(mut acc), SetSource::Set(other)) => {
                                acc.difference_update(&other);
                                acc
                            }
                            (Some(mut acc), SetSource::DictKeys(items) | SetSource::Items(items)) => {
                                acc.discard_all(keys(&items)?);
                                acc
                            }
                        });
                    }
                    let acc = match acc {
                        Some(acc) => acc,
                        None => {
                            let mut copy = PySet::new();
                            copy.merge(&s.borrow());
                            copy
                        }
                    };
                    self.charge(acc.len() as u64)?;
                    Ok(PyValue::Set(Rc::new(RefCell::new(acc))))
                }
            },
            PyValue::Str(s) => self.str_method(s, name, qual, args),
            PyValue::Tuple(t) => match name {
                "index" => {
                    arity(qual, &args, 1, 3)?;
                    let (start, stop) = self.search_bounds(&args, t.len())?;
                    for (i, x) in t.iter().enumerate().take(stop).skip(start) {
                        if py_eq(x, &args[0])? {
                            return Ok(PyValue::Int(i as i64));
                        }
                    }
                    Err(exc(ExcClass::ValueError, "tuple.index(x): x not in tuple"))
                }
                _ => {
                    arity(qual, &args, 1, 1)?;
                    let mut n = 0;
                    for x in t.iter() {
                        if py_eq(x, &args[0])? {
                            n += 1;
                        }
                    }
                    Ok(PyValue::Int(n))
                }
            },
            _ => Err(exc(ExcClass::AttributeError, format!("'{}' object has no attribute '{name}'", obj.type_name()))),
        }
    }

    fn search_bounds(&self, args: &[PyValue], len: usize) -> Res<(usize, usize)> {
        let clamp = |v: Option<&PyValue>, default: usize| -> Res<usize> {
            match v {
                None => Ok(default),
                Some(v) => {
                    let i = to_index(v)?;
                    let len = len as i64;
                    Ok((if i < 0 { (i + len).max(0) } else { i.min(len) }) as usize)
                }
            }
        };
        Ok((clamp(args.get(1), 0)?, clamp(args.get(2), len)?))
    }

    fn str_method(&mut self, s: &Rc<str>, name: &str, qual: Qual<'_>, args: Vec<PyValue>) -> Res<PyValue> {
        let want_str = |v: &PyValue| -> Res<Rc<str>> {
            match v {
                PyValue::Str(x) => Ok(x.clone()),
                other => Err(exc(ExcClass::TypeError, format!("must be str, not {}", other.type_name()))),
            }
        };
        match name {
            "join" => {
                arity(qual, &args, 1, 1)?;
                let items = self.collect(&args[0])?;
                let mut out = String::new();
                for (i, item) in items.iter().enumerate() {
                    let PyValue::Str(part) = item else {
                        return Err(exc(
                            ExcClass::TypeError,
                            format!("sequence item {i}: expected str instance, {} found", item.type_name()),
                        ));
                    };
                    if i > 0 {
                        out.push_str(s);
                    }
                    out.push_str(part);
                }
                self.charge(out.len() as u64 / 8)?;
                Ok(PyValue::str(&out))
            }
            "split" => {
                arity(qual, &args, 0, 1)?;
                let parts: Vec<PyValue> = match args.first().filter(|a| !matches!(a, PyValue::None)) {
                    None => s.split_whitespace().map(PyValue::str).collect(),
                    Some(sep) => {
                        let sep = want_str(sep)?;
                        if sep.is_empty() {
                            return Err(exc(ExcClass::ValueError, "empty separator"));
                        }
                        s.split(sep.as_ref()).map(PyValue::str).collect()
                    }
                };
                self.charge(parts.len() as u64)?;
                Ok(PyValue::list(parts))
            }
            "strip" | "lstrip" | "rstrip" => {
                arity(qual, &args, 0, 0)?;
                Ok(PyValue::str(match name {
                    "strip" => s.trim(),
                    "lstrip" => s.trim_start(),
                    _ => s.trim_end(),
                }))
            }
            "isdigit" => Ok(PyValue::Bool(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))),
            "isalpha" => Ok(PyValue::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic))),
            "upper" => Ok(PyValue::str(&s.to_uppercase())),
            "lower" => Ok(PyValue::str(&s.to_lowercase())),
            "startswith" | "endswith" => {
                arity(qual, &args, 1, 1)?;
                let p = want_str(&args[0])?;
                Ok(PyValue::Bool(if name == "startswith" { s.starts_with(p.as_ref()) } else { s.ends_with(p.as_ref()) }))
            }
            "count" => {
                arity(qual, &args, 1, 1)?;
                let p = want_str(&args[0])?;
                let n = if p.is_empty() { s.chars().count() + 1 } else { s.matches(p.as_ref()).count() };
                Ok(PyValue::Int(n as i64))
            }
            "find" | "index" => {
                arity(qual, &args, 1, 1)?;
                let p = want_str(&args[0])?;
                match s.find(p.as_ref()) {
                    Some(byte) => Ok(PyValue::Int(s[..byte].chars().count() as i64)),
                    None if name == "find" => Ok(PyValue::Int(-1)),
                    None => Err(exc(ExcClass::ValueError, "substring not found")),
                }
            }
            _ => {
                arity(qual, &args, 2, 2)?;
                let (from, to) = (want_str(&args[0])?, want_str(&args[1])?);
                let out = s.replace(from.as_ref(), &to);
                self.charge(out.len() as u64 / 8)?;
                Ok(PyValue::str(&out))
            }
        }
    }
}

/// A stable merge sort on `(key, value)` pairs using Python's `<` on keys (never panics on inconsistent orders).
fn merge_sort(items: Vec<(PyValue, PyValue)>) -> Res<Vec<(PyValue, PyValue)>> {
    if items.len() <= 1 {
        return Ok(items);
    }
    let mut items = items;
    let right = items.split_off(items.len() / 2);
    let left = merge_sort(items)?;
    let right = merge_sort(right)?;
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut li = left.into_iter().peekable();
    let mut ri = right.into_iter().peekable();
    loop {
        match (li.peek(), ri.peek()) {
            (Some(l), Some(r)) => {
                if py_less(&r.0, &l.0)? {
                    out.extend(ri.next());
                } else {
                    out.extend(li.next());
                }
            }
            (Some(_), None) => {
                out.extend(li);
                break;
            }
            (None, _) => {
                out.extend(ri);
                break;
            }
        }
    }
    Ok(out)
}

fn parse_int(text: &str, base: i64) -> Res<PyValue> {
    let invalid = || exc(ExcClass::ValueError, format!("invalid literal for int() with base {base}: {}", str_repr(text)));
    if base != 0 && !(2..=36).contains(&base) {
        return Err(exc(ExcClass::ValueError, "int() base must be >= 2 and <= 36, or 0"));
    }
    let t = text.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = match (base, lower.get(..2)) {
        (16 | 0, Some("0x")) => (16, &body[2..]),
        (8 | 0, Some("0o")) => (8, &body[2..]),
        (2 | 0, Some("0b")) => (2, &body[2..]),
        (0, _) => (10, body),
        _ => (base as u32, body),
    };
    let digits = digits.strip_prefix('_').filter(|_| radix != 10 || base == 0).unwrap_or(digits);
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return Err(invalid());
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if !clean.chars().all(|c| c.is_digit(radix)) {
        return Err(invalid());
    }
    if radix == 10 && clean.len() > 4300 {
        return Err(exc(ExcClass::ValueError, "Exceeds the limit (4300 digits) for integer string conversion"));
    }
    let v = BigInt::from_str_radix(&clean, radix).map_err(|_| invalid())?;
    Ok(PyValue::from_bigint(if neg { -v } else { v }))
}

fn parse_float(text: &str) -> Res<PyValue> {
    let t = text.trim().to_ascii_lowercase().replace('_', "");
    let v = match t.trim_start_matches(['+', '-']) {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    let v = match v {
        Some(v) => Some(if t.starts_with('-') { -v } else { v }),
        None if t.chars().all(|c| c.is_ascii_digit() || "+-.e".contains(c)) && !t.is_empty() => t.parse::<f64>().ok(),
        None => None,
    };
    v.map(PyValue::Float)
        .ok_or_else(|| exc(ExcClass::ValueError, format!("could not convert string to float: {}", str_repr(text))))
}

trait FromF64Trunc {
    fn from_f64_trunc(f: f64) -> BigInt;
}

impl FromF64Trunc for BigInt {
    fn from_f64_trunc(f: f64) -> BigInt {
        use num_traits::FromPrimitive;
        BigInt::from_f64(f.trunc()).unwrap_or_default()
    }
}

/// What a set is updated from, read ahead of the update: CPython's `set_update_internal` treats sets and
/// dicts specially (their sizes are known up front) and takes any other iterable item by item.
pub(crate) enum SetSource {
    /// A snapshot of another set.
    Set(PySet),
    /// The keys of a dict, in order.
    DictKeys(Vec<PyValue>),
    /// The items of any other iterable, in order.
    Items(Vec<PyValue>),
}

impl Interp<'_> {
    /// Reads a set-update argument (`set(x)`, `s.update(x)`, `s.union(x)`, `s |= x`).
    pub(crate) fn set_source(&mut self, other: &PyValue) -> Res<SetSource> {
        Ok(match other {
            PyValue::Set(o) => SetSource::Set(o.borrow().clone()),
            PyValue::Dict(d) => {
                let keys = d.borrow().keys();
                self.tick_n(keys.len() as u64 / 8)?;
                SetSource::DictKeys(keys)
            }
            _ => SetSource::Items(self.collect(other)?),
        })
    }
}

/// Adds a read-ahead source to a set with CPython's table sizing: a set is merged (one resize up front, table
/// copied when possible), a dict presizes the table for all its keys, other iterables insert one at a time.
/// Stops at the first unhashable item, keeping the items added before it, as CPython does.
pub(crate) fn add_to_set(set: &mut PySet, source: SetSource) -> Res<()> {
    match source {
        SetSource::Set(other) => set.merge(&other),
        SetSource::DictKeys(keys) => {
            set.presize_for_dict(keys.len());
            for k in keys {
                set.insert(k.hash_key()?, k);
            }
        }
        SetSource::Items(items) => {
            for item in items {
                set.insert(item.hash_key()?, item);
            }
        }
    }
    Ok(())
}
