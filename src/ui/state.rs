//! App-wide state the pages share: the task registry (built once) and the latest results of the Evaluate page,
//! which the Results page shows. No business rules: everything delegates to the engine.

use leptos::prelude::*;

use crate::engine::tasks::registry::{builtin, Registry};

thread_local! {
    static REGISTRY: Registry = builtin();
}

/// Runs `f` with the built-in registry (built once per page load).
pub fn with_registry<R>(f: impl FnOnce(&Registry) -> R) -> R {
    REGISTRY.with(f)
}

/// Shared signals, provided once by `App`.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The latest results file made in this tab (reference layout), if any.
    pub results: RwSignal<Option<serde_json::Value>>,
}

impl AppState {
    /// Fresh state.
    pub fn new() -> AppState {
        AppState { results: RwSignal::new(None) }
    }
}

impl Default for AppState {
    fn default() -> AppState {
        AppState::new()
    }
}
