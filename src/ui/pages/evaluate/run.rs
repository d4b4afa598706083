//! The Evaluate page's run driver: runs a stored run's samples against the endpoint in as many lanes as its
//! concurrency asks (`app::run_board::Queue` hands each unfinished sample to one lane), each sample through the
//! engine's loop (`agent::run_episode`, retries and backoff shared with the CLI) with every reply journaled in
//! the run store before it is used, so a reload, a closed tab or a crash resumes with no sample lost or run
//! twice. It draws nothing: it writes the rows, the progress line and the results file the page shows.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::app::live::Live;
use crate::app::partial_run::run_samples;
use crate::app::results_data::ResultsData;
use crate::app::run_board::{lanes, mark_waiting, tally, Queue, Row};
use crate::app::stored_run::RunSpec;
use crate::engine::agent::openai_wire::{parse_reply, StreamDelta};
use crate::engine::agent::{run_episode, AgentConfig, AgentInput, AgentSession, ChatReply, Endpoint, EpisodeEnd, RetryPolicy};
use crate::engine::results::{result_sample, RunHeader};
use crate::web::fetch_backend::{FetchBackend, Journaled, RunControl};
pub use crate::ui::state::RunView;
use crate::web::storage::{sample_key, sample_of_key, Store, RUNS, SAMPLES, TURNS};

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

