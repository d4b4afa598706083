//! Results: metrics of a results file (loaded here, or the latest run of the Evaluate page): accuracy with
//! Wilson intervals per topology × family and per target, tokens, turns, tool calls, statuses, per-node accuracy.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::engine::grade::grade_result_sample;
use crate::engine::grade::metrics::{outcome_of, render_table, summarise};
use crate::ui::common::ErrorView;
use crate::ui::state::AppState;
use crate::web::files::picked_text;

/// Grades every sample as stored (no replay) and renders the metrics table.
fn metrics_text(results: &Value) -> Result<String, String> {
    let samples = results.get("samples").and_then(Value::as_array).ok_or("the file has no `samples` list")?;
    let mut outcomes = Vec::with_capacity(samples.len());
    let mut skipped = 0;
    for (i, sample) in samples.iter().enumerate() {
        match grade_result_sample(sample, i, false, false) {
            Ok((grade, _)) => outcomes.push(outcome_of(sample, &grade)),
            Err(_) => skipped += 1,
        }
    }
    let mut text = render_table(&summarise(&outcomes));
    if skipped > 0 {
        text.push_str(&format!("\n{skipped} sample(s) could not be read and were skipped\n"));
    }
    Ok(text)
}

/// The Results page.
#[component]
pub fn ResultsPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let error = RwSignal::new(String::new());
    let source = RwSignal::new(String::new());
    let load = move |ev: leptos::ev::Event| {
        spawn_local(async move {
            match picked_text(&ev).await {
                Ok((name, text)) => match serde_json::from_str::<Value>(&text) {
                    Ok(json) => {
                        source.set(name);
                        state.results.set(Some(json));
                    }
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
                <input id="results-file" type="file" accept=".json" on:change=load />
                <span class="muted">{move || if source.get().is_empty() { String::new() } else { format!(" showing {}", source.get()) }}</span>
            </p>
            <ErrorView message=Signal::derive(move || error.get()) />
            {move || match state.results.get() {
                None => view! { <p class="muted">"No results yet: run an evaluation or load a file."</p> }.into_any(),
                Some(results) => match metrics_text(&results) {
                    Ok(text) => view! { <pre class="prompt-view" id="results-metrics">{text}</pre> }.into_any(),
                    Err(e) => view! { <div class="error-view">{e}</div> }.into_any(),
                },
            }}
        </section>
    }
}
