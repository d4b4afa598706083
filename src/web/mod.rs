//! Browser adapters: the only place that talks to web APIs (downloads, files, fetch, local storage, IndexedDB,
//! the Web Worker).

pub mod download;
pub mod fetch_backend;
pub mod files;
pub mod local_storage;
pub mod soon;
pub mod storage;
pub mod worker;
