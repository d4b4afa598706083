//! Long work the app does away from the page's main thread: generating datasets, exporting them as files,
//! reading opened files and fetched shards, querying and showing the samples held, drawing graphs. A `Job`
//! is plain Rust advanced one slice at a time (`step`), so the same code runs in the Web Worker (`web::worker`,
//! between messages) and, where workers are unavailable, on the main thread between frames. The samples live
//! in the runner's `Store`; the page receives small `Row`s and asks for a `Detail` when it shows one.
//! Messages are serde JSON: the worker protocol of ARCHITECTURE.md's serialization invariant.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::app::catalog::{Query, Row};
use crate::app::demo;
use crate::app::split::{self, Merge};
use crate::engine::generate::form::GenerateForm;
use crate::app::instance::{row_of, Detail};
use crate::engine::generate::plan::plan;
use crate::app::store::{Store, Stored};
use crate::engine::dataset::site::INDEX_PATH;
use crate::engine::dataset::{self, FileFormat, RunInfo};
use crate::engine::generate::{self, GenerateConfig, Sample, Topology};
use crate::engine::graph::{self, ValidGraph};
use crate::engine::prompt::Prompt;
use crate::engine::render::{self, RenderOptions};
use crate::engine::tasks::registry::{builtin_with, Registry};
use crate::app::editor::{import, tidy};
use crate::engine::tasks::Task;

/// What a job is asked to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobRequest {
    /// Generate every run of the form's plan (one run, or the paper's layouts) into dataset `dataset`, streaming
    /// rows; `graph` (node-link JSON) makes it a custom-graph run.
    Generate { dataset: String, form: GenerateForm, graph: Option<String> },
    /// Make positions `first..end` of the plan's runs (a block lent by the worker that runs a `Generate` split
    /// over several workers, `app::split`): answered with `Made` messages, nothing stored here.
    GenerateRange { form: GenerateForm, graph: Option<String>, first: usize, end: usize },
    /// Regenerate one sample alone (a deep link) into dataset `dataset`, which then holds just that sample.
    GenerateOne { dataset: String, form: GenerateForm, graph: Option<String>, target: usize, sample: u32 },
    /// Regenerate the plan's runs and return each as a file, byte-identical to `arbigraph generate`'s.
    Export { form: GenerateForm, graph: Option<String>, format: FileFormat },
    /// Read a dataset file of any layout into dataset `dataset`. The worker adapter may fill `text` from a
    /// file object sent beside the message.
    OpenFile { dataset: String, name: String, text: String },
    /// Read one shard (JSONL) of a hosted dataset of `total` samples, whose first sample is `first`.
    LoadShard { dataset: String, name: String, first: usize, total: usize, summary: Option<Json>, text: String },
    /// The positions of dataset `dataset` that `query` keeps.
    Query { dataset: String, query: Query },
    /// Everything the instance view shows of one sample.
    Detail { dataset: String, index: usize },
    /// Dataset `dataset` as a dataset file (every sample, or those at `positions`), answered as a `File` named
    /// after the dataset: the samples an evaluation takes.
    Samples { dataset: String, positions: Option<Vec<usize>> },
    /// Drop a dataset.
    Forget { dataset: String },
    /// Draw a node-link graph as SVG.
    Render { graph: String },
    /// Parse a JSON file (a dataset or results file) and report what it is.
    ParseJson { name: String, text: String },
    /// Open a designer graph (a file, a drop, a paste): parse and check it and place the nodes without
    /// positions, or with `arrange` lay every node out anew (a "tidy up" too big for the page). The answer is
    /// `Parsed` with kind `graph`, the node count and the node-link JSON with positions.
    OpenGraph { name: String, text: String, arrange: bool },
    /// Generate the app's demo datasets (`app::demo`) as site datasets `site:NAME`: answered with a `File` named
    /// `datasets/index.json` holding the index a site would carry, then each dataset's rows.
    DemoSite,
}

/// A message to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Start job `id`.
    Start { id: u64, request: JobRequest },
    /// Stop job `id` at its next slice boundary.
    Cancel { id: u64 },
    /// Spread generations over `count` workers in all (this one and `count - 1` helpers it starts;
    /// `app::split`). Sent by the page once, from `navigator.hardwareConcurrency`; without it, one worker.
    Workers { count: usize },
}

/// A message from the worker (or from the main-thread fallback). Externally tagged: an internal tag would make
/// serde buffer a whole message before reading it, which doubles the cost of a large instance on the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// `done` of `total` units finished.
    Progress { id: u64, done: usize, total: usize },
    /// Rows of dataset `dataset`, which has `total` slots.
    Rows { id: u64, dataset: String, total: usize, rows: Vec<Row> },
    /// A file was read into dataset `dataset`: its name, sample count and summary.
    Opened { id: u64, dataset: String, name: String, samples: usize, summary: Option<Json> },
    /// The positions a query kept, in order.
    View { id: u64, dataset: String, indices: Vec<usize> },
    /// One sample, for the instance view.
    Detail { id: u64, detail: Box<Detail> },
    /// Samples a helper made for a split generation: positions `first..` of the run, in order.
    Made { id: u64, first: usize, samples: Vec<Stored> },
    /// An exported file.
    File { id: u64, name: String, text: String },
    /// A rendered graph.
    Drawing { id: u64, svg: String },
    /// A parsed file, re-serialised compactly (parsing proved it is JSON), with its kind.
    Parsed { id: u64, name: String, kind: String, samples: usize, json: String },
    /// The job finished; `summary` says what it made (the dataset's summary object for generation runs).
    Done { id: u64, summary: String },
    /// The job stopped on a problem; `location` says where when the problem is in user input.
    Failed { id: u64, message: String, location: Option<String> },
    /// The job was cancelled.
    Cancelled { id: u64 },
    /// The worker has started and listens (sent once, with id 0, before any job message).
    Ready { id: u64 },
}

impl FromWorker {
    /// The job the message belongs to.
    pub fn id(&self) -> u64 {
        match self {
            FromWorker::Progress { id, .. }
            | FromWorker::Rows { id, .. }
            | FromWorker::Opened { id, .. }
            | FromWorker::View { id, .. }
            | FromWorker::Detail { id, .. }
            | FromWorker::Made { id, .. }
            | FromWorker::File { id, .. }
            | FromWorker::Drawing { id, .. }
            | FromWorker::Parsed { id, .. }
            | FromWorker::Done { id, .. }
            | FromWorker::Failed { id, .. }
            | FromWorker::Cancelled { id }
            | FromWorker::Ready { id } => *id,
        }
    }

    /// True for the last message of a job.
    pub fn is_final(&self) -> bool {
        matches!(self, FromWorker::Done { .. } | FromWorker::Failed { .. } | FromWorker::Cancelled { .. })
    }
}

