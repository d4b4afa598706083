//! Design: edit a custom task graph (node-link JSON, as the reference and the CLI read it), with live
//! validation located on nodes, a layered drawing, and generation of samples from the graph; plus a box to
//! paste a Python function and run it or turn it into a tracing task.

use leptos::prelude::*;

use crate::engine::generate::{self, GenerateConfig, Topology};
use crate::engine::graph::{self, GraphIssue, Severity, ValidGraph};
use crate::engine::render::{to_svg, RenderOptions};
use crate::engine::tasks::Family;
use crate::ui::common::{ErrorView, PromptView, RoleLegend};
use crate::app::jobs::roles_of;
use crate::ui::state::{with_registry, AppState};
use crate::web::download::download_text;

mod python_box;

/// Example graphs offered in the designer.
const EXAMPLES: [(&str, &str); 2] = [
    ("diamond (pick / pack)", include_str!("../../../../public/examples/diamond.json")),
    ("chain of four", include_str!("../../../../public/examples/chain4.json")),
];

/// The result of checking the text: parse errors, or the graph's issues and drawing.
#[derive(Clone, Debug, Default, PartialEq)]
struct Checked {
    errors: Vec<String>,
    issues: Vec<GraphIssue>,
    svg: String,
    nodes: usize,
    edges: usize,
}

fn check(text: &str) -> Checked {
    match graph::from_json_str(text) {
        Err(errors) => Checked { errors: errors.iter().map(|e| e.to_string()).collect(), ..Checked::default() },
        Ok(graph) => {
            let issues = with_registry(|r| graph.issues(r));
            let svg = to_svg(&graph, &RenderOptions::default()).unwrap_or_default();
            Checked { errors: Vec::new(), issues, svg, nodes: graph.nodes().len(), edges: graph.edges().len() }
        }
    }
}

/// The Design page.
#[component]
pub fn DesignPage() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let text = design.text;
    // The text is the editor of record here: every parsed version becomes the state's graph.
    let set_text = move |value: String| {
        match graph::from_json_str(&value) {
            Ok(parsed) => design.replace(parsed, value),
            Err(_) => text.set(value),
        }
    };
    let checked = Memo::new(move |_| check(&text.get()));
    let sample = RwSignal::new(None);
    let error = RwSignal::new(String::new());

    let generate = move |_| {
        error.set(String::new());
        let parsed = match graph::from_json_str(&text.get_untracked()) {
            Ok(g) => g,
            Err(_) => return error.set("fix the JSON errors first".into()),
        };
        let result = with_registry(|r| {
            let valid = ValidGraph::new(parsed, r).map_err(|issues| format!("the graph has {} problem(s); see the list", issues.len()))?;
            let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]);
            config.samples_per_target = 1;
            generate::generate_sample(&config, r, 0, 0).map_err(|e| e.to_string())
        });
        match result {
            Ok(s) => sample.set(Some(s)),
            Err(e) => error.set(e),
        }
    };

    let issue_rows = move || {
        let c = checked.get();
        let mut rows: Vec<(String, &'static str, String)> = c.errors.iter().map(|e| ("file".to_string(), "error", e.clone())).collect();
        rows.extend(c.issues.iter().map(|i| {
            let level = if i.severity == Severity::Error { "error" } else { "warning" };
            (i.node.as_ref().map(|n| n.0.clone()).unwrap_or_else(|| "graph".into()), level, i.message.clone())
        }));
        rows
    };

    view! {
        <section class="page page-design" id="page-design">
            <h1>"Design a task graph"</h1>
            <p class="muted">
                "Task nodes have a family, declared input and output kinds (scalar or list) and optionally a pinned task_id; "
                "pick adapters take one element of a list, pack adapters recombine scalars (edges carry a slot) into a 10-element list. "
                "The file format is NetworkX node-link JSON, as read by "<code>"arbigraph generate --topology custom"</code>"."
            </p>
            <div class="panel">
                "Start from an example: "
                {EXAMPLES.iter().map(|(name, json)| {
                    let json = json.to_string();
                    view! { <button on:click=move |_| set_text(json.clone())>{*name}</button>" " }
                }).collect_view()}
                <button id="design-download" on:click=move |_| {
                    if let Err(e) = download_text("graph.json", "application/json", &text.get_untracked()) { error.set(e.to_string()) }
                }>"Download graph"</button>
            </div>
            <div class="row">
                <div class="grow">
                    <textarea id="design-json" rows="24" style="width:100%" spellcheck="false"
                        prop:value=move || text.get()
                        on:input=move |ev| set_text(event_target_value(&ev))></textarea>
                    <p class="muted" id="design-counts">
                        {move || { let c = checked.get(); format!("{} nodes, {} edges", c.nodes, c.edges) }}
                    </p>
                    <table id="design-issues">
                        <tbody>
                            {move || {
                                let rows = issue_rows();
                                if rows.is_empty() {
                                    view! { <tr><td class="issue-ok">"No problems: the graph is valid."</td></tr> }.into_any()
                                } else {
                                    rows.into_iter().map(|(node, level, message)| view! {
                                        <tr class=format!("issue issue--{level}")><td class="mono">{node}</td><td>{level}</td><td>{message}</td></tr>
                                    }).collect_view().into_any()
                                }
                            }}
                        </tbody>
                    </table>
                    <button class="primary" id="design-generate" on:click=generate>"Generate a sample from this graph"</button>
                    <ErrorView message=Signal::derive(move || error.get()) />
                </div>
                <div class="grow graph-svg" id="design-svg" inner_html=move || checked.get().svg></div>
            </div>
            {move || sample.get().map(|s| view! {
                <h2>"Sample (seed 0)"</h2>
                <p>"Graded output "<code>{s.target_output_name.clone()}</code>" = "<code id="design-answer">{s.ground_truth.repr()}</code></p>
                <RoleLegend />
                <PromptView text=s.prompt.text().to_string() roles=roles_of(&s.prompt) />
            })}
            <python_box::PythonBox />
        </section>
    }
}
