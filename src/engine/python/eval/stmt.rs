//! Statements: blocks and control flow (`if`, `while`, `for`, `break`, `continue`, `return`, `assert`) and
//! every kind of assignment: plain and unpacking, augmented (in place for lists and sets, as Python does) and
//! `del`.

use std::rc::Rc;

use super::{exc, Flow, Frame, Interp, Res};
use crate::engine::python::ast::{BinOp, Expr, ExprKind, NameRef, Stmt, StmtKind};
use crate::engine::python::error::{ExcClass, RunError};
use crate::engine::python::value::{release, PyValue};

impl Interp<'_> {
    pub(crate) fn exec_block(&mut self, f: &mut Frame, body: &[Stmt]) -> Res<Flow> {
        for s in body {
            match self.exec(f, s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, f: &mut Frame, s: &Stmt) -> Res<Flow> {
        self.line = s.pos.line;
        self.tick()?;
        match self.exec_inner(f, s) {
            Err(RunError::Exception(mut e)) if e.line == 0 => {
                e.line = s.pos.line;
                Err(RunError::Exception(e))
            }
            other => other,
        }
    }

    fn exec_inner(&mut self, f: &mut Frame, s: &Stmt) -> Res<Flow> {
        match &s.kind {
            StmtKind::Expr(e) => {
                let v = self.eval(f, e)?;
                release(v);
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval(f, value)?;
                if targets.len() == 1 {
                    self.assign(f, &targets[0], v)?;
                } else {
                    for t in targets {
                        self.assign(f, t, v.clone())?;
                    }
                }
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(f, target, *op, value)?,
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(value) = value {
                    let v = self.eval(f, value)?;
                    self.assign(f, target, v)?;
                }
            }
            StmtKind::Pass | StmtKind::ImportTyping { .. } => {}
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => self.eval(f, e)?,
                    None => PyValue::None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::If { test, body, orelse } => {
                let t = self.eval(f, test)?;
                return if t.truthy() { self.exec_block(f, body) } else { self.exec_block(f, orelse) };
            }
            StmtKind::While { test, body, orelse } => return self.exec_while(f, s, test, body, orelse),
            StmtKind::For { target, iter, body, orelse } => return self.exec_for(f, s, target, iter, body, orelse),
            StmtKind::FunctionDef(def) => {
                let func = self.make_function(f, def)?;
                self.store(f, def.slot, &def.name, func)?;
            }
            StmtKind::Delete(targets) => {
                for t in targets {
                    self.delete(f, t)?;
                }
            }
            StmtKind::Assert { test, msg } => {
                if !self.eval(f, test)?.truthy() {
                    let message = match msg {
                        Some(m) => self.eval(f, m)?.to_str(),
                        None => String::new(),
                    };
                    return Err(exc(ExcClass::AssertionError, message));
                }
            }
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_while(&mut self, f: &mut Frame, s: &Stmt, test: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Res<Flow> {
        loop {
            self.line = s.pos.line;
            if !self.eval(f, test)?.truthy() {
                break;
            }
            match self.exec_block(f, body)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal | Flow::Continue => {}
            }
            self.tick()?;
        }
        self.exec_block(f, orelse)
    }

    #[inline(never)]
    fn exec_for(&mut self, f: &mut Frame, s: &Stmt, target: &Expr, iter: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Res<Flow> {
        let iterable = self.eval(f, iter)?;
        let mut it = self.iter_of(&iterable)?;
        while let Some(item) = self.next(&mut it)? {
            self.assign(f, target, item)?;
            match self.exec_block(f, body)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal | Flow::Continue => {}
            }
            self.line = s.pos.line;
            self.tick()?;
        }
        self.exec_block(f, orelse)
    }

    pub(crate) fn assign(&mut self, f: &mut Frame, target: &Expr, v: PyValue) -> Res<()> {
        match &target.kind {
            ExprKind::Name { id, slot } => self.store(f, *slot, id, v),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let values = self.unpack(&v, items.len())?;
                for (t, item) in items.iter().zip(values) {
                    self.assign(f, t, item)?;
                }
                Ok(())
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(f, value)?;
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let (lo, up, st) = self.eval_slice_parts(f, lower, upper, step)?;
                    return self.set_slice(&obj, &lo, &up, &st, v);
                }
                let idx = self.eval(f, index)?;
                self.set_item(&obj, idx, v)
            }
            _ => Err(exc(ExcClass::TypeError, "cannot assign to this expression")),
        }
    }

    #[inline(never)]
    fn unpack(&mut self, v: &PyValue, n: usize) -> Res<Vec<PyValue>> {
        let items: Vec<PyValue> = match v {
            PyValue::Tuple(t) => t.to_vec(),
            PyValue::List(l) => l.borrow().clone(),
            _ => {
                let mut it = self
                    .iter_of(v)
                    .map_err(|_| exc(ExcClass::TypeError, format!("cannot unpack non-iterable {} object", v.type_name())))?;
                let mut out = Vec::new();
                while let Some(x) = self.next(&mut it)? {
                    out.push(x);
                    if out.len() > n {
                        break;
                    }
                }
                out
            }
        };
        if items.len() > n {
            return Err(exc(ExcClass::ValueError, format!("too many values to unpack (expected {n})")));
        }
        if items.len() < n {
            return Err(exc(ExcClass::ValueError, format!("not enough values to unpack (expected {n}, got {})", items.len())));
        }
        Ok(items)
    }

    #[inline(never)]
    fn aug_assign(&mut self, f: &mut Frame, target: &Expr, op: BinOp, value: &Expr) -> Res<()> {
        match &target.kind {
            ExprKind::Name { id, slot } => {
                let cur = self.load(f, *slot, id)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace_op(op, cur, &rhs)?;
                self.store(f, *slot, id, new)
            }
            ExprKind::Subscript { value: obj_e, index } => {
                let obj = self.eval(f, obj_e)?;
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let (lo, up, st) = self.eval_slice_parts(f, lower, upper, step)?;
                    let cur = self.get_slice(&obj, &lo, &up, &st)?;
                    let rhs = self.eval(f, value)?;
                    let new = self.inplace_op(op, cur, &rhs)?;
                    return self.set_slice(&obj, &lo, &up, &st, new);
                }
                let idx = self.eval(f, index)?;
                let cur = self.get_item(&obj, &idx)?;
                let rhs = self.eval(f, value)?;
                let new = self.inplace_op(op, cur, &rhs)?;
                self.set_item(&obj, idx, new)
            }
            _ => Err(exc(ExcClass::TypeError, "illegal target for augmented assignment")),
        }
    }

    /// `a op= b`: in place for lists (`+=` extends, `*=` repeats) and sets, otherwise the binary operator.
    #[inline(never)]
    fn inplace_op(&mut self, op: BinOp, cur: PyValue, rhs: &PyValue) -> Res<PyValue> {
        match (&cur, op) {
            (PyValue::List(l), BinOp::Add) => {
                let items = self.collect(rhs)?;
                self.charge(items.len() as u64)?;
                l.borrow_mut().extend(items);
                Ok(cur)
            }
            (PyValue::List(l), BinOp::Mul) => {
                let n = self.repeat_count(rhs, "list")?;
                let len = l.borrow().len() as u64;
                let total = len.saturating_mul(n);
                if total > self.limits.max_memory {
                    return Err(self.mem_error());
                }
                self.charge(total.saturating_sub(len))?;
                let items = l.borrow().clone();
                let mut out = Vec::with_capacity(total as usize);
                for _ in 0..n {
                    out.extend(items.iter().cloned());
                }
                *l.borrow_mut() = out;
                Ok(cur)
            }
            (PyValue::Set(s), BinOp::BitOr) if matches!(rhs, PyValue::Set(_)) => {
                // `s |= t` merges t into s in place, keeping s's table (CPython's set_ior).
                if let PyValue::Set(t) = rhs {
                    let other = t.borrow().clone();
                    let before = s.borrow().len();
                    s.borrow_mut().merge(&other);
                    self.charge((s.borrow().len() - before) as u64)?;
                }
                Ok(cur)
            }
            (PyValue::Set(s), BinOp::Sub | BinOp::BitXor) if matches!(rhs, PyValue::Set(_)) => {
                // `s -= t` and `s ^= t` change s in place (CPython's set_isub / set_ixor); with t == s, s empties.
                if let PyValue::Set(t) = rhs {
                    if Rc::ptr_eq(s, t) {
                        s.borrow_mut().clear();
                    } else {
                        let other = t.borrow().clone();
                        let before = s.borrow().len();
                        if op == BinOp::Sub {
                            s.borrow_mut().difference_update(&other);
                        } else {
                            s.borrow_mut().symmetric_difference_update(&other);
                        }
                        self.charge(s.borrow().len().saturating_sub(before) as u64)?;
                    }
                }
                Ok(cur)
            }
            (PyValue::Set(s), BinOp::BitAnd) if matches!(rhs, PyValue::Set(_)) => {
                let result = self.binop(op, &cur, rhs)?;
                if let PyValue::Set(r) = result {
                    let new = r.borrow().clone();
                    s.borrow_mut().take_contents(new);
                }
                Ok(cur)
            }
            _ => self.binop(op, &cur, rhs),
        }
    }

    #[inline(never)]
    fn delete(&mut self, f: &mut Frame, target: &Expr) -> Res<()> {
        match &target.kind {
            ExprKind::Name { id, slot } => {
                self.load(f, *slot, id)?;
                match slot {
                    NameRef::Local(i) => {
                        if let Some(s) = f.locals.get_mut(*i as usize) {
                            *s = None;
                        }
                    }
                    NameRef::Cell(i) => {
                        if let Some(c) = f.cells.get(*i as usize) {
                            *c.borrow_mut() = None;
                        }
                    }
                    NameRef::Global(i) => {
                        if let Some(s) = self.globals.get_mut(*i as usize) {
                            *s = None;
                        }
                    }
                    _ => {}
                }
                Ok(())
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().try_for_each(|t| self.delete(f, t)),
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(f, value)?;
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let (lo, up, st) = self.eval_slice_parts(f, lower, upper, step)?;
                    return self.del_slice(&obj, &lo, &up, &st);
                }
                let idx = self.eval(f, index)?;
                self.del_item(&obj, &idx)
            }
            _ => Err(exc(ExcClass::TypeError, "cannot delete this expression")),
        }
    }
}
