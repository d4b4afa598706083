//! Results-file records (spec §7.6): the dataset sample copied unchanged plus the reference's fields
//! (`correct`, `token_length`, `agent_turns`, `agent_tool_calls`, `turn_outputs`, `expected_task_outputs`,
//! `task_answers`, `agent_status`) and ours under new keys (`transcript`, `node_status`, `first_breaks`,
//! `strategy`, `acg_record`, `timings`, `usage`, `repairs`, `agent_error`, `lenient_correct`), and the summary.
//! No API key is ever passed in here, so none can be written.

use super::{AgentConfig, AgentRecord, Message, Status};
use serde_json::{json, Map, Value};

/// The transcript as JSON: every message with role, content and, where present, reasoning, tool calls,
/// the answered call id and the harness's purpose for it.
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
                v
            })
            .collect(),
    )
}

/// The results record of one sample: `sample` copied with the result fields set. `timings` comes from the driver.
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
    if let Some(acg) = &record.acg {
        out.insert("acg_record".into(), acg.to_json());
    }
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
            "estimated_turns": record.usage.estimated_turns
        }),
    );
    let mut timings = timings;
    if timings.is_object() {
        timings["latency_ms"] = json!(record.latencies_ms);
    }
    out.insert("timings".into(), timings);
    Value::Object(out)
}

/// `generation_params` of the summary (never an API key: only what the config and the driver name).
pub fn generation_params(config: &AgentConfig, model: &str, base_url: &str) -> Value {
    let mut params = json!({
        "temperature": config.temperature,
        "top_p": config.top_p,
        "max_tokens": config.max_tokens,
        "repair_turn_max_tokens": config.repair_max_tokens,
        "max_model_len": config.max_model_len,
        "model": model,
        "max_agent_turns": config.max_turns,
        "require_initial_calculator_call": config.require_initial_calculator_call,
        "initial_tool_repair_attempts": config.budgets.initial_tool,
        "final_answer_repair_attempts": config.budgets.final_answer,
        "cutoff_repair_attempts": config.budgets.cutoff,
        "strategy": config.strategy.name(),
        "base_url": base_url
    });
    if let super::context::Strategy::Acg { budget_tokens } = config.strategy {
        params["acg_budget_tokens"] = json!(budget_tokens);
    }
    params
}

/// The reference's summary aggregates over finished samples: `overall_accuracy`, `average_token_length`,
/// `average_tool_calls`, `average_turns`, `tool_use_rate`.
pub fn aggregates(samples: &[Value]) -> Map<String, Value> {
    let n = samples.len();
    let mut map = Map::new();
    let correct = samples.iter().filter(|s| s.get("correct") == Some(&Value::Bool(true))).count();
    map.insert("overall_accuracy".into(), json!(if n == 0 { 0.0 } else { correct as f64 / n as f64 }));
    let with_tokens: Vec<&Value> = samples.iter().filter(|s| s.get("token_length").is_some_and(|t| !t.is_null())).collect();
    let mean = |key: &str| {
        let m = with_tokens.len();
        if m == 0 {
            Value::Null
        } else {
            json!(with_tokens.iter().map(|s| s.get(key).and_then(Value::as_f64).unwrap_or(0.0)).sum::<f64>() / m as f64)
        }
    };
    map.insert("average_token_length".into(), mean("token_length"));
    map.insert("average_tool_calls".into(), mean("agent_tool_calls"));
    map.insert("average_turns".into(), mean("agent_turns"));
    let users = samples.iter().filter(|s| s.get("agent_tool_calls").and_then(Value::as_u64).unwrap_or(0) >= 1).count();
    map.insert("tool_use_rate".into(), json!(if n == 0 { 0.0 } else { users as f64 / n as f64 }));
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_follow_the_reference_definitions() {
        let samples = vec![
            json!({"correct": true, "token_length": 10, "agent_tool_calls": 2, "agent_turns": 3}),
            json!({"correct": false, "token_length": 30, "agent_tool_calls": 0, "agent_turns": 1}),
        ];
        let a = aggregates(&samples);
        assert_eq!(a["overall_accuracy"], json!(0.5));
        assert_eq!(a["average_token_length"], json!(20.0));
        assert_eq!(a["average_turns"], json!(2.0));
        assert_eq!(a["tool_use_rate"], json!(0.5));
    }
}
