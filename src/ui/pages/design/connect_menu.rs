//! The connect list (C on a focused node): a filter field (a combobox whose `aria-activedescendant` names
//! the active option) over the list of ports the model offers, in the model's order. The field types its
//! own text; arrows, Home, End, Enter, Escape and Tab go to the model, which connects through `GraphEdit`.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::design::keys::KeyInput;
use crate::ui::state::AppState;

/// The connect list, under the focused node while open.
#[component]
pub fn ConnectMenu() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let field: NodeRef<leptos::html::Input> = NodeRef::new();
    let open = Memo::new(move |_| {
        design.menu_rev.track();
        design.read(|m| m.connect_menu().map(|menu| menu.node.0.clone()))
    });
    let state = Memo::new(move |_| {
        design.menu_rev.track();
        design.graph_rev.track();
        design.view_rev.track();
        design.read(|m| {
            let menu = m.connect_menu().cloned();
            let choices: Vec<(String, bool)> = m.connect_choices().into_iter().map(|c| (c.label, c.fits)).collect();
            (menu.map(|m| (m.query, m.active)).unwrap_or_default(), choices, m.connect_menu_anchor())
        })
    });
    // The field takes the focus as the list opens; the node takes it back as it closes.
    Effect::new(move |was_open: Option<bool>| {
        let is_open = open.get().is_some();
        if is_open {
            request_animation_frame(move || {
                if let Some(input) = field.get_untracked() {
                    let _ = input.focus();
                }
            });
        } else if was_open == Some(true) {
            design.focus_request.set_value(true);
            super::focus::restore_soon(design);
        }
        is_open
    });
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        if !matches!(key.as_str(), "ArrowDown" | "ArrowUp" | "Home" | "End" | "Enter" | "Escape" | "Tab") {
            return;
        }
        let input = KeyInput { key: key.clone(), command: ev.ctrl_key() || ev.meta_key(), shift: ev.shift_key(), alt: ev.alt_key(), time_ms: js_sys::Date::now() };
        design.update(|m| m.key_down(&input));
        if key != "Tab" {
            ev.prevent_default();
        }
        ev.stop_propagation();
    };
    let on_input = move |ev: web_sys::Event| {
        let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        design.update(|m| m.set_connect_query(&el.value()));
    };
    let on_blur = move |ev: web_sys::FocusEvent| {
        // Focus leaving the list for another control closes it (an option clicked keeps it: see pointerdown).
        if ev.related_target().is_some() {
            design.update(|m| m.close_connect());
        }
    };

    move || {
        let node = open.get()?;
        let ((query, active), _, anchor) = state.get_untracked();
        let anchor = anchor.unwrap_or_default();
        let options = move || {
            let ((_, active), choices, _) = state.get();
            if choices.is_empty() {
                return view! { <li class="design-connect-empty" role="presentation">"No port matches."</li> }.into_any();
            }
            choices
                .into_iter()
                .enumerate()
                .map(|(i, (label, fits))| {
                    let class = format!("design-connect-option{}{}", if i == active { " design-connect-option--active" } else { "" }, if fits { "" } else { " design-connect-option--misfit" });
                    let choose = move |ev: web_sys::PointerEvent| {
                        ev.prevent_default();
                        let now = js_sys::Date::now();
                        design.update(|m| {
                            m.move_connect_choice(i as isize - m.connect_menu().map_or(0, |menu| menu.active as isize));
                            let _ = m.choose_connect(now);
                        });
                    };
                    view! { <li id=format!("connect-option-{i}") role="option" aria-selected=if i == active { "true" } else { "false" } class=class on:pointerdown=choose>{label}</li> }
                })
                .collect_view()
                .into_any()
        };
        let active_id = move || {
            let ((_, active), choices, _) = state.get();
            (!choices.is_empty()).then(|| format!("connect-option-{active}"))
        };
        let _ = (query, active);
        Some(view! {
            <div class="design-connect" data-testid="connect-menu" style=format!("left:{:.0}px;top:{:.0}px", anchor.x.max(4.0), anchor.y.max(4.0))
                on:pointerdown=move |ev| ev.stop_propagation()>
                <label class="design-connect-head" for="design-connect-filter">{format!("Connect {node}")}</label>
                <input
                    id="design-connect-filter"
                    node_ref=field
                    type="text"
                    role="combobox"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder="type a node id or family"
                    aria-expanded="true"
                    aria-controls="design-connect-list"
                    aria-autocomplete="list"
                    aria-activedescendant=active_id
                    prop:value=move || state.get().0 .0
                    on:input=on_input
                    on:keydown=on_keydown
                    on:blur=on_blur
                />
                <ul id="design-connect-list" role="listbox" aria-label=format!("Ports to connect with {node}")>{options}</ul>
                <p class="design-connect-keys">"↑ ↓ choose · Enter connect · Esc close"</p>
            </div>
        })
    }
}
