//! A browser run's rows, without a browser: the per-sample rows the Evaluate page draws, how many concurrent
//! lanes a run uses, the samples "retry failed samples only" runs again, and each stored run's line in the run
//! list (name, progress, accuracy, model). The queue the lanes take samples from is the engine's
//! (`engine::run::Run`).

use serde_json::Value;

use crate::engine::dataset::SampleRecord;
use crate::engine::results::{counts_of, ResultRecord};
use super::stored_run::RunSpec;
use crate::engine::sort;

/// One sample's row of the progress table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The sample's index in the run.
    pub index: usize,
    /// Its target task.
    pub task: String,
    /// `queued`, `running`, `paused`, `not run`, `stopped`, or the finished sample's agent status.
    pub status: String,
    /// Graded: right or wrong; `None` until the sample has a result.
    pub correct: Option<bool>,
    /// Turns taken.
    pub turns: usize,
    /// Why a finished sample failed to get an answer (`agent_error`), e.g. the endpoint's refusal.
    pub error: Option<String>,
}

impl Row {
    /// A queued row for `sample`.
    pub fn queued(index: usize, sample: &Value) -> Row {
        let task = SampleRecord::parse(sample).task_name.unwrap_or_else(|| "?".into());
        Row { index, task, status: "queued".into(), correct: None, turns: 0, error: None }
    }

    /// The row of a finished sample's result record.
    pub fn finish(&mut self, result: &Value) {
        let record = ResultRecord::parse(result);
        self.status = record.status.as_ref().map_or("done", |s| s.as_str()).to_string();
        self.correct = Some(record.correct.unwrap_or(false));
        self.turns = record.agent_turns.filter(|t| *t >= 0.0).map_or(0, |t| t as usize);
        self.error = record.agent_error.filter(|e| !e.is_empty());
    }

    /// True once the sample has a result.
    pub fn is_done(&self) -> bool {
        self.correct.is_some()
    }
}

/// (done, correct, total) of `rows`.
pub fn tally(rows: &[Row]) -> (usize, usize, usize) {
    (rows.iter().filter(|r| r.is_done()).count(), rows.iter().filter(|r| r.correct == Some(true)).count(), rows.len())
}

/// Marks the rows still waiting (queued or running) as `status` when a run stops or pauses before them.
pub fn mark_waiting(rows: &mut [Row], status: &str) {
    for row in rows.iter_mut().filter(|r| !r.is_done() && matches!(r.status.as_str(), "queued" | "running" | "paused")) {
        row.status = status.to_string();
    }
}

/// Lanes a run uses: its concurrency, never more than the samples left.
pub fn lanes(concurrency: usize, left: usize) -> usize {
    concurrency.clamp(1, 32).min(left).max(usize::from(left > 0))
}

/// True when a finished sample failed because the endpoint gave up (`api_error`): what "retry failed samples
/// only" runs again (the engine run's rule, `engine::run::is_failed`).
pub use crate::engine::run::is_failed;

/// The run list's line for one stored run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// The run id (the store's key).
    pub id: String,
    /// The name shown: the user's, or one made from the topology, strategy and model.
    pub name: String,
    /// Samples in the run.
    pub total: usize,
    /// Samples with a result.
    pub done: usize,
    /// Correct samples among those done.
    pub correct: usize,
    /// Finished samples whose endpoint gave up (`api_error`).
    pub failed: usize,
    /// True once every sample has a result.
    pub finished: bool,
    /// When the run started, milliseconds since the epoch (from its id), if known.
    pub started_ms: Option<f64>,
    /// The model asked for.
    pub model: String,
    /// The context strategy.
    pub strategy: String,
}

/// The default name of a run: what it ran (the list shows the model and strategy beside every name).
pub fn default_name(spec: &RunSpec) -> String {
    format!("{} · {} samples", spec.topology, spec.samples.len())
}

/// The run list's line of `spec` with its stored results.
pub fn summarize(spec: &RunSpec, results: &[Value]) -> RunSummary {
    let name = if spec.name.trim().is_empty() { default_name(spec) } else { spec.name.clone() };
    RunSummary {
        id: spec.id.clone(),
        name,
        total: spec.samples.len(),
        done: results.len(),
        correct: results.iter().filter(|r| counts_of(r).correct == Some(true)).count(),
        failed: results.iter().filter(|r| is_failed(r)).count(),
        finished: results.len() >= spec.samples.len(),
        // `run-<ms>`, or `run-<ms>-lab<k>` for a strategy lab's runs (`app::evaluate::lab::run_id`).
        started_ms: spec.id.strip_prefix("run-").and_then(|rest| rest.split('-').next()).and_then(|ms| ms.parse::<f64>().ok()),
        model: spec.model.clone(),
        strategy: spec.strategy.clone(),
    }
}

impl RunSummary {
    /// "12 of 50 done · 9 correct · 2 failed" (failures only when there are some).
    pub fn progress(&self) -> String {
        let mut line = format!("{} of {} done · {} correct", self.done, self.total, self.correct);
        if self.failed > 0 {
            line.push_str(&format!(" · {} failed", self.failed));
        }
        line
    }
}

