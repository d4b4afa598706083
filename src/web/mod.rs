//! Browser adapters: the only place that talks to web APIs (storage, downloads, fetch).
