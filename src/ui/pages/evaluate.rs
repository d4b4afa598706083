//! Evaluate: run the agent loop in this tab against any OpenAI-compatible endpoint, on generated instances or a
//! loaded dataset file, with any context strategy of the registry; watch progress; export the results JSON. The loop, the
//! retries and the results file are the engine's (`agent::run_episode`, `results`); this page supplies fetch.

mod check;
mod settings;
mod strategy;

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::Cell;
use std::rc::Rc;
use serde_json::{json, Value};

use crate::engine::agent::openai_wire::parse_reply;
use crate::engine::agent::{run_episode, AgentInput, AgentSession, ChatReply, Endpoint, EpisodeEnd, RetryPolicy};
use crate::engine::dataset::{self, to_pretty_string, RunInfo};
use crate::engine::results::{result_sample, RunHeader};
use crate::engine::generate;
use crate::ui::common::ErrorView;
use check::EndpointCheck;
use settings::RunSettingsForm;
use strategy::StrategyPicker;
use crate::app::form::GenerateForm;
use crate::app::live::{progress_line, Live};
use crate::app::partial_run::run_samples;
use crate::app::stored_run::{latest_unfinished, RunSpec};
use crate::ui::state::{with_registry, AppState};
use crate::web::download::download_text;
use crate::web::fetch_backend::{FetchBackend, Journaled, RunControl};
use crate::web::storage::{sample_key, Store, RUNS, SAMPLES, TURNS};
use crate::web::files::picked_text;

/// One row of the progress table.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    index: usize,
    task: String,
    status: String,
    correct: Option<bool>,
    turns: usize,
}

