//! The run driven by a scripted driver over an in-memory journal: resume, stop, pause, budget exhaustion,
//! retry-failed, and the tally and summary they leave.

use std::cell::RefCell;

use serde_json::{json, Value};

use super::*;
use crate::engine::agent::driver::block_on;
use crate::engine::agent::{AgentConfig, ChatReply, Endpoint, Usage};
use crate::engine::results::RunHeader;

/// A journal in memory: what was appended, and what `finish` was given.
#[derive(Default)]
struct Memory {
    kept: RefCell<Vec<(usize, Value)>>,
    closed: RefCell<Option<(Vec<Value>, bool)>>,
}

impl Journal for Memory {
    fn source(&self) -> String {
        "memory".into()
    }
    async fn append(&self, index: usize, result: &Value) -> Result<(), String> {
        self.kept.borrow_mut().push((index, result.clone()));
        Ok(())
    }
    async fn read(&self) -> Result<Vec<(usize, Value)>, String> {
        Ok(self.kept.borrow().clone())
    }
    async fn finish(&self, samples: Vec<Value>, complete: bool) -> Result<(), String> {
        *self.closed.borrow_mut() = Some((samples, complete));
        Ok(())
    }
}

fn samples(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"prompt": format!("p{i}"), "task_name": format!("t{i}")})).collect()
}

/// The result record of sample `i`: correct when `correct`, else `status`.
fn result(i: usize, correct: bool, status: &str) -> Value {
    json!({"prompt": format!("p{i}"), "task_name": format!("t{i}"), "agent_status": status, "correct": correct})
}

/// Takes every job the run hands out now, in order.
fn take_all(run: &RefCell<Run>) -> Vec<usize> {
    let mut taken = Vec::new();
    while let Next::Job(i) = run.borrow_mut().next_job() {
        taken.push(i);
    }
    taken
}

#[test]
fn a_resumed_run_skips_what_the_journal_kept_and_runs_the_rest_once() {
    let journal = Memory::default();
    let first = RefCell::new(Run::new(samples(5), Spend::default()));
    assert_eq!(take_all(&first), vec![0, 1, 2, 3, 4], "lowest index first");
    block_on(settle(&first, &journal, 0, result(0, true, "success"))).unwrap();
    block_on(settle(&first, &journal, 3, result(3, false, "timeout"))).unwrap();
    // Killed here: samples 1, 2 and 4 were in flight and are lost with the process.

    let second = RefCell::new(Run::new(samples(5), Spend::default()));
    assert_eq!(block_on(resume(&second, &journal)).unwrap(), 2);
    let tally = second.borrow().tally();
    assert_eq!((tally.finished, tally.resumed, tally.correct, tally.done_here()), (2, 2, 1, 0));
    assert_eq!(take_all(&second), vec![1, 2, 4], "journalled samples are not run again");
    assert_eq!(second.borrow().status(0), Some(JobStatus::Finished));
    assert_eq!(second.borrow().status(2), Some(JobStatus::Running));
    for i in [1, 2, 4] {
        block_on(settle(&second, &journal, i, result(i, i != 4, "success"))).unwrap();
    }
    assert!(second.borrow().is_complete());
    let summary = block_on(close(&second, &journal)).unwrap();
    assert_eq!(summary, "5 of 5 samples finished (2 resumed) · correct 3 · failed 0");
    let (file, complete) = journal.closed.borrow().clone().expect("closed");
    assert!(complete);
    assert_eq!(file.iter().map(|s| s["agent_status"].as_str().unwrap_or("")).collect::<Vec<_>>(), ["success", "success", "success", "timeout", "success"]);
}

#[test]
fn a_journal_of_another_dataset_is_refused_naming_the_sample() {
    let journal = Memory::default();
    journal.kept.borrow_mut().push((2, json!({"prompt": "other", "agent_status": "success", "correct": true})));
    // Unfinished records and records beyond the run are skipped, not refused.
    journal.kept.borrow_mut().insert(0, (0, json!({"prompt": "p0", "agent_status": "in_progress"})));
    journal.kept.borrow_mut().insert(0, (9, result(9, true, "success")));
    let run = RefCell::new(Run::new(samples(3), Spend::default()));
    let error = block_on(resume(&run, &journal)).unwrap_err();
    assert_eq!(error, "memory: sample 2 has a different prompt than the dataset; cannot continue");
    assert_eq!(run.borrow().tally().resumed, 0, "a refused merge takes nothing in");
}

