//! The evaluator: walks the resolved syntax tree with explicit frames, under deterministic limits (a step
//! budget, a recursion limit, a memory cap), turning runaway code into `RunError`s instead of hangs.
//!
//! This file holds the interpreter state, its limits and budgets, frames and name slots; `stmt` executes
//! statements (assignment included), `expr` evaluates expressions, `call` makes and calls functions, `iter`
//! is the iteration protocol and comprehensions.

mod call;
mod expr;
mod iter;
mod stmt;

use std::cell::RefCell;
use std::rc::Rc;

use super::ast::{Layout, Module, NameRef};
use super::error::{ExcClass, PyError, RunError};
use super::value::{release, CellRef, PyValue};

pub(crate) use iter::Sink;

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

    /// The value in a name's slot (local, cell, global or builtin), or Python's error for an unbound name.
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

    /// Stores a value in a name's slot, releasing the value it replaces.
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
}
