//! The toolbar: undo and redo, tidy up, fit and zoom, snapping, opening and exporting files (node-link
//! JSON, DOT, SVG), the share link, recent graphs and the help.

use leptos::prelude::*;

use crate::app::design::model::ZOOM_STEP;
use crate::app::design::share::link_hash;
use crate::app::design::NoticeLevel;
use crate::engine::graph;
use crate::engine::render::{to_dot, to_svg, RenderOptions};
use crate::ui::state::{AppState, OpenAs};
use crate::web::download::download_text;

use super::canvas::open_file;

/// The toolbar.
#[component]
pub fn Toolbar() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let share_url = RwSignal::new(String::new());
    let history = Memo::new(move |_| {
        design.graph_rev.track();
        design.read(|m| {
            let (undo, redo) = m.history_labels();
            (m.history_lengths(), undo.map(str::to_string), redo.map(str::to_string))
        })
    });
    let zoom = Memo::new(move |_| {
        design.view_rev.track();
        design.read(|m| (m.viewport().zoom * 100.0).round())
    });
    let snap = Memo::new(move |_| {
        design.notice.track();
        design.read(|m| m.snap())
    });

    let export = move |what: &'static str| {
        let (name, mime, text) = design.read(|m| {
            let g = m.graph();
            match what {
                "dot" => ("graph.dot", "text/vnd.graphviz", Ok(to_dot(g, &RenderOptions::default()))),
                "svg" => ("graph.svg", "image/svg+xml", to_svg(g, &RenderOptions::default()).map_err(|e| e.to_string())),
                _ => ("graph.json", "application/json", serde_json::to_string_pretty(&graph::to_json(g)).map(|t| t + "\n").map_err(|e| e.to_string())),
            }
        });
        match text.and_then(|t| download_text(name, mime, &t).map_err(|e| e.to_string())) {
            Ok(()) => design.say(NoticeLevel::Info, format!("exported {name}")),
            Err(e) => design.say(NoticeLevel::Error, format!("cannot export {name}: {e}")),
        }
    };
    let share = move |_| {
        let hash = design.read(|m| link_hash(m.graph()));
        let location = window().location();
        let base = format!("{}{}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default());
        share_url.set(format!("{base}{hash}"));
        design.say(NoticeLevel::Info, format!("share link ready ({} characters): it holds the whole graph", base.len() + hash.len()));
    };
    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            open_file(design, file);
        }
        input.set_value("");
    };
    let open_recent = move |ev: leptos::ev::Event| {
        let index: Option<usize> = event_target_value(&ev).parse().ok();
        let entry = index.and_then(|i| design.recent.with_untracked(|r| r.entries.get(i).cloned()));
        if let Some(entry) = entry {
            design.open_text(entry.name, entry.json, OpenAs::Replace);
        }
        // Back to "Recent…", so the same graph can be chosen again.
        event_target::<web_sys::HtmlSelectElement>(&ev).set_value("");
    };

    view! {
        <div class="design-toolbar" role="toolbar" aria-label="Designer tools">
            <div class="design-toolbar-group">
                <button data-testid="undo" title=move || history.get().1.map(|l| format!("Undo {l} (Ctrl+Z)")).unwrap_or("Nothing to undo".into())
                    disabled=move || history.get().0 .0 == 0 on:click=move |_| design.update(|m| m.undo())>"↶ Undo"</button>
                <button data-testid="redo" title=move || history.get().2.map(|l| format!("Redo {l} (Ctrl+Shift+Z)")).unwrap_or("Nothing to redo".into())
                    disabled=move || history.get().0 .1 == 0 on:click=move |_| design.update(|m| m.redo())>"↷ Redo"</button>
            </div>
            <div class="design-toolbar-group">
                <button data-testid="tidy" title="Arrange the graph in layers (one undoable step)" on:click=move |_| design.tidy()>"Tidy up"</button>
                <button data-testid="fit" title="Fit the graph to the view (F)" on:click=move |_| design.update(|m| m.fit())>"Fit"</button>
                <button title="Zoom out (−)" aria-label="Zoom out" on:click=move |_| design.update(|m| m.zoom_by(1.0 / ZOOM_STEP))>"−"</button>
                <span class="design-zoom" data-testid="zoom">{move || format!("{} %", zoom.get())}</span>
                <button title="Zoom in (+)" aria-label="Zoom in" on:click=move |_| design.update(|m| m.zoom_by(ZOOM_STEP))>"+"</button>
                <label class="design-check" title="Snap moves to a 24-unit grid (G)">
                    <input type="checkbox" prop:checked=move || snap.get() on:change=move |ev| { let on = event_target_checked(&ev); design.update(|m| m.set_snap(on)) } />"Snap"
                </label>
            </div>
            <div class="design-toolbar-group">
                <label class="button design-file" title="Open a node-link JSON file (or drop one on the canvas)">
                    "Open…"<input type="file" data-testid="import" accept=".json,application/json" on:change=on_file />
                </label>
                <select class="design-recent" data-testid="recent" title="Recent graphs" aria-label="Open a recent graph" on:change=open_recent prop:value="">
                    <option value="">"Recent…"</option>
                    {move || design.recent.get().entries.into_iter().enumerate().map(|(i, e)| view! {
                        <option value=i.to_string()>{format!("{} ({} nodes)", e.name, e.nodes)}</option>
                    }).collect_view()}
                </select>
                <button data-testid="export-json" title="Download the node-link JSON" on:click=move |_| export("json")>"Export JSON"</button>
                <button data-testid="export-dot" title="Download DOT for Graphviz" on:click=move |_| export("dot")>"DOT"</button>
                <button data-testid="export-svg" title="Download an SVG drawing" on:click=move |_| export("svg")>"SVG"</button>
            </div>
            <div class="design-toolbar-group design-share">
                <button data-testid="share-link" title="Make a link that carries the whole graph" on:click=share>"Share link"</button>
                <input data-testid="share-url" class="design-share-url" readonly placeholder="press Share link" prop:value=move || share_url.get()
                    on:focus=move |ev| { let input: web_sys::HtmlInputElement = event_target(&ev); input.select(); } />
            </div>
            <div class="design-toolbar-group design-toolbar-end">
                <button class="design-help-button" title="Shortcuts (?)" aria-label="Help" on:click=move |_| design.help_open.update(|o| *o = !*o)>"?"</button>
            </div>
        </div>
    }
}

/// The graph's size, shown in the status bar.
#[component]
pub fn Counts() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let counts = Memo::new(move |_| {
        design.graph_rev.track();
        design.selection_rev.track();
        design.read(|m| (m.graph().nodes().len(), m.graph().edges().len(), m.selection().len()))
    });
    view! {
        <span class="design-counts" data-testid="counts">
            {move || {
                let (n, e, s) = counts.get();
                let selected = if s > 0 { format!(" · {s} selected") } else { String::new() };
                format!("{n} nodes · {e} edges{selected}")
            }}
        </span>
    }
}
