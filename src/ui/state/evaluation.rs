//! The evaluation's settings: where requests go (the key a `Secret`, in memory only unless the user ticks
//! "remember on this device") and the run's limits; the instances a run takes (`source`: a built-in topology,
//! a loaded file, the dataset on Browse, or the graph on Design, the last two gathered by the job runner);
//! and the run this tab drives, whose view and stop switch live here rather than in the page, so leaving
//! Evaluate mid-run and coming back shows the same run going on, and Stop stops it.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use crate::app::evaluate::source::{browse_positions, BrowseShown, SampleSource};
use crate::engine::generate::form::GenerateForm;
use crate::app::jobs::JobRequest;
use crate::app::evaluate::live::Live;
use crate::app::results::data::ResultsData;
use crate::app::evaluate::board::Row;
use crate::app::evaluate::settings::RunSettings;
use crate::app::evaluate::stored_run::RunSpec;
use crate::web::fetch_backend::RunControl;
use crate::web::local_storage;
use crate::web::worker;

use super::browse::BrowseState;
use super::design::DesignState;
use crate::engine::agent::{Endpoint, Secret, Strategy};

/// Where evaluations go. The key is a `Secret`: it stays in memory and is never serialised.
#[derive(Clone, Copy)]
pub struct EvaluationState {
    /// Base URL, model, key and extra headers.
    pub endpoint: RwSignal<Endpoint>,
    /// The context strategy with its parameters, parsed once through the registry (a run stores its text).
    pub strategy: RwSignal<Strategy>,
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
    /// The generated instances' settings (one sample per target unless changed).
    pub form: RwSignal<GenerateForm>,
    /// A dataset file loaded for the next run: its name and contents.
    pub loaded: RwSignal<Option<(String, Value)>>,
    /// Where the next run takes its samples.
    pub source: RwSignal<SampleSource>,
    /// With the Browse source: only the samples Browse's filters keep (else all the dataset's).
    pub browse_filtered: RwSignal<bool>,
    /// True while the samples of the Browse or Design source are being gathered.
    pub gathering: RwSignal<bool>,
    /// A stored run left unfinished, offered for resuming, with its finished samples.
    pub pending: RwSignal<Option<(RunSpec, usize)>>,
    /// The run of this tab: what it writes and the page draws.
    pub run: RunView,
    /// The id of the run this tab started last (the run list marks it while it goes).
    pub current: RwSignal<Option<String>>,
    /// True while the user holds the run.
    pub paused: RwSignal<bool>,
    /// The running run's stop and pause switch.
    pub control: StoredValue<RunControl, LocalStorage>,
}

