//! Grading: verdicts of a final text against a ground truth, per-node grading of every collected
//! `task_N_out`, and reading what to grade from any dataset or results sample in the reference's JSON.
//!
//! The effective reference grader is a Python-literal comparison (exact integers, 1e-3 float tolerance, exact
//! list length, tuples rejected for list truths); its symbolic branch never fires and is omitted here.
//! A *lenient* verdict (LaTeX powers, fractions, thousands separators) exists separately and is never mixed in.

pub mod collect;
pub mod lenient;
pub mod metrics;

use collect::{grading_text, last_boxed_content, split_label, Answers};
use crate::engine::dataset::record::{parse_io_name, SampleRecord, Topology};
use crate::engine::literal::{parse_literal, Literal};
use num_bigint::BigInt;
use num_traits::FromPrimitive;
use crate::engine::sort;

/// Absolute tolerance for float comparisons.
pub const FLOAT_TOLERANCE: f64 = 1e-3;

/// The value the grader compares: the last box's content with a `task_N_out =` label stripped (any `N`).
pub fn extract_value(text: &str) -> Option<String> {
    let content = last_boxed_content(text)?.trim();
    let value = match split_label(content) {
        Some((_, value)) => value,
        None => content,
    };
    (!value.is_empty()).then(|| value.to_string())
}

/// The reference verdict of a whole text against a ground truth.
pub fn grade_text(text: &str, truth: &Literal) -> bool {
    extract_value(text).is_some_and(|value| grade_value(&value, truth))
}

/// The reference verdict of an already extracted value.
pub fn grade_value(value: &str, truth: &Literal) -> bool {
    match parse_literal(value) {
        Ok(parsed) => matches_truth(&parsed, truth),
        Err(_) => false,
    }
}

/// Compares a parsed answer with a truth by the reference's rules.
pub fn matches_truth(answer: &Literal, truth: &Literal) -> bool {
    match truth {
        Literal::Int(g) => exact_int(answer, g),
        Literal::Float(g) => answer.as_f64().is_some_and(|p| is_close(p, *g)),
        Literal::List(items) => match answer {
            Literal::List(got) if got.len() == items.len() => got.iter().zip(items).all(|(p, g)| match g {
                Literal::Int(g) => exact_int(p, g),
                Literal::Float(g) => p.as_f64().is_some_and(|p| (p - g).abs() <= FLOAT_TOLERANCE),
                other => literal_eq(p, other),
            }),
            _ => false,
        },
        other => literal_eq(answer, other),
    }
}

/// An int truth accepts a non-bool int equal to it or a finite integral float equal to it.
fn exact_int(answer: &Literal, truth: &BigInt) -> bool {
    match answer {
        Literal::Int(i) => i == truth,
        Literal::Float(x) => x.is_finite() && x.fract() == 0.0 && BigInt::from_f64(*x).is_some_and(|i| &i == truth),
        _ => false,
    }
}

/// Python's `math.isclose(p, g, rel_tol=1e-9, abs_tol=1e-3)`.
fn is_close(p: f64, g: f64) -> bool {
    if p == g {
        return true;
    }
    if p.is_infinite() || g.is_infinite() {
        return false;
    }
    let diff = (p - g).abs();
    diff <= 1e-9 * p.abs().max(g.abs()) || diff <= FLOAT_TOLERANCE
}

/// Python `==` between literals (numbers compare across int/float/bool).
fn literal_eq(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Str(x), Literal::Str(y)) => x == y,
        (Literal::None, Literal::None) => true,
        (Literal::List(x), Literal::List(y)) | (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| literal_eq(p, q))
        }
        (Literal::Other, _) | (_, Literal::Other) => false,
        (Literal::Int(x), Literal::Int(y)) => x == y,
        (Literal::Bool(x), Literal::Bool(y)) => x == y,
        (Literal::Int(i), Literal::Bool(b)) | (Literal::Bool(b), Literal::Int(i)) => *i == BigInt::from(*b as u8),
        (x, y) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) => p == q,
            _ => false,
        },
    }
}

