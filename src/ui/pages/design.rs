//! The Design a task graph page.

use leptos::prelude::*;

/// The Design a task graph page.
#[component]
pub fn DesignPage() -> impl IntoView {
    view! {
        <section class="page page-design" id="page-design">
            <h1>"Design a task graph"</h1>
        </section>
    }
}
