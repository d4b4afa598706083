//! The list's filters (topology, family, target task, chain length, text in the prompt) and sort order. The
//! menus offer the values present in the shown dataset, with counts; the text search waits for a pause in
//! typing. Every change goes to `BrowseState::set_query`.

use leptos::prelude::*;

use crate::app::browse::catalog::{Facets, Query, SortKey};
use crate::ui::state::AppState;

/// Milliseconds of quiet typing before the text search runs.
const SEARCH_DELAY_MS: i32 = 200;

/// The filter bar.
#[component]
pub fn Filters() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let facets = Memo::new(move |_| match browse.current.get() {
        Some(key) => browse.with_rows(&key, |rows| Facets::of(rows.iter().flatten())),
        None => Facets::default(),
    });
    let change = move |f: &dyn Fn(&mut Query)| {
        let mut query = browse.query.get_untracked();
        f(&mut query);
        browse.set_query(query);
    };
    let select = move |label: &'static str, id: &'static str, values: Signal<Vec<(String, usize)>>, current: Signal<String>, apply: fn(&mut Query, String)| {
        view! {
            <label>{label}" "
                <select id=id prop:value=move || current.get() on:change=move |ev| {
                    let value = event_target_value(&ev);
                    change(&|q| apply(q, value.clone()));
                }>
                    <option value="" selected=move || current.get().is_empty()>"any"</option>
                    // Marked selected as they are made: a filter restored from the address before its values
                    // arrive shows once they do.
                    {move || values.get().into_iter().map(|(v, n)| {
                        let chosen = current.get_untracked() == v;
                        view! { <option value=v.clone() selected=chosen>{format!("{v} ({n})")}</option> }
                    }).collect_view()}
                </select>
            </label>
        }
    };
    let topologies = Signal::derive(move || facets.get().topologies);
    let families = Signal::derive(move || facets.get().families);
    let targets = Signal::derive(move || facets.get().targets);
    let stages = Signal::derive(move || facets.get().stages.into_iter().map(|(k, n)| (k.to_string(), n)).collect());
    let typing = StoredValue::new(None::<i32>);
    let on_search = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        if let Some(timer) = typing.get_value() {
            window().clear_timeout_with_handle(timer);
        }
        let run = wasm_bindgen::closure::Closure::once_into_js(move || change(&|q| q.text = value.clone()));
        let timer = window().set_timeout_with_callback_and_timeout_and_arguments_0(wasm_bindgen::JsCast::unchecked_ref(&run), SEARCH_DELAY_MS).ok();
        typing.set_value(timer);
    };
    let shown = move || {
        let total = browse.current_info().map(|d| d.total).unwrap_or(0);
        match browse.view.get() {
            Some(kept) => format!("{} of {total} shown", kept.len()),
            None => format!("{total} shown"),
        }
    };
    view! {
        <div class="browse-filters panel" role="search">
            {select("Topology", "filter-topology", topologies, Signal::derive(move || browse.query.get().topology), |q, v| q.topology = v)}
            {select("Family", "filter-family", families, Signal::derive(move || browse.query.get().family), |q, v| q.family = v)}
            {select("Target", "filter-target", targets, Signal::derive(move || browse.query.get().target), |q, v| q.target = v)}
            {select("Stages", "filter-stages", stages, Signal::derive(move || browse.query.get().stages.map(|n| n.to_string()).unwrap_or_default()), |q, v| q.stages = v.parse().ok())}
            <label class="browse-search">"Prompt contains "
                <input id="filter-text" type="search" placeholder="text, e.g. task_3_out or Convolution" prop:value=move || browse.query.get().text on:input=on_search />
            </label>
            <label>"Sort "
                <select id="filter-sort" prop:value=move || browse.query.get().sort.as_str() on:change=move |ev| {
                    let key = SortKey::parse(&event_target_value(&ev));
                    change(&|q| q.sort = key);
                }>
                    {SortKey::ALL.into_iter().map(|k| view! { <option value=k.as_str()>{k.as_str().replace('_', " ")}</option> }).collect_view()}
                </select>
            </label>
            <button id="filter-direction" title="reverse the order" on:click=move |_| change(&|q| q.descending = !q.descending)>
                {move || if browse.query.get().descending { "↓ descending" } else { "↑ ascending" }}
            </button>
            <button id="filter-clear" disabled=move || browse.query.with(Query::is_identity) on:click=move |_| browse.set_query(Query::default())>"Clear"</button>
            <span class="muted browse-count" id="browse-count">{shown}</span>
        </div>
    }
}
