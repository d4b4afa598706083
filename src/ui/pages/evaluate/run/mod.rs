//! The Evaluate page's run driver: runs a stored run's samples against the endpoint in as many lanes as its
//! concurrency asks. The engine's run (`engine::run`, steered through `RunControl`) plans, hands each lane its
//! next job, keeps the tally, the spend and the budget; each sample goes through the engine's loop
//! (`agent::run_episode`, retries and backoff shared with the CLI) with every reply journaled in the run store
//! before it is used (`journal::StoreJournal`), so a reload, a closed tab or a crash resumes with no sample lost
//! or run twice. It draws nothing: it writes the rows, the progress line and the results file the page shows.

mod journal;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::app::evaluate::live::Live;
use crate::app::evaluate::partial_run::run_samples;
use crate::app::results::data::ResultsData;
use crate::app::evaluate::board::{lanes, mark_waiting, tally, Row};
use crate::app::evaluate::stored_run::RunSpec;
use crate::engine::agent::openai_wire::StreamDelta;
use crate::engine::agent::{run_episode, AgentConfig, AgentInput, AgentSession, ChatReply, EpisodeEnd, RequestShape, RetryPolicy, Endpoint};
use crate::engine::results::{result_sample, RunHeader};
use crate::engine::run::{close, resume, settle, Next};
use crate::web::fetch_backend::{sleep_ms, FetchBackend, Journaled, RunControl};
pub use crate::ui::state::RunView;
use crate::web::storage::{sample_of_key, Store, SAMPLES};
use journal::StoreJournal;

/// How often a running run's results file is rebuilt for Results.
const RESULTS_EVERY_MS: f64 = 1000.0;

/// Characters of a streaming reply the row keeps (its end).
const LIVE_CHARS: usize = 160;

/// `text` with `delta` added, cut to its last `LIVE_CHARS` characters.
fn grow(text: &mut String, delta: &StreamDelta) {
    for piece in [&delta.reasoning, &delta.content, &delta.tool_text] {
        text.push_str(piece);
    }
    let extra = text.chars().count().saturating_sub(LIVE_CHARS);
    if extra > 0 {
        let at = text.char_indices().nth(extra).map_or(text.len(), |(i, _)| i);
        text.drain(..at);
    }
}

fn now_iso() -> String {
    js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default()
}

/// The stored results of `spec` by sample (from the `samples` store).
pub async fn stored_results(store: &Store, spec: &RunSpec) -> Vec<Option<Value>> {
    let mut finished = vec![None; spec.samples.len()];
    for (key, result) in store.scan(SAMPLES, &format!("{}|", spec.id)).await.unwrap_or_default() {
        if let Some(slot) = sample_of_key(&key).and_then(|i| finished.get_mut(i)) {
            *slot = Some(result);
        }
    }
    finished
}

/// The results file of a stored run as it stands.
pub async fn stored_results_file(store: &Store, spec: &RunSpec) -> Result<Value, String> {
    let finished = stored_results(store, spec).await;
    Ok(spec.header(now_iso())?.results_file(run_samples(&spec.samples, &finished)))
}

/// Runs `spec` (fresh, or resumed from the store): finished samples keep their stored result, a sample cut short
/// continues from its last stored reply, the rest run from the start. Returns once every lane has stopped.
pub async fn drive(spec: RunSpec, config: AgentConfig, endpoint: Endpoint, view: RunView, control: RunControl) {
    view.live_text.set(BTreeMap::new());
    view.notice.set(String::new());
    view.adaptations.set(Vec::new());
    view.rows.set(spec.samples.iter().enumerate().map(|(i, s)| Row::queued(i, s)).collect());
    view.started.update(|n| *n += 1);
    view.running.set(true);
    control.run().borrow_mut().load(spec.samples.clone());
    // What the requests carry, learnt by every lane and kept with the run.
    let shape = Rc::new(RefCell::new(spec.shape()));
    let header = spec.header(now_iso()).unwrap_or_else(|_| RunHeader::new(&config, &endpoint, "generated in the browser", &json!({}), now_iso()));
    let journal = StoreJournal::open(&spec, header, shape.clone()).await;
    if let Err(e) = resume(control.run(), &journal).await {
        view.notice.set(e);
        return view.running.set(false);
    }
    let replies = journal.replies(&control).await;
    view.revision.update(|r| *r += 1);
    let results = control.run().borrow().results().to_vec();
    view.rows.update(|r| r.iter_mut().zip(&results).for_each(|(row, result)| if let Some(result) = result { row.finish(result) }));
    let progress = Progress { view, control: control.clone(), shape: shape.clone(), started: js_sys::Date::now(), done_before: control.run().borrow().tally().resumed };
    let backend = FetchBackend { endpoint, shape, timeout_ms: spec.settings.timeout_ms(), control: control.clone(), stream: spec.settings.stream };
    let lane = Lane { control: &control, journal: &journal, backend: &backend, config: &config, view, replies: RefCell::new(replies), last_file: Cell::new(0.0), progress: &progress };
    lane.show_results(true);
    progress.tick();
    let ticker = set_interval_with_handle({ let progress = progress.clone(); move || progress.tick() }, std::time::Duration::from_millis(1000)).ok();
    let lane_count = lanes(spec.settings.concurrency, control.run().borrow().queued());
    futures::future::join_all((0..lane_count).map(|_| lane.run())).await;

    let _ = close(control.run(), &journal).await;
    lane.show_results(true);
    if !control.run().borrow().is_complete() {
        view.rows.update(|r| mark_waiting(r, "not run"));
    }
    progress.tick();
    if let Some(ticker) = ticker {
        ticker.clear();
    }
    if let Some(reason) = control.halted() {
        view.notice.set(format!("Stopped: {reason}. Nothing is lost: raise the budget above and resume the run from the list below to go on."));
    }
    view.revision.update(|r| *r += 1);
    view.running.set(false);
}

