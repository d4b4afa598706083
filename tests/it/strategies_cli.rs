//! Every registered strategy end to end through the command line: `arbigraph probe-server` on a free port,
//! `arbigraph eval --strategy …` against it, and `arbigraph grade --compare` over all the runs.

use crate::strategies_probe::multichain;
use crate::support::{arbigraph, arbigraph_binary, free_port, scratch};
use arbigraph_studio::engine::agent::strategy::registry;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The probe server, stopped (by its own handle) when dropped.
pub(crate) struct ProbeServer {
    child: Child,
    pub(crate) port: u16,
}

impl Drop for ProbeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start_probe(dataset: &Path, noise: u32) -> ProbeServer {
    let port = free_port();
    let mut child = Command::new(arbigraph_binary())
        .args(["probe-server", "--port", &port.to_string(), "--noise", &noise.to_string(), "--noise-chars", "400", "--dataset"])
        .arg(dataset)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the probe server starts");
    let stderr = child.stderr.take().expect("its stderr");
    let server = ProbeServer { child, port };
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut line = String::new();
    let mut reader = BufReader::new(stderr);
    while Instant::now() < deadline {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if line.contains("listening on") {
            // Keep draining stderr in the background so the server never blocks on a full pipe.
            std::thread::spawn(move || for _ in reader.lines() {});
            return server;
        }
    }
    panic!("the probe server did not start: {line}");
}

fn eval(server: &ProbeServer, dataset: &Path, strategy: &[&str], output: &Path) -> (i32, String) {
    let url = format!("http://127.0.0.1:{}/v1", server.port);
    let mut args = vec!["eval", "--dataset", dataset.to_str().unwrap(), "--base-url", &url, "--model", "probe", "--concurrency", "2"];
    args.extend_from_slice(strategy);
    args.extend_from_slice(&["--max-tokens", "1024", "--repair-max-tokens", "2048", "-o", output.to_str().unwrap()]);
    let (code, _, stderr) = arbigraph(&args);
    (code, stderr)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("results written")).expect("results are JSON")
}

#[test]
fn every_strategy_runs_through_eval_against_the_probe_server_and_compares_in_one_table() {
    let dir = scratch("strategies-cli");
    let dataset = dir.join("multichain.json");
    std::fs::write(&dataset, json!({"summary": {"mode": "multi_chain"}, "samples": multichain(2)}).to_string()).unwrap();
    let server = start_probe(&dataset, 1);
    let mut outputs: Vec<PathBuf> = Vec::new();
    for info in registry() {
        let spec = match info.name {
            "summary" => "summary:trigger_tokens=1200,keep_exchanges=2".to_string(),
            "mask+summary" => "mask+summary:keep=2,trigger_tokens=1200,keep_exchanges=2".to_string(),
            name => name.to_string(),
        };
        let output = dir.join(format!("{}.json", info.name.replace('+', "-")));
        let (code, stderr) = eval(&server, &dataset, &["--strategy", &spec], &output);
        assert_eq!(code, 0, "{spec}: {stderr}");
        let results = read(&output);
        assert_eq!(results["summary"]["generation_params"]["strategy"], info.name);
        let samples = results["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 2);
        for s in samples {
            assert_eq!(s["agent_status"], "success", "{spec}: {}", s["agent_error"]);
            assert_eq!(s["strategy"], info.name);
            assert_eq!(s["strategy_params"].as_object().map(|m| m.len()), Some(info.params.len()));
            let requests = s["requests"].as_array().unwrap();
            assert!(requests.iter().all(|r| r["prompt_tokens_reported"].is_u64() && r["messages"].as_u64().unwrap() >= 2), "{spec}");
            let aux = requests.iter().filter(|r| r["kind"] == "summary").count() as u64;
            assert_eq!(aux, s["usage"]["auxiliary_calls"].as_u64().unwrap());
            if info.name.contains("summary") {
                assert!(aux > 0, "{spec} summarised");
                assert!(s["strategy_record"]["summaries"].as_array().is_some_and(|l| !l.is_empty()));
            }
        }
        outputs.push(output);
    }
    let mut args = vec!["grade".to_string(), "--markdown".to_string(), "--compare".to_string()];
    args.extend(outputs.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, table, stderr) = arbigraph(&args);
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(rows.len(), registry().len(), "{table}");
    assert!(rows[0].contains("| full |") && rows[0].contains("baseline"), "{table}");
    assert!(table.contains("| graph |") && table.contains("100.0% 16/16"), "graph keeps every node: {table}");
}

#[test]
fn strategy_parameters_are_checked_recorded_and_listed_in_the_help() {
    let dir = scratch("strategies-cli-params");
    let dataset = dir.join("multichain.json");
    std::fs::write(&dataset, json!({"summary": {}, "samples": multichain(1)}).to_string()).unwrap();
    let server = start_probe(&dataset, 0);
    let output = dir.join("window.json");
    let (code, stderr) = eval(&server, &dataset, &["--strategy", "window:exchanges=4", "--strategy-param", "exchanges=1"], &output);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read(&output)["samples"][0]["strategy_params"], json!({"exchanges": 1}));
    // Resuming with other parameters is refused.
    let (code, stderr) = eval(&server, &dataset, &["--strategy", "window"], &output);
    assert_eq!(code, 2);
    assert!(stderr.contains("the strategy was window:exchanges=1 and is now window:exchanges=8"), "{stderr}");
    let (code, stderr) = eval(&server, &dataset, &["--strategy", "fifo"], &dir.join("x.json"));
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown context strategy `fifo`") && stderr.contains("mask+summary"), "{stderr}");
    let (code, stderr) = eval(&server, &dataset, &["--strategy", "mask:keep=-1"], &dir.join("y.json"));
    assert_eq!(code, 2);
    assert!(stderr.contains("must be a whole number"), "{stderr}");
    let (_, help, _) = arbigraph(&["eval", "--help"]);
    for info in registry() {
        assert!(help.contains(info.name), "eval --help names {}", info.name);
        for p in info.params {
            assert!(help.contains(&format!("{}={}", p.key, p.default)), "eval --help gives {}'s default {}", info.name, p.key);
        }
    }
}

