//! Entry point of the app's Web Worker: generation, drawing and file parsing off the page's main thread
//! (`web::worker::serve`). Trunk builds it beside the app (`data-type="worker"` in index.html).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    arbigraph_studio::web::worker::serve();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("arbigraph-worker is the browser app's Web Worker: Trunk builds it for wasm32.");
    std::process::exit(2);
}
