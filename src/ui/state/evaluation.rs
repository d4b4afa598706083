//! The evaluation's settings: where requests go (the key a `Secret`, in memory only) and the run's limits.

use leptos::prelude::*;

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
        }
    }
}

