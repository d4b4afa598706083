//! Runs of several epochs: each instance attempted k times (`arbigraph eval --epochs k`, the Evaluate page's
//! epochs setting). Every attempt is its own results sample carrying `epoch` (0-based; absent means 0), so a
//! file stays in the reference layout and older readers see k times as many samples. The report gives the
//! mean accuracy over attempts, pass^k (an instance counts only when all k attempts are correct, as τ-bench
//! reports reliability) and each instance's consistency (correct attempts out of attempts).

use super::grading::{instance_key, GradedFile};
use super::record::with_epoch;
use crate::engine::grade::metrics::Accuracy;
use serde_json::Value;
use std::collections::BTreeMap;

/// The samples of a run of `epochs` attempts: every sample once per epoch, epoch by epoch, so the first
/// `samples.len()` entries are the plain dataset.
pub fn expand_epochs(samples: &[Value], epochs: usize) -> Vec<Value> {
    (0..epochs.max(1)).flat_map(|e| samples.iter().map(move |s| with_epoch(s, e))).collect()
}

/// One instance's attempts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceConsistency {
    /// `task_id|task_name|sample_idx` (or `#index` for samples without those fields).
    pub instance: String,
    /// Correct attempts.
    pub correct: usize,
    /// Graded attempts.
    pub attempts: usize,
}

/// What several attempts per instance say.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// Attempts per instance the run asked for (the most any instance has).
    pub epochs: usize,
    /// Mean accuracy over every graded attempt.
    pub mean_accuracy: f64,
    /// Instances with all `epochs` attempts graded, counted correct when every attempt is.
    pub pass_k: Accuracy,
    /// Instances with at least one correct attempt among those with all attempts graded (pass@k).
    pub pass_any: Accuracy,
    /// Every instance, in file order of its first attempt.
    pub consistency: Vec<InstanceConsistency>,
}

impl EpochReport {
    /// One line: epochs, mean accuracy, pass^k with its Wilson 95% interval, and pass@k.
    pub fn headline(&self) -> String {
        let (lo, hi) = self.pass_k.interval();
        let k = self.epochs;
        format!(
            "{k} epochs · mean accuracy {:.1}% · pass^{k} {:.1}% [{:.1}, {:.1}] ({}/{} instances) · pass@{k} {:.1}% ({}/{})",
            self.mean_accuracy * 100.0,
            self.pass_k.rate() * 100.0,
            lo * 100.0,
            hi * 100.0,
            self.pass_k.correct,
            self.pass_k.total,
            self.pass_any.rate() * 100.0,
            self.pass_any.correct,
            self.pass_any.total
        )
    }
}

/// Correct attempts out of attempts per instance, from (instance key, correct) per attempt; instances in the
/// order of their first attempt.
pub fn tally_attempts(attempts: impl IntoIterator<Item = (String, bool)>) -> Vec<InstanceConsistency> {
    let mut out: Vec<InstanceConsistency> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for (instance, correct) in attempts {
        let slot = *at.entry(instance.clone()).or_insert_with(|| {
            out.push(InstanceConsistency { instance, correct: 0, attempts: 0 });
            out.len() - 1
        });
        out[slot].correct += correct as usize;
        out[slot].attempts += 1;
    }
    out
}

