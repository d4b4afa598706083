//! The harness under load and the CLI's handling of the API key: `arbigraph eval` at concurrency 64 over 2,000
//! samples against `tools/fault_server.py` drawing a random fault for every request (10% 429 with Retry-After,
//! 5% 500, slow and truncated replies, dropped connections, hangs past the timeout, malformed bodies), killed with
//! SIGKILL at a random moment and restarted: exactly 2,000 results, each graded or with a typed error status, and
//! the server's per-sample request counts show no sample was run twice. A second test greps every file a run
//! writes (results, temporary files a kill leaves behind, anything under its HOME and TMPDIR) for the key it used.

#[path = "../support/mod.rs"]
mod support;
use support::{arbigraph_binary, scratch, start_fault_server, Killer};

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The fault mix of the issue, plus a little of every other fault the server knows.
const MIX: &str = "429=10,500=5,slow=5,truncated=3,drop=3,badjson=1,hang=0.2";
const KEY_VAR: &str = "ARBIGRAPH_LOAD_TEST_KEY";

/// Starts the fault server with the mix; slow replies stay well inside the client's timeout, hangs outlast it.
fn start_server(seed: u64) -> (Killer, u16) {
    start_fault_server(&["--mix", MIX, "--seed", &seed.to_string(), "--slow-ms", "300", "--hang-secs", "6"])
}

/// `samples` one-step samples whose prompts start with "Case <i>." (the server counts requests per case).
fn write_dataset(dir: &Path, samples: usize) -> (PathBuf, Vec<Value>) {
    let items: Vec<Value> = (0..samples)
        .map(|i| {
            let x = (i as i64 * 37) % 201 - 100;
            let k = (i as i64 % 9) + 2;
            let c = (i as i64 * 7) % 50;
            json!({
                "task_id": i % 10, "task_name": format!("Load{}", i % 10), "sample_idx": i,
                "prompt": format!("Case {i}. Define task_1_input = {x}.\nTask 1:\nCompute task_1_input * {k} + {c} and call the result task_1_out.\n"),
                "ground_truth": x * k + c
            })
        })
        .collect();
    let path = dir.join("dataset.json");
    let file = json!({"summary": {"mode": "math", "num_tasks": 10, "num_samples_per_task": samples / 10}, "samples": items});
    std::fs::write(&path, file.to_string()).unwrap();
    (path, items)
}

/// The eval command; its HOME and TMPDIR point into `dir`, so whatever it leaves behind is in `dir`.
fn eval_command(dir: &Path, dataset: &Path, output: &Path, port: u16, concurrency: usize, key: &str) -> Command {
    let home = dir.join("home");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let mut command = Command::new(arbigraph_binary());
    command
        .arg("eval")
        .arg("--dataset")
        .arg(dataset)
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1"), "--model", "fault-model"])
        .args(["--api-key-env", KEY_VAR])
        .args(["--concurrency", &concurrency.to_string(), "--timeout-secs", "5", "--max-attempts", "8"])
        .args(["--backoff-ms", "20", "--max-backoff-ms", "1000"])
        .arg("-o")
        .arg(output)
        .env(KEY_VAR, key)
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"));
    command
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The results file, when it exists and parses (it is replaced by a rename, so a read never sees half of it).
fn try_read(path: &Path) -> Option<Value> {
    std::fs::read_to_string(path).ok().and_then(|text| serde_json::from_str(&text).ok())
}

/// What a resume continues from: the results file with the samples of its journal (`results.json.journal`, one
/// `{"index", "result"}` line per sample finished since the file was last rewritten; a line cut short is skipped).
fn on_disk(output: &Path) -> Option<Value> {
    let mut file = try_read(output)?;
    let mut journal = output.as_os_str().to_owned();
    journal.push(".journal");
    for line in std::fs::read_to_string(PathBuf::from(journal)).unwrap_or_default().lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        if let (Some(i), Some(slot)) = (entry["index"].as_u64(), file["samples"].as_array_mut()) {
            if let Some(sample) = slot.get_mut(i as usize) {
                *sample = entry["result"].clone();
            }
        }
    }
    Some(file)
}

fn is_finished(sample: &Value) -> bool {
    sample["agent_status"].is_string()
}

fn finished(file: &Value) -> usize {
    file["samples"].as_array().map(|s| s.iter().filter(|s| is_finished(s)).count()).unwrap_or(0)
}

