//! One sample's results record: the dataset sample copied unchanged plus the reference's fields
//! (`correct`, `token_length`, `agent_turns`, `agent_tool_calls`, `turn_outputs`, `expected_task_outputs`,
//! `task_answers`, `agent_status`) and ours under new keys (`transcript`, `node_status`, `first_breaks`,
//! `strategy`, `strategy_params`, `acg_record` (the `acg-lite` record), `strategy_record` (the other strategies'
//! records), `requests` (one entry per request sent, auxiliary calls included), `timings`, `usage`, `repairs`,
//! `agent_error`, `lenient_correct`).

use crate::engine::agent::{AgentRecord, Message, RequestLog, Status};
use serde_json::{json, Map, Value};

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
}
