//! The canvas: an SVG whose layers are the model's drawing (scene and gesture overlay, as markup made by
//! `app::design::draw`) under the viewport's transform. It forwards pointer, wheel and file-drop events to
//! the model; pointer moves and releases arrive through window listeners (set up by the page), so drags
//! that leave the canvas, palette drags and captured touches all reach the same state machine.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::design::draw::{self, DrawContext};
use crate::app::design::geometry::Point;
use crate::app::design::gesture::{PointerInput, PointerKind};
use crate::app::design::import;
use crate::app::design::lod;
use crate::ui::state::{AppState, DesignState, OpenAs};
use crate::web::files::file_text;

use super::{task_names, CanvasRef};

/// The canvas's pointer input for a browser pointer event (coordinates relative to the canvas).
pub fn pointer_input(ev: &web_sys::PointerEvent, canvas: &web_sys::Element) -> PointerInput {
    let rect = canvas.get_bounding_client_rect();
    let x = f64::from(ev.client_x()) - rect.left();
    let y = f64::from(ev.client_y()) - rect.top();
    PointerInput {
        id: ev.pointer_id(),
        kind: match ev.pointer_type().as_str() {
            "touch" => PointerKind::Touch,
            "pen" => PointerKind::Pen,
            _ => PointerKind::Mouse,
        },
        screen: Point::new(x, y),
        button: ev.button(),
        shift: ev.shift_key(),
        command: ev.ctrl_key() || ev.meta_key(),
        inside: x >= 0.0 && y >= 0.0 && x <= rect.width() && y <= rect.height(),
        time_ms: js_sys::Date::now(),
    }
}

