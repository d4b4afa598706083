//! Expressions: names, constants, operators, comparisons (with `in` over every container), boolean
//! short-circuits, displays (set displays laid out as CPython 3.11 builds them), comprehensions, attributes,
//! subscripts, walrus and lambda.

use std::cell::RefCell;
use std::rc::Rc;

use super::{exc, Frame, Interp, Res, Sink};
use crate::engine::python::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind};
use crate::engine::python::compare::{is_same, py_eq, py_order};
use crate::engine::python::value::dict::Dict;
use crate::engine::python::error::ExcClass;
use crate::engine::python::value::set::PySet;
use crate::engine::python::value::{PyIter, PyValue, ViewKind};

impl Interp<'_> {
    pub(crate) fn eval(&mut self, f: &mut Frame, e: &Expr) -> Res<PyValue> {
        match &e.kind {
            ExprKind::Name { id, slot } => self.load(f, *slot, id),
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::BinOp { left, op, right } => {
                let a = self.eval(f, left)?;
                let b = self.eval(f, right)?;
                self.binop(*op, &a, &b)
            }
            ExprKind::Compare { left, ops, comparators } => {
                let mut a = self.eval(f, left)?;
                for (op, c) in ops.iter().zip(comparators) {
                    let b = self.eval(f, c)?;
                    if !self.compare(*op, &a, &b)? {
                        return Ok(PyValue::Bool(false));
                    }
                    a = b;
                }
                Ok(PyValue::Bool(true))
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(f, value)?;
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let (lo, up, st) = self.eval_slice_parts(f, lower, upper, step)?;
                    return self.get_slice(&obj, &lo, &up, &st);
                }
                let idx = self.eval(f, index)?;
                self.get_item(&obj, &idx)
            }
            ExprKind::Call { func, args, keywords } => self.eval_call(f, func, args, keywords),
            ExprKind::BoolOp { op, values } => {
                let mut v = PyValue::None;
                for (i, e) in values.iter().enumerate() {
                    v = self.eval(f, e)?;
                    if i + 1 < values.len() {
                        let t = v.truthy();
                        if (*op == BoolOp::And && !t) || (*op == BoolOp::Or && t) {
                            return Ok(v);
                        }
                    }
                }
                Ok(v)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(f, operand)?;
                self.unary(*op, &v)
            }
            ExprKind::IfExp { test, body, orelse } => {
                if self.eval(f, test)?.truthy() {
                    self.eval(f, body)
                } else {
                    self.eval(f, orelse)
                }
            }
            _ => self.eval_rare(f, e),
        }
    }

    /// `{a, b, c}`. CPython 3.11 compiles a display of three or more constants (after its AST optimizer folds
    /// `-1`, `2 ** 10`, `(1, 2)`, ...) into a frozenset constant (built from the elements, then rebuilt from its
    /// own iteration order when the compiler merges constants) and fills an empty set from it with one merge;
    /// other displays add their elements in order. Both layouts are reproduced so iteration order matches.
    #[inline(never)]
    fn set_display(&mut self, f: &mut Frame, items: &[Expr]) -> Res<PyValue> {
        let mut values = Vec::with_capacity(items.len());
        let mut all_constant = items.len() > 2;
        for item in items {
            match self.folded_constant(item)? {
                Some(v) => values.push(v),
                None => {
                    all_constant = false;
                    values.push(self.eval(f, item)?);
                }
            }
        }
        let mut set = PySet::new();
        for v in values {
            set.insert(v.hash_key()?, v);
        }
        if all_constant {
            let mut merged_constant = PySet::new();
            for v in set.items() {
                merged_constant.insert(v.hash_key()?, v);
            }
            set = PySet::new();
            set.merge(&merged_constant);
        }
        self.charge(set.len() as u64)?;
        Ok(PyValue::Set(Rc::new(RefCell::new(set))))
    }

    /// The value of an expression CPython 3.11's AST optimizer folds into a constant (literals, unary and binary
    /// operators on constants within its size limits, tuples of constants), or `None` if it is not folded.
    fn folded_constant(&mut self, e: &Expr) -> Res<Option<PyValue>> {
        /// The optimizer's cap on folded int results, in bits (`MAX_INT_SIZE`).
        const MAX_INT_BITS: u64 = 128;
        const MAX_STR_SIZE: i64 = 4096;
        const MAX_COLLECTION_SIZE: i64 = 256;
        Ok(match &e.kind {
            ExprKind::Const(v) => Some(v.clone()),
            ExprKind::UnaryOp { op, operand } => match self.folded_constant(operand)? {
                Some(v) => Some(self.unary(*op, &v)?),
                None => None,
            },
            ExprKind::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match self.folded_constant(item)? {
                        Some(v) => out.push(v),
                        None => return Ok(None),
                    }
                }
                Some(PyValue::tuple(out))
            }
            ExprKind::BinOp { left, op, right } => {
                let (Some(a), Some(b)) = (self.folded_constant(left)?, self.folded_constant(right)?) else { return Ok(None) };
                let bits = |v: &PyValue| v.to_bigint().map(|i| i.bits());
                let small = |v: &PyValue| v.to_bigint().and_then(|i| i64::try_from(i).ok());
                let refused = match (op, bits(&a), bits(&b)) {
                    (BinOp::Mul, Some(x), Some(y)) => x > 0 && y > 0 && x + y > MAX_INT_BITS,
                    (BinOp::Mul, Some(_), None) | (BinOp::Mul, None, Some(_)) => {
                        let (n, seq) = if a.is_int() { (&a, &b) } else { (&b, &a) };
                        let cap = match seq {
                            PyValue::Str(_) => MAX_STR_SIZE,
                            PyValue::Tuple(_) => MAX_COLLECTION_SIZE,
                            _ => i64::MAX,
                        };
                        let len = match seq {
                            PyValue::Str(s) => s.chars().count() as i64,
                            PyValue::Tuple(t) => t.len() as i64,
                            _ => 0,
                        };
                        match small(n) {
                            Some(0) => false,
                            Some(k) => len > cap / k,
                            None => true,
                        }
                    }
                    (BinOp::Pow, Some(x), Some(_)) if x > 0 && b.to_bigint().is_some_and(|w| w.sign() == num_bigint::Sign::Plus) => {
                        match small(&b) {
                            Some(w) => x > MAX_INT_BITS / w as u64,
                            None => true,
                        }
                    }
                    (BinOp::LShift, Some(x), Some(y)) if x > 0 && y > 0 => match small(&b) {
                        Some(w) if w >= 0 => w as u64 > MAX_INT_BITS || x > MAX_INT_BITS - w as u64,
                        _ => true,
                    },
                    (BinOp::Mod, _, _) => matches!(a, PyValue::Str(_)),
                    _ => false,
                };
                if refused {
                    None
                } else {
                    Some(self.binop(*op, &a, &b)?)
                }
            }
            _ => None,
        })
    }

    #[inline(never)]
    fn eval_rare(&mut self, f: &mut Frame, e: &Expr) -> Res<PyValue> {
        match &e.kind {
            ExprKind::List(items) => {
                self.charge(items.len() as u64)?;
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval(f, item)?);
                }
                Ok(PyValue::list(out))
            }
            ExprKind::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.eval(f, item)?);
                }
                Ok(PyValue::tuple(out))
            }
            ExprKind::Set(items) => self.set_display(f, items),
            ExprKind::Dict(pairs) => {
                let mut d = Dict::new();
                for (k, v) in pairs {
                    let kv = self.eval(f, k)?;
                    let vv = self.eval(f, v)?;
                    let hk = kv.hash_key()?;
                    if d.insert(hk, kv, vv) {
                        self.charge(1)?;
                    }
                }
                Ok(PyValue::Dict(Rc::new(RefCell::new(d))))
            }
            ExprKind::ListComp { elt, gens } => {
                let mut out = Vec::new();
                self.comprehension(f, gens, 0, elt, None, &mut Sink::List(&mut out))?;
                Ok(PyValue::list(out))
            }
            ExprKind::GenExp { elt, gens } => {
                let mut out = Vec::new();
                self.comprehension(f, gens, 0, elt, None, &mut Sink::List(&mut out))?;
                Ok(PyValue::Iter(Rc::new(RefCell::new(PyIter::Values { items: Rc::new(out), index: 0 }))))
            }
            ExprKind::SetComp { elt, gens } => {
                let mut out = PySet::new();
                self.comprehension(f, gens, 0, elt, None, &mut Sink::Set(&mut out))?;
                Ok(PyValue::Set(Rc::new(RefCell::new(out))))
            }
            ExprKind::DictComp { key, value, gens } => {
                let mut out = Dict::new();
                self.comprehension(f, gens, 0, key, Some(value), &mut Sink::Dict(&mut out))?;
                Ok(PyValue::Dict(Rc::new(RefCell::new(out))))
            }
            ExprKind::Attribute { value, attr } => {
                let obj = self.eval(f, value)?;
                self.attribute(obj, attr)
            }
            ExprKind::NamedExpr { target, slot, value } => {
                let v = self.eval(f, value)?;
                self.store(f, *slot, target, v.clone())?;
                Ok(v)
            }
            ExprKind::Lambda(def) => self.make_function(f, def),
            _ => Err(exc(ExcClass::TypeError, "a slice is only allowed inside brackets")),
        }
    }

    pub(crate) fn compare(&mut self, op: CmpOp, a: &PyValue, b: &PyValue) -> Res<bool> {
        if let (PyValue::Int(x), PyValue::Int(y)) = (a, b) {
            return Ok(match op {
                CmpOp::Eq | CmpOp::Is => x == y,
                CmpOp::NotEq | CmpOp::IsNot => x != y,
                CmpOp::Lt => x < y,
                CmpOp::LtE => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::GtE => x >= y,
                CmpOp::In | CmpOp::NotIn => return Err(exc(ExcClass::TypeError, "argument of type 'int' is not iterable")),
            });
        }
        Ok(match op {
            CmpOp::Eq => py_eq(a, b)?,
            CmpOp::NotEq => !py_eq(a, b)?,
            CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE => py_order(a, b, op)?,
            CmpOp::Is => is_same(a, b),
            CmpOp::IsNot => !is_same(a, b),
            CmpOp::In => self.contains(b, a)?,
            CmpOp::NotIn => !self.contains(b, a)?,
        })
    }

    /// `item in container`.
    #[inline(never)]
    pub(crate) fn contains(&mut self, container: &PyValue, item: &PyValue) -> Res<bool> {
        match container {
            PyValue::List(l) => {
                let items = l.borrow().clone();
                self.tick_n(items.len() as u64 / 8)?;
                for x in &items {
                    if py_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            PyValue::Tuple(t) => {
                self.tick_n(t.len() as u64 / 8)?;
                for x in t.iter() {
                    if py_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            PyValue::Str(s) => match item {
                PyValue::Str(sub) => Ok(s.contains(sub.as_ref())),
                other => Err(exc(ExcClass::TypeError, format!("'in <string>' requires string as left operand, not {}", other.type_name()))),
            },
            PyValue::Dict(d) => Ok(d.borrow().get(&item.hash_key()?).is_some()),
            PyValue::Set(s) => Ok(s.borrow().contains(&item.hash_key()?)),
            PyValue::Range(r) => {
                let v = match item {
                    PyValue::Float(x) if x.fract() == 0.0 && x.abs() < 9e18 => *x as i64,
                    other => match other.as_i64() {
                        Some(v) => v,
                        None => return Ok(false),
                    },
                };
                let (start, step) = (r.start as i128, r.step as i128);
                let off = v as i128 - start;
                let idx = off / step;
                Ok(off % step == 0 && idx >= 0 && (idx as i64) < r.len())
            }
            PyValue::DictView(view) => {
                let d = view.0.borrow().clone();
                match view.1 {
                    ViewKind::Keys => Ok(d.get(&item.hash_key()?).is_some()),
                    ViewKind::Values => {
                        for (_, v) in d.pairs() {
                            if py_eq(&v, item)? {
                                return Ok(true);
                            }
                        }
                        Ok(false)
                    }
                    ViewKind::Items => {
                        let PyValue::Tuple(t) = item else { return Ok(false) };
                        if t.len() != 2 {
                            return Ok(false);
                        }
                        match d.get(&t[0].hash_key()?) {
                            Some(v) => Ok(py_eq(v, &t[1])?),
                            None => Ok(false),
                        }
                    }
                }
            }
            PyValue::Iter(_) => {
                let mut it = self.iter_of(container)?;
                while let Some(x) = self.next(&mut it)? {
                    self.tick()?;
                    if py_eq(&x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            other => Err(exc(ExcClass::TypeError, format!("argument of type '{}' is not iterable", other.type_name()))),
        }
    }
}
