//! The minimap of big graphs: every node as a small box, the target and the selection marked, and the
//! viewport's rectangle; pressing or dragging on it centres the view there. A labelled button
//! (`[data-testid="minimap-toggle"]`, `aria-expanded`) shows and hides it: shown at first on a wide screen,
//! hidden at first on a narrow one (where it is also smaller), so it never covers a phone's canvas unasked.

use leptos::prelude::*;

use crate::app::design::draw::minimap;
use crate::app::design::geometry::Point;
use crate::ui::state::AppState;

/// The minimap's size in pixels, on a wide screen and on a narrow one.
const SIZE: (f64, f64) = (200.0, 132.0);
const NARROW_SIZE: (f64, f64) = (132.0, 88.0);
/// Screens this narrow or narrower (the page's phone layout) start with the minimap hidden.
const NARROW: &str = "(max-width: 600px)";
/// Graphs from this many nodes get a minimap.
pub const MINIMAP_FROM: usize = 20;

/// The minimap (shown for graphs of `MINIMAP_FROM` nodes or more).
#[component]
pub fn Minimap() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let narrow = window().match_media(NARROW).ok().flatten().is_some_and(|m| m.matches());
    let (width, height) = if narrow { NARROW_SIZE } else { SIZE };
    let shown = RwSignal::new(!narrow);
    let big = Memo::new(move |_| {
        design.graph_rev.track();
        design.read(|m| m.graph().nodes().len() >= MINIMAP_FROM)
    });
    let drawing = Memo::new(move |_| {
        design.graph_rev.track();
        design.view_rev.track();
        design.selection_rev.track();
        (big.get() && shown.get()).then(|| design.read(|m| minimap(m.graph(), m.viewport(), m.selection(), width, height)))
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
        <Show when=move || big.get()>
        <div class="design-minimap-box">
            <button type="button" class="design-minimap-toggle" data-testid="minimap-toggle" aria-controls="design-minimap"
                aria-expanded=move || shown.get().to_string()
                on:pointerdown=|ev| ev.stop_propagation()
                on:click=move |_| shown.update(|s| *s = !*s)>
                {move || if shown.get() { "Hide minimap" } else { "Show minimap" }}
            </button>
        <Show when=move || drawing.with(Option::is_some)>
            <svg class="design-minimap" id="design-minimap" data-testid="minimap" width=width height=height aria-label="Minimap: press to move the view"
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
        </div>
        </Show>
    }
}
