//! The LeetCode-style pool as a pack: the reference's `leetcode_candidate_algos.txt` format, read by
//! `python_trace::load_reference_pool`, with every function typed and tried before it becomes a task.
//!
//! A function's kinds come from its annotations (a `List[...]` parameter takes lists, any other one scalars; the
//! return annotation gives the output kind), then a trial run checks them: for each input kind the annotations
//! offer, `TRIALS` calls with the inputs the generator draws (the chained value as the adapter leaves it, the other
//! parameters as static values) must give at least one usable value of the annotated output kind. A kind that never
//! does is dropped with a note; a function with no usable kind is refused with the most frequent failure
//! (`IndexError: list index out of range in 12 of 12 trial runs with a list input`).
//!
//! ```text
//! longestWPI -> ID: 1124 | Difficulty: Medium
//! class Solution:
//!     def longestWPI(self, hours: List[int]) -> int:
//!         ...
//! ```
//! becomes `python.ref.longestWPI` (list → scalar), traced in our prompt style.

use std::rc::Rc;

use super::{unique_keys, PackEntry, PackError, PackKind, Refusal};
use crate::engine::python::{self, Limits, PyValue};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::python_trace::{load_reference_pool, PythonTask, TraceOptions, UserFunction};
use crate::engine::tasks::Task;
use crate::engine::value::{Kind, Value};

/// Trial calls per input kind.
pub const TRIALS: u32 = 12;

/// What rebuilds a pool's tasks: its text.
#[derive(Clone, Debug)]
pub struct PoolContent {
    text: String,
}

impl PoolContent {
    /// One task per entry (an entry's `task_id` is its block's position).
    pub(super) fn tasks(&self, entries: &[PackEntry]) -> Vec<Rc<dyn Task>> {
        let loaded = load_reference_pool(&self.text);
        entries
            .iter()
            .filter_map(|entry| {
                let function = loaded.get(entry.task_id as usize)?.as_ref().ok()?.clone();
                let task = PythonTask::new(&entry.key, entry.task_id, function, TraceOptions::default()).with_input_kinds(entry.input_kinds.clone());
                Some(Rc::new(task) as Rc<dyn Task>)
            })
            .collect()
    }
}

/// A block's header: its line and the function it names.
struct Header {
    line: usize,
    name: String,
    id: Option<u32>,
}

/// Reads the pool in `text` (from `file`): the content, the usable entries and the refusals.
pub(super) fn read(file: &str, text: &str) -> Result<(PoolContent, Vec<PackEntry>, Vec<Refusal>), PackError> {
    let headers = headers(file, text)?;
    let loaded = load_reference_pool(text);
    let prefix = PackKind::PythonRef.prefix();
    let names: Vec<(String, Option<u32>, u32)> = headers.iter().enumerate().map(|(i, h)| (h.name.clone(), h.id, i as u32)).collect();
    let keys = unique_keys(&prefix, &names);
    let mut entries = Vec::new();
    let mut refused = Vec::new();
    for (index, (result, header)) in loaded.iter().zip(&headers).enumerate() {
        let location = format!("line {}", header.line);
        match result {
            Err(e) => {
                let reason = e.errors.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("; ");
                refused.push(Refusal { name: header.name.clone(), location, reason });
            }
            Ok(function) => match trial(function) {
                Ok((input_kinds, notes)) => entries.push(PackEntry {
                    key: keys[index].clone(),
                    name: function.signature().name.clone(),
                    task_id: index as u32,
                    input_kinds,
                    output_kind: function.output_kind(),
                    location,
                    notes,
                }),
                Err(reason) => refused.push(Refusal { name: header.name.clone(), location, reason }),
            },
        }
    }
    Ok((PoolContent { text: text.to_string() }, entries, refused))
}

/// Every block's header, as `load_reference_pool` splits the text (blocks between lines of 80 dashes, blank
/// blocks skipped); a block that does not start with a header is a broken pool.
fn headers(file: &str, text: &str) -> Result<Vec<Header>, PackError> {
    let separator = "-".repeat(80);
    let mut out = Vec::new();
    let mut expecting = true;
    for (i, line) in text.lines().enumerate() {
        if line.trim_end() == separator {
            expecting = true;
            continue;
        }
        if !expecting || line.trim().is_empty() {
            continue;
        }
        expecting = false;
        let fail = |message: String| PackError { file: file.to_string(), line: Some(i + 1), message };
        let Some((name, rest)) = line.trim().split_once(" -> ") else {
            let shown: String = line.trim().chars().take(60).collect();
            return Err(fail(format!("expected a block header `<function name> -> ID: <n> | Difficulty: <level>`, found `{shown}`")));
        };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(fail(format!("`{name}` is not a function name (the header reads `<function name> -> ID: <n> | Difficulty: <level>`)")));
        }
        let id = rest.split('|').find_map(|part| part.trim().strip_prefix("ID:")).and_then(|d| d.trim().parse().ok());
        out.push(Header { line: i + 1, name: name.to_string(), id });
    }
    if out.is_empty() {
        return Err(PackError {
            file: file.to_string(),
            line: None,
            message: "no functions: a pool is blocks, each a header `<function name> -> ID: <n> | Difficulty: <level>` and its code, separated by lines of 80 dashes".into(),
        });
    }
    Ok(out)
}

/// How one trial call went.
enum Outcome {
    Usable,
    Degenerate,
    Failed(String),
}

