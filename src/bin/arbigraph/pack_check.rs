//! `arbigraph packs --check DATASET`: our ground truths against the stored ones of a reference baseline dataset
//! made from the same pack, sample by sample, with the disagreements listed.

use std::path::Path;

use arbigraph_studio::engine::dataset::record::SampleRecord;
use arbigraph_studio::engine::tasks::pack::{gsm_symbolic, python_ref, Pack, PackKind};
use arbigraph_studio::engine::value::Value;

use super::files::read_text;

/// Checks every sample of `dataset` whose family has a pack among `packs`; true when all that could be checked agree.
pub fn check(packs: &[Pack], dataset: &Path) -> Result<bool, String> {
    let text = read_text(dataset)?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: line {}, column {}: {e}", dataset.display(), e.line(), e.column()))?;
    let samples = json.get("samples").and_then(|s| s.as_array()).ok_or_else(|| format!("{}: no `samples` list", dataset.display()))?;
    let mut all_agree = true;
    for pack in packs {
        let tally = match pack.kind {
            PackKind::PythonRef => check_python(pack, samples),
            PackKind::GsmSymbolic => check_gsm(pack, samples),
        };
        println!(
            "{} pack against {}: {} sample(s) of its family, {} agree, {} disagree, {} not checked",
            pack.kind,
            dataset.display(),
            tally.seen,
            tally.agree,
            tally.disagree.len(),
            tally.unchecked.len()
        );
        for line in tally.disagree.iter().take(40) {
            println!("  disagree: {line}");
        }
        // Samples not checked for one reason are counted together, with the first of them.
        let mut reasons: Vec<(String, usize, String)> = Vec::new();
        for line in &tally.unchecked {
            let reason = line.split_once("): ").map_or(line.as_str(), |(_, r)| r).to_string();
            let task = line.split_once(" (").and_then(|(_, t)| t.split(|c| c == ',' || c == ')').next()).unwrap_or("").to_string();
            match reasons.iter_mut().find(|(r, _, t)| *r == reason && *t == task) {
                Some((_, n, _)) => *n += 1,
                None => reasons.push((reason, 1, task)),
            }
        }
        for (reason, n, task) in &reasons {
            println!("  not checked: {n} sample(s) of {task}: {reason}");
        }
        all_agree &= tally.disagree.is_empty();
    }
    Ok(all_agree)
}

/// The outcome of one pack's check.
#[derive(Default)]
struct Tally {
    seen: usize,
    agree: usize,
    disagree: Vec<String>,
    unchecked: Vec<String>,
}

fn value_of(json: &serde_json::Value) -> Option<Value> {
    Value::from_json(json).ok()
}

/// Python samples: the function at the sample's `task_id`, and its inputs as the prompt's initial conditions define
/// them (`task_1_input = …`, `task_1_<parameter>_static = …`).
fn check_python(pack: &Pack, samples: &[serde_json::Value]) -> Tally {
    let functions = python_ref::functions(pack);
    let mut tally = Tally::default();
    for (i, sample) in samples.iter().enumerate() {
        let record = SampleRecord::parse(sample);
        let (Some(task_id), Some(name), Some(prompt)) = (record.task_id, record.task_name.as_deref(), record.prompt.as_deref()) else { continue };
        if !prompt.contains("```python") {
            continue;
        }
        tally.seen += 1;
        let label = format!("sample {i} ({name}, task_id {task_id})");
        let Some(Some(function)) = usize::try_from(task_id).ok().and_then(|t| functions.get(t)) else {
            tally.unchecked.push(format!("{label}: the pack's block {task_id} does not load"));
            continue;
        };
        if function.signature().name != name {
            tally.unchecked.push(format!("{label}: the pack's block {task_id} is `{}`", function.signature().name));
            continue;
        }
        let Some(truth) = record.truth.as_ref().and_then(value_of) else {
            tally.unchecked.push(format!("{label}: no numeric ground truth"));
            continue;
        };
        let (chained, statics) = initial_conditions(prompt);
        let Some(chained) = chained else {
            tally.unchecked.push(format!("{label}: the prompt defines no task_1_input"));
            continue;
        };
        match python_ref::truth(function, &chained, &statics) {
            Ok(ours) if ours == truth => tally.agree += 1,
            Ok(ours) => tally.disagree.push(format!("{label}: ours {ours}, stored {truth}")),
            Err(e) => tally.disagree.push(format!("{label}: ours fails ({e}), stored {truth}")),
        }
    }
    tally
}

/// The first task's input and static values, as a prompt's initial conditions define them (the reference writes
/// `Define task_1_input = [3, -1].`, we write `task_1_input = [3, -1]`).
fn initial_conditions(prompt: &str) -> (Option<Value>, Vec<(String, Value)>) {
    let mut chained = None;
    let mut statics = Vec::new();
    for line in prompt.lines() {
        let line = line.trim().trim_start_matches("Define ").trim_end_matches('.');
        let Some((name, text)) = line.split_once(" = ") else { continue };
        let Some(value) = serde_json::from_str::<serde_json::Value>(text.trim()).ok().as_ref().and_then(value_of) else { continue };
        if name == "task_1_input" {
            chained = Some(value);
        } else if let Some(param) = name.strip_prefix("task_1_").and_then(|n| n.strip_suffix("_static")) {
            statics.push((param.to_string(), value));
        }
    }
    (chained, statics)
}

/// GSM samples: the template the sample's `task_name` names, its variables read back from the question.
fn check_gsm(pack: &Pack, samples: &[serde_json::Value]) -> Tally {
    let mut tally = Tally::default();
    for (i, sample) in samples.iter().enumerate() {
        let record = SampleRecord::parse(sample);
        let Some(name) = record.task_name.as_deref().filter(|n| n.starts_with("GSM_")) else { continue };
        tally.seen += 1;
        let label = format!("sample {i} ({name})");
        let (Some(prompt), Some(truth)) = (record.prompt.as_deref(), record.truth.as_ref().and_then(value_of)) else {
            tally.unchecked.push(format!("{label}: no prompt or numeric ground truth"));
            continue;
        };
        let (chained, _) = initial_conditions(prompt);
        match gsm_symbolic::answer_of_prompt(pack, name, prompt, chained.as_ref()) {
            Err(why) => tally.unchecked.push(format!("{label}: {why}")),
            Ok(Err(e)) => tally.disagree.push(format!("{label}: ours fails ({e}), stored {truth}")),
            Ok(Ok(ours)) if ours == truth || numbers_close(&ours, &truth) => tally.agree += 1,
            Ok(Ok(ours)) => tally.disagree.push(format!("{label}: ours {ours}, stored {truth}")),
        }
    }
    tally
}

/// Scalars equal as the grader compares floats (`isclose`, abs 1e-3).
fn numbers_close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => (x.as_f64() - y.as_f64()).abs() <= 1e-3_f64.max(1e-9 * y.as_f64().abs()),
        _ => false,
    }
}
