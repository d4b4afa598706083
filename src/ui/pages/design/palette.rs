//! The palette: task nodes of each family and the two adapters, dragged onto the canvas (a press starts
//! carrying the item; the canvas's state machine places it where it is released over the canvas).

use leptos::prelude::*;

use crate::app::editor::gesture::PaletteItem;
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
            let start = move |ev: web_sys::PointerEvent| {
                ev.prevent_default();
                design.update(|m| m.begin_placing(item.clone()));
            };
            view! {
                <li
                    class=class
                    data-testid=testid
                    data-family=(!family.is_empty()).then_some(family)
                    title="Drag onto the canvas"
                    on:pointerdown=start
                >
                    <span class="design-palette-swatch"></span>
                    <span class="design-palette-label">{label}</span>
                    <span class="design-palette-hint">{hint}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="design-palette">
            <h2>"Palette"</h2>
            <p class="design-hint">"Drag a node onto the canvas."</p>
            <ul class="design-palette-list">{items}</ul>
        </div>
    }
}
