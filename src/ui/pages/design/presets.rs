//! The preset picker: a preset, one input per parameter (named by it), and "apply", which replaces the
//! graph with the preset's (one undoable step).

use std::collections::BTreeMap;

use leptos::prelude::*;

use crate::app::design::presets::{build, preset, PRESETS};
use crate::app::design::NoticeLevel;
use crate::ui::state::AppState;

/// The preset picker.
#[component]
pub fn PresetPicker() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let chosen = RwSignal::new("chain".to_string());
    let values: RwSignal<BTreeMap<String, String>> = RwSignal::new(BTreeMap::new());

    let apply = move |_| {
        let key = chosen.get_untracked();
        match build(&key, &values.get_untracked()) {
            Ok(graph) => {
                let label = preset(&key).map(|p| p.label).unwrap_or("preset");
                let now = js_sys::Date::now();
                design.update(|m| {
                    m.replace(graph, &format!("apply preset {key}"), now);
                    m.set_notice(NoticeLevel::Info, format!("applied preset: {label}"));
                });
                design.remember(&format!("preset: {label}"));
            }
            Err(e) => design.say(NoticeLevel::Error, format!("preset: {e}")),
        }
    };

    let params = move || {
        let Some(spec) = preset(&chosen.get()) else { return ().into_any() };
        spec.params
            .iter()
            .map(|p| {
                let name = p.name;
                let value = move || values.with(|v| v.get(name).cloned()).unwrap_or_else(|| p.default.to_string());
                let set = move |ev: leptos::ev::Event| {
                    let v = event_target_value(&ev);
                    values.update(|all| {
                        all.insert(name.to_string(), v);
                    });
                };
                if p.choices.is_empty() {
                    view! { <label class="design-field">{p.label}<input name=name prop:value=value on:input=set /></label> }.into_any()
                } else {
                    let options = p.choices.iter().map(|c| view! { <option value=*c>{*c}</option> }).collect_view();
                    view! { <label class="design-field">{p.label}<select name=name prop:value=value on:change=set>{options}</select></label> }.into_any()
                }
            })
            .collect_view()
            .into_any()
    };

    let options = PRESETS.iter().map(|p| view! { <option value=p.key>{p.label}</option> }).collect_view();
    view! {
        <div class="design-presets">
            <h2>"Start from a preset"</h2>
            <select data-testid="preset" aria-label="Preset" prop:value=move || chosen.get() on:change=move |ev| { chosen.set(event_target_value(&ev)); values.set(BTreeMap::new()); }>
                {options}
            </select>
            <div class="design-preset-params">{params}</div>
            <button data-testid="apply-preset" on:click=apply>"Apply preset"</button>
        </div>
    }
}
