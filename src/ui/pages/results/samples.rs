//! The samples of the shown results file: filters (verdict `#tx-filter-status`, failures only `#tx-failures`,
//! text `#tx-search`), a count (`[data-testid="transcript-count"]`) and a virtualised list
//! (`[data-testid="transcript-list"]`) whose rows (`[data-testid="transcript-row"]`, with `data-index` and
//! `data-status`) open the sample's transcript on click, or on Enter once selected with the arrow keys. Rows
//! and filtering are `app::results::transcript`; the window maths is `app::list_window`.

use std::sync::Arc;
use std::time::Duration;

use leptos::html::Div;
use leptos::prelude::*;
use serde_json::Value;

use crate::app::list_window::{ListGeometry, ListKey};
use crate::app::results::data::ResultsData;
use crate::app::results::transcript::{count_line, filter_rows, grouped, RowFilter, SampleRow, Search, Verdict};
use crate::ui::state::AppState;

/// Row height in pixels (`.tx-row` in results.css).
const ROW_HEIGHT: f64 = 32.0;
/// The most rows in view at once; longer lists scroll.
const MAX_ROWS_SHOWN: usize = 12;
/// Rows drawn beyond the viewport on each side.
const OVERSCAN: usize = 6;
/// How long typing may pause before the search runs.
const SEARCH_PAUSE: Duration = Duration::from_millis(150);

fn samples_of(results: &Option<Arc<ResultsData>>) -> &[Value] {
    results.as_ref().and_then(|r| r.json().get("samples")).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Text read per slice of a search (a few milliseconds of work in an optimised build).
const SEARCH_SLICE_BYTES: usize = 1 << 20;

/// A text search under way, read one slice per task.
#[derive(Clone, Copy)]
struct SearchTask {
    state: AppState,
    rows: Memo<Vec<SampleRow>>,
    kept: RwSignal<Vec<usize>>,
    searching: RwSignal<Option<usize>>,
    generation: StoredValue<u64>,
    /// The generation this search belongs to; it stops once a newer one starts.
    id: u64,
}

impl SearchTask {
    fn run(self, mut search: Search) {
        if self.generation.get_value() != self.id {
            return;
        }
        let done = self.rows.with_untracked(|rows| self.state.results.with_untracked(|r| search.step(rows, samples_of(r), SEARCH_SLICE_BYTES)));
        if done {
            self.searching.set(None);
            set_if_changed(self.kept, search.into_kept());
        } else {
            self.searching.set(Some(search.read()));
            set_timeout(move || self.run(search), Duration::ZERO);
        }
    }
}

/// Sets the kept positions only when they change, so a run's new results keep the list where it was scrolled.
fn set_if_changed(kept: RwSignal<Vec<usize>>, positions: Vec<usize>) {
    if kept.with_untracked(|k| *k != positions) {
        kept.set(positions);
    }
}

/// The filters and the list; `open` is the sample whose transcript is shown.
#[component]
pub fn SampleList(open: RwSignal<Option<usize>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let rows: Memo<Vec<SampleRow>> = Memo::new(move |_| state.results.with(|r| r.as_ref().map(|r| r.graded().rows.clone()).unwrap_or_default()));
    let filter = RwSignal::new(RowFilter::default());
    let kept: RwSignal<Vec<usize>> = RwSignal::new(Vec::new());
    let searching: RwSignal<Option<usize>> = RwSignal::new(None);
    let selected: RwSignal<Option<usize>> = RwSignal::new(None);
    // Without text the filter is a quick pass; a text search reads the file in slices, one task each, and the
    // list changes when it has read everything. A newer filter or file abandons the search under way.
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let f = filter.get();
        rows.track();
        generation.update_value(|g| *g += 1);
        let search = SearchTask { state, rows, kept, searching, generation, id: generation.get_value() };
        if f.text.trim().is_empty() {
            searching.set(None);
            set_if_changed(kept, rows.with_untracked(|rows| state.results.with_untracked(|r| filter_rows(rows, samples_of(r), &f))));
        } else {
            search.run(Search::new(&f));
        }
    });

    let scroller = NodeRef::<Div>::new();
    let scroll_top = RwSignal::new(0.0);
    // The list is as tall as its rows, up to `MAX_ROWS_SHOWN` of them (two at least, for the empty message).
    let viewport = Memo::new(move |_| ROW_HEIGHT * kept.with(Vec::len).clamp(2, MAX_ROWS_SHOWN) as f64);
    let geometry = move || ListGeometry { count: kept.with(Vec::len), row_height: ROW_HEIGHT, viewport: viewport.get(), overscan: OVERSCAN };
    let window = Memo::new(move |_| geometry().window(scroll_top.get()));

    // A new filter or a new file starts the list at its top.
    Effect::new(move |_| {
        kept.track();
        if let Some(el) = scroller.get_untracked() {
            el.set_scroll_top(0);
        }
        scroll_top.set(0.0);
    });

    let search_timer: StoredValue<Option<TimeoutHandle>> = StoredValue::new(None);
    let on_search = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        if let Some(handle) = search_timer.get_value() {
            handle.clear();
        }
        let handle = set_timeout_with_handle(move || filter.update(|f| f.text = text), SEARCH_PAUSE).ok();
        search_timer.set_value(handle);
    };
    on_cleanup(move || {
        if let Some(handle) = search_timer.get_value() {
            handle.clear();
        }
    });

    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let Some(key) = ListKey::of(&ev.key()) else { return };
        ev.prevent_default();
        let position = selected.get_untracked().and_then(|index| kept.with_untracked(|k| k.iter().position(|&p| rows.with_untracked(|r| r.get(p).map(|row| row.index)) == Some(index))));
        match key {
            ListKey::Open => {
                if let Some(index) = selected.get_untracked() {
                    open.set(Some(index));
                }
            }
            ListKey::Close => open.set(None),
            _ => {
                let g = geometry();
                let Some(next) = key.apply(position, g.count, g.page_rows()) else { return };
                let index = kept.with_untracked(|k| k.get(next).and_then(|&p| rows.with_untracked(|r| r.get(p).map(|row| row.index))));
                selected.set(index);
                if let (Some(el), Some(top)) = (scroller.get_untracked(), g.reveal(next, scroll_top.get_untracked())) {
                    el.set_scroll_top(top.round() as i32);
                    scroll_top.set(top);
                }
            }
        }
    };

    let row_views = move || {
        let w = window.get();
        kept.with(|kept| {
            rows.with(|rows| {
                (w.first..w.end)
                    .filter_map(|position| Some((position, rows.get(*kept.get(position)?)?.clone())))
                    .map(|(position, row)| row_view(row, w.offset + (position - w.first) as f64 * ROW_HEIGHT, selected, open))
                    .collect_view()
            })
        })
    };

    view! {
        <section class="panel tx-samples" aria-label="samples">
            <h2>"Samples"</h2>
            <div class="tx-filters">
                <label>"Verdict "
                    <select id="tx-filter-status" on:change=move |ev| {
                        let verdict = Verdict::parse(&event_target_value(&ev));
                        filter.update(|f| f.verdict = verdict);
                    }>
                        <option value="">"all"</option>
                        {Verdict::ALL.into_iter().map(|v| view! { <option value=v.as_str()>{v.as_str()}</option> }).collect_view()}
                    </select>
                </label>
                <label><input type="checkbox" id="tx-failures" on:change=move |ev| filter.update(|f| f.failures_only = event_target_checked(&ev)) />"failures only"</label>
                <label class="tx-search">"Text "
                    <input id="tx-search" type="search" placeholder="in prompts, answers, transcripts" on:input=on_search />
                </label>
                <span class="muted tx-count" data-testid="transcript-count">{move || match searching.get() {
                    Some(read) => format!("searching… {} of {} samples read", grouped(read as u64), grouped(rows.with(Vec::len) as u64)),
                    None => count_line(kept.with(Vec::len), rows.with(Vec::len)),
                }}</span>
            </div>
            <div class="tx-list-wrap">
                <div class="tx-row tx-row--head" aria-hidden="true">
                    <span>"#"</span><span>"verdict"</span><span>"status"</span><span>"target"</span><span>"topology"</span>
                    <span class="num">"turns"</span><span class="num" title="prompt + completion tokens of every call; only the generated tokens when that is all the file records">"tokens"</span>
                </div>
                <div class="tx-list" data-testid="transcript-list" node_ref=scroller tabindex="0" role="listbox" aria-label="samples"
                    style:height=move || format!("{}px", viewport.get())
                    aria-activedescendant=move || selected.get().map(|i| format!("tx-row-{i}"))
                    on:keydown=on_key
                    on:scroll=move |_| {
                        if let Some(el) = scroller.get_untracked() {
                            scroll_top.set(f64::from(el.scroll_top()));
                        }
                    }>
                    <div class="tx-list-space" style:height=move || format!("{}px", window.get().height)>
                        {row_views}
                    </div>
                    <Show when=move || kept.with(Vec::is_empty) && rows.with(|r| !r.is_empty())>
                        <p class="muted tx-empty">"No sample matches the filters."</p>
                    </Show>
                </div>
            </div>
            <p class="muted tx-keys">"Click a sample, or select it with ↓ / ↑ and press Enter, to read its transcript; Escape closes it."</p>
        </section>
    }
}