/// Every dataset sample appears once, at its index, finished: graded (`correct` is a bool) or with an error status
/// that says why. Returns the count per status.
fn assert_complete(results: &Value, dataset: &[Value]) -> BTreeMap<String, usize> {
    let samples = results["samples"].as_array().expect("samples");
    assert_eq!(samples.len(), dataset.len(), "no sample lost or duplicated");
    let mut statuses = BTreeMap::new();
    for (i, (got, want)) in samples.iter().zip(dataset).enumerate() {
        assert_eq!(got["prompt"], want["prompt"], "sample {i} is in its place");
        assert_eq!(got["sample_idx"], json!(i));
        let status = got["agent_status"].as_str().unwrap_or_else(|| panic!("sample {i} unfinished"));
        assert_ne!(status, "in_progress");
        assert!(got["correct"].is_boolean(), "sample {i} graded");
        if status == "api_error" {
            assert!(got["agent_error"].as_str().is_some_and(|e| !e.is_empty()), "a failed sample says why: {i}");
        }
        *statuses.entry(status.to_string()).or_insert(0) += 1;
    }
    statuses
}

/// The model turns a sample's transcript records.
fn assistant_turns(sample: &Value) -> u64 {
    sample["transcript"].as_array().map(|t| t.iter().filter(|m| m["role"] == "assistant").count() as u64).unwrap_or(0)
}

/// The server's counters.
fn stats(port: u16) -> Value {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(stream, "GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let body = response.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
    serde_json::from_str(body).unwrap()
}

/// Requests of sample `i` the server answered properly.
fn ok_requests(stats: &Value, i: usize) -> u64 {
    stats["per_sample_ok"][i.to_string()].as_u64().unwrap_or(0)
}

/// A number from the clock (or `LOAD_TEST_SEED`), printed so a failing run can be repeated.
fn seed() -> u64 {
    let seed = std::env::var("LOAD_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1) % 1_000_000_007
    });
    eprintln!("seed {seed} (set LOAD_TEST_SEED={seed} to repeat)");
    seed
}

/// Starts `command`, waits until the results file and its journal hold at least `kill_at` finished samples,
/// then SIGKILLs it.
fn run_and_kill(mut command: Command, output: &Path, kill_at: usize, limit: Duration) {
    let mut child = Killer(command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap());
    let deadline = Instant::now() + limit;
    loop {
        assert!(Instant::now() < deadline, "the run did not reach {kill_at} finished samples in time");
        assert!(child.0.try_wait().unwrap().is_none(), "the run ended before it was killed");
        std::thread::sleep(Duration::from_millis(100));
        if on_disk(output).is_some_and(|file| finished(&file) >= kill_at) {
            break;
        }
    }
    child.0.kill().unwrap(); // SIGKILL on Unix: no chance to clean up
    child.0.wait().unwrap();
}

