//! The Generate and browse instances page.

use leptos::prelude::*;

/// The Generate and browse instances page.
#[component]
pub fn GeneratePage() -> impl IntoView {
    view! {
        <section class="page page-generate" id="page-generate">
            <h1>"Generate and browse instances"</h1>
        </section>
    }
}
