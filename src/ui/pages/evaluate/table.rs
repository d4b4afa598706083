//! The run's table: a row per sample (`[data-testid="sample-row"]` with `data-status`), a finished one linking
//! to its transcript on Results and saying why it failed when it did (`[data-testid="sample-error"]`), a running
//! one showing its streamed reply. A run's rows are drawn `ROWS_PER_FRAME` at a time, one chunk per animation
//! frame, so starting a run of thousands of samples never holds the page for long; every row is in the page a few
//! frames later.

use std::collections::BTreeMap;

use leptos::prelude::*;

use crate::app::evaluate::board::Row;

/// Rows drawn per frame (about 200 rows build in a few tens of milliseconds in an optimised build).
const ROWS_PER_FRAME: usize = 200;

/// How many of the run's rows are drawn, and for which run and frame: `(run, frame, rows)`.
type Drawn = (u64, u64, usize);

/// The table of `rows`; `started` changes when a run lays out new rows, `live_text` holds streamed replies.
#[component]
pub fn RunTable(rows: RwSignal<Vec<Row>>, live_text: RwSignal<BTreeMap<usize, String>>, started: RwSignal<u64>) -> impl IntoView {
    let frame = RwSignal::new(0u64);
    // A new run starts again at one chunk; each frame after adds one.
    let drawn = Memo::new(move |previous: Option<&Drawn>| {
        let (run, now) = (started.get(), frame.get());
        match previous {
            Some(&(was_run, was_frame, count)) if was_run == run => (run, now, if now != was_frame { count + ROWS_PER_FRAME } else { count }),
            _ => (run, now, ROWS_PER_FRAME),
        }
    });
    // One frame asked for at a time: rows that change while it is pending (results streaming in) must not add
    // chunks to the same frame.
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        if drawn.get().2 < rows.with(Vec::len) && !pending.get_value() {
            pending.set_value(true);
            request_animation_frame(move || {
                pending.set_value(false);
                frame.update(|f| *f += 1);
            });
        }
    });
    view! {
        <table id="eval-rows">
            <thead><tr><th>"#"</th><th>"target"</th><th>"status"</th><th>"turns"</th><th>"correct"</th></tr></thead>
            <tbody>
                // Keyed by what a row shows: a finished sample redraws its own row only, so a long run stays light.
                <For each=move || { let count = drawn.get().2; rows.with(|r| r.iter().take(count).cloned().collect::<Vec<_>>()) }
                    key=|r| (r.index, r.status.clone(), r.correct, r.turns, r.error.clone()) let:r>
                    {
                        let (status, index, finished) = (r.status.clone(), r.index, r.correct.is_some());
                        let error = r.error.clone();
                        view! {
                            // A finished sample opens its transcript on Results.
                            <tr class="eval-row" data-testid="sample-row" data-status=status class:eval-row--done=finished on:click=move |_| {
                                if finished {
                                    let _ = window().location().set_hash(&format!("/results?sample={index}"));
                                }
                            }>
                                <td>{if finished {
                                    view! { <a href=format!("#/results?sample={index}") data-testid="sample-transcript" title="read its transcript on Results">{index}</a> }.into_any()
                                } else {
                                    view! { <span>{index}</span> }.into_any()
                                }}</td><td>{r.task}</td><td class="eval-status">{r.status}
                                    {error.map(|e| view! { <span class="eval-row-error" data-testid="sample-error">{e}</span> })}
                                    {(!finished).then(|| move || live_text.with(|m| m.get(&index).map(|text| view! { <span class="eval-live" data-testid="live-text">{text.clone()}</span> })))}
                                </td><td>{r.turns}</td>
                                <td>{match r.correct { Some(true) => "yes", Some(false) => "no", None => "" }}</td>
                            </tr>
                        }
                    }
                </For>
            </tbody>
        </table>
    }
}
