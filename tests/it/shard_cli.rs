//! Runs split and merged through the command line: `arbigraph eval --shard I/N` against two `probe-server`
//! replicas (and one that is down), `arbigraph merge` of the parts, compared sample for sample with one
//! unsharded run; merges that must be refused (a missing shard, a doubled one, parts of another dataset).

use crate::strategies_cli::{start_probe, ProbeServer};
use crate::strategies_probe::chain;
use crate::support::{arbigraph, free_port, scratch};
use serde_json::{json, Value};
use std::path::Path;

fn url(server: &ProbeServer) -> String {
    format!("http://127.0.0.1:{}/v1", server.port)
}

/// `arbigraph eval` of `dataset` into `output` with `extra` flags (one or more `--base-url` among them).
fn eval(dataset: &Path, output: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["eval", "--dataset", dataset.to_str().unwrap(), "--model", "probe", "--concurrency", "2", "--backoff-ms", "5", "--max-backoff-ms", "20"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--max-tokens", "1024", "--repair-max-tokens", "2048", "-o", output.to_str().unwrap()]);
    let (code, _, stderr) = arbigraph(&args);
    (code, stderr)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("results written")).expect("results are JSON")
}

/// The samples of a results file without what depends on the clock (timings, per-request latencies).
fn timeless(results: &Value) -> Vec<Value> {
    let mut samples = results["samples"].as_array().expect("a samples list").clone();
    for sample in &mut samples {
        let map = sample.as_object_mut().expect("a sample object");
        map.remove("timings");
        if let Some(requests) = map.get_mut("requests").and_then(Value::as_array_mut) {
            for request in requests {
                request.as_object_mut().expect("a request object").remove("latency_ms");
            }
        }
    }
    samples
}

