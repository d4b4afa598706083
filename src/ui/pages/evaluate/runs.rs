//! The run list (`[data-testid="run-list"]`): every run kept in this browser's run store, newest first, one
//! `[data-testid="run-item"]` each with its name, progress and model, and its actions: open its results on
//! Results (`run-open`), resume an unfinished run (`run-resume`), run its failed samples again
//! (`run-retry-failed`), rename it (`run-rename`, then `run-name` and Enter) and delete it (`run-delete`, asked
//! twice); a strategy lab's run also opens the comparison of its lab's runs on Results (`run-compare-lab`). The summaries are `app::evaluate::board`'s; the page supplies resuming and retrying.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::evaluate::lab::{label, lab_of, lab_runs};
use crate::app::results::data::ResultsData;
use crate::app::evaluate::board::{checked_name, newest_first, summarize, RunSummary};
use crate::app::evaluate::stored_run::RunSpec;
use crate::ui::state::AppState;
use crate::web::storage::{Store, RUNS, SAMPLES, TURNS};

use super::run::{stored_results, stored_results_file};

/// Every stored run's summary, newest first.
async fn read_runs() -> Result<Vec<RunSummary>, String> {
    let store = Store::open().await?;
    let mut runs = Vec::new();
    for (_, value) in store.scan(RUNS, "").await? {
        let Ok(spec) = serde_json::from_value::<RunSpec>(value) else { continue };
        let results: Vec<_> = stored_results(&store, &spec).await.into_iter().flatten().collect();
        runs.push(summarize(&spec, &results));
    }
    newest_first(&mut runs);
    Ok(runs)
}

/// The stored spec of run `id`.
pub async fn read_spec(store: &Store, id: &str) -> Result<RunSpec, String> {
    let value = store.get(RUNS, id).await?.ok_or_else(|| format!("run {id} is no longer stored"))?;
    serde_json::from_value(value).map_err(|e| format!("run {id} is stored in a form this version cannot read: {e}"))
}

fn when(ms: Option<f64>) -> String {
    ms.and_then(|ms| js_sys::Date::new(&ms.into()).to_locale_string("default", &js_sys::Object::new()).as_string()).unwrap_or_default()
}

