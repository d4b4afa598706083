//! The evaluation's settings: where requests go (the key a `Secret`, in memory only) and the run's limits.

use leptos::prelude::*;

use crate::app::run_settings::RunSettings;
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
}

impl EvaluationState {
    pub(super) fn new() -> EvaluationState {
        EvaluationState {
            endpoint: RwSignal::new(Endpoint {
                base_url: "http://127.0.0.1:8099/v1".into(),
                model: "local".into(),
                api_key: Secret::default(),
                headers: Vec::new(),
            }),
            strategy: RwSignal::new("full".into()),
            sample_limit: RwSignal::new(3),
            max_tokens: RwSignal::new(2048),
            running: RwSignal::new(false),
            settings: RwSignal::new(RunSettings::default()),
            headers: RwSignal::new(String::new()),
        }
    }
}

