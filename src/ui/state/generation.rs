//! The generator's state: the form (and the designer's graph for custom runs), the samples streamed in by the
//! running job, its progress, and what the last run said. `run` is the one entry point of the pages: it starts a
//! generation job (in the Web Worker when there is one) and streams its samples into `records`.

use leptos::prelude::*;

use crate::app::form::GenerateForm;
use crate::app::jobs::{FromWorker, JobRequest, SampleRecord};
use crate::web::worker::{self, JobHandle};

/// Progress of a running generation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Samples made.
    pub done: usize,
    /// Samples asked for.
    pub total: usize,
    /// `Date.now()` when the run started, for rates and time left.
    pub started_ms: f64,
}

/// The generator's form, its samples and what the last run said.
#[derive(Clone, Copy)]
pub struct GenerationState {
    /// The settings (they round-trip through the URL).
    pub form: RwSignal<GenerateForm>,
    /// A custom graph (node-link JSON) to generate from instead of the form's topology.
    pub graph: RwSignal<Option<String>>,
    /// The samples of the current or last run, in order.
    pub records: RwSignal<Vec<SampleRecord>>,
    /// The selected sample's position in `records`.
    pub selected: RwSignal<Option<usize>>,
    /// The running job's progress (`None` when idle).
    pub progress: RwSignal<Option<Progress>>,
    /// The running job, for cancelling.
    pub job: RwSignal<Option<JobHandle>>,
    /// The dataset summary of the last finished run (compact JSON), for downloads.
    pub summary: RwSignal<String>,
    /// What the last run did; cleared when a run starts, so it never describes an older run.
    pub status: RwSignal<String>,
    /// Why the last run failed; cleared when a run starts.
    pub error: RwSignal<String>,
}

impl GenerationState {
    pub(super) fn new() -> GenerationState {
        GenerationState {
            form: RwSignal::new(GenerateForm::default()),
            graph: RwSignal::new(None),
            records: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
            progress: RwSignal::new(None),
            job: RwSignal::new(None),
            summary: RwSignal::new(String::new()),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(String::new()),
        }
    }

    /// Starts generating the form's settings (or the graph's), replacing the samples as the new ones stream in.
    /// A run already going is cancelled first.
    pub fn run(&self) {
        let request = JobRequest::Generate { form: self.form.get_untracked(), graph: self.graph.get_untracked() };
        self.start(request, "samples generated");
    }

    /// Regenerates one sample alone (a deep link), replacing the list with it.
    pub fn run_one(&self, target: usize, sample: u32) {
        let request = JobRequest::GenerateOne { form: self.form.get_untracked(), graph: self.graph.get_untracked(), target, sample };
        self.start(request, &format!("sample {sample} of target {target}, regenerated alone from the link"));
    }

    /// Stops the running job; the samples made so far stay.
    pub fn cancel(&self) {
        if let Some(job) = self.job.get_untracked() {
            job.cancel();
        }
    }

    fn start(&self, request: JobRequest, done_text: &str) {
        self.cancel();
        self.status.set(String::new());
        self.error.set(String::new());
        self.summary.set(String::new());
        self.records.set(Vec::new());
        self.selected.set(None);
        let state = *self;
        let done_text = done_text.to_string();
        self.progress.set(Some(Progress { done: 0, total: 0, started_ms: js_sys::Date::now() }));
        let handle = worker::start(request, move |message| state.receive(message, &done_text));
        self.job.set(Some(handle));
    }

    fn receive(&self, message: FromWorker, done_text: &str) {
        match message {
            FromWorker::Samples { samples, .. } => {
                if !samples.is_empty() {
                    self.records.update(|r| r.extend(samples));
                    if self.selected.get_untracked().is_none() {
                        self.selected.set(Some(0));
                    }
                }
            }
            FromWorker::Progress { done, total, .. } => self.progress.update(|p| {
                if let Some(p) = p {
                    p.done = done;
                    p.total = total;
                }
            }),
            FromWorker::Done { summary, .. } => {
                let count = self.records.with_untracked(Vec::len);
                self.summary.set(summary);
                self.status.set(format!("{count} {done_text}"));
                self.finish();
            }
            FromWorker::Failed { message, location, .. } => {
                self.error.set(match location {
                    Some(at) => format!("{at}: {message}"),
                    None => message,
                });
                self.finish();
            }
            FromWorker::Cancelled { .. } => {
                let count = self.records.with_untracked(Vec::len);
                self.status.set(format!("cancelled after {count} samples"));
                self.finish();
            }
            FromWorker::Drawing { .. } | FromWorker::Parsed { .. } | FromWorker::Ready { .. } => {}
        }
    }

    fn finish(&self) {
        self.progress.set(None);
        self.job.set(None);
    }
}