/// The list. `revision` changes whenever a run changes the store; `running` disables resuming while a run goes;
/// `current` is the run going now, whose progress is shown above the list rather than here.
#[component]
pub fn RunList(revision: RwSignal<u64>, running: RwSignal<bool>, current: Signal<Option<String>>, on_resume: Callback<String>, on_retry_failed: Callback<String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let runs: RwSignal<Vec<RunSummary>> = RwSignal::new(Vec::new());
    let problem = RwSignal::new(String::new());
    let renaming: RwSignal<Option<String>> = RwSignal::new(None);
    let deleting: RwSignal<Option<String>> = RwSignal::new(None);
    Effect::new(move |_| {
        revision.track();
        spawn_local(async move {
            match read_runs().await {
                Ok(list) => {
                    let _ = runs.try_set(list);
                }
                Err(e) => {
                    let _ = problem.try_set(e);
                }
            }
        });
    });
    let bump = move || revision.update(|r| *r += 1);
    let open = move |id: String| {
        spawn_local(async move {
            let file = async {
                let store = Store::open().await?;
                let spec = read_spec(&store, &id).await?;
                stored_results_file(&store, &spec).await
            };
            match file.await {
                Ok(file) => {
                    state.results.set(Some(ResultsData::shared(file)));
                    let _ = window().location().set_hash("/results");
                }
                Err(e) => problem.set(e),
            }
        });
    };
    // The comparison of every stored run of the lab `id` belongs to, the baseline first, each named by its strategy.
    let compare_lab = move |id: String| {
        let ids = lab_runs(&id, runs.with_untracked(|r| r.iter().map(|run| run.id.clone()).collect::<Vec<_>>()).iter().map(String::as_str));
        spawn_local(async move {
            let files = async {
                let store = Store::open().await?;
                let mut files = Vec::new();
                for id in &ids {
                    let spec = read_spec(&store, id).await?;
                    let name = crate::engine::agent::Strategy::parse(&spec.strategy).map_or_else(|_| spec.strategy.clone(), |s| label(&s));
                    files.push((name, stored_results_file(&store, &spec).await?));
                }
                Ok::<_, String>(files)
            };
            match files.await {
                Ok(files) if files.len() >= 2 => state.lab.open_comparison(files),
                Ok(_) => problem.set("only one run of this lab is still stored: there is nothing to compare it with".into()),
                Err(e) => problem.set(e),
            }
        });
    };
    let rename = move |id: String, text: String| match checked_name(&text) {
        Ok(name) => spawn_local(async move {
            let renamed = async {
                let store = Store::open().await?;
                let spec = RunSpec { name, ..read_spec(&store, &id).await? };
                store.put(RUNS, &id, &serde_json::to_value(&spec).map_err(|e| e.to_string())?).await
            };
            match renamed.await {
                Ok(()) => {
                    problem.set(String::new());
                    renaming.set(None);
                    bump();
                }
                Err(e) => problem.set(e),
            }
        }),
        Err(e) => problem.set(e),
    };
    let delete = move |id: String| {
        if deleting.get_untracked().as_deref() != Some(id.as_str()) {
            return deleting.set(Some(id));
        }
        deleting.set(None);
        spawn_local(async move {
            let deleted = async {
                let store = Store::open().await?;
                store.delete_prefix(TURNS, &format!("{id}|")).await?;
                store.delete_prefix(SAMPLES, &format!("{id}|")).await?;
                store.delete(RUNS, &id).await
            };
            match deleted.await {
                Ok(()) => problem.set(String::new()),
                Err(e) => problem.set(e),
            }
            bump();
        });
    };

    view! {
        <section class="panel eval-runs" data-testid="run-list" aria-label="Runs kept in this browser">
            <h2>"Runs in this browser"</h2>
            {move || runs.with(Vec::is_empty).then(|| view! { <p class="muted">"No run yet. Each run is kept here as it goes, so a reload or a closed tab can resume it."</p> })}
            {move || (!problem.get().is_empty()).then(|| view! { <p class="error" role="alert" data-testid="run-list-error">{problem.get()}</p> })}
            <ul class="eval-run-items">
                <For each=move || runs.get() key=|r| (r.id.clone(), r.name.clone(), r.done, r.failed, r.finished) let:run>
                    {
                        let id = run.id.clone();
                        let (id_open, id_resume, id_retry, id_rename, id_name, id_delete, id_deleting) = (id.clone(), id.clone(), id.clone(), id.clone(), id.clone(), id.clone(), id.clone());
                        let is_renaming = { let id = id.clone(); move || renaming.get().as_deref() == Some(id.as_str()) };
                        let name = run.name.clone();
                        view! {
                            <li class="eval-run" data-testid="run-item" data-id=id.clone() data-finished=run.finished.to_string()>
                                <div class="eval-run-head">
                                    <Show when=is_renaming.clone() fallback={ let name = name.clone(); move || view! { <strong class="eval-run-name" data-testid="run-title">{name.clone()}</strong> } }>
                                        <input class="eval-run-name-input" data-testid="run-name" value=name.clone() maxlength="200" aria-label="the run's new name"
                                            on:keydown={ let id = id_name.clone(); move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
                                                "Enter" => rename(id.clone(), event_target_value(&ev)),
                                                "Escape" => renaming.set(None),
                                                _ => {}
                                            } } />
                                    </Show>
                                    // The strategy by what differs from its defaults (a default acg spelled in full made the line wide).
                                    <span class="muted" title=run.strategy.clone()>{format!(" · {} · {} · {}", run.model, crate::engine::agent::strategy::short_label(&run.strategy), when(run.started_ms))}</span>
                                </div>
                                <div class="eval-run-line">
                                    {let (id, progress, finished) = (id.clone(), run.progress(), run.finished); move || if current.get().as_deref() == Some(id.as_str()) {
                                        view! { <span class="chip chip--run" data-testid="run-going">"running now: progress above"</span> }.into_any()
                                    } else {
                                        view! {
                                            <span data-testid="run-progress-line">{progress.clone()}</span>
                                            <span class=if finished { "chip chip--ok" } else { "chip chip--warn" }>{if finished { "finished" } else { "unfinished" }}</span>
                                        }.into_any()
                                    }}
                                    <button data-testid="run-open" on:click=move |_| open(id_open.clone())>"Open results"</button>
                                    {lab_of(&id).is_some().then(|| { let id = id.clone(); view! {
                                        <button data-testid="run-compare-lab" title="compare every run of this strategy lab on Results, paired against its first"
                                            on:click=move |_| compare_lab(id.clone())>"Compare the lab"</button>
                                    } })}
                                    {(!run.finished).then(|| view! {
                                        <button data-testid="run-resume" disabled=move || running.get() on:click=move |_| on_resume.run(id_resume.clone())>"Resume"</button>
                                    })}
                                    {(run.failed > 0).then(|| view! {
                                        <button data-testid="run-retry-failed" disabled=move || running.get() title="run again only the samples whose endpoint gave up"
                                            on:click=move |_| on_retry_failed.run(id_retry.clone())>{format!("Retry {} failed", run.failed)}</button>
                                    })}
                                    <button data-testid="run-rename" on:click=move |_| renaming.set(Some(id_rename.clone()))>"Rename"</button>
                                    <button data-testid="run-delete" class:danger=move || deleting.get().as_deref() == Some(id_deleting.as_str()) disabled=move || running.get()
                                        on:click=move |_| delete(id_delete.clone())>
                                        {let id = id.clone(); move || if deleting.get().as_deref() == Some(id.as_str()) { "Really delete?" } else { "Delete" }}
                                    </button>
                                </div>
                            </li>
                        }
                    }
                </For>
            </ul>
        </section>
    }
}
