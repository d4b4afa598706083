//! One sample's transcript (`[data-testid="transcript"]`): the verdict and the answer against the truth, the
//! run's strategy, turns and tokens, what the file does not record, where the chain broke (the instance graph
//! with each node's status, `[data-testid="break-graph"]`), and the conversation: every message with its role,
//! its text (always as text), folded reasoning, tool calls with their results, harness messages marked with
//! their purpose, the answers each turn gave, the pictures sent, and before each turn the request that asked
//! for it with how much of the conversation it carried. The reading is `app::results::transcript`.

use leptos::prelude::*;

use crate::app::instance::{PictureSource, PictureView};
use crate::app::results::transcript::{brief, context_curve_of, transcript_of, BreakDrawing, Breaks, Entry, MessageView, RequestView, Role, Transcript, TurnView};
use crate::ui::common::GraphOutline;
use crate::ui::state::AppState;
use crate::engine::sort;

/// Entries drawn before the rest waits behind a button (a run of thousands of turns stays quick to open).
const FIRST_ENTRIES: usize = 300;
/// Nodes listed by name at most (a huge graph's list of breaks stays short).
const LISTED_NODES: usize = 200;

/// The transcript of the sample `open` names, if any; when `reveal` is set, the page scrolls to it once drawn
/// (and clears `reveal`).
#[component]
pub fn TranscriptPanel(open: RwSignal<Option<usize>>, reveal: RwSignal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let transcript: Memo<Option<Transcript>> = Memo::new(move |_| {
        let index = open.get()?;
        state.results.with(|r| r.as_ref()?.json().get("samples")?.as_array()?.get(index).map(|sample| transcript_of(sample, index)))
    });
    move || transcript.get().map(|t| view! { <TranscriptView transcript=t open=open reveal=reveal /> })
}

