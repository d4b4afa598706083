//! The issue list beside the canvas: every validation issue (and the JSON panel's parse errors), each on
//! its node; clicking one selects and centres its node. The page never blocks on a broken graph. Below it, the
//! graph's text outline (`ui::common::GraphOutline`), whose entries select and centre their nodes too.

use leptos::prelude::*;

use crate::app::design::outline::outline;
use crate::engine::graph::{NodeId, Severity};
use crate::ui::common::GraphOutline;
use crate::ui::state::AppState;

/// Issues listed at most (the count says how many more).
const SHOWN: usize = 200;

/// The issue list.
#[component]
pub fn IssueList() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let rows = move || {
        let parse_errors = design.json_errors.get();
        let issues = design.issues.get();
        let total = parse_errors.len() + issues.len();
        let mut rows: Vec<(Option<String>, &'static str, String)> = parse_errors.into_iter().map(|e| (None, "error", e)).collect();
        rows.extend(issues.into_iter().map(|i| {
            let level = if i.severity == Severity::Error { "error" } else { "warning" };
            (i.node.map(|n| n.0), level, i.message)
        }));
        (total, rows.into_iter().take(SHOWN).collect::<Vec<_>>())
    };
    let summary = move || {
        let issues = design.issues.get();
        let errors = issues.iter().filter(|i| i.severity == Severity::Error).count();
        let warnings = issues.len() - errors;
        match (errors, warnings) {
            (0, 0) => "No problems: the graph is valid.".to_string(),
            (0, w) => format!("Valid, with {w} warning{}.", if w == 1 { "" } else { "s" }),
            (e, w) => format!("{e} error{} and {w} warning{}: generation needs the errors fixed.", if e == 1 { "" } else { "s" }, if w == 1 { "" } else { "s" }),
        }
    };
    // The outline follows the graph and its issues; computed only when the outline reads it (while open).
    let shaped = Signal::derive(move || {
        design.graph_rev.track();
        let issues = design.issues.get();
        design.read(|m| outline(m.graph(), &issues))
    });
    let count = Signal::derive(move || {
        design.graph_rev.track();
        design.read(|m| m.graph().nodes().len())
    });
    let pick = Callback::new(move |id: String| design.update(|m| m.focus(&NodeId(id))));
    view! {
        <div class="design-issues">
            <h2>"Problems"</h2>
            <p class="design-issues-summary" class:issue-ok=move || design.issues.with(|i| i.is_empty()) && design.json_errors.with(Vec::is_empty)>{summary}</p>
            <ul data-testid="issues" id="design-issues" class="design-issue-list" tabindex="0" aria-label="Problems">
                {move || {
                    let (total, shown) = rows();
                    let more = total.saturating_sub(shown.len());
                    let items = shown.into_iter().map(|(node, level, message)| {
                        let focus = node.clone();
                        let title = if node.is_some() { "Select and centre this node" } else { "" };
                        let attr = node.clone().unwrap_or_default();
                        let label = node.unwrap_or_else(|| "graph".into());
                        let click = move |_| {
                            if let Some(id) = focus.clone() {
                                design.update(|m| m.focus(&NodeId(id)));
                            }
                        };
                        view! {
                            <li class=format!("issue issue--{level}") data-node-id=attr on:click=click
                                title=title>
                                <span class="issue-where mono">{label}</span>
                                <span class="issue-text">{message}</span>
                            </li>
                        }
                    }).collect_view();
                    view! {
                        {items}
                        {(more > 0).then(|| view! { <li class="issue issue--more">{format!("… and {more} more")}</li> })}
                    }
                }}
            </ul>
            <GraphOutline outline=shaped count=count pick=pick />
        </div>
    }
}
