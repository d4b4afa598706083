// Starts the app without an inline script, so the page can run under a strict content security policy
// (script-src 'self'): Trunk names the hashed wasm-bindgen module and wasm file in this tag's data attributes
// (Trunk.toml, pattern_script), and this module loads them relative to itself.
const tag = document.querySelector('script[data-arbigraph-boot]');
const here = new URL('.', import.meta.url);
const bindings = await import(new URL(tag.dataset.js, here).href);
await bindings.default({ module_or_path: new URL(tag.dataset.wasm, here).href });
// The app's exported checks (the cross-platform probes), for the end-to-end tests.
window.wasmBindings = bindings;
