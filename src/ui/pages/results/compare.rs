//! Compare runs: several results files picked at once (`[data-testid="compare-files"]`), shown as one table
//! (`[data-testid="compare-table"]`, a `compare-row` per run) paired against the first file, the same table as
//! `arbigraph grade --compare`, with the runs' context curves (`svg[data-testid="context-curves"]`) and the
//! accuracy per topology with each run's difference from the baseline (`[data-testid="compare-topologies"]`), the
//! tokens and cost per run with their differences from the baseline (`[data-testid="compare-costs"]`, a
//! `compare-cost-row` per run, at the prices in `compare-price-in` and `compare-price-out`), the
//! samples that flipped (`[data-testid="flip"]`, fixed or broken against the baseline), each opening both
//! transcripts side by side (`[data-testid="flip-pair"]`). The files compared are the app's (`LabState::comparison`):
//! a strategy lab of Evaluate opens its runs here when it ends (the panel then comes into view), and leaving
//! Results and coming back shows the same comparison.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::app::results::compare::{compare_files, spend_table, CompareTable, Flip, RunSpend};
use crate::app::results::transcript::transcript_of;
use crate::ui::common::ErrorView;
use crate::ui::common::PriceFields;
use crate::ui::state::AppState;
use super::transcript::TranscriptView;
use crate::web::files::picked_texts;

/// Parses every picked file, refusing malformed JSON by name and position.
fn parse_all(files: Vec<(String, String)>) -> Result<Vec<(String, Value)>, String> {
    files
        .into_iter()
        .map(|(name, text)| {
            serde_json::from_str::<Value>(&text)
                .map(|json| (name.clone(), json))
                .map_err(|e| format!("{name}: malformed JSON at line {}, column {}: {e}", e.line(), e.column()))
        })
        .collect()
}

/// A column header that may wrap after a slash ("tokens/sample"), so a wide table narrows to the page.
fn breakable(header: &str) -> String {
    header.replace('/', "/\u{200B}")
}

/// The comparison panel.
#[component]
pub fn CompareRuns() -> impl IntoView {
    let table: RwSignal<Option<CompareTable>> = RwSignal::new(None);
    let error = RwSignal::new(String::new());
    // The files compared, for the transcripts of a flip, and the flip open (its place in the list).
    let files: StoredValue<Vec<(String, Value)>> = StoredValue::new(Vec::new());
    let open: RwSignal<Option<usize>> = RwSignal::new(None);
    let reveal = RwSignal::new(false);
    let comparison = expect_context::<AppState>().lab;
    // The app's files compared (a lab's, or those picked here before), shown as they change.
    Effect::new(move |_| {
        let Some(parsed) = comparison.comparison.get() else { return };
        match compare_files(&parsed) {
            Ok(t) => {
                error.set(String::new());
                open.set(None);
                files.set_value(parsed);
                table.set(Some(t));
            }
            Err(e) => error.set(e),
        }
    });
    let section = NodeRef::<leptos::html::Section>::new();
    Effect::new(move |_| {
        if let (true, Some(panel), true) = (comparison.reveal.get(), section.get(), table.with(Option::is_some)) {
            comparison.reveal.set(false);
            panel.scroll_into_view();
        }
    });
    let pick = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            // A refused pick leaves the table that was shown.
            match picked_texts(&ev).await.and_then(parse_all).and_then(|parsed| compare_files(&parsed).map(|_| parsed)) {
                Ok(parsed) => comparison.comparison.set(Some(parsed)),
                Err(e) => error.set(e),
            }
        });
    };
    view! {
        <section class="panel results-compare" id="results-compare" data-testid="compare-panel" node_ref=section>
            <h2>"Compare runs"</h2>
            <p>
                "Pick two or more results files of runs on the same instances (the first is the baseline): "
                <input type="file" multiple accept=".json" data-testid="compare-files" aria-label="Results files to compare" on:change=pick />
            </p>
            <ErrorView message=Signal::derive(move || error.get()) />
            {move || table.get().map(|t| view! {
                <div class="results-compare-scroll" tabindex="0" role="region" aria-label="Accuracy of each run against the baseline">
                    <table data-testid="compare-table">
                        <caption><span class="results-caption">"Accuracy of each run against the baseline (the first file)"</span></caption>
                        <thead><tr>{t.header.iter().map(|h| view! { <th scope="col">{breakable(h)}</th> }).collect_view()}</tr></thead>
                        <tbody>{t.rows.iter().map(|row| view! {
                            <tr data-testid="compare-row">{cells(row)}</tr>
                        }).collect_view()}</tbody>
                    </table>
                </div>
                {t.notes.iter().map(|n| view! { <p class="muted">{n.clone()}</p> }).collect_view()}
                <SpendTable runs=t.spend.clone() />
                {(!t.by_topology.1.is_empty()).then(|| view! {
                    <div class="results-compare-scroll" tabindex="0" role="region" aria-label="Accuracy of each run by topology">
                        <table data-testid="compare-topologies">
                            <caption><span class="results-caption">"Accuracy of each run by topology"</span></caption>
                            <thead><tr>{t.by_topology.0.iter().map(|h| view! { <th scope="col">{h.clone()}</th> }).collect_view()}</tr></thead>
                            <tbody>{t.by_topology.1.iter().map(|row| view! {
                                <tr data-testid="compare-topology-row">{cells(row)}</tr>
                            }).collect_view()}</tbody>
                        </table>
                    </div>
                })}
                {flip_list(&t.flips, files, open)}
                {t.curves.clone().map(|svg| view! {
                    <figure class="results-chart">
                        // Built by app::results::charts from numbers and escaped labels only; scrolls on a phone (focusable).
                        <div inner_html=svg tabindex="0" role="region" aria-label="Context curves of the runs"></div>
                        <figcaption>"Context curves: mean prompt tokens per turn, over the samples that reached the turn."</figcaption>
                    </figure>
                })}
            })}
            {move || {
                let flip = open.get().and_then(|at| table.with(|t| t.as_ref()?.flips.get(at).cloned()))?;
                let sides = files.with_value(|f| {
                    let side = |file: usize, index: usize| f.get(file).and_then(|(name, json)| Some((name.clone(), transcript_of(json.get("samples")?.get(index)?, index))));
                    Some((side(0, flip.baseline_index)?, side(flip.run, flip.index)?))
                })?;
                let ((base_name, base), (other_name, other)) = sides;
                Some(view! {
                    <div class="results-flip-pair" data-testid="flip-pair">
                        <div><h3 class="muted">{base_name}</h3><TranscriptView transcript=base open=open reveal=reveal /></div>
                        <div><h3 class="muted">{other_name}</h3><TranscriptView transcript=other open=open reveal=reveal /></div>
                    </div>
                })
            }}
        </section>
    }
}

