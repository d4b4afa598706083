//! The methods of lists, dicts, sets and tuples (strings have theirs in `str_methods`), one function per
//! receiver type, with CPython's argument checks and messages and, for sets, CPython's table algorithms
//! (`intersection` walks the smaller set, `difference` copies a much larger set first).

use std::cell::RefCell;
use std::rc::Rc;

use super::convert::{add_to_set, SetSource};
use super::{arity, no_kwargs, take_kw, to_index, Qual};
use crate::engine::python::compare::py_eq;
use crate::engine::python::value::dict::Dict;
use crate::engine::python::error::ExcClass;
use crate::engine::python::eval::{exc, Interp, Res};
use crate::engine::python::value::set::PySet;
use crate::engine::python::value::{ListRef, PyValue, ViewKind};

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

/// `list.<name>(...)`.
pub(super) fn list_method(
    interp: &mut Interp<'_>,
    l: &ListRef,
    name: &str,
    qual: Qual<'_>,
    mut args: Vec<PyValue>,
    mut kwargs: Vec<(String, PyValue)>,
) -> Res<PyValue> {
    match name {
        "append" => {
            arity(qual, &args, 1, 1)?;
            interp.charge(1)?;
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
            interp.charge(1)?;
            let v = args.pop().unwrap_or(PyValue::None);
            l.borrow_mut().insert(j as usize, v);
            Ok(PyValue::None)
        }
        "extend" => {
            arity(qual, &args, 1, 1)?;
            let items = interp.collect(&args[0])?;
            interp.charge(items.len() as u64)?;
            l.borrow_mut().extend(items);
            Ok(PyValue::None)
        }
        "sort" => {
            arity(qual, &args, 0, 0)?;
            let key = take_kw(&mut kwargs, "key");
            let reverse = take_kw(&mut kwargs, "reverse").map(|r| r.truthy()).unwrap_or(false);
            no_kwargs(qual, &kwargs)?;
            let items = std::mem::take(&mut *l.borrow_mut());
            let sorted = interp.sort_values(items.clone(), key.as_ref(), reverse);
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
            let (start, stop) = search_bounds(&args, items.len())?;
            for (i, x) in items.iter().enumerate().take(stop).skip(start) {
                interp.tick()?;
                if py_eq(x, &args[0])? {
                    return Ok(PyValue::Int(i as i64));
                }
            }
            Err(exc(ExcClass::ValueError, format!("{} is not in list", args[0].repr())))
        }
        "count" => {
            arity(qual, &args, 1, 1)?;
            let items = l.borrow().clone();
            interp.tick_n(items.len() as u64 / 8)?;
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
            interp.charge(items.len() as u64)?;
            Ok(PyValue::list(items))
        }
        _ => {
            arity(qual, &args, 0, 0)?;
            l.borrow_mut().clear();
            Ok(PyValue::None)
        }
    }
}

/// `dict.<name>(...)`.
pub(super) fn dict_method(interp: &mut Interp<'_>, d: &Rc<RefCell<Dict>>, name: &str, qual: Qual<'_>, args: Vec<PyValue>) -> Res<PyValue> {
    match name {
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
            interp.charge(1)?;
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
            interp.charge(copy.len() as u64)?;
            Ok(PyValue::Dict(Rc::new(RefCell::new(copy))))
        }
        "update" => {
            arity(qual, &args, 1, 1)?;
            let pairs = match &args[0] {
                PyValue::Dict(src) => src.borrow().pairs(),
                other => {
                    let mut pairs = Vec::new();
                    for pair in interp.collect(other)? {
                        let kv = interp.collect(&pair)?;
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
                    interp.charge(1)?;
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
    }
}

/// `set.<name>(...)`.
pub(super) fn set_method(interp: &mut Interp<'_>, s: &Rc<RefCell<PySet>>, name: &str, qual: Qual<'_>, args: Vec<PyValue>) -> Res<PyValue> {
    match name {
        "add" => {
            arity(qual, &args, 1, 1)?;
            let hk = args[0].hash_key()?;
            if s.borrow_mut().insert(hk, args[0].clone()) {
                interp.charge(1)?;
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
            interp.charge(copy.len() as u64)?;
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
                let source = interp.set_source(a)?;
                let before = s.borrow().len();
                let added = add_to_set(&mut s.borrow_mut(), source);
                interp.charge((s.borrow().len() - before) as u64)?;
                added?;
            }
            Ok(PyValue::None)
        }
        "union" => {
            let mut acc = PySet::new();
            acc.merge(&s.borrow());
            for a in &args {
                let source = interp.set_source(a)?;
                add_to_set(&mut acc, source)?;
            }
            interp.charge(acc.len() as u64)?;
            Ok(PyValue::Set(Rc::new(RefCell::new(acc))))
        }
        "issubset" | "issuperset" => {
            arity(qual, &args, 1, 1)?;
            let mut other = PySet::new();
            for item in interp.collect(&args[0])? {
                other.insert(item.hash_key()?, item);
            }
            let this = s.borrow();
            Ok(PyValue::Bool(if name == "issubset" {
                this.keys().all(|k| other.contains(k))
            } else {
                other.keys().all(|k| this.contains(k))
            }))
        }
        "intersection" => set_intersection(interp, s, &args),
        _ => set_difference(interp, s, &args),
    }
}

/// `s.intersection(*others)`.
fn set_intersection(interp: &mut Interp<'_>, s: &Rc<RefCell<PySet>>, args: &[PyValue]) -> Res<PyValue> {
    // CPython's set_intersection_multi: intersect with each argument in turn; a set argument
    // walks the smaller side, any other iterable is walked in its own order.
    let mut acc = PySet::new();
    acc.merge(&s.borrow());
    let mut acc_is_self = true;
    for a in args {
        acc = match interp.set_source(a)? {
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
    interp.charge(acc.len() as u64)?;
    Ok(PyValue::Set(Rc::new(RefCell::new(acc))))
}

/// `s.difference(*others)`.
fn set_difference(interp: &mut Interp<'_>, s: &Rc<RefCell<PySet>>, args: &[PyValue]) -> Res<PyValue> {
    // CPython's set_difference_multi: a difference with the first argument, then in-place removal
    // of each further argument's elements.
    let mut acc: Option<PySet> = None;
    for a in args {
        let source = interp.set_source(a)?;
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
    interp.charge(acc.len() as u64)?;
    Ok(PyValue::Set(Rc::new(RefCell::new(acc))))
}

/// `tuple.index(...)` / `tuple.count(...)`.
pub(super) fn tuple_method(t: &Rc<Vec<PyValue>>, name: &str, qual: Qual<'_>, args: &[PyValue]) -> Res<PyValue> {
    match name {
        "index" => {
            arity(qual, args, 1, 3)?;
            let (start, stop) = search_bounds(args, t.len())?;
            for (i, x) in t.iter().enumerate().take(stop).skip(start) {
                if py_eq(x, &args[0])? {
                    return Ok(PyValue::Int(i as i64));
                }
            }
            Err(exc(ExcClass::ValueError, "tuple.index(x): x not in tuple"))
        }
        _ => {
            arity(qual, args, 1, 1)?;
            let mut n = 0;
            for x in t.iter() {
                if py_eq(x, &args[0])? {
                    n += 1;
                }
            }
            Ok(PyValue::Int(n))
        }
    }
}

/// The `start` and `stop` arguments of `index`, clamped to the sequence like slice bounds.
fn search_bounds(args: &[PyValue], len: usize) -> Res<(usize, usize)> {
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
