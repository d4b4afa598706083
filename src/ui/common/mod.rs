//! Widgets shared by the pages: error display and role-coloured prompts.

use leptos::prelude::*;

use crate::engine::prompt::Prompt;

/// Shows an error message (nothing when `message` is empty).
#[component]
pub fn ErrorView(
    /// The message; empty hides the view.
    #[prop(into)]
    message: Signal<String>,
) -> impl IntoView {
    view! {
        <Show when=move || !message.get().is_empty()>
            <div class="error-view" role="alert">{move || message.get()}</div>
        </Show>
    }
}

/// A prompt with every span coloured by its role (instruction, input value, adapter, computation, output name).
#[component]
pub fn PromptView(
    /// The prompt to show.
    prompt: Prompt,
) -> impl IntoView {
    let pieces = prompt
        .pieces()
        .map(|(role, text)| view! { <span class=format!("role-{}", role.as_str())>{text.to_string()}</span> })
        .collect_view();
    view! { <pre class="prompt-view">{pieces}</pre> }
}

/// The colour legend for `PromptView`.
#[component]
pub fn RoleLegend() -> impl IntoView {
    view! {
        <p class="role-legend muted">
            "Roles: "
            <span class="role-instruction">"instruction"</span>" · "
            <span class="role-input_value">"input value"</span>" · "
            <span class="role-adapter">"adapter"</span>" · "
            <span class="role-computation">"task computation"</span>" · "
            <span class="role-output_name">"output name"</span>
        </p>
    }
}
