//! The builtin functions other than the conversions: `len`, `range`, `min`/`max`, `sum`, `sorted` (and the
//! stable sort it shares with `list.sort`), `enumerate`, `zip`, `abs`, `any`/`all`, `reversed`, `divmod`,
//! `pow`, `map`, `filter`, `iter`, `next`, `round`, `chr`, `ord`, `bin` and `hex`.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::Signed;

use super::convert::FromF64Trunc;
use super::{arity, no_kwargs, take_kw, to_index};
use crate::engine::python::ast::BinOp;
use crate::engine::python::builtin_names::Builtin;
use crate::engine::python::compare::py_less;
use crate::engine::python::error::ExcClass;
use crate::engine::python::eval::{exc, Interp, Res};
use crate::engine::python::value::{PyIter, PyValue, RangeVal};

/// `len(x)`.
pub(super) fn len(args: &[PyValue]) -> Res<PyValue> {
    arity("len", args, 1, 1)?;
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

/// `range(stop)`, `range(start, stop[, step])`, with 64-bit bounds.
pub(super) fn range(args: &[PyValue]) -> Res<PyValue> {
    arity("range", args, 1, 3)?;
    let mut v = Vec::with_capacity(3);
    for a in args {
        v.push(match a {
            PyValue::Big(_) => return Err(exc(ExcClass::OverflowError, "range() bounds beyond 64 bits are not supported")),
            other => other
                .as_i64()
                .ok_or_else(|| exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", other.type_name())))?,
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

/// `min(...)` / `max(...)` of one iterable or of several arguments, with `key=` and `default=`.
pub(super) fn min_max(
    interp: &mut Interp<'_>,
    name: &str,
    mut args: Vec<PyValue>,
    mut kwargs: Vec<(String, PyValue)>,
    want_max: bool,
) -> Res<PyValue> {
    let key = take_kw(&mut kwargs, "key").filter(|k| !matches!(k, PyValue::None));
    let default = take_kw(&mut kwargs, "default");
    no_kwargs(name, &kwargs)?;
    let items = match args.len() {
        0 => return Err(exc(ExcClass::TypeError, format!("{name} expected at least 1 argument, got 0"))),
        1 => {
            let only = args.pop().unwrap_or(PyValue::None);
            interp.collect(&only)?
        }
        _ => {
            if default.is_some() {
                return Err(exc(ExcClass::TypeError, format!("Cannot specify a default for {name}() with multiple positional arguments")));
            }
            args
        }
    };
    let mut best: Option<(PyValue, PyValue)> = None;
    for v in items {
        interp.tick()?;
        let k = match &key {
            Some(f) => interp.call_value(f, vec![v.clone()], Vec::new())?,
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

/// `sum(iterable, start=0)`.
pub(super) fn sum(interp: &mut Interp<'_>, mut args: Vec<PyValue>, mut kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
    let start = take_kw(&mut kwargs, "start");
    no_kwargs("sum", &kwargs)?;
    arity("sum", &args, 1, 2)?;
    let mut acc = if args.len() == 2 { args.pop().unwrap_or(PyValue::Int(0)) } else { start.unwrap_or(PyValue::Int(0)) };
    if matches!(acc, PyValue::Str(_)) {
        return Err(exc(ExcClass::TypeError, "sum() can't sum strings [use ''.join(seq) instead]"));
    }
    let mut it = interp.iter_of(&args[0])?;
    while let Some(x) = interp.next(&mut it)? {
        interp.tick()?;
        acc = interp.binop(BinOp::Add, &acc, &x)?;
    }
    Ok(acc)
}

/// `sorted(iterable, key=None, reverse=False)`.
pub(super) fn sorted(interp: &mut Interp<'_>, args: &[PyValue], mut kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
    let key = take_kw(&mut kwargs, "key");
    let reverse = take_kw(&mut kwargs, "reverse").map(|r| r.truthy()).unwrap_or(false);
    no_kwargs("sorted", &kwargs)?;
    arity("sorted", args, 1, 1)?;
    let items = interp.collect(&args[0])?;
    interp.charge(items.len() as u64)?;
    let sorted = interp.sort_values(items, key.as_ref(), reverse)?;
    Ok(PyValue::list(sorted))
}

/// `enumerate(iterable, start=0)`.
pub(super) fn enumerate(interp: &mut Interp<'_>, mut args: Vec<PyValue>, mut kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
    let start = take_kw(&mut kwargs, "start");
    no_kwargs("enumerate", &kwargs)?;
    arity("enumerate", &args, 1, 2)?;
    let count = if args.len() == 2 { args.pop().unwrap_or(PyValue::Int(0)) } else { start.unwrap_or(PyValue::Int(0)) };
    if !count.is_int() {
        return Err(exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", count.type_name())));
    }
    let inner = interp.iter_of(&args[0])?;
    Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Enumerate { inner: Box::new(inner), count }))))
}

/// `zip(*iterables)`.
pub(super) fn zip(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    let mut inners = Vec::with_capacity(args.len());
    for a in args {
        inners.push(interp.iter_of(a)?);
    }
    Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Zip { inners }))))
}

/// `abs(x)`.
pub(super) fn abs(args: &[PyValue]) -> Res<PyValue> {
    arity("abs", args, 1, 1)?;
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

/// `any(iterable)` / `all(iterable)`, stopping at the first item that decides.
pub(super) fn any_all(interp: &mut Interp<'_>, b: Builtin, args: &[PyValue]) -> Res<PyValue> {
    arity(b.name(), args, 1, 1)?;
    let any = b == Builtin::Any;
    let mut it = interp.iter_of(&args[0])?;
    while let Some(x) = interp.next(&mut it)? {
        interp.tick()?;
        if x.truthy() == any {
            return Ok(PyValue::Bool(any));
        }
    }
    Ok(PyValue::Bool(!any))
}

/// `reversed(seq)`: a live reverse iterator over a list, a reversed copy of other sequences.
pub(super) fn reversed(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("reversed", args, 1, 1)?;
    let it = match &args[0] {
        PyValue::List(l) => {
            let n = l.borrow().len();
            PyIter::ReversedList { list: l.clone(), index: n }
        }
        v @ (PyValue::Tuple(_) | PyValue::Str(_) | PyValue::Range(_) | PyValue::Dict(_) | PyValue::DictView(_)) => {
            let mut items = interp.collect(v)?;
            items.reverse();
            PyIter::Values { items: Rc::new(items), index: 0 }
        }
        other => return Err(exc(ExcClass::TypeError, format!("'{}' object is not reversible", other.type_name()))),
    };
    Ok(PyValue::Iter(Rc::new(RefCell::new(it))))
}

/// `divmod(a, b)`.
pub(super) fn divmod(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("divmod", args, 2, 2)?;
    let q = interp.binop(BinOp::FloorDiv, &args[0], &args[1])?;
    let r = interp.binop(BinOp::Mod, &args[0], &args[1])?;
    Ok(PyValue::tuple(vec![q, r]))
}

/// `pow(base, exp[, mod])`.
pub(super) fn pow(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("pow", args, 2, 3)?;
    if args.len() == 2 || matches!(args[2], PyValue::None) {
        return interp.binop(BinOp::Pow, &args[0], &args[1]);
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

/// `map(func, *iterables)`.
pub(super) fn map(interp: &mut Interp<'_>, mut args: Vec<PyValue>) -> Res<PyValue> {
    if args.len() < 2 {
        return Err(exc(ExcClass::TypeError, "map() must have at least two arguments."));
    }
    let func = args.remove(0);
    let mut inners = Vec::with_capacity(args.len());
    for a in &args {
        inners.push(interp.iter_of(a)?);
    }
    Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Map { func, inners }))))
}

/// `filter(func, iterable)`.
pub(super) fn filter(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("filter", args, 2, 2)?;
    let inner = interp.iter_of(&args[1])?;
    Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Filter { func: args[0].clone(), inner: Box::new(inner) }))))
}

