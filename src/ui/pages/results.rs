//! Results: metrics of a results file (loaded here, or the latest run of the Evaluate page): accuracy with
//! Wilson intervals per topology × family and per target, tokens, turns, tool calls, statuses, per-node accuracy;
//! its samples, filtered, each opening its transcript with where its chain broke (`#/results?sample=N` opens
//! sample N); and several runs compared side by side.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::app::charts::{accuracy_chart, first_break_chart, mean_chart};
use crate::app::partial_run::{unfinished_note, RunState};
use crate::app::transcript::heat_map;
use crate::engine::grade::metrics::{group_means, metrics_csv, render_table, summarise, GroupCost};
use crate::engine::results::{epoch_report, grade_results_file, results_samples, GradeOptions};
use crate::ui::common::ErrorView;
use crate::ui::state::AppState;
use crate::web::download::download_text;
use crate::web::files::picked_text;

mod compare;
mod samples;
mod transcript;
use compare::CompareRuns;
use samples::SampleList;
use transcript::TranscriptPanel;

/// A chart of `app::charts` (built from numbers and escaped labels only) with its caption and an SVG export
/// button (`[data-testid=testid]`) that downloads it as `file`.
#[component]
fn ChartFigure(svg: String, file: &'static str, testid: &'static str, caption: &'static str, error: RwSignal<String>) -> impl IntoView {
    let export = svg.clone();
    view! {
        <figure class="results-chart">
            <div inner_html=svg></div>
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
    let hash = window().location().hash().ok()?;
    crate::app::form::query_pairs(crate::ui::route::hash_query(&hash)).into_iter().find(|(k, _)| k == "sample").and_then(|(_, v)| v.parse().ok())
}

/// What the metrics part of the page shows: the note on unfinished samples, the metrics table, the accuracy
/// chart and the figures as CSV.
struct Shown {
    note: Option<String>,
    text: String,
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
fn metrics_text(results: &Value, state: RunState) -> Result<Shown, String> {
    let graded = grade_results_file(results, GradeOptions::default()).map_err(|e| e.to_string())?;
    let total = results.get("samples").and_then(Value::as_array).map_or(0, Vec::len);
    let note = unfinished_note(graded.unfinished, total, state);
    // A run with nothing finished has no figures to show, only the note.
    let metrics = summarise(&graded.outcomes());
    let chart = (!metrics.by_group.is_empty()).then(|| accuracy_chart(&metrics.by_group));
    let nothing_finished = graded.samples.is_empty() && graded.unfinished > 0;
    let mut text = if nothing_finished { String::new() } else { render_table(&metrics) };
    for (index, reason) in &graded.unreadable {
        text.push_str(&format!("\nsamples[{index}] could not be read and was skipped: {reason}\n"));
    }
    let csv = (!nothing_finished).then(|| metrics_csv(&metrics));
    let breaks = first_break_chart(&metrics.first_breaks);
    let costs = [
        (mean_chart(&group_means(&metrics.costs, GroupCost::mean_tokens), "tokens-chart", "tokens"), "tokens.svg", "export-tokens", "Mean generated tokens per sample, by topology × family. "),
        (mean_chart(&group_means(&metrics.costs, GroupCost::mean_turns), "turns-chart", "turns"), "turns.svg", "export-turns", "Mean agent turns per sample, by topology × family. "),
    ]
    .into_iter()
    .filter_map(|(svg, file, testid, caption)| Some((svg?, file, testid, caption)))
    .collect();
    let epochs = epoch_report(results, &graded).map(|report| report.headline());
    let heat = results.get("samples").and_then(Value::as_array).and_then(|samples| heat_map(samples, &metrics.nodes));
    Ok(Shown { note, text, chart, breaks, epochs, heat, costs, csv })
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
    let follow = window_event_listener(leptos::ev::hashchange, move |_| {
        if let Some(index) = linked_sample() {
            open.set(Some(index));
            reveal.set(true);
        }
    });
    on_cleanup(move || follow.remove());
    let load = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match picked_text(&ev).await {
                Ok((name, text)) => match serde_json::from_str::<Value>(&text) {
                    // A file that is not a results file is refused with its name; what was shown stays. The
                    // metrics grade it once it is shown.
                    Ok(json) => match results_samples(&json).map(drop) {
                        Ok(_) => {
                            error.set(String::new());
                            source.set(name);
                            open.set(None);
                            state.results.set(Some(json));
                        }
                        Err(e) => error.set(format!("{name}: {e}")),
                    },
                    Err(e) => error.set(format!("{name}: malformed JSON at line {}, column {}: {e}", e.line(), e.column())),
                },
                Err(e) => error.set(e),
            }
        });
    };
    view! {
        <section class="page page-results" id="page-results">
            <h1>"Results"</h1>
            <p>
                "Load a results file (ours or the reference's): "
                <input id="results-file" data-testid="results-file" type="file" accept=".json" on:change=load />
                <span class="muted">{move || if source.get().is_empty() { String::new() } else { format!(" showing {}", source.get()) }}</span>
            </p>
            <ErrorView message=Signal::derive(move || error.get()) />
            {move || {
                let run_state = if state.evaluation.running.get() { RunState::Running } else { RunState::Stopped };
                match state.results.with(|results| results.as_ref().map(|results| metrics_text(results, run_state))) {
                None => view! { <p class="muted">"No results yet: run an evaluation or load a file."</p> }.into_any(),
                Some(metrics) => match metrics {
                    Ok(Shown { note, text, chart, breaks, epochs, heat, costs, csv }) => view! {
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
                        {(!text.is_empty()).then(|| view! { <pre class="prompt-view" id="results-metrics">{text}</pre> })}
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