fn row_view(row: SampleRow, top: f64, selected: RwSignal<Option<usize>>, open: RwSignal<Option<usize>>) -> impl IntoView {
    let index = row.index;
    let verdict = row.verdict.as_str();
    let is_selected = move || selected.get() == Some(index) || open.get() == Some(index);
    let choose = move |_| {
        selected.set(Some(index));
        open.set(Some(index));
    };
    let target = row.target.clone();
    view! {
        <div class="tx-row" data-testid="transcript-row" data-index=index data-status=verdict id=format!("tx-row-{index}") role="option"
            aria-selected=move || is_selected().to_string() class:tx-row--selected=is_selected style:top=format!("{top}px") on:click=choose>
            <span class="muted num-left">{index}</span>
            <span><span class=format!("tx-verdict tx-verdict--{verdict}")>{verdict}</span></span>
            <span class="muted">{row.status}</span>
            <span title=target>{row.target}{row.consistency.map(|(epoch, correct, attempts)| view! {
                <span class="tx-consistency" data-testid="consistency" title=format!("attempt {} of this instance; {correct} of its {attempts} finished attempts right", epoch + 1)>
                    {format!(" e{} · {correct}/{attempts}", epoch + 1)}
                </span>
            })}</span>
            <span>{row.topology}</span>
            <span class="num">{row.turns.map(|t| t.to_string()).unwrap_or_else(|| "–".into())}</span>
            <span class="num">{row.tokens.describe()}</span>
        </div>
    }
}
