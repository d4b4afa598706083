//! The graph outline (`[data-testid="graph-outline"]`): `app::design::outline`'s entries as an ordered list,
//! each a button named by its whole sentence, so a screen reader walks the graph node by node and a keyboard
//! user tabs through it. Clicking an entry hands its node id to `pick` (Design selects and centres the node);
//! without `pick` (a record's graph on Browse and Results) the entries are plain text, notes included.
//! The entries are computed and drawn only while the outline is open.

use leptos::prelude::*;

use crate::app::design::outline::OutlineItem;

/// Entries drawn at most; the rest are counted.
const SHOWN: usize = 400;

/// The outline of a graph of `count` nodes. `outline` (the entries in topological order and the problems that
/// belong to no node) is read only while the outline is open, so a closed outline costs nothing when the graph
/// changes.
#[component]
pub fn GraphOutline(
    /// The entries and the graph's own problems; computed when read.
    outline: Signal<(Vec<OutlineItem>, Vec<String>)>,
    /// How many nodes the graph has (for the summary line).
    #[prop(into)]
    count: Signal<usize>,
    /// What clicking an entry does with its node id.
    #[prop(optional)]
    pick: Option<Callback<String>>,
    /// Open at first.
    #[prop(optional)]
    open: bool,
) -> impl IntoView {
    let is_open = RwSignal::new(open);
    let toggle = move |ev: leptos::ev::Event| {
        let details: web_sys::HtmlDetailsElement = event_target(&ev);
        is_open.set(details.open());
    };
    view! {
        <details class="graph-outline" data-testid="graph-outline" open=open on:toggle=toggle>
            <summary>{move || format!("Outline: {} node{}, sources first", count.get(), if count.get() == 1 { "" } else { "s" })}</summary>
            {move || is_open.get().then(|| outline.with(|(items, problems)| view! {
                {(!problems.is_empty()).then(|| view! {
                    <ul class="graph-outline-problems">{problems.iter().map(|text| view! { <li class="issue--error">{text.clone()}</li> }).collect_view()}</ul>
                })}
                // Without buttons inside (a record's graph), the list itself takes the focus so the keyboard can scroll it.
                <ol class="graph-outline-list" tabindex=pick.is_none().then_some("0") aria-label="Graph outline: each node, sources first, with its inputs and what it feeds">
                    {items.iter().take(SHOWN).map(|item| entry(item, pick)).collect_view()}
                    {(items.len() > SHOWN).then(|| view! { <li class="graph-outline-more">{format!("… and {} more nodes", items.len() - SHOWN)}</li> })}
                </ol>
            }))}
        </details>
    }
}

/// One node's entry: a button named by its sentence, then what it is, its edges and its problems.
fn entry(item: &OutlineItem, pick: Option<Callback<String>>) -> impl IntoView {
    let id = item.id.clone();
    let click = move |_| {
        if let Some(pick) = pick {
            pick.run(id.clone());
        }
    };
    let inputs = if item.inputs.is_empty() { "no inputs".to_string() } else { format!("from {}", item.inputs.join(", ")) };
    let feeds = if item.feeds.is_empty() { String::new() } else { format!(" · feeds {}", item.feeds.join(", ")) };
    view! {
        <li data-node-id=item.id.clone() class:graph-outline-target=item.target class:graph-outline-problem=!item.problems.is_empty()
            style=format!("--outline-level: {}", item.level.min(12))>
            {match pick {
                Some(_) => view! { <button type="button" class="graph-outline-node mono" aria-label=item.sentence() on:click=click>{item.id.clone()}</button> }.into_any(),
                // Nothing to select (a record's graph): plain text, read in full with the rest of the entry.
                None => view! { <span class="graph-outline-node graph-outline-node--text mono">{item.id.clone()}</span> }.into_any(),
            }}
            <span class="graph-outline-what">{item.what.clone()}{item.target.then_some(" · target")}</span>
            <span class="graph-outline-edges muted">{inputs}{feeds}</span>
            {(!item.notes.is_empty()).then(|| view! { <span class="graph-outline-notes">{item.notes.join(" · ")}</span> })}
            {item.problems.iter().map(|p| view! { <span class="graph-outline-issue">{p.clone()}</span> }).collect_view()}
        </li>
    }
}
