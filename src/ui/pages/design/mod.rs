//! Design: a drag-and-drop editor of task graphs. The canvas (SVG, drawn from `app::design`), the palette
//! and presets, the inspector and the problem list, the toolbar (undo, tidy, files, share links), the help
//! overlay, the node-link JSON panel, generation into the instance browser, and the Python box; for the
//! keyboard, the connect list, the browser focus kept on the focused node, and the live region that reads
//! out the model's announcements (docs/ACCESSIBILITY.md). This module lays the page out and routes the
//! window's pointer, keyboard and clipboard events to the editor model.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::design::catalog::{task_names as names_of, TaskNames};
use crate::app::design::keys::KeyInput;
use crate::app::design::share::{decode, find_in_query};
use crate::app::design::{KeyOutcome, NoticeLevel};
use crate::ui::route::hash_query;
use crate::ui::state::{registry_version, with_registry, AppState, DesignState, OpenAs};

mod canvas;
mod connect_menu;
mod focus;
mod help;
mod inspector;
mod issue_list;
mod json_panel;
mod minimap;
mod palette;
mod pictures;
mod presets;
mod python_box;
mod run_panel;
mod toolbar;

/// The canvas element.
pub type CanvasRef = NodeRef<leptos::svg::Svg>;

thread_local! {
    /// The task names, and the registry version they were read from (a pack brought or removed changes it).
    static TASK_NAMES: RefCell<(u64, TaskNames)> = RefCell::new((registry_version(), with_registry(names_of)));
    static FITTED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the display names of every task.
fn task_names<R>(f: impl FnOnce(&TaskNames) -> R) -> R {
    TASK_NAMES.with(|names| {
        let version = registry_version();
        if names.borrow().0 != version {
            *names.borrow_mut() = (version, with_registry(names_of));
        }
        f(&names.borrow().1)
    })
}

/// The Design page.
#[component]
pub fn DesignPage() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let canvas_ref: CanvasRef = NodeRef::new();
    listen(design, canvas_ref);
    open_shared_link(design);

    let notice = move || design.notice.get();
    let popup = move || {
        let n = notice()?;
        let at = n.at.filter(|_| n.level == NoticeLevel::Refused)?;
        Some(view! { <div class="design-popup" role="alert" style=format!("left:{:.0}px;top:{:.0}px", at.x + 14.0, at.y + 14.0)>{n.text}</div> })
    };

    // The validation count, announced when it changes.
    Effect::new(move |_| {
        let count = design.issues.with(Vec::len);
        design.update(|m| m.note_problems(count));
    });

    let empty = move || {
        design.graph_rev.track();
        design.read(|m| m.graph().nodes().is_empty()).then(|| view! {
            <div class="design-empty" data-testid="empty-hint">
                <p><strong>"An empty graph."</strong></p>
                <p>"Drag a task from the palette here (or press Enter on it), start from a preset, or open or drop a node-link JSON file."</p>
            </div>
        })
    };

    view! {
        <section class="page page-design" id="page-design">
            <div class="design-title">
                <h1>"Design a task graph"</h1>
                <p class="muted">"Drag nodes from the palette, connect an output port to an input port, and watch the problems as you draw. "<kbd>"?"</kbd>" lists every shortcut."</p>
            </div>
            <toolbar::Toolbar />
            <div class="design-body">
                <aside class="design-left">
                    <palette::Palette />
                    <presets::PresetPicker />
                </aside>
                <div class="design-stage">
                    <div class="design-stage-view">
                        <canvas::Canvas canvas_ref=canvas_ref />
                        {empty}
                        <connect_menu::ConnectMenu />
                        <minimap::Minimap />
                        {popup}
                        <help::Help />
                    </div>
                    <div class="design-status">
                        <p data-testid="notice" role="status" aria-live="polite"
                            class=move || format!("design-notice design-notice--{}", match notice().map(|n| n.level) {
                                Some(NoticeLevel::Refused) => "refused",
                                Some(NoticeLevel::Error) => "error",
                                Some(NoticeLevel::Info) => "info",
                                None => "none",
                            })>
                            {move || design.busy.get().or_else(|| notice().map(|n| n.text)).unwrap_or_default()}
                        </p>
                        <toolbar::Counts />
                    </div>
                    <div data-testid="announcer" class="visually-hidden" role="log" aria-live="polite" aria-relevant="additions">
                        <For each=move || design.announcements.get() key=|(n, _)| *n children=|(_, sentence)| view! { <p>{sentence}</p> } />
                    </div>
                    <p id="design-canvas-keys" class="visually-hidden">"Tab reaches the focused node. Arrow keys move between nodes when none is selected; Enter selects; C connects; E walks edges; question mark lists every key."</p>
                </div>
                <aside class="design-right">
                    <inspector::Inspector />
                    <issue_list::IssueList />
                </aside>
            </div>
            <json_panel::JsonPanel />
            <run_panel::RunPanel />
            <python_box::PythonBox />
        </section>
    }
}

