//! The results file the Results page shows (`ResultsData`: the file and, worked out once, its grades, list rows
//! and figures), and the opening of a results file a slice at a time (`Opening`), so that a file of tens of
//! thousands of samples never holds the page's thread for long: a byte scan that builds nothing (`scan`) finds
//! the file's members and samples, then each sample is parsed, graded and given its row, and the figures are
//! worked out, in slices the caller bounds by time.

use std::ops::Range;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::app::results::transcript::{add_consistency, sample_row, SampleRow};
use crate::engine::grade::metrics::{summarise, Metrics};
use crate::engine::results::{grade_results_file, looks_like_inspect_log, read_inspect_log, results_mode, results_samples, GradeOptions, GradedFile};

mod scan;
use scan::{relocated, Member, Scan};

/// A results file and what the page shows of it, worked out at most once.
#[derive(Debug)]
pub struct ResultsData {
    json: Value,
    graded: OnceLock<Graded>,
}

/// A results file's grades, list rows and figures.
#[derive(Debug)]
pub struct Graded {
    /// Every sample graded as stored, or why the file cannot be graded.
    pub file: Result<GradedFile, String>,
    /// One row per sample, in file order.
    pub rows: Vec<SampleRow>,
    /// The figures of the graded samples (empty when the file cannot be graded).
    pub metrics: Metrics,
}

impl Graded {
    fn new(file: Result<GradedFile, String>, rows: Vec<SampleRow>) -> Graded {
        let metrics = file.as_ref().map(|g| summarise(g.samples.iter().map(|s| &s.outcome))).unwrap_or_default();
        Graded { file, rows, metrics }
    }
}

impl ResultsData {
    /// A file whose grades are worked out when first asked for (a run's file, rebuilt as it goes).
    pub fn new(json: Value) -> ResultsData {
        ResultsData { json, graded: OnceLock::new() }
    }

    /// A file to share between the page's parts.
    pub fn shared(json: Value) -> std::sync::Arc<ResultsData> {
        std::sync::Arc::new(ResultsData::new(json))
    }

    /// The file.
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The file's grades, rows and figures.
    pub fn graded(&self) -> &Graded {
        self.graded.get_or_init(|| {
            let file = grade_results_file(&self.json, GradeOptions::default()).map_err(|e| e.to_string());
            let rows = crate::app::results::transcript::sample_rows(&self.json);
            Graded::new(file, rows)
        })
    }

    /// Takes the file back.
    pub fn into_json(self) -> Value {
        self.json
    }
}

/// What one slice of an opening came to.
#[derive(Debug)]
pub enum Step {
    /// `done` of `total` units of work finished.
    Working { done: usize, total: usize },
    /// The file is open.
    Opened(Box<ResultsData>),
    /// The file cannot be shown: the message names the file and, for malformed JSON, the line and column.
    Failed(String),
}

/// The text of a file opened on Results, from its bytes: an Inspect AI log of the ArbiGraph task (`.eval` or
/// JSON) read into our results layout by the engine's reader (the one `arbigraph import-inspect` uses), any other
/// file as UTF-8 text. A log that cannot be read, or bytes that are not UTF-8, are refused with the file's name
/// and where.
///
/// It runs in the worker (`JobRequest::ReadResults`), which holds the log reader; the page reads a file that is
/// not a log itself (`web::files::file_text`, through `utf8_text`), so a large results file does not travel back to it in one message.
pub fn results_text(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    if looks_like_inspect_log(&bytes) {
        return read_inspect_log(&bytes, name, None).map(|json| json.to_string()).map_err(|e| e.to_string());
    }
    utf8_text(name, bytes)
}

/// The bytes of file `name` as text, or where its first byte that is not UTF-8 is.
pub fn utf8_text(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8 text (byte {} is not valid UTF-8)", e.utf8_error().valid_up_to()))
}

/// How often (in samples) a slice asks whether it may go on.
const CHECK_EVERY: usize = 16;
/// How often (in bytes scanned) the scan asks whether it may go on: about a millisecond of scanning.
const SCAN_BYTES: usize = 1 << 20;

/// A results file being opened.
#[derive(Debug)]
pub struct Opening {
    name: String,
    stage: Stage,
}

#[derive(Debug)]
enum Stage {
    /// Finding where the file's members and samples lie.
    Scan { text: String, scan: Scan },
    /// Parsing each sample out of `text`.
    Parse { text: String, top: Vec<(String, Part)>, ranges: Vec<Range<usize>>, samples: Vec<Value> },
    /// Grading each sample and making its row.
    Grade { json: Value, graded: GradedFile, rows: Vec<SampleRow> },
    /// Working out the figures, in a slice of its own.
    Summarise { json: Value, graded: GradedFile, rows: Vec<SampleRow> },
    /// Handed over (or failed).
    Over,
}

/// One top-level member of the file: the samples (parsed one by one) or any other value, parsed at once.
#[derive(Debug)]
enum Part {
    Samples,
    Value(Value),
}

impl Opening {
    /// Starts opening file `name` of text `text`.
    pub fn new(name: impl Into<String>, text: String) -> Opening {
        Opening { name: name.into(), stage: Stage::Scan { text, scan: Scan::default() } }
    }

