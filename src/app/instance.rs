//! One sample as the browser shows it, read from its record (reference layout, ours, or a JSONL line): the
//! list's `Row`, and the instance view's `Detail` (prompt with roles, every stage's ground truth, the final
//! answer, seed and index, and the drawing of its graph).

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::app::catalog::{shorten, Row, ROW_ANSWER_CHARS};
use crate::app::drawing::Drawing;
use crate::engine::dataset::shape::{family_of, topology_of};
use crate::engine::value::Value;

/// One stage's ground truth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageTruth {
    /// The output name (`task_3_out`).
    pub name: String,
    /// The stage's task (`ConvolutionTask`), empty when the record does not say.
    pub task: String,
    /// The truth as Python prints it.
    pub truth: String,
}

/// Everything the instance view shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Detail {
    /// The dataset's key in the store.
    pub dataset: String,
    pub row: Row,
    /// The exact prompt text.
    pub prompt: String,
    /// The prompt's roles, run-length encoded (role name, characters).
    pub roles: Vec<(String, u32)>,
    /// True when the roles are the generator's own, false when recognised from the text.
    pub roles_exact: bool,
    pub stages: Vec<StageTruth>,
    /// The graded output's name and ground truth.
    pub answer_name: String,
    pub answer: String,
    /// The run's seed, when the file says.
    pub seed: Option<u64>,
    pub drawing: Drawing,
}

/// Python's printing of a stored value (its JSON text when it is not a dataset value).
pub fn repr(json: &Json) -> String {
    Value::from_json(json).map(|v| v.repr()).unwrap_or_else(|_| json.to_string())
}

fn metadata(record: &Json) -> Option<&Json> {
    record.get("metadata").filter(|m| m.is_object())
}

/// The record's graded answer: `ground_truth`, or a JSONL line's `answer`.
fn answer_json(record: &Json) -> Option<&Json> {
    record.get("ground_truth").or_else(|| record.get("answer"))
}

/// The list row of `record`, at position `index` of a file whose summary `mode` is `mode`.
pub fn row_of(index: usize, record: &Json, mode: &str, origin: Option<(usize, usize)>) -> Row {
    let meta = metadata(record);
    let meta_text = |key: &str| meta.and_then(|m| m.get(key)).and_then(Json::as_str).map(str::to_string);
    let topology = meta_text("topology").unwrap_or_else(|| topology_of(record).to_string());
    let family = meta_text("family").unwrap_or_else(|| family_of(record, mode));
    let target = record.get("task_name").and_then(Json::as_str).map(str::to_string).or_else(|| meta_text("task_name")).unwrap_or_default();
    let sample_idx = record.get("sample_idx").or_else(|| meta.and_then(|m| m.get("sample_idx"))).and_then(Json::as_u64).map(|n| n as u32);
    let prompt_chars = record.get("prompt").and_then(Json::as_str).map(|p| p.chars().count()).unwrap_or(0);
    Row {
        index,
        topology,
        family,
        target,
        stages: stage_count(record),
        sample_idx,
        answer: answer_json(record).map(|a| shorten(&repr(a), ROW_ANSWER_CHARS)).unwrap_or_default(),
        prompt_chars,
        origin,
    }
}

fn array_len(json: &Json, path: &[&str]) -> Option<usize> {
    path.iter().try_fold(json, |j, key| j.get(key)).and_then(Json::as_array).map(Vec::len)
}

/// Task stages in the sample's prompt.
fn stage_count(record: &Json) -> usize {
    if let Some(meta) = metadata(record) {
        return meta.get("stage_ground_truths").and_then(Json::as_object).map(|m| m.len()).filter(|&n| n > 0).unwrap_or(1);
    }
    let counted = match topology_of(record) {
        "custom" => array_len(record, &["custom_dag", "stages"]),
        "multichain" => array_len(record, &["multi_chain", "stages"]),
        "chain" => array_len(record, &["chain", "distractors"]).map(|n| n + 1),
        "forgetting" => record["forgetting"].get("target_task_number").and_then(Json::as_u64).map(|n| n as usize).or_else(|| array_len(record, &["forgetting", "distractors"]).map(|n| n + 1)),
        _ => Some(1),
    };
    counted.unwrap_or(1)
}

fn stage_truth(stage: &Json, fallback_number: usize) -> Option<StageTruth> {
    let truth = stage.get("ground_truth")?;
    let number = stage.get("task_number").and_then(Json::as_u64).map(|n| n as usize).unwrap_or(fallback_number);
    let task = stage.get("task_name").and_then(Json::as_str).map(str::to_string).or_else(|| stage.get("template_index").map(|t| format!("template {t}"))).unwrap_or_default();
    Some(StageTruth { name: format!("task_{number}_out"), task, truth: repr(truth) })
}

