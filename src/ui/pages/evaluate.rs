//! Evaluate: run the agent loop in this tab against any OpenAI-compatible endpoint, on generated instances or a
//! loaded dataset file, with either context strategy; watch progress; export the results JSON. The loop itself
//! is the engine's sans-IO state machine; this page only drives it with fetch.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};

use crate::engine::agent::context::Strategy;
use crate::engine::agent::results::{aggregates, generation_params, result_sample};
use crate::engine::dataset::to_pretty_string;
use crate::engine::agent::{AgentConfig, AgentInput, AgentSession, Step};
use crate::engine::dataset::{self, RunInfo};
use crate::engine::generate;
use crate::ui::common::ErrorView;
use crate::ui::form::GenerateForm;
use crate::ui::state::{with_registry, AppState};
use crate::web::download::download_text;
use crate::web::fetch_backend::{send, Endpoint};
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
    crate::ui::form::query_pairs(crate::ui::route::hash_query(&hash)).into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The Evaluate page.
#[component]
pub fn EvaluatePage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let base_url = RwSignal::new(url_param("base_url").unwrap_or_else(|| "http://127.0.0.1:8099/v1".into()));
    let model = RwSignal::new(url_param("model").unwrap_or_else(|| "local".into()));
    let api_key = RwSignal::new(String::new());
    let strategy = RwSignal::new("full".to_string());
    let limit = RwSignal::new(3usize);
    let max_tokens = RwSignal::new(2048u32);
    let form = RwSignal::new(GenerateForm { samples_per_target: 1, ..GenerateForm::default() });
    let loaded: RwSignal<Option<(String, Value)>> = RwSignal::new(None);
    let rows: RwSignal<Vec<Row>> = RwSignal::new(Vec::new());
    let running = RwSignal::new(false);
    let stop = RwSignal::new(false);
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
        let endpoint = Endpoint { base_url: base_url.get_untracked(), model: model.get_untracked(), api_key: api_key.get_untracked(), max_attempts: 4 };
        let mut config = AgentConfig::for_topology(&topology);
        config.max_tokens = max_tokens.get_untracked();
        config.repair_max_tokens = max_tokens.get_untracked().saturating_mul(2);
        config.max_turns = config.max_turns.min(60);
        config.strategy = if strategy.get_untracked() == "acg" { Strategy::Acg { budget_tokens: 5000 } } else { Strategy::Full };
        rows.set(samples.iter().enumerate().map(|(index, s)| Row {
            index,
            task: s.get("task_name").and_then(Value::as_str).unwrap_or("?").to_string(),
            status: "queued".into(),
            correct: None,
            turns: 0,
        }).collect());
        running.set(true);
        stop.set(false);
        let strategy_name = strategy.get_untracked();
        spawn_local(async move {
            let started_at = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
            let mut results = Vec::with_capacity(samples.len());
            for (index, sample) in samples.iter().enumerate() {
                if stop.get_untracked() {
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
                let clock = js_sys::Date::now();
                let (mut session, mut step) = AgentSession::start(&input, &config);
                let record = loop {
                    match step {
                        Step::Finished(record) => break record,
                        Step::Send(request) => {
                            set_status(format!("turn {}", request.turn + 1), None, request.turn);
                            if stop.get_untracked() {
                                step = session.on_error(crate::engine::agent::AgentError { message: "stopped by the user".into() });
                                continue;
                            }
                            step = match send(&endpoint, &request).await {
                                Ok(reply) => session.on_reply(reply),
                                Err(e) => session.on_error(e),
                            };
                        }
                    }
                };
                set_status(record.status.as_str().to_string(), Some(record.grade.correct), record.turns);
                let timings = json!({"wall_ms": (js_sys::Date::now() - clock) as u64});
                results.push(result_sample(sample, &record, &strategy_name, timings));
            }
            let mut summary = serde_json::Map::new();
            summary.insert("start_times".into(), json!([started_at]));
            summary.insert("generation_params".into(), generation_params(&config, &endpoint.model, &endpoint.base_url));
            summary.insert("system_prompt".into(), json!(config.system_prompt));
            summary.insert("mode".into(), json!("agent"));
            summary.insert("topology".into(), json!(topology));
            summary.extend(aggregates(&results));
            state.results.set(Some(json!({"summary": Value::Object(summary), "samples": results})));
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

    let text_input = move |signal: RwSignal<String>| move |ev: leptos::ev::Event| signal.set(event_target_value(&ev));

    view! {
        <section class="page page-evaluate" id="page-evaluate">
            <h1>"Evaluate an agent"</h1>
            <p class="muted">"Requests go from this tab straight to the endpoint (it must allow cross-origin requests). The API key stays in memory: it is never stored or written to any file."</p>
            <div class="panel generate-form">
                <label>"Base URL "<input id="eval-base-url" style="width:20em" prop:value=move || base_url.get() on:input=text_input(base_url) /></label>
                <label>"Model "<input id="eval-model" prop:value=move || model.get() on:input=text_input(model) /></label>
                <label>"API key "<input id="eval-key" type="password" autocomplete="off" prop:value=move || api_key.get() on:input=text_input(api_key) /></label>
                <label>"Context strategy "
                    <select id="eval-strategy" on:change=move |ev| strategy.set(event_target_value(&ev))>
                        <option value="full">"full conversation"</option>
                        <option value="acg">"ACG view (5,000 tokens)"</option>
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
                <button id="eval-stop" disabled=move || !running.get() on:click=move |_| stop.set(true)>"Stop"</button>" "
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
