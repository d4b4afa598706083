//! The Python-tracing task family: the model traces a small algorithmic function by hand.
//!
//! Each pool file under `data/python/` (embedded at build time) holds one top-level function annotated with
//! `List[int]` / `int`; its annotations give the task's kinds. An instance binds the chained value (after
//! round-half-away + sign-preserving mod 100, lists truncated to 10) to the first parameter of the incoming
//! kind, draws every other parameter as a static value, and runs the function in our interpreter
//! (`engine::python`) under deterministic limits, retrying with fresh statics until the result is usable.
//! The prompt shows the function rewritten by an AST transform (`python::rewrite`): it is renamed `task_N`, the
//! chained parameter becomes `list_N` / `val_N`, and every `return e` becomes `task_N_out = e` then `return task_N_out`.
//!
//! Decisions that differ from the reference (see `docs/DEVIATIONS.md`):
//! * Static values in the prompt are the values the function was **called with** (pre-call). The reference
//!   prints the objects after the call, so a function that sorts a static list in place shows it sorted there.
//! * Every attempt starts from a fresh copy of the adapted chained value; the reference reuses one list
//!   object across attempts, so an in-place mutation in a failed attempt leaks into the next one.
//! * The chained parameter is renamed wherever it refers to the target function's parameter, including inside
//!   nested functions that read it as a closure variable (the reference skips nested `def`s, which can leave
//!   a dangling name); a nested function that binds the same name keeps its own.
//! * Runaway code ends on a step budget / memory cap instead of a 5-second wall-clock alarm.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::engine::adapter::{ListAdapter, ScalarAdapter, LIST_LEN_MAX, SCALAR_MAX_MAG};
use crate::engine::prompt::{fence_code, Prompt, Role};
use crate::engine::python::ast::{ExprKind, Module, Stmt, StmtKind};
use crate::engine::python::rewrite::{rewrite_stmt, rewritten_source};
use crate::engine::python::{self, FunctionSig, Limits, ParseError, PyValue};
use crate::engine::rng::InstanceRng;
use crate::engine::value::{Kind, Number, Value};

use super::{Family, StaticInput, Task, TaskContext, TaskError, TaskInfo, TaskInstance};

include!(concat!(env!("OUT_DIR"), "/python_pool.rs"));

/// How hard an instance may try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceOptions {
    /// Attempts with fresh static values before giving up (the reference uses 20, 200 for custom DAGs).
    pub attempts: u32,
    /// Interpreter limits per attempt.
    pub limits: Limits,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions { attempts: 20, limits: Limits::default() }
    }
}

/// A located problem in user-supplied source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct SourceError {
    /// 1-based line (in the text the user supplied).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    pub message: String,
    /// True when the code is valid Python that the interpreter does not support.
    pub unsupported: bool,
}

impl SourceError {
    fn from_parse(e: &ParseError, line_offset: u32, column_offset: u32) -> SourceError {
        let pos = e.pos();
        let (message, unsupported) = match e {
            ParseError::Syntax { message, .. } => (message.clone(), false),
            ParseError::UnsupportedFeature { what, .. } => (format!("unsupported: {what}"), true),
        };
        SourceError { line: pos.line + line_offset, column: pos.col + column_offset, message, unsupported }
    }

    fn at(line: u32, message: impl Into<String>) -> SourceError {
        SourceError { line, column: 1, message: message.into(), unsupported: false }
    }
}

/// A parsed function ready to become a tracing task.
#[derive(Clone, Debug)]
pub struct UserFunction {
    module: Rc<Module>,
    signature: FunctionSig,
    /// `Easy` / `Medium` / `Hard` when known.
    pub difficulty: Option<String>,
    /// A topic label when known.
    pub topic: Option<String>,
    /// The problem number a reference pool header gives (`ID: 368`), when known.
    pub problem_id: Option<u32>,
}

impl UserFunction {
    /// Parses pasted source; the first top-level function is the task. Errors are located precisely.
    pub fn from_source(src: &str) -> Result<UserFunction, Vec<SourceError>> {
        let module = python::parse_module(src).map_err(|e| vec![SourceError::from_parse(&e, 0, 0)])?;
        let (difficulty, topic) = header_labels(src);
        UserFunction::from_module(module, None, 0).map(|f| UserFunction { difficulty, topic, ..f })
    }

