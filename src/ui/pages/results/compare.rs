//! Compare runs: several results files picked at once (`[data-testid="compare-files"]`), shown as one table
//! (`[data-testid="compare-table"]`, a `compare-row` per run) paired against the first file, the same table as
//! `arbigraph grade --compare`, with the runs' context curves (`svg[data-testid="context-curves"]`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::app::compare::{compare_files, CompareTable};
use crate::ui::common::ErrorView;
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

/// The comparison panel.
#[component]
pub fn CompareRuns() -> impl IntoView {
    let table: RwSignal<Option<CompareTable>> = RwSignal::new(None);
    let error = RwSignal::new(String::new());
    let pick = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            // A refused pick leaves the table that was shown.
            match picked_texts(&ev).await.and_then(parse_all).and_then(|files| compare_files(&files)) {
                Ok(t) => {
                    error.set(String::new());
                    table.set(Some(t));
                }
                Err(e) => error.set(e),
            }
        });
    };
    view! {
        <section class="panel results-compare">
            <h2>"Compare runs"</h2>
            <p>
                "Pick two or more results files of runs on the same instances (the first is the baseline): "
                <input type="file" multiple accept=".json" data-testid="compare-files" on:change=pick />
            </p>
            <ErrorView message=Signal::derive(move || error.get()) />
            {move || table.get().map(|t| view! {
                <div class="results-compare-scroll">
                    <table data-testid="compare-table">
                        <thead><tr>{t.header.iter().map(|h| view! { <th>{h.clone()}</th> }).collect_view()}</tr></thead>
                        <tbody>{t.rows.iter().map(|row| view! {
                            <tr data-testid="compare-row">{row.iter().map(|cell| view! { <td>{cell.clone()}</td> }).collect_view()}</tr>
                        }).collect_view()}</tbody>
                    </table>
                </div>
                {t.notes.iter().map(|n| view! { <p class="muted">{n.clone()}</p> }).collect_view()}
                {t.curves.clone().map(|svg| view! {
                    <figure class="results-chart">
                        // Built by app::charts from numbers and escaped labels only.
                        <div inner_html=svg></div>
                        <figcaption>"Context curves: mean prompt tokens per turn, over the samples that reached the turn."</figcaption>
                    </figure>
                })}
            })}
        </section>
    }
}
