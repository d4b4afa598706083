//! The board of a run: every sample's result or status, the queue of jobs still to start (lowest index first,
//! each once), the tally, stop, pause, and the spend meter whose spent budget halts the run. A driver asks
//! `next_job` for work, runs the job with its own IO, and hands the outcome back (`finish`, or `cut_short` for
//! a job stopped before it had a result).

use std::collections::VecDeque;

use serde_json::Value;

use super::plan::{failed_outright, is_failed, run_samples};
use super::spend::{Meter, Spend};
use crate::engine::agent::ChatReply;
use crate::engine::results::{counts_of, is_finished, same_prompt};

/// Where one job (one sample of the run) stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    /// Waiting for a driver to take it.
    Queued,
    /// Taken by a driver, not handed back yet.
    Running,
    /// Has a result.
    Finished,
    /// Stopped before it had a result (a stop, a spent budget, an unreadable sample): it stays resumable.
    CutShort,
}

/// What a driver asking for work gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Run this sample (its index in the run).
    Job(usize),
    /// The run is paused: ask again later.
    Wait,
    /// No job will start any more: everything was handed out, or the run was stopped or halted.
    Over,
}

/// The counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Samples in the run.
    pub total: usize,
    /// Samples with a result (resumed ones included).
    pub finished: usize,
    /// Of those, the ones that already had a result when this session started.
    pub resumed: usize,
    /// Correct samples (resumed ones included).
    pub correct: usize,
    /// Samples finished in this session that failed outright (the endpoint gave up, or the sample was unreadable).
    pub failed: usize,
}

impl Tally {
    /// Samples finished in this session.
    pub fn done_here(&self) -> usize {
        self.finished - self.resumed
    }
}

/// One evaluation run: its samples and their results, the queue, stop, pause and spend.
#[derive(Clone, Debug, Default)]
pub struct Run {
    samples: Vec<Value>,
    results: Vec<Option<Value>>,
    status: Vec<JobStatus>,
    queue: VecDeque<usize>,
    stopped: bool,
    paused: bool,
    halted: Option<String>,
    meter: Meter,
    tally: Tally,
}

impl Run {
    /// A run of `samples` (the dataset's, epochs expanded), none finished yet, under `spend`'s budgets. Samples
    /// that already carry a result (a results file given as the dataset) count as finished.
    pub fn new(samples: Vec<Value>, spend: Spend) -> Run {
        let results: Vec<Option<Value>> = samples.iter().map(|s| is_finished(s).then(|| s.clone())).collect();
        let mut run = Run { samples, results, meter: Meter::new(spend), ..Run::default() };
        run.replan();
        run
    }

    /// Sets the run's samples (before any job starts), keeping its spend, stop and pause: for a driver whose
    /// controls exist before it knows the samples.
    pub fn load(&mut self, samples: Vec<Value>) {
        let (stopped, paused, halted, meter) = (self.stopped, self.paused, self.halted.take(), self.meter);
        *self = Run { stopped, paused, halted, ..Run::new(samples, meter.spend) };
        self.meter = meter;
    }

    /// Takes in previously finished samples (index, result) from `source` (a results file or a journal): those
    /// out of range or unfinished are skipped, one whose prompt differs from the sample's refuses the whole
    /// merge (nothing is taken in), naming `source` and the sample. Returns how many were taken in. Call before any job starts.
    pub fn merge(&mut self, source: &str, entries: impl IntoIterator<Item = (usize, Value)>) -> Result<usize, String> {
        let mut taken = Vec::new();
        for (index, result) in entries {
            let Some(sample) = self.samples.get(index) else { continue };
            if !is_finished(&result) {
                continue;
            }
            if !same_prompt(&result, sample) {
                return Err(format!("{source}: sample {index} has a different prompt than the dataset; cannot continue"));
            }
            taken.push((index, result));
        }
        let count = taken.len();
        for (index, result) in taken {
            self.results[index] = Some(result);
        }
        self.replan();
        Ok(count)
    }

    /// Forgets the results the endpoint gave up on (`plan::is_failed`) so they run again; returns their indices.
    pub fn retry_failed(&mut self) -> Vec<usize> {
        let failed: Vec<usize> = (0..self.results.len()).filter(|&i| self.results[i].as_ref().is_some_and(is_failed)).collect();
        for &i in &failed {
            self.results[i] = None;
        }
        self.replan();
        failed
    }