    fn from_module(module: Module, name: Option<&str>, line_offset: u32) -> Result<UserFunction, Vec<SourceError>> {
        let def = match name {
            Some(n) => module.function(n),
            None => module.first_function(),
        };
        let Some(def) = def else {
            let what = name.map(|n| format!("no function named `{n}`")).unwrap_or_else(|| "no function definition found".into());
            return Err(vec![SourceError::at(line_offset + 1, what)]);
        };
        if def.params.is_empty() {
            return Err(vec![SourceError {
                line: def.pos.line + line_offset,
                column: def.pos.col,
                message: format!("`{}` takes no parameters, so it cannot receive a chained value", def.name),
                unsupported: false,
            }]);
        }
        let signature = FunctionSig::of(def);
        Ok(UserFunction { module: Rc::new(module), signature, difficulty: None, topic: None, problem_id: None })
    }

    /// The parsed module the function lives in (with its helpers).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The function's typed signature.
    pub fn signature(&self) -> &FunctionSig {
        &self.signature
    }

    /// Input kinds offered (list first).
    pub fn input_kinds(&self) -> Vec<Kind> {
        self.signature.input_kinds()
    }

    /// Output kind from the return annotation.
    pub fn output_kind(&self) -> Kind {
        self.signature.returns
    }

    /// The task for a registry, under `key` (must be unique there) and `task_id`.
    pub fn into_task(self, key: &str, task_id: u32, options: TraceOptions) -> Rc<dyn Task> {
        Rc::new(PythonTask::new(key, task_id, self, options))
    }
}

/// One block of a reference pool file that could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("block {block} (line {line}): {}", errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
pub struct BlockError {
    /// 0-based block index (the reference's `task_id`).
    pub block: usize,
    /// Line of the block's header in the file.
    pub line: u32,
    pub errors: Vec<SourceError>,
}

/// Reads the reference's pool format: blocks separated by a line of 80 dashes, each a header line
/// `<name> -> ID: <n> | Difficulty: <d>` and a `class Solution:` whose methods take `self`. The class is
/// stripped, `self` dropped, `self.f(...)` turned into `f(...)`, later methods repeating a name removed; the
/// task is the first method named in the header.
pub fn load_reference_pool(text: &str) -> Vec<Result<UserFunction, BlockError>> {
    let separator = "-".repeat(80);
    let mut blocks: Vec<(u32, Vec<&str>)> = vec![(1, Vec::new())];
    for (i, line) in text.lines().enumerate() {
        if line.trim_end() == separator {
            blocks.push((i as u32 + 2, Vec::new()));
        } else if let Some(last) = blocks.last_mut() {
            last.1.push(line);
        }
    }
    blocks.retain(|(_, lines)| lines.iter().any(|l| !l.trim().is_empty()));
    blocks.into_iter().enumerate().map(|(index, (start, lines))| load_block(index, start, &lines)).collect()
}

