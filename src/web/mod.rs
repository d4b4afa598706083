//! Browser adapters: the only place that talks to web APIs (downloads, files, fetch, IndexedDB, the Web Worker).

pub mod download;
pub mod fetch_backend;
pub mod files;
pub mod storage;
pub mod worker;
