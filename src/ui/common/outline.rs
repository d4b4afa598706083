//! The graph outline (`[data-testid="graph-outline"]`): `app::editor::outline`'s entries as an ordered list,
//! each a button named by its whole sentence, so a screen reader walks the graph node by node and a keyboard
//! user tabs through it. Clicking an entry hands its node id to `pick` (Design selects and centres the node).

use leptos::prelude::*;

use crate::app::editor::outline::OutlineItem;

/// Entries drawn at most; the rest are counted.
const SHOWN: usize = 400;

/// The outline of a graph: `items` in topological order, `problems` that belong to no node.
#[component]
pub fn GraphOutline(
    /// The entries.
    #[prop(into)]
    items: Signal<Vec<OutlineItem>>,
    /// Problems of the whole graph.
    #[prop(into)]
    problems: Signal<Vec<String>>,
    /// What clicking an entry does with its node id.
    #[prop(optional)]
    pick: Option<Callback<String>>,
    /// Open at first.
    #[prop(optional)]
    open: bool,
) -> impl IntoView {
    let count = move || items.with(Vec::len);
    view! {
        <details class="graph-outline" data-testid="graph-outline" open=open>
            <summary>{move || format!("Outline: {} node{}, sources first", count(), if count() == 1 { "" } else { "s" })}</summary>
            {move || problems.with(|p| (!p.is_empty()).then(|| view! {
                <ul class="graph-outline-problems">{p.iter().map(|text| view! { <li class="issue--error">{text.clone()}</li> }).collect_view()}</ul>
            }))}
            <ol class="graph-outline-list" aria-label="Graph outline: each node, sources first, with its inputs and what it feeds">
                {move || items.with(|all| {
                    let more = all.len().saturating_sub(SHOWN);
                    let entries = all.iter().take(SHOWN).map(|item| {
                        let id = item.id.clone();
                        let sentence = item.sentence();
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
                                <button type="button" class="graph-outline-node mono" aria-label=sentence on:click=click>{item.id.clone()}</button>
                                <span class="graph-outline-what">{item.what.clone()}{item.target.then_some(" · target")}</span>
                                <span class="graph-outline-edges muted">{inputs}{feeds}</span>
                                {item.problems.iter().map(|p| view! { <span class="graph-outline-issue">{p.clone()}</span> }).collect_view()}
                            </li>
                        }
                    }).collect_view();
                    view! {
                        {entries}
                        {(more > 0).then(|| view! { <li class="graph-outline-more">{format!("… and {more} more nodes")}</li> })}
                    }
                })}
            </ol>
        </details>
    }
}