fn load_block(block: usize, start: u32, lines: &[&str]) -> Result<UserFunction, BlockError> {
    let fail = |line: u32, errors: Vec<SourceError>| BlockError { block, line, errors };
    let Some(header_at) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return Err(fail(start, vec![SourceError::at(start, "empty block")]));
    };
    let header_line = start + header_at as u32;
    let header = lines[header_at].trim();
    let Some((name, rest)) = header.split_once(" -> ") else {
        return Err(fail(header_line, vec![SourceError::at(header_line, "expected a header `<name> -> ID: <n> | Difficulty: <d>`")]));
    };
    let name = name.trim().to_string();
    let difficulty = rest.split('|').find_map(|part| part.trim().strip_prefix("Difficulty:")).map(|d| d.trim().to_string());
    let problem_id = rest.split('|').find_map(|part| part.trim().strip_prefix("ID:")).and_then(|d| d.trim().parse().ok());
    // Drop the class line and de-indent its body.
    let body: Vec<&str> = lines[header_at + 1..].to_vec();
    let Some(class_at) = body.iter().position(|l| !l.trim().is_empty()) else {
        return Err(fail(header_line, vec![SourceError::at(header_line, "the block has no code")]));
    };
    let class_line = header_line + 1 + class_at as u32;
    let code_lines: &[&str] = if body[class_at].trim_start().starts_with("class ") { &body[class_at + 1..] } else { &body[class_at..] };
    let first_code_line = if code_lines.len() < body.len() - class_at { class_line + 1 } else { class_line };
    let indent = code_lines.iter().find(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).unwrap_or(0);
    let dedented: String = code_lines
        .iter()
        .map(|l| match (l.get(..indent), l.get(indent..)) {
            (Some(head), Some(rest)) if head.trim().is_empty() => rest,
            _ => l.trim_start(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let line_offset = first_code_line - 1;
    let located = |e: ParseError| fail(header_line, vec![SourceError::from_parse(&e, line_offset, indent as u32)]);
    let tree = python::parser::parse_tree(&dedented).map_err(located)?;
    let tree = strip_self(tree);
    let module = python::resolve(tree).map_err(located)?;
    let f = UserFunction::from_module(module, Some(&name), line_offset).map_err(|errors| fail(header_line, errors))?;
    Ok(UserFunction { difficulty, topic: None, problem_id, ..f })
}

/// Turns class methods into plain functions: drops a leading `self` parameter, rewrites `self.x` to `x`, and
/// removes later definitions that repeat an earlier function's name.
fn strip_self(tree: Vec<Stmt>) -> Vec<Stmt> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for mut stmt in tree {
        if let StmtKind::FunctionDef(def) = &mut stmt.kind {
            if seen.contains(&def.name) {
                continue;
            }
            seen.push(def.name.clone());
            let d = Rc::make_mut(def);
            if d.params.first().is_some_and(|p| p.name == "self") {
                d.params.remove(0);
            }
        }
        rewrite_stmt(&mut stmt, &mut |e| {
            if let ExprKind::Attribute { value, attr } = &e.kind {
                if matches!(&value.kind, ExprKind::Name { id, .. } if id == "self") {
                    e.kind = ExprKind::Name { id: attr.clone(), slot: Default::default() };
                }
            }
        });
        out.push(stmt);
    }
    out
}

/// `# difficulty: X` and `# topic: Y` labels from a pool file's leading comments.
fn header_labels(src: &str) -> (Option<String>, Option<String>) {
    let mut difficulty = None;
    let mut topic = None;
    for line in src.lines().take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
        let text = line.trim_start().trim_start_matches('#').trim();
        if let Some(d) = text.strip_prefix("difficulty:") {
            difficulty = Some(d.trim().to_string());
        } else if let Some(t) = text.strip_prefix("topic:") {
            topic = Some(t.trim().to_string());
        }
    }
    (difficulty, topic)
}

// ---------------------------------------------------------------------- the task

/// A tracing task over one function.
pub struct PythonTask {
    info: TaskInfo,
    function: UserFunction,
    options: TraceOptions,
    /// Rewritten source per (task number, chained parameter index): printing is the costliest part of an
    /// instance, and graphs reuse the same few task numbers.
    code_cache: RefCell<HashMap<(usize, usize), Rc<str>>>,
}

impl PythonTask {
    /// A task over a parsed function.
    pub fn new(key: &str, task_id: u32, function: UserFunction, options: TraceOptions) -> PythonTask {
        let sig = function.signature();
        let mut description = format!("trace `{}`", sig.name);
        let labels: Vec<&str> = [function.difficulty.as_deref(), function.topic.as_deref()].into_iter().flatten().collect();
        if !labels.is_empty() {
            description.push_str(&format!(" ({})", labels.join(", ")));
        }
        let info = TaskInfo {
            key: key.to_string(),
            family: Family::Python,
            task_id,
            name: sig.name.clone(),
            input_kinds: sig.input_kinds(),
            output_kind: sig.returns,
            description,
        };
        PythonTask { info, function, options, code_cache: RefCell::default() }
    }

    /// The same task offering only `kinds` as inputs (each one the function accepts), in that order: a pack
    /// keeps the kinds its trial runs showed usable.
    pub fn with_input_kinds(mut self, kinds: Vec<Kind>) -> PythonTask {
        if !kinds.is_empty() && kinds.iter().all(|k| self.info.input_kinds.contains(k)) {
            self.info.input_kinds = kinds;
        }
        self
    }

