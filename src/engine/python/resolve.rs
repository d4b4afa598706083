//! Name resolution: decides, once per module, where every name lives at run time (a local slot, a closure
//! cell, a module global or a builtin), following Python's scoping rules: a name assigned anywhere in a
//! function is local to it; nested functions read enclosing locals through shared cells (late binding);
//! comprehension variables get their own slots and never leak; walrus targets bind in the enclosing function.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use super::ast::*;
use super::builtin_names::Builtin;
use super::error::ParseError;

/// Resolves a parsed module in place.
pub fn resolve_module(mut body: Vec<Stmt>) -> Result<Module, ParseError> {
    let mut globals: Vec<String> = Vec::new();
    for name in bindings(&[], &body) {
        if !globals.contains(&name) {
            globals.push(name);
        }
    }
    let mut r = Resolver { globals, scopes: vec![Scope { map: HashMap::new(), comps: Vec::new(), n_locals: 0, is_module: true }] };
    for s in &mut body {
        r.stmt(s)?;
    }
    let module_scope = r.scopes.pop().map(|s| s.n_locals).unwrap_or(0);
    Ok(Module { body, globals: r.globals, layout: Layout { n_locals: module_scope, ..Layout::default() } })
}

struct Scope {
    map: HashMap<String, NameRef>,
    comps: Vec<HashMap<String, u32>>,
    n_locals: u32,
    is_module: bool,
}

struct Resolver {
    globals: Vec<String>,
    scopes: Vec<Scope>,
}

// ---------------------------------------------------------------------- analysis

fn target_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name { id, .. } => out.push(id.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().for_each(|i| target_names(i, out)),
        _ => {}
    }
}

/// Visits `e` and its sub-expressions, not entering lambda bodies.
fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    let mut go = |x: &Expr| walk_expr(x, f);
    match &e.kind {
        ExprKind::Name { .. } | ExprKind::Const(_) => {}
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => items.iter().for_each(go),
        ExprKind::Dict(pairs) => pairs.iter().for_each(|(k, v)| {
            go(k);
            go(v);
        }),
        ExprKind::ListComp { elt, gens } | ExprKind::SetComp { elt, gens } | ExprKind::GenExp { elt, gens } => {
            go(elt);
            for g in gens {
                go(&g.target);
                go(&g.iter);
                g.ifs.iter().for_each(&mut go);
            }
        }
        ExprKind::DictComp { key, value, gens } => {
            go(key);
            go(value);
            for g in gens {
                go(&g.target);
                go(&g.iter);
                g.ifs.iter().for_each(&mut go);
            }
        }
        ExprKind::BinOp { left, right, .. } => {
            go(left);
            go(right);
        }
        ExprKind::UnaryOp { operand, .. } => go(operand),
        ExprKind::BoolOp { values, .. } => values.iter().for_each(go),
        ExprKind::Compare { left, comparators, .. } => {
            go(left);
            comparators.iter().for_each(go);
        }
        ExprKind::IfExp { test, body, orelse } => {
            go(test);
            go(body);
            go(orelse);
        }
        ExprKind::Call { func, args, keywords } => {
            go(func);
            args.iter().for_each(&mut go);
            keywords.iter().for_each(|k| go(&k.value));
        }
        ExprKind::Attribute { value, .. } => go(value),
        ExprKind::Subscript { value, index } => {
            go(value);
            go(index);
        }
        ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step].into_iter().flatten() {
                go(part);
            }
        }
        ExprKind::NamedExpr { value, .. } => go(value),
        ExprKind::Lambda(def) => def.params.iter().filter_map(|p| p.default.as_ref()).for_each(go),
    }
}

