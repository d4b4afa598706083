//! Calls: function objects made from `def` and `lambda` (defaults evaluated, closure cells captured), call
//! expressions, dispatch on the callee (user function, builtin, bound method) and binding arguments to
//! parameters with CPython's messages, under the recursion and native-stack limits.

use std::rc::Rc;

use super::{exc, stack_address, Flow, Frame, Interp, Res, Sink};
use crate::engine::python::ast::{Expr, ExprKind, FunctionDef, Keyword};
use crate::engine::python::builtin_names::Builtin;
use crate::engine::python::error::ExcClass;
use crate::engine::python::value::{Function, PyValue};

impl Interp<'_> {
    #[inline(never)]
    pub(super) fn make_function(&mut self, f: &mut Frame, def: &Rc<FunctionDef>) -> Res<PyValue> {
        let mut defaults = Vec::new();
        for p in &def.params {
            if let Some(d) = &p.default {
                defaults.push(self.eval(f, d)?);
            }
        }
        let cells = def.layout.captures.iter().filter_map(|&i| f.cells.get(i as usize).cloned()).collect();
        Ok(PyValue::Func(Rc::new(Function { def: def.clone(), defaults, cells })))
    }

    pub(super) fn eval_call(&mut self, f: &mut Frame, func: &Expr, args: &[Expr], keywords: &[Keyword]) -> Res<PyValue> {
        if let ExprKind::Attribute { value, attr } = &func.kind {
            let obj = self.eval(f, value)?;
            let argv = self.eval_args(f, args)?;
            let kwv = self.eval_keywords(f, keywords)?;
            return self.call_method(&obj, attr, argv, kwv);
        }
        let callee = self.eval(f, func)?;
        if let (PyValue::Builtin(b @ (Builtin::Any | Builtin::All)), [arg], []) = (&callee, args, keywords) {
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
}