/// Where a sample's dependencies and truths were found.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeTruth {
    /// The output name, e.g. `task_3_out`.
    pub name: String,
    /// The stored ground truth.
    pub truth: Literal,
    /// Output names this node reads (direct predecessors), when the sample records them.
    pub predecessors: Vec<String>,
}

/// What grading a sample needs, read from a dataset or results sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleSpec {
    /// The user prompt.
    pub prompt: String,
    /// Output names the prompt asks for, `["final_answer"]` when none.
    pub expected: Vec<String>,
    /// The graded output name: the dataset's declared target when it has one, else the last expected name.
    pub target: String,
    /// The target's ground truth (`ground_truth`).
    pub truth: Literal,
    /// Every node with a stored truth, in task-number order (the target included).
    pub nodes: Vec<NodeTruth>,
}

/// Why a sample cannot be graded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("sample {index} has no string `prompt`")]
    NoPrompt { index: usize },
    #[error("sample {index} has no `ground_truth`")]
    NoTruth { index: usize },
}

impl SampleSpec {
    /// Reads a dataset or results sample (reference layout). `index` only locates errors.
    pub fn from_json(sample: &serde_json::Value, index: usize) -> Result<SampleSpec, SpecError> {
        SampleSpec::from_record(&SampleRecord::parse(sample), index)
    }

    /// The grading facts of a record already read: its prompt, target and every stage's truth with the stages
    /// that feed it (through any adapters). `index` only locates errors.
    pub fn from_record(record: &SampleRecord, index: usize) -> Result<SampleSpec, SpecError> {
        let prompt = record.prompt.clone().ok_or(SpecError::NoPrompt { index })?;
        let truth = record.truth.as_ref().map(Literal::from_json).ok_or(SpecError::NoTruth { index })?;
        let expected = collect::expected_outputs(&prompt);
        let target = record.target_output.clone().unwrap_or_else(|| expected.last().cloned().unwrap_or_else(|| collect::FALLBACK_OUTPUT.into()));
        let mut nodes: Vec<NodeTruth> = Vec::new();
        // A baseline's one stage is the sample itself, under the name its prompt gives.
        if record.topology != Topology::Baseline || record.jsonl {
            for stage in &record.stages {
                let (Some(name), Some(truth)) = (stage.output_name(), &stage.truth) else { continue };
                if nodes.iter().any(|n| n.name == name) {
                    continue;
                }
                let predecessors = record.task_predecessors(&stage.id).iter().filter_map(|id| record.output_of(id)).filter(|p| *p != name).collect();
                nodes.push(NodeTruth { name, truth: Literal::from_json(truth), predecessors });
            }
        }
        match nodes.iter_mut().find(|n| n.name == target) {
            Some(node) => node.truth = truth.clone(),
            None => nodes.push(NodeTruth { name: target.clone(), truth: truth.clone(), predecessors: Vec::new() }),
        }
        sort::by_key(&mut nodes, |n| parse_io_name(&n.name).map(|(k, _)| k).unwrap_or(u64::MAX));
        Ok(SampleSpec { prompt, expected, target, truth, nodes })
    }
}

/// How one node of a sample fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeStatus {
    /// The collected answer matches the node's truth.
    Correct,
    /// An answer was collected and does not match.
    Wrong,
    /// No answer was collected for the node.
    Missing,
}

impl NodeStatus {
    /// `correct` / `wrong` / `missing`.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Correct => "correct",
            NodeStatus::Wrong => "wrong",
            NodeStatus::Missing => "missing",
        }
    }

    /// Parses the spelling of `as_str`.
    pub fn parse(text: &str) -> Option<NodeStatus> {
        match text {
            "correct" => Some(NodeStatus::Correct),
            "wrong" => Some(NodeStatus::Wrong),
            "missing" => Some(NodeStatus::Missing),
            _ => None,
        }
    }
}

/// The grade of one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleGrade {
    /// Reference-compatible verdict of the target.
    pub correct: bool,
    /// Lenient verdict (only computed when asked for).
    pub lenient: Option<bool>,
    /// Per node with a stored truth, in task order.
    pub nodes: Vec<(String, NodeStatus)>,
    /// Nodes wrong or missing whose predecessors are all correct.
    pub first_breaks: Vec<String>,
}

