//! One evaluation run, without IO: the plan (which samples still need a result, what a resumed run takes from
//! the previous one and when it must refuse it), the board (queue, per-job status, tally, stop and pause), the
//! spend and the budget that halts it, and the `Journal` every finished sample is written to before the board
//! counts it.
//!
//! A driver (the CLI's worker threads, the page's lanes of futures) asks the run for its next job
//! (`Run::next_job`), runs the sample with its own IO through the agent loop, and hands the finished record back
//! with [`settle`], which journals it and updates the board. Resuming reads back what the journal kept
//! ([`resume`]); the end of a run goes through [`close`].
//!
//! The run lives in a `RefCell` so that several jobs in flight (lanes of one thread) can share it; no borrow is
//! held across an `.await`.

pub mod board;
pub mod plan;
pub mod spend;

#[cfg(test)]
mod tests;

use std::cell::RefCell;

use serde_json::Value;

pub use board::{JobStatus, Next, Run, Tally};
pub use plan::{continue_from, failed_outright, is_failed, run_samples};
pub use spend::{grouped, money, Meter, Spend, Tokens};

/// Where a run keeps its finished samples so that a kill, a reload or a crash loses none: the CLI's results file
/// and its `.journal`, the page's run store.
#[allow(async_fn_in_trait)]
pub trait Journal {
    /// Where the journal is, for messages (a file name, a run id).
    fn source(&self) -> String;

    /// Keeps a finished sample's result record before the run counts it.
    async fn append(&self, index: usize, result: &Value) -> Result<(), String>;

    /// Every record kept so far, (index, record), in the order they were kept.
    async fn read(&self) -> Result<Vec<(usize, Value)>, String>;

    /// Called once when no job is left in flight: `samples` as the results file holds them (unfinished ones
    /// marked `in_progress`), `complete` when every sample has a result.
    async fn finish(&self, samples: Vec<Value>, complete: bool) -> Result<(), String>;
}

/// Takes in what `journal` kept of an earlier session of the run (see `Run::merge`); returns how many samples
/// it held finished.
pub async fn resume<J: Journal>(run: &RefCell<Run>, journal: &J) -> Result<usize, String> {
    let entries = journal.read().await?;
    run.borrow_mut().merge(&journal.source(), entries)
}

/// Hands back a finished job: its record is journalled first, then counted on the board.
pub async fn settle<J: Journal>(run: &RefCell<Run>, journal: &J, index: usize, result: Value) -> Result<(), String> {
    journal.append(index, &result).await?;
    run.borrow_mut().finish(index, result);
    Ok(())
}

/// Ends a run once no job is in flight: the journal gets the results file's samples; returns the run's summary
/// line.
pub async fn close<J: Journal>(run: &RefCell<Run>, journal: &J) -> Result<String, String> {
    let (samples, complete, summary) = {
        let run = run.borrow();
        (run.file_samples(), run.is_complete(), run.summary())
    };
    journal.finish(samples, complete).await?;
    Ok(summary)
}