/// The progress line's figures, written every second and after every sample.
#[derive(Clone)]
struct Progress {
    view: RunView,
    control: RunControl,
    shape: Rc<RefCell<RequestShape>>,
    /// When this session of the run started (ms since the epoch).
    started: f64,
    /// Samples finished before this session.
    done_before: usize,
}

impl Progress {
    fn tick(&self) {
        let RunView { rows, live, adaptations, .. } = self.view;
        let Some((done, correct, total)) = rows.try_with_untracked(|r| tally(r)) else { return };
        let control = &self.control;
        let (requests, retries) = control.counts();
        let sentences: Vec<String> = self.shape.borrow().notes().iter().map(|n| n.sentence()).collect();
        if adaptations.try_with_untracked(|a| *a != sentences) == Some(true) {
            adaptations.set(sentences);
        }
        let billed = control.tokens_billed();
        live.set(Live {
            done,
            total,
            correct,
            requests,
            retries,
            elapsed_ms: js_sys::Date::now() - self.started,
            done_here: done.saturating_sub(self.done_before),
            paused: control.is_paused(),
            rate_limited: control.is_rate_limited(),
            rate_limit: control.rate_limit(),
            tokens_in: billed.input,
            tokens_cached: billed.cached_input,
            tokens_out: billed.output,
            tokens_reasoning: control.reasoning_tokens(),
            cost: control.cost(),
        });
    }
}

/// What every lane of a run shares. A lane asks the engine's run for its next job, runs it through the agent
/// loop, and hands the result back; the run decides when no job may start (stop, budget) and when to wait.
struct Lane<'a> {
    control: &'a RunControl,
    journal: &'a StoreJournal,
    backend: &'a FetchBackend,
    config: &'a AgentConfig,
    view: RunView,
    /// The stored replies of samples cut short, taken by the lane that resumes each.
    replies: RefCell<Vec<Vec<ChatReply>>>,
    /// When the results file was last rebuilt.
    last_file: Cell<f64>,
    progress: &'a Progress,
}

impl Lane<'_> {
    async fn run(&self) {
        let policy = RetryPolicy { max_attempts: 4, base_delay_ms: 500, max_delay_ms: 30_000 };
        let run = self.control.run();
        loop {
            let next = run.borrow_mut().next_job();
            let index = match next {
                Next::Job(index) => index,
                Next::Wait => {
                    sleep_ms(100).await;
                    continue;
                }
                Next::Over => break,
            };
            let Some(sample) = run.borrow().sample(index).cloned() else { break };
            let input = match AgentInput::from_sample(&sample, index) {
                Ok(input) => input,
                Err(e) => {
                    run.borrow_mut().cut_short(index);
                    self.set_row(index, &|row| {
                        row.status = format!("invalid sample: {e}");
                        row.correct = Some(false);
                    });
                    continue;
                }
            };
            self.set_row(index, &|row| row.status = "running".into());
            let clock = js_sys::Date::now();
            let stored = self.replies.borrow_mut().get_mut(index).map(std::mem::take).unwrap_or_default();
            let seq = stored.len();
            let (session, step) = AgentSession::resume(&input, self.config, stored);
            let live_text = self.view.live_text;
            let on_piece = move |index: usize, delta: Option<&StreamDelta>| {
                live_text.update(|m| match delta {
                    Some(delta) => grow(m.entry(index).or_default(), delta),
                    None => {
                        m.remove(&index);
                    }
                });
            };
            let live: Option<&dyn Fn(usize, Option<&StreamDelta>)> = if self.backend.stream { Some(&on_piece) } else { None };
            let end = match &self.journal.store {
                Some(store) => {
                    let run_id = self.journal_id();
                    let journaled = Journaled { inner: self.backend, store, run: run_id, index, seq: Cell::new(seq), live };
                    run_episode(&journaled, session, step, &policy).await
                }
                None => run_episode(self.backend, session, step, &policy).await,
            };
            let EpisodeEnd::Finished(record) = end else {
                run.borrow_mut().cut_short(index);
                self.set_row(index, &|row| row.status = "stopped".into());
                break;
            };
            let result = result_sample(&sample, &record, self.config.strategy.name(), json!({"wall_ms": (js_sys::Date::now() - clock) as u64}));
            let _ = settle(run, self.journal, index, result.clone()).await;
            self.set_row(index, &|row| row.finish(&result));
            live_text.update(|m| {
                m.remove(&index);
            });
            self.show_results(false);
            self.progress.tick();
        }
    }

    fn journal_id(&self) -> String {
        self.journal.id()
    }

    fn set_row(&self, index: usize, apply: &dyn Fn(&mut Row)) {
        self.view.rows.update(|r| {
            if let Some(row) = r.get_mut(index) {
                apply(row)
            }
        });
    }

    /// Rebuilds the results file the page shows: at most once a second while results stream in (rebuilding it
    /// per sample would make a long run quadratic), or now when `now`.
    fn show_results(&self, now: bool) {
        if !now && js_sys::Date::now() - self.last_file.get() < RESULTS_EVERY_MS {
            return;
        }
        self.last_file.set(js_sys::Date::now());
        let samples = self.control.run().borrow().file_samples();
        self.view.results.set(Some(ResultsData::shared(self.journal.results_file(samples))));
    }
}