#[test]
fn a_previous_results_file_made_otherwise_is_refused_with_its_name_and_setting() {
    let config = AgentConfig::for_topology("chain");
    let endpoint = |model: &str| Endpoint { base_url: "http://127.0.0.1:1/v1".into(), model: model.into(), ..Endpoint::default() };
    let old = RunHeader::new(&config, &endpoint("old-model"), "d.json", &json!({}), "2026-01-01T00:00:00".into());
    let previous = old.results_file(vec![result(0, true, "success"), json!({"prompt": "p1"})]);

    let mut header = RunHeader::new(&config, &endpoint("new-model"), "d.json", &json!({}), "2026-01-02T00:00:00".into());
    let error = continue_from("out.json", &previous, &mut header, &config.strategy).unwrap_err();
    assert_eq!(error, r#"out.json: cannot continue, `model` was "old-model" and is now "new-model""#);

    let other = crate::engine::agent::strategy::Strategy::parse("mask:keep=3").unwrap();
    let error = continue_from("out.json", &previous, &mut header, &other).unwrap_err();
    assert!(error.starts_with("out.json: cannot continue, the strategy was full and is now mask"), "{error}");

    let error = continue_from("out.json", &json!({"samples": []}), &mut header, &config.strategy).unwrap_err();
    assert_eq!(error, "out.json exists and is not a results file; refusing to overwrite it");

    let mut same = RunHeader::new(&config, &endpoint("old-model"), "d.json", &json!({}), "2026-01-02T00:00:00".into());
    let entries = continue_from("out.json", &previous, &mut same, &config.strategy).unwrap();
    assert_eq!(same.start_times, ["2026-01-01T00:00:00", "2026-01-02T00:00:00"], "every session's start is kept");
    let mut run = Run::new(samples(3), Spend::default());
    assert_eq!(run.merge("out.json", entries).unwrap(), 1, "only the finished sample is taken");
    assert_eq!(run.tally().resumed, 1);
}

#[test]
fn a_stop_lets_jobs_in_flight_finish_and_starts_none() {
    let journal = Memory::default();
    let run = RefCell::new(Run::new(samples(6), Spend::default()));
    let in_flight: Vec<usize> = (0..3).filter_map(|_| if let Next::Job(i) = run.borrow_mut().next_job() { Some(i) } else { None }).collect();
    assert_eq!(in_flight, vec![0, 1, 2]);
    run.borrow_mut().stop();
    assert_eq!(run.borrow_mut().next_job(), Next::Over, "no new job after a stop");
    block_on(settle(&run, &journal, 0, result(0, true, "success"))).unwrap();
    block_on(settle(&run, &journal, 1, result(1, false, "api_error"))).unwrap();
    run.borrow_mut().cut_short(2);
    assert_eq!(run.borrow_mut().next_job(), Next::Over);
    let board = run.borrow();
    assert_eq!(board.status(2), Some(JobStatus::CutShort));
    assert_eq!(board.status(3), Some(JobStatus::Queued));
    assert_eq!(board.tally(), Tally { total: 6, finished: 2, resumed: 0, correct: 1, failed: 1 });
    assert!(!board.is_complete() && board.halted().is_none());
    assert_eq!(board.summary(), "2 of 6 samples finished (0 resumed) · correct 1 · failed 1 · stopped");
    drop(board);
    block_on(close(&run, &journal)).unwrap();
    let (file, complete) = journal.closed.borrow().clone().expect("closed");
    assert!(!complete);
    assert_eq!(file[2]["agent_status"], "in_progress", "a job cut short stays resumable");
    assert_eq!(journal.kept.borrow().iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![0, 1], "only finished jobs are journalled");
}

#[test]
fn a_spent_budget_starts_no_new_job_and_says_why() {
    let spend = Spend { budget_tokens: Some(1_000), ..Spend::default() };
    let journal = Memory::default();
    let run = RefCell::new(Run::new(samples(4), spend));
    assert_eq!(run.borrow_mut().next_job(), Next::Job(0));
    let reply = |prompt, completion| ChatReply { usage: Usage { prompt_tokens: Some(prompt), completion_tokens: Some(completion), ..Usage::default() }, ..ChatReply::default() };
    run.borrow_mut().count_reply(&reply(500, 100));
    assert!(!run.borrow_mut().over_budget());
    assert_eq!(run.borrow_mut().next_job(), Next::Job(1), "600 of 1,000 tokens: the run goes on");
    run.borrow_mut().count_reply(&reply(350, 80));
    // The jobs in flight still hand back what they finished.
    block_on(settle(&run, &journal, 0, result(0, true, "success"))).unwrap();
    assert_eq!(run.borrow_mut().next_job(), Next::Over);
    assert!(run.borrow().is_stopped());
    assert_eq!(run.borrow().halted(), Some("the token budget (1,000) is spent: 1,030 tokens used"));
    run.borrow_mut().cut_short(1);
    assert_eq!(run.borrow().meter().tokens, Tokens { input: 850, cached_input: 0, output: 180 });
    let summary = block_on(close(&run, &journal)).unwrap();
    assert_eq!(summary, "1 of 4 samples finished (0 resumed) · correct 1 · failed 0 · stopped: the token budget (1,000) is spent: 1,030 tokens used");
    // The same run resumed under a raised budget goes on from where it stopped.
    let raised = RefCell::new(Run::new(samples(4), Spend { budget_tokens: Some(10_000), ..spend }));
    block_on(resume(&raised, &journal)).unwrap();
    assert_eq!(take_all(&raised), vec![1, 2, 3]);
}

#[test]
fn a_cost_budget_needs_prices_and_counts_estimated_replies() {
    let priced = Spend { price_in: 1.0, price_out: 1.0, budget_cost: Some(0.000_01), ..Spend::default() };
    let mut run = Run::new(samples(2), priced);
    // No usage reported: the completion is estimated from the text.
    run.count_reply(&ChatReply { content: "x".repeat(400), ..ChatReply::default() });
    assert!(run.meter().tokens.output > 0);
    assert_eq!(run.next_job(), Next::Over);
    assert!(run.halted().unwrap_or("").starts_with("the cost budget ($0.0000) is spent"), "{:?}", run.halted());
    let unpriced = Spend { price_in: 0.0, price_out: 0.0, ..priced };
    let mut free = Run::new(samples(2), unpriced);
    free.count_reply(&ChatReply { content: "x".repeat(400), ..ChatReply::default() });
    assert_eq!((free.next_job(), free.meter().cost()), (Next::Job(0), None), "no prices: no cost, no halt");
}

#[test]
fn a_paused_run_hands_out_nothing_until_let_go_and_a_stop_overrides_it() {
    let mut run = Run::new(samples(2), Spend::default());
    run.pause(true);
    assert_eq!(run.next_job(), Next::Wait);
    run.pause(false);
    assert_eq!(run.next_job(), Next::Job(0));
    run.pause(true);
    run.stop();
    assert_eq!(run.next_job(), Next::Over);
    // Controls set before the samples are known hold for them.
    let mut early = Run::new(Vec::new(), Spend::default());
    early.pause(true);
    early.load(samples(2));
    assert_eq!((early.next_job(), early.tally().total), (Next::Wait, 2));
}

#[test]
fn retrying_failed_samples_requeues_only_what_the_endpoint_gave_up_on() {
    let mut run = Run::new(samples(4), Spend::default());
    let previous = vec![(0, result(0, true, "success")), (1, result(1, false, "api_error")), (2, result(2, false, "timeout"))];
    assert_eq!(run.merge("r.json", previous).unwrap(), 3);
    assert_eq!(run.retry_failed(), vec![1]);
    assert_eq!(run.tally(), Tally { total: 4, finished: 2, resumed: 2, correct: 1, failed: 0 });
    let mut taken = Vec::new();
    while let Next::Job(i) = run.next_job() {
        taken.push(i);
    }
    assert_eq!(taken, vec![1, 3]);
}

#[test]
fn a_results_file_given_as_the_dataset_counts_its_finished_samples() {
    let mut dataset = samples(3);
    dataset[1] = result(1, true, "success");
    let mut run = Run::new(dataset, Spend::default());
    assert_eq!((run.tally().resumed, run.tally().correct), (1, 1));
    assert_eq!(run.next_job(), Next::Job(0));
    assert_eq!(run.next_job(), Next::Job(2));
    assert_eq!(run.current_samples()[0]["prompt"], "p0", "unfinished samples stay as the dataset has them");
    run.finish(0, result(0, false, "invalid_sample"));
    run.finish(0, result(0, true, "success"));
    assert_eq!((run.tally().finished, run.tally().correct), (2, 2), "a job handed back twice counts once");
}
