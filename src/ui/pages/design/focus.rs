//! The browser's focus on the canvas: the focused node's element takes it after a redraw replaced the old
//! one (the scene is inner HTML, rebuilt on every change), after a palette entry was added by Enter and
//! after the connect list closed. Which node is focused is the model's; this only moves the browser there.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::state::DesignState;

/// Calls `focus()` on any element (SVG elements have it, but not through `HtmlElement`'s binding).
pub fn focus_element(el: &web_sys::Element) {
    if let Ok(f) = js_sys::Reflect::get(el, &"focus".into()) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call0(el);
        }
    }
}

/// After the next frame, gives the browser's focus to the model's focused node if the keyboard was on the
/// canvas (and has not gone to another control) or a focus was requested.
pub fn restore_soon(design: DesignState) {
    request_animation_frame(move || {
        let requested = design.focus_request.get_value();
        let Some(svg) = document().query_selector("svg[data-testid=\"canvas\"]").ok().flatten() else { return };
        let active = document().active_element();
        let lost = match &active {
            None => true,
            Some(a) => a.tag_name().eq_ignore_ascii_case("body") || svg.contains(Some(a)),
        };
        if !(requested || (design.keyboard_on_canvas.get_value() && lost)) {
            return;
        }
        if design.read(|m| m.connect_menu().is_some()) {
            return;
        }
        let Some(id) = design.read(|m| m.tab_stop().map(|id| id.0.clone())) else { return };
        let selector = format!("[data-node-id=\"{}\"]", id.replace('\\', "\\\\").replace('"', "\\\""));
        if let Some(el) = svg.query_selector(&selector).ok().flatten() {
            design.focus_request.set_value(false);
            design.keyboard_on_canvas.set_value(true);
            if active.as_ref() != Some(&el) {
                focus_element(&el);
            }
        }
    });
}
