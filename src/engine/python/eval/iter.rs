//! Iteration: the iterator over any iterable, the protocol that advances it (ranges, live lists, dicts and sets
//! that detect changes during iteration, `enumerate`, `zip`, `map`, `filter`, shared iterator objects), the
//! read-out of a whole iterable, and comprehensions, which drive it.

use super::{exc, Frame, Interp, Res};
use crate::engine::python::ast::{BinOp, Comprehension, Expr};
use crate::engine::python::value::dict::Dict;
use crate::engine::python::error::ExcClass;
use crate::engine::python::value::set::PySet;
use crate::engine::python::value::{PyIter, PyValue, ViewKind};

/// What a comprehension produces.
pub(crate) enum Sink<'a> {
    List(&'a mut Vec<PyValue>),
    Set(&'a mut PySet),
    Dict(&'a mut Dict),
    /// `any(...)` / `all(...)` over a generator: stop at the first truthy / falsy item.
    Any(&'a mut bool),
    All(&'a mut bool),
}

impl Interp<'_> {
    pub(crate) fn comprehension(
        &mut self,
        f: &mut Frame,
        gens: &[Comprehension],
        level: usize,
        elt: &Expr,
        value: Option<&Expr>,
        sink: &mut Sink<'_>,
    ) -> Res<bool> {
        let Some(gen) = gens.get(level) else {
            let v = self.eval(f, elt)?;
            match sink {
                Sink::List(out) => {
                    self.charge(1)?;
                    out.push(v);
                }
                Sink::Set(out) => {
                    let hk = v.hash_key()?;
                    if out.insert(hk, v) {
                        self.charge(1)?;
                    }
                }
                Sink::Dict(out) => {
                    let val = match value {
                        Some(e) => self.eval(f, e)?,
                        None => PyValue::None,
                    };
                    let hk = v.hash_key()?;
                    if out.insert(hk, v, val) {
                        self.charge(1)?;
                    }
                }
                Sink::Any(found) => {
                    if v.truthy() {
                        **found = true;
                        return Ok(true);
                    }
                }
                Sink::All(ok) => {
                    if !v.truthy() {
                        **ok = false;
                        return Ok(true);
                    }
                }
            }
            return Ok(false);
        };
        let iterable = self.eval(f, &gen.iter)?;
        let mut it = self.iter_of(&iterable)?;
        'items: while let Some(item) = self.next(&mut it)? {
            self.tick()?;
            self.assign(f, &gen.target, item)?;
            for cond in &gen.ifs {
                if !self.eval(f, cond)?.truthy() {
                    continue 'items;
                }
            }
            if self.comprehension(f, gens, level + 1, elt, value, sink)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// An iterator over any iterable value.
    pub(crate) fn iter_of(&mut self, v: &PyValue) -> Res<PyIter> {
        Ok(match v {
            PyValue::List(l) => PyIter::List { list: l.clone(), index: 0 },
            PyValue::Tuple(t) => PyIter::Values { items: t.clone(), index: 0 },
            PyValue::Str(s) => PyIter::Str { text: s.clone(), byte: 0 },
            PyValue::Range(r) => PyIter::Range { next: r.start, remaining: r.len(), step: r.step },
            PyValue::Dict(d) => {
                let version = d.borrow().version;
                PyIter::Dict { dict: d.clone(), index: 0, version, kind: ViewKind::Keys }
            }
            PyValue::DictView(view) => {
                let version = view.0.borrow().version;
                PyIter::Dict { dict: view.0.clone(), index: 0, version, kind: view.1 }
            }
            PyValue::Set(s) => {
                let version = s.borrow().version;
                PyIter::Set { set: s.clone(), index: 0, version }
            }
            PyValue::Iter(it) => PyIter::Shared(it.clone()),
            other => return Err(exc(ExcClass::TypeError, format!("'{}' object is not iterable", other.type_name()))),
        })
    }

    /// The next item of an iterator.
    pub(crate) fn next(&mut self, it: &mut PyIter) -> Res<Option<PyValue>> {
        match it {
            PyIter::Range { next, remaining, step } => {
                if *remaining <= 0 {
                    return Ok(None);
                }
                let v = *next;
                *remaining -= 1;
                *next = next.wrapping_add(*step);
                Ok(Some(PyValue::Int(v)))
            }
            PyIter::List { list, index } => {
                let item = list.borrow().get(*index).cloned();
                *index += 1;
                Ok(item)
            }
            PyIter::Values { items, index } => {
                let item = items.get(*index).cloned();
                *index += 1;
                Ok(item)
            }
            PyIter::Str { text, byte } => {
                let Some(c) = text.get(*byte..).and_then(|rest| rest.chars().next()) else { return Ok(None) };
                *byte += c.len_utf8();
                Ok(Some(PyValue::str(c.encode_utf8(&mut [0u8; 4]))))
            }
            PyIter::Dict { dict, index, version, kind } => {
                let d = dict.borrow();
                if d.version != *version {
                    return Err(exc(ExcClass::RuntimeError, "dictionary changed size during iteration"));
                }
                loop {
                    match d.slot(*index) {
                        None => return Ok(None),
                        Some(None) => *index += 1,
                        Some(Some((k, v))) => {
                            *index += 1;
                            return Ok(Some(match kind {
                                ViewKind::Keys => k.clone(),
                                ViewKind::Values => v.clone(),
                                ViewKind::Items => PyValue::tuple(vec![k.clone(), v.clone()]),
                            }));
                        }
                    }
                }
            }
            PyIter::Set { set, index, version } => {
                let s = set.borrow();
                if s.version != *version {
                    return Err(exc(ExcClass::RuntimeError, "Set changed size during iteration"));
                }
                loop {
                    match s.slot(*index) {
                        None => return Ok(None),
                        Some(None) => *index += 1,
                        Some(Some(v)) => {
                            *index += 1;
                            return Ok(Some(v.clone()));
                        }
                    }
                }
            }
            PyIter::Enumerate { inner, count } => {
                let Some(item) = self.next(inner)? else { return Ok(None) };
                let c = count.clone();
                *count = self.binop(BinOp::Add, &c, &PyValue::Int(1))?;
                Ok(Some(PyValue::tuple(vec![c, item])))
            }
            PyIter::Zip { inners } => {
                if inners.is_empty() {
                    return Ok(None);
                }
                let mut items = Vec::with_capacity(inners.len());
                for inner in inners.iter_mut() {
                    match self.next(inner)? {
                        Some(x) => items.push(x),
                        None => return Ok(None),
                    }
                }
                Ok(Some(PyValue::tuple(items)))
            }
            PyIter::ReversedList { list, index } => {
                if *index == 0 {
                    return Ok(None);
                }
                *index -= 1;
                let item = list.borrow().get(*index).cloned();
                if item.is_none() {
                    *index = 0;
                }
                Ok(item)
            }
            PyIter::Map { func, inners } => {
                let mut args = Vec::with_capacity(inners.len());
                for inner in inners.iter_mut() {
                    match self.next(inner)? {
                        Some(x) => args.push(x),
                        None => return Ok(None),
                    }
                }
                let func = func.clone();
                self.call_value(&func, args, Vec::new()).map(Some)
            }
            PyIter::Filter { func, inner } => loop {
                let Some(item) = self.next(inner)? else { return Ok(None) };
                let keep = if matches!(func, PyValue::None) {
                    item.truthy()
                } else {
                    let func = func.clone();
                    self.call_value(&func, vec![item.clone()], Vec::new())?.truthy()
                };
                if keep {
                    return Ok(Some(item));
                }
                self.tick()?;
            },
            PyIter::Shared(shared) => {
                // Take the state out while advancing, so re-entrant use sees an exhausted iterator instead of a
                // double borrow.
                let mut state = match shared.try_borrow_mut() {
                    Ok(mut s) => std::mem::replace(&mut *s, PyIter::Done),
                    Err(_) => return Err(exc(ExcClass::ValueError, "generator already executing")),
                };
                let result = self.next(&mut state);
                if let Ok(mut s) = shared.try_borrow_mut() {
                    *s = state;
                }
                result
            }
            PyIter::Done => Ok(None),
        }
    }

    /// All items of an iterable, charging steps.
    #[inline(never)]
    pub(crate) fn collect(&mut self, v: &PyValue) -> Res<Vec<PyValue>> {
        match v {
            PyValue::List(l) => {
                let items = l.borrow().clone();
                self.tick_n(items.len() as u64 / 8)?;
                Ok(items)
            }
            PyValue::Tuple(t) => {
                self.tick_n(t.len() as u64 / 8)?;
                Ok(t.to_vec())
            }
            PyValue::Range(r) => {
                let n = r.len() as u64;
                if n > self.limits.max_memory {
                    return Err(self.mem_error());
                }
                self.tick_n(n / 8)?;
                Ok((0..r.len()).map(|i| PyValue::Int(r.item(i))).collect())
            }
            _ => {
                let mut it = self.iter_of(v)?;
                let mut out = Vec::new();
                while let Some(x) = self.next(&mut it)? {
                    self.tick()?;
                    if out.len() as u64 > self.limits.max_memory {
                        return Err(self.mem_error());
                    }
                    out.push(x);
                }
                Ok(out)
            }
        }
    }
}
