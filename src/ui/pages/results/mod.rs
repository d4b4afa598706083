//! Results: metrics of a results file (loaded here, or the latest run of the Evaluate page): accuracy with
//! Wilson intervals per topology × family and per target, tokens, turns, tool calls, statuses, per-node accuracy;
//! its samples, filtered, each opening its transcript (an Inspect AI log picked or dropped opens as a results file, read by the worker with `app::results::data::results_text`) with where its chain broke (`#/results?sample=N` opens
//! sample N); and several runs compared side by side. A picked file opens a slice at a time (`app::results::data`)
//! with its progress (`[data-testid="results-opening"]`); the site's results files are listed and open by link
//! (`#/results?file=NAME`).

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::app::results::charts::{accuracy_chart, first_break_chart, mean_chart};
use crate::app::evaluate::partial_run::{unfinished_note, RunState};
use crate::app::jobs::JobRequest;
use crate::app::results::data::{Opening, ResultsData, Step};
use crate::app::results::metrics_tables::{metrics_tables, MetricsTable};
use crate::app::results::transcript::heat_map;
use crate::engine::dataset::site::{SiteIndex, INDEX_PATH};
use crate::engine::grade::metrics::{group_means, metrics_csv, GroupCost};
use crate::engine::results::{epoch_report, looks_like_inspect_log, INSPECT_HEAD_BYTES};
use crate::ui::common::ErrorView;
use crate::ui::state::{AppState, SiteStatus};
use crate::web::download::download_text;
use crate::web::files::{drags_files, dropped_file, fetch_text, file_head, file_text, picked_file};
use crate::web::link_param;
use crate::web::worker::ask_file;

mod compare;
mod metrics;
mod samples;
mod site;
mod transcript;
use compare::CompareRuns;
use metrics::MetricsTables;
use samples::SampleList;
use site::SiteResultsList;
use transcript::TranscriptPanel;

/// A chart of `app::results::charts` (built from numbers and escaped labels only) with its caption and an SVG export
/// button (`[data-testid=testid]`) that downloads it as `file`.
#[component]
fn ChartFigure(svg: String, file: &'static str, testid: &'static str, caption: &'static str, error: RwSignal<String>) -> impl IntoView {
    let export = svg.clone();
    view! {
        <figure class="results-chart">
            // Focusable: on a phone the chart scrolls inside it rather than shrink its text under 11 px.
            <div inner_html=svg tabindex="0" role="region" aria-label=caption></div>
            <figcaption>{caption}
                <button data-testid=testid on:click=move |_| {
                    if let Err(e) = download_text(file, "image/svg+xml", &export) { error.set(e.to_string()) }
                }>"Export SVG"</button>
            </figcaption>
        </figure>
    }
}

/// The sample a link asks for (`#/results?sample=3`).
fn linked_sample() -> Option<usize> {
    link_param("sample").and_then(|v| v.parse().ok())
}

