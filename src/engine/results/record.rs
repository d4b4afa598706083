//! One sample's results record: the dataset sample copied unchanged plus the reference's fields
//! (`correct`, `token_length`, `agent_turns`, `agent_tool_calls`, `turn_outputs`, `expected_task_outputs`,
//! `task_answers`, `agent_status`) and ours under new keys (`transcript`, `node_status`, `first_breaks`,
//! `strategy`, `strategy_params`, `acg_record` (the `acg-lite` record), `strategy_record` (the other strategies'
//! records), `requests` (one entry per request sent, auxiliary calls included), `timings`, `usage`, `repairs`,
//! `agent_error`, `lenient_correct`).

use crate::engine::agent::{AgentRecord, Message, RequestLog, Status, Strategy};
pub use crate::engine::dataset::record::has_status;
use crate::engine::dataset::SampleRecord;
use crate::engine::grade::collect::Answers;
use crate::engine::grade::NodeStatus;
use serde_json::{json, Map, Value};
use serde_json::Value as Json;
use crate::engine::sort;

/// The transcript as JSON: every message with role, content and, where present, reasoning, tool calls,
/// the answered call id, the harness's purpose for it and, for a message sent with pictures, how many
/// (`pictures`; the pictures themselves stay in the sample's `images`, never copied here).
pub fn transcript_json(messages: &[Message]) -> Value {
    Value::Array(
        messages
            .iter()
            .map(|m| {
                let mut v = json!({"role": m.role.as_str(), "content": m.content});
                if let Some(r) = &m.reasoning {
                    v["reasoning"] = json!(r);
                }
                if !m.tool_calls.is_empty() {
                    v["tool_calls"] = Value::Array(m.tool_calls.iter().map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments})).collect());
                }
                if let Some(id) = &m.tool_call_id {
                    v["tool_call_id"] = json!(id);
                }
                if let Some(name) = &m.name {
                    v["name"] = json!(name);
                }
                if let Some(p) = &m.purpose {
                    v["purpose"] = json!(p);
                }
                if !m.images.is_empty() {
                    v["pictures"] = json!(m.images.len());
                }
                v
            })
            .collect(),
    )
}

/// The `requests` list: per request its turn, kind (`turn` or `summary`), messages sent, estimated and reported
/// prompt tokens, completion tokens and latency.
pub fn requests_json(requests: &[RequestLog]) -> Value {
    Value::Array(
        requests
            .iter()
            .map(|r| {
                let mut out = json!({
                    "turn": r.turn,
                    "kind": r.kind.as_str(),
                    "messages": r.messages,
                    "prompt_tokens_estimated": r.estimated_prompt_tokens,
                    "prompt_tokens_reported": r.reported_prompt_tokens,
                    "completion_tokens": r.completion_tokens,
                    "latency_ms": r.latency_ms
                });
                // Written only when the endpoint reported them, so files of servers that do not stay as they were.
                for (key, value) in [("cached_prompt_tokens", r.cached_prompt_tokens), ("cache_write_tokens", r.cache_write_tokens), ("reasoning_tokens", r.reasoning_tokens)] {
                    if let Some(n) = value {
                        out[key] = json!(n);
                    }
                }
                out
            })
            .collect(),
    )
}

