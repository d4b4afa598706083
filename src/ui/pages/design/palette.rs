//! The palette: task nodes of each family and the two adapters, dragged onto the canvas (a press starts
//! carrying the item; the canvas's state machine places it where it is released over the canvas), clicked
//! and then placed by a click on the canvas, or added with Enter beside the focused node (each entry is a
//! Tab stop; the new node takes the focus).

use leptos::prelude::*;

use crate::app::design::gesture::PaletteItem;
use crate::ui::state::AppState;

/// (label, hint, item, test id, family)
fn entries() -> Vec<(&'static str, &'static str, PaletteItem, &'static str, &'static str)> {
    vec![
        ("Math task", "one of 40 operators", PaletteItem::Task("math".into()), "palette-task", "math"),
        ("Word problem", "GSM-style template", PaletteItem::Task("gsm".into()), "palette-task", "gsm"),
        ("Python trace", "trace a function", PaletteItem::Task("python".into()), "palette-task", "python"),
        ("Picture path", "follow a braid in an image", PaletteItem::Task("image".into()), "palette-task", "image"),
        ("Any family", "drawn from the run's families", PaletteItem::Task("any".into()), "palette-task", "any"),
        ("Pick", "one element of a list", PaletteItem::Pick, "palette-pick", ""),
        ("Pack", "scalars into a 10-list", PaletteItem::Pack, "palette-pack", ""),
    ]
}

/// The palette.
#[component]
pub fn Palette() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let items = entries()
        .into_iter()
        .map(|(label, hint, item, testid, family)| {
            let class = if family.is_empty() { "design-palette-item design-palette-item--adapter".to_string() } else { format!("design-palette-item design-palette-item--{family}") };
            let keyed = item.clone();
            let start = move |ev: web_sys::PointerEvent| {
                ev.prevent_default();
                design.update(|m| m.begin_placing(item.clone()));
            };
            let on_keydown = move |ev: web_sys::KeyboardEvent| {
                if ev.key() != "Enter" && ev.key() != " " {
                    return;
                }
                ev.prevent_default();
                ev.stop_propagation();
                let now = js_sys::Date::now();
                if design.update(|m| m.add_beside_focus(&keyed, now)).is_ok() {
                    design.focus_request.set_value(true);
                    super::focus::restore_soon(design);
                }
            };
            view! {
                <div
                    class=class
                    data-testid=testid
                    data-family=(!family.is_empty()).then_some(family)
                    title="Drag onto the canvas, click then click the canvas, or press Enter"
                    tabindex="0"
                    role="button"
                    aria-label=format!("Add {label}: {hint}")
                    on:pointerdown=start
                    on:keydown=on_keydown
                >
                    <span class="design-palette-swatch"></span>
                    <span class="design-palette-label">{label}</span>
                    <span class="design-palette-hint">{hint}</span>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="design-palette">
            <h2>"Palette"</h2>
            <p class="design-hint">"Drag a node onto the canvas, or press Enter on one to add it beside the focused node."</p>
            // A group of buttons, not a list: a list item that is a button is no longer a list item.
            <div class="design-palette-list" role="group" aria-label="Nodes to add">{items}</div>
        </div>
    }
}
