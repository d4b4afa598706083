//! Inspect AI logs of the ArbiGraph task read into our results layout, sans IO: the log's bytes in (the `.eval`
//! zip archive or the JSON log format), a results file out. Each log sample carries its dataset sample
//! (`metadata.sample`) and the engine's record of the run (`store["arbigraph:result"]`); the transcript comes
//! from the log's messages, and every sample is graded again here, by our grader, from its turn outputs, with
//! the log's own score kept beside the verdict (`inspect_score`). The CLI's `import-inspect` and the Results
//! page both call [`read_inspect_log`]. Logs of another task, logs cut short, and samples that are not the
//! dataset's are refused, saying what and where.

use super::grading::grade_record;
use super::record::{is_finished, same_prompt, with_epoch, ResultRecord};
use super::summary::aggregates;
use crate::engine::grade::GradeOptions;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::fmt;
use std::io::{Cursor, Read};
use crate::engine::sort;

/// The task name the ArbiGraph task registers in Inspect.
pub const INSPECT_TASK: &str = "arbigraph";

/// Why a log cannot be read: the file, where in it, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InspectLogError {
    pub file: String,
    pub location: String,
    pub problem: String,
}

impl fmt::Display for InspectLogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: {}: {}", self.file, self.location, self.problem)
        }
    }
}

/// How much of a file's start `looks_like_inspect_log` reads: a caller may pass only that much.
pub const INSPECT_HEAD_BYTES: u32 = 4096;

/// True when `bytes` (a file, or its first `INSPECT_HEAD_BYTES`) look like an Inspect log this reader takes: a zip
/// archive (`.eval`) or a JSON object with an `eval` header (the JSON log format).
pub fn looks_like_inspect_log(bytes: &[u8]) -> bool {
    if bytes.starts_with(b"PK\x03\x04") {
        return true;
    }
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(INSPECT_HEAD_BYTES as usize)]);
    head.trim_start().starts_with('{') && head.contains("\"eval\"") && head.contains("\"version\"")
}