/// The engine configuration of a form, with the designer's graph for custom runs.
pub fn config_of(form: &GenerateForm, graph: Option<&str>, registry: &Registry) -> Result<GenerateConfig, String> {
    let Some(text) = graph else { return form.to_config() };
    let parsed = graph::from_json_str(text).map_err(|errors| errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
    let valid = ValidGraph::new(parsed, registry).map_err(|issues| {
        let shown: Vec<String> = issues.iter().take(3).map(|i| i.to_string()).collect();
        format!("the graph has {} problem(s): {}", issues.len(), shown.join("; "))
    })?;
    let mut config = form.to_config().unwrap_or_else(|_| GenerateConfig::new(Topology::Baseline, vec![]));
    config.topology = Topology::Custom(Box::new(valid));
    if config.families.is_empty() {
        return Err("choose at least one family".into());
    }
    Ok(config)
}

/// The registry a run's custom graph asks for with its own picture parameters, if it sets them.
fn registry_for(configs: &[GenerateConfig]) -> Option<Registry> {
    configs.iter().find_map(|c| match &c.topology {
        Topology::Custom(valid) => valid.graph().image_params().map(|params| builtin_with(*params)),
        _ => None,
    })
}

/// A designer graph opened (and, with `arrange`, laid out anew).
fn open_graph(name: &str, text: &str, arrange: bool) -> Result<graph::TaskGraph, import::ImportError> {
    let mut opened = import::open(name, text)?;
    if arrange {
        let layout_error = |message: String| import::ImportError::Layout { name: name.to_string(), message };
        let edit = tidy::tidy_edit(&opened).map_err(|e| layout_error(e.to_string()))?;
        opened.apply(edit).map_err(|e| layout_error(e.to_string()))?;
    }
    Ok(opened)
}

/// The configurations of a form's plan: the paper's layouts, or the one run (a custom graph makes it one run).
pub fn configs_of(form: &GenerateForm, graph: Option<&str>, registry: &Registry) -> Result<Vec<GenerateConfig>, String> {
    if graph.is_some() {
        return Ok(vec![config_of(form, graph, registry)?]);
    }
    plan(form).iter().map(|run| config_of(run, None, registry).map_err(|e| format!("{} {}: {e}", run.family, run.topology))).collect()
}

/// A prompt's roles, run-length encoded as (role name, characters).
pub fn roles_of(prompt: &Prompt) -> Vec<(String, u32)> {
    let mut roles: Vec<(String, u32)> = Vec::new();
    for (role, text) in prompt.pieces() {
        let count = text.chars().count() as u32;
        match roles.last_mut() {
            Some((last, n)) if last == role.as_str() => *n += count,
            _ => roles.push((role.as_str().to_string(), count)),
        }
    }
    roles
}

/// A generated sample as the store keeps it: its reference-layout record, exact roles, and its origin.
pub fn stored_of(config: &GenerateConfig, index: usize, run: usize, sample: &Sample) -> Stored {
    let file = dataset::to_json(config, std::slice::from_ref(sample), &RunInfo::default());
    let record = file.get("samples").and_then(|s| s.get(0)).cloned().unwrap_or(Json::Null);
    let row = row_of(index, &record, &dataset::mode(config), Some((run, sample.target_index)));
    Stored::new(row, record, Some(roles_of(&sample.prompt)))
}

/// One run of a plan: its configuration and targets.
struct Run {
    config: GenerateConfig,
    targets: Vec<Rc<dyn Task>>,
}

impl Run {
    fn new(config: GenerateConfig, registry: &Registry) -> Result<Run, String> {
        let targets = generate::targets(&config, registry).map_err(|e| e.to_string())?;
        Ok(Run { config, targets })
    }

    fn len(&self) -> usize {
        self.targets.len() * self.config.samples_per_target as usize
    }

    /// The sample at position `k` of the run: (target index, sample index).
    fn at(&self, k: usize) -> (usize, u32) {
        let spt = self.config.samples_per_target as usize;
        (k / spt, (k % spt) as u32)
    }
}

/// Where a generation or export is.
struct Cursor {
    runs: Vec<Run>,
    run: usize,
    /// Position within the current run.
    at: usize,
    /// Samples made over all runs.
    done: usize,
    total: usize,
}

impl Cursor {
    fn new(configs: Vec<GenerateConfig>, registry: &Registry) -> Result<Cursor, String> {
        let runs = configs.into_iter().map(|c| Run::new(c, registry)).collect::<Result<Vec<_>, _>>()?;
        let total = runs.iter().map(Run::len).sum();
        Ok(Cursor { runs, run: 0, at: 0, done: 0, total })
    }

    /// The next sample to make: (run, target index, sample index), moving past finished runs.
    fn next(&mut self) -> Option<(usize, usize, u32)> {
        while self.run < self.runs.len() && self.at >= self.runs[self.run].len() {
            self.run += 1;
            self.at = 0;
        }
        let run = self.runs.get(self.run)?;
        let (target, sample) = run.at(self.at);
        Some((self.run, target, sample))
    }

    /// The sample at position `k` of the whole plan: (run, target index, sample index).
    fn locate(&self, mut k: usize) -> Option<(usize, usize, u32)> {
        for (i, run) in self.runs.iter().enumerate() {
            if k < run.len() {
                let (target, sample) = run.at(k);
                return Some((i, target, sample));
            }
            k -= run.len();
        }
        None
    }

    fn advance(&mut self) {
        self.at += 1;
        self.done += 1;
    }

    fn sample(&self, run: usize, target: usize, sample: u32, registry: &Registry) -> Result<Sample, String> {
        let r = &self.runs[run];
        let task = &r.targets[target];
        generate::generate_sample(&r.config, registry, target, sample).map_err(|e| format!("{e} ({})", task.info().key))
    }
}

enum Work {
    Generate { dataset: String, cursor: Cursor, form: GenerateForm, graph: Option<String>, split: Option<Split> },
    Range { cursor: Cursor, at: usize, end: usize },
    One { dataset: String, config: Box<GenerateConfig>, target: usize, sample: u32 },
    Export { cursor: Cursor, format: FileFormat, made: Vec<Sample> },
    Open { dataset: String, name: String, text: String, read: Option<(Option<Json>, std::vec::IntoIter<Json>, String)>, done: usize, total: usize },
    Shard { dataset: String, name: String, first: usize, total: usize, summary: Option<Json>, text: String },
    Query { dataset: String, query: Query },
    Detail { dataset: String, index: usize },
    Forget { dataset: String },
    Samples { dataset: String, positions: Option<Vec<usize>> },
    Render { graph: String },
    Parse { name: String, text: String },
    OpenGraph { name: String, text: String, arrange: bool },
    Demo { cursor: Cursor, names: Vec<String>, made: Vec<Sample>, published: Vec<demo::Published> },
}

/// A job in progress.
pub struct Job {
    id: u64,
    work: Work,
    /// The registry of a custom graph that sets its own picture parameters (else the worker's is used).
    own_registry: Option<Registry>,
    finished: bool,
    /// Units per slice, adapted to the time slices take.
    units: usize,
}

impl Job {
    /// Prepares a job; a request that cannot start (a bad form, a broken graph) is reported as `Failed`.
    pub fn new(id: u64, request: JobRequest, registry: &Registry, store: &mut Store) -> Result<Job, Box<FromWorker>> {
        let failed = |message: String| Box::new(FromWorker::Failed { id, message, location: None });
        let mut own_registry = None;
        let work = match request {
            JobRequest::Generate { dataset, form, graph } => {
                let configs = configs_of(&form, graph.as_deref(), registry).map_err(failed)?;
                own_registry = registry_for(&configs);
                let cursor = Cursor::new(configs, own_registry.as_ref().unwrap_or(registry)).map_err(failed)?;
                let summary = (cursor.runs.len() == 1).then(|| summary_of(&cursor.runs[0].config));
                store.create(&dataset, summary, cursor.total);
                Work::Generate { dataset, cursor, form, graph, split: None }
            }
            JobRequest::GenerateRange { form, graph, first, end } => {
                let configs = configs_of(&form, graph.as_deref(), registry).map_err(failed)?;
                own_registry = registry_for(&configs);
                let cursor = Cursor::new(configs, own_registry.as_ref().unwrap_or(registry)).map_err(failed)?;
                if first > end || end > cursor.total {
                    return Err(failed(format!("positions {first}..{end} are outside the run's {} samples", cursor.total)));
                }
                Work::Range { cursor, at: first, end }
            }
            JobRequest::GenerateOne { dataset, form, graph, target, sample } => {
                let config = config_of(&form, graph.as_deref(), registry).map_err(failed)?;
                own_registry = registry_for(std::slice::from_ref(&config));
                Work::One { dataset, config: Box::new(config), target, sample }
            }
            JobRequest::Export { form, graph, format } => {
                let configs = configs_of(&form, graph.as_deref(), registry).map_err(failed)?;
                own_registry = registry_for(&configs);
                Work::Export { cursor: Cursor::new(configs, own_registry.as_ref().unwrap_or(registry)).map_err(failed)?, format, made: Vec::new() }
            }
            JobRequest::OpenFile { dataset, name, text } => Work::Open { dataset, name, text, read: None, done: 0, total: 0 },
            JobRequest::LoadShard { dataset, name, first, total, summary, text } => Work::Shard { dataset, name, first, total, summary, text },
            JobRequest::Query { dataset, query } => Work::Query { dataset, query },
            JobRequest::Detail { dataset, index } => Work::Detail { dataset, index },
            JobRequest::Forget { dataset } => Work::Forget { dataset },
            JobRequest::Samples { dataset, positions } => Work::Samples { dataset, positions },
            JobRequest::Render { graph } => Work::Render { graph },
            JobRequest::ParseJson { name, text } => Work::Parse { name, text },
            JobRequest::OpenGraph { name, text, arrange } => Work::OpenGraph { name, text, arrange },
            JobRequest::DemoSite => {
                let runs = demo::runs().map_err(failed)?;
                let names = runs.iter().map(|(name, _, _)| name.clone()).collect();
                let cursor = Cursor::new(runs.into_iter().map(|(_, _, config)| config).collect(), registry).map_err(failed)?;
                Work::Demo { cursor, names, made: Vec::new(), published: Vec::new() }
            }
        };
        Ok(Job { id, work, own_registry, finished: false, units: 4 })
    }

    /// The job's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// True once the final message was returned.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// True for jobs done in one short step (queries, details, shards): they run before long jobs' slices, so
    /// browsing stays quick while a generation runs.
    pub fn is_quick(&self) -> bool {
        matches!(self.work, Work::One { .. } | Work::Shard { .. } | Work::Query { .. } | Work::Detail { .. } | Work::Forget { .. } | Work::Samples { .. } | Work::Render { .. } | Work::Parse { .. } | Work::OpenGraph { .. })
    }

    /// Units the next slice will do.
    pub fn units(&self) -> usize {
        self.units
    }

    /// Adapts the units per slice to how long the last slice took, aiming at `target_ms`.
    pub fn adapt(&mut self, took_ms: f64, target_ms: f64) {
        self.units = if took_ms < target_ms / 2.0 {
            (self.units * 2).min(4096)
        } else if took_ms > target_ms * 2.0 {
            (self.units / 2).max(1)
        } else {
            self.units
        };
    }

    /// Does one slice of work (`units()` samples, for the long jobs) and returns the messages to deliver.
    pub fn step(&mut self, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
        if self.finished {
            return Vec::new();
        }
        let id = self.id;
        let units = self.units.max(1);
        let registry = self.own_registry.as_ref().unwrap_or(registry);
        let out = match &mut self.work {
            Work::Generate { dataset, cursor, split: None, .. } => generate_slice(id, dataset, cursor, units, registry, store),
            Work::Generate { dataset, cursor, split: Some(split), .. } => {
                if split.own.as_ref().is_none_or(|own| own.is_empty()) {
                    split.own = split.queue.pop_front();
                }
                let Some(own) = split.own.as_mut() else { return Vec::new() };
                let first = own.start;
                let end = own.end.min(first + units);
                own.start = end;
                match make_range(cursor, first, end, registry) {
                    Ok(made) => take_made(id, dataset, cursor, split, first, made, store),
                    Err(failed) => vec![FromWorker::Failed { id, message: failed.0, location: Some(failed.1) }],
                }
            }
            Work::Range { cursor, at, end } => {
                let first = *at;
                let to = (*end).min(first + units);
                match make_range(cursor, first, to, registry) {
                    Ok(samples) => {
                        *at = to;
                        let mut out = vec![FromWorker::Made { id, first, samples }];
                        if to >= *end {
                            out.push(FromWorker::Done { id, summary: String::new() });
                        }
                        out
                    }
                    Err(failed) => vec![FromWorker::Failed { id, message: failed.0, location: Some(failed.1) }],
                }
            }
            Work::One { dataset, config, target, sample } => match generate::generate_sample(config, registry, *target, *sample) {
                Ok(made) => {
                    let stored = stored_of(config, 0, 0, &made);
                    let row = stored.row.clone();
                    store.create(dataset, Some(summary_of(config)), 1);
                    store.put(dataset, stored);
                    vec![FromWorker::Rows { id, dataset: dataset.clone(), total: 1, rows: vec![row] }, FromWorker::Done { id, summary: String::new() }]
                }
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
            },
            Work::Export { cursor, format, made } => export_slice(id, cursor, *format, made, units, registry),
            Work::Open { dataset, name, text, read, done, total } => {
                if read.is_none() {
                    match dataset::read_dataset(name, text) {
                        Err(e) => return self.finish(vec![FromWorker::Failed { id, message: e.to_string(), location: Some(e.location()) }]),
                        Ok(parsed) => {
                            *text = String::new();
                            *total = parsed.samples.len();
                            let mode = parsed.summary.as_ref().and_then(|s| s.get("mode")).and_then(Json::as_str).unwrap_or("").to_string();
                            store.create(dataset, parsed.summary.clone(), *total);
                            let opened = FromWorker::Opened { id, dataset: dataset.clone(), name: name.clone(), samples: *total, summary: parsed.summary.clone() };
                            *read = Some((parsed.summary, parsed.samples.into_iter(), mode));
                            return vec![opened];
                        }
                    }
                }
                let Some((_, samples, mode)) = read.as_mut() else { return Vec::new() };
                let mut rows = Vec::new();
                for record in samples.by_ref().take(units) {
                    let row = row_of(*done, &record, mode, None);
                    rows.push(row.clone());
                    store.put(dataset, Stored::new(row, record, None));
                    *done += 1;
                }
                let mut out = vec![FromWorker::Rows { id, dataset: dataset.clone(), total: *total, rows }, FromWorker::Progress { id, done: *done, total: *total }];
                if *done >= *total {
                    out.push(FromWorker::Done { id, summary: String::new() });
                }
                out
            }
            Work::Shard { dataset, name, first, total, summary, text } => match dataset::read_dataset(&format!("{name}.jsonl"), text) {
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: Some(e.location()) }],
                Ok(parsed) => {
                    let rows = put_records(store, dataset, *first, *total, summary.take(), parsed.samples);
                    vec![FromWorker::Rows { id, dataset: dataset.clone(), total: *total, rows }, FromWorker::Done { id, summary: String::new() }]
                }
            },
            Work::Demo { cursor, names, made, published } => demo_slice(id, cursor, names, made, published, units, registry, store),
            Work::Query { dataset, query } => match store.select(dataset, query) {
                Ok(indices) => vec![FromWorker::View { id, dataset: dataset.clone(), indices }, FromWorker::Done { id, summary: String::new() }],
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
            },
            Work::Detail { dataset, index } => match store.detail(dataset, *index) {
                Ok(detail) => vec![FromWorker::Detail { id, detail: Box::new(detail) }, FromWorker::Done { id, summary: String::new() }],
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
            },
            Work::Forget { dataset } => {
                store.remove(dataset);
                vec![FromWorker::Done { id, summary: String::new() }]
            }
            Work::Samples { dataset, positions } => match store.export(dataset, positions.as_deref()) {
                Ok(json) => vec![FromWorker::File { id, name: dataset.clone(), text: json.to_string() }, FromWorker::Done { id, summary: String::new() }],
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
            },
            Work::Render { graph } => match graph::from_json_str(graph) {
                Err(errors) => vec![FromWorker::Failed { id, message: errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "), location: None }],
                Ok(parsed) => match render::to_svg(&parsed, &RenderOptions::default()) {
                    Ok(svg) => vec![FromWorker::Drawing { id, svg }, FromWorker::Done { id, summary: String::new() }],
                    Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
                },
            },
            Work::Parse { name, text } => match serde_json::from_str::<Json>(text) {
                Err(e) => vec![FromWorker::Failed { id, message: format!("malformed JSON: {e}"), location: Some(format!("{name}:{}:{}", e.line(), e.column())) }],
                Ok(json) => {
                    let inspection = dataset::inspect(&json);
                    let kind = match inspection.kind {
                        dataset::FileKind::Dataset => "dataset",
                        dataset::FileKind::Results => "results",
                    };
                    vec![
                        FromWorker::Parsed { id, name: name.clone(), kind: kind.into(), samples: inspection.num_samples, json: json.to_string() },
                        FromWorker::Done { id, summary: String::new() },
                    ]
                }
            },
            Work::OpenGraph { name, text, arrange } => match open_graph(name, text, *arrange) {
                Ok(graph) => vec![
                    FromWorker::Parsed { id, name: name.clone(), kind: "graph".into(), samples: graph.nodes().len(), json: graph::to_json(&graph).to_string() },
                    FromWorker::Done { id, summary: String::new() },
                ],
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: Some(e.location()) }],
            },
        };
        self.finish(out)
    }

    fn finish(&mut self, out: Vec<FromWorker>) -> Vec<FromWorker> {
        if out.iter().any(FromWorker::is_final) {
            self.finished = true;
        }
        out
    }

    /// Splits a generation over helper workers (`app::split`): from now on its positions go out in blocks,
    /// some made here by `step`, others lent with `lend`. False for any other job, or a run of one block.
    pub fn spread(&mut self) -> bool {
        match &mut self.work {
            Work::Generate { cursor, split: split @ None, .. } if cursor.total > split::BLOCK && cursor.done == 0 && !self.finished => {
                *split = Some(Split { queue: split::blocks(cursor.total, split::BLOCK), own: None, merge: Merge::default() });
                true
            }
            _ => false,
        }
    }

    /// The next block of a spread generation for a helper: the positions and the request that makes them.
    pub fn lend(&mut self) -> Option<(std::ops::Range<usize>, JobRequest)> {
        let Work::Generate { form, graph, split: Some(split), .. } = &mut self.work else { return None };
        if self.finished {
            return None;
        }
        let block = split.queue.pop_front()?;
        let request = JobRequest::GenerateRange { form: form.clone(), graph: graph.clone(), first: block.start, end: block.end };
        Some((block, request))
    }

    /// Gives back a lent block that will not come (its helper stopped): it is made here or lent again.
    pub fn requeue(&mut self, block: std::ops::Range<usize>) {
        if let Work::Generate { split: Some(split), .. } = &mut self.work {
            split.queue.push_front(block);
        }
    }

    /// Takes samples a helper made (`Made`) into the store, in position order, and returns the messages for the
    /// page: rows, progress, and `Done` once every position is in.
    pub fn take(&mut self, first: usize, samples: Vec<Stored>, store: &mut Store) -> Vec<FromWorker> {
        let id = self.id;
        if self.finished {
            return Vec::new();
        }
        let out = match &mut self.work {
            Work::Generate { dataset, cursor, split: Some(split), .. } => take_made(id, dataset, cursor, split, first, samples, store),
            _ => vec![FromWorker::Failed { id, message: "samples came for a job that is not a split generation".into(), location: None }],
        };
        self.finish(out)
    }

    /// True for a generation spread over helpers (until it finishes).
    pub fn is_spread(&self) -> bool {
        matches!(&self.work, Work::Generate { split: Some(_), .. }) && !self.finished
    }

    /// True while a spread generation has nothing to make here and waits for its helpers' blocks.
    pub fn is_waiting(&self) -> bool {
        matches!(&self.work, Work::Generate { split: Some(split), .. } if split.queue.is_empty() && split.own.as_ref().is_none_or(|o| o.is_empty())) && !self.finished
    }

    /// Ends the job on a problem (a helper's failure); the returned message is its last.
    pub fn fail(&mut self, message: String, location: Option<String>) -> FromWorker {
        self.finished = true;
        FromWorker::Failed { id: self.id, message, location }
    }

    /// Stops the job; the returned message is its last.
    pub fn cancel(&mut self) -> FromWorker {
        self.finished = true;
        FromWorker::Cancelled { id: self.id }
    }
}

