//! The app shell: header navigation, hash routing and the page for the current route.

use std::future::Future;
use std::pin::Pin;

use futures::FutureExt;
use leptos::prelude::*;

use super::route::Route;
use super::state::AppState;

fn current_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// The page the root opens on: a site built by `arbigraph site` names it in a `<meta>` (its datasets).
fn start_route() -> Route {
    let selector = format!("meta[name=\"{}\"]", crate::engine::dataset::site::START_META);
    let meta = document().query_selector(&selector).ok().flatten().and_then(|m| m.get_attribute("content"));
    Route::start(meta.as_deref())
}

/// How the shell gets a route's page. The page's binary passes its split points (`src/main.rs`): each page is
/// built into a module of its own, fetched the first time it is needed. The worker's binary links this library
/// too, and so never links the pages.
#[derive(Clone, Copy)]
pub struct Pages {
    /// Fetches the route's modules (resolves at once when they are here).
    pub fetch: fn(Route) -> PageFuture<()>,
    /// The route's page, built once its modules are here: ready on its first poll when they already are.
    pub page: fn(Route) -> PageFuture<AnyView>,
}

/// What `Pages` answers with.
pub type PageFuture<T> = Pin<Box<dyn Future<Output = Result<T, PageLoadError>>>>;

/// A page's module could not be fetched (the network, or a deployment replaced mid-visit). Nothing the user made
/// is lost: the state lives outside the pages, and asking again fetches the module again.
#[derive(Debug, Clone, Copy)]
pub struct PageLoadError;

/// The root component.
#[component]
pub fn App(pages: Pages) -> impl IntoView {
    provide_context(AppState::new());
    let start = start_route();
    let route = RwSignal::new(Route::from_hash_or(&current_hash(), start));
    // A new Browse address on Browse (back and forward between its views) keeps the page: it follows its address
    // itself. Other pages are rebuilt from the new address.
    let listener = window_event_listener(leptos::ev::hashchange, move |_| {
        let next = Route::from_hash_or(&current_hash(), start);
        if route.get_untracked() != next || next != Route::Browse {
            route.set(next);
        }
    });
    on_cleanup(move || listener.remove());

    // A route whose modules did not arrive (until "Try again"), and a count of arrivals, so the page is built
    // once its modules are here.
    let failed = RwSignal::new(None::<Route>);
    let arrived = RwSignal::new(0u32);
    let nav_links = Route::ALL
        .into_iter()
        .map(|r| {
            view! {
                <a
                    href=format!("#{}", r.path())
                    class="app-nav-link"
                    class:app-nav-link--active=move || route.get() == r
                    id=format!("nav-{}", r.path().trim_start_matches('/'))
                >
                    {r.label()}
                </a>
            }
        })
        .collect_view();

    view! {
        <header class="app-header">
            <a class="app-brand" href="#/about">"ArbiGraph Studio"</a>
            <nav class="app-nav">{nav_links}</nav>
        </header>
        <main class="app-main" id="app-main">
            {move || {
                arrived.track();
                let current = route.get();
                if failed.get() == Some(current) {
                    return page_load_failed(failed, arrived).into_any();
                }
                // Built here, in this closure's owner, as any view: the page's modules are usually here already
                // (the first page's are fetched at start, the others' just after it is shown).
                match (pages.page)(current).now_or_never() {
                    Some(Ok(page)) => page,
                    Some(Err(PageLoadError)) => page_load_failed(failed, arrived).into_any(),
                    None => {
                        leptos::task::spawn_local(async move {
                            if (pages.fetch)(current).await.is_err() {
                                failed.set(Some(current));
                            }
                            if route.get_untracked() == current {
                                arrived.update(|n| *n += 1);
                            }
                        });
                        page_loading().into_any()
                    }
                }
            }}
        </main>
    }
}

/// What shows when a page's module did not arrive: the reason, and a way to try again.
fn page_load_failed(failed: RwSignal<Option<Route>>, arrived: RwSignal<u32>) -> impl IntoView {
    view! {
        <section class="page-load-failed error-view" role="alert" data-testid="page-load-failed">
            <p>"This page's code did not arrive from the server. Your work on the other pages is kept."</p>
            <button type="button" on:click=move |_| {
                failed.set(None);
                arrived.update(|n| *n += 1);
            }>"Try again"</button>
        </section>
    }
}

/// What shows while a page's module is on its way (only when that takes a while: the style shows it after a
/// moment, so a quick load does not flash it).
fn page_loading() -> impl IntoView {
    view! {
        <p class="page-loading" role="status" aria-busy="true" data-testid="page-loading">"Loading the page…"</p>
    }
}