/// A table row's cells: the first (the run or the topology) is the row's header, the rest data.
fn cells(row: &[String]) -> impl IntoView {
    row.iter()
        .enumerate()
        .map(|(i, cell)| if i == 0 { view! { <th scope="row">{cell.clone()}</th> }.into_any() } else { view! { <td>{cell.clone()}</td> }.into_any() })
        .collect_view()
}

/// Tokens and cost per run with their differences from the baseline, at prices typed here (the same prices as
/// Evaluate's estimate and budget).
#[component]
fn SpendTable(runs: Vec<RunSpend>) -> impl IntoView {
    let settings = expect_context::<AppState>().evaluation.settings;
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    let table = Memo::new(move |_| settings.with(|s| spend_table(&runs, &s.spend)));
    view! {
        <h3>"Tokens and cost"</h3>
        <p class="eval-settings">
            <PriceFields testids=("compare-price-in", "compare-price-out") problem=problem />
            <span class="muted">{move || if settings.with(|s| s.spend.priced()) { "" } else { " type prices to see what each run cost" }}</span>
            {move || problem.get().map(|p| view! { <span class="eval-param-error" role="alert">{p}</span> })}
        </p>
        <div class="results-compare-scroll" tabindex="0" role="region" aria-label="Tokens and cost of each run">
            <table data-testid="compare-costs">
                <caption><span class="results-caption">"Tokens and cost of each run, with the differences from the baseline"</span></caption>
                <thead><tr>{move || table.with(|(header, _)| header.iter().map(|h| view! { <th scope="col">{h.clone()}</th> }).collect_view())}</tr></thead>
                <tbody>{move || table.with(|(_, rows)| rows.iter().map(|row| view! {
                    <tr data-testid="compare-cost-row">{cells(row)}</tr>
                }).collect_view())}</tbody>
            </table>
        </div>
    }
}

/// The flipped samples, run by run, each a button that opens its pair of transcripts.
fn flip_list(flips: &[Flip], files: StoredValue<Vec<(String, Value)>>, open: RwSignal<Option<usize>>) -> impl IntoView {
    let names: Vec<String> = files.with_value(|f| f.iter().map(|(n, _)| n.clone()).collect());
    let count = |fixed: bool| flips.iter().filter(|f| f.fixed == fixed).count();
    let summary = if flips.is_empty() {
        "No sample changed its verdict between the runs.".to_string()
    } else {
        format!("{} samples flipped against the baseline: {} fixed, {} broken. Open one to read both transcripts side by side.", flips.len(), count(true), count(false))
    };
    view! {
        <p data-testid="flip-summary">{summary}</p>
        <ul class="results-flips">
            {flips.iter().enumerate().map(|(at, f)| {
                let run = names.get(f.run).cloned().unwrap_or_default();
                view! {
                    <li>
                        <button class="results-flip" class:results-flip--fixed=f.fixed data-testid="flip" data-fixed=f.fixed.to_string()
                            aria-pressed=move || (open.get() == Some(at)).to_string() on:click=move |_| open.set(Some(at))>
                            {format!("{} · {} in {run}", f.label, if f.fixed { "fixed" } else { "broken" })}
                        </button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