/// Grades a trajectory's collected answers: the target via the reference's final-text synthesis (the last
/// turn's raw text when the target was never collected), and every node with a stored truth.
pub fn grade_answers(spec: &SampleSpec, answers: &Answers, last_turn_text: &str, lenient: bool) -> SampleGrade {
    let text = grading_text(answers, &spec.target, last_turn_text);
    let correct = grade_text(&text, &spec.truth);
    let lenient = lenient.then(|| correct || lenient::grade_text_lenient(&text, &spec.truth));
    let nodes: Vec<(String, NodeStatus)> = spec
        .nodes
        .iter()
        .map(|node| {
            let status = match answers.get(&node.name) {
                None => NodeStatus::Missing,
                Some(a) if grade_value(&a.answer, &node.truth) => NodeStatus::Correct,
                Some(_) => NodeStatus::Wrong,
            };
            (node.name.clone(), status)
        })
        .collect();
    let status_of = |name: &str| nodes.iter().find(|(n, _)| n == name).map(|(_, s)| *s);
    let first_breaks = spec
        .nodes
        .iter()
        .zip(&nodes)
        .filter(|(_, (_, status))| *status != NodeStatus::Correct)
        .filter(|(node, _)| node.predecessors.iter().all(|p| status_of(p).is_none_or(|s| s == NodeStatus::Correct)))
        .map(|(node, _)| node.name.clone())
        .collect();
    SampleGrade { correct, lenient, nodes, first_breaks }
}

/// Re-collects answers from stored turn outputs, in turn order, treating them as raw completions; also gives
/// the last turn's text.
pub fn replay_answers(turns: &[(usize, String)], expected: &[String]) -> (Answers, String) {
    let mut answers = Answers::new();
    for (turn, text) in turns {
        answers.collect(text, *turn, expected);
    }
    let last = turns.last().map(|(_, t)| t.clone()).unwrap_or_default();
    (answers, last)
}