    /// Works until `more()` says stop (asked every few samples) or a stage ends, and says where it got.
    pub fn step(&mut self, more: &mut dyn FnMut() -> bool) -> Step {
        match std::mem::replace(&mut self.stage, Stage::Over) {
            Stage::Scan { text, mut scan } => {
                let outline = loop {
                    match scan.step(&text, SCAN_BYTES) {
                        Ok(Some(members)) => break members,
                        Ok(None) if more() => {}
                        // The scan counts for nothing in the progress: it is a small part of the work.
                        Ok(None) => {
                            self.stage = Stage::Scan { text, scan };
                            return Step::Working { done: 0, total: 0 };
                        }
                        Err(e) => return Step::Failed(format!("{}: {e}", self.name)),
                    }
                };
                match split(&text, outline) {
                    Ok((top, ranges)) => {
                        let total = ranges.len();
                        self.stage = Stage::Parse { text, top, samples: Vec::with_capacity(total), ranges };
                        Step::Working { done: 0, total: 2 * total }
                    }
                    Err(e) => Step::Failed(format!("{}: {e}", self.name)),
                }
            }
            Stage::Parse { text, top, ranges, mut samples } => {
                while samples.len() < ranges.len() {
                    let range = ranges[samples.len()].clone();
                    match serde_json::from_str::<Value>(&text[range.clone()]) {
                        Ok(sample) => samples.push(sample),
                        Err(e) => return Step::Failed(format!("{}: {}", self.name, relocated(&text, range.start, &e))),
                    }
                    if samples.len() % CHECK_EVERY == 0 && !more() {
                        break;
                    }
                }
                let (done, total) = (samples.len(), 2 * ranges.len());
                if done < ranges.len() {
                    self.stage = Stage::Parse { text, top, ranges, samples };
                    return Step::Working { done, total };
                }
                drop(text);
                let json = assemble(top, samples);
                if let Err(e) = results_samples(&json) {
                    return Step::Failed(format!("{}: {e}", self.name));
                }
                self.stage = Stage::Grade { json, graded: GradedFile::default(), rows: Vec::with_capacity(done) };
                Step::Working { done, total }
            }
            Stage::Grade { json, mut graded, mut rows } => {
                let samples = json.get("samples").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                let mode = results_mode(&json);
                while rows.len() < samples.len() {
                    let index = rows.len();
                    graded.add(index, &samples[index], mode, GradeOptions::default());
                    rows.push(sample_row(index, &samples[index]));
                    if rows.len() % CHECK_EVERY == 0 && !more() {
                        break;
                    }
                }
                let (done, count) = (rows.len(), samples.len());
                if done < count {
                    self.stage = Stage::Grade { json, graded, rows };
                    return Step::Working { done: count + done, total: 2 * count };
                }
                add_consistency(&mut rows, samples);
                self.stage = Stage::Summarise { json, graded, rows };
                Step::Working { done: 2 * count, total: 2 * count }
            }
            Stage::Summarise { json, graded, rows } => {
                let data = ResultsData { json, graded: OnceLock::new() };
                let _ = data.graded.set(Graded::new(Ok(graded), rows));
                Step::Opened(Box::new(data))
            }
            Stage::Over => Step::Failed(format!("{}: already opened", self.name)),
        }
    }

    /// Runs every slice at once (for tests and small files).
    pub fn finish(mut self) -> Result<ResultsData, String> {
        loop {
            match self.step(&mut || true) {
                Step::Working { .. } => {}
                Step::Opened(data) => return Ok(*data),
                Step::Failed(e) => return Err(e),
            }
        }
    }
}

/// The file's members in order (every one parsed but the samples) and the samples' byte ranges in `text`; a
/// file without a `samples` list says so.
fn split(text: &str, outline: Vec<Member>) -> Result<(Vec<(String, Part)>, Vec<Range<usize>>), String> {
    let mut top = Vec::with_capacity(outline.len());
    let mut ranges = None;
    for member in outline {
        let key: String = serde_json::from_str(&text[member.key.clone()]).map_err(|e| relocated(text, member.key.start, &e))?;
        if let (true, None, Some(items)) = (key == "samples", &ranges, member.items) {
            ranges = Some(items);
            top.push((key, Part::Samples));
            continue;
        }
        let value = serde_json::from_str(&text[member.value.clone()]).map_err(|e| relocated(text, member.value.start, &e))?;
        top.push((key, Part::Value(value)));
    }
    let ranges = ranges.ok_or_else(|| "not a results file: no `samples` list".to_string())?;
    Ok((top, ranges))
}

/// The file rebuilt with its samples in place, members in their order.
fn assemble(top: Vec<(String, Part)>, samples: Vec<Value>) -> Value {
    let mut samples = Some(samples);
    let mut map = Map::with_capacity(top.len());
    for (key, part) in top {
        let value = match part {
            Part::Samples => Value::Array(samples.take().unwrap_or_default()),
            Part::Value(value) => value,
        };
        map.insert(key, value);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests;
