//! The evaluator: walks the resolved syntax tree with explicit frames, under deterministic limits (a step
//! budget, a recursion limit, a memory cap), turning runaway code into `RunError`s instead of hangs.

use std::cell::RefCell;
use std::rc::Rc;

use super::ast::*;
use super::builtins::names::Builtin;
use super::compare::{py_eq, py_order};
use super::dict::Dict;
use super::error::{ExcClass, PyError, RunError};
use super::set::PySet;
use super::value::release;
use super::value::*;

/// Deterministic resource limits of one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Statements, loop iterations, calls and builtin element visits allowed (about 25-60 ms per million natively).
    pub max_steps: u64,
    /// Deepest user-function call nesting (Python's default recursion limit is 1000).
    pub max_depth: u32,
    /// Cumulative container elements (plus big-int limbs and string bytes / 8) the code may allocate.
    pub max_memory: u64,
    /// Largest int, in bits, any operation may produce.
    pub max_int_bits: u64,
    /// Native stack the evaluator may use for nested calls before raising RecursionError. This protects the
    /// host, whose stack may be smaller than Python's 1000 frames need: one Python call level costs about
    /// 1.6 KB of native stack in optimised builds and about 14 KB in debug builds. The default fits a 2 MB
    /// thread natively (about 950 levels optimised) and the browser's 1 MB wasm stack (about 430 levels);
    /// hosts that run the evaluator on a bigger stack (the `arbigraph trace` CLI) raise it.
    pub max_stack_bytes: u64,
}

#[cfg(target_arch = "wasm32")]
const DEFAULT_STACK_BYTES: u64 = 700_000;
#[cfg(not(target_arch = "wasm32"))]
const DEFAULT_STACK_BYTES: u64 = 1_500_000;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: 5_000_000, max_depth: 1000, max_memory: 2_000_000, max_int_bits: 1 << 20, max_stack_bytes: DEFAULT_STACK_BYTES }
    }
}

impl Limits {
    /// Small limits for fuzzing and quick checks.
    pub fn small() -> Limits {
        Limits { max_steps: 20_000, max_depth: 60, max_memory: 20_000, max_int_bits: 1 << 14, max_stack_bytes: 400_000 }
    }
}

pub(crate) type Res<T> = Result<T, RunError>;

/// What a statement did to the control flow.
pub(crate) enum Flow {
    Normal,
    Break,
    Continue,
    Return(PyValue),
}

/// A function activation: plain local slots and cells.
pub(crate) struct Frame {
    pub locals: Vec<Option<PyValue>>,
    pub cells: Vec<CellRef>,
}

impl Frame {
    pub fn new(layout: &Layout, free: &[CellRef]) -> Frame {
        let mut cells: Vec<CellRef> = Vec::with_capacity(layout.n_own_cells as usize + free.len());
        for _ in 0..layout.n_own_cells {
            cells.push(Rc::new(RefCell::new(None)));
        }
        cells.extend(free.iter().cloned());
        Frame { locals: vec![None; layout.n_locals as usize], cells }
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        for v in self.locals.drain(..).flatten() {
            release(v);
        }
    }
}

/// The interpreter state for one module.
pub struct Interp<'m> {
    pub(crate) module: &'m Module,
    pub(crate) globals: Vec<Option<PyValue>>,
    pub(crate) limits: Limits,
    pub(crate) steps: u64,
    pub(crate) memory: u64,
    pub(crate) depth: u32,
    pub(crate) line: u32,
    /// Address of a local in the outermost call, to measure native stack use.
    pub(crate) stack_base: usize,
    /// Every cell frames created: emptied when the interpreter is dropped, which breaks the reference cycles
    /// closures form (a recursive nested function holds the cell that holds it).
    pub(crate) created_cells: Vec<CellRef>,
}