/// What the lanes share: the samples still to hand out, each sample's result, the replies stored for samples
/// cut short.
struct Board {
    queue: Queue,
    finished: Vec<Option<Value>>,
    replies: Vec<Vec<ChatReply>>,
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
pub async fn drive(mut spec: RunSpec, config: AgentConfig, endpoint: Endpoint, view: RunView, control: RunControl) {
    let RunView { rows, live, running, results, revision, notice, live_text, started: run_started, adaptations } = view;
    live_text.set(BTreeMap::new());
    notice.set(String::new());
    adaptations.set(Vec::new());
    rows.set(spec.samples.iter().enumerate().map(|(i, s)| Row::queued(i, s)).collect());
    run_started.update(|n| *n += 1);
    running.set(true);
    let started = js_sys::Date::now();
    // Plain shared cells, not reactive values: the run outlives the page that started it.
    let done_before: Rc<Cell<Option<usize>>> = Rc::new(Cell::new(None));
    // What the requests carry, learnt by every lane and kept with the run.
    let shape = Rc::new(RefCell::new(spec.shape()));
    let tick = {
        let (control, done_before, shape) = (control.clone(), done_before.clone(), shape.clone());
        move || {
            let Some((done, correct, total)) = rows.try_with_untracked(|r| tally(r)) else { return };
            let (requests, retries) = control.counts();
            let before = done_before.get().unwrap_or(done);
            let sentences: Vec<String> = shape.borrow().notes().iter().map(|n| n.sentence()).collect();
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
                elapsed_ms: js_sys::Date::now() - started,
                done_here: done.saturating_sub(before),
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
    };
    let ticker = set_interval_with_handle(tick.clone(), std::time::Duration::from_millis(1000)).ok();
    let strategy_name = config.strategy.name().to_string();
    let samples = spec.samples.clone();
    let header = RefCell::new(spec.header(now_iso()).unwrap_or_else(|_| RunHeader::new(&config, &endpoint, "generated in the browser", &json!({}), now_iso())));
    let backend = FetchBackend { endpoint, shape: shape.clone(), timeout_ms: spec.settings.timeout_ms(), control: control.clone(), stream: spec.settings.stream };
    // The run's record and its results file keep the adaptations once they change, so a reload resumes with them:
    // this returns the record to store when they did.
    let kept = RefCell::new(spec.clone());
    let sync_adaptations = || -> Option<Value> {
        let now = shape.borrow().notes_json();
        header.borrow_mut().adaptations = now.clone();
        if kept.borrow().adaptations == now {
            return None;
        }
        kept.borrow_mut().adaptations = now;
        Some(serde_json::to_value(&*kept.borrow()).unwrap_or_default())
    };
    let on_piece = move |index: usize, delta: Option<&StreamDelta>| {
        live_text.update(|m| match delta {
            Some(delta) => grow(m.entry(index).or_default(), delta),
            None => {
                m.remove(&index);
            }
        });
    };
    let live_hook: Option<&dyn Fn(usize, Option<&StreamDelta>)> = if spec.settings.stream { Some(&on_piece) } else { None };
    let policy = RetryPolicy { max_attempts: 4, base_delay_ms: 500, max_delay_ms: 30_000 };
    // Without storage (a private window may refuse it) the run still goes, it just cannot be resumed.
    let store = Store::open().await.ok();
    let mut finished = vec![None; samples.len()];
    let mut replies: Vec<Vec<ChatReply>> = vec![Vec::new(); samples.len()];
    if let Some(store) = &store {
        let _ = store.put(RUNS, &spec.id, &serde_json::to_value(&spec).unwrap_or_default()).await;
        finished = stored_results(store, &spec).await;
        // Every stored reply counts towards the budget; only those of unfinished samples are replayed.
        for (key, reply) in store.scan(TURNS, &format!("{}|", spec.id)).await.unwrap_or_default() {
            let index = sample_of_key(&key);
            let Ok(reply) = parse_reply(&reply.to_string()) else { continue };
            control.count_tokens(&reply);
            if let Some(list) = index.filter(|&i| finished.get(i).is_some_and(Option::is_none)).and_then(|i| replies.get_mut(i)) {
                list.push(reply);
            }
        }
        revision.update(|r| *r += 1);
    }
    rows.update(|r| r.iter_mut().zip(&finished).for_each(|(row, result)| if let Some(result) = result { row.finish(result) }));
    results.set(Some(ResultsData::shared(header.borrow().results_file(run_samples(&samples, &finished)))));
    done_before.set(Some(finished.iter().filter(|f| f.is_some()).count()));
    tick();

    let queue = Queue::of_unfinished(&finished.iter().map(Option::is_some).collect::<Vec<_>>());
    let lane_count = lanes(spec.settings.concurrency, queue.len());
    let board = RefCell::new(Board { queue, finished, replies });
    let last_file = Cell::new(js_sys::Date::now());
    let set_row = |index: usize, apply: &dyn Fn(&mut Row)| rows.update(|r| if let Some(row) = r.get_mut(index) { apply(row) });
    let lane = || async {
        loop {
            control.while_paused().await;
            if control.is_cancelled() {
                break;
            }
            let Some(index) = board.borrow_mut().queue.take() else { break };
            let sample = &samples[index];
            let input = match AgentInput::from_sample(sample, index) {
                Ok(input) => input,
                Err(e) => {
                    set_row(index, &|row| {
                        row.status = format!("invalid sample: {e}");
                        row.correct = Some(false);
                    });
                    continue;
                }
            };
            set_row(index, &|row| row.status = "running".into());
            let clock = js_sys::Date::now();
            let stored = std::mem::take(&mut board.borrow_mut().replies[index]);
            let seq = stored.len();
            let (session, step) = AgentSession::resume(&input, &config, stored);
            let end = match &store {
                Some(store) => {
                    let journaled = Journaled { inner: &backend, store, run: spec.id.clone(), index, seq: Cell::new(seq), live: live_hook };
                    run_episode(&journaled, session, step, &policy).await
                }
                None => run_episode(&backend, session, step, &policy).await,
            };
            let record = match end {
                EpisodeEnd::Finished(record) => record,
                EpisodeEnd::Cancelled => {
                    set_row(index, &|row| row.status = "stopped".into());
                    break;
                }
            };
            let result = result_sample(sample, &record, &strategy_name, json!({"wall_ms": (js_sys::Date::now() - clock) as u64}));
            if let Some(store) = &store {
                let _ = store.put(SAMPLES, &sample_key(&spec.id, index), &result).await;
                if let Some(record) = sync_adaptations() {
                    let _ = store.put(RUNS, &spec.id, &record).await;
                }
            }
            set_row(index, &|row| row.finish(&result));
            live_text.update(|m| {
                m.remove(&index);
            });
            board.borrow_mut().finished[index] = Some(result);
            // The whole results file is rebuilt at most once a second while results stream in (and once at the
            // end): rebuilding it per sample would make a long run quadratic.
            if js_sys::Date::now() - last_file.get() >= RESULTS_EVERY_MS {
                last_file.set(js_sys::Date::now());
                results.set(Some(ResultsData::shared(header.borrow().results_file(run_samples(&samples, &board.borrow().finished)))));
            }
            tick();
        }
    };
    futures::future::join_all((0..lane_count).map(|_| lane())).await;

    let _ = sync_adaptations();
    spec.adaptations = kept.borrow().adaptations.clone();
    results.set(Some(ResultsData::shared(header.borrow().results_file(run_samples(&samples, &board.borrow().finished)))));
    let all_done = board.borrow().finished.iter().all(Option::is_some);
    if !all_done {
        rows.update(|r| mark_waiting(r, "not run"));
    }
    if let Some(store) = &store {
        spec.finished = all_done;
        let _ = store.put(RUNS, &spec.id, &serde_json::to_value(&spec).unwrap_or_default()).await;
    }
    tick();
    if let Some(ticker) = ticker {
        ticker.clear();
    }
    if let Some(reason) = control.halted() {
        notice.set(format!("Stopped: {reason}. Nothing is lost: raise the budget above and resume the run from the list below to go on."));
    }
    revision.update(|r| *r += 1);
    running.set(false);
}
