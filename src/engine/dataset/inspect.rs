//! What a dataset or results file holds, and which schema problems it has (reference and our files alike).

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::shape::{family_of, topology_of};
use crate::engine::value::Value;

/// Dataset or results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Dataset,
    Results,
}

/// A summary of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    pub kind: FileKind,
    /// `summary.mode` (`math`, `gsm_chain`, `multi_chain`, `custom_dag`, `agent`, …).
    pub mode: String,
    /// Topology inferred from the samples' shape.
    pub topology: String,
    pub num_samples: usize,
    /// Samples per target family.
    pub families: BTreeMap<String, usize>,
    /// Distinct target tasks.
    pub num_targets: usize,
    /// Results only: samples graded correct, and statuses.
    pub correct: Option<usize>,
    pub statuses: BTreeMap<String, usize>,
    /// Schema problems, each located (`samples[3].prompt: missing`).
    pub problems: Vec<String>,
}

/// Inspects a parsed file.
pub fn inspect(json: &Json) -> Inspection {
    let mut problems = Vec::new();
    let summary = json.get("summary").and_then(Json::as_object);
    if summary.is_none() {
        problems.push("summary: missing or not an object".to_string());
    }
    let samples: &[Json] = match json.get("samples").and_then(Json::as_array) {
        Some(s) => s,
        None => {
            problems.push("samples: missing or not a list".to_string());
            &[]
        }
    };
    let mode = summary.and_then(|s| s.get("mode")).and_then(Json::as_str).unwrap_or("").to_string();
    let is_results = summary.is_some_and(|s| s.contains_key("generation_params")) || samples.iter().any(|s| s.get("agent_status").is_some());
    let kind = if is_results { FileKind::Results } else { FileKind::Dataset };
    let topology = samples.first().map(topology_of).unwrap_or("unknown").to_string();

    let mut families = BTreeMap::new();
    let mut targets = std::collections::HashSet::new();
    let mut statuses = BTreeMap::new();
    let mut correct = 0;
    for (i, sample) in samples.iter().enumerate() {
        let at = |field: &str| format!("samples[{i}].{field}");
        let Some(obj) = sample.as_object() else {
            problems.push(format!("samples[{i}]: not an object"));
            continue;
        };
        for field in ["prompt", "ground_truth", "task_name"] {
            if !obj.contains_key(field) {
                problems.push(format!("{}: missing", at(field)));
            }
        }
        if obj.get("prompt").is_some_and(|p| !p.is_string()) {
            problems.push(format!("{}: not a string", at("prompt")));
        }
        if let Some(truth) = obj.get("ground_truth") {
            if let Err(e) = Value::from_json(truth) {
                problems.push(format!("{}: {e}", at("ground_truth")));
            }
        }
        if let Some(images) = obj.get("images") {
            problems.extend(image_problems(images, &at("images")));
        }
        if topology_of(sample) != topology {
            problems.push(format!("samples[{i}]: topology {} differs from the first sample's {topology}", topology_of(sample)));
        }
        let family = family_of(sample, &mode);
        *families.entry(family).or_insert(0) += 1;
        targets.insert((obj.get("task_id").map(|v| v.to_string()), obj.get("task_name").map(|v| v.to_string())));
        if is_results {
            match obj.get("correct") {
                Some(Json::Bool(true)) => correct += 1,
                Some(Json::Bool(false)) | Some(Json::Null) => {}
                _ => problems.push(format!("{}: not a boolean", at("correct"))),
            }
            let status = obj.get("agent_status").and_then(Json::as_str).unwrap_or("(none)").to_string();
            *statuses.entry(status).or_insert(0) += 1;
        }
    }
    Inspection {
        kind,
        mode,
        topology,
        num_samples: samples.len(),
        families,
        num_targets: targets.len(),
        correct: is_results.then_some(correct),
        statuses,
        problems,
    }
}

/// Checks a sample's `images`: each names its PNG and re-checks against its ground truth (see `image::verify`).
fn image_problems(images: &Json, at: &str) -> Vec<String> {
    let Some(entries) = images.as_array() else { return vec![format!("{at}: not a list")] };
    let mut out = Vec::new();
    for (j, entry) in entries.iter().enumerate() {
        if entry.get("data_url").and_then(Json::as_str).is_none() && entry.get("file").and_then(Json::as_str).is_none() {
            out.push(format!("{at}[{j}]: neither data_url nor file"));
        }
        let truth: Option<Vec<i64>> = entry.get("ground_truth").and_then(Json::as_array).and_then(|a| a.iter().map(Json::as_i64).collect());
        match (entry.get("metadata"), truth) {
            (Some(metadata), Some(truth)) => {
                if let Err(found) = crate::engine::tasks::image::verify::verify(metadata, &truth) {
                    out.extend(found.into_iter().map(|p| format!("{at}[{j}]: {p}")));
                }
            }
            _ => out.push(format!("{at}[{j}]: metadata or ground_truth missing")),
        }
    }
    out
}
