//! The results file's `summary`: how the run was made (`generation_params`, the system prompt, start times, the
//! dataset it ran on) and the reference's aggregates over finished samples. Both drivers build it here, so a
//! file from the CLI and one from the browser carry the same keys. No key can be written: the endpoint's key is a
//! `Secret` that is never read here, and the base URL is written without userinfo or query.

use super::record::{counts_of, is_finished, Counts};
use super::redact::redact_url;
use crate::engine::agent::{AgentConfig, Endpoint};
use serde_json::{json, Map, Value};

/// How a run was made: everything in its summary except the aggregates.
#[derive(Clone, Debug, PartialEq)]
pub struct RunHeader {
    /// When each session of the run started (one entry per resume), ISO 8601.
    pub start_times: Vec<String>,
    /// Model, endpoint and loop settings (see [`generation_params`]).
    pub generation_params: Value,
    /// The system prompt every sample was sent.
    pub system_prompt: String,
    /// Where the samples came from (a file name, or a description of a generated set).
    pub dataset: String,
    /// The dataset's own `num_tasks`, `num_samples_per_task` and `mode` (kept as `dataset_mode`), when it had them.
    pub dataset_info: Map<String, Value>,
    /// What the run changed in its requests to suit the endpoint (`provider::RequestShape::notes_json`), written
    /// as `summary.adaptations` and read back when the run resumes.
    pub adaptations: Value,
    /// Which shard of a run this is (`Shard::summary`), written as `summary.shard`; `Null` for a whole run.
    pub shard: Value,
}

impl RunHeader {
    /// The header of a new run.
    pub fn new(config: &AgentConfig, endpoint: &Endpoint, dataset: &str, dataset_summary: &Value, started_at: String) -> RunHeader {
        let mut dataset_info = Map::new();
        for key in ["num_tasks", "num_samples_per_task"] {
            if let Some(v) = dataset_summary.get(key) {
                dataset_info.insert(key.into(), v.clone());
            }
        }
        if let Some(mode) = dataset_summary.get("mode") {
            dataset_info.insert("dataset_mode".into(), mode.clone());
        }
        RunHeader {
            start_times: vec![started_at],
            generation_params: with_provider(generation_params(config, &endpoint.model, &endpoint.profile().with_required_query(&endpoint.base_url)), endpoint),
            system_prompt: config.system_prompt.clone(),
            dataset: dataset.to_string(),
            dataset_info,
            adaptations: endpoint.shape().notes_json(),
            shard: Value::Null,
        }
    }

    /// The whole summary over `samples`: the header, the aggregates over the finished ones and `num_finished`.
    pub fn summary(&self, samples: &[Value]) -> Value {
        let finished: Vec<Value> = samples.iter().filter(|s| is_finished(s)).cloned().collect();
        let mut summary = Map::new();
        summary.insert("start_times".into(), json!(self.start_times));
        summary.insert("generation_params".into(), self.generation_params.clone());
        summary.insert("system_prompt".into(), json!(self.system_prompt));
        summary.insert("mode".into(), json!("agent"));
        summary.extend(self.dataset_info.clone());
        summary.insert("dataset".into(), json!(self.dataset));
        summary.insert("adaptations".into(), self.adaptations.clone());
        if !self.shard.is_null() {
            summary.insert("shard".into(), self.shard.clone());
        }
        summary.extend(aggregates(&finished));
        summary.insert("num_finished".into(), json!(finished.len()));
        Value::Object(summary)
    }

    /// The results file: `{"summary": …, "samples": […]}`.
    pub fn results_file(&self, samples: Vec<Value>) -> Value {
        json!({"summary": self.summary(&samples), "samples": samples})
    }
}

/// `generation_params` of the summary: the loop settings, the strategy with its parameters, the model and the
/// base URL without credentials.
pub fn generation_params(config: &AgentConfig, model: &str, base_url: &str) -> Value {
    json!({
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
        "strategy_params": config.strategy.params_json(),
        "base_url": redact_url(base_url)
    })
}

/// `params` with the endpoint's provider and wire added.
fn with_provider(mut params: Value, endpoint: &Endpoint) -> Value {
    params["provider"] = json!(endpoint.profile().key);
    params["wire"] = json!(endpoint.wire().as_str());
    params
}

/// The reference's summary aggregates over finished samples: `overall_accuracy`, `average_token_length`,
/// `average_tool_calls`, `average_turns`, `tool_use_rate`.
pub fn aggregates(samples: &[Value]) -> Map<String, Value> {
    let n = samples.len();
    let counts: Vec<Counts> = samples.iter().map(counts_of).collect();
    let mut map = Map::new();
    let correct = counts.iter().filter(|c| c.correct == Some(true)).count();
    map.insert("overall_accuracy".into(), json!(if n == 0 { 0.0 } else { correct as f64 / n as f64 }));
    let with_tokens: Vec<&Counts> = counts.iter().filter(|c| c.token_length.is_some()).collect();
    let mean = |field: fn(&Counts) -> Option<f64>| {
        let m = with_tokens.len();
        if m == 0 {
            Value::Null
        } else {
            json!(with_tokens.iter().map(|c| field(c).unwrap_or(0.0)).sum::<f64>() / m as f64)
        }
    };
    map.insert("average_token_length".into(), mean(|c| c.token_length));
    map.insert("average_tool_calls".into(), mean(|c| c.agent_tool_calls));
    map.insert("average_turns".into(), mean(|c| c.agent_turns));
    let users = counts.iter().filter(|c| c.agent_tool_calls.unwrap_or(0.0) >= 1.0).count();
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

    #[test]
    fn the_summary_has_the_same_keys_from_every_driver_and_no_credentials() {
        let config = AgentConfig::for_topology("chain");
        let endpoint = Endpoint {
            base_url: "https://user:pw@api.example.com/v1?key=sk-123".into(),
            model: "m".into(),
            api_key: crate::engine::agent::Secret::new("sk-123"),
            headers: Vec::new(),
            ..Endpoint::default()
        };
        let dataset = json!({"num_tasks": 40, "num_samples_per_task": 16, "mode": "math_chain"});
        let header = RunHeader::new(&config, &endpoint, "math_chain.json", &dataset, "2026-01-01T00:00:00".into());
        let samples = vec![json!({"agent_status": "success", "correct": true, "token_length": 4}), json!({"agent_status": "in_progress"})];
        let file = header.results_file(samples);
        let summary = &file["summary"];
        for key in ["start_times", "generation_params", "system_prompt", "mode", "num_tasks", "num_samples_per_task", "dataset_mode", "dataset", "overall_accuracy", "num_finished"] {
            assert!(summary.get(key).is_some(), "missing {key}");
        }
        assert_eq!(summary["num_finished"], json!(1));
        assert_eq!(summary["overall_accuracy"], json!(1.0));
        assert_eq!(summary["generation_params"]["base_url"], json!("https://api.example.com/v1"));
        assert!(!file.to_string().contains("sk-123") && !file.to_string().contains("pw@"));
        // Azure's base URL is written with the api-version its requests carry, the default one included.
        let azure = Endpoint { base_url: "https://r.openai.azure.com/openai/deployments/d".into(), provider: "azure".into(), ..endpoint };
        let header = RunHeader::new(&config, &azure, "math_chain.json", &dataset, "2026-01-01T00:00:00".into());
        assert_eq!(header.generation_params["base_url"], json!("https://r.openai.azure.com/openai/deployments/d?api-version=2024-10-21"));
    }
}
