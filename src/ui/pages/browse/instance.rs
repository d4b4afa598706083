//! The instance view: the sample's prompt coloured by role (`[data-testid="prompt"]`, whose text is the exact
//! prompt) with a copy button, its graph with every node's task and ground truth, the per-stage ground truths,
//! the final answer, seed and index, the sample's link (`a[data-testid="instance-link"]`), and the pictures of its
//! image tasks.

use leptos::prelude::*;

use crate::app::instance::drawing::Drawing;
use crate::app::instance::{prompt_chunks, Detail};
use crate::app::browse::link::{regenerating, Link};
use crate::ui::common::{GraphOutline, RoleLegend};
use crate::ui::state::{AppState, BrowseState, Source};
use crate::web::files::copy_text;

use super::graph::OverviewGraph;
use super::pictures::Pictures;

/// The link that reproduces a sample: regenerating for generated ones, by position for files and sites.
fn link_of(browse: BrowseState, detail: &Detail) -> Option<String> {
    let info = browse.info(&detail.dataset)?;
    let link = match info.source {
        Source::Generated { runs, graph, .. } => regenerating(&runs, graph.as_deref(), &detail.row)?,
        Source::Link { form, graph, target, .. } => Link::Regenerate { form, graph, target, sample: detail.row.sample_idx? },
        Source::File | Source::Hosted(_) => Link::Dataset { name: info.name, index: Some(detail.row.index) },
    };
    link.to_hash()
}

/// The prompt as coloured spans inside one `<pre>`; the spans' text is the prompt, character for character.
/// A large graph's prompt has thousands of pieces: they are made as plain elements with text content (never
/// markup), grouped into blocks of whole lines that the browser lays out only when they scroll into view, which
/// keeps opening such an instance within a frame's budget.
#[component]
fn Prompt(text: String, roles: Vec<(String, u32)>) -> impl IntoView {
    let pre = NodeRef::<leptos::html::Pre>::new();
    let chunks = StoredValue::new(prompt_chunks(&text, &roles));
    // Filled in a task of its own, after the rest of the view is on the page (which may be gone by then: another
    // sample was opened, or the view closed).
    let fill = move || {
        let Some(Some(el)) = pre.try_get_untracked() else { return };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        el.set_text_content(None);
        chunks.try_with_value(|chunks| {
            for chunk in chunks {
                let Ok(block) = document.create_element("span") else { continue };
                block.set_class_name("prompt-chunk");
                let _ = block.set_attribute("style", &format!("contain-intrinsic-block-size: auto {:.1}em", chunk.lines as f64 * PROMPT_LINE_EM));
                for (role, piece) in &chunk.pieces {
                    if let Ok(span) = document.create_element("span") {
                        span.set_class_name(&format!("role-{role}"));
                        span.set_text_content(Some(piece));
                        let _ = block.append_child(&span);
                    }
                }
                let _ = el.append_child(&block);
            }
        });
    };
    Effect::new(move |_| {
        if pre.get().is_some() {
            set_timeout(fill, std::time::Duration::ZERO);
        }
    });
    view! { <pre class="prompt-view instance-prompt" data-testid="prompt" node_ref=pre></pre> }
}

/// The prompt's line height in ems (`.instance-prompt` in browse.css).
const PROMPT_LINE_EM: f64 = 1.4;

/// The instance view of `browse.detail`.
#[component]
pub fn InstanceView() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let copied = RwSignal::new(false);
    move || {
        let Some(detail) = browse.detail.get() else {
            return view! { <aside class="instance panel"><p class="muted">"Loading the sample…"</p></aside> }.into_any();
        };
        let link = link_of(browse, &detail);
        let prompt_text = detail.prompt.clone();
        let copy = move |_| {
            let text = prompt_text.clone();
            leptos::task::spawn_local(async move {
                if copy_text(&text).await.is_ok() {
                    copied.set(true);
                }
            });
        };
        let row = detail.row.clone();
        let seed = detail.seed.map(|s| s.to_string()).unwrap_or_else(|| "not recorded".into());
        let sample = row.sample_idx.map(|s| s.to_string()).unwrap_or_else(|| "–".into());
        let target_name = detail.answer_name.clone();
        let truths = detail
            .stages
            .iter()
            .map(|s| {
                let is_target = s.name == target_name;
                view! { <tr class:instance-truth--target=is_target><td class="mono">{s.name.clone()}</td><td>{s.task.clone()}</td><td class="mono instance-truth">{s.truth.clone()}</td></tr> }
            })
            .collect_view();
        let outline = detail.outline.clone();
        let drawing = match detail.drawing.clone() {
            // A wide graph scrolls inside itself: a focusable, named region so the keyboard can scroll it.
            Drawing::Svg { svg, .. } => view! { <div class="graph-svg instance-graph" inner_html=svg tabindex="0" role="region" aria-label="Instance graph drawing"></div> }.into_any(),
            Drawing::Overview(overview) => view! { <OverviewGraph overview=overview /> }.into_any(),
            Drawing::Unavailable { reason } => view! { <p class="muted">"No drawing: "{reason}</p> }.into_any(),
        };
        view! {
            <aside class="instance panel" id="instance-view" aria-label="instance">
                <header class="instance-head">
                    <h2>{row.target.clone()}<span class="muted">{format!(" · sample {sample} · #{}", row.index)}</span></h2>
                    <button class="instance-close" title="close (Escape)" on:click=move |_| browse.close()>"×"</button>
                </header>
                <dl class="instance-facts">
                    <dt>"answer"</dt><dd class="mono" id="instance-answer">{format!("{} = {}", detail.answer_name, detail.answer)}</dd>
                    <dt>"topology"</dt><dd>{row.topology.clone()}" · "{row.family.clone()}" · "{row.stages}" task(s)"</dd>
                    <dt>"seed"</dt><dd id="instance-seed">{seed}</dd>
                    <dt>"index"</dt><dd>{format!("{} in {}", row.index, browse.info(&detail.dataset).map(|d| d.name).unwrap_or_default())}</dd>
                    <dt>"link"</dt>
                    <dd>{match link {
                        Some(href) => view! { <a data-testid="instance-link" id="instance-link" href=href>"link to this sample"</a> }.into_any(),
                        None => view! { <span class="muted">"no link: the graph is too large to carry in a URL"</span> }.into_any(),
                    }}</dd>
                </dl>
                <div class="instance-prompt-head">
                    <h3>"Prompt"</h3>
                    <button id="instance-copy" on:click=copy>{move || if copied.get() { "copied" } else { "copy" }}</button>
                </div>
                <RoleLegend />
                {(!detail.roles_exact).then(|| view! { <p class="muted instance-note">"This file stores no roles: the colours are recognised from the text."</p> })}
                <Prompt text=detail.prompt.clone() roles=detail.roles.clone() />
                {(!detail.pictures.is_empty()).then(|| view! { <Pictures pictures=detail.pictures.clone() /> })}
                <h3>"Graph"</h3>
                {drawing}
                {(!outline.is_empty()).then(|| {
                    let count = outline.len();
                    view! { <GraphOutline outline=Signal::derive(move || (outline.clone(), Vec::new())) count=count /> }
                })}
                <h3>"Ground truths"</h3>
                <table class="instance-truths"><thead><tr><th>"output"</th><th>"task"</th><th>"ground truth"</th></tr></thead><tbody>{truths}</tbody></table>
            </aside>
        }
        .into_any()
    }
}
