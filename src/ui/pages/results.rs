//! Results: metrics of a results file (loaded here, or the latest run of the Evaluate page): accuracy with
//! Wilson intervals per topology × family and per target, tokens, turns, tool calls, statuses, per-node accuracy.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::engine::grade::metrics::{render_table, summarise};
use crate::engine::results::{grade_results_file, GradeOptions};
use crate::ui::common::ErrorView;
use crate::ui::state::AppState;
use crate::web::files::picked_text;

/// Grades every sample as stored (no replay) and renders the metrics table.
fn metrics_text(results: &Value) -> Result<String, String> {
    let graded = grade_results_file(results, GradeOptions::default()).map_err(|e| e.to_string())?;
    let mut text = render_table(&summarise(&graded.outcomes()));
    if graded.unfinished > 0 {
        text.push_str(&format!("\n{} sample(s) not finished yet (not graded)\n", graded.unfinished));
    }
    for (index, reason) in &graded.unreadable {
        text.push_str(&format!("\nsamples[{index}] could not be read and was skipped: {reason}\n"));
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
