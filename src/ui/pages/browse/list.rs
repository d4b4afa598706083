//! The virtualised instance list (`[data-testid="instance-list"]`): however many samples the dataset has,
//! only the rows in view (and a few beyond) are in the DOM, each a `[data-testid="instance-row"]` carrying
//! its dataset position in `data-index`. The window maths is `app::list_window`; hosted datasets fetch the
//! shards the window shows.

use leptos::html::Div;
use leptos::prelude::*;

use crate::app::browse::catalog::{index_at, position_of, Row};
use crate::app::list_window::ListGeometry;
use crate::ui::state::{AppState, BrowseState, Source};

/// Row height in pixels (the stylesheet's `.browse-row` height).
pub const ROW_HEIGHT: f64 = 30.0;
/// Rows drawn beyond the viewport on each side.
const OVERSCAN: usize = 6;

/// How many list positions the shown dataset has: the kept ones, or every slot of a hosted dataset (they load
/// as they come into view), or the rows received so far (generation and files stream in order).
pub fn list_count(browse: BrowseState) -> usize {
    if let Some(kept) = browse.view.with(|v| v.as_ref().map(Vec::len)) {
        return kept;
    }
    match browse.current_info() {
        Some(d) if matches!(d.source, Source::Hosted(_)) => d.total,
        Some(d) => d.loaded,
        None => 0,
    }
}

/// The geometry of the list in a viewport of `viewport` pixels.
pub fn geometry(browse: BrowseState, viewport: f64) -> ListGeometry {
    ListGeometry { count: list_count(browse), row_height: ROW_HEIGHT, viewport, overscan: OVERSCAN }
}

/// The instance list.
#[component]
pub fn InstanceList() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let scroller = NodeRef::<Div>::new();
    let scroll_top = RwSignal::new(0.0);
    let viewport = RwSignal::new(600.0);
    let measure = move || {
        if let Some(el) = scroller.get_untracked() {
            viewport.set(f64::from(el.client_height()).max(ROW_HEIGHT));
        }
    };
    Effect::new(move |_| {
        if scroller.get().is_some() {
            measure();
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());

    let window = Memo::new(move |_| geometry(browse, viewport.get()).window(scroll_top.get()));

    // Hosted datasets: fetch the shards the window shows.
    Effect::new(move |_| {
        let w = window.get();
        let unfiltered = browse.view.with(Option::is_none);
        if let (true, Some(key)) = (unfiltered, browse.current.get()) {
            browse.ensure_loaded(&key, w.first, w.end);
        }
    });

    // Bring a row into view when asked (a key press, a link, a new dataset).
    Effect::new(move |_| {
        let Some(index) = browse.reveal.get() else { return };
        let Some(el) = scroller.get() else { return };
        let position = browse.view.with_untracked(|v| position_of(v.as_deref(), index)).unwrap_or(0);
        let g = geometry(browse, viewport.get_untracked());
        let target = if index == 0 && position == 0 { Some(0.0) } else { g.reveal(position, f64::from(el.scroll_top())) };
        if let Some(top) = target {
            el.set_scroll_top(top.round() as i32);
            scroll_top.set(top);
        }
        browse.reveal.set(None);
    });

    let rows = move || {
        let w = window.get();
        let Some(key) = browse.current.get() else { return Vec::new() };
        let indices: Vec<usize> = browse.view.with(|v| (w.first..w.end).filter_map(|p| index_at(v.as_deref(), p)).collect());
        browse.with_rows(&key, |all| {
            indices
                .iter()
                .enumerate()
                .map(|(k, &index)| {
                    let top = w.offset + k as f64 * ROW_HEIGHT;
                    row_view(browse, index, all.get(index).cloned().flatten(), top)
                })
                .collect::<Vec<_>>()
        })
    };

    view! {
        <div class="browse-list-wrap">
            <div class="browse-row browse-row--head" aria-hidden="true">
                <span class="c-index">"#"</span><span class="c-target">"target"</span><span class="c-family">"family"</span>
                <span class="c-topology">"topology"</span><span class="c-stages">"stages"</span><span class="c-answer">"answer"</span>
            </div>
            <div class="browse-list" data-testid="instance-list" node_ref=scroller tabindex="0" role="listbox" aria-label="instances"
                on:scroll=move |_| {
                    if let Some(el) = scroller.get_untracked() {
                        scroll_top.set(f64::from(el.scroll_top()));
                    }
                }>
                <div class="browse-list-space" style:height=move || format!("{}px", window.get().height)>
                    {rows}
                </div>
            </div>
        </div>
    }
}

fn row_view(browse: BrowseState, index: usize, row: Option<Row>, top: f64) -> impl IntoView {
    let selected = move || browse.selected.get() == Some(index);
    let open = move |_| {
        browse.select(index);
        browse.open_selected();
    };
    let cells = match row {
        Some(r) => {
            let (target, answer) = (r.target.clone(), r.answer.clone());
            view! {
                <span class="c-index">{r.index}</span>
                <span class="c-target" title=target>{r.target}</span>
                <span class="c-family">{r.family}</span>
                <span class="c-topology">{r.topology}</span>
                <span class="c-stages">{r.stages}</span>
                <span class="c-answer mono" title=answer>{r.answer}</span>
            }
            .into_any()
        }
        None => view! { <span class="c-index">{index}</span><span class="c-loading muted">"loading…"</span> }.into_any(),
    };
    view! {
        <div class="browse-row" data-testid="instance-row" data-index=index role="option" aria-selected=move || selected().to_string()
            class:browse-row--selected=selected style:top=format!("{top}px") on:click=open>
            {cells}
        </div>
    }
}
