//! The syntax-tree rewriter behind the tracing prompts: a post-order visitor over every expression, and the
//! renaming that shows a function as task `N` (the function becomes `task_N`, its chained parameter
//! `list_N` / `val_N`, and every `return e` becomes `task_N_out = e` then `return task_N_out`). Renaming
//! follows Python's scopes: a nested function or lambda that binds the same name keeps its own.

use std::rc::Rc;

use super::ast::{Expr, ExprKind, FunctionDef, Module, Stmt, StmtKind};
use super::resolve::bindings;
use super::unparse::unparse_module;

/// Applies `f` to every expression (post-order), in statements and nested functions alike.
pub fn rewrite_stmt(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => rewrite_expr(e, f),
        StmtKind::Assign { targets, value } => {
            targets.iter_mut().for_each(|t| rewrite_expr(t, f));
            rewrite_expr(value, f);
        }
        StmtKind::AugAssign { target, value, .. } => {
            rewrite_expr(target, f);
            rewrite_expr(value, f);
        }
        StmtKind::AnnAssign { target, value, .. } => {
            rewrite_expr(target, f);
            if let Some(v) = value {
                rewrite_expr(v, f);
            }
        }
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            rewrite_expr(test, f);
            body.iter_mut().chain(orelse.iter_mut()).for_each(|s| rewrite_stmt(s, f));
        }
        StmtKind::For { target, iter, body, orelse } => {
            rewrite_expr(target, f);
            rewrite_expr(iter, f);
            body.iter_mut().chain(orelse.iter_mut()).for_each(|s| rewrite_stmt(s, f));
        }
        StmtKind::FunctionDef(def) => rewrite_def(Rc::make_mut(def), f),
        StmtKind::Delete(targets) => targets.iter_mut().for_each(|t| rewrite_expr(t, f)),
        StmtKind::Assert { test, msg } => {
            rewrite_expr(test, f);
            if let Some(m) = msg {
                rewrite_expr(m, f);
            }
        }
        StmtKind::Return(None) | StmtKind::Pass | StmtKind::Break | StmtKind::Continue | StmtKind::ImportTyping { .. } => {}
    }
}

fn rewrite_def(def: &mut FunctionDef, f: &mut dyn FnMut(&mut Expr)) {
    for p in &mut def.params {
        if let Some(d) = &mut p.default {
            rewrite_expr(d, f);
        }
    }
    def.body.iter_mut().for_each(|s| rewrite_stmt(s, f));
}

fn rewrite_expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Name { .. } | ExprKind::Const(_) => {}
        ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::Set(items) => items.iter_mut().for_each(|i| rewrite_expr(i, f)),
        ExprKind::Dict(pairs) => pairs.iter_mut().for_each(|(k, v)| {
            rewrite_expr(k, f);
            rewrite_expr(v, f);
        }),
        ExprKind::ListComp { elt, gens } | ExprKind::SetComp { elt, gens } | ExprKind::GenExp { elt, gens } => {
            rewrite_expr(elt, f);
            for g in gens {
                rewrite_expr(&mut g.target, f);
                rewrite_expr(&mut g.iter, f);
                g.ifs.iter_mut().for_each(|c| rewrite_expr(c, f));
            }
        }
        ExprKind::DictComp { key, value, gens } => {
            rewrite_expr(key, f);
            rewrite_expr(value, f);
            for g in gens {
                rewrite_expr(&mut g.target, f);
                rewrite_expr(&mut g.iter, f);
                g.ifs.iter_mut().for_each(|c| rewrite_expr(c, f));
            }
        }
        ExprKind::BinOp { left, right, .. } => {
            rewrite_expr(left, f);
            rewrite_expr(right, f);
        }
        ExprKind::UnaryOp { operand, .. } => rewrite_expr(operand, f),
        ExprKind::BoolOp { values, .. } => values.iter_mut().for_each(|v| rewrite_expr(v, f)),
        ExprKind::Compare { left, comparators, .. } => {
            rewrite_expr(left, f);
            comparators.iter_mut().for_each(|c| rewrite_expr(c, f));
        }
        ExprKind::IfExp { test, body, orelse } => {
            rewrite_expr(test, f);
            rewrite_expr(body, f);
            rewrite_expr(orelse, f);
        }
        ExprKind::Call { func, args, keywords } => {
            rewrite_expr(func, f);
            args.iter_mut().for_each(|a| rewrite_expr(a, f));
            keywords.iter_mut().for_each(|k| rewrite_expr(&mut k.value, f));
        }
        ExprKind::Attribute { value, .. } => rewrite_expr(value, f),
        ExprKind::Subscript { value, index } => {
            rewrite_expr(value, f);
            rewrite_expr(index, f);
        }
        ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step].into_iter().flatten() {
                rewrite_expr(part, f);
            }
        }
        ExprKind::NamedExpr { value, .. } => rewrite_expr(value, f),
        ExprKind::Lambda(def) => rewrite_def(Rc::make_mut(def), f),
    }
    f(e);
}

/// Renames `from` to `to` in a function body; nested functions that bind `from` themselves are left alone.
fn rename_in(body: &mut [Stmt], from: &str, to: &str) {
    for s in body.iter_mut() {
        rename_stmt(s, from, to);
    }
}