/// The results record of one sample: `sample` copied with the result fields set. `strategy` is the name written
/// under `strategy` (drivers pass `record.strategy.name()`); its parameters come from the record. `timings`
/// comes from the driver.
pub fn result_sample(sample: &Value, record: &AgentRecord, strategy: &str, timings: Value) -> Value {
    let mut out = match sample {
        Value::Object(map) => map.clone(),
        other => {
            let mut m = Map::new();
            m.insert("sample".into(), other.clone());
            m
        }
    };
    let turn_outputs: Map<String, Value> = record.turn_outputs.iter().enumerate().map(|(i, t)| (i.to_string(), json!(t))).collect();
    out.insert("correct".into(), json!(record.grade.correct));
    out.insert("token_length".into(), json!(record.token_length));
    out.insert("agent_turns".into(), json!(record.turns));
    out.insert("agent_tool_calls".into(), json!(record.tool_calls));
    out.insert("turn_outputs".into(), Value::Object(turn_outputs));
    out.insert("expected_task_outputs".into(), json!(record.expected));
    out.insert("task_answers".into(), record.answers.to_json());
    out.insert("agent_status".into(), json!(record.status.as_str()));
    if let Status::ApiError(message) = &record.status {
        out.insert("agent_error".into(), json!(message));
    }
    if let Some(l) = record.grade.lenient {
        out.insert("lenient_correct".into(), json!(l));
    }
    out.insert("transcript".into(), transcript_json(&record.transcript));
    let nodes: Map<String, Value> = record.grade.nodes.iter().map(|(n, s)| (n.clone(), json!(s.as_str()))).collect();
    out.insert("node_status".into(), Value::Object(nodes));
    out.insert("first_breaks".into(), json!(record.grade.first_breaks));
    out.insert("strategy".into(), json!(strategy));
    out.insert("strategy_params".into(), record.strategy.params_json());
    if let Some(state) = record.strategy_state.to_json() {
        let key = record.strategy_state.record_key();
        out.insert(key.into(), state);
    }
    out.insert("requests".into(), requests_json(&record.requests));
    out.insert(
        "repairs".into(),
        json!({"initial_tool": record.repairs.initial_tool, "final_answer": record.repairs.final_answer, "cutoff": record.repairs.cutoff}),
    );
    out.insert(
        "usage".into(),
        json!({
            "prompt_tokens": record.usage.prompt_tokens,
            "completion_tokens": record.usage.completion_tokens,
            "reported_turns": record.usage.reported_turns,
            "estimated_turns": record.usage.estimated_turns,
            "auxiliary_calls": record.usage.auxiliary_calls,
            "auxiliary_prompt_tokens": record.usage.auxiliary_prompt_tokens,
            "auxiliary_completion_tokens": record.usage.auxiliary_completion_tokens,
            "cached_prompt_tokens": record.usage.cached_prompt_tokens,
            "cache_write_tokens": record.usage.cache_write_tokens,
            "reasoning_tokens": record.usage.reasoning_tokens
        }),
    );
    let mut timings = timings;
    if timings.is_object() {
        timings["latency_ms"] = json!(record.latencies_ms);
    }
    out.insert("timings".into(), timings);
    Value::Object(out)
}

/// How a results sample ended, as its `agent_status` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultStatus {
    /// The agent loop ended (its `api_error` with the stored `agent_error`).
    Ended(Status),
    /// Still running when the file was written.
    InProgress,
    /// The sample could not be run at all (no prompt, no truth).
    InvalidSample,
    /// A status this version does not know, kept as written.
    Other(String),
}

impl ResultStatus {
    /// The results-file spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ResultStatus::Ended(status) => status.as_str(),
            ResultStatus::InProgress => "in_progress",
            ResultStatus::InvalidSample => "invalid_sample",
            ResultStatus::Other(name) => name,
        }
    }

    fn parse(name: &str, error: Option<&str>) -> ResultStatus {
        match name {
            "in_progress" => ResultStatus::InProgress,
            "invalid_sample" => ResultStatus::InvalidSample,
            _ => match Status::parse(name, error.unwrap_or("")) {
                Some(status) => ResultStatus::Ended(status),
                None => ResultStatus::Other(name.to_string()),
            },
        }
    }

    /// True for the endpoint failing for good.
    pub fn is_api_error(&self) -> bool {
        matches!(self, ResultStatus::Ended(Status::ApiError(_)))
    }
}