/// The dataset summary of a run (what a download's `summary` holds), without samples.
fn summary_of(config: &GenerateConfig) -> Json {
    dataset::to_json(config, &[], &dataset::plain_run_info()).get("summary").cloned().unwrap_or(Json::Null)
}

fn generate_slice(id: u64, key: &str, cursor: &mut Cursor, units: usize, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
    let mut rows = Vec::new();
    for _ in 0..units {
        let Some((run, target, sample)) = cursor.next() else { break };
        match cursor.sample(run, target, sample, registry) {
            Ok(made) => {
                let stored = stored_of(&cursor.runs[run].config, cursor.done, run, &made);
                rows.push(stored.row.clone());
                store.put(key, stored);
                cursor.advance();
            }
            Err(message) => {
                return vec![
                    FromWorker::Rows { id, dataset: key.to_string(), total: cursor.total, rows },
                    FromWorker::Failed { id, message, location: Some(format!("sample {sample} of target {target}")) },
                ];
            }
        }
    }
    let mut out = vec![FromWorker::Rows { id, dataset: key.to_string(), total: cursor.total, rows }, FromWorker::Progress { id, done: cursor.done, total: cursor.total }];
    if cursor.next().is_none() {
        let summary = if cursor.runs.len() == 1 { summary_of(&cursor.runs[0].config).to_string() } else { String::new() };
        out.push(FromWorker::Done { id, summary });
    }
    out
}