    /// Rebuilds the queue and the tally from the results held.
    fn replan(&mut self) {
        self.status = self.results.iter().map(|r| if r.is_some() { JobStatus::Finished } else { JobStatus::Queued }).collect();
        self.queue = (0..self.results.len()).filter(|&i| self.results[i].is_none()).collect();
        let finished = self.results.iter().flatten().count();
        let correct = self.results.iter().flatten().filter(|r| is_correct(r)).count();
        self.tally = Tally { total: self.samples.len(), finished, resumed: finished, correct, failed: 0 };
    }

    /// The next job to run, or why none starts: paused, stopped, halted by a spent budget (which this call
    /// notices, stopping the run and recording why), or nothing left.
    pub fn next_job(&mut self) -> Next {
        if self.stopped || self.over_budget() {
            return Next::Over;
        }
        if self.paused {
            return Next::Wait;
        }
        match self.queue.pop_front() {
            Some(index) => {
                self.status[index] = JobStatus::Running;
                Next::Job(index)
            }
            None => Next::Over,
        }
    }

    /// Hands back a finished job's result record.
    pub fn finish(&mut self, index: usize, result: Value) {
        let Some(slot) = self.results.get_mut(index) else { return };
        if let Some(old) = slot.as_ref() {
            // A job handed back twice counts once.
            self.tally.finished = self.tally.finished.saturating_sub(1);
            self.tally.correct = self.tally.correct.saturating_sub(usize::from(is_correct(old)));
            self.tally.failed = self.tally.failed.saturating_sub(usize::from(failed_outright(old)));
        }
        self.tally.finished += 1;
        self.tally.correct += usize::from(is_correct(&result));
        self.tally.failed += usize::from(failed_outright(&result));
        *slot = Some(result);
        self.status[index] = JobStatus::Finished;
    }

    /// Hands back a job that ended without a result (stopped, or its sample unreadable): it stays unfinished.
    pub fn cut_short(&mut self, index: usize) {
        if let Some(status) = self.status.get_mut(index).filter(|s| **s != JobStatus::Finished) {
            *status = JobStatus::CutShort;
        }
    }

    /// Stops the run: no new job starts; jobs in flight may still be handed back.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// True once the run was stopped (by the user or a spent budget).
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Holds (true) or lets go (false) the next jobs.
    pub fn pause(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// True (and the run stopped, recording why) once a budget is spent.
    pub fn over_budget(&mut self) -> bool {
        match self.meter.exhausted() {
            Some(reason) => {
                self.halted.get_or_insert(reason);
                self.stopped = true;
                true
            }
            None => false,
        }
    }

    /// Why the run stopped itself (a spent budget), if it did.
    pub fn halted(&self) -> Option<&str> {
        self.halted.as_deref()
    }

    /// Counts a reply's tokens towards the run's spend.
    pub fn count_reply(&mut self, reply: &ChatReply) {
        self.meter.count(reply);
    }

    /// What the run has spent.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// The counts so far.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// Where job `index` stands (`None` out of range).
    pub fn status(&self, index: usize) -> Option<JobStatus> {
        self.status.get(index).copied()
    }

    /// The dataset sample of job `index`.
    pub fn sample(&self, index: usize) -> Option<&Value> {
        self.samples.get(index)
    }

    /// Every sample's result so far (`None`: no result yet).
    pub fn results(&self) -> &[Option<Value>] {
        &self.results
    }

    /// Jobs not started yet.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// True once every sample has a result.
    pub fn is_complete(&self) -> bool {
        self.results.iter().all(Option::is_some)
    }

    /// The samples of the run's results file as it stands (unfinished ones marked `in_progress`).
    pub fn file_samples(&self) -> Vec<Value> {
        run_samples(&self.samples, &self.results)
    }

    /// The samples as a driver that keeps unfinished ones as the dataset has them sees them: each result, or the
    /// dataset sample.
    pub fn current_samples(&self) -> Vec<Value> {
        self.samples.iter().zip(&self.results).map(|(sample, result)| result.as_ref().unwrap_or(sample).clone()).collect()
    }

    /// The one-line account of how the run ended: its tally, and why it stopped early if it did.
    pub fn summary(&self) -> String {
        let t = self.tally;
        let mut line = format!("{} of {} samples finished ({} resumed) · correct {} · failed {}", t.finished, t.total, t.resumed, t.correct, t.failed);
        if let Some(reason) = &self.halted {
            line.push_str(&format!(" · stopped: {reason}"));
        } else if self.stopped && !self.is_complete() {
            line.push_str(" · stopped");
        }
        line
    }
}

fn is_correct(result: &Value) -> bool {
    counts_of(result).correct == Some(true)
}