/// The SVG canvas.
#[component]
pub fn Canvas(
    /// The canvas element, shared with the page's window listeners.
    canvas_ref: CanvasRef,
) -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let window_memo = Memo::new(move |_| {
        design.view_rev.track();
        design.graph_rev.track();
        design.read(|m| lod::window(m.graph().nodes().len(), m.viewport()))
    });
    let scene = Memo::new(move |_| {
        design.graph_rev.track();
        design.selection_rev.track();
        let window = window_memo.get();
        let marks = design.marks.get();
        task_names(|names| design.read(|m| draw::scene(m, &DrawContext { marks: &marks, names }, &window)))
    });
    let overlay = Memo::new(move |_| {
        design.overlay_rev.track();
        let marks = design.marks.get();
        task_names(|names| design.read(|m| draw::overlay(m, &DrawContext { marks: &marks, names })))
    });
    let transform = Memo::new(move |_| {
        design.view_rev.track();
        design.read(|m| m.viewport().transform())
    });
    let grid = Memo::new(move |_| {
        design.view_rev.track();
        design.read(|m| {
            let v = m.viewport();
            (v.zoom >= 0.35).then(|| format!("translate({:.1} {:.1}) scale({:.4})", (-v.origin.x * v.zoom) % (24.0 * v.zoom), (-v.origin.y * v.zoom) % (24.0 * v.zoom), v.zoom))
        })
    });

    // A redraw replaces the focused node's element: give the focus to its successor.
    Effect::new(move |_| {
        scene.track();
        super::focus::restore_soon(design);
    });
    // The browser's focus landed on a node (Tab, or the roving focus moved it): the model follows.
    let on_focusin = move |ev: web_sys::FocusEvent| {
        let node = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|el| el.closest("[data-node-id]").ok().flatten());
        if let Some(id) = node.and_then(|el| el.get_attribute("data-node-id")) {
            design.keyboard_on_canvas.set_value(true);
            design.update(|m| m.set_focus(&crate::engine::graph::NodeId(id)));
        }
    };
    // The focus went to another control: the canvas stops taking it back after redraws.
    let on_focusout = move |ev: web_sys::FocusEvent| {
        let Some(svg) = canvas_ref.get_untracked() else { return };
        let svg: web_sys::Element = svg.unchecked_into();
        if let Some(next) = ev.related_target().and_then(|t| t.dyn_into::<web_sys::Node>().ok()) {
            if !svg.contains(Some(&next)) {
                design.keyboard_on_canvas.set_value(false);
            }
        }
    };
    let tabindex = move || {
        design.graph_rev.track();
        if design.read(|m| m.graph().nodes().is_empty()) { "0" } else { "-1" }
    };

    let on_pointerdown = move |ev: web_sys::PointerEvent| {
        let Some(svg) = canvas_ref.get_untracked() else { return };
        let svg: web_sys::Element = svg.unchecked_into();
        ev.prevent_default();
        design.keyboard_on_canvas.set_value(false);
        // Take the keyboard from any field, so shortcuts go to the canvas.
        if let Some(active) = document().active_element().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = active.blur();
        }
        let _ = svg.set_pointer_capture(ev.pointer_id());
        let input = pointer_input(&ev, &svg);
        design.update(|m| m.pointer_down(&input));
    };
    let on_wheel = move |ev: web_sys::WheelEvent| {
        let Some(svg) = canvas_ref.get_untracked() else { return };
        ev.prevent_default();
        let rect = svg.get_bounding_client_rect();
        let at = Point::new(f64::from(ev.client_x()) - rect.left(), f64::from(ev.client_y()) - rect.top());
        let lines = if ev.delta_mode() == 1 { 16.0 } else if ev.delta_mode() == 2 { 400.0 } else { 1.0 };
        design.update(|m| m.wheel(at, ev.delta_y() * lines));
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) else { return };
        open_file(design, file);
    };

    view! {
        <svg
            data-testid="canvas"
            class="design-canvas"
            class:design-canvas--moving=move || { design.overlay_rev.track(); design.read(|m| m.moving().is_some()) }
            node_ref=canvas_ref
            tabindex=tabindex
            role="application"
            aria-label="Task graph canvas"
            aria-roledescription="graph editor"
            aria-describedby="design-canvas-keys"
            on:focusin=on_focusin
            on:focusout=on_focusout
            on:pointerdown=on_pointerdown
            on:wheel=on_wheel
            on:contextmenu=|ev| ev.prevent_default()
            on:dragover=|ev: web_sys::DragEvent| ev.prevent_default()
            on:drop=on_drop
            on:pointerleave=move |_| design.update(|m| m.pointer_leave())
        >
            <defs>
                <marker id="dg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto">
                    <path d="M0,0 L10,5 L0,10 z" class="dg-arrow"></path>
                </marker>
                <pattern id="dg-grid" width="24" height="24" patternUnits="userSpaceOnUse" patternTransform=move || grid.get().unwrap_or_default()>
                    <circle cx="1" cy="1" r="1" class="dg-grid-dot"></circle>
                </pattern>
            </defs>
            <rect class="design-canvas-grid" width="100%" height="100%" fill=move || if grid.get().is_some() { "url(#dg-grid)" } else { "none" }></rect>
            <g transform=move || transform.get()>
                <g class="dg-scene" inner_html=move || scene.get()></g>
                <g class="dg-overlay" inner_html=move || overlay.get()></g>
            </g>
        </svg>
    }
}

/// Opens a file picked or dropped: refused at once when too large, else read and opened in the worker.
pub fn open_file(design: DesignState, file: web_sys::File) {
    let name = file.name();
    let bytes = file.size() as usize;
    if let Err(e) = import::check_size(&name, bytes) {
        design.say(crate::app::design::NoticeLevel::Error, e.to_string());
        return;
    }
    design.busy.set(Some(format!("reading {name}…")));
    wasm_bindgen_futures::spawn_local(async move {
        match file_text(&file).await {
            Ok(text) => design.open_text(name, text, OpenAs::Replace),
            Err(e) => {
                design.busy.set(None);
                design.say(crate::app::design::NoticeLevel::Error, e);
            }
        }
    });
}