/// Newest runs first.
pub fn newest_first(runs: &mut [RunSummary]) {
    sort::by(runs, |a, b| b.started_ms.unwrap_or(0.0).total_cmp(&a.started_ms.unwrap_or(0.0)).then_with(|| b.id.cmp(&a.id)));
}

/// Longest name a run may have.
pub const NAME_LIMIT: usize = 120;

/// A run's new name as typed, trimmed, or why it cannot be one.
pub fn checked_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    if name.is_empty() {
        return Err("a run's name cannot be empty".into());
    }
    let length = name.chars().count();
    if length > NAME_LIMIT {
        return Err(format!("a run's name has at most {NAME_LIMIT} characters (this one has {length})"));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::evaluate::settings::RunSettings;
    use serde_json::json;

    fn spec(samples: usize) -> RunSpec {
        RunSpec {
            id: "run-1700000000000".into(),
            name: String::new(),
            finished: false,
            samples: (0..samples).map(|i| json!({"task_name": format!("t{i}")})).collect(),
            topology: "chain".into(),
            strategy: "full".into(),
            max_tokens: 512,
            base_url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            settings: RunSettings::default(),
            provider: String::new(),
            wire: String::new(),
            adaptations: Value::Null,
        }
    }

    #[test]
    fn lanes_follow_the_concurrency_but_never_outnumber_the_samples_left() {
        assert_eq!(lanes(8, 50), 8);
        assert_eq!(lanes(8, 3), 3);
        assert_eq!(lanes(0, 3), 1);
        assert_eq!(lanes(100, 100), 32);
        assert_eq!(lanes(4, 0), 0);
    }

    #[test]
    fn rows_follow_results_and_a_stop_marks_only_the_waiting_ones() {
        let samples = spec(3).samples;
        let mut rows: Vec<Row> = samples.iter().enumerate().map(|(i, s)| Row::queued(i, s)).collect();
        rows[0].finish(&json!({"agent_status": "success", "correct": true, "agent_turns": 4}));
        rows[1].status = "running".into();
        assert_eq!((rows[0].status.as_str(), rows[0].turns, rows[2].task.as_str(), &rows[0].error), ("success", 4, "t2", &None));
        rows[2].finish(&json!({"agent_status": "api_error", "correct": false, "agent_error": "HTTP 403: 403 Forbidden"}));
        assert_eq!(rows[2].error.as_deref(), Some("HTTP 403: 403 Forbidden"));
        rows[2] = Row::queued(2, &samples[2]);
        assert_eq!(tally(&rows), (1, 1, 3));
        mark_waiting(&mut rows, "not run");
        let statuses: Vec<&str> = rows.iter().map(|r| r.status.as_str()).collect();
        assert_eq!(statuses, vec!["success", "not run", "not run"]);
    }

    #[test]
    fn only_samples_the_endpoint_gave_up_on_count_as_failed() {
        assert!(is_failed(&json!({"agent_status": "api_error", "correct": false})));
        assert!(!is_failed(&json!({"agent_status": "timeout", "correct": false})), "a turn limit is the model's failure, not the endpoint's");
        assert!(!is_failed(&json!({"agent_status": "success", "correct": false})));
    }

    #[test]
    fn a_summary_counts_results_and_names_unnamed_runs_after_what_they_ran() {
        let results = vec![json!({"agent_status": "success", "correct": true}), json!({"agent_status": "api_error", "correct": false})];
        let summary = summarize(&spec(5), &results);
        assert_eq!(summary.name, "chain · 5 samples");
        assert_eq!(summary.progress(), "2 of 5 done · 1 correct · 1 failed");
        assert_eq!(summary.started_ms, Some(1_700_000_000_000.0));
        assert!(!summary.finished);
        let lab_run = summarize(&RunSpec { id: crate::app::evaluate::lab::run_id(1_700_000_000_000, 2), ..spec(1) }, &results[..1]);
        assert_eq!(lab_run.started_ms, Some(1_700_000_000_000.0), "a lab's runs sort by when the lab started");
        let named = summarize(&RunSpec { name: "qwen at 0.7".into(), ..spec(2) }, &results);
        assert_eq!((named.name.as_str(), named.finished), ("qwen at 0.7", true));
        assert_eq!(summarize(&spec(1), &results[..1]).progress(), "1 of 1 done · 1 correct");
    }

    #[test]
    fn runs_list_newest_first() {
        let mut runs = vec![summarize(&spec(1), &[]), summarize(&RunSpec { id: "run-1800000000000".into(), ..spec(1) }, &[])];
        newest_first(&mut runs);
        assert_eq!(runs[0].id, "run-1800000000000");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(checked_name("  full vs acg  ").unwrap(), "full vs acg");
        assert!(checked_name("   ").unwrap_err().contains("empty"));
        assert!(checked_name(&"x".repeat(NAME_LIMIT + 1)).unwrap_err().contains("121"));
    }
}