fn url_param(key: &str) -> Option<String> {
    let hash = window().location().hash().ok()?;
    crate::app::form::query_pairs(crate::ui::route::hash_query(&hash)).into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The Evaluate page.
#[component]
pub fn EvaluatePage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let evaluation = state.evaluation;
    let (endpoint, strategy, limit, max_tokens) = (evaluation.endpoint, evaluation.strategy, evaluation.sample_limit, evaluation.max_tokens);
    // A link may preset the endpoint (never the key).
    if let Some(url) = url_param("base_url") {
        endpoint.update(|e| e.base_url = url);
    }
    if let Some(name) = url_param("model") {
        endpoint.update(|e| e.model = name);
    }
    let form = RwSignal::new(GenerateForm { samples_per_target: 1, ..GenerateForm::default() });
    let loaded: RwSignal<Option<(String, Value)>> = RwSignal::new(None);
    let rows: RwSignal<Vec<Row>> = RwSignal::new(Vec::new());
    let running = evaluation.running;
    let live = RwSignal::new(Live::default());
    let control = StoredValue::new_local(RunControl::default());
    let error = RwSignal::new(String::new());

    let dataset_samples = move || -> Result<(Vec<Value>, String), String> {
        if let Some((_, json)) = loaded.get_untracked() {
            let samples = json.get("samples").and_then(Value::as_array).cloned().ok_or("the loaded file has no `samples` list")?;
            let topology = crate::engine::dataset::inspect(&json).topology;
            return Ok((samples, topology));
        }
        let config = form.get_untracked().to_config()?;
        let made = with_registry(|r| generate::generate(&config, r, &mut |_, _| {})).map_err(|e| e.to_string())?;
        let json = dataset::to_json(&config, &made, &RunInfo::default());
        Ok((json["samples"].as_array().cloned().unwrap_or_default(), config.topology.name().to_string()))
    };

    // A run the last visit left unfinished (a reload, a closed tab, a stop) is offered for resuming.
    let pending: RwSignal<Option<(RunSpec, usize)>> = RwSignal::new(None);
    spawn_local(async move {
        let Ok(store) = Store::open().await else { return };
        let specs = store.scan(RUNS, "").await.unwrap_or_default();
        let Some(spec) = latest_unfinished(specs.into_iter().filter_map(|(_, v)| serde_json::from_value(v).ok()).collect()) else { return };
        let done = store.scan(SAMPLES, &format!("{}|", spec.id)).await.map(|r| r.len()).unwrap_or(0);
        if !running.get_untracked() {
            pending.set(Some((spec, done)));
        }
    });

    // Runs `spec` (fresh, or resumed from the store): finished samples keep their stored result, a sample
    // cut short continues from its last stored reply, the rest run from the start.
    let execute = move |spec: RunSpec, endpoint: Endpoint| {
        let config = match spec.config() {
            Ok(config) => config,
            Err(e) => return error.set(e),
        };
        error.set(String::new());
        pending.set(None);
        // The previous run's results go now: Results must never show them as this run's.
        state.results.set(None);
        rows.set(spec.samples.iter().enumerate().map(|(index, s)| Row {
            index,
            task: s.get("task_name").and_then(Value::as_str).unwrap_or("?").to_string(),
            status: "queued".into(),
            correct: None,
            turns: 0,
        }).collect());
        running.set(true);
        let run_control = RunControl::default();
        control.set_value(run_control.clone());
        // The progress line is redrawn every second from the rows and the request counters.
        let started = js_sys::Date::now();
        // Plain shared cells, not reactive values: `execute` may run from a view that its own run removes.
        let done_before: Rc<Cell<Option<usize>>> = Rc::new(Cell::new(None));
        let tick = {
            let (run_control, done_before) = (run_control.clone(), done_before.clone());
            move || {
                // The page may have been left while the run goes on: then there is nothing to redraw.
                let Some((done, correct, total)) = rows.try_with_untracked(|r| (r.iter().filter(|row| row.correct.is_some()).count(), r.iter().filter(|row| row.correct == Some(true)).count(), r.len())) else { return };
                let (requests, retries) = run_control.counts();
                let before = done_before.get().unwrap_or(done);
                live.set(Live { done, total, correct, requests, retries, elapsed_ms: js_sys::Date::now() - started, done_here: done.saturating_sub(before) });
            }
        };
        let ticker = set_interval_with_handle(tick.clone(), std::time::Duration::from_millis(1000)).ok();
        let strategy_name = config.strategy.name().to_string();
        spawn_local(async move {
            let mut spec = spec;
            let samples = spec.samples.clone();
            let started_at = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
            let header = RunHeader::new(&config, &endpoint, &format!("generated in the browser ({})", spec.topology), &json!({}), started_at);
            let backend = FetchBackend { endpoint, timeout_ms: 600_000, control: run_control.clone() };
            let policy = RetryPolicy { max_attempts: 4, base_delay_ms: 500, max_delay_ms: 30_000 };
            // Without storage (a private window may refuse it) the run still goes, it just cannot be resumed.
            let store = Store::open().await.ok();
            let mut finished: Vec<Option<Value>> = vec![None; samples.len()];
            let mut replies: Vec<Vec<ChatReply>> = vec![Vec::new(); samples.len()];
            if let Some(store) = &store {
                let _ = store.put(RUNS, &spec.id, &serde_json::to_value(&spec).unwrap_or_default()).await;
                for (key, result) in store.scan(SAMPLES, &format!("{}|", spec.id)).await.unwrap_or_default() {
                    if let Some(slot) = key.rsplit('|').next().and_then(|i| i.parse::<usize>().ok()).and_then(|i| finished.get_mut(i)) {
                        *slot = Some(result);
                    }
                }
                for (key, reply) in store.scan(TURNS, &format!("{}|", spec.id)).await.unwrap_or_default() {
                    let index = key.split('|').nth(1).and_then(|i| i.parse::<usize>().ok());
                    if let (Some(list), Ok(reply)) = (index.and_then(|i| replies.get_mut(i)), parse_reply(&reply.to_string())) {
                        list.push(reply);
                    }
                }
            }
            rows.update(|r| {
                for (row, result) in r.iter_mut().zip(&finished) {
                    if let Some(result) = result {
                        row.status = result.get("agent_status").and_then(Value::as_str).unwrap_or("done").to_string();
                        row.correct = Some(result.get("correct").and_then(Value::as_bool).unwrap_or(false));
                        row.turns = result.get("agent_turns").and_then(Value::as_u64).unwrap_or(0) as usize;
                    }
                }
            });
            state.results.set(Some(header.results_file(run_samples(&samples, &finished))));
            done_before.set(Some(finished.iter().filter(|f| f.is_some()).count()));
            tick();
            let mut stopped = false;
            for (index, sample) in samples.iter().enumerate() {
                if finished[index].is_some() {
                    continue;
                }
                if run_control.is_cancelled() {
                    rows.update(|r| r.iter_mut().skip(index).filter(|row| row.status == "queued").for_each(|row| row.status = "not run".into()));
                    stopped = true;
                    break;
                }
                let set_status = |status: String, correct: Option<bool>, turns: usize| rows.update(|r| {
                    if let Some(row) = r.get_mut(index) {
                        row.status = status;
                        row.correct = correct;
                        row.turns = turns;
                    }
                });
                let input = match AgentInput::from_sample(sample, index) {
                    Ok(input) => input,
                    Err(e) => {
                        set_status(format!("invalid sample: {e}"), Some(false), 0);
                        continue;
                    }
                };
                set_status("running".into(), None, 0);
                let clock = js_sys::Date::now();
                let stored = std::mem::take(&mut replies[index]);
                let seq = stored.len();
                let (session, step) = AgentSession::resume(&input, &config, stored);
                let end = match &store {
                    Some(store) => {
                        let journaled = Journaled { inner: &backend, store, run: spec.id.clone(), index, seq: Cell::new(seq) };
                        run_episode(&journaled, session, step, &policy).await
                    }
                    None => run_episode(&backend, session, step, &policy).await,
                };
                let record = match end {
                    EpisodeEnd::Finished(record) => record,
                    EpisodeEnd::Cancelled => {
                        set_status("stopped".into(), None, 0);
                        rows.update(|r| r.iter_mut().skip(index + 1).filter(|row| row.correct.is_none()).for_each(|row| row.status = "not run".into()));
                        stopped = true;
                        break;
                    }
                };
                set_status(record.status.as_str().to_string(), Some(record.grade.correct), record.turns);
                let timings = json!({"wall_ms": (js_sys::Date::now() - clock) as u64});
                let result = result_sample(sample, &record, &strategy_name, timings);
                if let Some(store) = &store {
                    let _ = store.put(SAMPLES, &sample_key(&spec.id, index), &result).await;
                }
                finished[index] = Some(result);
                state.results.set(Some(header.results_file(run_samples(&samples, &finished))));
                tick();
            }
            if let (Some(store), false) = (&store, stopped) {
                spec.finished = true;
                let _ = store.put(RUNS, &spec.id, &serde_json::to_value(&spec).unwrap_or_default()).await;
            }
            tick();
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            running.set(false);
        });
    };

    let start = move |_| {
        error.set(String::new());
        let (samples, topology) = match dataset_samples() {
            Ok(s) => s,
            Err(e) => return error.set(e),
        };
        let endpoint = endpoint.get_untracked();
        // Refused before anything is sent or stored (a run's record keeps its base URL).
        if let Some(problem) = endpoint.base_url_problem() {
            return error.set(problem);
        }
        let spec = RunSpec {
            id: format!("run-{}", js_sys::Date::now() as u64),
            finished: false,
            samples: samples.into_iter().take(limit.get_untracked().max(1)).collect(),
            topology,
            strategy: strategy.get_untracked(),
            max_tokens: max_tokens.get_untracked(),
            base_url: endpoint.base_url.clone(),
            model: endpoint.model.clone(),
            settings: evaluation.settings.get_untracked(),
        };
        execute(spec, endpoint);
    };

    // Resuming takes the stored base URL, model and settings, and the key and extra headers typed now (neither
    // is ever stored).
    let resume = move |_| {
        if let Some((spec, _)) = pending.get_untracked() {
            endpoint.update(|e| {
                e.base_url = spec.base_url.clone();
                e.model = spec.model.clone();
            });
            limit.set(spec.samples.len());
            evaluation.settings.set(spec.settings.clone());
            execute(spec, endpoint.get_untracked());
        }
    };

    let download = move |_| {
        if let Some(results) = state.results.get_untracked() {
            match download_text("results.json", "application/json", &to_pretty_string(&results)) {
                Ok(()) => error.set(String::new()),
                Err(e) => error.set(e.to_string()),
            }
        }
    };

    let load = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match picked_text(&ev).await {
                Ok((name, text)) => match serde_json::from_str::<Value>(&text) {
                    Ok(json) => {
                        error.set(String::new());
                        loaded.set(Some((name, json)));
                    }
                    Err(e) => error.set(format!("{name}: malformed JSON at line {}, column {}: {e}", e.line(), e.column())),
                },
                Err(e) => error.set(e),
            }
        });
    };

    let edit_endpoint = move |apply: fn(&mut Endpoint, String)| move |ev: leptos::ev::Event| endpoint.update(|e| apply(e, event_target_value(&ev)));

    view! {
        <section class="page page-evaluate" id="page-evaluate">
            <h1>"Evaluate an agent"</h1>
            <p class="muted">"Requests go from this tab straight to the endpoint (it must allow cross-origin requests). The API key stays in memory (unless you tick \"remember on this device\"): it is never written to any file, export or run record."</p>
            <div class="panel generate-form">
                <label>"Base URL "<input id="eval-base-url" data-testid="base-url" style="width:20em" prop:value=move || endpoint.with(|e| e.base_url.clone())
                    on:input=edit_endpoint(|e, v| e.base_url = v) /></label>
                <label>"Model "<input id="eval-model" data-testid="model" prop:value=move || endpoint.with(|e| e.model.clone()) on:input=edit_endpoint(|e, v| e.model = v) /></label>
                <label>"API key "<input id="eval-key" data-testid="api-key" type="password" autocomplete="off" prop:value=move || endpoint.with(|e| e.api_key.expose().to_string())
                    on:input=move |ev| evaluation.set_key(event_target_value(&ev)) /></label>
                <label class="eval-remember" title="Off: the key lives only in this tab's memory">
                    <input type="checkbox" data-testid="remember-key" prop:checked=move || evaluation.remember_key.get()
                        on:change=move |ev| if let Err(e) = evaluation.remember(event_target_checked(&ev)) { error.set(e) } />
                    " remember on this device"
                </label>
                {move || evaluation.remember_key.get().then(|| view! {
                    <span class="eval-remember-warning" data-testid="remember-warning" role="note">"The key is kept in this browser's local storage, readable by anyone who uses this browser profile. Untick to forget it."</span>
                })}
                <StrategyPicker strategy=strategy />
                <label>"Max tokens per turn "<input type="number" style="width:6em" prop:value=move || max_tokens.get().to_string()
                    on:change=move |ev| max_tokens.set(event_target_value(&ev).parse().unwrap_or(2048)) /></label>
                <RunSettingsForm />
                <EndpointCheck endpoint=endpoint />
            </div>
            <div class="panel generate-form">
                <span>"Instances: "</span>
                <label>"topology "
                    <select id="eval-topology" on:change=move |ev| form.update(|f| f.topology = event_target_value(&ev))>
                        <option value="baseline">"baseline"</option><option value="forgetting">"forgetting"</option>
                        <option value="chain">"chain"</option><option value="multichain">"multichain"</option>
                    </select>
                </label>
                <label>"family "
                    <select id="eval-family" on:change=move |ev| form.update(|f| f.family = event_target_value(&ev))>
                        <option value="math">"math"</option><option value="gsm">"gsm"</option><option value="python">"python"</option>
                    </select>
                </label>
                <label>"seed "<input type="number" style="width:6em" prop:value=move || form.get().seed.to_string()
                    on:change=move |ev| form.update(|f| f.seed = event_target_value(&ev).parse().unwrap_or(0)) /></label>
                <label>"or a dataset file "<input id="eval-file" type="file" accept=".json" on:change=load /></label>
                <span class="muted">{move || loaded.get().map(|(n, _)| format!("using {n}")).unwrap_or_default()}</span>
                <label>"first "<input id="eval-limit" data-testid="sample-limit" type="number" min="1" style="width:5em" prop:value=move || limit.get().to_string()
                    on:change=move |ev| limit.set(event_target_value(&ev).parse().unwrap_or(3)) />" samples"</label>
            </div>
            <p>
                <button class="primary" id="eval-run" data-testid="start-run" disabled=move || running.get() on:click=start>"Run"</button>" "
                <button id="eval-stop" data-testid="stop-run" disabled=move || !running.get() on:click=move |_| control.with_value(RunControl::cancel)>"Stop"</button>" "
                <button id="eval-download" data-testid="export-results" disabled=move || state.results.with(Option::is_none) || running.get() on:click=download>"Download results"</button>" "
                <a href="#/results">"see metrics"</a>
            </p>
            {move || pending.get().map(|(spec, done)| view! {
                <p class="eval-resume" role="status">
                    {format!("An unfinished run ({done} of {} samples done, {}) can go on where it stopped. ", spec.samples.len(), spec.base_url)}
                    <button data-testid="resume-run" disabled=move || running.get() on:click=resume>"Resume run"</button>
                </p>
            })}
            <ErrorView message=Signal::derive(move || error.get()) />
            <Show when=move || rows.with(|r| !r.is_empty())>
            <progress data-testid="run-progress" max=move || rows.with(|r| r.len().max(1))
                value=move || rows.with(|r| r.iter().filter(|row| row.correct.is_some()).count())></progress>
            <p class="muted" data-testid="run-stats">{move || progress_line(&live.get())}</p>
            <table id="eval-rows">
                <thead><tr><th>"#"</th><th>"target"</th><th>"status"</th><th>"turns"</th><th>"correct"</th></tr></thead>
                <tbody>
                    {move || rows.get().into_iter().map(|r| { let status = r.status.clone(); let index = r.index; let finished = r.correct.is_some(); view! {
                        // A finished sample opens its transcript on Results.
                        <tr class="eval-row" data-testid="sample-row" data-status=status class:eval-row--done=finished on:click=move |_| {
                            if finished {
                                let _ = window().location().set_hash(&format!("/results?sample={index}"));
                            }
                        }>
                            <td>{if finished {
                                view! { <a href=format!("#/results?sample={index}") data-testid="sample-transcript" title="read its transcript on Results">{index}</a> }.into_any()
                            } else {
                                view! { <span>{index}</span> }.into_any()
                            }}</td><td>{r.task}</td><td class="eval-status">{r.status}</td><td>{r.turns}</td>
                            <td>{match r.correct { Some(true) => "yes", Some(false) => "no", None => "" }}</td>
                        </tr>
                    }}).collect_view()}
                </tbody>
            </table>
            </Show>
            <p id="eval-done" class="muted">{move || if !running.get() && rows.with(|r| !r.is_empty()) { if rows.with(|r| r.iter().all(|row| row.correct.is_some())) { "finished" } else { "stopped" } } else { "" }}</p>
        </section>
    }
}
