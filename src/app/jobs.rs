//! Long work the app does away from the page's main thread: generating a dataset, drawing a big graph, parsing a
//! big file. A `Job` is plain Rust advanced one slice at a time (`step`), so the same code runs in the Web Worker
//! (`web::worker`, between messages) and, where workers are unavailable, on the main thread between frames.
//! The messages are serde JSON: the worker protocol of docs/APP_ARCHITECTURE.md.

use serde::{Deserialize, Serialize};

use crate::engine::dataset::{self, RunInfo};
use crate::engine::generate::{self, GenerateConfig, Sample, Topology};
use crate::engine::graph::{self, ValidGraph};
use crate::engine::prompt::Prompt;
use crate::engine::render::{self, RenderOptions};
use crate::engine::tasks::registry::Registry;
use crate::app::editor::{import, tidy};
use crate::app::form::GenerateForm;

/// What a job is asked to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobRequest {
    /// Generate every sample of the form's settings; `graph` (node-link JSON) makes it a custom-graph run.
    Generate { form: GenerateForm, graph: Option<String> },
    /// Regenerate one sample alone (a deep link).
    GenerateOne { form: GenerateForm, graph: Option<String>, target: usize, sample: u32 },
    /// Draw a node-link graph as SVG.
    Render { graph: String },
    /// Parse a JSON file (a dataset or results file) and report what it is.
    ParseJson { name: String, text: String },
    /// Open a designer graph (a file, a drop, a paste): parse and check it and place the nodes without
    /// positions, or with `arrange` lay every node out anew (a "tidy up" too big for the page). The answer is
    /// `Parsed` with kind `graph`, the node count and the node-link JSON with positions.
    OpenGraph { name: String, text: String, arrange: bool },
}

/// A message to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Start job `id`.
    Start { id: u64, request: JobRequest },
    /// Stop job `id` at its next slice boundary.
    Cancel { id: u64 },
}

/// One generated sample as the page keeps it: the dataset record plus what the list and the prompt view need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Position in the run.
    pub index: usize,
    /// The target's position in the run's target list.
    pub target_index: usize,
    /// The sample's index among its target's samples.
    pub sample_idx: u32,
    /// The target task's key (`math.ConvolutionTask`).
    pub target_key: String,
    /// The target's family.
    pub family: String,
    /// Task stages in the prompt.
    pub stages: usize,
    /// The graded output's ground truth, as Python prints it.
    pub answer: String,
    /// The prompt text.
    pub prompt: String,
    /// The prompt's roles, run-length encoded: (role name, characters).
    pub roles: Vec<(String, u32)>,
    /// The reference-layout dataset record, compact JSON text (what a download writes).
    pub json: String,
}

/// A message from the worker (or from the main-thread fallback).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// `done` of `total` units finished.
    Progress { id: u64, done: usize, total: usize },
    /// Samples made since the last chunk, in order.
    Samples { id: u64, samples: Vec<SampleRecord> },
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
            | FromWorker::Samples { id, .. }
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