/// `iter(x)`: an iterator is returned as it is.
pub(super) fn iter(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("iter", args, 1, 1)?;
    if let PyValue::Iter(_) = &args[0] {
        return Ok(args[0].clone());
    }
    let it = interp.iter_of(&args[0])?;
    Ok(PyValue::Iter(Rc::new(RefCell::new(it))))
}

/// `next(iterator[, default])`.
pub(super) fn next(interp: &mut Interp<'_>, args: &[PyValue]) -> Res<PyValue> {
    arity("next", args, 1, 2)?;
    let PyValue::Iter(_) = &args[0] else {
        return Err(exc(ExcClass::TypeError, format!("'{}' object is not an iterator", args[0].type_name())));
    };
    let mut it = interp.iter_of(&args[0])?;
    match interp.next(&mut it)? {
        Some(v) => Ok(v),
        None => args.get(1).cloned().ok_or_else(|| exc(ExcClass::StopIteration, "")),
    }
}

/// `round(x[, ndigits])`, halves to even.
pub(super) fn round(args: &[PyValue]) -> Res<PyValue> {
    arity("round", args, 1, 2)?;
    let digits = args.get(1).filter(|d| !matches!(d, PyValue::None)).map(to_index).transpose()?;
    match (&args[0], digits) {
        (v, None) if v.is_int() => Ok(PyValue::Int(v.as_i64().unwrap_or(0))).map(|r| if let PyValue::Big(_) = v { v.clone() } else { r }),
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

/// `chr(i)`.
pub(super) fn chr(args: &[PyValue]) -> Res<PyValue> {
    arity("chr", args, 1, 1)?;
    let code = to_index(&args[0])?;
    match u32::try_from(code).ok().and_then(char::from_u32) {
        Some(c) => Ok(PyValue::str(c.encode_utf8(&mut [0u8; 4]))),
        None => Err(exc(ExcClass::ValueError, "chr() arg not in range(0x110000)")),
    }
}

/// `ord(c)`.
pub(super) fn ord(args: &[PyValue]) -> Res<PyValue> {
    arity("ord", args, 1, 1)?;
    match &args[0] {
        PyValue::Str(s) if s.chars().count() == 1 => Ok(PyValue::Int(s.chars().next().map(|c| c as i64).unwrap_or(0))),
        PyValue::Str(s) => {
            Err(exc(ExcClass::TypeError, format!("ord() expected a character, but string of length {} found", s.chars().count())))
        }
        other => Err(exc(ExcClass::TypeError, format!("ord() expected string of length 1, but {} found", other.type_name()))),
    }
}

/// `bin(i)` / `hex(i)`.
pub(super) fn bin_hex(b: Builtin, args: &[PyValue]) -> Res<PyValue> {
    arity(b.name(), args, 1, 1)?;
    let Some(v) = args[0].to_bigint() else {
        return Err(exc(ExcClass::TypeError, format!("'{}' object cannot be interpreted as an integer", args[0].type_name())));
    };
    let (sign, mag) = if v.is_negative() { ("-", -v) } else { ("", v) };
    let text = if b == Builtin::Bin { format!("{sign}0b{}", mag.to_str_radix(2)) } else { format!("{sign}0x{}", mag.to_str_radix(16)) };
    Ok(PyValue::str(&text))
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
