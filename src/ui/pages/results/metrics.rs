//! Results' own metrics drawn as tables (`#results-metrics`, `[data-testid="results-metrics"]`): one `<table>`
//! per `app::results::metrics_tables::MetricsTable`, each with its `<caption>`, `<th scope="col">` column headers and
//! the row's `<th scope="row">`, in a container that scrolls sideways when the table is wider than the screen;
//! then the samples that could not be read. The rows are worked out natively; this only draws them.

use leptos::prelude::*;

use crate::app::results::metrics_tables::MetricsTable;

/// The metrics tables and the notes on unreadable samples.
#[component]
pub fn MetricsTables(tables: Vec<MetricsTable>, notes: Vec<String>) -> impl IntoView {
    view! {
        <div class="results-metrics" id="results-metrics" data-testid="results-metrics">
            {tables.into_iter().map(|t| view! {
                <div class="results-table-scroll" tabindex="0" role="region" aria-label=t.caption.clone()>
                    <table data-testid=t.testid>
                        // The caption's text stays in view, and wraps to the screen, while the table scrolls under it.
                        <caption><span class="results-caption">{t.caption.clone()}</span></caption>
                        <thead><tr>{t.header.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}</tr></thead>
                        <tbody>{t.rows.into_iter().map(|row| view! {
                            <tr>{row.into_iter().enumerate().map(|(i, cell)| if i == 0 {
                                view! { <th scope="row">{cell}</th> }.into_any()
                            } else {
                                view! { <td>{cell}</td> }.into_any()
                            }).collect_view()}</tr>
                        }).collect_view()}</tbody>
                    </table>
                </div>
            }).collect_view()}
            {notes.into_iter().map(|n| view! { <p class="results-unreadable" role="note">{n}</p> }).collect_view()}
        </div>
    }
}
