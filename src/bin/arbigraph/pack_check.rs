//! `arbigraph packs --check DATASET`: our ground truths against the stored ones of a reference baseline dataset
//! made from the same pack, sample by sample, with the disagreements listed.

use std::path::Path;

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
        for line in tally.unchecked.iter().take(40) {
            println!("  not checked: {line}");
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

/// Python samples: the function at the sample's `task_id`, the stored `chain_input` and `extra_inputs`.
fn check_python(pack: &Pack, samples: &[serde_json::Value]) -> Tally {
    let functions = python_ref::functions(pack);
    let mut tally = Tally::default();
    for (i, sample) in samples.iter().enumerate() {
        let (Some(task_id), Some(name)) = (sample.get("task_id").and_then(|v| v.as_u64()), sample.get("task_name").and_then(|v| v.as_str())) else { continue };
        if sample.get("extra_inputs").is_none() {
            continue;
        }
        tally.seen += 1;
        let label = format!("sample {i} ({name}, task_id {task_id})");
        let Some(Some(function)) = functions.get(task_id as usize) else {
            tally.unchecked.push(format!("{label}: the pack's block {task_id} does not load"));
            continue;
        };
        if function.signature().name != name {
            tally.unchecked.push(format!("{label}: the pack's block {task_id} is `{}`", function.signature().name));
            continue;
        }
        let (Some(chained), Some(truth)) = (sample.get("chain_input").and_then(value_of), sample.get("ground_truth").and_then(value_of)) else {
            tally.unchecked.push(format!("{label}: no numeric chain_input or ground_truth"));
            continue;
        };
        let statics: Option<Vec<(String, Value)>> =
            sample["extra_inputs"].as_object().map(|m| m.iter().map(|(k, v)| value_of(v).map(|v| (k.clone(), v))).collect()).unwrap_or(Some(Vec::new()));
        let Some(statics) = statics else {
            tally.unchecked.push(format!("{label}: a static input is not a number or a list of numbers"));
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

/// GSM samples: the template the sample's `task_name` names, its variables read back from the question.
fn check_gsm(pack: &Pack, samples: &[serde_json::Value]) -> Tally {
    let mut tally = Tally::default();
    for (i, sample) in samples.iter().enumerate() {
        let Some(name) = sample.get("task_name").and_then(|v| v.as_str()).filter(|n| n.starts_with("GSM_")) else { continue };
        tally.seen += 1;
        let label = format!("sample {i} ({name})");
        let (Some(prompt), Some(truth)) = (sample.get("prompt").and_then(|v| v.as_str()), sample.get("ground_truth").and_then(value_of)) else {
            tally.unchecked.push(format!("{label}: no prompt or numeric ground_truth"));
            continue;
        };
        let chained = sample.get("chain_input").and_then(value_of);
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
