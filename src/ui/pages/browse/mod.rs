//! Browse: the instance browser over whatever is generated, opened or hosted. A dataset picker (and a static
//! site's dataset list), filters, the virtualised list and the instance view; keys j/k or arrows move, Enter
//! opens, Escape closes. The address (`#/browse?…`, `app::browse::url`) carries the dataset, the filters and the
//! open instance: it is followed when the page opens and on back and forward (`AppState::follow_browse_address`).

mod datasets;
mod filters;
mod graph;
mod instance;
mod list;
mod pictures;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::browse::catalog::{index_at, position_of};
use crate::app::list_window::ListKey;
use crate::ui::common::{DropZone, ErrorView, OpenFileButton, RunProgress};
use crate::ui::state::{AppState, BrowseState};

use datasets::{DatasetPicker, SiteDatasets};
use filters::Filters;
use instance::InstanceView;
use list::{geometry, InstanceList};

/// True when a key press belongs to a text field, not to the list.
fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    let tag = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|e| e.tag_name()).unwrap_or_default();
    matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") || ev.ctrl_key() || ev.meta_key() || ev.alt_key()
}

/// Moves the selection or opens/closes the instance view.
fn on_key(browse: BrowseState, ev: web_sys::KeyboardEvent) {
    if typing(&ev) || browse.current.get_untracked().is_none() {
        return;
    }
    let Some(key) = ListKey::of(&ev.key()) else { return };
    ev.prevent_default();
    match key {
        ListKey::Open => browse.open_selected(),
        ListKey::Close => browse.close(),
        _ => {
            let g = geometry(browse, window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(600.0) * 0.6);
            let selected = browse.selected.get_untracked();
            let position = browse.view.with_untracked(|v| selected.and_then(|s| position_of(v.as_deref(), s)));
            if let Some(next) = key.apply(position, g.count, g.page_rows()).and_then(|p| browse.view.with_untracked(|v| index_at(v.as_deref(), p))) {
                browse.select(next);
            }
        }
    }
}

/// The Browse page.
#[component]
pub fn BrowsePage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let browse = state.browse;
    let follow = move || {
        let hash = window().location().hash().unwrap_or_default();
        if hash.starts_with("#/browse") {
            state.follow_browse_address(&hash);
        }
    };
    follow();
    // Back and forward fire `popstate`, an edited address `hashchange` (following twice changes nothing).
    let history = window_event_listener(leptos::ev::popstate, move |_| follow());
    let edited = window_event_listener(leptos::ev::hashchange, move |_| follow());
    on_cleanup(move || {
        history.remove();
        edited.remove();
    });
    let keys = window_event_listener(leptos::ev::keydown, move |ev| on_key(browse, ev));
    on_cleanup(move || keys.remove());
    let generation = state.generation;
    view! {
        <section class="page page-browse" id="page-browse">
            <DropZone />
            <div class="browse-head">
                <h1>"Browse instances"</h1>
                <DatasetPicker />
                <OpenFileButton />
            </div>
            <ErrorView message=Signal::derive(move || browse.error.get()) />
            <p class="muted browse-notice" id="browse-notice">{move || browse.notice.get()}</p>
            {move || browse.opening.get().map(|(name, done, total)| view! { <p class="muted">{format!("reading {name}… {done} / {total} samples")}</p> })}
            <RunProgress progress=generation.progress unit="samples generated" />
            <SiteDatasets />
            <Show when=move || browse.current.get().is_some() fallback=|| view! { <Empty /> }>
                <Filters />
                <div class="browse-body" class:browse-body--open=move || browse.open.get()>
                    <InstanceList />
                    <Show when=move || browse.open.get()>
                        <InstanceView />
                    </Show>
                </div>
                <p class="muted browse-keys">"Keys: j / k or ↓ / ↑ move, Page Up / Down, Home / End, Enter opens, Escape closes."</p>
            </Show>
        </section>
    }
}

/// What the page says before there is anything to browse.
#[component]
fn Empty() -> impl IntoView {
    view! {
        <div class="panel browse-empty">
            <p>"Nothing to browse yet. "<a href="#/generate">"Generate samples"</a>", open a dataset file (reference JSON or JSONL, or drop it anywhere on this page), or pick a dataset of this site above."</p>
        </div>
    }
}