/// The file (relative to the index) of the site's results file `name`, or why there is none.
fn site_results(index: &SiteIndex, name: &str) -> Result<String, String> {
    match index.results.iter().find(|r| r.name == name) {
        Some(entry) => Ok(entry.file.clone()),
        None if index.results.is_empty() => Err(format!("the link names results file `{name}`, but this site publishes none")),
        None => Err(format!(
            "the link names results file `{name}`, which this site does not publish (it has {})",
            index.results.iter().map(|r| format!("`{}`", r.name)).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// What the metrics part of the page shows: the note on unfinished samples, the metrics tables, the accuracy
/// chart and the figures as CSV.
struct Shown {
    note: Option<String>,
    /// The metrics as tables (none when nothing finished).
    tables: Vec<MetricsTable>,
    /// The samples that could not be read, each with why.
    unreadable: Vec<String>,
    chart: Option<String>,
    /// Where chains first broke, per output.
    breaks: Option<String>,
    /// The epochs line (mean accuracy, pass^k, pass@k) of a run of several attempts per sample.
    epochs: Option<String>,
    /// Per-node accuracy on the largest instance's graph.
    heat: Option<String>,
    /// Mean tokens and mean turns per topology × family, when samples record them.
    costs: Vec<(String, &'static str, &'static str, &'static str)>,
    csv: Option<String>,
}

/// Grades every sample as stored (no replay) and makes what the metrics part shows.
fn metrics_text(data: &ResultsData, state: RunState) -> Result<Shown, String> {
    let results = data.json();
    let graded = data.graded().file.as_ref().map_err(Clone::clone)?;
    let total = results.get("samples").and_then(Value::as_array).map_or(0, Vec::len);
    let note = unfinished_note(graded.unfinished, total, state);
    // A run with nothing finished has no figures to show, only the note.
    let metrics = &data.graded().metrics;
    let chart = (!metrics.by_group.is_empty()).then(|| accuracy_chart(&metrics.by_group));
    let nothing_finished = graded.samples.is_empty() && graded.unfinished > 0;
    let tables = if nothing_finished { Vec::new() } else { metrics_tables(metrics) };
    let unreadable = graded.unreadable.iter().map(|(index, reason)| format!("samples[{index}] could not be read and was skipped: {reason}")).collect();
    let csv = (!nothing_finished).then(|| metrics_csv(metrics));
    let breaks = first_break_chart(&metrics.first_breaks);
    let costs = [
        (mean_chart(&group_means(&metrics.costs, GroupCost::mean_tokens), "tokens-chart", "tokens"), "tokens.svg", "export-tokens", "Mean generated tokens per sample, by topology × family. "),
        (mean_chart(&group_means(&metrics.costs, GroupCost::mean_turns), "turns-chart", "turns"), "turns.svg", "export-turns", "Mean agent turns per sample, by topology × family. "),
    ]
    .into_iter()
    .filter_map(|(svg, file, testid, caption)| Some((svg?, file, testid, caption)))
    .collect();
    let epochs = epoch_report(results, graded).map(|report| report.headline());
    let heat = results.get("samples").and_then(Value::as_array).and_then(|samples| heat_map(samples, &metrics.nodes));
    Ok(Shown { note, tables, unreadable, chart, breaks, epochs, heat, costs, csv })
}

/// The Results page.
#[component]
pub fn ResultsPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let error = RwSignal::new(String::new());
    let source = RwSignal::new(String::new());
    // The sample whose transcript is open; a link's sample is also scrolled to once it is drawn.
    let open: RwSignal<Option<usize>> = RwSignal::new(linked_sample());
    let reveal = RwSignal::new(open.get_untracked().is_some());
    // A results file of the site a link names (`#/results?file=NAME`), until it is fetched.
    let wanted: RwSignal<Option<String>> = RwSignal::new(link_param("file"));
    let follow = window_event_listener(leptos::ev::hashchange, move |_| {
        if let Some(name) = link_param("file").filter(|name| *name != source.get_untracked()) {
            wanted.set(Some(name));
        } else if let Some(index) = linked_sample() {
            open.set(Some(index));
            reveal.set(true);
        }
    });
    on_cleanup(move || follow.remove());
    // The file being opened (its name, and units done of total); a newer one abandons it.
    let opening: RwSignal<Option<(String, usize, usize)>> = RwSignal::new(None);
    let generation = StoredValue::new(0u64);
    // Opens a file's text a slice at a time and shows it with the transcript of `sample` open. A file that is not
    // a results file is refused with its name; what was shown stays.
    let open_text = move |name: String, text: String, sample: Option<usize>| {
        generation.update_value(|g| *g += 1);
        let id = generation.get_value();
        error.set(String::new());
        opening.set(Some((name.clone(), 0, 0)));
        open_in_slices(Opening::new(name.clone(), text), move |step| {
            if generation.get_value() != id {
                return false;
            }
            match step {
                Step::Working { done, total } => opening.set(Some((name.clone(), done, total))),
                Step::Failed(e) => {
                    opening.set(None);
                    error.set(e);
                }
                // Drawn in a task of its own, so the last slice and the drawing never add up to one long task.
                Step::Opened(data) => {
                    let name = name.clone();
                    crate::web::soon::soon(move || {
                        if generation.get_value() != id {
                            return;
                        }
                        opening.set(None);
                        source.set(name);
                        open.set(sample);
                        reveal.set(sample.is_some());
                        state.results.set(Some(Arc::new(*data)));
                    });
                }
            }
            true
        });
    };
    // A file picked or dropped: a results file, or an Inspect AI log read into one by the worker (`ReadResults`).
    let load_file = move |file: Option<web_sys::File>| {
        // A file picked while another is read abandons it.
        generation.update_value(|g| *g += 1);
        let id = generation.get_value();
        spawn_local(async move {
            let read = match file {
                Some(file) => {
                    let name = file.name();
                    // Its first bytes tell an Inspect log; the worker holds the log reader and reads the file
                    // where it runs, so the page reads the rest only of a results file.
                    match file_head(&file, INSPECT_HEAD_BYTES).await {
                        Ok(head) if looks_like_inspect_log(&head) => {
                            let request = JobRequest::ReadResults { name: name.clone(), bytes: Vec::new() };
                            ask_file(request, Some(file.into())).await.map(|text| (name, text))
                        }
                        Ok(_) => file_text(&file).await.map(|text| (name, text)),
                        Err(e) => Err(e),
                    }
                }
                None => Err("no file picked".to_string()),
            };
            match read {
                Ok((name, text)) if generation.get_value() == id => {
                    // The link no longer says what is shown: a site file's link must open it again when followed.
                    if link_param("file").is_some() {
                        if let Ok(history) = window().history() {
                            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#/results"));
                        }
                    }
                    open_text(name, text, None)
                }
                Ok(_) => {}
                Err(e) => error.set(e),
            }
        });
    };
    let load = move |ev: leptos::ev::Event| load_file(picked_file(&ev));
    let drop_file = move |ev: leptos::ev::DragEvent| {
        if drags_files(&ev) {
            ev.prevent_default();
            load_file(dropped_file(&ev));
        }
    };
    let drag_over = move |ev: leptos::ev::DragEvent| {
        if drags_files(&ev) {
            ev.prevent_default();
        }
    };
    // A link's file is fetched once the site's index is read.
    Effect::new(move |_| {
        let Some(name) = wanted.get() else { return };
        let found = state.browse.site.with(|site| match site {
            SiteStatus::Looking => None,
            SiteStatus::Found(index) => Some(site_results(index, &name)),
            SiteStatus::Absent => Some(Err(format!("the link names results file `{name}` of a site, but this page has no site index ({INDEX_PATH})"))),
            SiteStatus::Broken(_) => Some(Err(format!("the link names results file `{name}`, but the site's index is broken (see Browse)"))),
        });
        let Some(found) = found else { return };
        wanted.set(None);
        match found {
            Err(e) => error.set(e),
            Ok(file) => {
                // A file picked while this one is fetched wins.
                generation.update_value(|g| *g += 1);
                let id = generation.get_value();
                opening.set(Some((name.clone(), 0, 0)));
                spawn_local(async move {
                    let fetched = fetch_text(&format!("datasets/{file}")).await;
                    if generation.get_value() != id {
                        return;
                    }
                    match fetched {
                        Ok(Some(text)) => open_text(name, text, linked_sample()),
                        Ok(None) => {
                            opening.set(None);
                            error.set(format!("results file `{name}`: datasets/{file} is listed but missing from the site"));
                        }
                        Err(e) => {
                            opening.set(None);
                            error.set(format!("results file `{name}`: {e}"));
                        }
                    }
                });
            }
        }
    });
    view! {
        <section class="page page-results" id="page-results" on:dragover=drag_over on:drop=drop_file>
            <h1>"Results"</h1>
            <p>
                "Load or drop a results file (ours or the reference's) or an Inspect AI log of the ArbiGraph task (.eval or .json): "
                <input id="results-file" data-testid="results-file" aria-label="Results file or Inspect log" type="file" accept=".json,.eval" on:change=load />
                <span class="muted">{move || if source.get().is_empty() { String::new() } else { format!(" showing {}", source.get()) }}</span>
            </p>
            {move || opening.get().map(|(name, done, total)| view! {
                <p class="results-opening" data-testid="results-opening" role="status">
                    <progress max=total.max(1) value=done></progress>
                    {format!(" Opening {name}: {}", if total == 0 { "reading the file…".to_string() } else { format!("{}%", done * 100 / total.max(1)) })}
                </p>
            })}
            <ErrorView message=Signal::derive(move || error.get()) />
            <SiteResultsList shown=source />
            {move || {
                let run_state = if state.evaluation.running.get() { RunState::Running } else { RunState::Stopped };
                match state.results.with(|results| results.as_ref().map(|results| metrics_text(results, run_state))) {
                None => view! { <p class="muted">"No results yet: run an evaluation or load a file."</p> }.into_any(),
                Some(metrics) => match metrics {
                    Ok(Shown { note, tables, unreadable, chart, breaks, epochs, heat, costs, csv }) => view! {
                        {epochs.map(|line| view! { <p class="results-epochs" data-testid="epoch-report" title="pass^k: instances every attempt got right; pass@k: instances some attempt got right">{line}</p> })}
                        {note.map(|note| view! { <p class="results-note" data-testid="results-note" role="status">{note}</p> })}
                        {chart.map(|svg| view! {
                            <ChartFigure svg=svg file="accuracy.svg" testid="export-chart" error=error
                                caption="Accuracy by topology × family, with Wilson 95% intervals. " />
                        })}
                        {breaks.map(|svg| view! {
                            <ChartFigure svg=svg file="first-breaks.svg" testid="export-first-breaks" error=error
                                caption="Where chains first broke: samples whose first wrong or missing output, with every input correct, was this task's. " />
                        })}
                        {heat.map(|svg| view! {
                            <div class="results-heat" data-testid="node-heat-map">
                                <ChartFigure svg=svg file="node-accuracy.svg" testid="export-heat-map" error=error
                                    caption="Accuracy of each node's output over every sample that graded it, on the largest instance's graph: red 0%, green 100%. " />
                            </div>
                        })}
                        {costs.into_iter().map(|(svg, file, testid, caption)| view! { <ChartFigure svg=svg file=file testid=testid error=error caption=caption /> }).collect_view()}
                        {(!tables.is_empty() || !unreadable.is_empty()).then(|| view! { <MetricsTables tables=tables notes=unreadable /> })}
                        {csv.map(|csv| view! {
                            <p>
                                <button data-testid="export-csv" on:click=move |_| {
                                    if let Err(e) = download_text("accuracy.csv", "text/csv", &csv) { error.set(e.to_string()) }
                                }>"Export CSV"</button>
                                <span class="muted">" accuracy with Wilson 95% intervals: the run, each topology × family, each target task and each graded node"</span>
                            </p>
                        })}
                    }.into_any(),
                    Err(e) => view! { <div class="error-view">{e}</div> }.into_any(),
                },
            }}}
            <Show when=move || state.results.with(Option::is_some)>
                <SampleList open=open />
                <TranscriptPanel open=open reveal=reveal />
            </Show>
            <CompareRuns />
        </section>
    }
}

/// Longest slice of opening a file, in milliseconds: under the 50 ms a task may take before the browser counts
/// it as long, so input and painting go on while a large file opens.
const SLICE_MS: f64 = 40.0;

/// Opens a file one slice per task, handing each slice's step to `report`; stops when `report` returns false
/// (a newer file was picked) or the opening ends.
fn open_in_slices(mut opening: Opening, mut report: impl FnMut(Step) -> bool + 'static) {
    let now = js_sys::Date::now;
    let deadline = now() + SLICE_MS;
    let step = opening.step(&mut || now() < deadline);
    let working = matches!(step, Step::Working { .. });
    if report(step) && working {
        crate::web::soon::soon(move || open_in_slices(opening, report));
    }
}

