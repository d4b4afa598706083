//! The worker protocol: what the page asks (`ToWorker`, carrying a `JobRequest`) and what comes back
//! (`FromWorker`). Messages are serde JSON, but for a helper's samples, which travel as bytes
//! (`made_to_bytes`): the worker protocol of ARCHITECTURE.md's serialization invariant.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::packs::{PackSource, PackSummary};
use crate::app::browse::catalog::{Query, Row};
use crate::app::instance::Detail;
use crate::app::store::Stored;
use crate::engine::dataset::FileFormat;
use crate::engine::generate::form::GenerateForm;

/// What a job is asked to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobRequest {
    /// Generate every run of the form's plan (one run, or the paper's layouts) into dataset `dataset`, streaming
    /// rows; `graph` (node-link JSON) makes it a custom-graph run. `packs` are the task packs the run may draw
    /// from (`app::jobs::packs`): with a pack, a bare family is the pack's.
    Generate {
        dataset: String,
        form: GenerateForm,
        graph: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        packs: Vec<PackSource>,
    },
    /// Make positions `first..end` of the plan's runs (a block lent by the worker that runs a `Generate` split
    /// over several workers, `app::jobs::split`): answered with `Made` messages, nothing stored here.
    GenerateRange {
        form: GenerateForm,
        graph: Option<String>,
        first: usize,
        end: usize,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        packs: Vec<PackSource>,
    },
    /// Regenerate one sample alone (a deep link) into dataset `dataset`, which then holds just that sample.
    GenerateOne {
        dataset: String,
        form: GenerateForm,
        graph: Option<String>,
        target: usize,
        sample: u32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        packs: Vec<PackSource>,
    },
    /// Regenerate the plan's runs and return each as a file, byte-identical to `arbigraph generate`'s.
    Export {
        form: GenerateForm,
        graph: Option<String>,
        format: FileFormat,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        packs: Vec<PackSource>,
    },
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
    /// Generate the app's demo datasets (`app::browse::demo`) as site datasets `site:NAME`: answered with a `File` named
    /// `datasets/index.json` holding the index a site would carry, then each dataset's rows.
    DemoSite,
    /// The Python box's Run: call the function `source` defines with `args` (a JSON object of parameter names to
    /// values); answered with `Done`, whose summary is the result as JSON (`app::jobs::python::run`).
    RunPython { source: String, args: String },
    /// The Python box's tracing try: answered with `Traced` (`app::jobs::python::trace`).
    TracePython { source: String },
    /// The cross-platform probes the end-to-end tests compare with the native pins, computed by the worker's
    /// module (which holds the generators and the renderer): answered with `Done`, whose summary is
    /// `{"rng": …, "dataset": …, "png": …}` (`jobs::probes`).
    Probes,
    /// Read a task pack (typing and trying every entry), answered with `PackRead`.
    ReadPack { source: PackSource },
    /// Read a file picked on Results into a results file's text (`app::results::data::results_text`): an Inspect
    /// AI log of the ArbiGraph task through the engine's reader, any other file as UTF-8 text. Answered with a
    /// `File`. The worker adapter fills `bytes` from the file object sent beside the message, so the page's
    /// module carries neither the log reader nor its zip and zstd decoders.
    ReadResults {
        name: String,
        #[serde(skip)]
        bytes: Vec<u8>,
    },
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
    /// `app::jobs::split`). Sent by the page once, from `navigator.hardwareConcurrency`; without it, one worker.
    Workers { count: usize },
    /// Start the helpers a spread generation would start, now rather than at its first block: sent when the
    /// Generate page opens, so a first generation does not wait for their modules to load and compile.
    Prepare,
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
    /// What reading a task pack found: its tasks with their kinds, and the entries refused with why.
    PackRead { id: u64, summary: Box<PackSummary> },
    /// The job finished; `summary` says what it made (the dataset's summary object for generation runs).
    Done { id: u64, summary: String },
    /// The job stopped on a problem; `location` says where when the problem is in user input.
    Failed { id: u64, message: String, location: Option<String> },
    /// The job was cancelled.
    Cancelled { id: u64 },
    /// The worker has started and listens (sent once, with id 0, before any job message).
    Ready { id: u64 },
    /// A pasted Python function tried as a tracing task.
    Traced { id: u64, traced: super::python::Traced },
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
            | FromWorker::PackRead { id, .. }
            | FromWorker::Done { id, .. }
            | FromWorker::Failed { id, .. }
            | FromWorker::Cancelled { id }
            | FromWorker::Ready { id }
            | FromWorker::Traced { id, .. } => *id,
        }
    }

    /// True for the last message of a job.
    pub fn is_final(&self) -> bool {
        matches!(self, FromWorker::Done { .. } | FromWorker::Failed { .. } | FromWorker::Cancelled { .. })
    }
}

/// The first bytes of a `Made` message sent as bytes (`made_to_bytes`).
const MADE_MAGIC: &[u8; 4] = b"AGM1";

/// A `Made` message as bytes: each sample's row and roles as JSON, its prompt and record as they are. A helper
/// sends these as a transferred buffer: as JSON, every quote of a record (itself JSON text) was escaped and
/// read back, which cost a helper 3–5 ms a block of 48 (making it takes 8–25 ms in a release build) and the
/// worker that merges about as much again.
pub fn made_to_bytes(id: u64, first: usize, samples: &[Stored]) -> Vec<u8> {
    let size: usize = samples.iter().map(|s| s.prompt.len() + s.record.len() + 256).sum();
    let mut out = Vec::with_capacity(24 + size);
    out.extend_from_slice(MADE_MAGIC);
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(first as u64).to_le_bytes());
    out.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    let mut field = |bytes: &[u8]| {
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    };
    for sample in samples {
        field(serde_json::to_string(&sample.row).unwrap_or_default().as_bytes());
        field(sample.prompt.as_bytes());
        field(sample.record.as_bytes());
        field(serde_json::to_string(&sample.roles).unwrap_or_default().as_bytes());
    }
    out
}

/// Reads `made_to_bytes`' bytes back into the `Made` message; bytes cut short or not from it are refused.
pub fn made_from_bytes(bytes: &[u8]) -> Result<FromWorker, String> {
    let mut rest = bytes.strip_prefix(MADE_MAGIC).ok_or("not a block of samples")?;
    let mut take = |n: usize| -> Result<&[u8], String> {
        if rest.len() < n {
            return Err(format!("a block of samples cut short ({} bytes)", bytes.len()));
        }
        let (head, tail) = rest.split_at(n);
        rest = tail;
        Ok(head)
    };
    let id = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
    let first = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes")) as usize;
    let count = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
    let mut samples = Vec::with_capacity(count.min(bytes.len() / 16));
    for _ in 0..count {
        let mut text = || -> Result<String, String> {
            let len = u32::from_le_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
            String::from_utf8(take(len)?.to_vec()).map_err(|e| format!("a sample's text is not UTF-8: {e}"))
        };
        let row = serde_json::from_str(&text()?).map_err(|e| format!("a sample's row: {e}"))?;
        let prompt = text()?;
        let record = text()?;
        let roles = serde_json::from_str(&text()?).map_err(|e| format!("a sample's roles: {e}"))?;
        samples.push(Stored { row, prompt, record, roles });
    }
    Ok(FromWorker::Made { id, first, samples })
}