/// One sample's transcript; `open` is set to `None` by its close button.
#[component]
pub(super) fn TranscriptView(transcript: Transcript, open: RwSignal<Option<usize>>, reveal: RwSignal<bool>) -> impl IntoView {
    let section = NodeRef::<leptos::html::Section>::new();
    Effect::new(move |_| {
        if let (Some(el), true) = (section.get(), reveal.get_untracked()) {
            el.scroll_into_view();
            reveal.set(false);
        }
    });
    let curve = context_curve_of(&transcript);
    let Transcript { index, head, entries, pictures, notes, breaks } = transcript;
    let verdict = head.verdict.as_str();
    let answer_line = match &head.given {
        Some(given) => format!("{} = {} given; the ground truth is {}", head.output, brief(given, 200), head.truth),
        None => format!("no answer for {}; the ground truth is {}", head.output, head.truth),
    };
    let repairs = (!head.repairs.is_empty()).then(|| head.repairs.iter().map(|(k, n)| format!("{k} × {n}")).collect::<Vec<_>>().join(", "));
    let total = entries.len();
    let show_all = RwSignal::new(total <= FIRST_ENTRIES);
    let entries = StoredValue::new(entries);
    let pictures = StoredValue::new(pictures);
    let conversation = move || {
        let limit = if show_all.get() { usize::MAX } else { FIRST_ENTRIES };
        entries.with_value(|entries| pictures.with_value(|pictures| entries.iter().take(limit).map(|e| entry_view(e, pictures)).collect_view()))
    };
    view! {
        <section class="panel tx" data-testid="transcript" data-index=index aria-label="transcript" node_ref=section>
            <header class="tx-head">
                <h2>{format!("Sample #{index}")}<span class="muted">{format!(" · {}", if head.target.is_empty() { "task not named" } else { head.target.as_str() })}</span></h2>
                <button class="tx-close" title="close (Escape in the list)" on:click=move |_| open.set(None)>"×"</button>
            </header>
            <p class="tx-verdict-line">
                <span class=format!("tx-verdict tx-verdict--{verdict}") data-testid="transcript-verdict">{verdict}</span>
                " "<span class="muted">{if head.status.is_empty() { "no status recorded".to_string() } else { format!("status {}", head.status) }}</span>
                " · "<span class="mono" data-testid="transcript-answer">{answer_line}</span>
            </p>
            {head.error.clone().map(|e| view! { <p class="error-view tx-error">{e}</p> })}
            <dl class="tx-facts">
                <dt>"strategy"</dt><dd data-testid="transcript-strategy">{head.strategy.clone().unwrap_or_else(|| "not recorded".into())}</dd>
                <dt>"turns"</dt><dd>{head.turns.map(|t| t.to_string()).unwrap_or_else(|| "not recorded".into())}
                    {head.tool_calls.map(|c| format!(" · {c} tool call{}", if c == 1 { "" } else { "s" }))}</dd>
                <dt>"tokens"</dt><dd data-testid="transcript-tokens">{head.tokens.describe()}</dd>
                {repairs.map(|r| view! { <dt>"repairs"</dt><dd>{r}</dd> })}
            </dl>
            {(!notes.is_empty()).then(|| view! {
                <ul class="tx-notes" data-testid="transcript-notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            })}
            <h3>"Where the chain broke"</h3>
            <BreakView breaks=breaks />
            {curve.map(|svg| view! {
                <h3>"Context curve"</h3>
                // Built by app::results::charts from numbers and escaped labels only.
                <figure class="results-chart tx-curve" data-testid="sample-context-curve">
                    <div inner_html=svg tabindex="0" role="region" aria-label="Context curve of this sample"></div>
                    <figcaption>"Prompt tokens of each turn's request: how the context grew (or was kept small by the strategy)."</figcaption>
                </figure>
            })}
            <h3>"Conversation"</h3>
            <div class="tx-conversation">{conversation}</div>
            <Show when=move || !show_all.get()>
                <button class="tx-more" on:click=move |_| show_all.set(true)>{format!("Show the remaining {} entries", total.saturating_sub(FIRST_ENTRIES))}</button>
            </Show>
        </section>
    }
}

/// The graph with the statuses, its legend, and the broken nodes by name.
#[component]
fn BreakView(breaks: Breaks) -> impl IntoView {
    let Breaks { nodes, first_breaks, graded_here, drawing, outline } = breaks;
    if nodes.is_empty() {
        return view! { <p class="muted">"No node statuses: the record has none and its answers could not be graded."</p> }.into_any();
    }
    let broken = nodes.iter().filter(|n| n.status != "correct").count();
    let summary = if broken == 0 {
        if nodes.len() == 1 { "The graded output is correct.".to_string() } else { format!("All {} graded outputs are correct.", nodes.len()) }
    } else {
        format!(
            "{broken} of {} graded output{} {} wrong or missing; the chain first broke at {}.",
            nodes.len(),
            if nodes.len() == 1 { "" } else { "s" },
            if broken == 1 { "is" } else { "are" },
            if first_breaks.is_empty() { "no single node (every failed node has a failed input)".to_string() } else { first_breaks.join(", ") }
        )
    };
    let graph = NodeRef::<leptos::html::Div>::new();
    // A wide graph scrolls sideways: bring the first break into view.
    Effect::new(move |_| {
        let Some(el) = graph.get() else { return };
        if let Ok(Some(node)) = el.query_selector(".node.first-break") {
            let (frame, node) = (el.get_bounding_client_rect(), node.get_bounding_client_rect());
            let offset = node.left() - frame.left() + node.width() / 2.0 - frame.width() / 2.0;
            el.set_scroll_left(el.scroll_left() + offset.round() as i32);
        }
    });
    let drawing = match drawing {
        // Built by the engine's renderer from escaped text only.
        BreakDrawing::Svg(svg) => view! {
            // A wide graph scrolls inside itself: a focusable, named region so the keyboard can scroll it.
            <div class="graph-svg tx-graph" data-testid="break-graph" node_ref=graph inner_html=svg tabindex="0" role="region" aria-label="Where the chain broke: the drawing"></div>
        }
        .into_any(),
        BreakDrawing::TooLarge { nodes } => view! {
            <p class="muted" data-testid="break-graph-too-large">{format!("The graph has {nodes} nodes, more than the drawing shows here: the broken nodes are listed instead.")}</p>
        }
        .into_any(),
        BreakDrawing::Unavailable { reason } => view! { <p class="muted">"No drawing: "{reason}</p> }.into_any(),
    };
    let mut listed: Vec<_> = nodes.into_iter().filter(|n| n.status != "correct").collect();
    sort::by_key(&mut listed, |n| !n.first_break);
    let more = listed.len().saturating_sub(LISTED_NODES);
    let items = listed
        .into_iter()
        .take(LISTED_NODES)
        .map(|n| {
            let node = n.node.clone().map(|id| format!(" (node {id})")).unwrap_or_default();
            view! {
                <li class:tx-first-break=n.first_break>
                    <span class="mono">{n.output.clone()}</span>{node}" "
                    <span class=format!("tx-status tx-status--{}", n.status)>{n.status}</span>
                    {n.first_break.then_some(" · first break")}
                </li>
            }
        })
        .collect_view();
    view! {
        <p data-testid="break-summary">{summary}{graded_here.then_some(" (graded here from the stored answers)")}</p>
        <ul class="tx-legend" aria-label="legend">
            <li><span class="tx-swatch tx-swatch--correct"></span>"correct"</li>
            <li><span class="tx-swatch tx-swatch--wrong"></span>"wrong"</li>
            <li><span class="tx-swatch tx-swatch--missing"></span>"missing (no answer)"</li>
            <li><span class="tx-swatch tx-swatch--first-break"></span>"first break: failed with every input correct"</li>
            <li><span class="tx-swatch tx-swatch--ungraded"></span>"not graded (adapters)"</li>
        </ul>
        {drawing}
        {(!outline.is_empty()).then(|| {
            let count = outline.len();
            view! { <GraphOutline outline=Signal::derive(move || (outline.clone(), Vec::new())) count=count /> }
        })}
        {(broken > 0).then(|| view! {
            <ul class="tx-broken" data-testid="broken-nodes">{items}{(more > 0).then(|| view! { <li class="muted">{format!("and {more} more")}</li> })}</ul>
        })}
    }
    .into_any()
}

fn entry_view(entry: &Entry, pictures: &[PictureView]) -> AnyView {
    match entry {
        Entry::Message(m) => message_view(m, pictures),
        Entry::Request(r) => request_view(r),
        Entry::Turn(t) => turn_view(t),
    }
}

fn request_view(r: &RequestView) -> AnyView {
    let partial = r.is_partial();
    view! {
        <div class="tx-request" class:tx-request--partial=partial data-testid="transcript-request" data-kind=r.kind.clone()
            title="what the context strategy sent for this call, out of the messages the conversation had">
            <span class="tx-request-arrow" aria-hidden="true">"→ "</span>{r.describe()}
        </div>
    }
    .into_any()
}

/// Text in a `<pre>`, set as text (never markup).
fn text_block(text: &str, class: &'static str) -> AnyView {
    if text.is_empty() {
        view! { <p class="muted tx-empty-text">"(no text)"</p> }.into_any()
    } else {
        // A long text scrolls inside itself (24rem at most): focusable so the keyboard can scroll it.
        view! { <pre class=class tabindex="0">{text.to_string()}</pre> }.into_any()
    }
}

fn reasoning_view(reasoning: Option<&String>) -> Option<AnyView> {
    reasoning.map(|r| {
        view! {
            <details class="tx-reasoning" data-testid="reasoning">
                <summary>{format!("reasoning ({} characters)", r.chars().count())}</summary>
                <pre class="tx-text" tabindex="0">{r.clone()}</pre>
            </details>
        }
        .into_any()
    })
}

fn answers_view(answers: &[(String, String)]) -> Option<AnyView> {
    (!answers.is_empty()).then(|| {
        let text = answers.iter().map(|(name, value)| format!("{name} = {}", brief(value, 120))).collect::<Vec<_>>().join(", ");
        view! { <p class="tx-answers" data-testid="turn-answers"><span class="muted">"answers collected this turn: "</span><span class="mono">{text}</span></p> }.into_any()
    })
}

fn picture_view(picture: &PictureView) -> AnyView {
    let caption = format!("Image {} · task {}", picture.image_index, picture.task_number);
    match &picture.source {
        PictureSource::Inline(url) => view! {
            <figure class="tx-picture">
                <img src=url.clone() alt=format!("Image {} sent for task {}", picture.image_index, picture.task_number) data-testid="transcript-picture" />
                <figcaption class="muted">{caption}</figcaption>
            </figure>
        }
        .into_any(),
        PictureSource::File(file) => view! { <p class="muted">{format!("{caption}: a file beside the dataset ({file}), not in this results file.")}</p> }.into_any(),
        PictureSource::Missing => view! { <p class="muted">{format!("{caption}: not in this results file.")}</p> }.into_any(),
    }
}

fn message_view(m: &MessageView, pictures: &[PictureView]) -> AnyView {
    let class = m.role.class();
    let (start, count) = m.pictures;
    let shown: Vec<AnyView> = pictures.iter().skip(start).take(count).map(picture_view).collect();
    let calls = m
        .calls
        .iter()
        .map(|c| {
            view! {
                <div class="tx-call" data-testid="tool-call">
                    <div class="tx-call-head">"calls "<code class="tx-call-name">{c.name.clone()}</code>" "<span class="muted mono">{c.id.clone()}</span></div>
                    <pre class="tx-text tx-args" tabindex="0">{c.arguments.clone()}</pre>
                    {match &c.result {
                        Some(result) => view! {
                            <div class="tx-result" data-testid="tool-result"><span class="muted">"result"</span><pre class="tx-text" tabindex="0">{result.clone()}</pre></div>
                        }.into_any(),
                        None => view! { <p class="muted">"No result for this call in the transcript."</p> }.into_any(),
                    }}
                </div>
            }
        })
        .collect_view();
    let system = m.role == Role::System;
    let body = if system {
        view! {
            <details class="tx-system"><summary>{format!("system prompt ({} characters)", m.content.chars().count())}</summary>{text_block(&m.content, "tx-text")}</details>
        }
        .into_any()
    } else {
        text_block(&m.content, "tx-text")
    };
    let harness = m.purpose.as_ref().map(|p| view! { <span class="tx-harness" data-testid="harness-marker">{format!("harness · {p}")}</span> });
    let unmatched = m.unmatched_tool.as_ref().map(|(name, id)| {
        let id = if id.is_empty() { "no call id".to_string() } else { format!("answers {id}, which no call names") };
        view! { <span class="muted">{format!("{} · {id}", if name.is_empty() { "tool result" } else { name.as_str() })}</span> }
    });
    view! {
        <article class=format!("tx-msg tx-msg--{class}") class:tx-msg--harness=m.purpose.is_some() data-testid="transcript-message"
            data-role=m.role.label().to_string() data-position=m.position data-purpose=m.purpose.clone()>
            <header class="tx-msg-head">
                <span class=format!("tx-role tx-role--{class}")>{m.role.label().to_string()}</span>
                {m.turn.map(|t| view! { <span class="muted">{format!("turn {}", t + 1)}</span> })}
                {harness}
                {unmatched}
            </header>
            {reasoning_view(m.reasoning.as_ref())}
            {body}
            {(!shown.is_empty()).then(|| view! { <div class="tx-pictures">{shown}</div> })}
            {calls}
            {answers_view(&m.answers)}
        </article>
    }
    .into_any()
}

fn turn_view(t: &TurnView) -> AnyView {
    view! {
        <article class="tx-msg tx-msg--assistant" data-testid="transcript-message" data-role="assistant" data-turn=t.turn>
            <header class="tx-msg-head">
                <span class="tx-role tx-role--assistant">"assistant"</span>
                <span class="muted">{format!("turn {} · output as stored", t.turn + 1)}</span>
            </header>
            {reasoning_view(t.reasoning.as_ref())}
            {text_block(&t.text, "tx-text")}
            {answers_view(&t.answers)}
        </article>
    }
    .into_any()
}