/// One entry of a sample's `requests` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestEntry {
    pub turn: Option<u64>,
    /// `turn`, or an auxiliary call's kind (`summary`).
    pub kind: String,
    /// Messages sent (a count; older files stored the list).
    pub messages: Option<u64>,
    pub prompt_tokens_estimated: Option<u64>,
    pub prompt_tokens_reported: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub cached_prompt_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
    pub latency_ms: Option<u64>,
}

impl RequestEntry {
    /// The request's prompt tokens: reported, else estimated.
    pub fn prompt_tokens(&self) -> Option<u64> {
        self.prompt_tokens_reported.or(self.prompt_tokens_estimated)
    }

    /// True for a turn of the conversation (not an auxiliary call).
    pub fn is_turn(&self) -> bool {
        self.kind == "turn"
    }
}

/// One message of a sample's `transcript`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranscriptEntry {
    pub role: String,
    /// A string, a list of content parts, or absent, as written.
    pub content: Json,
    pub reasoning: Option<String>,
    /// Each call's id, function name and arguments (as written: a string or an object).
    pub tool_calls: Vec<(String, String, Json)>,
    pub tool_call_id: Option<String>,
    /// The tool's name on a tool result.
    pub name: Option<String>,
    /// Why the harness sent it (`repair:cutoff`, …).
    pub purpose: Option<String>,
    /// Pictures the message was sent with; `None` in files that do not count them.
    pub pictures: Option<u64>,
}

/// A results sample read once: the dataset sample it ran on and what the run recorded about it.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRecord {
    pub sample: SampleRecord,
    /// `None` for a record with no `agent_status` (a dataset sample, or a sample not yet run).
    pub status: Option<ResultStatus>,
    pub agent_error: Option<String>,
    pub correct: Option<bool>,
    pub lenient_correct: Option<bool>,
    /// The attempt this is (0 when the file has one epoch).
    pub epoch: usize,
    pub token_length: Option<f64>,
    pub agent_turns: Option<f64>,
    pub agent_tool_calls: Option<f64>,
    /// Each turn's output, in turn order (the reference's `{"0": text}` or a list).
    pub turn_outputs: Option<Vec<(usize, String)>>,
    /// The stored answers (`task_answers`); `None` when the file stores none.
    pub task_answers: Option<Answers>,
    /// Per-node verdicts as stored, `None` in files that store none.
    pub node_status: Option<Vec<(String, NodeStatus)>>,
    pub first_breaks: Vec<String>,
    pub requests: Option<Vec<RequestEntry>>,
    /// The `usage` totals, by field name, when stored.
    pub usage: Option<Vec<(String, u64)>>,
    /// Repairs by kind, when stored.
    pub repairs: Option<Vec<(String, u64)>>,
    /// The strategy as `name:key=value,…` (files from before the registry that say `acg` read as `acg-lite`).
    pub strategy: Option<String>,
    /// `task_id|task_name|sample_idx`, as written: the instance this is an attempt at.
    pub instance_key: Option<String>,
}

/// The strategy an object with `strategy`, `strategy_params` (and the legacy `acg_budget_tokens`) says, as
/// `name:key=value,…`; the name as written when it does not parse.
pub fn strategy_spec(holder: &Json) -> Option<String> {
    let name = holder.get("strategy").and_then(Json::as_str)?;
    let legacy = holder.get("acg_budget_tokens").and_then(Json::as_u64);
    Some(match Strategy::from_results(name, holder.get("strategy_params"), legacy) {
        Ok(strategy) => strategy.to_string(),
        Err(_) => name.to_string(),
    })
}

fn counts(json: Option<&Json>) -> Option<Vec<(String, u64)>> {
    json.and_then(Json::as_object).map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_u64()?))).collect())
}

