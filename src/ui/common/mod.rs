//! Widgets shared by the pages: error display, role-coloured prompts, messages with code spans, how a file's
//! size reads, opening dataset files (`files`), a job's progress (`progress`), the price fields (`spend`) and
//! the graph outline (`outline`) and the task packs panel (`packs`).
//! A page never imports another page: what two pages share lives here.

mod files;
mod outline;
mod packs;
mod progress;
mod spend;

pub use files::{DropZone, OpenFileButton};
pub use outline::GraphOutline;
pub use packs::PackPanel;
pub use progress::RunProgress;
pub use spend::{spend_field, PriceFields};

use leptos::prelude::*;

/// A file's size as the pages show it: `1.2 MB`, `340 kB`.
pub fn file_size(bytes: u64) -> String {
    if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{} kB", bytes.div_ceil(1000))
    }
}

/// `text` with its `backquoted` spans shown as code, the rest as text nodes; an unpaired backquote stays as
/// it is. Messages name headers, flags and paths this way.
pub fn with_code(text: &str) -> impl IntoView {
    let pieces: Vec<String> = text.split('`').map(str::to_string).collect();
    let unpaired = pieces.len() % 2 == 0;
    let last = pieces.len() - 1;
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, piece)| match (i % 2 == 1, unpaired && i == last) {
            (true, false) => view! { <code>{piece}</code> }.into_any(),
            (true, true) => format!("`{piece}").into_any(),
            (false, _) => piece.into_any(),
        })
        .collect_view()
}

/// A sentence of the form "what changed: why", the change first and the reason muted after it.
pub fn sentence(text: &str) -> impl IntoView {
    match text.split_once(": ") {
        Some((what, why)) => view! {
            <span class="sentence-what">{with_code(what)}</span><span class="sentence-why">": "{with_code(why)}</span>
        }
        .into_any(),
        None => view! { <span class="sentence-what">{with_code(text)}</span> }.into_any(),
    }
}

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
/// The text is shown as text nodes only.
#[component]
pub fn PromptView(
    /// The prompt's text.
    text: String,
    /// Its roles, run-length encoded (role name, characters), as `app::jobs::roles_of` makes them.
    roles: Vec<(String, u32)>,
) -> impl IntoView {
    let mut chars = text.chars();
    let mut pieces: Vec<(String, String)> = roles.into_iter().map(|(role, n)| (role, chars.by_ref().take(n as usize).collect())).collect();
    let rest: String = chars.collect();
    if !rest.is_empty() {
        pieces.push(("instruction".into(), rest));
    }
    let pieces = pieces.into_iter().map(|(role, text)| view! { <span class=format!("role-{role}")>{text}</span> }).collect_view();
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