/// Every stage's ground truth the record stores, in prompt order (the target last).
pub fn stage_truths(record: &Json) -> Vec<StageTruth> {
    if let Some(meta) = metadata(record) {
        let target_task = meta.get("task_name").and_then(Json::as_str).unwrap_or("");
        let truths = meta.get("stage_ground_truths").and_then(Json::as_object);
        let count = truths.map(|t| t.len()).unwrap_or(0);
        return truths
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, (name, truth))| StageTruth { name: name.clone(), task: if i + 1 == count { target_task.to_string() } else { String::new() }, truth: repr(truth) })
            .collect();
    }
    let list = |path: &[&str]| -> Vec<Json> { path.iter().try_fold(record, |j, key| j.get(key)).and_then(Json::as_array).cloned().unwrap_or_default() };
    let stages: Vec<Json> = match topology_of(record) {
        "custom" => list(&["custom_dag", "stages"]),
        "multichain" => list(&["multi_chain", "stages"]),
        "chain" => {
            let mut stages = list(&["chain", "distractors"]);
            stages.extend(record["chain"].get("target").cloned());
            stages
        }
        "forgetting" => {
            let stages = list(&["forgetting", "stages"]);
            if stages.is_empty() {
                list(&["forgetting", "distractors"])
            } else {
                stages
            }
        }
        _ => Vec::new(),
    };
    let mut truths: Vec<StageTruth> = stages.iter().enumerate().filter_map(|(i, s)| stage_truth(s, i + 1)).collect();
    let (answer_name, answer) = answer_of(record);
    if !answer.is_empty() && truths.last().is_none_or(|t| t.name != answer_name) {
        let task = record.get("task_name").and_then(Json::as_str).unwrap_or("").to_string();
        truths.push(StageTruth { name: answer_name, task, truth: answer });
    }
    truths
}

/// The graded output's name and ground truth.
pub fn answer_of(record: &Json) -> (String, String) {
    let meta = metadata(record);
    let declared = record.get("target_output_name").or_else(|| meta.and_then(|m| m.get("target_output_name"))).and_then(Json::as_str);
    let name = declared.map(str::to_string).unwrap_or_else(|| format!("task_{}_out", target_number(record)));
    (name, answer_json(record).map(repr).unwrap_or_default())
}

fn target_number(record: &Json) -> usize {
    ["chain", "forgetting", "multi_chain"]
        .iter()
        .find_map(|key| record.get(key).and_then(|t| t.get("target_task_number")).and_then(Json::as_u64))
        .map(|n| n as usize)
        .unwrap_or_else(|| stage_count(record))
}

/// The run's seed: a JSONL line's own, else the file summary's.
pub fn seed_of(record: &Json, summary: Option<&Json>) -> Option<u64> {
    metadata(record).and_then(|m| m.get("seed")).or_else(|| summary.and_then(|s| s.get("seed"))).and_then(Json::as_u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain_record() -> Json {
        json!({"task_id": 4, "task_name": "ConvolutionTask", "sample_idx": 3, "prompt": "Task 1:\nabc", "ground_truth": [280, 286, -403],
            "chain": {"num_distractors": 2, "target_task_number": 3,
                "distractors": [{"task_number": 1, "task_name": "A", "ground_truth": 5}, {"task_number": 2, "task_name": "B", "ground_truth": [1, 2]}],
                "target": {"task_number": 3, "task_name": "ConvolutionTask", "ground_truth": [280, 286, -403]}}})
    }

    #[test]
    fn a_reference_chain_record_gives_its_row() {
        let row = row_of(7, &chain_record(), "math_chain", None);
        assert_eq!(row, Row {
            index: 7, topology: "chain".into(), family: "math".into(), target: "ConvolutionTask".into(), stages: 3, sample_idx: Some(3),
            answer: "[280, 286, -403]".into(), prompt_chars: 11, origin: None,
        });
    }

    #[test]
    fn stage_truths_list_every_stage_with_the_target_last() {
        let truths = stage_truths(&chain_record());
        assert_eq!(truths.iter().map(|t| (t.name.as_str(), t.task.as_str(), t.truth.as_str())).collect::<Vec<_>>(), [
            ("task_1_out", "A", "5"),
            ("task_2_out", "B", "[1, 2]"),
            ("task_3_out", "ConvolutionTask", "[280, 286, -403]"),
        ]);
        assert_eq!(answer_of(&chain_record()), ("task_3_out".to_string(), "[280, 286, -403]".to_string()));
        let baseline = json!({"task_name": "GSM_0001.json", "prompt": "p", "ground_truth": 2.5});
        assert_eq!(stage_truths(&baseline), [StageTruth { name: "task_1_out".into(), task: "GSM_0001.json".into(), truth: "2.5".into() }]);
        let forgetting = json!({"task_name": "T", "prompt": "p", "ground_truth": 9, "forgetting": {"target_task_number": 4, "distractors": [{"task_number": 1, "task_name": "D"}]}});
        assert_eq!(stage_truths(&forgetting).last().map(|t| t.name.clone()), Some("task_4_out".into()), "reference distractors store no truth; the target's still shows");
        assert_eq!(row_of(0, &forgetting, "gsm_forgetting", None).stages, 4);
    }

    #[test]
    fn jsonl_lines_read_their_metadata() {
        let line = json!({"id": "chain/math.X/1", "prompt": "p", "answer": [1, 2],
            "metadata": {"topology": "chain", "family": "math", "task_name": "X", "sample_idx": 1, "seed": 9, "target_output_name": "task_2_out",
                         "stage_ground_truths": {"task_1_out": 3, "task_2_out": [1, 2]}}});
        let row = row_of(0, &line, "", None);
        assert_eq!((row.topology.as_str(), row.target.as_str(), row.stages, row.sample_idx), ("chain", "X", 2, Some(1)));
        assert_eq!(stage_truths(&line)[1], StageTruth { name: "task_2_out".into(), task: "X".into(), truth: "[1, 2]".into() });
        assert_eq!(answer_of(&line).0, "task_2_out");
        assert_eq!(seed_of(&line, Some(&json!({"seed": 4}))), Some(9));
        assert_eq!(seed_of(&chain_record(), Some(&json!({"seed": 4}))), Some(4));
        assert_eq!(seed_of(&chain_record(), None), None);
    }
}
