//! The app shell: header navigation, hash routing and the page for the current route.

use leptos::prelude::*;

use super::pages::{AboutPage, BrowsePage, DesignPage, EvaluatePage, GeneratePage, ResultsPage};
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

/// The root component.
#[component]
pub fn App() -> impl IntoView {
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
            {move || match route.get() {
                Route::Design => view! { <DesignPage/> }.into_any(),
                Route::Generate => view! { <GeneratePage/> }.into_any(),
                Route::Browse => view! { <BrowsePage/> }.into_any(),
                Route::Evaluate => view! { <EvaluatePage/> }.into_any(),
                Route::Results => view! { <ResultsPage/> }.into_any(),
                Route::About => view! { <AboutPage/> }.into_any(),
            }}
        </main>
    }
}
