//! Grading a whole results file (ours or the reference's): every finished sample graded as stored or replayed
//! from its turn outputs, unfinished samples counted, unreadable ones reported with their location, and the
//! metrics input (`Outcome`) of each. The CLI's `grade` and the browser's Results page both call this.

use super::record::is_finished;
use crate::engine::dataset::shape::{family_of, topology_of};
use crate::engine::grade::collect::Answers;
use crate::engine::grade::metrics::{paired, Outcome, Paired};
use crate::engine::grade::{grade_result_sample, SampleGrade};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// How to grade.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GradeOptions {
    /// Re-collect answers from `turn_outputs` (as raw completions) instead of trusting the stored `task_answers`.
    pub replay: bool,
    /// Also compute the lenient verdict (reported apart, never mixed into the score).
    pub lenient: bool,
}

/// Why a file cannot be graded at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResultsError {
    #[error("not a results file: no `samples` list")]
    NoSamples,
    #[error("this is a dataset file, not a results file: no sample has an `agent_status` and the summary has no `generation_params` (run an evaluation on it first)")]
    Dataset,
}

/// One graded sample.
#[derive(Clone, Debug, PartialEq)]
pub struct GradedSample {
    /// Position in the file's `samples`.
    pub index: usize,
    /// The grade.
    pub grade: SampleGrade,
    /// The answers graded (stored or replayed).
    pub answers: Answers,
    /// What the metrics need.
    pub outcome: Outcome,
    /// `task_id|task_name|sample_idx`, when the sample has all three (pairs runs on the same instances).
    pub key: Option<String>,
}

/// A graded file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GradedFile {
    /// Finished, readable samples, in file order.
    pub samples: Vec<GradedSample>,
    /// Samples not finished (no verdict yet).
    pub unfinished: usize,
    /// Finished samples that could not be read, each `(index, reason)`.
    pub unreadable: Vec<(usize, String)>,
}

impl GradedFile {
    /// The metrics input of every graded sample.
    pub fn outcomes(&self) -> Vec<Outcome> {
        self.samples.iter().map(|s| s.outcome.clone()).collect()
    }
}

/// Grades every sample of a results file.
pub fn grade_results_file(file: &Value, options: GradeOptions) -> Result<GradedFile, ResultsError> {
    let samples = file.get("samples").and_then(Value::as_array).ok_or(ResultsError::NoSamples)?;
    let has_params = file.get("summary").and_then(|s| s.get("generation_params")).is_some();
    if !samples.is_empty() && !has_params && !samples.iter().any(|s| s.get("agent_status").is_some()) {
        return Err(ResultsError::Dataset);
    }
    let mode = file.get("summary").and_then(|s| s.get("dataset_mode").or_else(|| s.get("mode"))).and_then(Value::as_str).unwrap_or("");
    let mut graded = GradedFile::default();
    for (index, sample) in samples.iter().enumerate() {
        if !is_finished(sample) {
            graded.unfinished += 1;
            continue;
        }
        match grade_result_sample(sample, index, options.replay, options.lenient) {
            Ok((grade, answers)) => {
                let outcome = outcome_of(sample, mode, &grade);
                graded.samples.push(GradedSample { index, grade, answers, outcome, key: key_of(sample) });
            }
            Err(e) => graded.unreadable.push((index, e.to_string())),
        }
    }
    Ok(graded)
}

/// The metrics input of one results sample: its stored fields and its (re-)grade.
pub fn outcome_of(sample: &Value, mode: &str, grade: &SampleGrade) -> Outcome {
    let number = |key: &str| sample.get(key).and_then(Value::as_f64);
    let repairs = sample
        .get("repairs")
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_u64()?))).collect())
        .unwrap_or_default();
    Outcome {
        topology: topology_of(sample).to_string(),
        family: family_of(sample, mode),
        task: sample.get("task_name").and_then(Value::as_str).unwrap_or("").to_string(),
        correct: grade.correct,
        lenient: grade.lenient,
        token_length: number("token_length"),
        turns: number("agent_turns"),
        tool_calls: number("agent_tool_calls"),
        status: sample.get("agent_status").and_then(Value::as_str).unwrap_or("unknown").to_string(),
        repairs,
        nodes: grade.nodes.clone(),
        first_breaks: grade.first_breaks.clone(),
    }
}

fn key_of(sample: &Value) -> Option<String> {
    let id = sample.get("task_id")?;
    let name = sample.get("task_name")?;
    let idx = sample.get("sample_idx")?;
    Some(format!("{id}|{name}|{idx}"))
}

/// How two runs' samples were matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairedBy {
    /// By `task_id`, `task_name` and `sample_idx` (unique in both files).
    Key,
    /// By position in the files.
    Index,
}

