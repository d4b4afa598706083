//! Grading a whole results file (ours or the reference's): every finished sample graded as stored or replayed
//! from its turn outputs, unfinished samples counted, unreadable ones reported with their location, and the
//! metrics input (`Outcome`, with the sample's token and call counts) of each; the strategy a file was made
//! with; the comparison of several runs; and the context curves (prompt tokens per turn). The CLI's `grade`
//! and the browser's Results page both call this.

use super::record::{has_status, strategy_spec, ResultRecord};
use crate::engine::dataset::shape::family_in;
use crate::engine::grade::collect::Answers;
use crate::engine::grade::metrics::{comparison_row, paired, Comparison, Outcome, Paired, SampleCost};
use crate::engine::grade::{grade_answers, replay_answers, SampleGrade, SampleSpec, SpecError};
pub use crate::engine::grade::GradeOptions;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

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
    /// `task_id|task_name|sample_idx` (with `|epoch` after the first epoch), when the sample has all three (pairs
    /// runs on the same instances, attempt by attempt).
    pub key: Option<String>,
    /// Which attempt at its instance this sample is (0 unless the run had several epochs).
    pub epoch: usize,
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

/// The samples of a results file, or why the file is not one (no samples, or a dataset file): the check
/// `grade_results_file` makes first, without grading anything.
pub fn results_samples(file: &Value) -> Result<&[Value], ResultsError> {
    let samples = file.get("samples").and_then(Value::as_array).ok_or(ResultsError::NoSamples)?;
    let has_params = file.get("summary").and_then(|s| s.get("generation_params")).is_some();
    if !samples.is_empty() && !has_params && !samples.iter().any(has_status) {
        return Err(ResultsError::Dataset);
    }
    Ok(samples)
}

/// The dataset mode a results file's summary records ("" when it records none): how families are named.
pub fn results_mode(file: &Value) -> &str {
    file.get("summary").and_then(|s| s.get("dataset_mode").or_else(|| s.get("mode"))).and_then(Value::as_str).unwrap_or("")
}

/// Grades every sample of a results file.
pub fn grade_results_file(file: &Value, options: GradeOptions) -> Result<GradedFile, ResultsError> {
    let samples = results_samples(file)?;
    let mode = results_mode(file);
    let mut graded = GradedFile::default();
    for (index, sample) in samples.iter().enumerate() {
        graded.add(index, sample, mode, options);
    }
    Ok(graded)
}

impl GradedFile {
    /// Grades sample `index` of a file of dataset mode `mode` into this file's tally (samples are added in file
    /// order, so a file can be graded a slice at a time).
    pub fn add(&mut self, index: usize, sample: &Value, mode: &str, options: GradeOptions) {
        let record = ResultRecord::parse(sample);
        if !record.is_finished() {
            self.unfinished += 1;
            return;
        }
        match grade_record(&record, index, options) {
            Ok((grade, answers)) => {
                let outcome = outcome_of(&record, mode, &grade);
                let key = record.instance_key.clone().map(|base| match record.epoch {
                    0 => base,
                    epoch => format!("{base}|{epoch}"),
                });
                self.samples.push(GradedSample { index, grade, answers, outcome, key, epoch: record.epoch });
            }
            Err(e) => self.unreadable.push((index, e.to_string())),
        }
    }
}

/// Grades one results sample: answers re-collected from its turn outputs with `replay`, else its stored
/// `task_answers`.
pub fn grade_record(record: &ResultRecord, index: usize, options: GradeOptions) -> Result<(SampleGrade, Answers), SpecError> {
    let spec = SampleSpec::from_record(&record.sample, index)?;
    let (replayed, last) = replay_answers(record.turn_outputs.as_deref().unwrap_or(&[]), &spec.expected);
    let answers = if options.replay { replayed } else { record.task_answers.clone().unwrap_or_default() };
    Ok((grade_answers(&spec, &answers, &last, options.lenient), answers))
}

/// The metrics input of one results sample: its stored fields and its (re-)grade.
pub fn outcome_of(record: &ResultRecord, mode: &str, grade: &SampleGrade) -> Outcome {
    Outcome {
        topology: record.sample.topology.as_str().to_string(),
        family: family_in(&record.sample, mode),
        task: record.sample.task_name.clone().unwrap_or_default(),
        correct: grade.correct,
        lenient: grade.lenient,
        token_length: record.token_length,
        turns: record.agent_turns,
        tool_calls: record.agent_tool_calls,
        status: record.status.as_ref().map_or("unknown", |s| s.as_str()).to_string(),
        repairs: record.repairs.clone().unwrap_or_default().into_iter().collect(),
        nodes: grade.nodes.clone(),
        first_breaks: grade.first_breaks.clone(),
        cost: sample_cost(record),
    }
}