/// Visits the statements of one scope (not entering nested function bodies) and their expressions.
fn walk_scope(body: &[Stmt], on_stmt: &mut dyn FnMut(&Stmt), on_expr: &mut dyn FnMut(&Expr)) {
    for s in body {
        on_stmt(s);
        let mut ex = |e: &Expr| walk_expr(e, on_expr);
        match &s.kind {
            StmtKind::Expr(e) => ex(e),
            StmtKind::Assign { targets, value } => {
                targets.iter().for_each(&mut ex);
                ex(value);
            }
            StmtKind::AugAssign { target, value, .. } => {
                ex(target);
                ex(value);
            }
            StmtKind::AnnAssign { target, value, .. } => {
                ex(target);
                if let Some(v) = value {
                    ex(v);
                }
            }
            StmtKind::Return(Some(e)) => ex(e),
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                ex(test);
                walk_scope(body, on_stmt, on_expr);
                walk_scope(orelse, on_stmt, on_expr);
            }
            StmtKind::For { target, iter, body, orelse } => {
                ex(target);
                ex(iter);
                walk_scope(body, on_stmt, on_expr);
                walk_scope(orelse, on_stmt, on_expr);
            }
            StmtKind::FunctionDef(def) => def.params.iter().filter_map(|p| p.default.as_ref()).for_each(ex),
            StmtKind::Delete(targets) => targets.iter().for_each(ex),
            StmtKind::Assert { test, msg } => {
                ex(test);
                if let Some(m) = msg {
                    ex(m);
                }
            }
            StmtKind::Return(None) | StmtKind::Pass | StmtKind::Break | StmtKind::Continue | StmtKind::ImportTyping { .. } => {}
        }
    }
}

/// Names bound in a scope, in first-binding order (parameters first).
pub(crate) fn bindings(params: &[Param], body: &[Stmt]) -> Vec<String> {
    let mut out: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    let mut walrus: Vec<String> = Vec::new();
    walk_scope(
        body,
        &mut |s| match &s.kind {
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target_names(t, &mut out)),
            StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => target_names(target, &mut out),
            StmtKind::For { target, .. } => target_names(target, &mut out),
            StmtKind::FunctionDef(def) => out.push(def.name.clone()),
            StmtKind::Delete(targets) => targets.iter().for_each(|t| target_names(t, &mut out)),
            StmtKind::ImportTyping { names } => out.extend(names.iter().filter(|n| *n != "*").cloned()),
            _ => {}
        },
        &mut |e| {
            if let ExprKind::NamedExpr { target, .. } = &e.kind {
                walrus.push(target.clone());
            }
        },
    );
    out.extend(walrus);
    let mut seen = BTreeSet::new();
    out.retain(|n| seen.insert(n.clone()));
    out
}

/// The function definitions (and lambdas) directly inside a scope.
fn inner_defs(body: &[Stmt]) -> Vec<Rc<FunctionDef>> {
    let mut defs = Vec::new();
    let mut lambdas = Vec::new();
    walk_scope(
        body,
        &mut |s| {
            if let StmtKind::FunctionDef(def) = &s.kind {
                defs.push(def.clone());
            }
        },
        &mut |e| {
            if let ExprKind::Lambda(def) = &e.kind {
                lambdas.push(def.clone());
            }
        },
    );
    defs.extend(lambdas);
    defs
}

/// Names a function reads or writes that it does not bind itself (including its inner functions' needs).
fn free_names(def: &FunctionDef) -> BTreeSet<String> {
    let bound: BTreeSet<String> = bindings(&def.params, &def.body).into_iter().collect();
    let mut used = BTreeSet::new();
    walk_scope(&def.body, &mut |_| {}, &mut |e| match &e.kind {
        ExprKind::Name { id, .. } => {
            used.insert(id.clone());
        }
        ExprKind::NamedExpr { target, .. } => {
            used.insert(target.clone());
        }
        _ => {}
    });
    for inner in inner_defs(&def.body) {
        used.extend(free_names(&inner));
    }
    used.into_iter().filter(|n| !bound.contains(n)).collect()
}

// ---------------------------------------------------------------------- resolution

impl Resolver {
    fn scope(&mut self) -> &mut Scope {
        let last = self.scopes.len() - 1;
        &mut self.scopes[last]
    }