    /// The same task with other options (custom DAGs ask for 200 attempts).
    pub fn with_options(&self, options: TraceOptions) -> PythonTask {
        PythonTask { info: self.info.clone(), function: self.function.clone(), options, code_cache: RefCell::default() }
    }

    /// The function behind the task.
    pub fn function(&self) -> &UserFunction {
        &self.function
    }

    fn chained_index(&self, kind: Kind) -> usize {
        self.function.signature.params.iter().position(|p| p.kind == kind).unwrap_or(0)
    }

    fn draw_static(kind: Kind, rng: &mut InstanceRng) -> Value {
        match kind {
            Kind::List => Value::List((0..LIST_LEN_MAX).map(|_| Number::Int(rng.int_in(-SCALAR_MAX_MAG, SCALAR_MAX_MAG))).collect()),
            Kind::Scalar => Value::int(rng.int_in(-SCALAR_MAX_MAG, SCALAR_MAX_MAG)),
        }
    }

    /// Runs one attempt; `None` when the result is not usable (a degenerate output).
    fn attempt(&self, chained: usize, adapted: &Value, statics: &[(usize, Value)], want: Kind) -> Option<Value> {
        let sig = &self.function.signature;
        let kwargs: Vec<(String, PyValue)> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let v = if i == chained { adapted } else { statics.iter().find(|(j, _)| *j == i).map(|(_, v)| v).unwrap_or(adapted) };
                (p.name.clone(), python::from_engine_value(v))
            })
            .collect();
        let result = python::call(&self.function.module, &sig.name, &[], &kwargs, &self.options.limits).ok()?;
        let value = match (&result, want) {
            (PyValue::None, _) => return None,
            (PyValue::Set(s), Kind::List) => python::to_engine_value(&PyValue::list(s.borrow().items())).ok()?,
            (PyValue::List(_) | PyValue::Tuple(_), Kind::List) => python::to_engine_value(&result).ok()?,
            (PyValue::Int(_) | PyValue::Float(_), Kind::Scalar) => python::to_engine_value(&result).ok()?,
            _ => return None,
        };
        match &value {
            Value::List(items) if items.is_empty() => None,
            Value::Scalar(x) if [0.0, 1.0, -1.0].contains(&x.as_f64()) => None,
            _ => Some(value),
        }
    }

    fn prompt(&self, ctx: &TaskContext<'_>, chained: usize, kind: Kind) -> Prompt {
        let n = ctx.number;
        let sig = &self.function.signature;
        let local = match kind {
            Kind::List => format!("list_{n}"),
            Kind::Scalar => format!("val_{n}"),
        };
        let mut p = Prompt::new();
        p.push(Role::Instruction, &format!("Task {n}:\n"));
        match kind {
            Kind::List => ListAdapter::SEQ.describe(&mut p, &local, ctx.input_name),
            Kind::Scalar => ScalarAdapter::ROUND_MOD.describe(&mut p, &local, ctx.input_name),
        }
        let args: Vec<String> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, q)| if i == chained { format!("{local}={local}") } else { format!("{}=task_{n}_{}_static", q.name, q.name) })
            .collect();
        p.push(Role::Instruction, &format!("Trace by hand the Python function below for the call task_{n}({})", args.join(", ")));
        p.push(Role::Instruction, ", and save the value it returns as ");
        p.push(Role::OutputName, &format!("task_{n}_out"));
        p.push(Role::Instruction, ".\n");
        let cached = self.code_cache.borrow().get(&(n, chained)).cloned();
        let code = cached.unwrap_or_else(|| {
            let code: Rc<str> = rewritten_source(&self.function.module, &sig.name, n, &sig.params[chained].name, &local).into();
            self.code_cache.borrow_mut().insert((n, chained), code.clone());
            code
        });
        p.push(Role::Computation, &fence_code("python", &code));
        p
    }
}

impl Task for PythonTask {
    fn info(&self) -> &TaskInfo {
        &self.info
    }