/// A spread generation's blocks: those still to hand out, the one being made here, and the merge of what came.
struct Split {
    queue: std::collections::VecDeque<std::ops::Range<usize>>,
    own: Option<std::ops::Range<usize>>,
    merge: Merge<Stored>,
}

/// Makes positions `first..end` as stored samples; a failure says what and where.
fn make_range(cursor: &Cursor, first: usize, end: usize, registry: &Registry) -> Result<Vec<Stored>, (String, String)> {
    let mut made = Vec::with_capacity(end.saturating_sub(first));
    for k in first..end {
        let Some((run, target, sample)) = cursor.locate(k) else { return Err((format!("position {k} is outside the run"), format!("position {k}"))) };
        let one = cursor.sample(run, target, sample, registry).map_err(|message| (message, format!("sample {sample} of target {target}")))?;
        made.push(stored_of(&cursor.runs[run].config, k, run, &one));
    }
    Ok(made)
}

/// Merges samples made for a spread generation and stores those now in order.
fn take_made(id: u64, key: &str, cursor: &Cursor, split: &mut Split, first: usize, made: Vec<Stored>, store: &mut Store) -> Vec<FromWorker> {
    let (_, released) = match split.merge.put(first, made) {
        Ok(done) => done,
        Err(overlap) => return vec![FromWorker::Failed { id, message: overlap.to_string(), location: None }],
    };
    let mut out = Vec::new();
    if !released.is_empty() {
        let rows = released.iter().map(|s| s.row.clone()).collect();
        for stored in released {
            store.put(key, stored);
        }
        out.push(FromWorker::Rows { id, dataset: key.to_string(), total: cursor.total, rows });
        out.push(FromWorker::Progress { id, done: split.merge.released(), total: cursor.total });
    }
    if split.merge.released() >= cursor.total {
        let summary = if cursor.runs.len() == 1 { summary_of(&cursor.runs[0].config).to_string() } else { String::new() };
        out.push(FromWorker::Done { id, summary });
    }
    out
}

