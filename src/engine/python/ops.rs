//! Operators with Python semantics: exact int arithmetic (i64 fast path, big ints beyond, floor division and
//! modulo toward negative infinity), float arithmetic, sequence concatenation/repetition, set algebra and the
//! unary operators. Indexing and slicing live in `subscript`.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

use super::ast::{BinOp, UnaryOp};
use super::error::ExcClass;
use super::eval::{exc, Interp, Res};
use super::value::set::PySet;
use super::value::*;
use crate::engine::value::float_divmod;

impl Interp<'_> {
    fn to_f64(&self, v: &PyValue) -> Res<f64> {
        Ok(match v {
            PyValue::Float(f) => *f,
            PyValue::Int(i) => *i as f64,
            PyValue::Bool(b) => *b as i64 as f64,
            PyValue::Big(b) => {
                let f = big_to_f64(b);
                if f.is_infinite() {
                    return Err(exc(ExcClass::OverflowError, "int too large to convert to float"));
                }
                f
            }
            other => return Err(exc(ExcClass::TypeError, format!("must be real number, not {}", other.type_name()))),
        })
    }

    fn big_result(&mut self, b: BigInt) -> Res<PyValue> {
        let bits = b.bits();
        if bits > 64 {
            if bits > self.limits.max_int_bits {
                return Err(self.mem_error());
            }
            self.charge(bits / 64)?;
            self.tick_n(bits / 1024)?;
        }
        Ok(PyValue::from_bigint(b))
    }

    /// `a op b`.
    pub(crate) fn binop(&mut self, op: BinOp, a: &PyValue, b: &PyValue) -> Res<PyValue> {
        if let (PyValue::Int(x), PyValue::Int(y)) = (a, b) {
            let (x, y) = (*x, *y);
            let fast = match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::FloorDiv if y != 0 && !(x == i64::MIN && y == -1) => Some(Integer::div_floor(&x, &y)),
                BinOp::Mod if y != 0 && y != -1 => Some(Integer::mod_floor(&x, &y)),
                BinOp::BitAnd => Some(x & y),
                BinOp::BitOr => Some(x | y),
                BinOp::BitXor => Some(x ^ y),
                BinOp::RShift if (0..64).contains(&y) => Some(x >> y),
                _ => None,
            };
            if let Some(r) = fast {
                return Ok(PyValue::Int(r));
            }
        }
        self.binop_slow(op, a, b)
    }

    #[inline(never)]
    fn binop_slow(&mut self, op: BinOp, a: &PyValue, b: &PyValue) -> Res<PyValue> {
        use PyValue as V;
        // bool's own `&`, `|`, `^` keep the bool type; with an int operand they fall back to int arithmetic.
        if let (V::Bool(x), V::Bool(y)) = (a, b) {
            match op {
                BinOp::BitAnd => return Ok(V::Bool(x & y)),
                BinOp::BitOr => return Ok(V::Bool(x | y)),
                BinOp::BitXor => return Ok(V::Bool(x ^ y)),
                _ => {}
            }
        }
        if a.is_int() && b.is_int() {
            return self.int_op(op, a, b);
        }
        let numeric = |v: &PyValue| v.is_int() || matches!(v, V::Float(_));
        if numeric(a) && numeric(b) {
            return self.float_op(op, self.to_f64(a)?, self.to_f64(b)?);
        }
        match (op, a, b) {
            (BinOp::Add, V::Str(x), V::Str(y)) => {
                self.charge((x.len() + y.len()) as u64 / 8)?;
                let mut s = String::with_capacity(x.len() + y.len());
                s.push_str(x);
                s.push_str(y);
                Ok(V::str(&s))
            }
            (BinOp::Add, V::List(x), V::List(y)) => {
                let mut out = x.borrow().clone();
                out.extend(y.borrow().iter().cloned());
                self.charge(out.len() as u64)?;
                Ok(V::list(out))
            }
            (BinOp::Add, V::Tuple(x), V::Tuple(y)) => {
                let mut out = x.to_vec();
                out.extend(y.iter().cloned());
                self.charge(out.len() as u64)?;
                Ok(V::tuple(out))
            }
            (BinOp::Mul, V::Str(_) | V::List(_) | V::Tuple(_), _) if b.is_int() => self.repeat(a, b),
            (BinOp::Mul, _, V::Str(_) | V::List(_) | V::Tuple(_)) if a.is_int() => self.repeat(b, a),
            (BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor, V::Set(xr), V::Set(yr)) => {
                let same = Rc::ptr_eq(xr, yr);
                let (x, y) = (xr.borrow().clone(), yr.borrow().clone());
                let mut out = PySet::new();
                match op {
                    // CPython copies the left set (a merge into an empty set), then merges the right one.
                    BinOp::BitOr => {
                        out.merge(&x);
                        out.merge(&y);
                    }
                    BinOp::BitAnd if same => out.merge(&x),
                    BinOp::BitAnd => out = x.intersection(&y),
                    BinOp::Sub => out = x.difference_by(y.len(), |k| y.contains(k), || y.entries().into_iter().map(|(k, _)| k).collect()),
                    // CPython copies the right set, then toggles each element of the left one.
                    _ => {
                        out.merge(&y);
                        out.symmetric_difference_update(&x);
                    }
                }
                self.charge(out.len() as u64)?;
                Ok(V::Set(Rc::new(RefCell::new(out))))
            }
            (BinOp::BitOr, V::Dict(x), V::Dict(y)) => {
                let mut out = x.borrow().clone();
                for (k, v) in y.borrow().pairs() {
                    out.insert(k.hash_key()?, k, v);
                }
                self.charge(out.len() as u64)?;
                Ok(V::Dict(Rc::new(RefCell::new(out))))
            }
            _ => {
                let message = match (op, a) {
                    (BinOp::Add, V::Str(_)) => format!("can only concatenate str (not \"{}\") to str", b.type_name()),
                    (BinOp::Add, V::List(_)) => format!("can only concatenate list (not \"{}\") to list", b.type_name()),
                    (BinOp::Add, V::Tuple(_)) => format!("can only concatenate tuple (not \"{}\") to tuple", b.type_name()),
                    (BinOp::Mul, V::Str(_) | V::List(_) | V::Tuple(_)) => {
                        format!("can't multiply sequence by non-int of type '{}'", b.type_name())
                    }
                    (BinOp::Pow, _) => format!("unsupported operand type(s) for ** or pow(): '{}' and '{}'", a.type_name(), b.type_name()),
                    _ => format!("unsupported operand type(s) for {}: '{}' and '{}'", op.symbol(), a.type_name(), b.type_name()),
                };
                Err(exc(ExcClass::TypeError, message))
            }
        }
    }

    /// The repetition count of `seq * n` (negative counts as zero).
    pub(crate) fn repeat_count(&mut self, n: &PyValue, what: &str) -> Res<u64> {
        match n {
            PyValue::Big(b) if b.is_negative() => Ok(0),
            PyValue::Big(_) => Err(exc(ExcClass::OverflowError, "cannot fit 'int' into an index-sized integer")),
            other => match other.as_i64() {
                Some(i) => Ok(i.max(0) as u64),
                None => {
                    Err(exc(ExcClass::TypeError, format!("can't multiply sequence by non-int of type '{}' ({what})", other.type_name())))
                }
            },
        }
    }

    #[inline(never)]
    fn repeat(&mut self, seq: &PyValue, n: &PyValue) -> Res<PyValue> {
        let n = self.repeat_count(n, seq.type_name())?;
        match seq {
            PyValue::Str(s) => {
                let total = (s.len() as u64).saturating_mul(n);
                if total / 8 > self.limits.max_memory {
                    return Err(self.mem_error());
                }
                self.charge(total / 8)?;
                Ok(PyValue::str(&s.repeat(n as usize)))
            }
            PyValue::List(l) => {
                let items = l.borrow().clone();
                Ok(PyValue::list(self.repeat_items(&items, n)?))
            }
            PyValue::Tuple(t) => Ok(PyValue::tuple(self.repeat_items(t, n)?)),
            _ => Err(exc(ExcClass::TypeError, "can't multiply sequence")),
        }
    }

    fn repeat_items(&mut self, items: &[PyValue], n: u64) -> Res<Vec<PyValue>> {
        let total = (items.len() as u64).saturating_mul(n);
        if total > self.limits.max_memory {
            return Err(self.mem_error());
        }
        self.charge(total)?;
        self.tick_n(total / 16)?;
        let mut out = Vec::with_capacity(total as usize);
        for _ in 0..n {
            out.extend(items.iter().cloned());
        }
        Ok(out)
    }

    #[inline(never)]
    fn int_op(&mut self, op: BinOp, a: &PyValue, b: &PyValue) -> Res<PyValue> {
        if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
            let (x, y) = (x as i128, y as i128);
            match op {
                BinOp::Add => return Ok(PyValue::from_i128(x + y)),
                BinOp::Sub => return Ok(PyValue::from_i128(x - y)),
                BinOp::Mul => return Ok(PyValue::from_i128(x * y)),
                BinOp::FloorDiv | BinOp::Mod if y == 0 => {
                    return Err(exc(ExcClass::ZeroDivisionError, "integer division or modulo by zero"))
                }
                BinOp::FloorDiv => return Ok(PyValue::from_i128(Integer::div_floor(&x, &y))),
                BinOp::Mod => return Ok(PyValue::from_i128(Integer::mod_floor(&x, &y))),
                BinOp::BitAnd => return Ok(PyValue::from_i128(x & y)),
                BinOp::BitOr => return Ok(PyValue::from_i128(x | y)),
                BinOp::BitXor => return Ok(PyValue::from_i128(x ^ y)),
                _ => {}
            }
        }
        let (Some(x), Some(y)) = (a.to_bigint(), b.to_bigint()) else {
            return Err(exc(ExcClass::TypeError, "expected ints"));
        };
        match op {
            BinOp::Add => self.big_result(x + y),
            BinOp::Sub => self.big_result(x - y),
            BinOp::Mul => {
                if x.bits() + y.bits() > self.limits.max_int_bits {
                    return Err(self.mem_error());
                }
                self.big_result(x * y)
            }
            BinOp::FloorDiv | BinOp::Mod => {
                if y.is_zero() {
                    return Err(exc(ExcClass::ZeroDivisionError, "integer division or modulo by zero"));
                }
                if op == BinOp::FloorDiv {
                    self.big_result(x.div_floor(&y))
                } else {
                    self.big_result(x.mod_floor(&y))
                }
            }
            BinOp::Div => {
                if y.is_zero() {
                    return Err(exc(ExcClass::ZeroDivisionError, "division by zero"));
                }
                let r = true_div(&x, &y);
                if r.is_infinite() {
                    return Err(exc(ExcClass::OverflowError, "integer division result too large for a float"));
                }
                Ok(PyValue::Float(r))
            }
            BinOp::Pow => {
                if y.is_negative() {
                    if x.is_zero() {
                        return Err(exc(ExcClass::ZeroDivisionError, "0.0 cannot be raised to a negative power"));
                    }
                    return self.float_op(BinOp::Pow, self.to_f64(a)?, self.to_f64(b)?);
                }
                let one = BigInt::from(1);
                if x.is_zero() || x == one {
                    return Ok(if y.is_zero() { PyValue::Int(1) } else { PyValue::from_bigint(x) });
                }
                if x == -one.clone() {
                    return Ok(PyValue::Int(if y.is_even() { 1 } else { -1 }));
                }
                let e = match y.to_u64() {
                    Some(e) if e.saturating_mul(x.bits().saturating_sub(1).max(1)) <= self.limits.max_int_bits => e,
                    _ => return Err(self.mem_error()),
                };
                self.tick_n(e / 64)?;
                self.big_result(num_traits::pow::pow(x, e as usize))
            }
            BinOp::LShift => {
                if y.is_negative() {
                    return Err(exc(ExcClass::ValueError, "negative shift count"));
                }
                if x.is_zero() {
                    return Ok(PyValue::Int(0));
                }
                match y.to_u64() {
                    Some(s) if s.saturating_add(x.bits()) <= self.limits.max_int_bits => self.big_result(x << s as usize),
                    _ => Err(self.mem_error()),
                }
            }
            BinOp::RShift => {
                if y.is_negative() {
                    return Err(exc(ExcClass::ValueError, "negative shift count"));
                }
                match y.to_u64() {
                    Some(s) if s < x.bits() + 1 => self.big_result(x >> s as usize),
                    _ => Ok(PyValue::Int(if x.is_negative() { -1 } else { 0 })),
                }
            }
            BinOp::BitAnd => self.big_result(x & y),
            BinOp::BitOr => self.big_result(x | y),
            BinOp::BitXor => self.big_result(x ^ y),
        }
    }

    #[inline(never)]
    fn float_op(&mut self, op: BinOp, x: f64, y: f64) -> Res<PyValue> {
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => {
                if y == 0.0 {
                    return Err(exc(ExcClass::ZeroDivisionError, "float division by zero"));
                }
                x / y
            }
            BinOp::FloorDiv => {
                if y == 0.0 {
                    return Err(exc(ExcClass::ZeroDivisionError, "float floor division by zero"));
                }
                float_divmod(x, y).0
            }
            BinOp::Mod => {
                if y == 0.0 {
                    return Err(exc(ExcClass::ZeroDivisionError, "float modulo"));
                }
                float_divmod(x, y).1
            }
            BinOp::Pow => {
                if x == 0.0 && y < 0.0 {
                    return Err(exc(ExcClass::ZeroDivisionError, "0.0 cannot be raised to a negative power"));
                }
                if x < 0.0 && y.fract() != 0.0 && y.is_finite() {
                    return Err(exc(ExcClass::ValueError, "complex results are not supported"));
                }
                let r = x.powf(y);
                if r.is_infinite() && x.is_finite() && y.is_finite() {
                    return Err(exc(ExcClass::OverflowError, "(34, 'Numerical result out of range')"));
                }
                r
            }
            _ => {
                return Err(exc(ExcClass::TypeError, format!("unsupported operand type(s) for {}: 'float' and 'float'", op.symbol())));
            }
        };
        Ok(PyValue::Float(r))
    }

    /// Unary operators.
    pub(crate) fn unary(&mut self, op: UnaryOp, v: &PyValue) -> Res<PyValue> {
        match (op, v) {
            (UnaryOp::Not, _) => Ok(PyValue::Bool(!v.truthy())),
            (UnaryOp::Neg, PyValue::Float(f)) => Ok(PyValue::Float(-f)),
            (UnaryOp::Pos, PyValue::Float(f)) => Ok(PyValue::Float(*f)),
            (UnaryOp::Neg, _) if v.is_int() => match v.as_i64().and_then(i64::checked_neg) {
                Some(n) => Ok(PyValue::Int(n)),
                None => self.big_result(-v.to_bigint().unwrap_or_default()),
            },
            (UnaryOp::Pos, _) if v.is_int() => Ok(match v {
                PyValue::Bool(b) => PyValue::Int(*b as i64),
                other => other.clone(),
            }),
            (UnaryOp::Invert, _) if v.is_int() => match v.as_i64() {
                Some(n) => Ok(PyValue::Int(!n)),
                None => self.big_result(-v.to_bigint().unwrap_or_default() - 1),
            },
            _ => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    _ => "~",
                };
                Err(exc(ExcClass::TypeError, format!("bad operand type for unary {sym}: '{}'", v.type_name())))
            }
        }
    }
}

fn true_div(x: &BigInt, y: &BigInt) -> f64 {
    if let (Some(a), Some(b)) = (x.to_i64(), y.to_i64()) {
        if a.unsigned_abs() < (1 << 53) && b.unsigned_abs() < (1 << 53) {
            return a as f64 / b as f64;
        }
    }
    // Scale so the quotient keeps 64 significant bits, then convert once.
    let shift = 64i64 + y.bits() as i64 - x.bits() as i64;
    let (num, den) = if shift > 0 { (x << shift as usize, y.clone()) } else { (x.clone(), y << (-shift) as usize) };
    let q = big_to_f64(&(num / den));
    q * 2f64.powi(-shift as i32)
}