/// Tries `function` on each input kind its annotations offer: the usable kinds (never empty) with notes on the
/// dropped ones, or why none works.
pub fn trial(function: &UserFunction) -> Result<(Vec<Kind>, Vec<String>), String> {
    let sig = function.signature();
    let mut usable = Vec::new();
    let mut failures = Vec::new();
    for (k, kind) in sig.input_kinds().into_iter().enumerate() {
        let chained = sig.params.iter().position(|p| p.kind == kind).unwrap_or(0);
        let mut rng = InstanceRng::from_seed(0x7472_6961_6c00 + k as u64); // "trial"
        let mut outcomes = Vec::new();
        for _ in 0..TRIALS {
            let kwargs: Vec<(String, PyValue)> = sig
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    // The chained value is what the adapter leaves (|x| < 100); static values span [-100, 100].
                    let bound = if i == chained { 99 } else { 100 };
                    let value = match p.kind {
                        Kind::List => Value::List((0..10).map(|_| crate::engine::value::Number::Int(rng.int_in(-bound, bound))).collect()),
                        Kind::Scalar => Value::int(rng.int_in(-bound, bound)),
                    };
                    (p.name.clone(), python::from_engine_value(&value))
                })
                .collect();
            outcomes.push(classify(python::call(function.module(), &sig.name, &[], &kwargs, &Limits::default()), sig.returns));
        }
        if outcomes.iter().any(|o| matches!(o, Outcome::Usable)) {
            usable.push(kind);
        } else {
            failures.push((kind, summary(&outcomes)));
        }
    }
    let describe = |(kind, why): &(Kind, String)| format!("with a {kind} input, {why}");
    if usable.is_empty() {
        return Err(failures.iter().map(describe).collect::<Vec<_>>().join("; "));
    }
    let notes = failures.iter().map(|f| format!("takes no {} input: {}", f.0, describe(f))).collect();
    Ok((usable, notes))
}

/// Sorts one call's result into usable, degenerate or failed (with the reason).
fn classify(result: Result<PyValue, python::RunError>, annotated: Kind) -> Outcome {
    let value = match result {
        Err(e) => return Outcome::Failed(e.to_string()),
        Ok(v) => v,
    };
    let (kind, converted) = match &value {
        PyValue::None => return Outcome::Failed("it returns None".into()),
        PyValue::Set(s) => (Kind::List, python::to_engine_value(&PyValue::list(s.borrow().items()))),
        PyValue::List(_) | PyValue::Tuple(_) => (Kind::List, python::to_engine_value(&value)),
        PyValue::Int(_) | PyValue::Float(_) | PyValue::Big(_) => (Kind::Scalar, python::to_engine_value(&value)),
        other => return Outcome::Failed(format!("it returns a {}, not a number or a list of numbers", other.type_name())),
    };
    if kind != annotated {
        return Outcome::Failed(format!("it returns a {kind} although its annotation says {annotated}"));
    }
    match converted {
        Err(e) => Outcome::Failed(format!("its result cannot be used: {e}")),
        Ok(Value::List(items)) if items.is_empty() => Outcome::Degenerate,
        Ok(Value::Scalar(x)) if [0.0, 1.0, -1.0].contains(&x.as_f64()) => Outcome::Degenerate,
        Ok(_) => Outcome::Usable,
    }
}

/// The most frequent failure of a kind's trials (the first seen among equals), with its count.
fn summary(outcomes: &[Outcome]) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for outcome in outcomes {
        let reason = match outcome {
            Outcome::Failed(reason) => reason.clone(),
            Outcome::Degenerate => "it returns only 0, 1, -1 or an empty list".to_string(),
            Outcome::Usable => continue,
        };
        match counts.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((reason, 1)),
        }
    }
    let Some((reason, n)) = counts.iter().fold(None::<&(String, usize)>, |best, c| if best.is_none_or(|b| c.1 > b.1) { Some(c) } else { best }) else {
        return "no trial run".into();
    };
    format!("{reason} ({n} of {} trial runs)", outcomes.len())
}

/// The pool's functions by block position (`None` for a block that does not load), for checks that call them.
pub fn functions(pack: &super::Pack) -> Vec<Option<UserFunction>> {
    match &pack.content {
        super::Content::Python(pool) => load_reference_pool(&pool.text).into_iter().map(Result::ok).collect(),
        super::Content::Gsm(_) => Vec::new(),
    }
}

/// The ground truth of `function` for a raw chained value (adapted as a task adapts it: rounded, sign-preserving
/// mod 100, lists cut to 10) bound to its first parameter of that kind, with `statics` for the others by name.
pub fn truth(function: &UserFunction, chained: &Value, statics: &[(String, Value)]) -> Result<Value, String> {
    use crate::engine::adapter::{ListAdapter, ScalarAdapter};
    let sig = function.signature();
    let kind = chained.kind();
    let index = sig.params.iter().position(|p| p.kind == kind).ok_or_else(|| format!("`{}` takes no {kind} input", sig.name))?;
    let adapted = match kind {
        Kind::List => Value::List(ListAdapter::SEQ.apply_value(chained).map_err(|e| e.to_string())?),
        Kind::Scalar => Value::Scalar(ScalarAdapter::ROUND_MOD.apply_value(chained).map_err(|e| e.to_string())?),
    };
    let mut kwargs = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let value = if i == index {
            &adapted
        } else {
            &statics.iter().find(|(name, _)| *name == p.name).ok_or_else(|| format!("no value for parameter `{}`", p.name))?.1
        };
        kwargs.push((p.name.clone(), python::from_engine_value(value)));
    }
    let result = python::call(function.module(), &sig.name, &[], &kwargs, &Limits::default()).map_err(|e| e.to_string())?;
    let result = match result {
        PyValue::Set(s) => PyValue::list(s.borrow().items()),
        other => other,
    };
    python::to_engine_value(&result).map_err(|e| e.to_string())
}
