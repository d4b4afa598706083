//! `arbigraph import-inspect` on the Inspect AI logs of the ArbiGraph task in `tests/fixtures/inspect/` (a JSON
//! log of a baseline run and a `.eval` archive of a chain run, both against the probe): the results file holds
//! every sample with its transcript and our grades, which equal the log's scores; a log of another task, a log
//! cut short and a log whose samples are not the dataset's are refused, with nothing written.

use crate::support::{arbigraph, fixture, scratch};
use serde_json::Value;
use std::path::Path;

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("results written")).expect("results are JSON")
}

/// Imports `log` (with `extra` flags) into `output`: (exit code, stderr).
fn import(log: &Path, output: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["import-inspect", log.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", output.to_str().unwrap()]);
    let (code, _, stderr) = arbigraph(&args);
    (code, stderr)
}

/// Every sample's verdict equals the log's score, per sample; returns the samples.
fn check_against_log_scores(results: &Value, expected_samples: usize) -> Vec<Value> {
    let samples = results["samples"].as_array().expect("samples").clone();
    assert_eq!(samples.len(), expected_samples);
    for (i, sample) in samples.iter().enumerate() {
        let score = sample["inspect_score"]["correct"].as_f64().expect("the log's score is kept");
        assert_eq!(sample["correct"].as_bool(), Some(score >= 0.5), "sample {i}: our grade equals the log's score");
        let nodes = sample["node_status"].as_object().expect("per-node grading");
        let share = nodes.values().filter(|s| *s == "correct").count() as f64 / nodes.len() as f64;
        assert!((share - sample["inspect_score"]["nodes"].as_f64().unwrap()).abs() < 1e-9, "sample {i}: node share equals the log's");
    }
    assert_eq!(results["summary"]["imported_from"]["scores_disagreeing"].as_array().map(Vec::len), Some(0));
    samples
}

#[test]
fn an_inspect_json_log_and_an_eval_archive_import_with_grades_equal_to_the_log_scores() {
    let dir = scratch("inspect-import");
    let output = dir.join("baseline.json");
    let (code, stderr) = import(&fixture("inspect/baseline.log.json"), &output, &["--dataset", fixture("inspect/baseline.dataset.json").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let results = read(&output);
    let samples = check_against_log_scores(&results, 2);
    let transcript = samples[0]["transcript"].as_array().expect("a transcript");
    let roles: Vec<&str> = transcript.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    assert_eq!(transcript[2]["tool_calls"][0]["name"], "calculator");
    assert_eq!(transcript[3]["tool_call_id"], "probe_0");
    assert_eq!(samples[0]["agent_status"], "success");
    assert!(samples[0]["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(results["summary"]["generation_params"]["model"], "openai-api/probe/probe");
    assert_eq!(results["summary"]["num_finished"], 2);
    // The imported file grades with `arbigraph grade` like any of ours.
    let (code, stdout, stderr) = arbigraph(&["grade", output.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2/2") || stdout.contains("100.0"), "{stdout}");

    let output = dir.join("chain.json");
    let (code, stderr) = import(&fixture("inspect/chain.log.eval"), &output, &["--dataset", fixture("inspect/chain.dataset.json").to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let samples = check_against_log_scores(&read(&output), 2);
    assert_eq!(samples[0]["node_status"].as_object().map(|m| m.len()), Some(4), "a 4-task chain: four graded nodes");
    assert_eq!(samples[0]["turn_outputs"].as_object().map(|m| m.is_empty()), Some(false));
}

#[test]
fn a_log_of_another_task_a_truncated_log_and_samples_not_of_the_dataset_are_refused() {
    let dir = scratch("inspect-import-refused");
    let output = dir.join("out.json");
    // Another task.
    let mut log: Value = serde_json::from_str(&std::fs::read_to_string(fixture("inspect/baseline.log.json")).unwrap()).unwrap();
    log["eval"]["task"] = "gsm8k".into();
    log["eval"]["task_registry_name"] = "inspect_evals/gsm8k".into();
    let other = dir.join("other.json");
    std::fs::write(&other, log.to_string()).unwrap();
    let (code, stderr) = import(&other, &output, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("other.json: eval.task: a log of the task `inspect_evals/gsm8k`, not of the ArbiGraph task"), "{stderr}");
    assert!(stderr.contains("nothing written") && !output.exists());
    // A JSON log cut short.
    let text = std::fs::read_to_string(fixture("inspect/baseline.log.json")).unwrap();
    let cut = dir.join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let (code, stderr) = import(&cut, &output, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cut.json: the log ends early (truncated?) at line"), "{stderr}");
    assert!(!output.exists());
    // An `.eval` archive cut short.
    let bytes = std::fs::read(fixture("inspect/chain.log.eval")).unwrap();
    let cut = dir.join("cut.eval");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (code, stderr) = import(&cut, &output, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cut.eval: not a readable `.eval` archive (truncated?)"), "{stderr}");
    assert!(!output.exists());
    // Samples that are not the dataset's: the chain run against the baseline dataset.
    let (code, stderr) = import(&fixture("inspect/chain.log.eval"), &output, &["--dataset", fixture("inspect/baseline.dataset.json").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("chain.log.eval: samples/1_epoch_1.json (sample id 1, epoch 1): not the dataset's sample 0: the prompts differ"), "{stderr}");
    assert!(!output.exists());
    // A sample whose input is not the prompt of the dataset sample it carries.
    log["eval"]["task"] = "arbigraph".into();
    log["eval"]["task_registry_name"] = "arbigraph/arbigraph".into();
    log["samples"][1]["input"] = "something else".into();
    let swapped = dir.join("swapped.json");
    std::fs::write(&swapped, log.to_string()).unwrap();
    let (code, stderr) = import(&swapped, &output, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("swapped.json: samples[1] (sample id 2, epoch 1): the sample's input is not the prompt of the dataset sample it carries"), "{stderr}");
    assert!(!output.exists());
}