fn message_entry(m: &Json) -> TranscriptEntry {
    let text = |key: &str| m.get(key).and_then(Json::as_str).map(str::to_string);
    let calls = m.get("tool_calls").and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[]);
    TranscriptEntry {
        role: text("role").unwrap_or_default(),
        content: m.get("content").cloned().unwrap_or(Json::Null),
        reasoning: text("reasoning"),
        tool_calls: calls
            .iter()
            .map(|c| {
                // Ours store `name` and `arguments`; files in the API's own shape nest them under `function`.
                let function = c.get("function");
                let id = c.get("id").and_then(Json::as_str).unwrap_or("").to_string();
                let name = c.get("name").or_else(|| function.and_then(|f| f.get("name"))).and_then(Json::as_str).unwrap_or("").to_string();
                let arguments = c.get("arguments").or_else(|| function.and_then(|f| f.get("arguments"))).cloned().unwrap_or(Json::Null);
                (id, name, arguments)
            })
            .collect(),
        tool_call_id: text("tool_call_id"),
        name: text("name"),
        purpose: text("purpose"),
        pictures: m.get("pictures").and_then(Json::as_u64),
    }
}

fn request_entry(r: &Json) -> RequestEntry {
    let n = |key: &str| r.get(key).and_then(Json::as_u64);
    RequestEntry {
        turn: n("turn"),
        kind: r.get("kind").and_then(Json::as_str).unwrap_or("turn").to_string(),
        messages: n("messages").or_else(|| r.get("messages").and_then(Json::as_array).map(|m| m.len() as u64)),
        prompt_tokens_estimated: n("prompt_tokens_estimated"),
        prompt_tokens_reported: n("prompt_tokens_reported"),
        completion_tokens: n("completion_tokens"),
        cached_prompt_tokens: n("cached_prompt_tokens"),
        reasoning_tokens: n("reasoning_tokens"),
        latency_ms: n("latency_ms"),
    }
}