/// How to grade a results sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GradeOptions {
    /// Re-collect answers from `turn_outputs` (as raw completions) instead of trusting the stored `task_answers`.
    pub replay: bool,
    /// Also compute the lenient verdict (reported apart, never mixed into the score).
    pub lenient: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(content: &str, truth: serde_json::Value, expected: bool) {
        let text = format!("Some work.\n\\boxed{{{content}}}");
        assert_eq!(grade_text(&text, &Literal::from_json(&truth)), expected, "{content:?} vs {truth}");
    }

    #[test]
    fn integer_truths_follow_the_reference_test_vectors() {
        for ok in ["task_1_out = 42", "42", "task_1_out = 42.0", "42.", "4.2e1", "0x2A"] {
            check(ok, json!(42), true);
        }
        check("+7", json!(7), true);
        for bad in ["task_1_out = 42.5", "$42$", "x = 42", "task_07_out = 42"] {
            check(bad, json!(42), false);
        }
        check("2^{5}", json!(32), false);
        check("2**5", json!(32), false);
        check("\\frac{64}{2}", json!(32), false);
        check("1,234", json!(1234), false);
        check("True", json!(1), false);
    }

    #[test]
    fn labels_are_stripped_for_any_task_number() {
        for ok in ["\\text{task_1_out} = 42", "task_1_out: 42", "task_1_out is 42", "TASK_1_OUT = 42", "task_7_out = 42"] {
            check(ok, json!(42), true);
        }
    }

    #[test]
    fn list_truths_need_a_list_of_equal_length() {
        check("[1, 2, 3]", json!([1, 2, 3]), true);
        check("[1, 2.0, 3]", json!([1, 2, 3]), true);
        for bad in ["(1, 2, 3)", "[1, 2, 3, 0]", "[1, 2]", "\\[1, 2, 3\\]", "[[1, 2], [3]]"] {
            check(bad, json!([1, 2, 3]), false);
        }
    }

    #[test]
    fn float_truths_allow_a_thousandth() {
        let third = json!(1.0 / 3.0);
        check("0.3333", third.clone(), true);
        check("0.334", third.clone(), true);
        check("0.3345", third.clone(), false);
        check("1/3", third, false);
        check("42", json!(42.0), true);
        check("42.0004", json!(42.0), true);
        check("[0.5, 2]", json!([0.5004, 2]), true);
    }

    #[test]
    fn only_the_last_complete_box_counts() {
        let truth = Literal::from_json(&json!([1, 2, 3]));
        assert!(!grade_text("\\boxed{[1, 2, 3]} then \\boxed{[1, 2]}", &truth));
        assert!(grade_text("\\boxed{[1, 2]} then \\boxed{[1, 2, 3]}", &truth));
        assert!(grade_text("\\boxed{[1, 2, 3]} \\boxed{[1, 2", &truth));
        assert!(!grade_text("no box at all", &Literal::from_json(&json!(42))));
        assert!(!grade_text("\\boxed{42", &Literal::from_json(&json!(42))));
    }

    fn chain_sample() -> serde_json::Value {
        json!({
            "prompt": "Example \\boxed{task_1_out = ...}\nTask 1: task_1_out\nTask 2: from task_1_out get task_2_out\nTask 3: task_3_out",
            "ground_truth": 30,
            "chain": {"target_task_number": 3,
                "distractors": [{"task_number": 1, "input_name": "task_1_input", "ground_truth": 10},
                                {"task_number": 2, "input_name": "task_1_out", "ground_truth": 20}],
                "target": {"task_number": 3, "input_name": "task_2_out", "ground_truth": 30}}
        })
    }

    #[test]
    fn chain_samples_give_truths_and_predecessors_per_node() {
        let spec = SampleSpec::from_json(&chain_sample(), 0).unwrap();
        assert_eq!(spec.target, "task_3_out");
        let names: Vec<_> = spec.nodes.iter().map(|n| (n.name.as_str(), n.predecessors.clone())).collect();
        assert_eq!(
            names,
            vec![("task_1_out", vec![]), ("task_2_out", vec!["task_1_out".to_string()]), ("task_3_out", vec!["task_2_out".to_string()])]
        );
    }

    #[test]
    fn first_breaks_are_failed_nodes_whose_predecessors_are_correct() {
        let spec = SampleSpec::from_json(&chain_sample(), 0).unwrap();
        let mut answers = Answers::new();
        answers.collect("\\boxed{task_1_out = 10} \\boxed{task_2_out = 21} \\boxed{task_3_out = 30}", 0, &spec.expected);
        let grade = grade_answers(&spec, &answers, "", false);
        assert!(grade.correct);
        assert_eq!(
            grade.nodes,
            vec![("task_1_out".into(), NodeStatus::Correct), ("task_2_out".into(), NodeStatus::Wrong), ("task_3_out".into(), NodeStatus::Correct)]
        );
        assert_eq!(grade.first_breaks, vec!["task_2_out".to_string()]);
    }

    #[test]
    fn declared_custom_target_beats_the_last_prompt_name() {
        let sample = json!({"prompt": "task_1_out task_2_out", "ground_truth": 5, "target_output_name": "task_1_out",
            "custom_dag": {"stages": [{"node_id": "a", "task_number": 1, "input_node_id": null, "ground_truth": 5},
                                      {"node_id": "b", "task_number": 2, "input_node_id": "p", "ground_truth": 7}],
                           "adapters": [{"node_id": "p", "input_node_ids": ["a"]}]}});
        let spec = SampleSpec::from_json(&sample, 0).unwrap();
        assert_eq!(spec.target, "task_1_out");
        assert_eq!(spec.nodes[1].predecessors, vec!["task_1_out".to_string()]);
        let mut answers = Answers::new();
        answers.collect("\\boxed{task_1_out = 5} \\boxed{task_2_out = 8}", 0, &spec.expected);
        assert!(grade_answers(&spec, &answers, "", false).correct);
    }

    #[test]
    fn a_sample_without_prompt_or_truth_is_a_located_error() {
        assert_eq!(SampleSpec::from_json(&json!({"ground_truth": 1}), 4), Err(SpecError::NoPrompt { index: 4 }));
        assert_eq!(SampleSpec::from_json(&json!({"prompt": "x"}), 2), Err(SpecError::NoTruth { index: 2 }));
    }

}
