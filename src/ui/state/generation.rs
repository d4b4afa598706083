//! The generator's state: the form (and the designer's graph for custom runs), the running job's progress,
//! and what the last run said. `run` is the one entry point of the pages: it starts a generation job (in the
//! Web Worker when there is one) whose samples stream into the browser's `generated` dataset, so `#/browse`
//! shows them as they come. `download` regenerates the run into files byte-identical to the CLI's.

use leptos::prelude::*;

use crate::engine::generate::form::GenerateForm;
use crate::app::jobs::{FromWorker, JobRequest};
use crate::engine::generate::plan::{label, plan};
use crate::engine::dataset::FileFormat;
use crate::web::download::download_text;
use crate::web::worker::{self, JobHandle};

use super::browse::{BrowseState, Source, GENERATED};
use super::PackState;

/// Progress of a running job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Units made.
    pub done: usize,
    /// Units asked for.
    pub total: usize,
    /// `Date.now()` when the job started, for rates and time left.
    pub started_ms: f64,
}

impl Progress {
    fn start() -> Progress {
        Progress { done: 0, total: 0, started_ms: js_sys::Date::now() }
    }

    /// Units per second so far.
    pub fn rate(&self, now_ms: f64) -> f64 {
        self.done as f64 / ((now_ms - self.started_ms).max(1.0) / 1000.0)
    }

    /// Seconds left at the current rate, once it is known.
    pub fn seconds_left(&self, now_ms: f64) -> Option<f64> {
        let rate = self.rate(now_ms);
        (rate > 0.0 && self.total >= self.done).then(|| (self.total - self.done) as f64 / rate)
    }
}

/// The generator's form, its running job and what the last run said.
#[derive(Clone, Copy)]
pub struct GenerationState {
    /// The settings (they round-trip through the URL).
    pub form: RwSignal<GenerateForm>,
    /// A custom graph (node-link JSON) to generate from instead of the form's topology.
    pub graph: RwSignal<Option<String>>,
    /// The running generation's progress (`None` when idle).
    pub progress: RwSignal<Option<Progress>>,
    /// The running generation, for cancelling.
    pub job: RwSignal<Option<JobHandle>>,
    /// A running download's progress.
    pub exporting: RwSignal<Option<Progress>>,
    /// What the last run did; cleared when a run starts, so it never describes an older run.
    pub status: RwSignal<String>,
    /// Why the last run failed; cleared when a run starts.
    pub error: RwSignal<String>,
    browse: BrowseState,
    packs: PackState,
}

impl GenerationState {
    pub(super) fn new(browse: BrowseState, packs: PackState) -> GenerationState {
        GenerationState {
            form: RwSignal::new(GenerateForm::default()),
            graph: RwSignal::new(None),
            progress: RwSignal::new(None),
            job: RwSignal::new(None),
            exporting: RwSignal::new(None),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(String::new()),
            browse,
            packs,
        }
    }

    /// What a run of the current settings is called (`math chain`, `paper layouts, math`, `custom graph`).
    pub fn run_name(&self) -> String {
        let form = self.form.get_untracked();
        if self.graph.with_untracked(Option::is_some) {
            return "custom graph".into();
        }
        match plan(&form).as_slice() {
            [one] => label(one),
            runs => format!("paper layouts ({} runs, {})", runs.len(), form.family),
        }
    }

    /// Starts generating the form's settings (or the graph's) into the `generated` dataset, replacing it as the
    /// new samples stream in. A run already going is cancelled first.
    pub fn run(&self) {
        self.cancel();
        self.status.set(String::new());
        self.error.set(String::new());
        let mut form = self.form.get_untracked();
        // With a pack loaded, the run's settings name it (`python.ref`), so its links say they need it.
        form.family = self.packs.explicit(&form.family);
        let graph = self.graph.get_untracked();
        let packs = self.packs.sources();
        let runs = if graph.is_some() { vec![form.clone()] } else { plan(&form) };
        let source = Source::Generated { form: form.clone(), runs, graph: graph.clone(), packs: packs.clone() };
        self.browse.begin(GENERATED, &format!("generated: {}", self.run_name()), source, 0);
        let state = *self;
        self.progress.set(Some(Progress::start()));
        let handle = worker::start(JobRequest::Generate { dataset: GENERATED.into(), form, graph, packs }, move |message| state.receive(message));
        self.job.set(Some(handle));
    }

    /// Stops the running generation; the samples made so far stay.
    pub fn cancel(&self) {
        if let Some(job) = self.job.get_untracked() {
            job.cancel();
        }
    }

    fn receive(&self, message: FromWorker) {
        match message {
            FromWorker::Rows { dataset, total, rows, .. } => self.browse.add_rows(&dataset, total, rows),
            FromWorker::Progress { done, total, .. } => self.progress.update(|p| {
                if let Some(p) = p {
                    p.done = done;
                    p.total = total;
                }
            }),
            FromWorker::Done { .. } => {
                let count = self.browse.info(GENERATED).map(|d| d.loaded).unwrap_or(0);
                let seconds = self.progress.with_untracked(|p| p.map(|p| (js_sys::Date::now() - p.started_ms) / 1000.0)).unwrap_or(0.0);
                self.status.set(format!("{count} samples generated in {seconds:.1} s"));
                self.finish();
            }
            FromWorker::Failed { message, location, .. } => {
                self.browse.settle(GENERATED);
                self.error.set(match location {
                    Some(at) => format!("{at}: {message}"),
                    None => message,
                });
                self.finish();
            }
            FromWorker::Cancelled { .. } => {
                self.browse.settle(GENERATED);
                let count = self.browse.info(GENERATED).map(|d| d.loaded).unwrap_or(0);
                self.status.set(format!("cancelled after {count} samples"));
                self.finish();
            }
            _ => {}
        }
    }

    fn finish(&self) {
        self.progress.set(None);
        self.job.set(None);
    }

    /// Regenerates the generated run (its settings as they were) and downloads one file per run, byte-identical
    /// to `arbigraph generate` with the same settings.
    pub fn download(&self, format: FileFormat) {
        let Some(Source::Generated { form, graph, packs, .. }) = self.browse.info(GENERATED).map(|d| d.source) else { return };
        let state = *self;
        self.error.set(String::new());
        self.exporting.set(Some(Progress::start()));
        worker::start(JobRequest::Export { form, graph, format, packs }, move |message| match message {
            FromWorker::File { name, text, .. } => {
                if let Err(e) = download_text(&name, "application/json", &text) {
                    state.error.set(e.to_string());
                }
            }
            FromWorker::Progress { done, total, .. } => state.exporting.update(|p| {
                if let Some(p) = p {
                    p.done = done;
                    p.total = total;
                }
            }),
            FromWorker::Failed { message, .. } => {
                state.error.set(message);
                state.exporting.set(None);
            }
            FromWorker::Done { .. } | FromWorker::Cancelled { .. } => state.exporting.set(None),
            _ => {}
        });
    }
}