/// The epoch report of a graded file; `None` when no sample is a later attempt (a single-epoch run).
pub fn epoch_report(file: &Value, graded: &GradedFile) -> Option<EpochReport> {
    if !graded.samples.iter().any(|s| s.epoch > 0) {
        return None;
    }
    let samples = file.get("samples").and_then(Value::as_array);
    let consistency = tally_attempts(
        graded.samples.iter().map(|s| (samples.and_then(|all| all.get(s.index)).and_then(instance_key).unwrap_or_else(|| format!("#{}", s.index)), s.grade.correct)),
    );
    let epochs = graded.samples.iter().map(|s| s.epoch + 1).max().unwrap_or(1);
    let mut pass_k = Accuracy::default();
    let mut pass_any = Accuracy::default();
    for c in consistency.iter().filter(|c| c.attempts >= epochs) {
        pass_k.total += 1;
        pass_k.correct += (c.correct == c.attempts) as usize;
        pass_any.total += 1;
        pass_any.correct += (c.correct > 0) as usize;
    }
    let total = graded.samples.len();
    let correct = graded.samples.iter().filter(|s| s.grade.correct).count();
    Some(EpochReport { epochs, mean_accuracy: if total == 0 { 0.0 } else { correct as f64 / total as f64 }, pass_k, pass_any, consistency })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::results::{compare_runs, epoch_of, grade_results_file, GradeOptions, PairedBy};
    use serde_json::json;

    fn attempt(idx: u64, epoch: usize, answer: &str) -> Value {
        let sample = json!({"prompt": "Compute task_1_out.", "ground_truth": 7, "task_id": 0, "task_name": "AddTask", "sample_idx": idx,
            "agent_status": "success", "task_answers": {"task_1_out": {"answer": answer, "turn": 0}}});
        with_epoch(&sample, epoch)
    }

    #[test]
    fn epochs_expand_a_dataset_attempt_by_attempt_and_mark_later_attempts() {
        let samples = vec![json!({"prompt": "a"}), json!({"prompt": "b"})];
        let run = expand_epochs(&samples, 3);
        assert_eq!(run.len(), 6);
        assert_eq!(run[..2], samples[..], "the first epoch is the plain dataset");
        assert_eq!(run.iter().map(epoch_of).collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 2]);
        assert_eq!(run[3]["prompt"], "b");
        assert_eq!(expand_epochs(&samples, 0).len(), 2, "at least one epoch");
    }

    #[test]
    fn the_report_gives_mean_accuracy_pass_k_and_consistency() {
        // Instance 0: 3/3 correct; instance 1: 1/3; instance 2: 2 attempts only (unfinished third).
        let samples = vec![
            attempt(0, 0, "7"), attempt(1, 0, "7"), attempt(2, 0, "7"),
            attempt(0, 1, "7"), attempt(1, 1, "8"), attempt(2, 1, "7"),
            attempt(0, 2, "7"), attempt(1, 2, "8"), json!({"agent_status": "in_progress", "epoch": 2}),
        ];
        let file = json!({"summary": {"generation_params": {}}, "samples": samples});
        let graded = grade_results_file(&file, GradeOptions::default()).unwrap();
        let report = epoch_report(&file, &graded).expect("a run of several epochs");
        assert_eq!(report.epochs, 3);
        assert!((report.mean_accuracy - 6.0 / 8.0).abs() < 1e-12);
        assert_eq!((report.pass_k.correct, report.pass_k.total), (1, 2), "instance 2 lacks an attempt");
        assert_eq!((report.pass_any.correct, report.pass_any.total), (2, 2));
        let shown: Vec<(usize, usize)> = report.consistency.iter().map(|c| (c.correct, c.attempts)).collect();
        assert_eq!(shown, vec![(3, 3), (1, 3), (2, 2)]);
        assert_eq!(report.consistency[1].instance, "0|\"AddTask\"|1");
        let line = report.headline();
        assert!(line.starts_with("3 epochs · mean accuracy 75.0% · pass^3 50.0% ["), "{line}");
        assert!(line.ends_with("(1/2 instances) · pass@3 100.0% (2/2)"), "{line}");
        let single = json!({"summary": {"generation_params": {}}, "samples": [attempt(0, 0, "7")]});
        assert_eq!(epoch_report(&single, &grade_results_file(&single, GradeOptions::default()).unwrap()), None);
    }

    #[test]
    fn runs_of_several_epochs_pair_attempt_by_attempt() {
        let a = json!({"summary": {"generation_params": {}}, "samples": [attempt(0, 0, "7"), attempt(0, 1, "7")]});
        let b = json!({"summary": {"generation_params": {}}, "samples": [attempt(0, 1, "8"), attempt(0, 0, "7")]});
        let (ga, gb) = (grade_results_file(&a, GradeOptions::default()).unwrap(), grade_results_file(&b, GradeOptions::default()).unwrap());
        let c = compare_runs(&ga, &gb);
        assert_eq!(c.paired_by, PairedBy::Key, "keys stay unique across epochs");
        assert_eq!(c.pairs, vec![(0, 1), (1, 0)]);
        assert_eq!((c.stats.both, c.stats.only_a), (1, 1));
    }
}