#[test]
fn two_thousand_samples_at_concurrency_64_through_faults_and_a_kill_end_with_2000_results_none_run_twice() {
    const SAMPLES: usize = 2000;
    let dir = scratch("load");
    let (dataset_path, dataset) = write_dataset(&dir, SAMPLES);
    let seed = seed();
    let kill_at = 100 + (seed as usize % (SAMPLES - 200));
    let (_server, port) = start_server(seed);
    let output = dir.join("results.json");
    let key = "sk-load-test-0d6e2b91c4";

    // 1. A run killed at a random moment.
    let started = Instant::now();
    run_and_kill(eval_command(&dir, &dataset_path, &output, port, 64, key), &output, kill_at, Duration::from_secs(300));
    let killed_after = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(1500)); // replies already on their way (slow ones) are counted
    let at_kill = stats(port);
    let partial = on_disk(&output).expect("a results file after the kill");
    let done_before = finished(&partial);
    assert!(done_before >= kill_at && done_before < SAMPLES, "killed part-way: {done_before} finished");
    let kept: Vec<(usize, Value)> = partial["samples"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, s)| is_finished(s))
        .map(|(i, s)| (i, s["timings"].clone()))
        .collect();

    // 2. The same command again continues the run.
    let resumed_at = Instant::now();
    let out = eval_command(&dir, &dataset_path, &output, port, 64, key).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1), "{stderr}");
    let resume_took = resumed_at.elapsed().as_secs_f64();
    let results = read(&output);
    assert!(!dir.join("results.json.journal").exists(), "a finished run leaves no journal");
    let statuses = assert_complete(&results, &dataset);
    let end = stats(port);
    let samples = results["samples"].as_array().unwrap();
    assert_eq!(results["summary"]["start_times"].as_array().map(Vec::len), Some(2), "one start time per (re)start");

    // Finished samples were kept as they were, and the server saw no request of theirs after the kill.
    for (i, timings) in &kept {
        assert_eq!(&samples[*i]["timings"], timings, "finished sample {i} was kept, not redone");
        assert_eq!(ok_requests(&end, *i), ok_requests(&at_kill, *i), "sample {i} got requests after it finished");
    }
    // One properly answered request per recorded model turn: a sample finished before the kill had all of its
    // turns in the first run, any other had all of its recorded turns in the second (a sample in flight at the
    // kill starts again from the beginning, its earlier requests are not in its transcript).
    let finished_before: std::collections::BTreeSet<usize> = kept.iter().map(|(i, _)| *i).collect();
    for (i, sample) in samples.iter().enumerate() {
        let requests = if finished_before.contains(&i) { ok_requests(&end, i) } else { ok_requests(&end, i) - ok_requests(&at_kill, i) };
        assert_eq!(requests, assistant_turns(sample), "sample {i} was run exactly once: {}", sample["agent_status"]);
    }

    // The faults happened, the load was real, and retries carried almost every sample through.
    for fault in ["429", "500", "slow", "truncated", "drop", "badjson"] {
        assert!(end["faults"][fault].as_u64().unwrap_or(0) > 0, "fault {fault} was exercised: {}", end["faults"]);
    }
    // Far beyond the default concurrency of 4 (how close to 64 depends on how busy the machine is).
    assert!(end["max_in_flight"].as_u64().unwrap_or(0) > 8, "many requests in flight at once: {}", end["max_in_flight"]);
    let errors = samples.iter().filter(|s| s["agent_status"] == "api_error").count();
    assert!(errors <= SAMPLES / 100, "retries cover the faults: {errors} samples failed");
    let correct = samples.iter().filter(|s| s["correct"] == true).count();
    assert!(correct >= SAMPLES * 8 / 10, "the scripted model is right on most prompts: {correct}");
    assert_eq!(end["auth"], json!([format!("Bearer {key}")]));
    eprintln!(
        "load: {SAMPLES} samples, killed after {done_before} finished ({killed_after:.1} s), resumed in {resume_took:.1} s; \
         {} requests, faults {}, at most {} in flight; statuses {statuses:?}, {correct} correct",
        end["requests"], end["faults"], end["max_in_flight"]
    );
}

/// Every regular file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.is_file() {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn the_api_key_reaches_the_server_and_no_file_the_cli_writes_contains_it() {
    const SAMPLES: usize = 60;
    let dir = scratch("secrets");
    let work = dir.join("run");
    std::fs::create_dir_all(&work).unwrap();
    let (dataset_path, dataset) = write_dataset(&work, SAMPLES);
    let (_server, port) = start_server(seed());
    let output = work.join("results.json");
    let key = "sk-secret-test-7b3e91f0a2c4d5";

    // A run killed part-way (a kill can leave the temporary results file behind), then continued.
    run_and_kill(eval_command(&work, &dataset_path, &output, port, 8, key), &output, 20, Duration::from_secs(120));
    let out = eval_command(&work, &dataset_path, &output, port, 8, key).output().unwrap();
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_complete(&read(&output), &dataset);

    assert_eq!(stats(port)["auth"], json!([format!("Bearer {key}")]), "the server received the key as a bearer token");
    let files = files_under(&work);
    assert!(files.iter().any(|f| f.ends_with("results.json")), "the results file is among the files searched");
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        assert!(!bytes.windows(key.len()).any(|w| w == key.as_bytes()), "{} contains the API key", file.display());
    }
    for (name, stream) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(!stream.windows(key.len()).any(|w| w == key.as_bytes()), "the {name} of eval shows the API key");
    }
    eprintln!("secrets: {} files searched: {:?}", files.len(), files.iter().map(|f| f.strip_prefix(&work).unwrap_or(f)).collect::<Vec<_>>());
}
