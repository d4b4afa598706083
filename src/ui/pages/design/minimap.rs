//! The minimap of big graphs: every node as a small box, the target and the selection marked, and the
//! viewport's rectangle; pressing or dragging on it centres the view there.

use leptos::prelude::*;

use crate::app::design::draw::minimap;
use crate::app::design::geometry::Point;
use crate::ui::state::AppState;

/// The minimap's size in pixels.
const WIDTH: f64 = 200.0;
const HEIGHT: f64 = 132.0;
/// Graphs from this many nodes get a minimap.
pub const MINIMAP_FROM: usize = 20;

/// The minimap (shown for graphs of `MINIMAP_FROM` nodes or more).
#[component]
pub fn Minimap() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let drawing = Memo::new(move |_| {
        design.graph_rev.track();
        design.view_rev.track();
        design.selection_rev.track();
        design.read(|m| (m.graph().nodes().len() >= MINIMAP_FROM).then(|| minimap(m.graph(), m.viewport(), m.selection(), WIDTH, HEIGHT)))
    });
    let dragging = RwSignal::new(false);
    let go = move |ev: &web_sys::PointerEvent| {
        let Some(map) = drawing.get_untracked() else { return };
        let Some(target) = ev.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()) else { return };
        let rect = target.get_bounding_client_rect();
        let at = Point::new(f64::from(ev.client_x()) - rect.left(), f64::from(ev.client_y()) - rect.top());
        design.update(|m| m.center_on(map.to_world(at)));
    };
    view! {
        <Show when=move || drawing.with(Option::is_some)>
            <svg class="design-minimap" data-testid="minimap" width=WIDTH height=HEIGHT aria-label="Minimap: press to move the view"
                on:pointerdown=move |ev| {
                    ev.stop_propagation();
                    dragging.set(true);
                    if let Some(t) = ev.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()) {
                        let _ = t.set_pointer_capture(ev.pointer_id());
                    }
                    go(&ev);
                }
                on:pointermove=move |ev| if dragging.get_untracked() { go(&ev) }
                on:pointerup=move |_| dragging.set(false)
                inner_html=move || drawing.get().map(|d| d.svg).unwrap_or_default()>
            </svg>
        </Show>
    }
}
