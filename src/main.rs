//! Entry point of the browser app: install the panic hook and mount the Leptos shell. It also exports the
//! cross-platform probes (`probes`), which the end-to-end tests call to check that the wasm build computes
//! exactly what the native build pins.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // The worker loads and compiles its module on its own thread just after the page's first paint, so the
    // first paint does not wait for its download and the first job (a site's first shard, a generation) hardly
    // waits for it.
    arbigraph_studio::web::worker::warm_up();
    leptos::mount::mount_to_body(arbigraph_studio::ui::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("arbigraph-studio is the browser app: build it with `scripts/serve` (Trunk, wasm32); the native tool is `arbigraph`.");
    std::process::exit(2);
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