/// Stores a hosted dataset's records from position `first` (of `total`), as a fetched shard does, and returns
/// their rows.
fn put_records(store: &mut Store, dataset: &str, first: usize, total: usize, summary: Option<Json>, records: Vec<Json>) -> Vec<Row> {
    let mode = summary.as_ref().and_then(|s| s.get("mode")).and_then(Json::as_str).unwrap_or("").to_string();
    store.ensure(dataset, summary, total);
    let mut rows = Vec::with_capacity(records.len());
    for (k, record) in records.into_iter().enumerate() {
        let row = row_of(first + k, &record, &mode, None);
        rows.push(row.clone());
        store.put(dataset, Stored::new(row, record, None));
    }
    rows
}

/// One slice of the demo site: samples of the current run; a finished run is published; after the last, the
/// index goes out first (the page lists the datasets), then every dataset's rows.
#[allow(clippy::too_many_arguments)]
fn demo_slice(id: u64, cursor: &mut Cursor, names: &[String], made: &mut Vec<Sample>, published: &mut Vec<demo::Published>, units: usize, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
    for _ in 0..units {
        let Some((run, target, sample)) = cursor.next() else { break };
        match cursor.sample(run, target, sample, registry) {
            Ok(sample) => made.push(sample),
            Err(message) => return vec![FromWorker::Failed { id, message: format!("demo dataset {}: {message}", names[run]), location: None }],
        }
        cursor.advance();
        if cursor.at == cursor.runs[run].len() {
            match demo::publish(&names[run], &cursor.runs[run].config, made) {
                Ok(one) => published.push(one),
                Err(message) => return vec![FromWorker::Failed { id, message: format!("demo dataset {}: {message}", names[run]), location: None }],
            }
            made.clear();
        }
    }
    if cursor.next().is_some() {
        return vec![FromWorker::Progress { id, done: cursor.done, total: cursor.total }];
    }
    let mut out = vec![FromWorker::File { id, name: INDEX_PATH.to_string(), text: demo::index_text(published) }];
    for one in std::mem::take(published) {
        let key = demo::key(&one.entry.name);
        let summary = (!one.entry.summary.is_null()).then(|| one.entry.summary.clone());
        let rows = put_records(store, &key, 0, one.entry.samples, summary, one.records);
        out.push(FromWorker::Rows { id, dataset: key, total: one.entry.samples, rows });
    }
    out.push(FromWorker::Done { id, summary: String::new() });
    out
}

