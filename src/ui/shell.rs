//! The app shell: header navigation, hash routing and the page for the current route.

use std::future::Future;
use std::pin::Pin;

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
/// built into a module of its own, fetched the first time it is shown. The worker's binary links this library too,
/// and so never links the pages.
pub type Pages = fn(Route) -> Pin<Box<dyn Future<Output = Result<AnyView, PageLoadError>> + Send>>;

/// A page's module could not be fetched (the network, or a deployment replaced mid-visit). Nothing the user made
/// is lost: the state lives outside the pages, and showing the route again fetches the module again.
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

    // Bumped by "Try again" when a page's module did not arrive: the page is asked for once more.
    let attempt = RwSignal::new(0u32);
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
                attempt.track();
                let page = pages(route.get());
                view! {
                    <Suspense fallback=page_loading>
                        {Suspend::new(async move {
                            match page.await {
                                Ok(page) => page,
                                Err(PageLoadError) => page_load_failed(attempt).into_any(),
                            }
                        })}
                    </Suspense>
                }
            }}
        </main>
    }
}

/// What shows when a page's module did not arrive: the reason, and a way to try again.
fn page_load_failed(attempt: RwSignal<u32>) -> impl IntoView {
    view! {
        <section class="page-load-failed error-view" role="alert" data-testid="page-load-failed">
            <p>"This page's code did not arrive from the server. Your work on the other pages is kept."</p>
            <button type="button" on:click=move |_| attempt.update(|n| *n += 1)>"Try again"</button>
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