    fn global_ref(&mut self, name: &str, for_load: bool) -> NameRef {
        if let Some(i) = self.globals.iter().position(|g| g == name) {
            return NameRef::Global(i as u32);
        }
        if for_load {
            if let Some(b) = Builtin::lookup(name) {
                return NameRef::Builtin(b);
            }
        }
        self.globals.push(name.to_string());
        NameRef::Global(self.globals.len() as u32 - 1)
    }

    /// Where `name` lives, seen from the innermost scope (`skip_comps` for walrus targets and `def` names).
    fn lookup(&mut self, name: &str, skip_comps: bool, for_load: bool) -> NameRef {
        let scope = self.scope();
        if !skip_comps {
            for comp in scope.comps.iter().rev() {
                if let Some(&slot) = comp.get(name) {
                    return NameRef::Local(slot);
                }
            }
        }
        if !scope.is_module {
            if let Some(r) = scope.map.get(name) {
                return *r;
            }
        }
        self.global_ref(name, for_load)
    }

    fn function(&mut self, def: &mut FunctionDef) -> Result<(), ParseError> {
        let bound = bindings(&def.params, &def.body);
        let mut inner_free = BTreeSet::new();
        for inner in inner_defs(&def.body) {
            inner_free.extend(free_names(&inner));
        }
        let mut map = HashMap::new();
        let (mut n_locals, mut n_cells) = (0u32, 0u32);
        for name in &bound {
            if inner_free.contains(name) {
                map.insert(name.clone(), NameRef::Cell(n_cells));
                n_cells += 1;
            } else {
                map.insert(name.clone(), NameRef::Local(n_locals));
                n_locals += 1;
            }
        }
        // Free variables: names bound in an enclosing function scope.
        let mut captures = Vec::new();
        let parent = self.scopes.len() - 1;
        if !self.scopes[parent].is_module {
            for name in free_names(def) {
                if bound.contains(&name) {
                    continue;
                }
                let in_comp = self.scopes[parent].comps.iter().any(|c| c.contains_key(&name));
                let found = self.scopes[parent].map.get(&name).copied();
                match (in_comp, found) {
                    (true, _) => {
                        return Err(ParseError::unsupported(def.pos, format!("a function capturing the comprehension variable '{name}'")))
                    }
                    (false, Some(NameRef::Cell(i))) => {
                        map.insert(name.clone(), NameRef::Cell(n_cells + captures.len() as u32));
                        captures.push(i);
                    }
                    _ => {}
                }
            }
        }
        let param_slots = def.params.iter().map(|p| map.get(&p.name).copied().unwrap_or_default()).collect();
        self.scopes.push(Scope { map, comps: Vec::new(), n_locals, is_module: false });
        let result = def.body.iter_mut().try_for_each(|s| self.stmt(s));
        let scope = self.scopes.pop();
        result?;
        def.layout = Layout { n_locals: scope.map(|s| s.n_locals).unwrap_or(0), n_own_cells: n_cells, captures, param_slots };
        Ok(())
    }

