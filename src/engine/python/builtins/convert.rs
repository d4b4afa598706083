//! The conversions `int()` (with `base=`), `float()`, `str()`, `bool()`, `list()`, `tuple()`, `set()` and `dict()`,
//! with CPython's rules for reading numbers from strings, and the read-ahead of a set-update argument that
//! `set()` shares with the set methods (CPython sizes the table differently for sets, dicts and other iterables).

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::Num;

use super::{arity, no_kwargs, take_kw, to_index};
use crate::engine::python::builtin_names::Builtin;
use crate::engine::python::value::dict::Dict;
use crate::engine::python::error::ExcClass;
use crate::engine::python::eval::{exc, Interp, Res};
use crate::engine::python::value::set::PySet;
use crate::engine::python::value::{big_to_f64, str_repr, PyValue};

/// `int(x=0, base=10)`.
pub(super) fn to_int(args: &[PyValue], mut kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
    let base = take_kw(&mut kwargs, "base");
    no_kwargs("int", &kwargs)?;
    arity("int", args, 0, 2)?;
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

/// `float(x=0.0)`.
pub(super) fn to_float(args: &[PyValue]) -> Res<PyValue> {
    arity("float", args, 0, 1)?;
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
        Some(other) => {
            Err(exc(ExcClass::TypeError, format!("float() argument must be a string or a real number, not '{}'", other.type_name())))
        }
    }
}

/// `str(x='')`.
pub(super) fn to_str(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("str", args, 0, 1)?;
    match args.first() {
        None => Ok(PyValue::str("")),
        Some(PyValue::Big(b)) if b.bits() > 14_000 && b.to_string().trim_start_matches('-').len() > 4300 => Err(exc(
            ExcClass::ValueError,
            "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit",
        )),
        Some(v) => {
            let s = v.to_str();
            interp.charge(s.len() as u64 / 8)?;
            Ok(PyValue::str(&s))
        }
    }
}

/// `bool(x=False)`.
pub(super) fn to_bool(args: &[PyValue]) -> Res<PyValue> {
    arity("bool", args, 0, 1)?;
    Ok(PyValue::Bool(args.first().is_some_and(PyValue::truthy)))
}

/// `list(iterable=())` / `tuple(iterable=())`.
pub(super) fn to_list_or_tuple(interp: &mut Interp<'_>, b: Builtin, args: &[PyValue]) -> Res<PyValue> {
    arity(b.name(), args, 0, 1)?;
    let items = match args.first() {
        Some(v) => interp.collect(v)?,
        None => Vec::new(),
    };
    interp.charge(items.len() as u64)?;
    Ok(if b == Builtin::List { PyValue::list(items) } else { PyValue::tuple(items) })
}

/// `set(iterable=())`.
pub(super) fn to_set(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("set", args, 0, 1)?;
    let mut set = PySet::new();
    if let Some(v) = args.first() {
        let source = interp.set_source(v)?;
        add_to_set(&mut set, source)?;
    }
    interp.charge(set.len() as u64)?;
    Ok(PyValue::Set(Rc::new(RefCell::new(set))))
}

/// `dict(mapping_or_pairs=(), **kwargs)`.
pub(super) fn to_dict(interp: &mut Interp<'_>, args: &[PyValue], kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
    arity("dict", args, 0, 1)?;
    let mut d = match args.first() {
        None => Dict::new(),
        Some(PyValue::Dict(src)) => src.borrow().clone(),
        Some(other) => {
            let mut d = Dict::new();
            for pair in interp.collect(other)? {
                let kv = interp.collect(&pair).map_err(|_| exc(ExcClass::TypeError, "cannot convert dictionary update sequence element"))?;
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
    interp.charge(d.len() as u64)?;
    Ok(PyValue::Dict(Rc::new(RefCell::new(d))))
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
    v.map(PyValue::Float).ok_or_else(|| exc(ExcClass::ValueError, format!("could not convert string to float: {}", str_repr(text))))
}

pub(super) trait FromF64Trunc {
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