/// What a run writes for the page to draw. Plain signals owned by the app, so the run goes on, and is seen
/// going on, when the page is left and opened again.
#[derive(Clone, Copy)]
pub struct RunView {
    /// One row per sample.
    pub rows: RwSignal<Vec<Row>>,
    /// The progress line's figures, redrawn every second.
    pub live: RwSignal<Live>,
    /// True while a run goes.
    pub running: RwSignal<bool>,
    /// The run's results file so far (unfinished samples marked `in_progress`).
    pub results: RwSignal<Option<Arc<ResultsData>>>,
    /// Bumped whenever the store's runs change, so the run list reads them again.
    pub revision: RwSignal<u64>,
    /// Why the run stopped itself (a spent budget), shown under the progress line.
    pub notice: RwSignal<String>,
    /// The text of each running sample's reply as it streams in (the latest request's); empty unless streaming.
    pub live_text: RwSignal<BTreeMap<usize, String>>,
    /// Bumped when a run lays out its rows, so the table draws them afresh, a chunk per frame.
    pub started: RwSignal<u64>,
    /// What the run changed in its requests to suit the endpoint, one sentence each.
    pub adaptations: RwSignal<Vec<String>>,
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
    pub(super) fn new(results: RwSignal<Option<Arc<ResultsData>>>) -> EvaluationState {
        let remembered = local_storage::read(REMEMBERED_KEY);
        let running = RwSignal::new(false);
        EvaluationState {
            endpoint: RwSignal::new(Endpoint {
                base_url: "http://127.0.0.1:8099/v1".into(),
                model: "local".into(),
                api_key: remembered.clone().map(Secret::new).unwrap_or_default(),
                ..Endpoint::default()
            }),
            strategy: RwSignal::new(Strategy::default()),
            sample_limit: RwSignal::new(3),
            max_tokens: RwSignal::new(2048),
            running,
            settings: RwSignal::new(RunSettings::default()),
            headers: RwSignal::new(String::new()),
            remember_key: RwSignal::new(remembered.is_some()),
            form: RwSignal::new(GenerateForm { samples_per_target: 1, ..GenerateForm::default() }),
            loaded: RwSignal::new(None),
            source: RwSignal::new(SampleSource::default()),
            browse_filtered: RwSignal::new(true),
            gathering: RwSignal::new(false),
            pending: RwSignal::new(None),
            run: RunView {
                rows: RwSignal::new(Vec::new()),
                live: RwSignal::new(Live::default()),
                running,
                results,
                revision: RwSignal::new(0),
                notice: RwSignal::new(String::new()),
                live_text: RwSignal::new(BTreeMap::new()),
                started: RwSignal::new(0),
                adaptations: RwSignal::new(Vec::new()),
            },
            current: RwSignal::new(None),
            paused: RwSignal::new(false),
            control: StoredValue::new_local(RunControl::default()),
        }
    }
}


/// The dataset of the Design source in the job runner's store (made for a run, dropped after).
const DESIGN_DATASET: &str = "evaluate:design";

impl EvaluationState {
    /// What Browse shows, as Evaluate sees it.
    pub fn browse_shown(browse: BrowseState) -> Option<BrowseShown> {
        let info = browse.current_info()?;
        Some(BrowseShown { name: info.name, total: info.total, loaded: info.loaded, kept: browse.view.get() })
    }

    /// The samples of the Browse or Design source, as a dataset file's JSON (`summary`, `samples`), gathered by
    /// the job runner: the Browse dataset's samples (all, or the filtered ones), or the designer's graph
    /// generated with this page's seed and family. A message says what is wrong with an empty or bad source.
    pub async fn gather(&self, browse: BrowseState, design: DesignState) -> Result<Value, String> {
        let text = match self.source.get_untracked() {
            SampleSource::Browse => {
                let filtered = self.browse_filtered.get_untracked();
                let shown = Self::browse_shown(browse);
                let positions = browse_positions(shown.as_ref(), filtered)?;
                let key = browse.current.get_untracked().unwrap_or_default();
                worker::ask_file(JobRequest::Samples { dataset: key, positions }, None).await.map_err(|e| format!("the dataset on Browse: {e}"))?
            }
            SampleSource::Design => {
                if design.read(|m| m.graph().nodes().is_empty()) {
                    return Err("the graph on Design has no nodes: add tasks on Design (or pick a preset), then come back".into());
                }
                let mut form = self.form.get_untracked();
                form.family = super::explicit_now(&form.family);
                let packs = super::current_sources();
                let request = JobRequest::Generate { dataset: DESIGN_DATASET.into(), form, graph: Some(design.graph_json()), packs };
                worker::ask_file(request, None).await.map_err(|e| format!("the graph on Design cannot be generated: {e}"))?;
                let text = worker::ask_file(JobRequest::Samples { dataset: DESIGN_DATASET.into(), positions: None }, None).await;
                worker::start(JobRequest::Forget { dataset: DESIGN_DATASET.into() }, |_| {});
                text.map_err(|e| format!("the graph on Design: {e}"))?
            }
            other => return Err(format!("{} is not gathered by the job runner", other.label())),
        };
        let json: Value = serde_json::from_str(&text).map_err(|e| format!("the gathered samples are not JSON: {e}"))?;
        if json["samples"].as_array().is_none_or(Vec::is_empty) {
            return Err(format!("{} gave no samples", self.source.get_untracked().label()));
        }
        Ok(json)
    }
}
