//! The evaluation's settings: where requests go (the key a `Secret`, in memory only unless the user ticks
//! "remember on this device") and the run's limits.

use leptos::prelude::*;

use crate::app::run_settings::RunSettings;
use crate::web::local_storage;
use crate::engine::agent::{Endpoint, Secret};

/// Where evaluations go. The key is a `Secret`: it stays in memory and is never serialised.
#[derive(Clone, Copy)]
pub struct EvaluationState {
    /// Base URL, model, key and extra headers.
    pub endpoint: RwSignal<Endpoint>,
    /// `full` or `acg`.
    pub strategy: RwSignal<String>,
    /// How many samples a run takes from the dataset.
    pub sample_limit: RwSignal<usize>,
    /// Completion limit of a normal turn.
    pub max_tokens: RwSignal<u32>,
    /// True while a run of this tab is going (the Results page says its figures are partial).
    pub running: RwSignal<bool>,
    /// Temperature and limits kept with each run.
    pub settings: RwSignal<RunSettings>,
    /// The extra headers as typed (parsed into `endpoint.headers`); in memory only, like the key.
    pub headers: RwSignal<String>,
    /// True when the user asked to keep the API key in this browser's local storage (`REMEMBERED_KEY`).
    pub remember_key: RwSignal<bool>,
}

/// Where a remembered API key is kept: local storage, only when the user ticks "remember on this device".
pub const REMEMBERED_KEY: &str = "arbigraph-api-key";

impl EvaluationState {
    /// Sets the API key, and keeps it in local storage when the user asked for that.
    pub fn set_key(&self, key: String) {
        if self.remember_key.get_untracked() {
            let _ = local_storage::write(REMEMBERED_KEY, &key);
        }
        self.endpoint.update(|e| e.api_key = Secret::new(key));
    }

    /// Keeps the key on this device (true) or forgets it there (false); the key in memory stays.
    pub fn remember(&self, on: bool) -> Result<(), String> {
        self.remember_key.set(on);
        if on {
            local_storage::write(REMEMBERED_KEY, self.endpoint.with_untracked(|e| e.api_key.expose().to_string()).as_str()).map_err(|e| e.to_string())
        } else {
            local_storage::remove(REMEMBERED_KEY).map_err(|e| e.to_string())
        }
    }
}

impl EvaluationState {
    pub(super) fn new() -> EvaluationState {
        let remembered = local_storage::read(REMEMBERED_KEY);
        EvaluationState {
            endpoint: RwSignal::new(Endpoint {
                base_url: "http://127.0.0.1:8099/v1".into(),
                model: "local".into(),
                api_key: remembered.clone().map(Secret::new).unwrap_or_default(),
                headers: Vec::new(),
            }),
            strategy: RwSignal::new("full".into()),
            sample_limit: RwSignal::new(3),
            max_tokens: RwSignal::new(2048),
            running: RwSignal::new(false),
            settings: RwSignal::new(RunSettings::default()),
            headers: RwSignal::new(String::new()),
            remember_key: RwSignal::new(remembered.is_some()),
        }
    }
}

