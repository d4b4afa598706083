//! A real small language model (`tools/local-llm/serve.sh`, Qwen2.5-Coder-0.5B behind an
//! OpenAI-compatible endpoint) run through `arbigraph eval` on three baseline-shaped instances with every
//! registered context strategy (the summary strategies with thresholds low enough to fire on such short runs).
//! Asserts the protocol — a tool call made and answered, answer collection run, every sample graded, usage and
//! every request recorded, auxiliary calls counted apart, the repair loop engaged — not the model's accuracy.
//! Every wait is bounded.

#[path = "../support/mod.rs"]
mod support;
use support::{arbigraph_binary, free_port};

use arbigraph_studio::engine::agent::strategy::registry;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Stops the model server (by the pid the script recorded) when dropped.
struct Server {
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(self.dir.join("server.pid")) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
    }
}

/// Runs a command to completion or kills it at the deadline.
fn run_bounded(mut command: Command, limit: Duration) -> std::process::Output {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("command did not finish within {limit:?}; stderr: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn dataset(dir: &Path) -> PathBuf {
    let cases = [(12, "task_1_input * 7 + 5", 89), (-4, "task_1_input * task_1_input - 3", 13), (30, "task_1_input // 4 + 100", 107)];
    let samples: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, (x, expression, truth))| {
            json!({"task_id": i, "task_name": "Synthetic", "sample_idx": 0,
                   "prompt": format!("Define task_1_input = {x}.\nTask 1:\nCompute {expression} and call the result task_1_out.\n"),
                   "ground_truth": truth})
        })
        .collect();
    let path = dir.join("baseline.json");
    std::fs::write(&path, json!({"summary": {"mode": "math", "num_tasks": 3, "num_samples_per_task": 1}, "samples": samples}).to_string()).unwrap();
    path
}

#[test]
fn a_real_model_goes_through_the_tool_protocol_with_every_strategy() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let llm_dir = tmp.join("arbigraph-llm");
    std::fs::create_dir_all(&llm_dir).unwrap();
    let port = free_port();
    let mut serve = Command::new("timeout");
    serve.arg("1200").arg("bash").arg(support::root().join("tools/local-llm/serve.sh")).env("LLM_PORT", port.to_string()).env("LLM_DIR", &llm_dir);
    let _server = Server { dir: llm_dir.clone() };
    let started = run_bounded(serve, Duration::from_secs(1260));
    assert!(started.status.success(), "the model server did not start: {}", String::from_utf8_lossy(&started.stdout));

    let work = tmp.join(format!("real-llm-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let data = dataset(&work);
    let binary = arbigraph_binary();
    let mut summarised = 0;
    let mut reached_fourth_turn = false;
    for info in registry() {
        let strategy = info.name;
        let spec = match strategy {
            "summary" => "summary:trigger_tokens=50,keep_exchanges=1,summary_tokens=96".to_string(),
            "mask+summary" => "mask+summary:keep=1,trigger_tokens=50,keep_exchanges=1,summary_tokens=96".to_string(),
            "window" => "window:exchanges=2".to_string(),
            name => name.to_string(),
        };
        // The summary strategies get a fourth turn: by then three exchanges exceed their 50-token threshold.
        let turns = if strategy.contains("summary") { "4" } else { "3" };
        let output = work.join(format!("results-{}.json", strategy.replace('+', "-")));
        let mut eval = Command::new(&binary);
        eval.arg("eval")
            .arg("--dataset")
            .arg(&data)
            .args(["--base-url", &format!("http://127.0.0.1:{port}/v1"), "--model", "local", "--strategy", &spec])
            .args(["--concurrency", "1", "--max-tokens", "128", "--repair-max-tokens", "192", "--max-model-len", "4096"])
            .args(["--max-turns", turns, "--timeout-secs", "180", "--max-attempts", "2", "--backoff-ms", "500"])
            .arg("-o")
            .arg(&output);
        let out = run_bounded(eval, Duration::from_secs(900));
        assert!(out.status.code().is_some(), "eval was not killed by a signal");
        let results: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
        let samples = results["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 3);
        let mut answered_calls = 0;
        for s in samples {
            let status = s["agent_status"].as_str().unwrap();
            assert_ne!(status, "api_error", "{strategy}: {}", s["agent_error"]);
            assert!(s["correct"].is_boolean(), "every sample graded");
            assert_eq!(s["expected_task_outputs"], json!(["task_1_out"]), "expected outputs scanned from the prompt");
            assert!(s["task_answers"].is_object(), "answer collection ran");
            assert_eq!(s["strategy"], strategy);
            assert_eq!(s["strategy_params"].as_object().map(|m| m.len()), Some(info.params.len()));
            let turns = s["turn_outputs"].as_object().unwrap().len() as u64;
            let usage = &s["usage"];
            let requests = s["requests"].as_array().unwrap();
            let auxiliary = requests.iter().filter(|r| r["kind"] != "turn").count() as u64;
            assert_eq!(usage["auxiliary_calls"].as_u64(), Some(auxiliary), "auxiliary calls counted apart");
            summarised += auxiliary;
            if strategy.contains("summary") && turns >= 4 {
                reached_fourth_turn = true;
            }
            if status != "context_length_exceeded" {
                assert_eq!(requests.len() as u64 - auxiliary, turns, "one request per turn");
                assert_eq!(usage["reported_turns"].as_u64().unwrap() + usage["estimated_turns"].as_u64().unwrap(), turns, "usage recorded for every turn");
            }
            assert!(s["token_length"].as_u64().unwrap() > 0);
            let transcript = s["transcript"].as_array().unwrap();
            for (i, m) in transcript.iter().enumerate() {
                if let Some(calls) = m["tool_calls"].as_array() {
                    for (k, call) in calls.iter().enumerate() {
                        let reply = &transcript[i + 1 + k];
                        assert_eq!(reply["role"], "tool");
                        assert_eq!(reply["tool_call_id"], call["id"]);
                        answered_calls += 1;
                    }
                }
            }
            // Whatever the model wrote, the stored answers are those a replay collects, and the verdict agrees.
            if s["task_answers"].as_object().unwrap().is_empty() {
                let repairs = &s["repairs"];
                assert!(repairs["final_answer"].as_u64().unwrap() + repairs["initial_tool"].as_u64().unwrap() > 0 || status == "timeout");
            }
            if strategy == "acg-lite" {
                assert!(!s["acg_record"]["units"].as_array().unwrap().is_empty(), "the execution record is exported");
            }
            if strategy == "acg" {
                assert!(!s["strategy_record"]["units"].as_array().unwrap().is_empty(), "the evidence graph is exported");
                assert_eq!(s["strategy_record"]["requirements"][0]["id"], "task_1_out");
            }
        }
        assert!(answered_calls >= 1, "{strategy}: the model made at least one tool call and got its result");
        let regrade = run_bounded(
            {
                let mut c = Command::new(&binary);
                c.arg("grade").arg(&output).args(["--replay", "--per-sample"]);
                c
            },
            Duration::from_secs(60),
        );
        for line in String::from_utf8(regrade.stdout).unwrap().lines() {
            let line: Value = serde_json::from_str(line).unwrap();
            let i = line["index"].as_u64().unwrap() as usize;
            assert_eq!(line["correct"], samples[i]["correct"]);
            assert_eq!(line["task_answers"], samples[i]["task_answers"]);
        }
    }
    eprintln!("auxiliary summary calls over the summary strategies' runs: {summarised}");
    assert!(summarised > 0 || !reached_fourth_turn, "a summary strategy that reached its fourth turn summarised");
}
