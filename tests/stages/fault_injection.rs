//! `arbigraph eval` against our misbehaving endpoint (`tools/fault_server.py`: 429 with Retry-After, 500s,
//! hangs past the timeout, dropped connections, malformed JSON bodies, malformed tool arguments): every one of
//! 200 samples ends graded or explicitly failed, none lost or duplicated, the API key is sent but never
//! written, and a run killed halfway resumes to the same final results.

#[path = "../support/mod.rs"]
mod support;
use support::{arbigraph_binary, scratch, start_fault_server, Killer};

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SECRET: &str = "sk-fault-test-4f1c9a7e";
const SAMPLES: usize = 200;

fn start_server(delay_ms: u32) -> (Killer, u16) {
    start_fault_server(&["--delay-ms", &delay_ms.to_string(), "--hang-secs", "2"])
}

/// A synthetic baseline dataset with known ground truths.
fn write_dataset(dir: &Path) -> (PathBuf, Vec<Value>) {
    let samples: Vec<Value> = (0..SAMPLES)
        .map(|i| {
            let x = (i as i64 * 37) % 201 - 100;
            let k = (i as i64 % 9) + 2;
            let c = (i as i64 * 7) % 50;
            json!({
                "task_id": i % 10, "task_name": format!("Synthetic{}", i % 10), "sample_idx": i,
                "prompt": format!("Define task_1_input = {x}.\nTask 1:\nCompute task_1_input * {k} + {c} and call the result task_1_out.\n"),
                "ground_truth": x * k + c
            })
        })
        .collect();
    let path = dir.join("dataset.json");
    let file = json!({"summary": {"mode": "math", "num_tasks": 10, "num_samples_per_task": 20}, "samples": samples});
    std::fs::write(&path, file.to_string()).unwrap();
    (path, samples)
}