/// What a results sample cost: from its `requests` list (each request's reported prompt tokens, else its
/// estimate), or from its `usage` totals when an older file has no list (then per-turn prompts are unknown).
pub fn sample_cost(record: &ResultRecord) -> Option<SampleCost> {
    if let Some(requests) = &record.requests {
        let mut cost = SampleCost::default();
        for r in requests {
            let prompt = r.prompt_tokens().unwrap_or(0);
            let completion = r.completion_tokens.unwrap_or(0);
            cost.calls += 1;
            cost.total_tokens += prompt + completion;
            cost.prompt_tokens += prompt;
            cost.completion_tokens += completion;
            cost.cached_prompt_tokens += r.cached_prompt_tokens.unwrap_or(0);
            if r.is_turn() {
                cost.turn_prompt_tokens.push(prompt);
            } else {
                cost.auxiliary_calls += 1;
            }
        }
        return Some(cost);
    }
    record.usage.as_ref()?;
    let n = |key: &str| record.usage_of(key).unwrap_or(0);
    let auxiliary_calls = n("auxiliary_calls");
    Some(SampleCost {
        turn_prompt_tokens: Vec::new(),
        calls: record.agent_turns.map_or(0, |t| t as u64) + auxiliary_calls,
        auxiliary_calls,
        total_tokens: n("prompt_tokens") + n("completion_tokens") + n("auxiliary_prompt_tokens") + n("auxiliary_completion_tokens"),
        prompt_tokens: n("prompt_tokens") + n("auxiliary_prompt_tokens"),
        completion_tokens: n("completion_tokens") + n("auxiliary_completion_tokens"),
        cached_prompt_tokens: n("cached_prompt_tokens"),
    })
}

/// Prompt tokens of each turn's request of a results sample, as `(turn, tokens)` (reported, else estimated).
pub fn context_curve(record: &ResultRecord) -> Vec<(usize, u64)> {
    let requests = record.requests.as_deref().unwrap_or(&[]);
    requests.iter().filter(|r| r.is_turn()).filter_map(|r| Some((r.turn? as usize, r.prompt_tokens()?))).collect()
}

/// The mean context curve of a results file: per turn, the mean prompt tokens over the samples that reached
/// it, and how many did, as `(turn, mean, samples)`.
pub fn mean_context_curve(file: &Value) -> Vec<(usize, f64, usize)> {
    let mut sums: Vec<(u64, usize)> = Vec::new();
    for sample in file.get("samples").and_then(Value::as_array).into_iter().flatten() {
        for (turn, tokens) in context_curve(&ResultRecord::parse(sample)) {
            if sums.len() <= turn {
                sums.resize(turn + 1, (0, 0));
            }
            sums[turn].0 += tokens;
            sums[turn].1 += 1;
        }
    }
    sums.into_iter().enumerate().filter(|(_, (_, n))| *n > 0).map(|(turn, (sum, n))| (turn, sum as f64 / n as f64, n)).collect()
}

/// The strategy a results file was made with, as `name:key=value,…`: from the summary's `generation_params`
/// (`strategy`, `strategy_params`), else from the first sample that says; files from before the registry
/// that say `acg` read as `acg-lite`. `None` when nothing says.
pub fn strategy_of(file: &Value) -> Option<String> {
    let params = file.get("summary").and_then(|s| s.get("generation_params"));
    params.and_then(strategy_spec).or_else(|| file.get("samples").and_then(Value::as_array)?.iter().find_map(strategy_spec))
}

/// One run to compare: its label, its graded file and its strategy.
#[derive(Clone, Debug, PartialEq)]
pub struct Run<'a> {
    /// How the table calls it.
    pub label: String,
    /// Its strategy (`strategy_of`), or any text.
    pub strategy: String,
    /// The graded file.
    pub graded: &'a GradedFile,
}

/// The comparison table of several runs on the same instances, each paired with `runs[baseline]`.
pub fn compare_many(runs: &[Run<'_>], baseline: usize) -> Comparison {
    let baseline = baseline.min(runs.len().saturating_sub(1));
    let rows = runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let paired = (i != baseline).then(|| compare_runs(run.graded, runs[baseline].graded).stats);
            comparison_row(&run.label, &run.strategy, &run.graded.outcomes(), paired)
        })
        .collect();
    Comparison { baseline, rows }
}