    fn instantiate(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        let kind = ctx.input.kind();
        if !self.info.accepts(kind) {
            return Err(TaskError::UnsupportedKind(kind));
        }
        let want = ctx.output_kind.unwrap_or(self.info.output_kind);
        if want != self.info.output_kind {
            return Err(TaskError::Compute(format!(
                "`{}` returns a {} but a {want} output is required",
                self.info.name, self.info.output_kind
            )));
        }
        let chained = self.chained_index(kind);
        let adapted = match kind {
            Kind::List => Value::List(ListAdapter::SEQ.apply_value(ctx.input)?),
            Kind::Scalar => Value::Scalar(ScalarAdapter::ROUND_MOD.apply_value(ctx.input)?),
        };
        let params = &self.function.signature.params;
        for _ in 0..self.options.attempts {
            let statics: Vec<(usize, Value)> =
                params.iter().enumerate().filter(|(i, _)| *i != chained).map(|(i, p)| (i, Self::draw_static(p.kind, rng))).collect();
            if let Some(output) = self.attempt(chained, &adapted, &statics, want) {
                let statics = statics.into_iter().map(|(i, value)| StaticInput { param: params[i].name.clone(), value }).collect();
                return Ok(TaskInstance { body: self.prompt(ctx, chained, kind), output, statics, template_index: None, picture: None });
            }
        }
        Err(TaskError::Exhausted { attempts: self.options.attempts })
    }
}

/// Every built-in tracing task, in pool order (`task_id` = position in the pool, key `python.<file stem>`).
/// Pool files that do not parse are skipped (the tests require every one to parse).
pub fn all() -> Vec<Rc<dyn Task>> {
    POOL.iter()
        .enumerate()
        .filter_map(|(i, (stem, src))| {
            let f = UserFunction::from_source(src).ok()?;
            Some(f.into_task(&format!("python.{stem}"), i as u32, TraceOptions::default()))
        })
        .collect()
}