fn rename_stmt(s: &mut Stmt, from: &str, to: &str) {
    match &mut s.kind {
        StmtKind::FunctionDef(def) => {
            let d = Rc::make_mut(def);
            for p in &mut d.params {
                if let Some(default) = &mut p.default {
                    rename_expr(default, from, to);
                }
            }
            if !bindings(&d.params, &d.body).iter().any(|b| b == from) {
                rename_in(&mut d.body, from, to);
            }
        }
        _ => {
            // Rewrite expressions of this statement; nested function statements are handled above, and
            // statement bodies recurse through `rename_stmt` so nested defs keep their scoping check.
            match &mut s.kind {
                StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                    rename_expr(test, from, to);
                    rename_in(body, from, to);
                    rename_in(orelse, from, to);
                }
                StmtKind::For { target, iter, body, orelse } => {
                    rename_expr(target, from, to);
                    rename_expr(iter, from, to);
                    rename_in(body, from, to);
                    rename_in(orelse, from, to);
                }
                _ => rewrite_stmt(s, &mut |e| rename_leaf(e, from, to)),
            }
        }
    }
}

fn rename_expr(e: &mut Expr, from: &str, to: &str) {
    rewrite_expr(e, &mut |x| rename_leaf(x, from, to));
}

fn rename_leaf(e: &mut Expr, from: &str, to: &str) {
    match &mut e.kind {
        ExprKind::Name { id, .. } if id == from => *id = to.to_string(),
        ExprKind::NamedExpr { target, .. } if target == from => *target = to.to_string(),
        ExprKind::Lambda(def) if def.params.iter().any(|p| p.name == from) => {
            // The lambda's own parameter shadows the name: undo the renaming done inside it.
            rewrite_def(Rc::make_mut(def), &mut |x| {
                if let ExprKind::Name { id, .. } = &mut x.kind {
                    if id == to {
                        *id = from.to_string();
                    }
                }
            });
        }
        _ => {}
    }
}

/// `return e` → `task_N_out = e` + `return task_N_out` in the function's own body (not nested functions).
fn rewrite_returns(body: &mut Vec<Stmt>, out_name: &str) {
    let mut i = 0;
    while i < body.len() {
        match &mut body[i].kind {
            StmtKind::Return(Some(_)) => {
                let pos = body[i].pos;
                let StmtKind::Return(Some(value)) = std::mem::replace(&mut body[i].kind, StmtKind::Pass) else { continue };
                let target = Expr::new(ExprKind::Name { id: out_name.to_string(), slot: Default::default() }, pos);
                body[i].kind = StmtKind::Assign { targets: vec![target.clone()], value };
                body.insert(i + 1, Stmt { kind: StmtKind::Return(Some(target)), pos });
                i += 2;
                continue;
            }
            StmtKind::If { body: b, orelse, .. } | StmtKind::While { body: b, orelse, .. } | StmtKind::For { body: b, orelse, .. } => {
                rewrite_returns(b, out_name);
                rewrite_returns(orelse, out_name);
            }
            _ => {}
        }
        i += 1;
    }
}

/// The source shown in the prompt: the module with its task function renamed `task_N`, the chained parameter
/// renamed `local`, and returns saved in `task_N_out`.
pub fn rewritten_source(module: &Module, function: &str, number: usize, chained: &str, local: &str) -> String {
    let task_name = format!("task_{number}");
    let out_name = format!("task_{number}_out");
    let mut body = module.body.clone();
    for s in &mut body {
        // Recursive and helper calls to the task function use its new name.
        rewrite_stmt(s, &mut |e| {
            if let ExprKind::Name { id, .. } = &mut e.kind {
                if id == function {
                    *id = task_name.clone();
                }
            }
        });
        if let StmtKind::FunctionDef(def) = &mut s.kind {
            if def.name == function {
                let d = Rc::make_mut(def);
                d.name = task_name.clone();
                for p in &mut d.params {
                    if p.name == chained {
                        p.name = local.to_string();
                    }
                }
                rename_in(&mut d.body, chained, local);
                rewrite_returns(&mut d.body, &out_name);
            }
        }
    }
    unparse_module(&body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::python::parse_module;

    #[test]
    fn the_task_function_its_chained_parameter_and_its_returns_are_renamed_within_python_scopes() {
        let src = "def helper(nums):\n    return walk(nums, 0)\n\ndef walk(nums, k):\n    def inner(i):\n        return nums[i] + k\n    def own(nums):\n        return nums\n    f = lambda nums: nums * 2\n    if (n := len(nums)) > 3:\n        return walk(nums[1:], k)\n    for x in nums:\n        while x > k:\n            return inner(0) + f(x)\n    else:\n        return own([n])\n";
        let module = parse_module(src).expect("the sample parses");
        let expected = "def helper(nums):\n    return task_2(nums, 0)\n\ndef task_2(list_2, k):\n    def inner(i):\n        return list_2[i] + k\n    def own(nums):\n        return nums\n    f = lambda nums: nums * 2\n    if (n := len(list_2)) > 3:\n        task_2_out = task_2(list_2[1:], k)\n        return task_2_out\n    for x in list_2:\n        while x > k:\n            task_2_out = inner(0) + f(x)\n            return task_2_out\n    else:\n        task_2_out = own([n])\n        return task_2_out\n";
        assert_eq!(rewritten_source(&module, "walk", 2, "nums", "list_2"), expected);
    }

    #[test]
    fn rewrite_stmt_visits_every_expression_after_its_children() {
        let module = parse_module("def f(a=x):\n    return [y + z for y in w]\n").expect("parses");
        let mut seen = Vec::new();
        let mut body = module.body.clone();
        for s in &mut body {
            rewrite_stmt(s, &mut |e| {
                if let ExprKind::Name { id, .. } = &e.kind {
                    seen.push(id.clone());
                }
            });
        }
        assert_eq!(seen, ["x", "y", "z", "y", "w"]);
    }
}
