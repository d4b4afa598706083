//! Entry point of the browser app: install the panic hook and mount the Leptos shell.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(arbigraph_studio::ui::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("arbigraph-studio is the browser app: build it with `scripts/serve` (Trunk, wasm32); the native tool is `arbigraph`.");
    std::process::exit(2);
}
