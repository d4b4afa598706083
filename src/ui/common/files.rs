//! Opening dataset files: a button with a file picker, and a drop target covering the whole page while a
//! file is dragged over it. Both hand the file to `BrowseState::open_file` (read and parsed in the worker).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::state::{AppState, BrowseState};
use crate::web::files::{drags_files, dropped_file, picked_file};

/// Opens `file` and shows the browser, where its samples appear as they are read.
fn open(browse: BrowseState, file: web_sys::File) {
    browse.open_file(file);
    if !window().location().hash().unwrap_or_default().starts_with("#/browse") {
        let _ = window().location().set_hash("#/browse");
    }
}

/// "Open a dataset file…": a file picker for reference JSON and JSONL files.
#[component]
pub fn OpenFileButton() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let on_change = move |ev: leptos::ev::Event| {
        if let Some(file) = picked_file(&ev) {
            open(browse, file);
        }
    };
    view! {
        <label class="button open-file">
            "Open a dataset file…"
            <input type="file" id="open-dataset" accept=".json,.jsonl,application/json" on:change=on_change />
        </label>
    }
}

/// While a file is dragged over the page, an overlay says where it goes; dropping it anywhere opens it.
#[component]
pub fn DropZone() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let over = RwSignal::new(false);
    let drag_over = window_event_listener(leptos::ev::dragover, move |ev: web_sys::DragEvent| {
        if drags_files(&ev) {
            ev.prevent_default();
            over.set(true);
        }
    });
    let drag_leave = window_event_listener(leptos::ev::dragleave, move |ev: web_sys::DragEvent| {
        // Leaving the window (not moving between elements) has no related target.
        let related = ev.unchecked_ref::<web_sys::MouseEvent>().related_target();
        if related.is_none() {
            over.set(false);
        }
    });
    let drop = window_event_listener(leptos::ev::drop, move |ev: web_sys::DragEvent| {
        over.set(false);
        if let Some(file) = dropped_file(&ev) {
            ev.prevent_default();
            open(browse, file);
        }
    });
    // Where the page has a packs panel, the overlay says that packs go there (the panel rises above it).
    let pack_hint = move || {
        let panel = document().query_selector("[data-testid=\"pack-panel\"]").ok().flatten();
        panel.map(|_| view! { <br/><small>"A task pack goes on the Task packs panel"</small> })
    };
    on_cleanup(move || {
        drag_over.remove();
        drag_leave.remove();
        drop.remove();
    });
    view! {
        <Show when=move || over.get()>
            <div class="drop-zone" aria-hidden="true"><p>"Drop a dataset file (JSON or JSONL) to open it"{pack_hint}</p></div>
        </Show>
    }
}
