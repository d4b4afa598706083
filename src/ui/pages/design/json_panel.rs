//! The node-link JSON panel: the graph as text, kept in step with the canvas while open; typing a graph
//! that parses replaces the canvas's (one undoable step), one that does not lists its located errors.

use leptos::prelude::*;

use crate::ui::state::AppState;

/// The collapsible JSON panel.
#[component]
pub fn JsonPanel() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let toggle = move |ev: leptos::ev::Event| {
        let open = event_target::<web_sys::HtmlDetailsElement>(&ev).open();
        design.json_open.set(open);
        if open {
            design.refresh_json();
        }
    };
    view! {
        <details class="design-json" id="design-json-panel" on:toggle=toggle>
            <summary>"Node-link JSON (the file format of "<code>"arbigraph generate --topology custom"</code>")"</summary>
            <textarea id="design-json" rows="18" spellcheck="false" aria-label="Node-link JSON"
                prop:value=move || design.json_text.get()
                on:input=move |ev| design.edit_json(event_target_value(&ev))></textarea>
        </details>
    }
}
