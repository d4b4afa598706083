//! Opening what a user brings or a site hosts: a dataset file of any layout read a slice at a time
//! (`Opening`), a hosted shard, a JSON file of unknown kind, and a designer graph (placed, or laid out anew).

use serde_json::Value as Json;

use super::protocol::FromWorker;
use crate::app::browse::catalog::Row;
use crate::app::design::{import, tidy};
use crate::app::instance::row_of;
use crate::app::store::{Store, Stored};
use crate::engine::dataset;
use crate::engine::graph;

/// A dataset file being read: parsed on the first slice, then stored `units` samples per slice.
pub(super) struct Opening {
    dataset: String,
    name: String,
    text: String,
    /// After the first slice: the summary, the samples still to store, and the file's mode.
    read: Option<(Option<Json>, std::vec::IntoIter<Json>, String)>,
    done: usize,
    total: usize,
}

impl Opening {
    pub(super) fn new(dataset: String, name: String, text: String) -> Opening {
        Opening { dataset, name, text, read: None, done: 0, total: 0 }
    }

    /// The next slice: the file parsed (answered `Opened`), or up to `units` samples stored (their rows).
    pub(super) fn slice(&mut self, id: u64, units: usize, store: &mut Store) -> Vec<FromWorker> {
        let Opening { dataset, name, text, read, done, total } = self;
        if read.is_none() {
            return match dataset::read_dataset(name, text) {
                Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: Some(e.location()) }],
                Ok(parsed) => {
                    *text = String::new();
                    *total = parsed.samples.len();
                    let mode = parsed.summary.as_ref().and_then(|s| s.get("mode")).and_then(Json::as_str).unwrap_or("").to_string();
                    store.create(dataset, parsed.summary.clone(), *total);
                    let opened = FromWorker::Opened { id, dataset: dataset.clone(), name: name.clone(), samples: *total, summary: parsed.summary.clone() };
                    *read = Some((parsed.summary, parsed.samples.into_iter(), mode));
                    vec![opened]
                }
            };
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
}

/// One shard (JSONL) of a hosted dataset of `total` samples stored from position `first`.
#[allow(clippy::too_many_arguments)]
pub(super) fn shard(id: u64, dataset: &str, name: &str, first: usize, total: usize, summary: Option<Json>, text: &str, store: &mut Store) -> Vec<FromWorker> {
    match dataset::read_dataset(&format!("{name}.jsonl"), text) {
        Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: Some(e.location()) }],
        Ok(parsed) => {
            let rows = put_records(store, dataset, first, total, summary, parsed.samples);
            vec![FromWorker::Rows { id, dataset: dataset.to_string(), total, rows }, FromWorker::Done { id, summary: String::new() }]
        }
    }
}

/// A JSON file of unknown kind: what it is (dataset or results), re-serialised compactly.
pub(super) fn parse_json(id: u64, name: &str, text: &str) -> Vec<FromWorker> {
    match serde_json::from_str::<Json>(text) {
        Err(e) => vec![FromWorker::Failed { id, message: format!("malformed JSON: {e}"), location: Some(format!("{name}:{}:{}", e.line(), e.column())) }],
        Ok(json) => {
            let inspection = dataset::inspect(&json);
            let kind = match inspection.kind {
                dataset::FileKind::Dataset => "dataset",
                dataset::FileKind::Results => "results",
            };
            vec![
                FromWorker::Parsed { id, name: name.to_string(), kind: kind.into(), samples: inspection.num_samples, json: json.to_string() },
                FromWorker::Done { id, summary: String::new() },
            ]
        }
    }
}

/// A designer graph opened, answered as `Parsed` with kind `graph` and its node-link JSON with positions.
pub(super) fn open_graph_job(id: u64, name: &str, text: &str, arrange: bool) -> Vec<FromWorker> {
    match open_graph(name, text, arrange) {
        Ok(graph) => vec![
            FromWorker::Parsed { id, name: name.to_string(), kind: "graph".into(), samples: graph.nodes().len(), json: graph::to_json(&graph).to_string() },
            FromWorker::Done { id, summary: String::new() },
        ],
        Err(e) => vec![FromWorker::Failed { id, message: e.to_string(), location: Some(e.location()) }],
    }
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

/// Stores a hosted dataset's records from position `first` (of `total`), as a fetched shard does, and returns
/// their rows.
pub(super) fn put_records(store: &mut Store, dataset: &str, first: usize, total: usize, summary: Option<Json>, records: Vec<Json>) -> Vec<Row> {
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
