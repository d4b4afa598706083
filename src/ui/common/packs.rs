//! Bringing task packs (`ui::state::PackState`): pick a LeetCode pool or GSM-Symbolic templates (files or a
//! folder), or drop them on the panel; the packs loaded are listed with their tasks' kinds and the entries
//! refused with why. Shown on Generate and, compact, in the designer's palette.

use leptos::prelude::*;

use crate::ui::state::{AppState, PackState};
use crate::web::files::{drags_files, dropped_files, picked_texts, texts_of};

/// Reads what a picker or a drop brought and hands it to the packs.
fn bring_later(packs: PackState, read: impl std::future::Future<Output = Result<Vec<(String, String)>, String>> + 'static) {
    leptos::task::spawn_local(async move {
        match read.await {
            Ok(files) if files.is_empty() => {}
            Ok(files) => packs.bring(files),
            Err(e) => packs.error.set(Some(e)),
        }
    });
}

/// The packs panel: pickers, a drop target, what is loaded and what was refused.
#[component]
pub fn PackPanel(
    /// The palette's short form: the pickers and the loaded packs' names, without the refusals.
    #[prop(optional)]
    compact: bool,
) -> impl IntoView {
    let packs = expect_context::<AppState>().packs;
    let over = RwSignal::new(false);
    let on_drag_over = move |ev: web_sys::DragEvent| {
        if drags_files(&ev) {
            ev.prevent_default();
            ev.stop_propagation();
            over.set(true);
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        over.set(false);
        let files = dropped_files(&ev);
        if files.is_empty() {
            return;
        }
        // The page's own drop target opens datasets: a pack dropped here is not one.
        ev.prevent_default();
        ev.stop_propagation();
        bring_later(packs, texts_of(files));
    };
    // `webkitdirectory` (a folder picker, in every current browser) has no typed attribute here.
    let folder = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let on_pick = move |ev: leptos::ev::Event| bring_later(packs, async move { picked_texts(&ev).await });
    let loaded = move || {
        packs.loaded.get().into_iter().map(|pack| {
            let kind = pack.source.kind.clone();
            let remove_kind = kind.clone();
            let summary = pack.summary;
            let head = format!("{kind}: {} tasks from {}", summary.tasks.len(), pack.source.origin);
            let detail = (!compact).then(|| {
                let refused = summary.refused.clone();
                view! {
                    <span class="pack-kinds muted">{summary.signatures()}</span>
                    {(!refused.is_empty()).then(|| view! {
                        <details class="pack-refused" data-testid="pack-refused">
                            <summary>{format!("{} refused", refused.len())}</summary>
                            <ul>{refused.into_iter().map(|r| view! { <li><code>{r.name}</code>" ("{r.location}"): "{r.reason}</li> }).collect_view()}</ul>
                        </details>
                    })}
                }
            });
            view! {
                <li class="pack-loaded" data-testid="pack-loaded" data-kind=kind.clone()>
                    <span class="pack-head">{head}</span>
                    {detail}
                    <button class="pack-remove" aria-label=format!("Remove the {kind} pack") on:click=move |_| packs.remove(&remove_kind)>"Remove"</button>
                </li>
            }
        }).collect_view()
    };
    view! {
        <div class="panel pack-panel" class:pack-panel--over=move || over.get() class:pack-panel--compact=compact data-testid="pack-panel"
            on:dragover=on_drag_over on:dragleave=move |_| over.set(false) on:drop=on_drop>
            <h2>"Task packs"</h2>
            <Show when=move || !compact>
                <p class="muted pack-hint">"Bring the paper's own families from files you have: the reference's LeetCode pool ("
                    <code>"leetcode_candidate_algos.txt"</code>") or GSM-Symbolic templates (their "<code>".json"</code>" files). "
                    "With a pack, a family draws from it; its files stay in this tab."</p>
            </Show>
            <div class="pack-pickers">
                <label class="button">
                    {if compact { "Add a pack…" } else { "Add a pool or templates…" }}
                    <input type="file" multiple accept=".txt,.json,text/plain,application/json" data-testid="pack-file" on:change=on_pick />
                </label>
                <label class="button">
                    "Templates folder…"
                    <input type="file" node_ref=folder data-testid="pack-folder" on:change=on_pick />
                </label>
                <span class="muted pack-drop-hint">"or drop them here"</span>
            </div>
            <p class="pack-reading muted" role="status">{move || packs.reading.get().unwrap_or_default()}</p>
            <Show when=move || packs.error.with(Option::is_some)>
                <div class="error-view" role="alert" data-testid="pack-error">{move || packs.error.get().unwrap_or_default()}</div>
            </Show>
            <ul class="pack-list">{loaded}</ul>
        </div>
    }
}