/// `task_id|task_name|sample_idx` of a sample: the instance it is an attempt at, whatever the epoch.
pub fn instance_key(sample: &Value) -> Option<String> {
    ResultRecord::parse(sample).instance_key
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
        assert_eq!(results_samples(&dataset), Err(ResultsError::Dataset));
        let results = json!({"summary": {"generation_params": {}}, "samples": [{"prompt": "p"}]});
        assert_eq!(results_samples(&results).map(<[Value]>::len), Ok(1));
    }

    #[test]
    fn costs_curves_and_strategies_are_read_from_the_file() {
        let mut a = sample(0, "success", "7");
        a["requests"] = json!([
            {"turn": 0, "kind": "turn", "prompt_tokens_estimated": 90, "prompt_tokens_reported": 100, "completion_tokens": 10},
            {"turn": 1, "kind": "summary", "prompt_tokens_estimated": 50, "prompt_tokens_reported": null, "completion_tokens": 5},
            {"turn": 1, "kind": "turn", "prompt_tokens_estimated": 60, "prompt_tokens_reported": null, "completion_tokens": null}
        ]);
        let cost = sample_cost(&ResultRecord::parse(&a)).unwrap();
        assert_eq!((cost.turn_prompt_tokens.clone(), cost.calls, cost.auxiliary_calls, cost.total_tokens), (vec![100, 60], 3, 1, 225));
        assert_eq!((cost.prompt_tokens, cost.completion_tokens), (210, 15), "the summary call's tokens count, priced as input and output");
        assert_eq!(context_curve(&ResultRecord::parse(&a)), vec![(0, 100), (1, 60)]);
        let mut b = sample(1, "success", "7");
        b["usage"] = json!({"prompt_tokens": 40, "completion_tokens": 2});
        b["agent_turns"] = json!(2);
        assert_eq!(sample_cost(&ResultRecord::parse(&b)).map(|c| (c.calls, c.total_tokens, c.turn_prompt_tokens.is_empty())), Some((2, 42, true)));
        b["usage"]["auxiliary_prompt_tokens"] = json!(7);
        b["usage"]["auxiliary_completion_tokens"] = json!(1);
        assert_eq!(sample_cost(&ResultRecord::parse(&b)).map(|c| (c.total_tokens, c.prompt_tokens, c.completion_tokens)), Some((50, 47, 3)));
        let file = json!({"summary": {"generation_params": {"strategy": "acg", "acg_budget_tokens": 3000}}, "samples": [a.clone(), b]});
        assert_eq!(strategy_of(&file).as_deref(), Some("acg-lite:budget_tokens=3000"));
        assert_eq!(mean_context_curve(&file), vec![(0, 100.0, 1), (1, 60.0, 1)]);
        let from_sample = json!({"samples": [{"strategy": "mask", "strategy_params": {"keep": 2}}]});
        assert_eq!(strategy_of(&from_sample).as_deref(), Some("mask:keep=2"));
        assert_eq!(strategy_of(&json!({"samples": []})), None);
        let graded = grade_results_file(&json!({"summary": {"generation_params": {}}, "samples": [a]}), GradeOptions::default()).unwrap();
        assert_eq!(graded.samples[0].outcome.cost.as_ref().map(|c| c.calls), Some(3));
    }

    #[test]
    fn several_runs_are_compared_against_the_chosen_baseline() {
        let run = |answers: &[&str]| {
            let samples: Vec<Value> = answers.iter().enumerate().map(|(i, a)| sample(i as u64, "success", a)).collect();
            grade_results_file(&json!({"summary": {"generation_params": {}}, "samples": samples}), GradeOptions::default()).unwrap()
        };
        let (a, b, c) = (run(&["7", "7", "7"]), run(&["7", "8", "8"]), run(&["8", "8", "8"]));
        let runs = vec![
            Run { label: "a".into(), strategy: "full".into(), graded: &a },
            Run { label: "b".into(), strategy: "mask:keep=10".into(), graded: &b },
            Run { label: "c".into(), strategy: "window:exchanges=2".into(), graded: &c },
        ];
        let table = compare_many(&runs, 1);
        assert_eq!(table.baseline, 1);
        assert!(table.rows[1].paired.is_none());
        assert_eq!(table.rows[0].paired.as_ref().map(|p| (p.only_a, p.only_b)), Some((2, 0)));
        assert_eq!(table.rows[2].paired.as_ref().map(|p| (p.only_a, p.only_b)), Some((0, 1)));
        assert_eq!(table.rows[2].accuracy.correct, 0);
        assert_eq!(compare_many(&runs, 9).baseline, 2, "an out-of-range baseline is the last run");
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

    #[test]
    fn uncollected_targets_fall_back_to_the_last_turn_including_unlabelled_boxes() {
        let sample = json!({"prompt": "Task 1: task_1_out", "ground_truth": 42, "turn_outputs": {"0": "thinking", "1": "so \\boxed{42}"}});
        let (grade, answers) = grade_record(&ResultRecord::parse(&sample), 0, GradeOptions { replay: true, lenient: false }).unwrap();
        assert!(answers.is_empty());
        assert!(grade.correct);
    }
}
