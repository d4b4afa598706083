//! Entry point of the browser app: install the panic hook and mount the Leptos shell. It also exports the
//! cross-platform probes (`probe_*`), which the end-to-end tests call to check that the wasm build computes
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

/// The probes: each returns what a native test pins, computed here in wasm.
#[cfg(target_arch = "wasm32")]
mod probes {
    use wasm_bindgen::prelude::wasm_bindgen;

    use arbigraph_studio::engine::{dataset, rng::InstanceRng, tasks};

    /// The first five draws in [0, 999] of the seed-0 stream (pinned in `engine::rng`'s tests).
    #[wasm_bindgen]
    pub fn probe_rng_stream() -> String {
        let mut rng = InstanceRng::from_seed(0);
        (0..5).map(|_| rng.int_in(0, 999).to_string()).collect::<Vec<_>>().join(",")
    }

    /// The fingerprint of the generated probe files (pinned in `tests/it/generation.rs`).
    #[wasm_bindgen]
    pub fn probe_dataset_fingerprint() -> String {
        let registry = tasks::registry::builtin();
        format!("{:016x}", dataset::fingerprint(&dataset::cross_platform_probe(&registry)))
    }

    /// The fingerprint of the probe picture's PNG bytes (pinned in `tests/it/image.rs`).
    #[wasm_bindgen]
    pub fn probe_png_fingerprint() -> String {
        match tasks::image::probe_png() {
            Ok(png) => format!("{:016x}", dataset::fingerprint_bytes(&png)),
            Err(e) => format!("error: {e}"),
        }
    }
}
