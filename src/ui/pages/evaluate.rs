//! Evaluate: run the agent loop in this tab against any OpenAI-compatible endpoint, on generated instances or a
//! loaded dataset file, with any context strategy of the registry; watch progress; export the results JSON. The loop, the
//! retries and the results file are the engine's (`agent::run_episode`, `results`); this page supplies fetch.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};

use crate::engine::agent::strategy::{registry, Strategy};
use crate::engine::agent::{run_episode, AgentConfig, AgentInput, AgentSession, Endpoint, EpisodeEnd, RetryPolicy, Secret};
use crate::engine::dataset::{self, to_pretty_string, RunInfo};
use crate::engine::results::{result_sample, RunHeader};
use crate::engine::generate;
use crate::ui::common::ErrorView;
use crate::app::form::GenerateForm;
use crate::ui::state::{with_registry, AppState};
use crate::web::download::download_text;
use crate::web::fetch_backend::{FetchBackend, RunControl};
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
    let running = RwSignal::new(false);
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

    let start = move |_| {
        error.set(String::new());
        let (samples, topology) = match dataset_samples() {
            Ok(s) => s,
            Err(e) => return error.set(e),
        };
        let samples: Vec<Value> = samples.into_iter().take(limit.get_untracked().max(1)).collect();
        let endpoint = endpoint.get_untracked();
        let mut config = AgentConfig::for_topology(&topology);
        config.max_tokens = max_tokens.get_untracked();
        config.repair_max_tokens = max_tokens.get_untracked().saturating_mul(2);
        config.max_turns = config.max_turns.min(60);
        config.strategy = match Strategy::parse(&strategy.get_untracked()) {
            Ok(chosen) => chosen,
            Err(e) => return error.set(e.to_string()),
        };
        rows.set(samples.iter().enumerate().map(|(index, s)| Row {
            index,
            task: s.get("task_name").and_then(Value::as_str).unwrap_or("?").to_string(),
            status: "queued".into(),
            correct: None,
            turns: 0,
        }).collect());
        running.set(true);
        let run_control = RunControl::default();
        control.set_value(run_control.clone());
        let strategy_name = config.strategy.name().to_string();
        spawn_local(async move {
            let started_at = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
            let header = RunHeader::new(&config, &endpoint, &format!("generated in the browser ({topology})"), &json!({}), started_at);
            let backend = FetchBackend { endpoint, timeout_ms: 600_000, control: run_control.clone() };
            let policy = RetryPolicy { max_attempts: 4, base_delay_ms: 500, max_delay_ms: 30_000 };
            let mut results = Vec::with_capacity(samples.len());
            for (index, sample) in samples.iter().enumerate() {
                if run_control.is_cancelled() {
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
                let (session, step) = AgentSession::start(&input, &config);
                let record = match run_episode(&backend, session, step, &policy).await {
                    EpisodeEnd::Finished(record) => record,
                    EpisodeEnd::Cancelled => {
                        set_status("stopped".into(), None, 0);
                        break;
                    }
                };
                set_status(record.status.as_str().to_string(), Some(record.grade.correct), record.turns);
                let timings = json!({"wall_ms": (js_sys::Date::now() - clock) as u64});
                results.push(result_sample(sample, &record, &strategy_name, timings));
            }
            state.results.set(Some(header.results_file(results)));
            running.set(false);
        });
    };

    let download = move |_| {
        if let Some(results) = state.results.get_untracked() {
            if let Err(e) = download_text("results.json", "application/json", &to_pretty_string(&results)) {
                error.set(e.to_string());
            }
        }
    };

    let load = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match picked_text(&ev).await {
                Ok((name, text)) => match serde_json::from_str::<Value>(&text) {
                    Ok(json) => loaded.set(Some((name, json))),
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
            <p class="muted">"Requests go from this tab straight to the endpoint (it must allow cross-origin requests). The API key stays in memory: it is never stored or written to any file."</p>
            <div class="panel generate-form">
                <label>"Base URL "<input id="eval-base-url" style="width:20em" prop:value=move || endpoint.with(|e| e.base_url.clone())
                    on:input=edit_endpoint(|e, v| e.base_url = v) /></label>
                <label>"Model "<input id="eval-model" prop:value=move || endpoint.with(|e| e.model.clone()) on:input=edit_endpoint(|e, v| e.model = v) /></label>
                <label>"API key "<input id="eval-key" type="password" autocomplete="off" prop:value=move || endpoint.with(|e| e.api_key.expose().to_string())
                    on:input=edit_endpoint(|e, v| e.api_key = Secret::new(v)) /></label>
                <label>"Context strategy "
                    <select id="eval-strategy" prop:value=move || strategy.get() on:change=move |ev| strategy.set(event_target_value(&ev))>
                        {registry().iter().map(|info| view! { <option value=info.name title=info.description>{info.name}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Max tokens per turn "<input type="number" style="width:6em" prop:value=move || max_tokens.get().to_string()
                    on:change=move |ev| max_tokens.set(event_target_value(&ev).parse().unwrap_or(2048)) /></label>
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
                <label>"first "<input id="eval-limit" type="number" min="1" style="width:5em" prop:value=move || limit.get().to_string()
                    on:change=move |ev| limit.set(event_target_value(&ev).parse().unwrap_or(3)) />" samples"</label>
            </div>
            <p>
                <button class="primary" id="eval-run" disabled=move || running.get() on:click=start>"Run"</button>" "
                <button id="eval-stop" disabled=move || !running.get() on:click=move |_| control.with_value(RunControl::cancel)>"Stop"</button>" "
                <button id="eval-download" disabled=move || state.results.get().is_none() || running.get() on:click=download>"Download results"</button>" "
                <a href="#/results">"see metrics"</a>
            </p>
            <ErrorView message=Signal::derive(move || error.get()) />
            <table id="eval-rows">
                <thead><tr><th>"#"</th><th>"target"</th><th>"status"</th><th>"turns"</th><th>"correct"</th></tr></thead>
                <tbody>
                    {move || rows.get().into_iter().map(|r| view! {
                        <tr class="eval-row">
                            <td>{r.index}</td><td>{r.task}</td><td class="eval-status">{r.status}</td><td>{r.turns}</td>
                            <td>{match r.correct { Some(true) => "yes", Some(false) => "no", None => "" }}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <p id="eval-done" class="muted">{move || if !running.get() && state.results.get().is_some() { "finished" } else { "" }}</p>
        </section>
    }
}