impl Drop for Interp<'_> {
    fn drop(&mut self) {
        for cell in std::mem::take(&mut self.created_cells) {
            let value = cell.try_borrow_mut().ok().and_then(|mut c| c.take());
            if let Some(v) = value {
                release(v);
            }
        }
        for v in std::mem::take(&mut self.globals).into_iter().flatten() {
            release(v);
        }
    }
}

/// The address of a local variable: a portable reading of the stack pointer.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

pub(crate) fn exc(class: ExcClass, message: impl Into<String>) -> RunError {
    RunError::Exception(PyError { class, message: message.into(), line: 0 })
}

/// What a comprehension produces.
pub(crate) enum Sink<'a> {
    List(&'a mut Vec<PyValue>),
    Set(&'a mut PySet),
    Dict(&'a mut Dict),
    /// `any(...)` / `all(...)` over a generator: stop at the first truthy / falsy item.
    Any(&'a mut bool),
    All(&'a mut bool),
}

impl<'m> Interp<'m> {
    /// A fresh interpreter over `module` (module-level code not run yet).
    pub fn new(module: &'m Module, limits: Limits) -> Interp<'m> {
        Interp {
            module,
            globals: vec![None; module.globals.len()],
            limits,
            steps: 0,
            memory: 0,
            depth: 0,
            line: 0,
            stack_base: 0,
            created_cells: Vec::new(),
        }
    }

    fn track_cells(&mut self, frame: &Frame, n_own: u32) {
        if n_own > 0 {
            self.created_cells.extend(frame.cells.iter().take(n_own as usize).cloned());
        }
    }

    /// Steps used so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Runs the module's top-level statements (defining its functions).
    pub fn run_module(&mut self) -> Res<()> {
        let module = self.module;
        let mut frame = Frame::new(&module.layout, &[]);
        match self.exec_block(&mut frame, &module.body)? {
            Flow::Normal => Ok(()),
            _ => Err(exc(ExcClass::RuntimeError, "'return', 'break' or 'continue' outside function")),
        }
    }

    /// The value of a module-level name.
    pub fn global(&self, name: &str) -> Option<PyValue> {
        let i = self.module.globals.iter().position(|g| g == name)?;
        self.globals[i].clone()
    }

    #[inline]
    pub(crate) fn tick(&mut self) -> Res<()> {
        self.steps += 1;
        if self.steps > self.limits.max_steps {
            return Err(RunError::StepBudgetExceeded { limit: self.limits.max_steps, line: self.line });
        }
        Ok(())
    }

    /// Charges `n` steps at once (work done inside builtins).
    pub(crate) fn tick_n(&mut self, n: u64) -> Res<()> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limits.max_steps {
            return Err(RunError::StepBudgetExceeded { limit: self.limits.max_steps, line: self.line });
        }
        Ok(())
    }

    /// Charges `units` of memory.
    pub(crate) fn charge(&mut self, units: u64) -> Res<()> {
        self.memory = self.memory.saturating_add(units);
        if self.memory > self.limits.max_memory {
            return Err(RunError::MemoryExceeded { limit: self.limits.max_memory, line: self.line });
        }
        Ok(())
    }

    pub(crate) fn mem_error(&self) -> RunError {
        RunError::MemoryExceeded { limit: self.limits.max_memory, line: self.line }
    }

    // ------------------------------------------------------------------ statements

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

    #[inline(never)]
    fn make_function(&mut self, f: &mut Frame, def: &Rc<FunctionDef>) -> Res<PyValue> {
        let mut defaults = Vec::new();
        for p in &def.params {
            if let Some(d) = &p.default {
                defaults.push(self.eval(f, d)?);
            }
        }
        let cells = def.layout.captures.iter().filter_map(|&i| f.cells.get(i as usize).cloned()).collect();
        Ok(PyValue::Func(Rc::new(Function { def: def.clone(), defaults, cells })))
    }

    // ------------------------------------------------------------------ names

    #[inline]
    pub(crate) fn load(&mut self, f: &Frame, slot: NameRef, id: &str) -> Res<PyValue> {
        let found = match slot {
            NameRef::Local(i) => match f.locals.get(i as usize) {
                Some(Some(v)) => return Ok(v.clone()),
                _ => {
                    return Err(exc(
                        ExcClass::UnboundLocalError,
                        format!("cannot access local variable '{id}' where it is not associated with a value"),
                    ))
                }
            },
            NameRef::Cell(i) => match f.cells.get(i as usize) {
                Some(c) => c.borrow().clone(),
                None => None,
            },
            NameRef::Global(i) => self.globals.get(i as usize).cloned().flatten(),
            NameRef::Builtin(b) => Some(PyValue::Builtin(b)),
            NameRef::Unresolved => None,
        };
        found.ok_or_else(|| match slot {
            NameRef::Cell(_) => exc(
                ExcClass::NameError,
                format!("cannot access free variable '{id}' where it is not associated with a value in enclosing scope"),
            ),
            _ => exc(ExcClass::NameError, format!("name '{id}' is not defined")),
        })
    }

    #[inline]
    pub(crate) fn store(&mut self, f: &mut Frame, slot: NameRef, id: &str, v: PyValue) -> Res<()> {
        match slot {
            NameRef::Local(i) => {
                if let Some(Some(old)) = f.locals.get_mut(i as usize).map(|s| s.replace(v)) {
                    release(old);
                }
            }
            NameRef::Cell(i) => {
                let old = f.cells.get(i as usize).and_then(|c| c.try_borrow_mut().ok().and_then(|mut c| c.replace(v)));
                if let Some(old) = old {
                    release(old);
                }
            }
            NameRef::Global(i) => {
                if let Some(Some(old)) = self.globals.get_mut(i as usize).map(|s| s.replace(v)) {
                    release(old);
                }
            }
            NameRef::Builtin(_) | NameRef::Unresolved => return Err(exc(ExcClass::NameError, format!("cannot assign to '{id}'"))),
        }
        Ok(())
    }

    // ------------------------------------------------------------------ assignment

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

    // ------------------------------------------------------------------ expressions

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

    fn eval_call(&mut self, f: &mut Frame, func: &Expr, args: &[Expr], keywords: &[Keyword]) -> Res<PyValue> {
        if let ExprKind::Attribute { value, attr } = &func.kind {
            let obj = self.eval(f, value)?;
            let argv = self.eval_args(f, args)?;
            let kwv = self.eval_keywords(f, keywords)?;
            return self.call_method(&obj, attr, argv, kwv);
        }
        let callee = self.eval(f, func)?;
        if let (PyValue::Builtin(b @ (Builtin::Any | Builtin::All)), [arg], []) =
            (&callee, args, keywords)
        {
            if let ExprKind::GenExp { elt, gens } = &arg.kind {
                let any = *b == Builtin::Any;
                let mut flag = !any;
                let mut sink = if any { Sink::Any(&mut flag) } else { Sink::All(&mut flag) };
                self.comprehension(f, gens, 0, elt, None, &mut sink)?;
                return Ok(PyValue::Bool(flag));
            }
        }
        let argv = self.eval_args(f, args)?;
        let kwv = self.eval_keywords(f, keywords)?;
        self.call_value(&callee, argv, kwv)
    }

    fn eval_args(&mut self, f: &mut Frame, args: &[Expr]) -> Res<Vec<PyValue>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.eval(f, a)?);
        }
        Ok(out)
    }

    fn eval_keywords(&mut self, f: &mut Frame, keywords: &[Keyword]) -> Res<Vec<(String, PyValue)>> {
        let mut out = Vec::with_capacity(keywords.len());
        for k in keywords {
            out.push((k.name.clone(), self.eval(f, &k.value)?));
        }
        Ok(out)
    }

    /// Calls any callable value.
    pub fn call_value(&mut self, callee: &PyValue, args: Vec<PyValue>, kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
        match callee {
            PyValue::Func(func) => self.call_function(func, args, kwargs),
            PyValue::Builtin(b) => self.call_builtin(*b, args, kwargs),
            PyValue::Method(m) => {
                let (obj, name) = &**m;
                self.call_method(obj, name, args, kwargs)
            }
            other => Err(exc(ExcClass::TypeError, format!("'{}' object is not callable", other.type_name()))),
        }
    }

    /// Calls a user function with positional and keyword arguments.
    pub fn call_function(&mut self, func: &Rc<Function>, args: Vec<PyValue>, kwargs: Vec<(String, PyValue)>) -> Res<PyValue> {
        let def = &*func.def;
        let here = stack_address();
        if self.depth == 0 {
            self.stack_base = here;
        }
        if self.depth >= self.limits.max_depth || self.stack_base.abs_diff(here) as u64 > self.limits.max_stack_bytes {
            return Err(exc(ExcClass::RecursionError, "maximum recursion depth exceeded"));
        }
        self.tick()?;
        let mut frame = self.bind_args(func, args, kwargs)?;
        let saved_line = self.line;
        self.depth += 1;
        let result = self.exec_block(&mut frame, &def.body);
        self.depth -= 1;
        self.line = saved_line;
        match result? {
            Flow::Return(v) => Ok(v),
            _ => Ok(PyValue::None),
        }
    }

    #[inline(never)]
    fn bind_args(&mut self, func: &Rc<Function>, args: Vec<PyValue>, kwargs: Vec<(String, PyValue)>) -> Res<Frame> {
        let def = &*func.def;
        let n = def.params.len();
        if kwargs.is_empty() && args.len() == n {
            // The common case: every parameter passed positionally.
            let mut frame = Frame::new(&def.layout, &func.cells);
            self.track_cells(&frame, def.layout.n_own_cells);
            for (slot, v) in def.layout.param_slots.iter().zip(args) {
                self.store(&mut frame, *slot, "", v)?;
            }
            return Ok(frame);
        }
        if args.len() > n {
            return Err(exc(
                ExcClass::TypeError,
                format!("{}() takes {n} positional argument{} but {} were given", def.name, if n == 1 { "" } else { "s" }, args.len()),
            ));
        }
        let mut bound: Vec<Option<PyValue>> = args.into_iter().map(Some).collect();
        bound.resize(n, None);
        for (name, v) in kwargs {
            match def.params.iter().position(|p| p.name == name) {
                Some(i) => {
                    if bound[i].is_some() {
                        return Err(exc(ExcClass::TypeError, format!("{}() got multiple values for argument '{name}'", def.name)));
                    }
                    bound[i] = Some(v);
                }
                None => return Err(exc(ExcClass::TypeError, format!("{}() got an unexpected keyword argument '{name}'", def.name))),
            }
        }
        let first_default = n - func.defaults.len();
        let mut missing = Vec::new();
        for (i, slot) in bound.iter_mut().enumerate() {
            if slot.is_none() {
                if i >= first_default {
                    *slot = Some(func.defaults[i - first_default].clone());
                } else {
                    missing.push(format!("'{}'", def.params[i].name));
                }
            }
        }
        if !missing.is_empty() {
            return Err(exc(
                ExcClass::TypeError,
                format!(
                    "{}() missing {} required positional argument{}: {}",
                    def.name,
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join(" and ")
                ),
            ));
        }
        let mut frame = Frame::new(&def.layout, &func.cells);
        self.track_cells(&frame, def.layout.n_own_cells);
        for (slot, v) in def.layout.param_slots.iter().zip(bound) {
            if let Some(v) = v {
                self.store(&mut frame, *slot, "", v)?;
            }
        }
        Ok(frame)
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

    // ------------------------------------------------------------------ iteration

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

/// Python's `is`: identity for containers and functions, value for None, bools and small ints.
fn is_same(a: &PyValue, b: &PyValue) -> bool {
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
