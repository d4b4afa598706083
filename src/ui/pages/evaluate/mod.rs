//! Evaluate: run the agent loop in this tab against any OpenAI-compatible endpoint, on generated instances or a
//! loaded dataset file, with any context strategy of the registry; watch progress; export the results JSON. The loop, the
//! retries and the results file are the engine's (`agent::run_episode`, `results`); this page supplies fetch.

pub(super) mod budget;
mod check;
mod lab;
mod run;
mod runs;
mod settings;
mod strategy;
mod table;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::engine::agent::{Endpoint, Strategy};
use crate::engine::generate::form::GenerateForm;
use crate::app::jobs::JobRequest;
use crate::engine::dataset::{to_pretty_string, FileFormat};
use crate::engine::results::expand_epochs;
use crate::ui::common::{sentence, ErrorView};
use budget::BudgetForm;
use check::EndpointCheck;
use lab::LabPanel;
use settings::{ProviderPicker, RunSettingsForm};
use strategy::StrategyPicker;
use crate::app::evaluate::lab::{label, run_id, LabProgress};
use crate::app::evaluate::live::progress_line;
use crate::app::evaluate::board::is_failed;
use crate::app::evaluate::stored_run::{latest_unfinished, RunSpec};
use run::RunView;
use runs::RunList;
use table::RunTable;
use crate::app::evaluate::source::{browse_note, SampleSource};
use crate::ui::state::{AppState, EvaluationState};
use crate::web::download::download_text;
use crate::web::fetch_backend::RunControl;
use crate::web::storage::{sample_key, Store, RUNS, SAMPLES, TURNS};
use crate::web::files::picked_text;
use crate::web::link_param;