#[derive(Deserialize)]
struct LogHeader {
    #[serde(default)]
    status: String,
    eval: EvalSpec,
    #[serde(default)]
    samples: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct EvalSpec {
    task: String,
    #[serde(default)]
    task_registry_name: Option<String>,
    #[serde(default)]
    eval_id: String,
    #[serde(default)]
    created: String,
    #[serde(default)]
    model: String,
    #[serde(default)]
    dataset: Option<DatasetSpec>,
}

#[derive(Deserialize)]
struct DatasetSpec {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    samples: Option<usize>,
}

#[derive(Deserialize)]
struct LogSample {
    id: Value,
    #[serde(default)]
    epoch: Option<usize>,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    messages: Vec<LogMessage>,
    #[serde(default)]
    scores: Option<Scores>,
    #[serde(default)]
    metadata: Option<SampleMeta>,
    #[serde(default)]
    store: Option<Store>,
    #[serde(default)]
    model_usage: Map<String, Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    completed_at: Option<String>,
}

#[derive(Deserialize)]
struct SampleMeta {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    sample: Option<Value>,
}

#[derive(Deserialize)]
struct Store {
    #[serde(rename = "arbigraph:result", default)]
    result: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
struct Scores {
    #[serde(default)]
    arbigraph_scorer: Option<LogScore>,
}

#[derive(Deserialize)]
struct LogScore {
    #[serde(default)]
    value: ScoreValue,
}

#[derive(Deserialize, Default)]
struct ScoreValue {
    #[serde(default)]
    correct: Option<f64>,
    #[serde(default)]
    nodes: Option<f64>,
}

#[derive(Deserialize)]
struct LogMessage {
    role: String,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    tool_calls: Option<Vec<LogToolCall>>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    function: Option<String>,
}

#[derive(Deserialize)]
struct LogToolCall {
    #[serde(default)]
    id: String,
    #[serde(default)]
    function: String,
    #[serde(default)]
    arguments: Value,
}

/// A message's text: a string as it is, a list of content parts joined (their `text`).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The log's messages as our transcript.
fn transcript(messages: &[LogMessage]) -> Value {
    Value::Array(
        messages
            .iter()
            .map(|m| {
                let mut entry = json!({"role": m.role, "content": text_of(&m.content)});
                if let Some(calls) = m.tool_calls.as_ref().filter(|c| !c.is_empty()) {
                    entry["tool_calls"] = Value::Array(calls.iter().map(|c| json!({"id": c.id, "name": c.function, "arguments": c.arguments})).collect());
                }
                if let Some(id) = &m.tool_call_id {
                    entry["tool_call_id"] = json!(id);
                }
                if let (Some(name), "tool") = (&m.function, m.role.as_str()) {
                    entry["name"] = json!(name);
                }
                entry
            })
            .collect(),
    )
}

/// The text of the archive's entry `name` (`None` when there is none): stored and deflated entries through
/// `zip`, zstd-compressed ones (what Inspect writes) through `ruzstd`.
fn entry_text(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> Result<Option<String>, String> {
    let Some(index) = archive.index_for_name(name) else { return Ok(None) };
    let mut raw = archive.by_index_raw(index).map_err(|e| format!("cannot be read: {e}"))?;
    let mut bytes = Vec::new();
    if raw.compression() == zip::CompressionMethod::ZSTD {
        let mut decoder = ruzstd::decoding::StreamingDecoder::new(&mut raw).map_err(|e| format!("not a readable zstd stream (truncated?): {e}"))?;
        decoder.read_to_end(&mut bytes).map_err(|e| format!("cannot be decompressed (truncated?): {e}"))?;
    } else {
        drop(raw);
        let mut entry = archive.by_index(index).map_err(|e| format!("cannot be read: {e}"))?;
        entry.read_to_end(&mut bytes).map_err(|e| format!("cannot be read (truncated?): {e}"))?;
    }
    String::from_utf8(bytes).map(Some).map_err(|_| "not UTF-8 text".to_string())
}

/// The log's header and its samples (each with where it was read from), from a zip archive or a JSON log.
fn read_parts(bytes: &[u8], file: &str) -> Result<(LogHeader, Vec<(String, Value)>), InspectLogError> {
    let error = |location: &str, problem: String| InspectLogError { file: file.to_string(), location: location.to_string(), problem };
    let json_error = |location: &str, e: serde_json::Error| {
        let problem = if e.is_eof() { format!("the log ends early (truncated?) at line {} column {}", e.line(), e.column()) } else { format!("line {} column {}: {e}", e.line(), e.column()) };
        error(location, problem)
    };
    if bytes.starts_with(b"PK") {
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| error("", format!("not a readable `.eval` archive (truncated?): {e}")))?;
        let header_text = entry_text(&mut archive, "header.json").map_err(|problem| error("header.json", problem))?;
        let header_text = header_text.ok_or_else(|| error("header.json", "missing: the run did not finish writing its log (truncated, or still running)".into()))?;
        let header: LogHeader = serde_json::from_str(&header_text).map_err(|e| json_error("header.json", e))?;
        let names: Vec<String> = archive.file_names().filter(|n| n.starts_with("samples/") && n.ends_with(".json")).map(str::to_string).collect();
        let mut samples = Vec::new();
        for name in names {
            let text = entry_text(&mut archive, &name).map_err(|problem| error(&name, problem))?.unwrap_or_default();
            samples.push((name.clone(), serde_json::from_str(&text).map_err(|e| json_error(&name, e))?));
        }
        Ok((header, samples))
    } else {
        let mut header: LogHeader = serde_json::from_slice(bytes).map_err(|e| json_error("", e))?;
        let samples = header.samples.take().unwrap_or_default().into_iter().enumerate().map(|(i, s)| (format!("samples[{i}]"), s)).collect();
        Ok((header, samples))
    }
}

/// Reads an Inspect log (`bytes` of the file named `file`) of the ArbiGraph task into our results file. With
/// `dataset` (the dataset's samples), every log sample must be the dataset sample its `metadata.index` names.
pub fn read_inspect_log(bytes: &[u8], file: &str, dataset: Option<&[Value]>) -> Result<Value, InspectLogError> {
    let error = |location: String, problem: String| InspectLogError { file: file.to_string(), location, problem };
    let (header, raw_samples) = read_parts(bytes, file)?;
    let registry = header.eval.task_registry_name.as_deref().unwrap_or("");
    if header.eval.task != INSPECT_TASK && !registry.ends_with("/arbigraph") {
        let name = if registry.is_empty() { header.eval.task.clone() } else { registry.to_string() };
        return Err(error("eval.task".into(), format!("a log of the task `{name}`, not of the ArbiGraph task (`arbigraph/arbigraph`)")));
    }
    if raw_samples.is_empty() {
        return Err(error("samples".into(), format!("the log holds no samples (status `{}`; run with sample logging on)", header.status)));
    }
    if let Some(expected) = header.eval.dataset.as_ref().and_then(|d| d.samples) {
        if raw_samples.len() < expected && header.status == "success" {
            return Err(error("samples".into(), format!("the log holds {} samples but its header says the dataset has {expected} (truncated?)", raw_samples.len())));
        }
    }
    let mut samples: Vec<(usize, usize, Value)> = Vec::new();
    let (mut agree, mut disagree) = (0usize, Vec::new());
    let mut strategy = None;
    for (location, raw) in raw_samples {
        let log: LogSample = serde_json::from_value(raw).map_err(|e| error(location.clone(), format!("not an Inspect sample: {e}")))?;
        let at = format!("{location} (sample id {}, epoch {})", log.id, log.epoch.unwrap_or(1));
        let meta = log.metadata.ok_or_else(|| error(at.clone(), "no `metadata`: not a sample of the ArbiGraph task".into()))?;
        let base = meta.sample.filter(Value::is_object).ok_or_else(|| error(at.clone(), "no dataset sample in `metadata.sample`: not a sample of the ArbiGraph task".into()))?;
        let index = meta.index.or_else(|| log.id.as_u64().map(|id| id.saturating_sub(1) as usize)).ok_or_else(|| error(at.clone(), "no `metadata.index` and no numeric id".into()))?;
        let input = json!({"prompt": text_of(match &log.input { Value::Array(list) => list.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user")).and_then(|m| m.get("content")).unwrap_or(&Value::Null), other => other })});
        if !same_prompt(&base, &input) {
            return Err(error(at, "the sample's input is not the prompt of the dataset sample it carries".into()));
        }
        if let Some(dataset) = dataset {
            match dataset.get(index) {
                None => return Err(error(at, format!("`metadata.index` {index} is beyond the dataset's {} samples", dataset.len()))),
                Some(expected) if !same_prompt(expected, &base) => return Err(error(at, format!("not the dataset's sample {index}: the prompts differ"))),
                Some(_) => {}
            }
        }
        let mut out = base.as_object().cloned().unwrap_or_default();
        let stored = log.store.and_then(|s| s.result);
        match stored {
            Some(result) => out.extend(result),
            None => {
                let turns: Map<String, Value> = log.messages.iter().filter(|m| m.role == "assistant").enumerate().map(|(i, m)| (i.to_string(), json!(text_of(&m.content)))).collect();
                out.insert("turn_outputs".into(), Value::Object(turns));
                out.insert("agent_status".into(), json!(if log.error.is_some() { "api_error" } else { "success" }));
            }
        }
        if let Some(message) = &log.error {
            out.insert("agent_status".into(), json!("api_error"));
            out.insert("agent_error".into(), json!(message.get("message").and_then(Value::as_str).map_or_else(|| message.to_string(), str::to_string)));
        }
        out.insert("transcript".into(), transcript(&log.messages));
        let (prompt_tokens, completion_tokens) = log.model_usage.values().fold((0, 0), |(p, c), u| {
            (p + u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0), c + u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0))
        });
        let mut sample = Value::Object(out);
        let record = ResultRecord::parse(&sample);
        if record.usage.is_none() {
            sample["usage"] = json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens});
        }
        sample["timings"] = json!({"started_at": log.started_at, "finished_at": log.completed_at});
        if strategy.is_none() {
            strategy = record.strategy.clone();
        }
        // Graded again, by our grader, from the turn outputs.
        let (grade, answers) = grade_record(&record, index, GradeOptions { replay: true, lenient: true }).map_err(|e| error(at.clone(), format!("the dataset sample cannot be graded: {e}")))?;
        sample["correct"] = json!(grade.correct);
        sample["lenient_correct"] = json!(grade.lenient);
        sample["task_answers"] = answers.to_json();
        sample["node_status"] = Value::Object(grade.nodes.iter().map(|(n, s)| (n.clone(), json!(s.as_str()))).collect());
        sample["first_breaks"] = json!(grade.first_breaks);
        let score = log.scores.and_then(|s| s.arbigraph_scorer).map(|s| s.value);
        if let Some(score) = &score {
            sample["inspect_score"] = json!({"correct": score.correct, "nodes": score.nodes});
            match score.correct {
                Some(c) if (c >= 0.5) == grade.correct => agree += 1,
                Some(_) => disagree.push(at.clone()),
                None => {}
            }
        }
        let epoch = log.epoch.unwrap_or(1).saturating_sub(1);
        samples.push((epoch, index, with_epoch(&sample, epoch)));
    }
    sort::by_key(&mut samples, |(epoch, index, _)| (*epoch, *index));
    for pair in samples.windows(2) {
        if (pair[0].0, pair[0].1) == (pair[1].0, pair[1].1) {
            return Err(error("samples".into(), format!("dataset sample {} appears twice in epoch {}", pair[0].1, pair[0].0 + 1)));
        }
    }
    let samples: Vec<Value> = samples.into_iter().map(|(_, _, s)| s).collect();
    let finished: Vec<Value> = samples.iter().filter(|s| is_finished(s)).cloned().collect();
    let mut summary = Map::new();
    summary.insert("start_times".into(), json!([header.eval.created]));
    summary.insert("generation_params".into(), json!({"model": header.eval.model, "strategy": strategy.unwrap_or_else(|| "full".into()), "base_url": null}));
    summary.insert("mode".into(), json!("agent"));
    summary.insert("dataset".into(), json!(header.eval.dataset.and_then(|d| d.name).unwrap_or_default()));
    summary.insert(
        "imported_from".into(),
        json!({"format": "inspect", "file": file, "task": header.eval.task, "eval_id": header.eval.eval_id, "status": header.status, "scores_agreeing": agree, "scores_disagreeing": disagree}),
    );
    summary.extend(aggregates(&finished));
    summary.insert("num_finished".into(), json!(finished.len()));
    Ok(json!({"summary": summary, "samples": samples}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const JSON_LOG: &str = include_str!("../../../tests/fixtures/inspect/baseline.log.json");

    /// The JSON log rewritten as a `.eval` archive whose entries are compressed with `method`.
    fn archive(method: zip::CompressionMethod) -> Vec<u8> {
        let log: Value = serde_json::from_str(JSON_LOG).unwrap();
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        let mut header = log.clone();
        header.as_object_mut().unwrap().remove("samples");
        writer.start_file("header.json", options).unwrap();
        writer.write_all(header.to_string().as_bytes()).unwrap();
        for (k, sample) in log.get("samples").and_then(Value::as_array).unwrap().iter().enumerate() {
            writer.start_file(format!("samples/{}_epoch_1.json", k + 1), options).unwrap();
            writer.write_all(sample.to_string().as_bytes()).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn deflated_and_stored_archives_read_as_the_json_log_does() {
        let from_json = read_inspect_log(JSON_LOG.as_bytes(), "log.json", None).unwrap();
        assert!(looks_like_inspect_log(JSON_LOG.as_bytes()));
        assert!(looks_like_inspect_log(&JSON_LOG.as_bytes()[..INSPECT_HEAD_BYTES as usize]));
        for method in [zip::CompressionMethod::Deflated, zip::CompressionMethod::Stored] {
            let bytes = archive(method);
            assert!(looks_like_inspect_log(&bytes));
            // The page reads only a file's first bytes to tell a log.
            assert!(looks_like_inspect_log(&bytes[..bytes.len().min(INSPECT_HEAD_BYTES as usize)]), "{method:?}");
            let from_archive = read_inspect_log(&bytes, "log.eval", None).unwrap();
            assert_eq!(from_archive.get("samples"), from_json.get("samples"), "{method:?}");
        }
    }

    #[test]
    fn an_archive_without_its_header_or_a_results_file_is_not_read_as_a_log() {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        writer.start_file("_journal/start.json", zip::write::SimpleFileOptions::default()).unwrap();
        writer.write_all(b"{}").unwrap();
        let bytes = writer.finish().unwrap().into_inner();
        let error = read_inspect_log(&bytes, "running.eval", None).unwrap_err();
        assert_eq!(error.to_string(), "running.eval: header.json: missing: the run did not finish writing its log (truncated, or still running)");
        assert!(!looks_like_inspect_log(br#"{"summary": {"generation_params": {}}, "samples": []}"#));
    }
}
