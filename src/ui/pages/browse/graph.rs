//! A large instance graph at the level of detail its zoom allows: all boxes as one path and all edges as
//! another (so thousands of nodes cost a few DOM elements), labels only for the boxes in view once they are
//! legible, a minimap with the viewport, wheel zoom around the pointer, drag to pan. The maths is
//! `app::instance::drawing::View`.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::app::instance::drawing::{boxes_path, edges_path, labelled, Overview, View};

/// The drawing's height in pixels.
const HEIGHT: f64 = 440.0;
/// The minimap's width in pixels.
const MINIMAP_W: f64 = 180.0;

/// The level-of-detail drawing of `overview`.
#[component]
pub fn OverviewGraph(overview: Overview) -> impl IntoView {
    let (width, height) = (overview.width, overview.height);
    let edges = edges_path(&overview);
    let tasks = boxes_path(&overview, |b| !b.adapter && !b.target);
    let adapters = boxes_path(&overview, |b| b.adapter);
    let target = boxes_path(&overview, |b| b.target);
    let count = overview.boxes.len();
    let overview = StoredValue::new(overview);
    let host = NodeRef::<Div>::new();
    let screen_w = RwSignal::new(800.0);
    let view = RwSignal::new(View::fit(width, height, 800.0, HEIGHT));
    let fit = move || view.set(View::fit(width, height, screen_w.get_untracked(), HEIGHT));

    Effect::new(move |_| {
        let Some(el) = host.get() else { return };
        screen_w.set(f64::from(el.client_width()).max(200.0));
        fit();
        let on_wheel = Closure::<dyn FnMut(web_sys::WheelEvent)>::new(move |ev: web_sys::WheelEvent| {
            ev.prevent_default();
            // Lines (delta mode 1) count as 40 pixels; a notch of a mouse wheel is about 100 pixels.
            let pixels = if ev.delta_mode() == 1 { ev.delta_y() * 40.0 } else { ev.delta_y() };
            let factor = (-pixels * 0.002).exp().clamp(0.5, 2.0);
            view.update(|v| *v = v.zoom_at(f64::from(ev.offset_x()), f64::from(ev.offset_y()), factor));
        });
        let options = web_sys::AddEventListenerOptions::new();
        options.set_passive(false);
        let _ = el.add_event_listener_with_callback_and_add_event_listener_options("wheel", on_wheel.as_ref().unchecked_ref(), &options);
        on_wheel.forget();
    });

    let dragging = StoredValue::new(None::<(f64, f64)>);
    let on_down = move |ev: leptos::ev::PointerEvent| {
        dragging.set_value(Some((f64::from(ev.client_x()), f64::from(ev.client_y()))));
        if let Some(el) = host.get_untracked() {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
    };
    let on_move = move |ev: leptos::ev::PointerEvent| {
        if let Some((x, y)) = dragging.get_value() {
            let (nx, ny) = (f64::from(ev.client_x()), f64::from(ev.client_y()));
            view.update(|v| *v = v.pan(nx - x, ny - y));
            dragging.set_value(Some((nx, ny)));
        }
    };
    let on_up = move |_| dragging.set_value(None);

    let labels = move || {
        let v = view.get();
        let visible = v.visible(screen_w.get(), HEIGHT);
        overview.with_value(|o| {
            labelled(o, v, visible)
                .into_iter()
                .map(|i| {
                    let b = &o.boxes[i];
                    let lines = b.lines.iter().enumerate().map(|(k, line)| view! { <tspan x=b.x + 8.0 y=b.y + 15.0 + 14.0 * k as f64>{line.clone()}</tspan> }).collect_view();
                    view! { <text class="lod-label">{lines}</text> }
                })
                .collect_view()
        })
    };
    let view_box = move || view.get().view_box(screen_w.get(), HEIGHT);
    let mini_h = (MINIMAP_W * height / width.max(1.0)).clamp(30.0, 160.0);
    let mini_rect = move || {
        let r = view.get().visible(screen_w.get(), HEIGHT);
        view! { <rect class="lod-mini-view" x=r.x y=r.y width=r.w height=r.h /> }
    };
    let zoom = move |factor: f64| view.update(|v| *v = v.zoom_at(screen_w.get_untracked() / 2.0, HEIGHT / 2.0, factor));
    view! {
        <div class="lod">
            <div class="lod-tools">
                <span class="muted">{format!("{count} nodes: labels appear as you zoom in (wheel or buttons), drag to pan")}</span>
                <button on:click=move |_| zoom(1.5)>"+"</button>
                <button on:click=move |_| zoom(1.0 / 1.5)>"−"</button>
                <button on:click=move |_| fit()>"fit"</button>
            </div>
            <div class="lod-canvas" node_ref=host on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up on:pointercancel=on_up>
                <svg xmlns="http://www.w3.org/2000/svg" width="100%" height=HEIGHT viewBox=view_box preserveAspectRatio="xMinYMin meet">
                    <path class="lod-edges" d=edges.clone() />
                    <path class="lod-tasks" d=tasks.clone() />
                    <path class="lod-adapters" d=adapters.clone() />
                    <path class="lod-target" d=target.clone() />
                    {labels}
                </svg>
                <svg class="lod-mini" width=MINIMAP_W height=mini_h viewBox=format!("0 0 {width:.1} {height:.1}") preserveAspectRatio="none">
                    <rect class="lod-mini-bg" width=width height=height />
                    <path class="lod-tasks" d=tasks />
                    <path class="lod-target" d=target />
                    {mini_rect}
                </svg>
            </div>
        </div>
    }
}
