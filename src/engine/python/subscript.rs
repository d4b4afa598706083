//! Subscripts with Python semantics: indexing (negative indices count from the end), slicing with any step
//! (including slice assignment, which may resize a list for step 1, and deletion), on lists, tuples, strings,
//! ranges and dicts.

use std::rc::Rc;

use num_traits::Signed;

use super::ast::Expr;
use super::error::ExcClass;
use super::eval::{exc, Frame, Interp, Res};
use super::value::*;

impl Interp<'_> {
    fn index_of(&self, idx: &PyValue, len: usize, what: &str) -> Res<usize> {
        let i = match idx {
            PyValue::Int(i) => *i,
            PyValue::Bool(b) => *b as i64,
            PyValue::Big(_) => return Err(exc(ExcClass::IndexError, "cannot fit 'int' into an index-sized integer")),
            other => return Err(exc(ExcClass::TypeError, format!("{what} indices must be integers or slices, not {}", other.type_name()))),
        };
        let len = len as i64;
        let j = if i < 0 { i + len } else { i };
        if j < 0 || j >= len {
            return Err(exc(ExcClass::IndexError, format!("{what} index out of range")));
        }
        Ok(j as usize)
    }

    /// `obj[idx]` for a non-slice index.
    pub(crate) fn get_item(&mut self, obj: &PyValue, idx: &PyValue) -> Res<PyValue> {
        match obj {
            PyValue::List(l) => {
                let l = l.borrow();
                if let PyValue::Int(i) = idx {
                    let len = l.len() as i64;
                    let j = if *i < 0 { *i + len } else { *i };
                    if j >= 0 && j < len {
                        return Ok(l[j as usize].clone());
                    }
                }
                let j = self.index_of(idx, l.len(), "list")?;
                Ok(l[j].clone())
            }
            PyValue::Tuple(t) => {
                let j = self.index_of(idx, t.len(), "tuple")?;
                Ok(t[j].clone())
            }
            PyValue::Str(s) => {
                let n = s.chars().count();
                let j = self.index_of(idx, n, "string")?;
                Ok(PyValue::str(&s.chars().nth(j).map(String::from).unwrap_or_default()))
            }
            PyValue::Range(r) => {
                let j = self.index_of(idx, r.len() as usize, "range object")?;
                Ok(PyValue::Int(r.item(j as i64)))
            }
            PyValue::Dict(d) => {
                let hk = idx.hash_key()?;
                match d.borrow().get(&hk) {
                    Some(v) => Ok(v.clone()),
                    None => Err(exc(ExcClass::KeyError, idx.repr())),
                }
            }
            other => Err(exc(ExcClass::TypeError, format!("'{}' object is not subscriptable", other.type_name()))),
        }
    }

    /// `obj[idx] = v`.
    #[inline(never)]
    pub(crate) fn set_item(&mut self, obj: &PyValue, idx: PyValue, v: PyValue) -> Res<()> {
        match obj {
            PyValue::List(l) => {
                let len = l.borrow().len();
                let j = self.index_of(&idx, len, "list").map_err(|e| match e {
                    super::error::RunError::Exception(mut p) if p.class == ExcClass::IndexError => {
                        p.message = "list assignment index out of range".into();
                        super::error::RunError::Exception(p)
                    }
                    other => other,
                })?;
                let old = std::mem::replace(&mut l.borrow_mut()[j], v);
                release(old);
                Ok(())
            }
            PyValue::Dict(d) => {
                let hk = idx.hash_key()?;
                if d.borrow_mut().insert(hk, idx, v) {
                    self.charge(1)?;
                }
                Ok(())
            }
            other => Err(exc(ExcClass::TypeError, format!("'{}' object does not support item assignment", other.type_name()))),
        }
    }

    pub(crate) fn del_item(&mut self, obj: &PyValue, idx: &PyValue) -> Res<()> {
        match obj {
            PyValue::List(l) => {
                let len = l.borrow().len();
                let j = self.index_of(idx, len, "list").map_err(|e| match e {
                    super::error::RunError::Exception(mut p) if p.class == ExcClass::IndexError => {
                        p.message = "list assignment index out of range".into();
                        super::error::RunError::Exception(p)
                    }
                    other => other,
                })?;
                l.borrow_mut().remove(j);
                Ok(())
            }
            PyValue::Dict(d) => {
                let hk = idx.hash_key()?;
                match d.borrow_mut().remove(&hk) {
                    Some(_) => Ok(()),
                    None => Err(exc(ExcClass::KeyError, idx.repr())),
                }
            }
            other => Err(exc(ExcClass::TypeError, format!("'{}' object doesn't support item deletion", other.type_name()))),
        }
    }

    pub(crate) fn eval_slice_parts(
        &mut self,
        f: &mut Frame,
        lower: &Option<Box<Expr>>,
        upper: &Option<Box<Expr>>,
        step: &Option<Box<Expr>>,
    ) -> Res<(PyValue, PyValue, PyValue)> {
        let mut part = |interp: &mut Self, e: &Option<Box<Expr>>| match e {
            Some(e) => interp.eval(f, e),
            None => Ok(PyValue::None),
        };
        let lo = part(self, lower)?;
        let up = part(self, upper)?;
        let st = part(self, step)?;
        Ok((lo, up, st))
    }

    /// Python's slice index adjustment: (start, step, count).
    fn slice_indices(&self, len: usize, lo: &PyValue, up: &PyValue, st: &PyValue) -> Res<(i64, i64, usize)> {
        fn bound(v: &PyValue) -> Res<Option<i64>> {
            match v {
                PyValue::None => Ok(None),
                PyValue::Big(b) => Ok(Some(if b.is_negative() { i64::MIN / 2 } else { i64::MAX / 2 })),
                other => match other.as_i64() {
                    Some(i) => Ok(Some(i.clamp(i64::MIN / 2, i64::MAX / 2))),
                    None => Err(exc(ExcClass::TypeError, "slice indices must be integers or None or have an __index__ method")),
                },
            }
        }
        let step = bound(st)?.unwrap_or(1);
        if step == 0 {
            return Err(exc(ExcClass::ValueError, "slice step cannot be zero"));
        }
        let len = len as i64;
        let adjust = |v: Option<i64>, default: i64| -> i64 {
            match v {
                None => default,
                Some(mut i) => {
                    if i < 0 {
                        i += len;
                        if i < 0 {
                            i = if step < 0 { -1 } else { 0 };
                        }
                    } else if i >= len {
                        i = if step < 0 { len - 1 } else { len };
                    }
                    i
                }
            }
        };
        let (start, stop) =
            if step > 0 { (adjust(bound(lo)?, 0), adjust(bound(up)?, len)) } else { (adjust(bound(lo)?, len - 1), adjust(bound(up)?, -1)) };
        let count = if step < 0 {
            if stop < start {
                (start - stop - 1) / (-step) + 1
            } else {
                0
            }
        } else if start < stop {
            (stop - start - 1) / step + 1
        } else {
            0
        };
        Ok((start, step, count as usize))
    }

    fn pick<T: Clone>(items: &[T], start: i64, step: i64, count: usize) -> Vec<T> {
        (0..count).map(|k| items[(start + step * k as i64) as usize].clone()).collect()
    }

    #[inline(never)]
    pub(crate) fn get_slice(&mut self, obj: &PyValue, lo: &PyValue, up: &PyValue, st: &PyValue) -> Res<PyValue> {
        match obj {
            PyValue::List(l) => {
                let l = l.borrow();
                let (start, step, count) = self.slice_indices(l.len(), lo, up, st)?;
                let out = Self::pick(&l, start, step, count);
                drop(l);
                self.charge(count as u64)?;
                Ok(PyValue::list(out))
            }
            PyValue::Tuple(t) => {
                let (start, step, count) = self.slice_indices(t.len(), lo, up, st)?;
                self.charge(count as u64)?;
                Ok(PyValue::tuple(Self::pick(t, start, step, count)))
            }
            PyValue::Str(s) => {
                let chars: Vec<char> = s.chars().collect();
                let (start, step, count) = self.slice_indices(chars.len(), lo, up, st)?;
                self.charge(count as u64 / 8)?;
                Ok(PyValue::str(&Self::pick(&chars, start, step, count).into_iter().collect::<String>()))
            }
            PyValue::Range(r) => {
                let (start, step, count) = self.slice_indices(r.len() as usize, lo, up, st)?;
                let new_start = r.item(start.max(0));
                let new_step = r.step.saturating_mul(step);
                let stop = new_start.saturating_add(new_step.saturating_mul(count as i64));
                Ok(PyValue::Range(Rc::new(RangeVal {
                    start: if count == 0 { r.start } else { new_start },
                    stop: if count == 0 { r.start } else { stop },
                    step: new_step,
                })))
            }
            other => Err(exc(ExcClass::TypeError, format!("'{}' object is not subscriptable", other.type_name()))),
        }
    }

    #[inline(never)]
    pub(crate) fn set_slice(&mut self, obj: &PyValue, lo: &PyValue, up: &PyValue, st: &PyValue, v: PyValue) -> Res<()> {
        let PyValue::List(l) = obj else {
            return Err(exc(ExcClass::TypeError, format!("'{}' object does not support item assignment", obj.type_name())));
        };
        let items = self.collect(&v).map_err(|e| match e {
            super::error::RunError::Exception(mut p) if p.class == ExcClass::TypeError => {
                p.message = "can only assign an iterable".into();
                super::error::RunError::Exception(p)
            }
            other => other,
        })?;
        let len = l.borrow().len();
        let (start, step, count) = self.slice_indices(len, lo, up, st)?;
        if step == 1 {
            let start = start.clamp(0, len as i64) as usize;
            let stop = (start + count).min(len);
            self.charge(items.len() as u64)?;
            l.borrow_mut().splice(start..stop, items);
            return Ok(());
        }
        if items.len() != count {
            return Err(exc(
                ExcClass::ValueError,
                format!("attempt to assign sequence of size {} to extended slice of size {count}", items.len()),
            ));
        }
        let mut l = l.borrow_mut();
        for (k, item) in items.into_iter().enumerate() {
            let j = (start + step * k as i64) as usize;
            l[j] = item;
        }
        Ok(())
    }

    pub(crate) fn del_slice(&mut self, obj: &PyValue, lo: &PyValue, up: &PyValue, st: &PyValue) -> Res<()> {
        let PyValue::List(l) = obj else {
            return Err(exc(ExcClass::TypeError, format!("'{}' object doesn't support item deletion", obj.type_name())));
        };
        let len = l.borrow().len();
        let (start, step, count) = self.slice_indices(len, lo, up, st)?;
        let mut doomed: Vec<usize> = (0..count).map(|k| (start + step * k as i64) as usize).collect();
        doomed.sort_unstable();
        let mut l = l.borrow_mut();
        let mut k = 0;
        let mut i = 0;
        l.retain(|_| {
            let keep = !(k < doomed.len() && doomed[k] == i);
            if !keep {
                k += 1;
            }
            i += 1;
            keep
        });
        Ok(())
    }
}
