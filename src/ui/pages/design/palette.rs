//! The palette: task nodes of each family and the two adapters, dragged onto the canvas (a press starts
//! carrying the item; the canvas's state machine places it where it is released over the canvas), clicked
//! and then placed by a click on the canvas, or added with Enter beside the focused node (each entry is a
//! Tab stop; the new node takes the focus). Below them, the tasks of the packs brought (`PackPanel`), each
//! added pinned to its task, with its kinds.

use leptos::prelude::*;

use crate::app::design::catalog::Words;
use crate::app::design::gesture::PaletteItem;
use crate::engine::tasks::pack::PackEntry;
use crate::ui::common::PackPanel;
use crate::ui::state::{AppState, DesignState};

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

/// Handlers shared by every palette entry: a press starts carrying `item`, Enter or Space adds it beside the
/// focused node.
fn entry_handlers(design: DesignState, item: PaletteItem) -> (impl Fn(web_sys::PointerEvent) + 'static, impl Fn(web_sys::KeyboardEvent) + 'static) {
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
    (start, on_keydown)
}

/// One pack task as a palette entry: its name and kinds, added pinned to it.
fn pack_entry(design: DesignState, family: String, task: PackEntry) -> impl IntoView {
    let signature = task.signature();
    let hint = signature.clone();
    let item = PaletteItem::Pinned {
        family: family.clone(),
        task_id: i64::from(task.task_id),
        input: task.input_kinds.first().map_or("scalar", |k| k.as_str()).to_string(),
        output: task.output_kind.as_str().to_string(),
        name: task.name.clone(),
    };
    let (start, on_keydown) = entry_handlers(design, item);
    view! {
        <div class=format!("design-palette-item design-palette-item--{family} design-palette-item--pinned") data-testid="palette-pack-task" data-key=task.key.clone()
            title=format!("{} ({}): drag onto the canvas, click then click the canvas, or press Enter", task.key, task.location)
            tabindex="0" role="button" aria-label=format!("Add the task {}: {}", task.name, signature)
            on:pointerdown=start on:keydown=on_keydown>
            <span class="design-palette-swatch"></span>
            <span class="design-palette-label">{task.name.clone()}</span>
            <span class="design-palette-hint">{hint}</span>
        </div>
    }
}

/// The tasks of each pack brought, searchable by name and kind.
#[component]
fn PackTasks() -> impl IntoView {
    let state = expect_context::<AppState>();
    let design = state.design;
    let query = RwSignal::new(String::new());
    let groups = move || {
        let words = Words::of(&query.get());
        state.packs.loaded.get().into_iter().map(|pack| {
            let family = pack.summary.family().map(|f| f.to_string()).unwrap_or_default();
            let tasks: Vec<PackEntry> = pack.summary.tasks.iter().filter(|t| words.all_in(&[&t.name, &t.key, &t.signature()])).cloned().collect();
            let shown = tasks.len();
            let entries = tasks.into_iter().map(|t| pack_entry(design, family.clone(), t)).collect_view();
            view! {
                <details class="design-palette-pack" data-testid="palette-pack-tasks" data-kind=pack.source.kind.clone() open>
                    <summary>{format!("{}: {shown} of {} tasks", pack.source.kind, pack.summary.tasks.len())}</summary>
                    <div class="design-palette-list" role="group" aria-label=format!("Tasks of the {} pack", pack.source.kind)>{entries}</div>
                </details>
            }
        }).collect_view()
    };
    view! {
        <Show when=move || state.packs.loaded.with(|p| !p.is_empty())>
            <label class="design-palette-filter">"Find a pack task "
                <input type="search" data-testid="palette-pack-filter" placeholder="name or kind" prop:value=move || query.get()
                    on:input=move |ev| query.set(event_target_value(&ev)) />
            </label>
        </Show>
        {groups}
    }
}

/// The palette.
#[component]
pub fn Palette() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let items = entries()
        .into_iter()
        .map(|(label, hint, item, testid, family)| {
            let class = if family.is_empty() { "design-palette-item design-palette-item--adapter".to_string() } else { format!("design-palette-item design-palette-item--{family}") };
            let (start, on_keydown) = entry_handlers(design, item);
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
            <PackTasks />
            <PackPanel compact=true />
        </div>
    }
}