    fn stmt(&mut self, s: &mut Stmt) -> Result<(), ParseError> {
        match &mut s.kind {
            StmtKind::Expr(e) => self.expr(e)?,
            StmtKind::Assign { targets, value } => {
                self.expr(value)?;
                for t in targets {
                    self.expr(t)?;
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.expr(value)?;
                self.expr(target)?;
            }
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(v) = value {
                    self.expr(v)?;
                }
                self.expr(target)?;
            }
            StmtKind::Return(Some(e)) => self.expr(e)?,
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                self.expr(test)?;
                for s in body.iter_mut().chain(orelse.iter_mut()) {
                    self.stmt(s)?;
                }
            }
            StmtKind::For { target, iter, body, orelse } => {
                self.expr(iter)?;
                self.expr(target)?;
                for s in body.iter_mut().chain(orelse.iter_mut()) {
                    self.stmt(s)?;
                }
            }
            StmtKind::FunctionDef(def) => {
                let slot = self.lookup(&def.name, true, false);
                let d = Rc::make_mut(def);
                for p in &mut d.params {
                    if let Some(default) = &mut p.default {
                        self.expr(default)?;
                    }
                }
                d.slot = slot;
                self.function(d)?;
            }
            StmtKind::Delete(targets) => {
                for t in targets {
                    self.expr(t)?;
                }
            }
            StmtKind::Assert { test, msg } => {
                self.expr(test)?;
                if let Some(m) = msg {
                    self.expr(m)?;
                }
            }
            StmtKind::Return(None) | StmtKind::Pass | StmtKind::Break | StmtKind::Continue | StmtKind::ImportTyping { .. } => {}
        }
        Ok(())
    }

    fn comprehension(&mut self, gens: &mut [Comprehension], elts: &mut [&mut Expr]) -> Result<(), ParseError> {
        if let Some(first) = gens.first_mut() {
            self.expr(&mut first.iter)?;
        }
        self.scope().comps.push(HashMap::new());
        let result = (|| {
            for (i, g) in gens.iter_mut().enumerate() {
                if i > 0 {
                    self.expr(&mut g.iter)?;
                }
                let mut names = Vec::new();
                target_names(&g.target, &mut names);
                for name in names {
                    let scope = self.scope();
                    let slot = scope.n_locals;
                    scope.n_locals += 1;
                    if let Some(comp) = scope.comps.last_mut() {
                        comp.insert(name, slot);
                    }
                }
                self.expr(&mut g.target)?;
                for cond in &mut g.ifs {
                    self.expr(cond)?;
                }
            }
            for e in elts.iter_mut() {
                self.expr(e)?;
            }
            Ok(())
        })();
        self.scope().comps.pop();
        result
    }

    fn expr(&mut self, e: &mut Expr) -> Result<(), ParseError> {
        match &mut e.kind {
            ExprKind::Name { id, slot } => *slot = self.lookup(id, false, true),
            ExprKind::Const(_) => {}
            ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => {
                for i in items {
                    self.expr(i)?;
                }
            }
            ExprKind::Dict(pairs) => {
                for (k, v) in pairs {
                    self.expr(k)?;
                    self.expr(v)?;
                }
            }
            ExprKind::ListComp { elt, gens } | ExprKind::SetComp { elt, gens } | ExprKind::GenExp { elt, gens } => {
                self.comprehension(gens, &mut [elt])?;
            }
            ExprKind::DictComp { key, value, gens } => self.comprehension(gens, &mut [key, value])?,
            ExprKind::BinOp { left, right, .. } => {
                self.expr(left)?;
                self.expr(right)?;
            }
            ExprKind::UnaryOp { operand, .. } => self.expr(operand)?,
            ExprKind::BoolOp { values, .. } => {
                for v in values {
                    self.expr(v)?;
                }
            }
            ExprKind::Compare { left, comparators, .. } => {
                self.expr(left)?;
                for c in comparators {
                    self.expr(c)?;
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(test)?;
                self.expr(body)?;
                self.expr(orelse)?;
            }
            ExprKind::Call { func, args, keywords } => {
                self.expr(func)?;
                for a in args {
                    self.expr(a)?;
                }
                for k in keywords {
                    self.expr(&mut k.value)?;
                }
            }
            ExprKind::Attribute { value, .. } => self.expr(value)?,
            ExprKind::Subscript { value, index } => {
                self.expr(value)?;
                self.expr(index)?;
            }
            ExprKind::Slice { lower, upper, step } => {
                for part in [lower, upper, step].into_iter().flatten() {
                    self.expr(part)?;
                }
            }
            ExprKind::NamedExpr { target, slot, value } => {
                self.expr(value)?;
                *slot = self.lookup(target, true, false);
            }
            ExprKind::Lambda(def) => {
                let d = Rc::make_mut(def);
                for p in &mut d.params {
                    if let Some(default) = &mut p.default {
                        self.expr(default)?;
                    }
                }
                self.function(d)?;
            }
        }
        Ok(())
    }
}
