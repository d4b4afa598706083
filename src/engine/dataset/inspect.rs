//! What a dataset or results file holds, and which schema problems it has (reference and our files alike).

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::record::{check_sample, has_status, SampleRecord};
use super::shape::{family_in, topology_of};

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
    let is_results = summary.is_some_and(|s| s.contains_key("generation_params")) || samples.iter().any(has_status);
    let kind = if is_results { FileKind::Results } else { FileKind::Dataset };
    let topology = samples.first().map(topology_of).unwrap_or("unknown").to_string();

    let mut families = BTreeMap::new();
    let mut targets = std::collections::HashSet::new();
    let mut statuses = BTreeMap::new();
    let mut correct = 0;
    for (i, sample) in samples.iter().enumerate() {
        let checked = match check_sample(sample, &format!("samples[{i}]"), is_results) {
            Ok(checked) => checked,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        problems.extend(checked.problems);
        let record = SampleRecord::parse(sample);
        if record.topology.as_str() != topology {
            problems.push(format!("samples[{i}]: topology {} differs from the first sample's {topology}", record.topology.as_str()));
        }
        *families.entry(family_in(&record, &mode)).or_insert(0) += 1;
        targets.insert(checked.target);
        if is_results {
            correct += usize::from(checked.correct);
            *statuses.entry(checked.status.unwrap_or_else(|| "(none)".into())).or_insert(0) += 1;
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

