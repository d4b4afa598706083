//! The plan of a run: which samples still need a result. A run continues a previous results file only when
//! that file was made with the same settings (`continue_from`, which names the file and the first setting that
//! differs); its finished samples, and those a journal kept, are merged in by `Run::merge` after a check that
//! each still belongs to the same prompt. "Retry failed" forgets the samples the endpoint gave up on
//! (`is_failed`) so they run again.

use serde_json::{json, Value};

use crate::engine::agent::strategy::Strategy;
use crate::engine::results::{status_of, strategy_spec, ResultStatus, RunHeader};

/// The settings a continued run must share with the file it continues (besides the strategy).
const SAME_SETTINGS: [&str; 4] = ["model", "max_tokens", "temperature", "require_initial_calculator_call"];

/// Checks that `previous` (the results file at `source`) was made with the settings of `header` and `strategy`,
/// carries its system prompt, start times and adaptations over into `header`, and returns its samples (index,
/// sample) for `Run::merge`. Refuses, naming `source` and the setting, a file that is not a results file or was
/// made otherwise.
pub fn continue_from(source: &str, previous: &Value, header: &mut RunHeader, strategy: &Strategy) -> Result<Vec<(usize, Value)>, String> {
    let summary = previous.get("summary").cloned().unwrap_or(json!({}));
    let Some(old_params) = summary.get("generation_params") else {
        return Err(format!("{source} exists and is not a results file; refusing to overwrite it"));
    };
    let stored = strategy_spec(old_params);
    if stored.as_deref() != Some(strategy.to_string().as_str()) {
        return Err(format!("{source}: cannot continue, the strategy was {} and is now {strategy}", stored.as_deref().unwrap_or("not recorded")));
    }
    for key in SAME_SETTINGS {
        let (was, now) = (old_params.get(key), header.generation_params.get(key));
        if was != now {
            let (was, now) = (was.unwrap_or(&Value::Null), now.unwrap_or(&Value::Null));
            return Err(format!("{source}: cannot continue, `{key}` was {was} and is now {now}"));
        }
    }
    if let Some(stored) = summary.get("system_prompt").and_then(Value::as_str) {
        header.system_prompt = stored.to_string();
    }
    header.adaptations = summary.get("adaptations").cloned().unwrap_or(Value::Null);
    let mut start_times: Vec<String> =
        summary.get("start_times").and_then(Value::as_array).map(|t| t.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default();
    start_times.append(&mut header.start_times);
    header.start_times = start_times;
    Ok(previous.get("samples").and_then(Value::as_array).cloned().unwrap_or_default().into_iter().enumerate().collect())
}

/// The samples of a results file while its run is unfinished: each finished sample's result, or its dataset
/// sample marked `in_progress`, so every reader sees a stopped or running run as unfinished, never as a smaller
/// finished one.
pub fn run_samples(dataset: &[Value], finished: &[Option<Value>]) -> Vec<Value> {
    dataset
        .iter()
        .enumerate()
        .map(|(i, sample)| match finished.get(i) {
            Some(Some(result)) => result.clone(),
            _ => {
                let mut pending = sample.clone();
                if let Some(map) = pending.as_object_mut() {
                    map.insert("agent_status".into(), json!("in_progress"));
                }
                pending
            }
        })
        .collect()
}

/// True when a finished sample failed for a reason other than the model's answers: the endpoint gave up
/// (`api_error`). Those, and only those, are what "retry failed samples only" runs again.
pub fn is_failed(result: &Value) -> bool {
    status_of(result).is_some_and(|s| s.is_api_error())
}

/// True when a finished sample counts as explicitly failed in a run's tally: the endpoint gave up, or the sample
/// could not be read.
pub fn failed_outright(result: &Value) -> bool {
    status_of(result).is_some_and(|s| s.is_api_error() || s == ResultStatus::InvalidSample)
}