/// The page's record of one sample.
pub fn record_of(config: &GenerateConfig, index: usize, sample: &Sample) -> SampleRecord {
    let file = dataset::to_json(config, std::slice::from_ref(sample), &RunInfo::default());
    let json = file.get("samples").and_then(|s| s.get(0)).map(|s| s.to_string()).unwrap_or_default();
    SampleRecord {
        index,
        target_index: sample.target_index,
        sample_idx: sample.sample_idx,
        target_key: sample.target.key.clone(),
        family: sample.target.family.as_str().to_string(),
        stages: sample.stages.len(),
        answer: sample.ground_truth.repr(),
        prompt: sample.prompt.text().to_string(),
        roles: roles_of(&sample.prompt),
        json,
    }
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

enum Work {
    Generate { config: Box<GenerateConfig>, order: Vec<(usize, u32)>, next: usize },
    One { config: Box<GenerateConfig>, target: usize, sample: u32 },
    Render { graph: String },
    Parse { name: String, text: String },
    OpenGraph { name: String, text: String, arrange: bool },
}

/// A job in progress.
pub struct Job {
    id: u64,
    work: Work,
    finished: bool,
}

impl Job {
    /// Prepares a job; a request that cannot start (a bad form, a broken graph) is reported as `Failed`.
    pub fn new(id: u64, request: JobRequest, registry: &Registry) -> Result<Job, FromWorker> {
        let failed = |message: String| FromWorker::Failed { id, message, location: None };
        let work = match request {
            JobRequest::Generate { form, graph } => {
                let config = config_of(&form, graph.as_deref(), registry).map_err(failed)?;
                let targets = generate::targets(&config, registry).map_err(|e| failed(e.to_string()))?;
                let order = (0..targets.len()).flat_map(|t| (0..config.samples_per_target).map(move |s| (t, s))).collect();
                Work::Generate { config: Box::new(config), order, next: 0 }
            }
            JobRequest::GenerateOne { form, graph, target, sample } => {
                let config = config_of(&form, graph.as_deref(), registry).map_err(failed)?;
                Work::One { config: Box::new(config), target, sample }
            }
            JobRequest::Render { graph } => Work::Render { graph },
            JobRequest::ParseJson { name, text } => Work::Parse { name, text },
            JobRequest::OpenGraph { name, text, arrange } => Work::OpenGraph { name, text, arrange },
        };
        Ok(Job { id, work, finished: false })
    }

    /// The job's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// True once the final message was returned.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Does up to `units` units of work (samples, for generation) and returns the messages to deliver.
    pub fn step(&mut self, units: usize, registry: &Registry) -> Vec<FromWorker> {
        if self.finished {
            return Vec::new();
        }
        let id = self.id;
        let out = match &mut self.work {
            Work::Generate { config, order, next } => {
                let mut samples = Vec::new();
                let end = (*next + units.max(1)).min(order.len());
                for (index, &(target, sample)) in order.iter().enumerate().take(end).skip(*next) {
                    match generate::generate_sample(config, registry, target, sample) {
                        Ok(made) => samples.push(record_of(config, index, &made)),
                        Err(e) => {
                            let mut out = vec![FromWorker::Samples { id, samples }];
                            out.push(FromWorker::Failed { id, message: e.to_string(), location: Some(format!("sample {sample} of target {target}")) });
                            self.finished = true;
                            return out;
                        }
                    }
                }
                *next = end;
                let mut out = vec![FromWorker::Samples { id, samples }, FromWorker::Progress { id, done: end, total: order.len() }];
                if end == order.len() {
                    let summary = dataset::to_json(config, &[], &RunInfo::default()).get("summary").map(|s| s.to_string()).unwrap_or_default();
                    out.push(FromWorker::Done { id, summary });
                }
                out
            }
            Work::One { config, target, sample } => match generate::generate_sample(config, registry, *target, *sample) {
                Ok(made) => vec![FromWorker::Samples { id, samples: vec![record_of(config, 0, &made)] }, FromWorker::Done { id, summary: String::new() }],
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
            },
            Work::Render { graph } => match graph::from_json_str(graph) {
                Err(errors) => vec![FromWorker::Failed { id, message: errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "), location: None }],
                Ok(parsed) => match render::to_svg(&parsed, &RenderOptions::default()) {
                    Ok(svg) => vec![FromWorker::Drawing { id, svg }, FromWorker::Done { id, summary: String::new() }],
                    Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: None }],
                },
            },
            Work::Parse { name, text } => match serde_json::from_str::<serde_json::Value>(text) {
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
        if out.iter().any(FromWorker::is_final) {
            self.finished = true;
        }
        out
    }

    /// Stops the job; the returned message is its last.
    pub fn cancel(&mut self) -> FromWorker {
        self.finished = true;
        FromWorker::Cancelled { id: self.id }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tasks::registry::builtin;

    fn run(job: &mut Job, units: usize, registry: &Registry) -> Vec<FromWorker> {
        let mut all = Vec::new();
        while !job.is_finished() {
            all.extend(job.step(units, registry));
        }
        all
    }

    #[test]
    fn generation_in_slices_equals_one_run_and_streams_every_sample_in_order() {
        let registry = builtin();
        let form = GenerateForm { topology: "chain".into(), samples_per_target: 2, seed: 3, ..GenerateForm::default() };
        let mut job = Job::new(1, JobRequest::Generate { form: form.clone(), graph: None }, &registry).unwrap_or_else(|e| panic!("{e:?}"));
        let messages = run(&mut job, 7, &registry);
        let records: Vec<SampleRecord> = messages.iter().filter_map(|m| if let FromWorker::Samples { samples, .. } = m { Some(samples.clone()) } else { None }).flatten().collect();
        let config = form.to_config().unwrap();
        let whole = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
        assert_eq!(records.len(), whole.len());
        for (record, sample) in records.iter().zip(&whole) {
            assert_eq!(record, &record_of(&config, record.index, sample));
            assert_eq!(record.roles.iter().map(|(_, n)| *n as usize).sum::<usize>(), record.prompt.chars().count());
        }
        assert!(records.windows(2).all(|w| w[0].index + 1 == w[1].index));
        let last_progress = messages.iter().rev().find_map(|m| if let FromWorker::Progress { done, total, .. } = m { Some((*done, *total)) } else { None });
        assert_eq!(last_progress, Some((whole.len(), whole.len())));
        assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
    }

    #[test]
    fn a_cancelled_job_says_so_and_stops() {
        let registry = builtin();
        let form = GenerateForm { samples_per_target: 4, ..GenerateForm::default() };
        let mut job = Job::new(2, JobRequest::Generate { form, graph: None }, &registry).unwrap_or_else(|e| panic!("{e:?}"));
        let first = job.step(3, &registry);
        assert!(matches!(&first[0], FromWorker::Samples { samples, .. } if samples.len() == 3));
        assert_eq!(job.cancel(), FromWorker::Cancelled { id: 2 });
        assert!(job.step(3, &registry).is_empty());
    }

    #[test]
    fn bad_requests_fail_with_a_message() {
        let registry = builtin();
        let bad = GenerateForm { family: "poetry".into(), ..GenerateForm::default() };
        let Err(FromWorker::Failed { message, .. }) = Job::new(3, JobRequest::Generate { form: bad, graph: None }, &registry) else { panic!("must fail") };
        assert!(message.contains("poetry"));
        let cyclic = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "a"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                      {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
            "edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}]}"#;
        let Err(FromWorker::Failed { message, .. }) = Job::new(4, JobRequest::Generate { form: GenerateForm::default(), graph: Some(cyclic.into()) }, &registry) else {
            panic!("must fail")
        };
        assert!(message.contains("cycle"), "{message}");
        let mut parse = Job::new(5, JobRequest::ParseJson { name: "x.json".into(), text: "{\n  \"a\": ,\n}".into() }, &registry).unwrap_or_else(|e| panic!("{e:?}"));
        let Some(FromWorker::Failed { location, .. }) = parse.step(1, &registry).into_iter().next() else { panic!("must fail") };
        assert_eq!(location.as_deref(), Some("x.json:2:8"));
    }

    #[test]
    fn opening_a_graph_places_it_off_the_page_and_bad_files_fail_located() {
        let registry = builtin();
        let text = include_str!("../../tests/fixtures/reference/dag200_mixed.json");
        let mut job = Job::new(6, JobRequest::OpenGraph { name: "dag200_mixed.json".into(), text: text.into(), arrange: false }, &registry).unwrap_or_else(|e| panic!("{e:?}"));
        let messages = run(&mut job, 1, &registry);
        let Some(FromWorker::Parsed { kind, samples, json, .. }) = messages.first() else { panic!("{messages:?}") };
        assert_eq!((kind.as_str(), *samples), ("graph", 325));
        let placed = graph::from_json_str(json).unwrap();
        assert!(placed.nodes().iter().all(|n| n.position.is_some()));
        assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
        let mut bad = Job::new(7, JobRequest::OpenGraph { name: "g.json".into(), text: "{\"nodes\": 3}".into(), arrange: true }, &registry).unwrap_or_else(|e| panic!("{e:?}"));
        let Some(FromWorker::Failed { location, .. }) = bad.step(1, &registry).into_iter().next() else { panic!("must fail") };
        assert_eq!(location.as_deref(), Some("g.json: $.nodes"));
    }

    #[test]
    fn arranging_lays_out_every_node_anew() {
        let registry = builtin();
        let moved = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar", "x": 500, "y": 500},
                      {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "x": 0, "y": 0}],
            "edges": [{"source": "a", "destination": "b"}]}"#;
        let mut job = Job::new(8, JobRequest::OpenGraph { name: "m.json".into(), text: moved.into(), arrange: true }, &registry).unwrap_or_else(|e| panic!("{e:?}"));
        let Some(FromWorker::Parsed { json, .. }) = job.step(1, &registry).into_iter().next() else { panic!("must open") };
        let placed = graph::from_json_str(&json).unwrap();
        let x = |i: usize| placed.nodes()[i].position.unwrap().0;
        assert!(x(0) < x(1), "the source now sits left of its successor");
    }

    #[test]
    fn messages_round_trip_as_json() {
        let message = FromWorker::Progress { id: 9, done: 3, total: 10 };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<FromWorker>(&text).unwrap(), message);
        let start = ToWorker::Start { id: 1, request: JobRequest::Render { graph: "{}".into() } };
        assert_eq!(serde_json::from_str::<ToWorker>(&serde_json::to_string(&start).unwrap()).unwrap(), start);
    }
}