/// The Evaluate page.
#[component]
pub fn EvaluatePage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let evaluation = state.evaluation;
    let (endpoint, strategy, limit, max_tokens) = (evaluation.endpoint, evaluation.strategy, evaluation.sample_limit, evaluation.max_tokens);
    // A link may preset the endpoint (never the key).
    if let Some(url) = link_param("base_url") {
        endpoint.update(|e| e.base_url = url);
    }
    if let Some(name) = link_param("model") {
        endpoint.update(|e| e.model = name);
    }
    // Everything a run needs outlives this page (`EvaluationState`): leaving Evaluate mid-run and coming back
    // shows the same run, and Stop reaches it.
    let (form, loaded, pending) = (evaluation.form, evaluation.loaded, evaluation.pending);
    let view_of_run = evaluation.run;
    let RunView { rows, live, running, revision, notice, live_text, started, adaptations, .. } = view_of_run;
    let (paused, current, control) = (evaluation.paused, evaluation.current, evaluation.control);
    let error = RwSignal::new(String::new());

    let source = evaluation.source;
    // A dataset file's samples and topology.
    let file_samples = |name: &str, json: &Value| -> Result<(Vec<Value>, String), String> {
        let samples = json.get("samples").and_then(Value::as_array).cloned().ok_or(format!("{name} has no `samples` list"))?;
        if samples.is_empty() {
            return Err(format!("{name} has no samples"));
        }
        Ok((samples, crate::engine::dataset::inspect(json).topology))
    };
    // The samples of the loaded file.
    let loaded_samples = move || -> Result<(Vec<Value>, String), String> {
        let Some((name, json)) = loaded.get_untracked() else { return Err("no dataset file is loaded: choose one in \"a dataset file\" below, or another source".into()) };
        file_samples(&name, &json)
    };

    // The samples a run would cover: the first `limit`, each once per epoch.
    let first_samples = move |(samples, topology): (Vec<Value>, String)| -> (Vec<Value>, String) {
        let first: Vec<Value> = samples.into_iter().take(limit.get_untracked().max(1)).collect();
        (expand_epochs(&first, evaluation.settings.get_untracked().epochs), topology)
    };
    // The run's samples, handed to `then` once here, from any source: the loaded file; the dataset on Browse or
    // the graph on Design, gathered by the job runner; a built-in topology's generated in the worker (with its
    // other workers), so the page never generates on its own thread. Run and Estimate both take them here.
    let samples_then = move |then: Callback<Result<(Vec<Value>, String), String>>| match source.get_untracked() {
        SampleSource::File => then.run(loaded_samples().map(first_samples)),
        SampleSource::Browse | SampleSource::Design => {
            evaluation.gathering.set(true);
            spawn_local(async move {
                let gathered = evaluation.gather(state.browse, state.design).await;
                evaluation.gathering.set(false);
                then.run(gathered.and_then(|json| file_samples(source.get_untracked().label(), &json)).map(first_samples));
            });
        }
        SampleSource::Topology => {
            let form = form.get_untracked();
            let topology = match form.to_config() {
                Ok(config) => config.topology.name().to_string(),
                Err(e) => return then.run(Err(e)),
            };
            spawn_local(async move {
                let generated = topology_samples(form).await;
                then.run(generated.and_then(|json| file_samples("the topology", &json)).map(|(samples, _)| first_samples((samples, topology))));
            });
        }
    };
    let estimate_samples: budget::SamplesFor = Callback::new(move |show: Callback<Result<Vec<Value>, String>>| {
        samples_then(Callback::new(move |given: Result<(Vec<Value>, String), String>| show.run(given.map(|(samples, _)| samples))));
    });

    // A run the last visit left unfinished (a reload, a closed tab, a stop) is offered for resuming.
    spawn_local(async move {
        let Ok(store) = Store::open().await else { return };
        let specs = store.scan(RUNS, "").await.unwrap_or_default();
        let Some(spec) = latest_unfinished(specs.into_iter().filter_map(|(_, v)| serde_json::from_value(v).ok()).collect()) else { return };
        let done = store.scan(SAMPLES, &format!("{}|", spec.id)).await.map(|r| r.len()).unwrap_or(0);
        if !running.get_untracked() {
            pending.set(Some((spec, done)));
        }
    });

    // Runs `spec` (fresh, resumed or retried from the store) in the background; the page draws what it writes.
    let execute = move |spec: RunSpec, endpoint: Endpoint| {
        let config = match spec.config() {
            Ok(config) => config,
            Err(e) => return error.set(e),
        };
        error.set(String::new());
        pending.set(None);
        paused.set(false);
        // The previous run's results go now: Results must never show them as this run's.
        state.results.set(None);
        current.set(Some(spec.id.clone()));
        let run_control = RunControl::with_spend(spec.settings.spend);
        control.set_value(run_control.clone());
        spawn_local(run::drive(spec, config, endpoint, view_of_run, run_control));
    };
    // A new run's record: the page's settings and endpoint now, under `id` and `name`.
    let new_spec = move |id: String, name: String, samples: Vec<Value>, topology: String, strategy: String, endpoint: &Endpoint| RunSpec {
        id,
        name,
        finished: false,
        samples,
        topology,
        strategy,
        max_tokens: max_tokens.get_untracked(),
        base_url: endpoint.base_url.clone(),
        model: endpoint.model.clone(),
        settings: evaluation.settings.get_untracked(),
        provider: endpoint.profile().key.to_string(),
        wire: endpoint.wire().as_str().to_string(),
        adaptations: Value::Null,
    };
    let launch = move |(samples, topology): (Vec<Value>, String)| {
        let endpoint = endpoint.get_untracked();
        // Refused before anything is sent or stored (a run's record keeps its base URL).
        if let Some(problem) = endpoint.base_url_problem() {
            return error.set(problem);
        }
        let id = format!("run-{}", js_sys::Date::now() as u64);
        let spec = new_spec(id, String::new(), samples, topology, strategy.with_untracked(|s| s.to_string()), &endpoint);
        execute(spec, endpoint);
    };
    // A strategy lab: every strategy of the lab on the same samples, one run after another (each an ordinary
    // stored run, `run-<stamp>-lab<k>`), then Results compares them, paired against the first. Stop ends the lab.
    let lab_state = state.lab;
    let run_lab = move |(samples, topology): (Vec<Value>, String), strategies: Vec<Strategy>| {
        let endpoint = endpoint.get_untracked();
        if let Some(problem) = endpoint.base_url_problem() {
            return error.set(problem);
        }
        let stamp = js_sys::Date::now() as u64;
        // Each run is named, and compared, by what its strategy changes from the defaults (`acg:clusters=0`).
        let texts: Vec<String> = strategies.iter().map(label).collect();
        let specs: Vec<RunSpec> = texts
            .iter()
            .zip(&strategies)
            .enumerate()
            .map(|(at, (text, strategy))| {
                let name = format!("lab {}/{} · {text}", at + 1, texts.len());
                new_spec(run_id(stamp, at), name, samples.clone(), topology.clone(), strategy.to_string(), &endpoint)
            })
            .collect();
        // Every run's settings are checked before the first request.
        let configs = match specs.iter().map(RunSpec::config).collect::<Result<Vec<_>, _>>() {
            Ok(configs) => configs,
            Err(e) => return error.set(e),
        };
        error.set(String::new());
        pending.set(None);
        paused.set(false);
        state.results.set(None);
        spawn_local(async move {
            let mut stopped = false;
            for (at, (spec, config)) in specs.iter().zip(configs).enumerate() {
                lab_state.progress.set(Some(LabProgress { at, strategies: texts.clone() }));
                current.set(Some(spec.id.clone()));
                let run_control = RunControl::with_spend(spec.settings.spend);
                control.set_value(run_control.clone());
                run::drive(spec.clone(), config, endpoint.clone(), view_of_run, run_control.clone()).await;
                if run_control.is_cancelled() || run_control.halted().is_some() || !run_control.run().borrow().is_complete() {
                    stopped = true;
                    break;
                }
            }
            lab_state.progress.set(None);
            if stopped {
                return error.set("the lab stopped before every strategy ran: its runs are in the list below (resume each there, or compare what finished with \"Compare the lab\")".into());
            }
            let files = async {
                let store = Store::open().await?;
                let mut files = Vec::new();
                for (spec, text) in specs.iter().zip(&texts) {
                    files.push((text.clone(), run::stored_results_file(&store, spec).await?));
                }
                Ok::<_, String>(files)
            };
            match files.await {
                Ok(files) => lab_state.open_comparison(files),
                Err(e) => error.set(e),
            }
        });
    };
    // Gathers the source's samples, then runs them with the strategy chosen, or every strategy of `lab`.
    let start_with = move |lab: Option<Vec<Strategy>>| {
        error.set(String::new());
        samples_then(Callback::new(move |given| match given {
            Ok(samples) => match lab.clone() {
                Some(strategies) => run_lab(samples, strategies),
                None => launch(samples),
            },
            Err(e) => error.set(e),
        }));
    };
    let start = move |_| start_with(None);
    let on_lab = Callback::new(move |()| start_with(Some(lab_state.lab.with_untracked(|l| l.strategies().to_vec()))));
    let lab_busy = Signal::derive(move || running.get() || evaluation.gathering.get() || lab_state.progress.with(Option::is_some));

    // Resuming takes the stored base URL, model and settings, and the key and extra headers typed now (neither
    // is ever stored); prices and budgets are the page's as they are now, so a run stopped by its budget goes on
    // under a raised one.
    let resume_spec = move |mut spec: RunSpec| {
        endpoint.update(|e| {
            let stored = spec.endpoint();
            e.base_url = stored.base_url;
            e.model = stored.model;
            e.provider = stored.provider;
            e.wire = stored.wire;
        });
        limit.set(spec.samples.len() / spec.settings.epochs.max(1));
        spec.settings.spend = evaluation.settings.get_untracked().spend;
        evaluation.settings.set(spec.settings.clone());
        execute(spec, endpoint.get_untracked());
    };
    let resume = move |_| {
        if let Some((spec, _)) = pending.get_untracked() {
            resume_spec(spec);
        }
    };
    // From the run list: resume run `id`, or first forget its failed samples (result and replies) and then resume.
    let resume_stored = move |id: String, failed_only: bool| {
        spawn_local(async move {
            let prepared = async {
                let store = Store::open().await?;
                let mut spec = runs::read_spec(&store, &id).await?;
                if failed_only {
                    for (index, result) in run::stored_results(&store, &spec).await.into_iter().enumerate() {
                        if result.is_some_and(|r| is_failed(&r)) {
                            store.delete_prefix(TURNS, &format!("{}|", sample_key(&spec.id, index))).await?;
                            store.delete(SAMPLES, &sample_key(&spec.id, index)).await?;
                        }
                    }
                    spec.finished = false;
                }
                Ok::<RunSpec, String>(spec)
            };
            match prepared.await {
                Ok(spec) => resume_spec(spec),
                Err(e) => error.set(e),
            }
        });
    };
    let on_resume = Callback::new(move |id: String| resume_stored(id, false));
    let on_retry_failed = Callback::new(move |id: String| resume_stored(id, true));
    let pause = move |_| {
        control.with_value(|c| c.set_paused(true));
        paused.set(true);
    };
    let unpause = move |_| {
        control.with_value(|c| c.set_paused(false));
        paused.set(false);
    };

    let download = move |_| {
        if let Some(results) = state.results.get_untracked() {
            match download_text("results.json", "application/json", &to_pretty_string(results.json())) {
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
                        source.set(SampleSource::File);
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
                <ProviderPicker />
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
                <LabPanel on_run=on_lab busy=lab_busy />
                <label>"Max tokens per turn "<input type="number" data-testid="max-tokens" style="width:6em" prop:value=move || max_tokens.get().to_string()
                    on:change=move |ev| max_tokens.set(event_target_value(&ev).parse().unwrap_or(2048)) /></label>
                <RunSettingsForm />
                <BudgetForm samples=estimate_samples />
                <EndpointCheck endpoint=endpoint />
            </div>
            <div class="panel generate-form">
                <SourcePicker />
                <span>"Instances: "</span>
                <label>"topology "
                    <select id="eval-topology" prop:value=move || form.with(|f| f.topology.clone()) on:change=move |ev| form.update(|f| f.topology = event_target_value(&ev))>
                        <option value="baseline">"baseline"</option><option value="forgetting">"forgetting"</option>
                        <option value="chain">"chain"</option><option value="multichain">"multichain"</option>
                    </select>
                </label>
                <label>"family "
                    <select id="eval-family" prop:value=move || form.with(|f| f.family.clone()) on:change=move |ev| form.update(|f| f.family = event_target_value(&ev))>
                        <option value="math">"math"</option><option value="gsm">"gsm"</option><option value="python">"python"</option>
                    </select>
                </label>
                <label>"seed "<input type="number" style="width:6em" prop:value=move || form.get().seed.to_string()
                    on:change=move |ev| form.update(|f| f.seed = event_target_value(&ev).parse().unwrap_or(0)) /></label>
                <label>"or a dataset file "<input id="eval-file" type="file" accept=".json" on:change=load /></label>
                // The file stays loaded when the page is left (it is the app's): say so, and offer to drop it.
                {move || loaded.with(|l| l.as_ref().map(|(n, _)| n.clone())).map(|name| view! {
                    <span class="muted eval-loaded" data-testid="loaded-dataset">{format!("using {name}")}</span>
                    <button data-testid="unload-dataset" title="forget the file: the next run takes the instances generated from the settings beside it"
                        on:click=move |_| {
                            loaded.set(None);
                            source.set(SampleSource::Topology);
                        }>"use generated instances"</button>
                })}
                <label>"first "<input id="eval-limit" data-testid="sample-limit" type="number" min="1" style="width:5em" prop:value=move || limit.get().to_string()
                    on:change=move |ev| limit.set(event_target_value(&ev).parse().unwrap_or(3)) />" samples"</label>
            </div>
            <p>
                <button class="primary" id="eval-run" data-testid="start-run" disabled=move || lab_busy.get() on:click=start>"Run"</button>" "
                <button data-testid="pause-run" disabled=move || !running.get() || paused.get() on:click=pause title="finish the requests in flight, send no new one">"Pause"</button>" "
                {move || (running.get() && paused.get()).then(|| view! { <button data-testid="resume-run" on:click=unpause>"Resume"</button>" " })}
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
            <div class="eval-run-view" data-testid="run-view">
            <progress data-testid="run-progress" max=move || rows.with(|r| r.len().max(1))
                value=move || rows.with(|r| r.iter().filter(|row| row.correct.is_some()).count())></progress>
            <p class="muted" data-testid="run-stats">{move || progress_line(&live.get())}</p>
            {move || adaptations.with(|a| !a.is_empty()).then(|| view! {
                <div class="eval-adaptations">
                    <p class="eval-adaptations-title" id="eval-adaptations-title">"Requests adapted to this provider and model"</p>
                    <ul data-testid="run-adaptations" aria-labelledby="eval-adaptations-title">
                        {adaptations.get().into_iter().map(|line| view! { <li>{sentence(&line)}</li> }).collect_view()}
                    </ul>
                </div>
            })}
            {move || (!notice.get().is_empty()).then(|| view! { <p class="eval-resume" role="status" data-testid="run-notice">{notice.get()}</p> })}
            <RunTable rows=rows live_text=live_text started=started />
            </div>
            </Show>
            <p id="eval-done" class="muted">{move || if !running.get() && rows.with(|r| !r.is_empty()) { if rows.with(|r| r.iter().all(|row| row.correct.is_some())) { "finished" } else { "stopped" } } else { "" }}</p>
            <RunList revision=revision running=running current=Signal::derive(move || if running.get() { current.get() } else { None }) on_resume=on_resume on_retry_failed=on_retry_failed />
        </section>
    }
}

/// The choice of where a run's samples come from (`[data-testid="eval-source"]`), and what that source holds
/// now (`[data-testid="eval-source-note"]`); for Browse, all its samples or the filtered ones.
#[component]
fn SourcePicker() -> impl IntoView {
    let state = expect_context::<AppState>();
    let evaluation = state.evaluation;
    let source = evaluation.source;
    let note = move || match source.get() {
        SampleSource::Topology => "generated from the topology, family and seed beside this".to_string(),
        SampleSource::File => match evaluation.loaded.with(|l| l.as_ref().map(|(n, _)| n.clone())) {
            Some(name) => format!("the samples of {name}"),
            None => "no file loaded yet: choose one below".to_string(),
        },
        SampleSource::Browse => browse_note(EvaluationState::browse_shown(state.browse).as_ref(), evaluation.browse_filtered.get()),
        SampleSource::Design => {
            let nodes = state.design.read(|m| m.graph().nodes().len());
            format!("the graph on Design ({nodes} nodes), generated in the worker with the family and seed beside this, one sample per target")
        }
    };
    view! {
        <div class="eval-source">
            <label>"Samples from "
                <select id="eval-source" data-testid="eval-source" prop:value=move || source.get().as_str()
                    on:change=move |ev| source.set(SampleSource::parse(&event_target_value(&ev)).unwrap_or_default())>
                    {SampleSource::ALL.into_iter().map(|s| view! { <option value=s.as_str()>{s.label()}</option> }).collect_view()}
                </select>
            </label>
            <Show when=move || source.get() == SampleSource::Browse>
                <label>" "<select data-testid="eval-browse-scope" prop:value=move || if evaluation.browse_filtered.get() { "filtered" } else { "all" }
                    on:change=move |ev| evaluation.browse_filtered.set(event_target_value(&ev) == "filtered")>
                    <option value="filtered">"the samples its filters keep"</option>
                    <option value="all">"all its samples"</option>
                </select></label>
            </Show>
            " "<span class="muted" data-testid="eval-source-note">{note}</span>
            {move || evaluation.gathering.get().then(|| view! { <span class="muted" data-testid="eval-gathering">" gathering the samples…"</span> })}
        </div>
    }
}

/// The dataset file of a built-in topology's run, generated in the worker (the bytes `arbigraph generate`
/// writes), parsed.
async fn topology_samples(mut form: GenerateForm) -> Result<Value, String> {
    form.family = crate::ui::state::explicit_now(&form.family);
    let packs = crate::ui::state::current_sources();
    let request = JobRequest::Export { form, graph: None, format: FileFormat::Json, packs };
    let text = crate::web::worker::ask_file(request, None).await?;
    if text.is_empty() {
        return Err("the worker made no file".into());
    }
    serde_json::from_str(&text).map_err(|e| format!("the generated samples are not JSON: {e}"))
}
