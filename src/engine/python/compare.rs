//! Python's comparisons of values: `==` (numbers across int/bool/float, containers element-wise, dicts and
//! sets by content), the rich orderings `<`, `<=`, `>`, `>=` (numbers exactly across int and float, strings,
//! lists and tuples lexicographically, sets by inclusion) and the total order `sorted`, `min` and `max` use.

use std::cmp::Ordering;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{FromPrimitive, ToPrimitive};

use super::ast::CmpOp;
use super::error::{ExcClass, PyError};
use super::value::set::PySet;
use super::value::{PyValue, ViewKind, MAX_COMPARE_DEPTH};

/// `a == b` with Python semantics (numbers across int/bool/float, containers element-wise).
pub fn py_eq(a: &PyValue, b: &PyValue) -> Result<bool, PyError> {
    eq_depth(a, b, 0)
}

fn eq_depth(a: &PyValue, b: &PyValue, depth: u32) -> Result<bool, PyError> {
    use PyValue as V;
    if depth > MAX_COMPARE_DEPTH {
        return Err(PyError::new(ExcClass::RecursionError, "maximum recursion depth exceeded in comparison"));
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
pub fn py_order(a: &PyValue, b: &PyValue, op: CmpOp) -> Result<bool, PyError> {
    order_depth(a, b, op, 0)
}

fn apply_ord(ord: Ordering, op: CmpOp) -> bool {
    use CmpOp::*;
    match op {
        Lt => ord == Ordering::Less,
        LtE => ord != Ordering::Greater,
        Gt => ord == Ordering::Greater,
        GtE => ord != Ordering::Less,
        Eq => ord == Ordering::Equal,
        _ => ord != Ordering::Equal,
    }
}

fn order_depth(a: &PyValue, b: &PyValue, op: CmpOp, depth: u32) -> Result<bool, PyError> {
    use PyValue as V;
    if depth > MAX_COMPARE_DEPTH {
        return Err(PyError::new(ExcClass::RecursionError, "maximum recursion depth exceeded in comparison"));
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
            use CmpOp::*;
            let (x, y) = (x.borrow(), y.borrow());
            let subset = |p: &PySet, q: &PySet| p.keys().all(|k| q.contains(k));
            Ok(match op {
                LtE => subset(&x, &y),
                Lt => x.len() < y.len() && subset(&x, &y),
                GtE => subset(&y, &x),
                _ => y.len() < x.len() && subset(&y, &x),
            })
        }
        _ => Err(PyError::new(
            ExcClass::TypeError,
            format!("'{}' not supported between instances of '{}' and '{}'", op.symbol(), a.type_name(), b.type_name()),
        )),
    }
}

fn seq_order(x: &[PyValue], y: &[PyValue], op: CmpOp, depth: u32) -> Result<bool, PyError> {
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
    py_order(a, b, CmpOp::Lt)
}

/// Python's `is`: identity for containers and functions, value for None, bools and small ints.
pub fn is_same(a: &PyValue, b: &PyValue) -> bool {
    match (a, b) {
        (PyValue::None, PyValue::None) => true,
        (PyValue::Bool(x), PyValue::Bool(y)) => x == y,
        (PyValue::Int(x), PyValue::Int(y)) => x == y,
        (PyValue::Str(x), PyValue::Str(y)) => x == y,
        (PyValue::List(x), PyValue::List(y)) => Rc::ptr_eq(x, y),
        (PyValue::Tuple(x), PyValue::Tuple(y)) => Rc::ptr_eq(x, y),
        (PyValue::Dict(x), PyValue::Dict(y)) => Rc::ptr_eq(x, y),
        (PyValue::Set(x), PyValue::Set(y)) => Rc::ptr_eq(x, y),
        (PyValue::Func(x), PyValue::Func(y)) => Rc::ptr_eq(x, y),
        (PyValue::Builtin(x), PyValue::Builtin(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_compare_lexicographically_and_mixed_types_raise() {
        let t = |a: i64, b: i64| PyValue::tuple(vec![PyValue::Int(a), PyValue::Int(b)]);
        assert_eq!(py_less(&t(1, 5), &t(2, 0)), Ok(true));
        assert_eq!(py_less(&t(1, 5), &t(1, 4)), Ok(false));
        assert_eq!(py_less(&PyValue::Int(1), &PyValue::str("a")).map_err(|e| e.class), Err(ExcClass::TypeError));
        assert_eq!(py_eq(&PyValue::Int(1), &PyValue::Float(1.0)), Ok(true));
    }
}
