//! Browser adapters: the only place that talks to web APIs (downloads, files, fetch, local storage, IndexedDB,
//! the Web Worker).

pub mod download;
pub mod fetch_backend;
pub mod files;
pub mod local_storage;
pub mod soon;
pub mod storage;
pub mod worker;

/// The value of `key` in the page's current link (`#/results?file=run&sample=3`, key `file` → `run`), decoded.
pub fn link_param(key: &str) -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    crate::app::hash::hash_param(&hash, key)
}
