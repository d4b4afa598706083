//! `arbigraph bench --harness`: the evaluation harness's own cost per request. An instant chat endpoint in this
//! process (threads over std's TCP, canned replies that finish each sample in two turns: a calculator call, then
//! the boxed answer) is driven by a child `arbigraph eval`, so the figure is the whole CLI's — agent loop, JSON,
//! HTTP client, results file — and no model's or Python's speed limits it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};
use arbigraph_studio::engine::results::counts_of;

use super::files::fail;

/// (samples, concurrency) of each row: concurrency first, then the sample count (the cost per request should
/// not grow with the run's length: finished samples go to an append-only journal).
const ROWS: [(usize, usize); 4] = [(500, 1), (500, 8), (500, 64), (2000, 64)];

/// Longest request head or body the endpoint reads.
const MAX_REQUEST_BYTES: usize = 16 << 20;

const TOOL_CALL_REPLY: &str = r#"{"id":"bench","object":"chat.completion","model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"calculator","arguments":"{\"expressions\": [\"1 + 1\"]}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":60,"completion_tokens":9,"total_tokens":69}}"#;
const ANSWER_REPLY: &str = r#"{"id":"bench","object":"chat.completion","model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"The calculator gives 2.\n\\boxed{task_1_out = 2}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":80,"completion_tokens":12,"total_tokens":92}}"#;

/// Runs the harness benchmark.
pub fn run() -> ExitCode {
    let listener = match TcpListener::bind(("127.0.0.1", 0)) {
        Ok(listener) => listener,
        Err(e) => return fail(format!("cannot listen on 127.0.0.1: {e}")),
    };
    let port = match listener.local_addr() {
        Ok(address) => address.port(),
        Err(e) => return fail(format!("cannot read the listening port: {e}")),
    };
    let served = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&served);
    std::thread::spawn(move || serve(listener, counter));

    let dir = std::env::temp_dir().join(format!("arbigraph-bench-harness-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(format!("cannot create {}: {e}", dir.display()));
    }
    println!("`arbigraph eval` against an instant local endpoint (canned replies, 2 requests per sample), {} CPUs", cpus());
    println!("{:>8} {:>12} {:>9} {:>9} {:>13} {:>16} {:>16}", "samples", "concurrency", "requests", "seconds", "requests/s", "eval CPU µs/req", "server CPU µs/req");
    let mut failed = false;
    for (samples, concurrency) in ROWS {
        match row(&dir, port, samples, concurrency, &served) {
            Ok(()) => {}
            Err(e) => {
                println!("{samples:>8} {concurrency:>12} failed: {e}");
                failed = true;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// One timed `arbigraph eval` run over a fresh dataset of `samples` one-step samples.
fn row(dir: &Path, port: u16, samples: usize, concurrency: usize, served: &AtomicU64) -> Result<(), String> {
    let dataset = dir.join(format!("dataset-{samples}.json"));
    let items: Vec<Value> = (0..samples)
        .map(|i| {
            json!({
                "task_id": 0, "task_name": "Bench", "sample_idx": i,
                "prompt": format!("Define task_1_input = {i}.\nTask 1:\nCompute 1 + 1 and call the result task_1_out.\n"),
                "ground_truth": 2
            })
        })
        .collect();
    let file = json!({"summary": {"mode": "math", "num_tasks": 1, "num_samples_per_task": samples}, "samples": items});
    std::fs::write(&dataset, file.to_string()).map_err(|e| format!("cannot write {}: {e}", dataset.display()))?;
    let output = dir.join(format!("results-{samples}-{concurrency}.json"));
    let _ = std::fs::remove_file(&output);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;

    let before_requests = served.load(Ordering::SeqCst);
    let (own_before, children_before) = cpu_seconds();
    let start = Instant::now();
    let status = Command::new(exe)
        .arg("eval")
        .arg("--dataset")
        .arg(&dataset)
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1"), "--model", "bench"])
        .args(["--concurrency", &concurrency.to_string(), "--timeout-secs", "30"])
        .arg("-o")
        .arg(&output)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run the child: {e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    let (own_after, children_after) = cpu_seconds();
    let requests = served.load(Ordering::SeqCst) - before_requests;
    if !status.success() {
        return Err(format!("eval exited with {status}"));
    }
    let results: Value = std::fs::read_to_string(&output)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .ok_or("eval wrote no readable results file")?;
    let correct = results["samples"].as_array().map(|s| s.iter().filter(|s| counts_of(s).correct == Some(true)).count()).unwrap_or(0);
    if correct != samples {
        return Err(format!("only {correct} of {samples} samples were graded correct"));
    }
    let _ = std::fs::remove_file(&output);
    let _ = std::fs::remove_file(&dataset);
    let per_request = |cpu: f64| if requests == 0 { 0.0 } else { cpu * 1e6 / requests as f64 };
    println!(
        "{samples:>8} {concurrency:>12} {requests:>9} {seconds:>9.2} {:>13.0} {:>16.0} {:>16.0}",
        requests as f64 / seconds,
        per_request(children_after - children_before),
        per_request(own_after - own_before)
    );
    Ok(())
}

/// CPU seconds (user + system) of this process and of its waited-for children (Linux; zeros elsewhere).
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name: utime, stime are the 12th and 13th from the state on, cutime, cstime the next two.
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<f64> = after.split_whitespace().map(|f| f.parse::<f64>().unwrap_or(0.0)).collect();
    let ticks = |i: usize| fields.get(i).copied().unwrap_or(0.0) / 100.0;
    (ticks(11) + ticks(12), ticks(13) + ticks(14))
}

/// Accepts connections until the process ends, one thread each.
fn serve(listener: TcpListener, served: Arc<AtomicU64>) {
    for stream in listener.incoming().flatten() {
        let served = Arc::clone(&served);
        std::thread::spawn(move || {
            let _ = connection(stream, &served);
        });
    }
}

/// Answers the requests of one keep-alive connection: a calculator call when the conversation has no tool
/// result yet, else the final answer.
fn connection(stream: TcpStream, served: &AtomicU64) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let mut line = String::new();
    loop {
        let mut length = 0usize;
        let mut head = 0usize;
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        loop {
            line.clear();
            let n = reader.read_line(&mut line)?;
            head += n;
            if n == 0 || head > MAX_REQUEST_BYTES {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        if length > MAX_REQUEST_BYTES {
            return Ok(());
        }
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body)?;
        let tool_role = br#""role":"tool""#;
        let has_tool_result = body.windows(tool_role.len()).any(|w| w == tool_role);
        let reply = if has_tool_result { ANSWER_REPLY } else { TOOL_CALL_REPLY };
        let response = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{reply}", reply.len());
        writer.write_all(response.as_bytes())?;
        served.fetch_add(1, Ordering::SeqCst);
    }
}
