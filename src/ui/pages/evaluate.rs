//! The Evaluate an agent page.

use leptos::prelude::*;

/// The Evaluate an agent page.
#[component]
pub fn EvaluatePage() -> impl IntoView {
    view! {
        <section class="page page-evaluate" id="page-evaluate">
            <h1>"Evaluate an agent"</h1>
        </section>
    }
}
