//! Generation in slices: a plan's runs (`Cursor`), the samples of one slice stored or exported, the demo site
//! published, and the blocks of a generation split over several workers (`Split`).

use std::rc::Rc;

use serde_json::Value as Json;

use super::protocol::FromWorker;
use super::split::Merge;
use super::open::put_records;
use crate::app::browse::demo;
use crate::app::instance::row_of_sample;
use crate::app::store::{Store, Stored};
use crate::engine::dataset::site::INDEX_PATH;
use crate::engine::dataset::{self, FileFormat, RunInfo};
use crate::engine::generate::form::GenerateForm;
use crate::engine::generate::plan::plan;
use crate::engine::generate::{self, GenerateConfig, Sample, Topology};
use crate::engine::graph::{self, ValidGraph};
use crate::engine::prompt::Prompt;
use crate::engine::tasks::registry::{builtin_with, Registry};
use crate::engine::tasks::Task;

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
pub(super) fn registry_for(configs: &[GenerateConfig]) -> Option<Registry> {
    configs.iter().find_map(|c| match &c.topology {
        Topology::Custom(valid) => valid.graph().image_params().map(|params| builtin_with(*params)),
        _ => None,
    })
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

/// A generated sample as the store keeps it: its reference-layout record, exact roles, and its origin. The record
/// is written straight to compact text and the row read from the sample: storing each of the paper's samples
/// through a serde_json tree cost a third of the time it took to make them.
pub fn stored_of(config: &GenerateConfig, index: usize, run: usize, sample: &Sample) -> Stored {
    let (record, prompt) = dataset::sample_record_text(config, sample, &RunInfo::default().images);
    let row = row_of_sample(index, sample, prompt.chars().count(), run);
    Stored { row, prompt, record, roles: Some(roles_of(&sample.prompt)) }
}

/// One run of a plan: its configuration and targets.
pub(super) struct Run {
    pub(super) config: GenerateConfig,
    pub(super) targets: Vec<Rc<dyn Task>>,
}

impl Run {
    pub(super) fn new(config: GenerateConfig, registry: &Registry) -> Result<Run, String> {
        let targets = generate::targets(&config, registry).map_err(|e| e.to_string())?;
        Ok(Run { config, targets })
    }

    pub(super) fn len(&self) -> usize {
        self.targets.len() * self.config.samples_per_target as usize
    }

    /// The sample at position `k` of the run: (target index, sample index).
    pub(super) fn at(&self, k: usize) -> (usize, u32) {
        let spt = self.config.samples_per_target as usize;
        (k / spt, (k % spt) as u32)
    }
}

/// Where a generation or export is.
pub(super) struct Cursor {
    pub(super) runs: Vec<Run>,
    pub(super) run: usize,
    /// Position within the current run.
    pub(super) at: usize,
    /// Samples made over all runs.
    pub(super) done: usize,
    pub(super) total: usize,
}

impl Cursor {
    pub(super) fn new(configs: Vec<GenerateConfig>, registry: &Registry) -> Result<Cursor, String> {
        let runs = configs.into_iter().map(|c| Run::new(c, registry)).collect::<Result<Vec<_>, _>>()?;
        let total = runs.iter().map(Run::len).sum();
        Ok(Cursor { runs, run: 0, at: 0, done: 0, total })
    }

    /// The next sample to make: (run, target index, sample index), moving past finished runs.
    pub(super) fn next(&mut self) -> Option<(usize, usize, u32)> {
        while self.run < self.runs.len() && self.at >= self.runs[self.run].len() {
            self.run += 1;
            self.at = 0;
        }
        let run = self.runs.get(self.run)?;
        let (target, sample) = run.at(self.at);
        Some((self.run, target, sample))
    }

    /// The sample at position `k` of the whole plan: (run, target index, sample index).
    pub(super) fn locate(&self, mut k: usize) -> Option<(usize, usize, u32)> {
        for (i, run) in self.runs.iter().enumerate() {
            if k < run.len() {
                let (target, sample) = run.at(k);
                return Some((i, target, sample));
            }
            k -= run.len();
        }
        None
    }

    pub(super) fn advance(&mut self) {
        self.at += 1;
        self.done += 1;
    }

    pub(super) fn sample(&self, run: usize, target: usize, sample: u32, registry: &Registry) -> Result<Sample, String> {
        let r = &self.runs[run];
        let task = &r.targets[target];
        generate::generate_sample(&r.config, registry, target, sample).map_err(|e| format!("{e} ({})", task.info().key))
    }
}

/// The dataset summary of a run (what a download's `summary` holds), without samples.
pub(super) fn summary_of(config: &GenerateConfig) -> Json {
    dataset::to_json(config, &[], &dataset::plain_run_info()).get("summary").cloned().unwrap_or(Json::Null)
}

pub(super) fn generate_slice(id: u64, key: &str, cursor: &mut Cursor, units: usize, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
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
pub(super) struct Split {
    pub(super) queue: std::collections::VecDeque<std::ops::Range<usize>>,
    pub(super) own: Option<std::ops::Range<usize>>,
    pub(super) merge: Merge<Stored>,
}

/// Makes positions `first..end` as stored samples; a failure says what and where.
pub(super) fn make_range(cursor: &Cursor, first: usize, end: usize, registry: &Registry) -> Result<Vec<Stored>, (String, String)> {
    let mut made = Vec::with_capacity(end.saturating_sub(first));
    for k in first..end {
        let Some((run, target, sample)) = cursor.locate(k) else { return Err((format!("position {k} is outside the run"), format!("position {k}"))) };
        let one = cursor.sample(run, target, sample, registry).map_err(|message| (message, format!("sample {sample} of target {target}")))?;
        made.push(stored_of(&cursor.runs[run].config, k, run, &one));
    }
    Ok(made)
}

/// Merges samples made for a spread generation and stores those now in order.
pub(super) fn take_made(id: u64, key: &str, cursor: &Cursor, split: &mut Split, first: usize, made: Vec<Stored>, store: &mut Store) -> Vec<FromWorker> {
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

/// One slice of the demo site: samples of the current run; a finished run is published; after the last, the
/// index goes out first (the page lists the datasets), then every dataset's rows.
#[allow(clippy::too_many_arguments)]
pub(super) fn demo_slice(id: u64, cursor: &mut Cursor, names: &[String], made: &mut Vec<Sample>, published: &mut Vec<demo::Published>, units: usize, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
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

pub(super) fn export_slice(id: u64, cursor: &mut Cursor, format: FileFormat, made: &mut Vec<Sample>, units: usize, registry: &Registry) -> Vec<FromWorker> {
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
