//! Long work the app does away from the page's main thread: generating datasets, exporting them as files,
//! reading opened files and fetched shards, querying and showing the samples held, drawing graphs. A `Job`
//! is plain Rust advanced one slice at a time (`step`): the Web Worker runs it between messages (`web::worker`;
//! the page never runs jobs itself), and native tests run it whole. The samples live
//! in the runner's `Store`; the page receives small `Row`s and asks for a `Detail` when it shows one.
//! Messages are serde JSON (a helper's samples, bytes): the worker protocol of ARCHITECTURE.md's serialization
//! invariant.
//!
//! - `protocol`: the messages between the page and the worker;
//! - `generate`: generation, export and the demo site, one slice at a time, and a split run's blocks;
//! - `open`: dataset files, hosted shards, JSON of unknown kind and designer graphs opened;
//! - `packs`: task packs the user brings, recognised on the page and read in the worker;
//! - `split`: a generation spread over several workers.

mod generate;
mod open;
pub mod packs;
mod protocol;
pub mod python;
pub mod split;
#[cfg(test)]
mod tests;

use serde_json::Value as Json;

use crate::app::browse::catalog::Query;
use crate::app::browse::demo;

use crate::app::store::{Store, Stored};
use crate::app::results::data::results_text;
use crate::engine::dataset::FileFormat;
use crate::engine::generate::form::GenerateForm;
use crate::engine::generate::{self as engine_generate, GenerateConfig, Sample};
use crate::engine::graph;
use crate::engine::render::{self, RenderOptions};
use crate::engine::tasks::registry::Registry;
use generate::{config_of, configs_of, demo_slice, export_slice, generate_slice, make_range, registry_for, summary_of, take_made, Cursor, Split};
use open::Opening;
use split::Merge;

pub use generate::{roles_of, stored_of};
pub use protocol::{made_from_bytes, made_to_bytes, FromWorker, JobRequest, ToWorker};

enum Work {
    Generate { dataset: String, cursor: Cursor, form: GenerateForm, graph: Option<String>, packs: Vec<packs::PackSource>, split: Option<Split> },
    Range { cursor: Cursor, at: usize, end: usize },
    One { dataset: String, config: Box<GenerateConfig>, target: usize, sample: u32 },
    Export { cursor: Cursor, format: FileFormat, made: Vec<Sample> },
    Open(Opening),
    Shard { dataset: String, name: String, first: usize, total: usize, summary: Option<Json>, text: String },
    Query { dataset: String, query: Query },
    Detail { dataset: String, index: usize },
    Forget { dataset: String },
    Samples { dataset: String, positions: Option<Vec<usize>> },
    Render { graph: String },
    Parse { name: String, text: String },
    OpenGraph { name: String, text: String, arrange: bool },
    Demo { cursor: Cursor, names: Vec<String>, made: Vec<Sample>, published: Vec<demo::Published> },
    RunPython { source: String, args: String },
    TracePython { source: String },
    Probes,
    ReadPack { source: packs::PackSource },
    ReadResults { name: String, bytes: Vec<u8> },
}

