//! `arbigraph eval --shard I/N`: what the command line adds to the engine's split (`engine::results::Shard`) —
//! a results file continued by a shard run must be that same shard of that same dataset.

use serde_json::Value;

/// Refuses to continue `previous` (the results file at `source`) with a run whose `summary.shard` is `shard`
/// unless both are the same shard of the same dataset, or both are whole runs.
pub fn check_same_shard(source: &str, previous: &Value, shard: &Value) -> Result<(), String> {
    let stored = previous.get("summary").and_then(|s| s.get("shard")).cloned().unwrap_or(Value::Null);
    let describe = |s: &Value| match (s.get("index"), s.get("count")) {
        (Some(i), Some(n)) => format!("shard {i}/{n} of {} samples", s.get("dataset_samples").unwrap_or(&Value::Null)),
        _ => "the whole dataset".to_string(),
    };
    let same = ["index", "count", "dataset_samples", "dataset_fingerprint"].iter().all(|key| stored.get(key) == shard.get(key));
    if same {
        Ok(())
    } else {
        Err(format!("{source}: cannot continue, it holds {} and this run is {}", describe(&stored), describe(shard)))
    }
}