impl ResultRecord {
    /// Reads a results sample (ours or the reference's). Every result field is optional: a dataset sample
    /// reads as a record that has not run.
    pub fn parse(sample: &Json) -> ResultRecord {
        let error = sample.get("agent_error").and_then(Json::as_str);
        let turn_outputs = match sample.get("turn_outputs") {
            Some(Json::Object(map)) => {
                let mut turns: Vec<(usize, String)> = map.iter().filter_map(|(k, v)| Some((k.parse().ok()?, v.as_str().unwrap_or("").to_string()))).collect();
                sort::by_key(&mut turns, |(k, _)| *k);
                Some(turns)
            }
            Some(Json::Array(list)) => Some(list.iter().enumerate().map(|(k, v)| (k, v.as_str().unwrap_or("").to_string())).collect()),
            _ => None,
        };
        let node_status = sample.get("node_status").and_then(Json::as_object).map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), NodeStatus::parse(v.as_str()?)?))).collect());
        let key = match (sample.get("task_id"), sample.get("task_name"), sample.get("sample_idx")) {
            (Some(id), Some(name), Some(idx)) => Some(format!("{id}|{name}|{idx}")),
            _ => None,
        };
        ResultRecord {
            sample: SampleRecord::parse(sample),
            status: sample.get("agent_status").and_then(Json::as_str).map(|s| ResultStatus::parse(s, error)),
            agent_error: error.map(str::to_string),
            correct: sample.get("correct").and_then(Json::as_bool),
            lenient_correct: sample.get("lenient_correct").and_then(Json::as_bool),
            epoch: epoch_of(sample),
            token_length: sample.get("token_length").and_then(Json::as_f64),
            agent_turns: sample.get("agent_turns").and_then(Json::as_f64),
            agent_tool_calls: sample.get("agent_tool_calls").and_then(Json::as_f64),
            turn_outputs,
            task_answers: sample.get("task_answers").map(Answers::from_json),
            node_status,
            first_breaks: sample.get("first_breaks").and_then(Json::as_array).into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            requests: sample.get("requests").and_then(Json::as_array).map(|list| list.iter().map(request_entry).collect()),
            usage: counts(sample.get("usage")),
            repairs: counts(sample.get("repairs")),
            strategy: strategy_spec(sample),
            instance_key: key,
        }
    }

    /// True once the sample has ended (any status but `in_progress`).
    pub fn is_finished(&self) -> bool {
        self.status.as_ref().is_some_and(|s| *s != ResultStatus::InProgress)
    }

    /// The `agent_status` as written (`""` when there is none).
    pub fn status_name(&self) -> &str {
        self.status.as_ref().map_or("", ResultStatus::as_str)
    }

    /// One `usage` total by name.
    pub fn usage_of(&self, key: &str) -> Option<u64> {
        self.usage.as_ref()?.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

/// The sample's `transcript`, each message read (`None` when the file records none). Apart from
/// [`ResultRecord::parse`], which leaves it out: lists and tallies never need it.
pub fn transcript_entries(sample: &Json) -> Option<Vec<TranscriptEntry>> {
    sample.get("transcript").and_then(Json::as_array).map(|list| list.iter().map(message_entry).collect())
}

/// Calls `visit` on every text of a results sample a search looks through — prompt, error, answers, turn
/// outputs, and the transcript's contents, reasoning and tool calls — until it returns true. Nothing is
/// copied, so searching a large file stays a scan.
pub fn any_text(sample: &Json, visit: &mut dyn FnMut(&str) -> bool) -> bool {
    let mut found = |v: Option<&Json>| v.and_then(Json::as_str).is_some_and(|s| visit(s));
    if found(sample.get("prompt")) || found(sample.get("agent_error")) {
        return true;
    }
    if let Some(answers) = sample.get("task_answers").and_then(Json::as_object) {
        if answers.values().any(|a| found(a.get("answer")) || found(Some(a))) {
            return true;
        }
    }
    let outputs: Box<dyn Iterator<Item = &Json>> = match sample.get("turn_outputs") {
        Some(Json::Object(map)) => Box::new(map.values()),
        Some(Json::Array(list)) => Box::new(list.iter()),
        _ => Box::new(std::iter::empty()),
    };
    for text in outputs {
        if found(Some(text)) {
            return true;
        }
    }
    sample.get("transcript").and_then(Json::as_array).into_iter().flatten().any(|m| {
        found(m.get("content"))
            || found(m.get("reasoning"))
            || m.get("tool_calls").and_then(Json::as_array).into_iter().flatten().any(|c| {
                let function = c.get("function");
                let field = |key: &str| c.get(key).or_else(|| function.and_then(|f| f.get(key)));
                found(field("arguments")) || found(field("name"))
            })
    })
}

/// The few fields the run's tallies and summary read, without reading the rest of the record (they are read
/// for every sample each time a results file is written).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub correct: Option<bool>,
    pub token_length: Option<f64>,
    pub agent_turns: Option<f64>,
    pub agent_tool_calls: Option<f64>,
}

/// The [`Counts`] of a results sample.
pub fn counts_of(sample: &Json) -> Counts {
    let number = |key: &str| sample.get(key).and_then(Json::as_f64);
    Counts { correct: sample.get("correct").and_then(Json::as_bool), token_length: number("token_length"), agent_turns: number("agent_turns"), agent_tool_calls: number("agent_tool_calls") }
}

/// How a results sample ended (`None` without an `agent_status`), without reading the rest of the record.
pub fn status_of(sample: &Json) -> Option<ResultStatus> {
    let error = sample.get("agent_error").and_then(Json::as_str);
    sample.get("agent_status").and_then(Json::as_str).map(|s| ResultStatus::parse(s, error))
}

/// True when two records (a result and its dataset sample) carry the same prompt.
pub fn same_prompt(a: &Json, b: &Json) -> bool {
    a.get("prompt") == b.get("prompt")
}

/// True once a results sample has ended (any status but `in_progress`).
pub fn is_finished(sample: &Value) -> bool {
    sample.get("agent_status").and_then(Value::as_str).is_some_and(|s| s != "in_progress")
}