fn eval_command(dataset: &Path, output: &Path, port: u16, concurrency: usize) -> Command {
    let mut command = Command::new(arbigraph_binary());
    command
        .arg("eval")
        .arg("--dataset")
        .arg(dataset)
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1"), "--model", "fault-model"])
        .args(["--api-key-env", "ARBIGRAPH_FAULT_TEST_KEY"])
        .args(["--concurrency", &concurrency.to_string(), "--timeout-secs", "1", "--max-attempts", "6"])
        .args(["--backoff-ms", "20", "--max-backoff-ms", "1200"])
        .arg("-o")
        .arg(output)
        .env("ARBIGRAPH_FAULT_TEST_KEY", SECRET);
    command
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn finished(file: &Value) -> usize {
    file["samples"].as_array().map(|s| s.iter().filter(|s| s["agent_status"].is_string()).count()).unwrap_or(0)
}

/// Every dataset sample appears once, at its index, finished: graded (`correct` is a bool) or explicitly failed.
fn assert_complete(results: &Value, dataset: &[Value]) {
    let samples = results["samples"].as_array().expect("samples");
    assert_eq!(samples.len(), dataset.len(), "no sample lost or duplicated");
    for (i, (got, want)) in samples.iter().zip(dataset).enumerate() {
        assert_eq!(got["prompt"], want["prompt"], "sample {i} is in its place");
        assert_eq!(got["sample_idx"], json!(i));
        let status = got["agent_status"].as_str().unwrap_or_else(|| panic!("sample {i} unfinished"));
        assert_ne!(status, "in_progress");
        assert!(got["correct"].is_boolean(), "sample {i} graded");
        if status == "api_error" {
            assert!(got["agent_error"].is_string(), "a failed sample says why");
        }
    }
}

#[test]
fn a_flaky_endpoint_loses_no_sample_and_a_killed_run_resumes_to_the_same_results() {
    let dir = scratch("fault-injection");
    let (dataset_path, dataset) = write_dataset(&dir);

    // 1. A full run through every kind of fault.
    let (_server, port) = start_server(0);
    let full = dir.join("full.json");
    let started = Instant::now();
    let out = eval_command(&dataset_path, &full, port, 8).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1), "{stderr}");
    eprintln!("full run: {:.1} s", started.elapsed().as_secs_f64());
    let results = read(&full);
    assert_complete(&results, &dataset);
    let samples = results["samples"].as_array().unwrap();
    let correct = samples.iter().filter(|s| s["correct"] == true).count();
    let failed = samples.iter().filter(|s| s["agent_status"] == "api_error").count();
    assert_eq!(failed, 0, "retries cover every injected fault");
    assert!((150..SAMPLES).contains(&correct), "the scripted model is wrong on some prompts: {correct}");
    for s in samples {
        // The verdict agrees with the collected answer and the known truth.
        let answer: i64 = s["task_answers"]["task_1_out"]["answer"].as_str().and_then(|a| a.parse().ok()).unwrap_or(i64::MIN);
        assert_eq!(s["correct"] == true, Some(answer) == s["ground_truth"].as_i64(), "{}", s["prompt"]);
        assert!(s["agent_tool_calls"].as_u64().unwrap() >= 1);
        assert!(s["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    }
    let stats: Value = {
        let body = ureq_free_get(port, "/stats");
        serde_json::from_str(&body).unwrap()
    };
    for fault in ["429", "500", "hang", "drop", "badjson"] {
        assert!(stats["faults"][fault].as_u64().unwrap_or(0) > 0, "fault {fault} was exercised: {stats}");
    }
    assert_eq!(stats["auth"], json!([format!("Bearer {SECRET}")]), "the key is sent as a bearer token");
    let text = std::fs::read_to_string(&full).unwrap();
    assert!(!text.contains(SECRET) && !stderr.contains(SECRET) && !String::from_utf8_lossy(&out.stdout).contains(SECRET), "the key is never written");
    // Malformed tool arguments were answered with a tool error, then the sample went on.
    assert!(samples.iter().any(|s| s["transcript"].as_array().unwrap().iter().any(|m| m["role"] == "tool" && m["content"].as_str().unwrap().starts_with("Error:"))));

    // 2. The same run, killed halfway, then continued with the same command.
    let (_slow_server, slow_port) = start_server(25);
    let resumed = dir.join("resumed.json");
    let mut child = Killer(eval_command(&dataset_path, &resumed, slow_port, 2).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the first half did not finish in time");
        std::thread::sleep(Duration::from_millis(20));
        if let Ok(text) = std::fs::read_to_string(&resumed) {
            if let Ok(file) = serde_json::from_str::<Value>(&text) {
                if finished(&file) >= 60 {
                    break;
                }
            }
        }
    }
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let partial = read(&resumed);
    let done_before = finished(&partial);
    assert!((60..SAMPLES).contains(&done_before), "killed halfway: {done_before} finished");
    let kept: Vec<(usize, Value)> =
        partial["samples"].as_array().unwrap().iter().enumerate().filter(|(_, s)| s["agent_status"].is_string()).map(|(i, s)| (i, s["timings"].clone())).collect();

    let out = eval_command(&dataset_path, &resumed, slow_port, 8).output().unwrap();
    assert!(out.status.code() == Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let final_results = read(&resumed);
    assert_complete(&final_results, &dataset);
    assert_eq!(final_results["summary"]["start_times"].as_array().unwrap().len(), 2, "one start time per (re)start");
    for (i, timings) in kept {
        assert_eq!(final_results["samples"][i]["timings"], timings, "finished sample {i} was kept, not redone");
    }
    for (i, (a, b)) in samples.iter().zip(final_results["samples"].as_array().unwrap()).enumerate() {
        assert_eq!((&a["correct"], &a["agent_status"], &a["task_answers"]), (&b["correct"], &b["agent_status"], &b["task_answers"]), "sample {i}");
    }
}

/// A bare HTTP GET over std (the test needs no HTTP client of its own).
fn ureq_free_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default()
}
