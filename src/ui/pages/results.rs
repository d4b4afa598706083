//! The Results page.

use leptos::prelude::*;

/// The Results page.
#[component]
pub fn ResultsPage() -> impl IntoView {
    view! {
        <section class="page page-results" id="page-results">
            <h1>"Results"</h1>
        </section>
    }
}