/// The attempt a results (or dataset) sample is: its `epoch` field, 0 when absent.
pub fn epoch_of(sample: &Value) -> usize {
    sample.get("epoch").and_then(Value::as_u64).map(|e| e as usize).unwrap_or(0)
}

/// `sample` marked as attempt `epoch`; epoch 0 leaves it unchanged, so single-epoch files carry no new field.
pub fn with_epoch(sample: &Value, epoch: usize) -> Value {
    let mut out = sample.clone();
    if epoch > 0 {
        if let Some(map) = out.as_object_mut() {
            map.insert("epoch".into(), json!(epoch));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::agent::{ImagePart, Role, ToolCall};

    fn picture(label: &str) -> ImagePart {
        ImagePart { url: "data:image/png;base64,iVBORw0KGgo=".into(), width: 4, height: 3, label: label.into() }
    }

    #[track_caller]
    fn check(messages: &[Message], expected: &str) {
        assert_eq!(transcript_json(messages).to_string(), expected);
    }

    #[test]
    fn plain_messages_keep_their_exact_output() {
        let mut assistant = Message::new(Role::Assistant, "<b>15</b>");
        assistant.reasoning = Some("5*3".into());
        assistant.tool_calls = vec![ToolCall { id: "c1".into(), name: "calculator".into(), arguments: "[\"5*3\"]".into() }];
        let mut tool = Message::new(Role::Tool, "15");
        tool.tool_call_id = Some("c1".into());
        tool.name = Some("calculator".into());
        let repair = Message::new(Role::User, "answer").with_purpose("repair:cutoff");
        check(
            &[Message::new(Role::System, "s"), assistant, tool, repair],
            concat!(
                r#"[{"role":"system","content":"s"},"#,
                r#"{"role":"assistant","content":"<b>15</b>","reasoning":"5*3","tool_calls":[{"id":"c1","name":"calculator","arguments":"[\"5*3\"]"}]},"#,
                r#"{"role":"tool","content":"15","tool_call_id":"c1","name":"calculator"},"#,
                r#"{"role":"user","content":"answer","purpose":"repair:cutoff"}]"#
            ),
        );
    }

    #[test]
    fn a_message_sent_with_pictures_counts_them_without_copying_them() {
        let mut prompt = Message::new(Role::User, "Task 1: read the picture.");
        prompt.images = vec![picture("Image 1 (Task 1):"), picture("Image 2 (Task 2):")];
        check(&[prompt, Message::new(Role::User, "again")], r#"[{"role":"user","content":"Task 1: read the picture.","pictures":2},{"role":"user","content":"again"}]"#);
    }

    #[test]
    fn every_status_reads_back_as_written() {
        for status in [Status::Success, Status::MissingInitialCalculatorCall, Status::MissingRequestedTaskAnswers, Status::MissingBoth, Status::Timeout, Status::ContextLengthExceeded, Status::ApiError("HTTP 500".into())] {
            let error = match &status {
                Status::ApiError(m) => m.as_str(),
                _ => "",
            };
            assert_eq!(Status::parse(status.as_str(), error), Some(status.clone()));
        }
        assert_eq!(Status::parse("in_progress", ""), None);
        let read = |s: &str| ResultRecord::parse(&json!({"agent_status": s, "agent_error": "boom"})).status.unwrap();
        assert_eq!(read("api_error"), ResultStatus::Ended(Status::ApiError("boom".into())));
        assert!(read("api_error").is_api_error());
        assert_eq!(read("in_progress"), ResultStatus::InProgress);
        assert_eq!(read("invalid_sample").as_str(), "invalid_sample");
        assert_eq!(read("resting"), ResultStatus::Other("resting".into()));
        assert!(!ResultRecord::parse(&json!({"agent_status": "in_progress"})).is_finished());
        assert!(!ResultRecord::parse(&json!({"prompt": "p"})).is_finished(), "a dataset sample has not run");
    }

    #[test]
    fn a_reference_results_sample_reads_into_its_fields() {
        let file: Value = serde_json::from_str(include_str!("../../../tests/fixtures/reference/results_math_multichain.sample.json")).unwrap();
        let sample = file.get("samples").map_or(file.clone(), |s| s[0].clone());
        let record = ResultRecord::parse(&sample);
        assert_eq!(record.status_name(), sample["agent_status"].as_str().unwrap());
        assert_eq!(record.correct, sample["correct"].as_bool());
        assert_eq!(record.agent_turns, sample["agent_turns"].as_f64());
        let turns = record.turn_outputs.as_ref().unwrap();
        assert_eq!(turns.len(), sample["turn_outputs"].as_object().unwrap().len());
        assert!(turns.windows(2).all(|w| w[0].0 < w[1].0), "turn order, not key order (\"10\" sorts before \"2\")");
        assert_eq!(record.task_answers.as_ref().unwrap().get("task_8_out").map(|a| a.answer.clone()), sample["task_answers"]["task_8_out"]["answer"].as_str().map(str::to_string));
        assert_eq!(record.requests, None, "the reference keeps no request log");
        assert!(record.instance_key.is_some());
    }

    #[test]
    fn our_record_reads_back_what_result_sample_wrote() {
        let sample = json!({"prompt": "Task 1: task_1_out", "ground_truth": 1, "task_name": "T", "task_id": 3, "sample_idx": 0,
            "agent_status": "success", "correct": true, "turn_outputs": ["a", "b"], "node_status": {"task_1_out": "correct"},
            "first_breaks": [], "strategy": "window", "strategy_params": {"exchanges": 4}, "epoch": 2,
            "requests": [{"turn": 0, "kind": "turn", "messages": 2, "prompt_tokens_estimated": 90, "prompt_tokens_reported": 100, "completion_tokens": 5, "latency_ms": 7},
                         {"turn": 1, "kind": "summary", "messages": 3, "prompt_tokens_estimated": 40, "prompt_tokens_reported": null, "completion_tokens": 2, "latency_ms": 3}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5}, "repairs": {"initial_tool": 1, "final_answer": 0, "cutoff": 0},
            "transcript": [{"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "function": {"name": "calculator", "arguments": "[]"}}]},
                           {"role": "tool", "content": "2", "tool_call_id": "c1", "name": "calculator", "pictures": 1}]});
        let record = ResultRecord::parse(&sample);
        assert_eq!((record.epoch, record.instance_key.as_deref()), (2, Some("3|\"T\"|0")));
        assert_eq!(record.turn_outputs, Some(vec![(0, "a".into()), (1, "b".into())]));
        assert_eq!(record.node_status, Some(vec![("task_1_out".into(), NodeStatus::Correct)]));
        assert_eq!(record.strategy.as_deref(), Some("window:exchanges=4"));
        let requests = record.requests.as_ref().unwrap();
        assert_eq!((requests[0].prompt_tokens(), requests[1].prompt_tokens(), requests[1].is_turn()), (Some(100), Some(40), false));
        assert_eq!((record.usage_of("prompt_tokens"), record.usage_of("cached_prompt_tokens")), (Some(100), None));
        let transcript = transcript_entries(&sample).unwrap();
        assert_eq!(transcript[0].tool_calls, [("c1".to_string(), "calculator".to_string(), json!("[]"))]);
        assert_eq!((transcript[1].name.as_deref(), transcript[1].pictures), (Some("calculator"), Some(1)));
        let mut seen = Vec::new();
        assert!(!any_text(&sample, &mut |t| {
            seen.push(t.to_string());
            false
        }));
        assert_eq!(seen, ["Task 1: task_1_out", "a", "b", "x", "[]", "calculator", "2"]);
    }
}