/// Routes the window's pointer moves and releases (drags that leave the canvas, palette drags), keys and
/// clipboard events to the model while the page is shown, and keeps the canvas's size in the viewport.
fn listen(design: DesignState, canvas_ref: CanvasRef) {
    let canvas = move || canvas_ref.get_untracked().map(|c| -> web_sys::Element { c.unchecked_into() });
    let measure = move || {
        let Some(el) = canvas() else { return };
        let rect = el.get_bounding_client_rect();
        design.update(|m| {
            m.resize(rect.width(), rect.height());
            if !FITTED.with(|f| f.replace(true)) {
                m.fit();
            }
        });
    };
    request_animation_frame(measure);
    let handles = vec![
        window_event_listener(leptos::ev::resize, move |_| measure()),
        window_event_listener(leptos::ev::pointermove, move |ev| {
            if let (true, Some(el)) = (design.is_gesturing(), canvas()) {
                let input = canvas::pointer_input(&ev, &el);
                design.update(|m| m.pointer_move(&input));
            }
        }),
        window_event_listener(leptos::ev::pointerup, move |ev| {
            if let (true, Some(el)) = (design.is_gesturing(), canvas()) {
                let input = canvas::pointer_input(&ev, &el);
                design.update(|m| m.pointer_up(&input));
            }
        }),
        window_event_listener(leptos::ev::pointercancel, move |ev| design.update(|m| m.pointer_cancel(ev.pointer_id()))),
        window_event_listener(leptos::ev::keydown, move |ev| {
            if is_editable(ev.target()) {
                return;
            }
            let key = ev.key();
            // Enter belongs to the button or link that has the focus, not to the canvas (Space still pans).
            if key == "Enter" && is_control(ev.target()) {
                return;
            }
            if key == "Escape" && design.help_open.get_untracked() {
                design.help_open.set(false);
                return;
            }
            let input = KeyInput { key, command: ev.ctrl_key() || ev.meta_key(), shift: ev.shift_key(), alt: ev.alt_key(), time_ms: js_sys::Date::now() };
            match design.update(|m| m.key_down(&input)) {
                KeyOutcome::Ignored => {}
                KeyOutcome::Handled => ev.prevent_default(),
                KeyOutcome::ToggleHelp => {
                    ev.prevent_default();
                    design.help_open.update(|o| *o = !*o);
                }
            }
        }),
        window_event_listener(leptos::ev::keyup, move |ev| design.update(|m| m.key_up(&ev.key()))),
        window_event_listener(leptos::ev::copy, move |ev| clipboard(design, ev, false)),
        window_event_listener(leptos::ev::cut, move |ev| clipboard(design, ev, true)),
        window_event_listener(leptos::ev::paste, move |ev| {
            if is_editable(ev.target()) {
                return;
            }
            let text = ev.clipboard_data().and_then(|d| d.get_data("text/plain").ok()).unwrap_or_default();
            if text.trim().is_empty() {
                return;
            }
            ev.prevent_default();
            design.open_text("pasted text".into(), text, OpenAs::Paste);
        }),
    ];
    on_cleanup(move || {
        for handle in handles {
            handle.remove();
        }
    });
}

/// Copy or cut: the selection as node-link JSON into the clipboard event.
fn clipboard(design: DesignState, ev: web_sys::ClipboardEvent, cut: bool) {
    if is_editable(ev.target()) {
        return;
    }
    let now = js_sys::Date::now();
    let Some((text, count)) = design.update(|m| {
        let count = m.selection().len();
        let text = if cut { m.cut(now) } else { m.copy() };
        text.map(|t| (t, count))
    }) else {
        return;
    };
    if let Some(data) = ev.clipboard_data() {
        if data.set_data("text/plain", &text).is_ok() {
            ev.prevent_default();
            design.say(NoticeLevel::Info, format!("{} {count} node{} as node-link JSON", if cut { "cut" } else { "copied" }, if count == 1 { "" } else { "s" }));
        }
    }
}

/// True when keys and clipboard events belong to a text field rather than the canvas.
fn is_editable(target: Option<web_sys::EventTarget>) -> bool {
    let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) else { return false };
    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.is_content_editable()
}

/// True for a button, link or other control outside the canvas (whose Enter and Space activate it).
fn is_control(target: Option<web_sys::EventTarget>) -> bool {
    let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    if el.closest("svg[data-testid=\"canvas\"]").ok().flatten().is_some() {
        return false;
    }
    matches!(el.tag_name().to_ascii_uppercase().as_str(), "BUTTON" | "A" | "SUMMARY" | "SELECT") || el.closest("[role=button],[role=option],[role=link],[role=tab]").ok().flatten().is_some()
}

/// Opens the graph a share link carries (`#/design?graph=1.…`), then drops it from the address so a reload
/// shows the autosaved work rather than the link again.
fn open_shared_link(design: DesignState) {
    let hash = window().location().hash().unwrap_or_default();
    let Some(value) = find_in_query(hash_query(&hash)).map(str::to_string) else { return };
    match decode(&value) {
        Ok(graph) => match crate::app::design::tidy::with_positions(graph) {
            Ok(placed) => design.take_opened("shared link", placed, OpenAs::Replace),
            Err(e) => design.say(NoticeLevel::Error, format!("shared link: {e}")),
        },
        Err(e) => design.say(NoticeLevel::Error, format!("shared link: {e}")),
    }
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#/design"));
    }
}
