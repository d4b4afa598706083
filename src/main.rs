//! Entry point of the browser app: install the panic hook and mount the Leptos shell. It also exports the
//! cross-platform probes (`probes`), which the end-to-end tests call to check that the wasm build computes
//! exactly what the native build pins.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // The worker loads and compiles its module on its own thread just after the first page is painted
    // (`pages::page`), so that page does not wait for its download and the first job (a site's first shard, a
    // generation) hardly waits for it; jobs asked for before then are held.
    arbigraph_studio::web::worker::hold();
    leptos::mount::mount_to_body(|| {
        use leptos::prelude::*;
        view! { <arbigraph_studio::ui::App pages=pages::PAGES/> }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("arbigraph-studio is the browser app: build it with `scripts/serve` (Trunk, wasm32); the native tool is `arbigraph`.");
    std::process::exit(2);
}

/// The app's split points: each route's page is built into a module of its own (scripts/wasm-ld splits the linked
/// module), which the shell fetches the first time the page is shown, so a first visit fetches the shell and one
/// page. The other pages' modules are fetched once the first page is up, so moving between pages does not wait.
#[cfg(target_arch = "wasm32")]
mod pages {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use leptos::prelude::*;
    use leptos::wasm_split::{wasm_split, SplitLoaderError};

    use arbigraph_studio::ui::pages::{AboutPage, BrowsePage, DesignPage, EvaluatePage, GeneratePage, ResultsPage};
    use arbigraph_studio::ui::route::Route;
    use arbigraph_studio::ui::shell::{PageFuture, PageLoadError, Pages};
    use arbigraph_studio::web::worker;

    /// The split points, as the shell asks for them.
    pub const PAGES: Pages = Pages { fetch, page };

    fn fetch(route: Route) -> PageFuture<()> {
        Box::pin(async move {
            let fetched = match route {
                Route::Design => __preload_design().await,
                Route::Generate => __preload_generate().await,
                Route::Browse => __preload_browse().await,
                Route::Evaluate => __preload_evaluate().await,
                Route::Results => __preload_results().await,
                Route::About => __preload_about().await,
            };
            fetched.map_err(|_| PageLoadError)
        })
    }

    /// The route's page. Each is built untracked, so that what a page reads while it is built does not become a
    /// reason for the shell to build it again.
    fn page(route: Route) -> PageFuture<AnyView> {
        Box::pin(async move {
            let page = match route {
                Route::Design => design().await,
                Route::Generate => generate().await,
                Route::Browse => browse().await,
                Route::Evaluate => evaluate().await,
                Route::Results => results().await,
                Route::About => about().await,
            };
            if page.is_ok() && !FIRST_SHOWN.swap(true, Ordering::Relaxed) {
                // After the first page's paint: the worker, then the other pages' modules.
                worker::warm_up();
                request_animation_frame(|| set_timeout(preload_all, Duration::ZERO));
            }
            page.map_err(|_| PageLoadError)
        })
    }

    static FIRST_SHOWN: AtomicBool = AtomicBool::new(false);

    /// Fetches every page's module, once the first page is shown: a failure here is not reported, as showing that
    /// page fetches it again and says so.
    fn preload_all() {
        leptos::task::spawn_local(async {
            for route in Route::ALL {
                let _ = fetch(route).await;
            }
        });
    }

    #[wasm_split(design, wasm_split_path = ::leptos::wasm_split, fallible, preload(__preload_design))]
    fn design() -> Result<AnyView, SplitLoaderError> {
        Ok(untrack(|| view! { <DesignPage/> }.into_any()))
    }

    #[wasm_split(generate, wasm_split_path = ::leptos::wasm_split, fallible, preload(__preload_generate))]
    fn generate() -> Result<AnyView, SplitLoaderError> {
        Ok(untrack(|| view! { <GeneratePage/> }.into_any()))
    }

    #[wasm_split(browse, wasm_split_path = ::leptos::wasm_split, fallible, preload(__preload_browse))]
    fn browse() -> Result<AnyView, SplitLoaderError> {
        Ok(untrack(|| view! { <BrowsePage/> }.into_any()))
    }

    #[wasm_split(evaluate, wasm_split_path = ::leptos::wasm_split, fallible, preload(__preload_evaluate))]
    fn evaluate() -> Result<AnyView, SplitLoaderError> {
        Ok(untrack(|| view! { <EvaluatePage/> }.into_any()))
    }

    #[wasm_split(results, wasm_split_path = ::leptos::wasm_split, fallible, preload(__preload_results))]
    fn results() -> Result<AnyView, SplitLoaderError> {
        Ok(untrack(|| view! { <ResultsPage/> }.into_any()))
    }

    #[wasm_split(about, wasm_split_path = ::leptos::wasm_split, fallible, preload(__preload_about))]
    fn about() -> Result<AnyView, SplitLoaderError> {
        Ok(untrack(|| view! { <AboutPage/> }.into_any()))
    }
}

/// The probes, computed by the app's worker (whose module holds the generators and the picture renderer):
/// `probes()` resolves to `{"rng": …, "dataset": …, "png": …}`, what the native tests pin
/// (`app::jobs::probes`), or rejects with the worker's message.
#[cfg(target_arch = "wasm32")]
mod probes {
    use wasm_bindgen::prelude::wasm_bindgen;
    use wasm_bindgen::JsValue;

    use arbigraph_studio::app::jobs::{FromWorker, JobRequest};
    use arbigraph_studio::web::worker;

    #[wasm_bindgen]
    pub fn probes() -> js_sys::Promise {
        js_sys::Promise::new(&mut |resolve, reject| {
            worker::start(JobRequest::Probes, move |message| match message {
                FromWorker::Done { summary, .. } => {
                    let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&summary));
                }
                FromWorker::Failed { message, .. } => {
                    let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&message));
                }
                _ => {}
            });
        })
    }
}