#[test]
fn four_shards_on_two_replicas_merge_into_the_unsharded_run_and_bad_merges_are_refused() {
    let dir = scratch("shard-cli");
    let dataset = dir.join("chain.json");
    std::fs::write(&dataset, json!({"summary": {"mode": "chain"}, "samples": chain(4, 9)}).to_string()).unwrap();
    let (a, b) = (start_probe(&dataset, 0), start_probe(&dataset, 0));
    let whole = dir.join("whole.json");
    let (code, stderr) = eval(&dataset, &whole, &["--base-url", &url(&a)]);
    assert_eq!(code, 0, "{stderr}");

    // Shard 3 lists first a replica nobody listens on: its first sample starts there, fails, and is retried on the
    // next replica.
    let down = format!("http://127.0.0.1:{}/v1", free_port());
    let mut parts = Vec::new();
    for i in 0..4 {
        let part = dir.join(format!("part-{i}.json"));
        let shard = format!("{i}/4");
        let (a, b) = (url(&a), url(&b));
        let mut flags = vec!["--shard", &shard];
        if i == 3 {
            flags.extend(["--base-url", &down]);
        }
        flags.extend(["--base-url", &a, "--base-url", &b]);
        let (code, stderr) = eval(&dataset, &part, &flags);
        assert_eq!(code, 0, "shard {i}: {stderr}");
        let shard = &read(&part)["summary"]["shard"];
        let expected: Vec<usize> = (i..9).step_by(4).collect();
        assert_eq!(shard["sample_indices"], json!(expected), "shard {i} holds samples k with k mod 4 = {i}");
        assert_eq!((shard["index"].as_u64(), shard["count"].as_u64(), shard["dataset_samples"].as_u64()), (Some(i as u64), Some(4), Some(9)));
        parts.push(part);
    }
    let part3 = read(&parts[3]);
    assert_eq!(part3["summary"]["generation_params"]["base_urls"].as_array().map(Vec::len), Some(3), "every replica is recorded");
    let first = &part3["samples"][0];
    assert_eq!(first["agent_status"], "success", "the replica that is down cost no sample");
    let (attempts, requests) = (first["timings"]["http_attempts"].as_u64().unwrap(), first["requests"].as_array().unwrap().len() as u64);
    assert_eq!(attempts, requests + 1, "one attempt went to the replica that is down, then every request succeeded");

    let merged = dir.join("merged.json");
    let names: Vec<&str> = parts.iter().rev().map(|p| p.to_str().unwrap()).collect();
    let (code, _, stderr) = arbigraph(&[&["merge"], &names[..], &["-o", merged.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{stderr}");
    let (merged, whole) = (read(&merged), read(&whole));
    assert_eq!(timeless(&merged), timeless(&whole), "the merged parts equal the unsharded run sample for sample");
    assert_eq!(merged["summary"]["num_finished"], 9);
    assert_eq!(merged["summary"]["overall_accuracy"], whole["summary"]["overall_accuracy"]);
    assert!(merged["summary"].get("shard").is_none(), "the merged file is a whole run");

    // A missing shard: its samples are named, and nothing is written.
    let refused = dir.join("refused.json");
    let (code, _, stderr) = arbigraph(&["merge", names[0], names[1], names[3], "-o", refused.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("samples no part holds: 1, 5 (shard 1/4 missing)"), "{stderr}");
    assert!(!refused.exists(), "nothing written");
    // A doubled shard: its samples and the files holding them are named.
    let copy = dir.join("part-2-again.json");
    std::fs::copy(&parts[2], &copy).unwrap();
    let (code, _, stderr) = arbigraph(&[&["merge"], &names[..], &[copy.to_str().unwrap(), "-o", refused.to_str().unwrap()]].concat());
    assert_eq!(code, 2);
    let (two, again) = (parts[2].display().to_string(), copy.display().to_string());
    assert!(stderr.contains(&format!("samples held by more than one part: 2, 6 (sample 2 is in {two} and {again})")), "{stderr}");
    assert!(!refused.exists(), "nothing written");
    // A part of another dataset (here: the first 8 samples only).
    let other = dir.join("other.json");
    let (code, stderr) = eval(&dataset, &other, &["--shard", "1/4", "--limit", "8", "--base-url", &url(&b)]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = arbigraph(&["merge", names[3], other.to_str().unwrap(), names[1], names[0], "-o", refused.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains(&format!("{}: the dataset is fnv1a64:", other.display())) && stderr.contains("(8 samples), but in"), "{stderr}");
    assert!(!refused.exists(), "nothing written");
    // A whole run is not a part.
    let (code, _, stderr) = arbigraph(&["merge", names[0], dir.join("whole.json").to_str().unwrap(), "-o", refused.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("whole.json: not a shard's results file: its summary has no `shard`"), "{stderr}");
}

#[test]
fn a_shard_flag_out_of_range_or_a_shard_run_continued_as_another_is_refused() {
    let dir = scratch("shard-cli-flags");
    let dataset = dir.join("chain.json");
    std::fs::write(&dataset, json!({"summary": {"mode": "chain"}, "samples": chain(4, 3)}).to_string()).unwrap();
    let output = dir.join("out.json");
    let (code, stderr) = eval(&dataset, &output, &["--shard", "4/4", "--base-url", "http://127.0.0.1:9/v1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`4/4`: the shard index must be below the count (shards are 0 to 3)"), "{stderr}");
    let (code, stderr) = eval(&dataset, &output, &["--shard", "3/4", "--base-url", "http://127.0.0.1:9/v1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--shard 3/4: the dataset has 3 samples, so this shard holds none"), "{stderr}");
    let server = start_probe(&dataset, 0);
    let (code, stderr) = eval(&dataset, &output, &["--shard", "0/2", "--base-url", &url(&server)]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr) = eval(&dataset, &output, &["--shard", "1/2", "--base-url", &url(&server)]);
    assert_eq!(code, 2);
    assert!(stderr.contains("out.json: cannot continue, it holds shard 0/2 of 3 samples and this run is shard 1/2 of 3 samples"), "{stderr}");
}

#[test]
fn shards_of_a_run_with_epochs_merge_attempt_by_attempt_into_the_unsharded_run() {
    let dir = scratch("shard-cli-epochs");
    let dataset = dir.join("chain.json");
    std::fs::write(&dataset, json!({"summary": {"mode": "chain"}, "samples": chain(4, 5)}).to_string()).unwrap();
    let server = start_probe(&dataset, 0);
    let whole = dir.join("whole.json");
    let (code, stderr) = eval(&dataset, &whole, &["--epochs", "2", "--base-url", &url(&server)]);
    assert_eq!(code, 0, "{stderr}");
    let mut parts = Vec::new();
    for i in 0..2 {
        let part = dir.join(format!("part-{i}.json"));
        let (code, stderr) = eval(&dataset, &part, &["--epochs", "2", "--shard", &format!("{i}/2"), "--base-url", &url(&server)]);
        assert_eq!(code, 0, "{stderr}");
        parts.push(part.to_str().unwrap().to_string());
    }
    let shard = &read(Path::new(&parts[1]))["summary"]["shard"];
    assert_eq!(shard["sample_indices"], json!([1, 3, 1, 3]), "one entry per attempt, epoch by epoch");
    let merged = dir.join("merged.json");
    let (code, _, stderr) = arbigraph(&["merge", &parts[1], &parts[0], "-o", merged.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(timeless(&read(&merged)), timeless(&read(&whole)), "ten attempts, in the unsharded run's order");
    let (code, _, stderr) = arbigraph(&["merge", &parts[0], "-o", merged.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("samples no part holds: 1, 3, 1 (epoch 1), 3 (epoch 1) (shard 1/2 missing)"), "{stderr}");
}