#[test]
fn the_docs_list_every_strategy_with_its_parameter_defaults() {
    let doc = std::fs::read_to_string(crate::support::root().join("docs/CONTEXT_STRATEGIES.md")).expect("the strategies doc");
    for info in registry() {
        assert!(doc.contains(&format!("| `{}` |", info.name)), "the registry table lists {}", info.name);
        for p in info.params {
            assert!(doc.contains(&format!("`{}` ({}", p.key, p.default)), "the doc gives {}'s default {}", info.name, p.key);
        }
    }
    assert!(doc.contains("<!-- strategy-matrix:begin -->") && doc.contains("<!-- strategy-matrix:end -->"));
}

#[test]
fn eval_with_epochs_attempts_every_sample_k_times_and_reports_pass_k() {
    let dir = scratch("strategies-cli-epochs");
    let dataset = dir.join("multichain.json");
    std::fs::write(&dataset, json!({"summary": {"mode": "multi_chain"}, "samples": multichain(2)}).to_string()).unwrap();
    let server = start_probe(&dataset, 0);
    let output = dir.join("epochs.json");
    let (code, stderr) = eval(&server, &dataset, &["--epochs", "3"], &output);
    assert_eq!(code, 0, "{stderr}");
    let results = read(&output);
    let samples = results["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 6, "two samples, three attempts each");
    let epochs: Vec<u64> = samples.iter().map(|s| s.get("epoch").and_then(Value::as_u64).unwrap_or(0)).collect();
    assert_eq!(epochs, vec![0, 0, 1, 1, 2, 2]);
    assert!(stderr.contains("3 epochs") && stderr.contains("pass^3 100.0% [") && stderr.contains("(2/2 instances)"), "{stderr}");
}

/// The raw reply (head and body) to `request` sent to 127.0.0.1:`port`.
fn raw_exchange(port: u16, request: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the probe server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("a read timeout");
    stream.write_all(request.as_bytes()).expect("the request is sent");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("the reply is read");
    reply
}

#[test]
fn the_probe_server_answers_a_browser_preflight_and_marks_replies_readable() {
    let dir = scratch("strategies-cli-cors");
    let dataset = dir.join("multichain.json");
    std::fs::write(&dataset, json!({"summary": {"mode": "multi_chain"}, "samples": multichain(1)}).to_string()).unwrap();
    let server = start_probe(&dataset, 0);
    let preflight = raw_exchange(
        server.port,
        "OPTIONS /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://example.org\r\nAccess-Control-Request-Method: POST\r\n\
Access-Control-Request-Headers: authorization, content-type\r\nAccess-Control-Request-Private-Network: true\r\nConnection: close\r\n\r\n",
    );
    let head = preflight.split("\r\n\r\n").next().unwrap_or("").to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 204"), "{preflight}");
    for line in [
        "access-control-allow-origin: *",
        "access-control-allow-methods: get, post, options",
        "access-control-allow-headers: authorization, content-type",
        "access-control-allow-private-network: true",
    ] {
        assert!(head.lines().any(|l| l == line), "the preflight says {line:?}: {preflight}");
    }
    let body = r#"{"model": "probe", "messages": [{"role": "user", "content": "hi"}]}"#;
    let reply = raw_exchange(
        server.port,
        &format!("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://example.org\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()),
    );
    let (head, _) = reply.split_once("\r\n\r\n").expect("a head and a body");
    let head = head.to_ascii_lowercase();
    assert!(head.lines().any(|l| l == "access-control-allow-origin: *"), "{reply}");
    assert!(!head.contains("access-control-allow-methods"), "only a preflight lists methods: {reply}");
    let missing = raw_exchange(server.port, "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    assert!(missing.starts_with("HTTP/1.1 404") && missing.to_ascii_lowercase().contains("access-control-allow-origin: *"), "errors are readable too: {missing}");
}

#[test]
fn a_strategy_lab_runs_every_strategy_on_the_same_samples_and_prints_the_paired_table() {
    let dir = scratch("strategies-cli-lab");
    let dataset = dir.join("long-edge.json");
    std::fs::write(&dataset, json!({"summary": {}, "samples": crate::strategies_probe::long_edge(2)}).to_string()).unwrap();
    let server = start_probe(&dataset, 2);
    let folder = dir.join("lab");
    let lab = ["--strategy", "full", "--strategy", "window:exchanges=4", "--strategy", "acg"];
    let url = format!("http://127.0.0.1:{}/v1", server.port);
    let mut args = vec!["eval", "--dataset", dataset.to_str().unwrap(), "--base-url", &url, "--model", "probe", "--concurrency", "2"];
    args.extend_from_slice(&lab);
    args.extend_from_slice(&["--max-tokens", "1024", "--repair-max-tokens", "2048", "-o", folder.to_str().unwrap()]);
    let (code, table, stderr) = arbigraph(&args);
    // Wrong answers are results, not failures: only a run that could not finish exits non-zero.
    assert_eq!(code, 0, "{stderr}");
    let nodes_right = |file: &str| -> (usize, usize, usize) {
        let results = read(&folder.join(file));
        let samples = results["samples"].as_array().unwrap().clone();
        let statuses: Vec<Value> = samples.iter().flat_map(|s| s["node_status"].as_object().cloned().unwrap_or_default().into_values()).collect();
        let right = statuses.iter().filter(|s| *s == "correct").count();
        (samples.iter().filter(|s| s["correct"] == true).count(), right, statuses.len())
    };
    assert_eq!(nodes_right("full.json"), (2, 46, 46), "full keeps every value");
    assert_eq!(nodes_right("acg.json"), (2, 46, 46), "acg brings the long edge's value back");
    let (targets, right, total) = nodes_right("window-exchanges-4.json");
    assert_eq!((targets, total), (0, 46), "a window of 4 exchanges loses the value read 22 tasks later");
    assert!(right < total, "window keeps {right}/{total}");
    assert_eq!(read(&folder.join("window-exchanges-4.json"))["samples"][0]["strategy_params"], json!({"exchanges": 4}));
    // One table, the strategies in the order given, paired against the first.
    let rows: Vec<&str> = table.lines().skip(1).filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[0].starts_with("full.json") && rows[0].contains("100.0%") && rows[0].contains("baseline"), "{table}");
    assert!(rows[1].starts_with("window-exchanges-4.json") && rows[1].contains("0.0%") && rows[1].contains("-100.0 pts (p 0.5000)"), "{table}");
    assert!(rows[2].starts_with("acg.json") && rows[2].contains("+0.0 pts (p 1.0000)"), "{table}");
    assert!(stderr.contains("[lab] 3/3: acg ->"), "{stderr}");
    // The same command again continues every file: the finished samples are kept, not run again.
    let timings = |file: &str| read(&folder.join(file))["samples"].as_array().unwrap().iter().map(|s| s["timings"].clone()).collect::<Vec<_>>();
    let before = [timings("full.json"), timings("acg.json")];
    let (code, again, stderr) = arbigraph(&args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(again, table);
    assert_eq!([timings("full.json"), timings("acg.json")], before, "{stderr}");
}

#[test]
fn a_strategy_lab_refuses_what_it_cannot_run_before_sending_anything() {
    let dir = scratch("strategies-cli-lab-refusals");
    let dataset = dir.join("multichain.json");
    std::fs::write(&dataset, json!({"summary": {}, "samples": multichain(1)}).to_string()).unwrap();
    let lab = |extra: &[&str], output: &str| {
        let out = dir.join(output);
        let mut args = vec!["eval", "--dataset", dataset.to_str().unwrap(), "--base-url", "http://127.0.0.1:9/v1", "--model", "probe"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        let (code, _, stderr) = arbigraph(&args);
        (code, stderr, out)
    };
    let (code, stderr, out) = lab(&["--strategy", "acg", "--strategy", "window", "--strategy", "acg:clusters=1"], "dup");
    assert_eq!(code, 2);
    assert!(stderr.contains("--strategy (#3 `acg:clusters=1`): the same strategy as #1 `acg`"), "{stderr}");
    assert!(!out.exists(), "nothing written");
    let (code, stderr, _) = lab(&["--strategy", "full", "--strategy", "window:exchanges=zero"], "bad");
    assert_eq!(code, 2);
    assert!(stderr.contains("--strategy (#2 `window:exchanges=zero`)") && stderr.contains("must be a whole number"), "{stderr}");
    let (code, stderr, _) = lab(&["--strategy", "full", "--strategy", "mask", "--strategy-param", "keep=2"], "params");
    assert_eq!(code, 2);
    assert!(stderr.contains("--strategy-param: with several --strategy"), "{stderr}");
    let (code, stderr, _) = lab(&["--strategy", "full", "--strategy", "mask"], "results.json");
    assert_eq!(code, 2);
    assert!(stderr.contains("names a file; with several --strategy it names a folder"), "{stderr}");
    let (_, help, _) = arbigraph(&["eval", "--help"]);
    assert!(help.contains("Repeat --strategy to run a strategy lab"), "{help}");
}