/// The pool's parse problems, per file stem (empty when every file is usable).
pub fn pool_problems() -> Vec<(String, Vec<SourceError>)> {
    POOL.iter().filter_map(|(stem, src)| UserFunction::from_source(src).err().map(|e| (stem.to_string(), e))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx<'a>(input: &'a Value, output_kind: Option<Kind>) -> TaskContext<'a> {
        TaskContext { number: 3, input_name: "task_2_out", input, output_kind }
    }

    /// Re-runs the prompt's rewritten code with the instance's inputs and returns its result.
    fn rerun(task: &PythonTask, instance: &TaskInstance, input: &Value) -> Value {
        let kind = input.kind();
        let sig = task.function().signature();
        let chained = task.chained_index(kind);
        let local = if kind == Kind::List { "list_3" } else { "val_3" };
        let code = rewritten_source(&task.function().module, &sig.name, 3, &sig.params[chained].name, local);
        let module = python::parse_module(&code).unwrap_or_else(|e| panic!("rewritten code does not parse: {e}\n{code}"));
        let adapted = match kind {
            Kind::List => Value::List(ListAdapter::SEQ.apply_value(input).unwrap_or_default()),
            Kind::Scalar => Value::Scalar(ScalarAdapter::ROUND_MOD.apply_value(input).unwrap_or(Number::Int(0))),
        };
        let mut kwargs = vec![(local.to_string(), python::from_engine_value(&adapted))];
        kwargs.extend(instance.statics.iter().map(|s| (s.param.clone(), python::from_engine_value(&s.value))));
        let out = python::call(&module, "task_3", &[], &kwargs, &Limits::default()).unwrap_or_else(|e| panic!("{e}\n{code}"));
        let out = match out {
            PyValue::Set(s) => PyValue::list(s.borrow().items()),
            other => other,
        };
        python::to_engine_value(&out).unwrap_or(Value::int(0))
    }

    fn pool_tasks() -> Vec<PythonTask> {
        POOL.iter()
            .enumerate()
            .filter_map(|(i, (stem, src))| {
                UserFunction::from_source(src)
                    .ok()
                    .map(|f| PythonTask::new(&format!("python.{stem}"), i as u32, f, TraceOptions::default()))
            })
            .collect()
    }

    #[test]
    fn every_pool_file_parses_into_a_task() {
        assert_eq!(pool_problems(), Vec::new());
        assert_eq!(all().len(), POOL.len());
        assert!(!POOL.is_empty());
    }

    #[test]
    fn rewritten_prompt_code_recomputes_the_ground_truth_with_the_shown_statics() {
        let inputs = [
            Value::ints(&[5, -3, 12, 7, -8, 0, 44, -61, 9, 13, 250]),
            Value::List(vec![Number::Float(2.5), Number::Int(-7), Number::Float(-3.5), Number::Int(140)]),
            Value::int(-437),
            Value::Scalar(Number::Float(57.5)),
        ];
        let mut made = 0;
        for task in pool_tasks() {
            for input in &inputs {
                if !task.info().accepts(input.kind()) {
                    continue;
                }
                for seed in 0..4 {
                    let mut rng = InstanceRng::from_seed(seed);
                    let Ok(instance) = task.instantiate(&ctx(input, None), &mut rng) else { continue };
                    made += 1;
                    assert_eq!(instance.output.kind(), task.info().output_kind);
                    assert_eq!(rerun(&task, &instance, input), instance.output, "{} on {input}", task.info().key);
                }
            }
        }
        assert!(made > 0);
    }

    #[test]
    fn instances_are_deterministic_and_reject_degenerate_outputs() {
        for task in pool_tasks() {
            let input = Value::ints(&[3, 1, 4, 1, 5, 9, 2, 6]);
            if !task.info().accepts(Kind::List) {
                continue;
            }
            let a = task.instantiate(&ctx(&input, None), &mut InstanceRng::from_seed(7));
            let b = task.instantiate(&ctx(&input, None), &mut InstanceRng::from_seed(7));
            assert_eq!(a, b);
            if let Ok(instance) = a {
                match &instance.output {
                    Value::Scalar(x) => assert!(![0.0, 1.0, -1.0].contains(&x.as_f64())),
                    Value::List(items) => assert!(!items.is_empty()),
                }
            }
        }
    }

    const SAMPLE: &str = "# difficulty: Medium\n# topic: closures\ndef spread(nums: List[int], k: int) -> int:\n    def pick(i):\n        return nums[i % len(nums)] * k\n    best = max(pick(i) for i in range(len(nums)))\n    if best > 50:\n        return best - k\n    return best + len([x for x in nums if x > k])\n";

    #[test]
    fn prompt_renames_function_chained_parameter_and_returns() {
        let task = PythonTask::new("python.sample", 0, UserFunction::from_source(SAMPLE).expect("sample parses"), TraceOptions::default());
        assert_eq!(task.info().input_kinds, vec![Kind::List, Kind::Scalar]);
        assert_eq!(task.info().description, "trace `spread` (Medium, closures)");
        let input = Value::ints(&[10, -20, 30]);
        let instance = task.instantiate(&ctx(&input, None), &mut InstanceRng::from_seed(1)).expect("an instance");
        assert_eq!(instance.statics.len(), 1);
        assert_eq!(instance.statics[0].param, "k");
        let text = instance.body.text();
        let expected_code = "```python\ndef task_3(list_3: List[int], k: int) -> int:\n    def pick(i):\n        return list_3[i % len(list_3)] * k\n    best = max(pick(i) for i in range(len(list_3)))\n    if best > 50:\n        task_3_out = best - k\n        return task_3_out\n    task_3_out = best + len([x for x in list_3 if x > k])\n    return task_3_out\n```\n";
        assert!(text.starts_with("Task 3:\nLet list_3 be task_2_out with every element preprocessed as follows: "), "{text}");
        assert!(text.contains("\nTrace by hand the Python function below for the call task_3(list_3=list_3, k=task_3_k_static), and save the value it returns as task_3_out.\n```python\n"), "{text}");
        assert!(text.ends_with(expected_code), "{text}");
        assert_eq!(rerun(&task, &instance, &input), instance.output);
        // A scalar input binds `k` instead, and the list becomes the static.
        let scalar = Value::int(7);
        let instance = task.instantiate(&ctx(&scalar, None), &mut InstanceRng::from_seed(1)).expect("an instance");
        assert_eq!(instance.statics[0].param, "nums");
        assert!(instance.body.text().contains("for the call task_3(nums=task_3_nums_static, val_3=val_3), and"));
        assert!(instance.body.text().contains("def task_3(nums: List[int], val_3: int) -> int:"));
        assert_eq!(rerun(&task, &instance, &scalar), instance.output);
    }

    #[test]
    fn output_kind_requests_and_input_kinds_are_enforced() {
        let task = PythonTask::new("python.sample", 0, UserFunction::from_source(SAMPLE).expect("sample parses"), TraceOptions::default());
        let input = Value::ints(&[1, 2]);
        assert!(matches!(task.instantiate(&ctx(&input, Some(Kind::List)), &mut InstanceRng::from_seed(1)), Err(TaskError::Compute(_))));
        let only_list = UserFunction::from_source("def f(a: List[int]) -> int:\n    return a[0] * 7\n").expect("parses");
        let t = only_list.into_task("python.f", 1, TraceOptions::default());
        assert_eq!(
            t.instantiate(&ctx(&Value::int(5), None), &mut InstanceRng::from_seed(1)),
            Err(TaskError::UnsupportedKind(Kind::Scalar))
        );
        let never = UserFunction::from_source("def g(a: List[int]) -> int:\n    return 0\n").expect("parses");
        let t = PythonTask::new("python.g", 2, never, TraceOptions { attempts: 200, ..TraceOptions::default() });
        assert_eq!(t.instantiate(&ctx(&input, None), &mut InstanceRng::from_seed(1)), Err(TaskError::Exhausted { attempts: 200 }));
    }

    #[test]
    fn user_source_errors_are_located() {
        let err = |src: &str| UserFunction::from_source(src).err().unwrap_or_default();
        assert_eq!(
            err("def f(a: List[int]) -> int:\n    with open(a) as h:\n        pass\n"),
            vec![SourceError { line: 2, column: 5, message: "unsupported: with statements".into(), unsupported: true }]
        );
        assert_eq!(
            err("def f(a: List[int]) -> int:\n    return a[\n"),
            vec![SourceError { line: 3, column: 1, message: "unexpected end of file inside brackets".into(), unsupported: false }]
        );
        assert_eq!(
            err("x = 1\n"),
            vec![SourceError { line: 1, column: 1, message: "no function definition found".into(), unsupported: false }]
        );
        assert_eq!(err("def f():\n    return 2\n")[0].message, "`f` takes no parameters, so it cannot receive a chained value");
        let ok = UserFunction::from_source("def h(x: int, ys: list[int]) -> List[int]:\n    return [y * x for y in ys]\n").expect("parses");
        assert_eq!((ok.input_kinds(), ok.output_kind()), (vec![Kind::List, Kind::Scalar], Kind::List));
    }

    #[test]
    fn reference_pool_format_loads_methods_as_functions() {
        let dashes = "-".repeat(80);
        let text = format!(
            "countUp -> ID: 1 | Difficulty: Easy\nclass Solution:\n    def countUp(self, nums: List[int]) -> int:\n        return self.helper(nums, 0) * 2\n\n    def helper(self, nums: List[int], i: int) -> int:\n        return 0 if i >= len(nums) else nums[i] + self.helper(nums, i + 1)\n\n    def countUp(self, nums: List[int]) -> int:\n        return -1\n{dashes}\nbroken -> ID: 2 | Difficulty: Hard\nclass Solution:\n    def broken(self, x: int) -> int:\n        return x +\n{dashes}\nmissing -> ID: 3 | Difficulty: Medium\nclass Solution:\n    def other(self, x: int) -> int:\n        return x\n"
        );
        let loaded = load_reference_pool(&text);
        assert_eq!(loaded.len(), 3);
        let first = loaded[0].as_ref().expect("first block loads");
        assert_eq!((first.signature().name.as_str(), first.difficulty.as_deref()), ("countUp", Some("Easy")));
        let result = python::call(
            &first.module,
            "countUp",
            &[],
            &[("nums".into(), PyValue::list(vec![PyValue::Int(4), PyValue::Int(-1)]))],
            &Limits::default(),
        );
        assert_eq!(result.map(|v| v.repr()), Ok("6".to_string()));
        let code = rewritten_source(&first.module, "countUp", 1, "nums", "list_1");
        assert_eq!(code.matches("def task_1(").count(), 1, "{code}");
        assert!(code.contains("task_1_out = helper(list_1, 0) * 2"), "{code}");
        let broken = loaded[1].as_ref().expect_err("second block fails");
        assert_eq!((broken.block, broken.line), (1, 12));
        assert_eq!((broken.errors[0].line, broken.errors[0].column), (15, 19));
        let missing = loaded[2].as_ref().expect_err("third block fails");
        assert_eq!(missing.errors[0].message, "no function named `missing`");
    }
}