/// A job in progress.
pub struct Job {
    id: u64,
    work: Work,
    /// The registry of a run that brings task packs or names a source, or of a custom graph that sets its own
    /// picture parameters (else the worker's is used).
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
            JobRequest::Generate { dataset, form, graph, packs } => {
                let base = packs::registry_for_request(&packs, &form, graph.as_deref()).map_err(failed)?;
                let configs = configs_of(&form, graph.as_deref(), base.as_ref().unwrap_or(registry)).map_err(failed)?;
                own_registry = base.or_else(|| registry_for(&configs));
                let cursor = Cursor::new(configs, own_registry.as_ref().unwrap_or(registry)).map_err(failed)?;
                let summary = (cursor.runs.len() == 1).then(|| summary_of(&cursor.runs[0].config));
                store.create(&dataset, summary, cursor.total);
                Work::Generate { dataset, cursor, form, graph, packs, split: None }
            }
            JobRequest::GenerateRange { form, graph, first, end, packs } => {
                let base = packs::registry_for_request(&packs, &form, graph.as_deref()).map_err(failed)?;
                let configs = configs_of(&form, graph.as_deref(), base.as_ref().unwrap_or(registry)).map_err(failed)?;
                own_registry = base.or_else(|| registry_for(&configs));
                let cursor = Cursor::new(configs, own_registry.as_ref().unwrap_or(registry)).map_err(failed)?;
                if first > end || end > cursor.total {
                    return Err(failed(format!("positions {first}..{end} are outside the run's {} samples", cursor.total)));
                }
                Work::Range { cursor, at: first, end }
            }
            JobRequest::GenerateOne { dataset, form, graph, target, sample, packs } => {
                let base = packs::registry_for_request(&packs, &form, graph.as_deref()).map_err(failed)?;
                let config = config_of(&form, graph.as_deref(), base.as_ref().unwrap_or(registry)).map_err(failed)?;
                own_registry = base.or_else(|| registry_for(std::slice::from_ref(&config)));
                Work::One { dataset, config: Box::new(config), target, sample }
            }
            JobRequest::Export { form, graph, format, packs } => {
                let base = packs::registry_for_request(&packs, &form, graph.as_deref()).map_err(failed)?;
                let configs = configs_of(&form, graph.as_deref(), base.as_ref().unwrap_or(registry)).map_err(failed)?;
                own_registry = base.or_else(|| registry_for(&configs));
                Work::Export { cursor: Cursor::new(configs, own_registry.as_ref().unwrap_or(registry)).map_err(failed)?, format, made: Vec::new() }
            }
            JobRequest::OpenFile { dataset, name, text } => Work::Open(Opening::new(dataset, name, text)),
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
            JobRequest::RunPython { source, args } => Work::RunPython { source, args },
            JobRequest::TracePython { source } => Work::TracePython { source },
            JobRequest::Probes => Work::Probes,
            JobRequest::ReadPack { source } => Work::ReadPack { source },
            JobRequest::ReadResults { name, bytes } => Work::ReadResults { name, bytes },
        };
        // A helper's block is one job of its own: made in one slice (a block is sized for that), rather than
        // ramping up from a few samples per slice again for every block, each slice then waiting on a timer.
        let units = match &work {
            Work::Range { at, end, .. } => (end - at).max(1),
            _ => 4,
        };
        Ok(Job { id, work, own_registry, finished: false, units })
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
        matches!(self.work, Work::One { .. } | Work::Shard { .. } | Work::Query { .. } | Work::Detail { .. } | Work::Forget { .. } | Work::Samples { .. } | Work::Render { .. } | Work::Parse { .. } | Work::OpenGraph { .. } | Work::RunPython { .. } | Work::TracePython { .. } | Work::Probes)
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
            Work::One { dataset, config, target, sample } => match engine_generate::generate_sample(config, registry, *target, *sample) {
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
            Work::Open(opening) => opening.slice(id, units, store),
            Work::Shard { dataset, name, first, total, summary, text } => open::shard(id, dataset, name, *first, *total, summary.take(), text, store),
            Work::Demo { cursor, names, made, published } => demo_slice(id, cursor, names, made, published, units, registry, store),
            Work::RunPython { source, args } => match python::run(source, args) {
                Ok(result) => vec![FromWorker::Done { id, summary: result }],
                Err(message) => vec![FromWorker::Failed { id, message, location: None }],
            },
            Work::TracePython { source } => match python::trace(source) {
                Ok(traced) => vec![FromWorker::Traced { id, traced }, FromWorker::Done { id, summary: String::new() }],
                Err(message) => vec![FromWorker::Failed { id, message, location: None }],
            },
            Work::Probes => vec![FromWorker::Done { id, summary: probes() }],
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
            Work::Parse { name, text } => open::parse_json(id, name, text),
            Work::ReadResults { name, bytes } => match results_text(name, std::mem::take(bytes)) {
                Ok(text) => vec![FromWorker::File { id, name: name.clone(), text }, FromWorker::Done { id, summary: String::new() }],
                Err(message) => vec![FromWorker::Failed { id, message, location: None }],
            },
            Work::OpenGraph { name, text, arrange } => open::open_graph_job(id, name, text, *arrange),
            Work::ReadPack { source } => match source.read() {
                Ok(pack) => vec![FromWorker::PackRead { id, summary: Box::new(packs::PackSummary::of(&pack)) }, FromWorker::Done { id, summary: String::new() }],
                Err(message) => vec![FromWorker::Failed { id, message, location: Some(source.origin.clone()) }],
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

    /// Splits a generation over helper workers (`app::jobs::split`): from now on its positions go out in blocks,
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
        let Work::Generate { form, graph, packs, split: Some(split), .. } = &mut self.work else { return None };
        if self.finished {
            return None;
        }
        let block = split.queue.pop_front()?;
        let request = JobRequest::GenerateRange { form: form.clone(), graph: graph.clone(), first: block.start, end: block.end, packs: packs.clone() };
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

/// The cross-platform probes (`JobRequest::Probes`): the seed-0 stream's first five draws in [0, 999] (pinned in
/// `engine::rng`'s tests), the generated probe files' fingerprint (pinned in `tests/it/generation.rs`) and the probe
/// picture's PNG fingerprint (pinned in `tests/it/image.rs`), as a JSON object.
pub fn probes() -> String {
    use crate::engine::dataset;
    use crate::engine::rng::InstanceRng;
    use crate::engine::tasks::{image, registry};
    let mut rng = InstanceRng::from_seed(0);
    let draws: Vec<String> = (0..5).map(|_| rng.int_in(0, 999).to_string()).collect();
    let files = format!("{:016x}", dataset::fingerprint(&dataset::cross_platform_probe(&registry::builtin())));
    let png = match image::probe_png() {
        Ok(png) => format!("{:016x}", dataset::fingerprint_bytes(&png)),
        Err(e) => format!("error: {e}"),
    };
    serde_json::json!({ "rng": draws.join(","), "dataset": files, "png": png }).to_string()
}