fn export_slice(id: u64, cursor: &mut Cursor, format: FileFormat, made: &mut Vec<Sample>, units: usize, registry: &Registry) -> Vec<FromWorker> {
    let mut out = Vec::new();
    for _ in 0..units {
        let Some((run, target, sample)) = cursor.next() else { break };
        match cursor.sample(run, target, sample, registry) {
            Ok(sample) => made.push(sample),
            Err(message) => return vec![FromWorker::Failed { id, message, location: Some(format!("sample {sample} of target {target}")) }],
        }
        cursor.advance();
        if cursor.at == cursor.runs[run].len() {
            let config = &cursor.runs[run].config;
            let text = dataset::file_text(config, made, &dataset::plain_run_info(), format);
            out.push(FromWorker::File { id, name: dataset::file_name(config, format), text });
            made.clear();
        }
    }
    out.push(FromWorker::Progress { id, done: cursor.done, total: cursor.total });
    if cursor.next().is_none() {
        out.push(FromWorker::Done { id, summary: String::new() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tasks::registry::builtin;

    fn run(job: &mut Job, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
        let mut all = Vec::new();
        while !job.is_finished() {
            all.extend(job.step(registry, store));
        }
        all
    }

    fn start(request: JobRequest, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
        let mut job = Job::new(1, request, registry, store).unwrap_or_else(|e| panic!("{e:?}"));
        run(&mut job, registry, store)
    }

    fn rows(messages: &[FromWorker]) -> Vec<Row> {
        messages.iter().filter_map(|m| if let FromWorker::Rows { rows, .. } = m { Some(rows.clone()) } else { None }).flatten().collect()
    }

    #[test]
    fn generation_in_slices_stores_every_sample_in_order_like_one_run() {
        let registry = builtin();
        let mut store = Store::default();
        let form = GenerateForm { topology: "chain".into(), samples_per_target: 2, seed: 3, ..GenerateForm::default() };
        let messages = start(JobRequest::Generate { dataset: "g".into(), form: form.clone(), graph: None }, &registry, &mut store);
        let rows = rows(&messages);
        let config = form.to_config().unwrap();
        let whole = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
        assert_eq!(rows.len(), whole.len());
        assert!(rows.iter().enumerate().all(|(i, r)| r.index == i && r.topology == "chain" && r.stages == 4));
        for (i, sample) in whole.iter().enumerate() {
            let detail = store.detail("g", i).unwrap();
            assert_eq!(detail.prompt, sample.prompt.text());
            assert!(detail.roles_exact);
            assert_eq!(detail.roles, roles_of(&sample.prompt));
            assert_eq!(rows[i].origin, Some((0, sample.target_index)));
            assert_eq!(detail.seed, Some(3));
        }
        let last_progress = messages.iter().rev().find_map(|m| if let FromWorker::Progress { done, total, .. } = m { Some((*done, *total)) } else { None });
        assert_eq!(last_progress, Some((whole.len(), whole.len())));
        assert!(matches!(messages.last(), Some(FromWorker::Done { summary, .. }) if summary.contains("math_chain")));
    }

    #[test]
    fn the_paper_preset_generates_every_layout_into_one_dataset() {
        let registry = builtin();
        let mut store = Store::default();
        let form = GenerateForm { topology: "paper".into(), family: "math".into(), samples_per_target: 1, ..GenerateForm::default() };
        let rows = rows(&start(JobRequest::Generate { dataset: "p".into(), form, graph: None }, &registry, &mut store));
        let topologies: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.topology.as_str()).collect();
        assert_eq!(topologies.into_iter().collect::<Vec<_>>(), ["baseline", "chain", "forgetting", "multichain"]);
        assert_eq!(rows.iter().filter(|r| r.origin.is_some_and(|(run, _)| run == 3)).count(), rows.iter().filter(|r| r.topology == "multichain").count());
        assert_eq!(store.get("p").map(|d| d.loaded()), Some(rows.len()));
    }

    #[test]
    fn export_files_equal_the_cli_layout_for_each_run() {
        let registry = builtin();
        let mut store = Store::default();
        let form = GenerateForm { topology: "chain".into(), samples_per_target: 1, seed: 2, ..GenerateForm::default() };
        let messages = start(JobRequest::Export { form: form.clone(), graph: None, format: FileFormat::Json }, &registry, &mut store);
        let files: Vec<(String, String)> = messages.iter().filter_map(|m| if let FromWorker::File { name, text, .. } = m { Some((name.clone(), text.clone())) } else { None }).collect();
        let config = form.to_config().unwrap();
        let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
        assert_eq!(files, vec![("math_chain.json".to_string(), dataset::file_text(&config, &samples, &dataset::plain_run_info(), FileFormat::Json))]);
    }

    #[test]
    fn an_opened_file_streams_its_rows_and_a_bad_one_is_located() {
        let registry = builtin();
        let mut store = Store::default();
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/reference/math_chain.sample.json")).unwrap();
        let messages = start(JobRequest::OpenFile { dataset: "f".into(), name: "math_chain.sample.json".into(), text }, &registry, &mut store);
        let Some(FromWorker::Opened { samples, summary, .. }) = messages.first() else { panic!("{messages:?}") };
        assert!(*samples > 0 && summary.is_some());
        let rows = rows(&messages);
        assert_eq!(rows.len(), *samples);
        assert!(rows.iter().all(|r| r.topology == "chain" && r.family == "math" && r.stages == 4));
        let detail = store.detail("f", 0).unwrap();
        assert!(!detail.roles_exact && detail.stages.len() == 4 && detail.prompt.starts_with("Solve all tasks"));
        let bad = start(JobRequest::OpenFile { dataset: "f".into(), name: "x.json".into(), text: "{\"samples\": [}".into() }, &registry, &mut store);
        assert!(matches!(&bad[..], [FromWorker::Failed { location: Some(at), .. }] if at == "x.json:1:14"), "{bad:?}");
        assert_eq!(store.get("f").map(|d| d.loaded()), Some(rows.len()), "a bad file leaves what was loaded");
    }

    #[test]
    fn a_dataset_gives_its_samples_as_a_file_all_or_by_position() {
        let registry = builtin();
        let mut store = Store::default();
        let form = GenerateForm { topology: "chain".into(), samples_per_target: 1, seed: 5, ..GenerateForm::default() };
        start(JobRequest::Generate { dataset: "g".into(), form: form.clone(), graph: None }, &registry, &mut store);
        let whole = generate::generate(&form.to_config().unwrap(), &registry, &mut |_, _| {}).unwrap();
        let file = |positions: Option<Vec<usize>>, store: &mut Store| -> Json {
            let out = start(JobRequest::Samples { dataset: "g".into(), positions }, &registry, store);
            let Some(FromWorker::File { name, text, .. }) = out.first() else { panic!("{out:?}") };
            assert_eq!(name, "g");
            serde_json::from_str(text).unwrap()
        };
        let all = file(None, &mut store);
        let samples = all["samples"].as_array().unwrap();
        assert_eq!(samples.len(), whole.len());
        assert_eq!(samples[1]["prompt"].as_str(), Some(whole[1].prompt.text()), "each record with its prompt");
        assert_eq!(dataset::inspect(&all).topology, "chain");
        let some = file(Some(vec![2, 0]), &mut store);
        assert_eq!(some["samples"].as_array().map(Vec::len), Some(2));
        assert_eq!(some["samples"][0]["prompt"].as_str(), Some(whole[2].prompt.text()), "in the order asked");
        let missing = start(JobRequest::Samples { dataset: "none".into(), positions: None }, &registry, &mut store);
        assert!(matches!(&missing[..], [FromWorker::Failed { .. }]), "{missing:?}");
        let beyond = start(JobRequest::Samples { dataset: "g".into(), positions: Some(vec![9999]) }, &registry, &mut store);
        assert!(matches!(&beyond[..], [FromWorker::Failed { .. }]), "{beyond:?}");
    }

    #[test]
    fn shards_fill_their_slots_and_queries_and_details_answer_from_the_store() {
        let registry = builtin();
        let mut store = Store::default();
        let line = |i: usize, task: &str| format!("{{\"task_name\": \"{task}\", \"prompt\": \"prompt {i} {task}\", \"ground_truth\": {i}}}\n");
        let text: String = (10..13).map(|i| line(i, if i == 11 { "B" } else { "A" })).collect();
        let messages = start(JobRequest::LoadShard { dataset: "h".into(), name: "h/00001".into(), first: 10, total: 30, summary: None, text }, &registry, &mut store);
        assert_eq!(rows(&messages).iter().map(|r| r.index).collect::<Vec<_>>(), [10, 11, 12]);
        assert_eq!(store.get("h").map(|d| (d.samples.len(), d.loaded())), Some((30, 3)));
        let query = Query { target: "A".into(), ..Query::default() };
        let view = start(JobRequest::Query { dataset: "h".into(), query }, &registry, &mut store);
        assert!(matches!(&view[0], FromWorker::View { indices, .. } if indices == &vec![10, 12]));
        let detail = start(JobRequest::Detail { dataset: "h".into(), index: 11 }, &registry, &mut store);
        assert!(matches!(&detail[0], FromWorker::Detail { detail, .. } if detail.prompt == "prompt 11 B"));
        let missing = start(JobRequest::Detail { dataset: "h".into(), index: 0 }, &registry, &mut store);
        assert!(matches!(&missing[0], FromWorker::Failed { message, .. } if message.contains("not loaded")));
        start(JobRequest::Forget { dataset: "h".into() }, &registry, &mut store);
        assert!(store.get("h").is_none());
    }

    #[test]
    fn a_cancelled_job_says_so_and_stops() {
        let registry = builtin();
        let mut store = Store::default();
        let form = GenerateForm { samples_per_target: 4, ..GenerateForm::default() };
        let mut job = Job::new(2, JobRequest::Generate { dataset: "g".into(), form, graph: None }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!job.is_quick());
        let first = job.step(&registry, &mut store);
        assert!(matches!(&first[0], FromWorker::Rows { rows, total, .. } if rows.len() == 4 && *total == 160));
        assert_eq!(job.cancel(), FromWorker::Cancelled { id: 2 });
        assert!(job.step(&registry, &mut store).is_empty());
        job.adapt(1.0, 25.0);
        assert_eq!(job.units(), 8);
        job.adapt(100.0, 25.0);
        assert_eq!(job.units(), 4);
    }

    #[test]
    fn bad_requests_fail_with_a_message() {
        let registry = builtin();
        let mut store = Store::default();
        let bad = GenerateForm { family: "poetry".into(), ..GenerateForm::default() };
        let failure = Job::new(3, JobRequest::Generate { dataset: "g".into(), form: bad, graph: None }, &registry, &mut store).err().map(|b| *b);
        let Some(FromWorker::Failed { message, .. }) = failure else { panic!("must fail") };
        assert!(message.contains("poetry"));
        let cyclic = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "a"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                      {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
            "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "a"}]}"#;
        let request = JobRequest::Generate { dataset: "g".into(), form: GenerateForm::default(), graph: Some(cyclic.into()) };
        let Some(FromWorker::Failed { message, .. }) = Job::new(4, request, &registry, &mut store).err().map(|b| *b) else { panic!("must fail") };
        assert!(message.contains("cycle"), "{message}");
        let mut parse = Job::new(5, JobRequest::ParseJson { name: "x.json".into(), text: "{\n  \"a\": ,\n}".into() }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        let Some(FromWorker::Failed { location, .. }) = parse.step(&registry, &mut store).into_iter().next() else { panic!("must fail") };
        assert_eq!(location.as_deref(), Some("x.json:2:8"));
    }

    #[test]
    fn a_graph_with_its_own_picture_parameters_draws_its_pictures_with_them() {
        let registry = builtin();
        let mut store = Store::default();
        let graph = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "p", "image_params": {"num_paths": 5, "nodes_per_path": 4, "width": 1000, "height": 800}},
            "nodes": [{"id": "p", "kind": "task", "family": "image", "input_kind": "scalar", "output_kind": "list"}], "edges": []}"#;
        let form = GenerateForm { family: "image".into(), samples_per_target: 2, ..GenerateForm::default() };
        let messages = start(JobRequest::Generate { dataset: "g".into(), form, graph: Some(graph.into()) }, &registry, &mut store);
        assert_eq!(rows(&messages).len(), 2);
        for i in 0..2 {
            let detail = store.detail("g", i).unwrap();
            assert!(detail.prompt.contains("shows 5 paths"), "{}", detail.prompt);
            assert_eq!(detail.pictures.iter().map(|p| (p.width, p.height)).collect::<Vec<_>>(), vec![(1000.0, 800.0)]);
        }
        let plain = graph.replace(r#", "image_params": {"num_paths": 5, "nodes_per_path": 4, "width": 1000, "height": 800}"#, "");
        let form = GenerateForm { family: "image".into(), samples_per_target: 1, ..GenerateForm::default() };
        start(JobRequest::Generate { dataset: "h".into(), form, graph: Some(plain) }, &registry, &mut store);
        assert!(store.detail("h", 0).unwrap().prompt.contains("shows 8 paths"), "without them, the reference's");
    }

    #[test]
    fn opening_a_graph_places_it_off_the_page_and_bad_files_fail_located() {
        let registry = builtin();
        let mut store = Store::default();
        let text = include_str!("../../tests/fixtures/reference/dag200_mixed.json");
        let mut job = Job::new(6, JobRequest::OpenGraph { name: "dag200_mixed.json".into(), text: text.into(), arrange: false }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        let messages = run(&mut job, &registry, &mut store);
        let Some(FromWorker::Parsed { kind, samples, json, .. }) = messages.first() else { panic!("{messages:?}") };
        assert_eq!((kind.as_str(), *samples), ("graph", 325));
        let placed = graph::from_json_str(json).unwrap();
        assert!(placed.nodes().iter().all(|n| n.position.is_some()));
        assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
        let mut bad = Job::new(7, JobRequest::OpenGraph { name: "g.json".into(), text: "{\"nodes\": 3}".into(), arrange: true }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        let Some(FromWorker::Failed { location, .. }) = bad.step(&registry, &mut store).into_iter().next() else { panic!("must fail") };
        assert_eq!(location.as_deref(), Some("g.json: $.nodes"));
    }

    #[test]
    fn arranging_lays_out_every_node_anew() {
        let registry = builtin();
        let mut store = Store::default();
        let moved = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar", "x": 500, "y": 500},
                      {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "x": 0, "y": 0}],
            "edges": [{"source": "a", "destination": "b"}]}"#;
        let mut job = Job::new(8, JobRequest::OpenGraph { name: "m.json".into(), text: moved.into(), arrange: true }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        let Some(FromWorker::Parsed { json, .. }) = job.step(&registry, &mut store).into_iter().next() else { panic!("must open") };
        let placed = graph::from_json_str(&json).unwrap();
        let x = |i: usize| placed.nodes()[i].position.unwrap().0;
        assert!(x(0) < x(1), "the source now sits left of its successor");
    }

    #[test]
    fn the_demo_site_lists_its_index_first_then_fills_every_dataset_as_its_shards_would() {
        let registry = builtin();
        let mut store = Store::default();
        let messages = start(JobRequest::DemoSite, &registry, &mut store);
        let Some(FromWorker::File { name, text, .. }) = messages.iter().find(|m| !matches!(m, FromWorker::Progress { .. })) else { panic!("{messages:?}") };
        assert_eq!(name, INDEX_PATH);
        let index = crate::engine::dataset::site::SiteIndex::parse(text).unwrap();
        assert_eq!(index.datasets.len(), 11);
        let filled: Vec<(String, usize)> = messages.iter().filter_map(|m| if let FromWorker::Rows { dataset, rows, .. } = m { Some((dataset.clone(), rows.len())) } else { None }).collect();
        assert_eq!(filled, index.datasets.iter().map(|d| (format!("site:{}", d.name), d.samples)).collect::<Vec<_>>());
        // A record held is the line its shard carries: what a fetched shard would have stored.
        let python = &index.datasets.iter().find(|d| d.name == "python_chain").unwrap();
        let shard = demo_shard(&registry, "python_chain");
        let line: Json = serde_json::from_str(shard.lines().nth(5).unwrap()).unwrap();
        assert_eq!(store.detail("site:python_chain", 5).unwrap().prompt, line["prompt"].as_str().unwrap());
        assert_eq!(store.get("site:python_chain").map(|d| d.loaded()), Some(python.samples));
        assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
    }

    /// The first shard's text of demo dataset `name`, published on its own.
    fn demo_shard(registry: &Registry, name: &str) -> String {
        let (_, _, config) = demo::runs().unwrap().into_iter().find(|(n, _, _)| n == name).unwrap();
        let samples = generate::generate(&config, registry, &mut |_, _| {}).unwrap();
        demo::publish(name, &config, &samples).unwrap().shards.remove(0).1
    }

    #[test]
    fn a_generation_spread_over_helpers_stores_the_bytes_one_worker_stores() {
        let registry = builtin();
        let form = GenerateForm { topology: "paper".into(), family: "math".into(), samples_per_target: 2, seed: 7, ..GenerateForm::default() };
        let request = JobRequest::Generate { dataset: "g".into(), form, graph: None };
        let mut alone = Store::default();
        let alone_rows = rows(&start(request.clone(), &registry, &mut alone));

        let mut store = Store::default();
        let mut job = Job::new(1, request, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(job.spread());
        assert!(!job.spread(), "once");
        let mut messages = Vec::new();
        let mut made = Vec::new();
        // Two helpers take every other block; this worker makes what is left, one slice at a time.
        while !job.is_finished() {
            for _ in 0..2 {
                if let Some((block, request)) = job.lend() {
                    let mut helper_store = Store::default();
                    let mut helper = Job::new(9, request, &registry, &mut helper_store).unwrap_or_else(|e| panic!("{e:?}"));
                    let out = run(&mut helper, &registry, &mut helper_store);
                    assert!(helper_store.get("g").is_none(), "a helper stores nothing");
                    let pieces: Vec<(usize, Vec<Stored>)> = out.into_iter().filter_map(|m| if let FromWorker::Made { first, samples, .. } = m { Some((first, samples)) } else { None }).collect();
                    assert_eq!(pieces.iter().map(|(_, s)| s.len()).sum::<usize>(), block.len());
                    made.extend(pieces);
                }
            }
            messages.extend(job.step(&registry, &mut store));
            if job.is_waiting() {
                // The helpers' blocks come back last first.
                while let Some((first, samples)) = made.pop() {
                    messages.extend(job.take(first, samples, &mut store));
                }
            }
        }
        assert!(matches!(messages.last(), Some(FromWorker::Done { .. })), "{:?}", messages.last());
        assert_eq!(rows(&messages), alone_rows, "the rows, in order");
        let bytes = |s: &Store| s.export("g", None).unwrap().to_string();
        assert_eq!(bytes(&store), bytes(&alone), "the stored samples, byte for byte");
        for i in [0, 50, alone_rows.len() - 1] {
            assert_eq!(store.detail("g", i).unwrap(), alone.detail("g", i).unwrap());
        }
    }

    #[test]
    fn a_range_outside_the_run_or_a_block_taken_twice_fails() {
        let registry = builtin();
        let mut store = Store::default();
        let form = GenerateForm { samples_per_target: 1, ..GenerateForm::default() };
        let outside = Job::new(1, JobRequest::GenerateRange { form: form.clone(), graph: None, first: 30, end: 99 }, &registry, &mut store).err().map(|b| *b);
        assert!(matches!(&outside, Some(FromWorker::Failed { message, .. }) if message.contains("outside the run's 40 samples")), "{outside:?}");
        let mut job = Job::new(2, JobRequest::Generate { dataset: "g".into(), form: GenerateForm { samples_per_target: 4, ..GenerateForm::default() }, graph: None }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(job.spread());
        let (block, request) = job.lend().unwrap();
        let mut helper = Job::new(3, request, &registry, &mut Store::default()).unwrap_or_else(|e| panic!("{e:?}"));
        let samples: Vec<Stored> = run(&mut helper, &registry, &mut Store::default()).into_iter().filter_map(|m| if let FromWorker::Made { samples, .. } = m { Some(samples) } else { None }).flatten().collect();
        assert_eq!(samples.len(), block.len());
        assert!(job.take(block.start, samples.clone(), &mut store).iter().any(|m| matches!(m, FromWorker::Rows { .. })));
        let again = job.take(block.start, samples, &mut store);
        assert!(matches!(&again[..], [FromWorker::Failed { message, .. }] if message.contains("already taken")), "{again:?}");
    }

    #[test]
    fn messages_round_trip_as_json() {
        let message = FromWorker::Progress { id: 9, done: 3, total: 10 };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<FromWorker>(&text).unwrap(), message);
        let start = ToWorker::Start { id: 1, request: JobRequest::Query { dataset: "d".into(), query: Query { text: "x".into(), ..Query::default() } } };
        assert_eq!(serde_json::from_str::<ToWorker>(&serde_json::to_string(&start).unwrap()).unwrap(), start);
    }
}