/// Two runs on the same instances, compared pairwise.
#[derive(Clone, Debug, PartialEq)]
pub struct RunComparison {
    /// How samples were matched.
    pub paired_by: PairedBy,
    /// `(index in a, index in b)` of every matched pair.
    pub pairs: Vec<(usize, usize)>,
    /// Counts, difference and the exact McNemar p-value.
    pub stats: Paired,
}

/// Pairs the graded samples of `a` and `b`: by key when keys identify samples uniquely in both, else by position.
pub fn compare_runs(a: &GradedFile, b: &GradedFile) -> RunComparison {
    let b_by_key: HashMap<&str, &GradedSample> = b.samples.iter().filter_map(|s| Some((s.key.as_deref()?, s))).collect();
    let a_keys: HashSet<&str> = a.samples.iter().filter_map(|s| s.key.as_deref()).collect();
    let use_keys = a_keys.len() == a.samples.len()
        && b_by_key.len() == b.samples.len()
        && a.samples.iter().all(|s| s.key.as_deref().is_some_and(|k| b_by_key.contains_key(k)));
    let b_by_index: HashMap<usize, &GradedSample> = b.samples.iter().map(|s| (s.index, s)).collect();
    let mut pairs = Vec::new();
    let mut verdicts = Vec::new();
    for s in &a.samples {
        let other = if use_keys { s.key.as_deref().and_then(|k| b_by_key.get(k)) } else { b_by_index.get(&s.index) };
        if let Some(o) = other {
            pairs.push((s.index, o.index));
            verdicts.push((s.grade.correct, o.grade.correct));
        }
    }
    RunComparison { paired_by: if use_keys { PairedBy::Key } else { PairedBy::Index }, pairs, stats: paired(&verdicts) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(i: u64, status: &str, answer: &str) -> Value {
        json!({"prompt": "Compute task_1_out.", "ground_truth": 7, "task_id": 0, "task_name": "AddTask", "sample_idx": i,
               "agent_status": status, "task_answers": {"task_1_out": {"answer": answer, "turn": 0}}, "turn_outputs": {"0": format!("\\boxed{{task_1_out = {answer}}}")}})
    }

    #[test]
    fn finished_samples_are_graded_and_the_rest_counted_or_located() {
        let file = json!({"summary": {"generation_params": {}}, "samples": [
            sample(0, "success", "7"), sample(1, "success", "8"), sample(2, "in_progress", "7"),
            {"agent_status": "success", "ground_truth": 1}
        ]});
        let graded = grade_results_file(&file, GradeOptions::default()).expect("a results file");
        assert_eq!(graded.samples.iter().map(|s| (s.index, s.grade.correct)).collect::<Vec<_>>(), vec![(0, true), (1, false)]);
        assert_eq!(graded.unfinished, 1);
        assert_eq!(graded.unreadable, vec![(3, "sample 3 has no string `prompt`".to_string())]);
        assert_eq!(graded.samples[0].outcome.topology, "baseline");
        assert_eq!(graded.samples[0].outcome.family, "math");
    }

    #[test]
    fn a_dataset_file_is_refused_with_a_reason() {
        let dataset = json!({"summary": {"mode": "math"}, "samples": [{"prompt": "p", "ground_truth": 1}]});
        assert_eq!(grade_results_file(&dataset, GradeOptions::default()), Err(ResultsError::Dataset));
        assert_eq!(grade_results_file(&json!({"x": 1}), GradeOptions::default()), Err(ResultsError::NoSamples));
    }

    #[test]
    fn runs_pair_by_key_when_keys_are_unique_else_by_position() {
        let a = json!({"summary": {"generation_params": {}}, "samples": [sample(0, "success", "7"), sample(1, "success", "7")]});
        let b = json!({"summary": {"generation_params": {}}, "samples": [sample(1, "success", "8"), sample(0, "success", "7")]});
        let (ga, gb) = (grade_results_file(&a, GradeOptions::default()).unwrap(), grade_results_file(&b, GradeOptions::default()).unwrap());
        let by_key = compare_runs(&ga, &gb);
        assert_eq!(by_key.paired_by, PairedBy::Key);
        assert_eq!(by_key.pairs, vec![(0, 1), (1, 0)]);
        assert_eq!((by_key.stats.both, by_key.stats.only_a, by_key.stats.only_b), (1, 1, 0));
        let c = json!({"summary": {"generation_params": {}}, "samples": [sample(0, "success", "8"), sample(0, "success", "7")]});
        let by_index = compare_runs(&ga, &grade_results_file(&c, GradeOptions::default()).unwrap());
        assert_eq!(by_index.paired_by, PairedBy::Index);
        assert_eq!(by_index.pairs, vec![(0, 0), (1, 1)]);
    }
}
