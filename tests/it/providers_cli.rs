//! `arbigraph eval --provider …` against the hosted-API emulator (`tools/provider_emulator.py`). Proves that every
//! provider profile grades every sample with the key sent in that provider's header; that OpenAI's reasoning models
//! are asked as they want from the first request, while the same model behind `compatible` is negotiated from the
//! endpoint's 400s (the adaptations printed, stored in `summary.adaptations` and reused on resume); that completion
//! caps hold through repair turns, known or learnt; that Anthropic's two wires, Azure's `api-version` and `api-key`
//! and Gemini's OpenAI path work, with the key written nowhere; that rate-limit headers set the wait; that cached
//! and reasoning tokens reach the results; and that bad flags exit 2 with a located message and no file, while an
//! endpoint answering 404 ends its samples as `api_error` with the server's words, and a proxy's HTML or text page in
//! place of the API is retried when passing and reported by its title when not.

use crate::support::{arbigraph_binary, http_get, scratch, start_provider_emulator, Killer};
use arbigraph_studio::engine::agent::provider::PROFILES;
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The emulator's key: distinctive, so a leak into any file or stream is found by a plain search.
const KEY: &str = "sk-emulated-7d41c09b2e";
/// The variable the key travels in to the child process.
const KEY_ENV: &str = "ARBIGRAPH_PROVIDERS_CLI_KEY";

/// A running emulator, killed when dropped.
struct Emulator {
    _child: Killer,
    port: u16,
}

impl Emulator {
    fn start(extra: &[&str]) -> Emulator {
        let mut args = vec!["--key", KEY];
        args.extend_from_slice(extra);
        let (child, port) = start_provider_emulator(&args);
        Emulator { _child: child, port }
    }

    /// The base URL of a provider route, e.g. `/openai/v1`.
    fn url(&self, prefix: &str) -> String {
        format!("http://127.0.0.1:{}{prefix}", self.port)
    }

    fn stats(&self) -> Value {
        serde_json::from_str(&http_get(self.port, "/stats")).expect("/stats is JSON")
    }

    fn reset(&self) {
        http_get(self.port, "/reset");
    }

    /// Queues a rate-limit rule (`/control?…`) and checks the emulator took it.
    fn control(&self, query: &str) {
        let answer: Value = serde_json::from_str(&http_get(self.port, &format!("/control?{query}"))).expect("/control answers JSON");
        assert!(answer["ratelimit"].as_array().is_some_and(|rules| !rules.is_empty()), "the rule was queued: {answer}");
    }
}

/// The chat requests (`/chat/completions` or `/messages` POSTs) the emulator recorded, optionally of one provider.
fn chat_records(stats: &Value, provider: Option<&str>) -> Vec<Value> {
    stats["requests"]
        .as_array()
        .expect("a request list")
        .iter()
        .filter(|r| r["method"] == "POST" && provider.is_none_or(|p| r["provider"] == p))
        .filter(|r| r["path"].as_str().is_some_and(|p| p.ends_with("/chat/completions") || p.ends_with("/messages")))
        .cloned()
        .collect()
}

fn status_count(records: &[Value], status: u64) -> usize {
    records.iter().filter(|r| r["status"] == status).count()
}

/// A dataset of `n` one-task samples the emulator answers correctly; with `two_tasks`, every second sample also
/// asks for `task_2_out`, which the emulator never gives, so those samples go through repair turns.
fn write_dataset(dir: &Path, n: usize, two_tasks: bool) -> PathBuf {
    let samples: Vec<Value> = (0..n as i64)
        .map(|i| {
            let (x, k, c) = (i * 13 - 20, i + 2, i * 5 + 1);
            let mut prompt = format!("Define task_1_input = {x}.\nTask 1:\nCompute task_1_input * {k} + {c} and call the result task_1_out.\n");
            let mut truth = x * k + c;
            if two_tasks && i % 2 == 1 {
                prompt.push_str("Task 2:\nCompute task_1_out + 1 and call the result task_2_out.\n");
                truth += 1;
            }
            json!({"prompt": prompt, "ground_truth": truth, "task_name": "AddTask"})
        })
        .collect();
    let path = dir.join(if two_tasks { "dataset-two-tasks.json" } else { "dataset.json" });
    std::fs::write(&path, json!({"summary": {"mode": "chain"}, "samples": samples}).to_string()).unwrap();
    path
}

/// What one `arbigraph eval` printed and returned.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `arbigraph eval` with the key in [`KEY_ENV`] (named by `--api-key-env`), two workers, and `args`.
fn eval_command(dataset: &Path, output: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(arbigraph_binary());
    command.arg("eval").arg("--dataset").arg(dataset).arg("-o").arg(output);
    command.args(["--api-key-env", KEY_ENV, "--concurrency", "2", "--timeout-secs", "20"]).args(args).env(KEY_ENV, KEY);
    command
}

fn eval(dataset: &Path, output: &Path, args: &[&str]) -> Run {
    let out = eval_command(dataset, output, args).output().expect("the binary runs");
    Run { code: out.status.code().unwrap_or(-1), stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{} is readable: {e}", path.display()))).expect("results are JSON")
}

fn samples(results: &Value) -> &Vec<Value> {
    results["samples"].as_array().expect("a samples array")
}

/// Every one of `n` samples finished `success` and correct.
fn assert_all_correct(results: &Value, n: usize, what: &str) {
    let samples = samples(results);
    assert_eq!(samples.len(), n, "{what}: every sample is in the file");
    for (i, s) in samples.iter().enumerate() {
        assert_eq!((&s["agent_status"], &s["correct"]), (&json!("success"), &json!(true)), "{what}: sample {i}: {}", s.get("agent_error").unwrap_or(&Value::Null));
    }
}

/// The adaptations of a results file with the given source, as (kind, value) pairs.
fn adaptations(results: &Value, source: &str) -> Vec<(String, Value)> {
    results["summary"]["adaptations"]
        .as_array()
        .expect("summary.adaptations is a list")
        .iter()
        .filter(|a| a["source"] == source)
        .map(|a| {
            for field in ["why", "sentence"] {
                assert!(a[field].as_str().is_some_and(|t| !t.is_empty()), "an adaptation says {field}: {a}");
            }
            (a["kind"].as_str().expect("a kind").to_string(), a["value"].clone())
        })
        .collect()
}

#[test]
fn every_provider_profile_grades_every_sample_with_its_key_where_the_provider_reads_it() {
    // (profile, route prefix, a model the emulator knows there, the header the key must arrive in)
    let table: [(&str, &str, &str, &str); 15] = [
        ("openai", "/openai/v1", "gpt-5-mini", "bearer"),
        ("azure", "/azure/openai/deployments/chat", "gpt-4o-mini", "api-key"),
        ("anthropic", "/anthropic/v1", "claude-haiku-4-5", "x-api-key"),
        ("gemini", "/gemini/v1beta/openai", "gemini-2.5-flash", "bearer"),
        ("openrouter", "/openrouter/api/v1", "openai/gpt-4o-mini", "bearer"),
        ("together", "/together/v1", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "bearer"),
        ("groq", "/groq/openai/v1", "llama-3.3-70b-versatile", "bearer"),
        ("deepseek", "/deepseek/v1", "deepseek-chat", "bearer"),
        ("mistral", "/mistral/v1", "mistral-small-latest", "bearer"),
        ("xai", "/xai/v1", "grok-3-mini", "bearer"),
        ("vllm", "/vllm/v1", "Qwen/Qwen2.5-7B-Instruct", "bearer"),
        ("sglang", "/sglang/v1", "default", "bearer"),
        ("ollama", "/ollama/v1", "qwen2.5:7b", "bearer"),
        ("llamacpp", "/llamacpp/v1", "model.gguf", "bearer"),
        ("lmstudio", "/lmstudio/v1", "qwen2.5-7b-instruct", "bearer"),
    ];
    let mut covered: Vec<&str> = table.iter().map(|t| t.0).collect();
    let mut profiles: Vec<&str> = PROFILES.iter().map(|p| p.key).filter(|k| *k != "compatible").collect();
    covered.sort_unstable();
    profiles.sort_unstable();
    assert_eq!(covered, profiles, "every profile but `compatible` is exercised");

    let dir = scratch("providers-cli-every");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&[]);
    let runs: Vec<(Run, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = table
            .iter()
            .map(|&(name, prefix, model, _)| {
                let (dataset, output, url) = (&dataset, dir.join(format!("{name}.json")), emulator.url(prefix));
                scope.spawn(move || {
                    let run = eval(dataset, &output, &["--provider", name, "--base-url", &url, "--model", model]);
                    let results = if output.exists() { read(&output) } else { Value::Null };
                    (run, results)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a run thread")).collect()
    });
    let stats = emulator.stats();
    for (&(name, _, _, auth), (run, results)) in table.iter().zip(&runs) {
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert_all_correct(results, 4, name);
        let params = &results["summary"]["generation_params"];
        assert_eq!(params["provider"], name);
        assert_eq!(params["wire"], if name == "anthropic" { "messages" } else { "chat" }, "{name}");
        let records = chat_records(&stats, Some(name));
        assert!(records.len() >= 8, "{name}: two turns a sample reached the emulator ({})", records.len());
        for r in &records {
            assert_eq!((&r["auth"], &r["key_ok"], &r["status"]), (&json!(auth), &json!(true), &json!(200)), "{name}: {r}");
        }
    }
}

#[test]
fn openai_reasoning_models_are_asked_as_they_want_from_the_first_request() {
    let dir = scratch("providers-cli-openai-reasoning");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&[]);
    let output = dir.join("results.json");
    let run = eval(&dataset, &output, &["--provider", "openai", "--base-url", &emulator.url("/openai/v1"), "--model", "gpt-5-mini"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = read(&output);
    assert_all_correct(&results, 4, "openai gpt-5-mini");
    let records = chat_records(&emulator.stats(), None);
    assert!(records.len() >= 8);
    assert_eq!(status_count(&records, 200), records.len(), "no 400 at all: the profile knew the model");
    for r in &records {
        let sent: Vec<&str> = r["params"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(sent.contains(&"max_completion_tokens") && r["max_completion_tokens"].is_u64(), "{r}");
        for absent in ["max_tokens", "temperature", "top_p"] {
            assert!(!sent.contains(&absent), "{absent} is not sent: {r}");
        }
    }
    let notes = adaptations(&results, "profile");
    for kind in ["limit_renamed", "temperature_omitted", "top_p_omitted"] {
        assert!(notes.iter().any(|(k, _)| k == kind), "a profile note {kind}: {notes:?}");
    }
    assert!(notes.contains(&("limit_renamed".into(), json!("max_completion_tokens"))));
    assert!(adaptations(&results, "endpoint").is_empty(), "nothing was learnt from refusals");
    assert!(run.stderr.contains("[eval] OpenAI: temperature omitted"), "the known rules are printed first: {}", run.stderr);
    assert!(!run.stderr.contains("adapted the requests"), "{}", run.stderr);
}

#[test]
fn a_compatible_endpoint_is_negotiated_from_its_refusals_and_a_resume_reuses_what_was_learnt() {
    let dir = scratch("providers-cli-negotiate");
    let dataset = write_dataset(&dir, 5, false);
    let emulator = Emulator::start(&[]);
    let output = dir.join("results.json");
    let args = ["--provider", "compatible", "--base-url", &emulator.url("/openai/v1"), "--model", "gpt-5-mini"];
    let run = eval(&dataset, &output, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = read(&output);
    assert_all_correct(&results, 5, "negotiated");
    let records = chat_records(&emulator.stats(), None);
    let refused = status_count(&records, 400);
    let learnt = adaptations(&results, "endpoint");
    assert!(refused >= 3, "the first requests were refused: {refused}");
    assert!(refused <= learnt.len() * 2, "at most one refusal per adaptation and worker: {refused} for {learnt:?}");
    for expected in [("limit_renamed", json!("max_completion_tokens")), ("temperature_omitted", Value::Null), ("top_p_omitted", Value::Null)] {
        assert!(learnt.iter().any(|(k, v)| (k.as_str(), v) == (expected.0, &expected.1)), "learnt {expected:?}: {learnt:?}");
    }
    assert!(adaptations(&results, "profile").is_empty(), "a compatible server is known for nothing");
    for sentence in ["requests sent with max_completion_tokens", "temperature omitted", "top_p omitted"] {
        assert!(run.stderr.contains(&format!("[eval] adapted the requests: {sentence}")), "stderr names `{sentence}`: {}", run.stderr);
    }
    assert_eq!(results["summary"]["generation_params"]["provider"], "compatible");

    // Resume: one finished sample is unfinished again; the stored adaptations shape its requests from the start.
    let mut edited = results.clone();
    edited["samples"][2]["agent_status"] = json!("in_progress");
    std::fs::write(&output, edited.to_string()).unwrap();
    emulator.reset();
    let again = eval(&dataset, &output, &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let resumed = read(&output);
    assert_all_correct(&resumed, 5, "resumed");
    let records = chat_records(&emulator.stats(), None);
    assert!(records.len() >= 2, "the reopened sample ran again");
    assert_eq!(status_count(&records, 400), 0, "no new refusal: {records:?}");
    assert!(!again.stderr.contains("adapted the requests"), "{}", again.stderr);
    assert_eq!(adaptations(&resumed, "endpoint"), learnt, "the learnt adaptations are kept, once each");
    for (i, (before, after)) in samples(&results).iter().zip(samples(&resumed)).enumerate().filter(|(i, _)| *i != 2) {
        assert_eq!(before["timings"], after["timings"], "finished sample {i} was kept, not redone");
    }
}

#[test]
fn completion_caps_hold_through_repair_turns_whether_known_or_learnt() {
    let dir = scratch("providers-cli-caps");
    let dataset = write_dataset(&dir, 4, true);
    let emulator = Emulator::start(&[]);
    let limits = ["--max-tokens", "20000", "--repair-max-tokens", "32768"];
    let graded = |results: &Value, what: &str| {
        for (i, s) in samples(results).iter().enumerate() {
            assert!(s["correct"].is_boolean() && s["agent_status"] != "api_error" && s["agent_status"] != "in_progress", "{what}: sample {i} graded: {s}");
            if i % 2 == 0 {
                assert_eq!(s["correct"], true, "{what}: sample {i}");
            }
        }
        let repairs: u64 = samples(results).iter().map(|s| s["repairs"]["final_answer"].as_u64().unwrap()).sum();
        assert!(repairs > 0, "{what}: repair turns were sent");
    };
    let limit_of = |r: &Value| r["max_completion_tokens"].as_u64().or_else(|| r["max_tokens"].as_u64()).expect("a completion limit");

    // Known: OpenAI's profile clamps every request, repair turns included, to gpt-4o-mini's cap.
    let known = dir.join("openai.json");
    let mut args = vec!["--provider", "openai", "--model", "gpt-4o-mini"];
    let url = emulator.url("/openai/v1");
    args.extend(["--base-url", url.as_str()]);
    args.extend(limits);
    let run = eval(&dataset, &known, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    graded(&read(&known), "openai");
    let records = chat_records(&emulator.stats(), None);
    assert_eq!(status_count(&records, 200), records.len(), "no refusal");
    assert!(records.iter().all(|r| limit_of(r) <= 16_384), "no request above the cap");
    assert!(records.iter().any(|r| limit_of(r) == 16_384), "the limits were clamped, not dropped");
    assert!(run.stderr.contains("repair turns ask for 16384 tokens instead of 32768"), "{}", run.stderr);

    // Learnt: behind `compatible` the cap comes from the first refusal and then holds for repair turns too.
    emulator.reset();
    let learnt = dir.join("compatible.json");
    args[1] = "compatible";
    let run = eval(&dataset, &learnt, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = read(&learnt);
    graded(&results, "compatible");
    assert!(adaptations(&results, "endpoint").contains(&("capped".into(), json!(16_384))), "{}", results["summary"]["adaptations"]);
    assert!(run.stderr.contains("[eval] adapted the requests: completion limit clamped to 16384"), "{}", run.stderr);
    let records = chat_records(&emulator.stats(), None);
    let refused: Vec<&Value> = records.iter().filter(|r| r["status"] == 400).collect();
    assert!((1..=2).contains(&refused.len()), "one refusal per worker at most: {refused:?}");
    assert!(refused.iter().all(|r| limit_of(r) == 20_000), "only first turns were refused; repair turns never: {refused:?}");
    assert!(records.iter().filter(|r| r["status"] == 200).all(|r| limit_of(r) <= 16_384));
}

#[test]
fn anthropic_speaks_both_wires_and_reports_cached_prompt_tokens() {
    let dir = scratch("providers-cli-anthropic");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&["--cache-min-tokens", "0"]);
    let url = emulator.url("/anthropic/v1");
    for (wire, path, sent_as) in [(None, "/anthropic/v1/messages", "x-api-key"), (Some("chat"), "/anthropic/v1/chat/completions", "x-api-key")] {
        emulator.reset();
        let output = dir.join(format!("{}.json", wire.unwrap_or("default")));
        let mut args = vec!["--provider", "anthropic", "--base-url", url.as_str(), "--model", "claude-haiku-4-5"];
        if let Some(wire) = wire {
            args.extend(["--wire", wire]);
        }
        let run = eval(&dataset, &output, &args);
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        let results = read(&output);
        assert_all_correct(&results, 4, path);
        assert_eq!(results["summary"]["generation_params"]["wire"], wire.unwrap_or("messages"));
        let records = chat_records(&emulator.stats(), None);
        assert!(records.len() >= 8);
        for r in &records {
            // The emulator answers /messages without `anthropic-version` with a 400: a 200 there proves it was sent.
            assert_eq!((&r["path"], &r["auth"], &r["key_ok"], &r["status"]), (&json!(path), &json!(sent_as), &json!(true), &json!(200)), "{r}");
            assert!(r["top_p"].is_null(), "Anthropic takes temperature or top_p, not both: {r}");
        }
        if wire.is_none() {
            // Cache breakpoints were sent: the first request writes the shared prefix, later turns read it.
            let all: Vec<&Value> = samples(&results).iter().flat_map(|s| s["requests"].as_array().unwrap()).collect();
            assert!(all.iter().any(|r| r["cache_write_tokens"].as_u64() > Some(0)), "some prefix was written to the cache");
            for (i, s) in samples(&results).iter().enumerate() {
                let requests = s["requests"].as_array().unwrap();
                assert!(requests.len() >= 2);
                for later in &requests[1..] {
                    assert!(later["cached_prompt_tokens"].as_u64() > Some(0), "sample {i}: a later turn read the cache: {later}");
                }
                assert!(s["usage"]["cached_prompt_tokens"].as_u64() > Some(0), "sample {i}: {}", s["usage"]);
            }
        }
    }
}

#[test]
fn azure_gets_its_api_version_and_key_header_and_the_key_is_written_nowhere() {
    let dir = scratch("providers-cli-azure");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&[]);
    let output = dir.join("results.json");
    let journal = dir.join("results.json.journal");
    let args = ["--provider", "azure", "--base-url", &emulator.url("/azure/openai/deployments/chat"), "--model", "gpt-4o-mini"];
    // One worker waits out a 3 s rate limit while the other finishes samples into the journal; the run is killed
    // then, so the journal is read as a run leaves it.
    emulator.control("ratelimit=1&provider=azure&wait=3s");
    let mut child = Killer(eval_command(&dataset, &output, &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary runs"));
    let (mut stdout, mut stderr) = (child.0.stdout.take().expect("piped stdout"), child.0.stderr.take().expect("piped stderr"));
    let deadline = Instant::now() + Duration::from_secs(20);
    let journal_text = loop {
        assert!(Instant::now() < deadline, "no sample reached the journal in time");
        match std::fs::read_to_string(&journal) {
            Ok(text) if text.ends_with('\n') => break text,
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    child.0.kill().expect("the run is killed");
    child.0.wait().expect("the killed run is reaped");
    let journal_text = std::fs::read_to_string(&journal).unwrap_or(journal_text);
    assert!(journal_text.contains("\"agent_status\""), "the journal holds a finished sample: {journal_text}");
    let mut killed_streams = String::new();
    stdout.read_to_string(&mut killed_streams).expect("the killed run's stdout");
    stderr.read_to_string(&mut killed_streams).expect("the killed run's stderr");
    for (what, text) in [("the journal", journal_text.as_str()), ("the killed run's output", killed_streams.as_str())] {
        assert!(!text.contains(KEY), "the key is in {what}");
    }

    let run = eval(&dataset, &output, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(!text.contains(KEY) && !run.stdout.contains(KEY) && !run.stderr.contains(KEY), "the key is written nowhere");
    assert!(!journal.exists(), "a finished run removes its journal");
    let results = read(&output);
    assert_all_correct(&results, 4, "azure");
    assert_eq!(results["summary"]["start_times"].as_array().map(Vec::len), Some(2), "the killed run was continued");
    let params = &results["summary"]["generation_params"];
    assert_eq!(params["base_url"], json!(format!("{}?api-version=2024-10-21", emulator.url("/azure/openai/deployments/chat"))));
    assert_eq!(params["provider"], "azure");
    let records = chat_records(&emulator.stats(), None);
    assert_eq!(status_count(&records, 429), 1, "the rate limit was met");
    assert!(status_count(&records, 200) >= 8);
    for r in records.iter().filter(|r| r["status"] == 200) {
        assert_eq!((&r["query"]["api-version"], &r["auth"], &r["key_ok"], &r["deployment"]), (&json!("2024-10-21"), &json!("api-key"), &json!(true), &json!("chat")), "{r}");
    }
}

#[test]
fn gemini_is_reached_through_its_openai_path() {
    let dir = scratch("providers-cli-gemini");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&[]);
    let output = dir.join("results.json");
    let run = eval(&dataset, &output, &["--provider", "gemini", "--base-url", &emulator.url("/gemini/v1beta/openai"), "--model", "models/gemini-2.5-flash"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = read(&output);
    assert_all_correct(&results, 4, "gemini");
    assert_eq!(results["summary"]["generation_params"]["provider"], "gemini");
    let records = chat_records(&emulator.stats(), None);
    assert!(records.len() >= 8);
    for r in &records {
        assert_eq!((&r["path"], &r["auth"], &r["key_ok"], &r["status"]), (&json!("/gemini/v1beta/openai/chat/completions"), &json!("bearer"), &json!(true), &json!(200)), "{r}");
        assert!(r["max_tokens"].is_u64() && r["temperature"].is_number(), "Gemini takes max_tokens and a temperature: {r}");
    }
}

#[test]
fn rate_limit_headers_set_the_wait_and_the_run_says_what_it_waits_for() {
    let dir = scratch("providers-cli-ratelimit");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&[]);
    let url = emulator.url("/openai/v1");
    for (style, wait, said) in [("reset-requests", "1s", "waiting 1.0 s for the endpoint's requests limit"), ("retry-after-ms", "700ms", "waiting 0.7 s for the endpoint's Retry-After")] {
        emulator.reset();
        emulator.control(&format!("ratelimit=2&provider=openai&style={style}&wait={wait}"));
        let output = dir.join(format!("{style}.json"));
        // A long backoff of our own: a wait shorter than it can only come from the headers.
        let run = eval(&dataset, &output, &["--provider", "openai", "--base-url", &url, "--model", "gpt-5-mini", "--backoff-ms", "20000", "--max-backoff-ms", "40000"]);
        assert_eq!(run.code, 0, "{style}: {}", run.stderr);
        assert_all_correct(&read(&output), 4, style);
        assert!(run.stderr.contains(&format!("[eval] rate-limited: {said}")), "{style}: {}", run.stderr);
        let records = chat_records(&emulator.stats(), None);
        assert_eq!(status_count(&records, 429), 2, "{style}: both limited requests were answered 429");
    }
}

#[test]
fn reasoning_and_cached_tokens_reach_the_results() {
    let dir = scratch("providers-cli-usage");
    let dataset = write_dataset(&dir, 4, false);
    let emulator = Emulator::start(&["--cache-min-tokens", "0"]);
    for (provider, prefix, model) in [("openai", "/openai/v1", "gpt-5-mini"), ("deepseek", "/deepseek/v1", "deepseek-reasoner")] {
        let output = dir.join(format!("{provider}.json"));
        let run = eval(&dataset, &output, &["--provider", provider, "--base-url", &emulator.url(prefix), "--model", model]);
        assert_eq!(run.code, 0, "{provider}: {}", run.stderr);
        let results = read(&output);
        assert_all_correct(&results, 4, model);
        for (i, s) in samples(&results).iter().enumerate() {
            let usage = &s["usage"];
            let reasoning = usage["reasoning_tokens"].as_u64().expect("usage.reasoning_tokens");
            assert!(reasoning > 0 && reasoning <= usage["completion_tokens"].as_u64().unwrap(), "{model} sample {i}: {usage}");
            let requests = s["requests"].as_array().unwrap();
            assert!(requests.iter().all(|r| r["reasoning_tokens"].as_u64() > Some(0)), "{model} sample {i}: every reply reasoned: {requests:?}");
            for later in &requests[1..] {
                assert!(later["cached_prompt_tokens"].as_u64() > Some(0), "{model} sample {i}: a later turn was served from the cache: {later}");
            }
            assert!(usage["cached_prompt_tokens"].as_u64() > Some(0), "{model} sample {i}: {usage}");
        }
    }
}

#[test]
fn bad_flags_exit_2_with_a_located_message_and_an_endpoint_error_ends_samples_as_api_error() {
    let dir = scratch("providers-cli-bad");
    let dataset = write_dataset(&dir, 3, false);
    let emulator = Emulator::start(&[]);
    let local = emulator.url("/openai/v1");
    let cases: [(&[&str], &[&str]); 6] = [
        (&["--provider", "anthropik", "--base-url", &local], &["--provider", "unknown provider `anthropik`", "openai, azure, anthropic, gemini", "compatible"]),
        (&["--base-url", &local, "--header", "no colon"], &["--header", "`Name: value`"]),
        (&["--base-url", &local, "--header", "X-Trace: 1", "--header", "Authorization: Bearer x"], &["--header (#2)", "key"]),
        (&["--provider", "azure", "--base-url", "https://r.openai.azure.com/openai"], &["--base-url", "deployment"]),
        (&["--base-url", "http://127.0.0.1:1/v1/chat/completions"], &["--base-url", "already ends in `/chat/completions`", "(http://127.0.0.1:1/v1)"]),
        (&["--base-url", &local, "--wire", "telepathy"], &["--wire", "`telepathy`", "chat", "messages"]),
    ];
    for (i, (flags, said)) in cases.iter().enumerate() {
        let output = dir.join(format!("bad-{i}.json"));
        let mut args = vec!["--model", "gpt-4o-mini"];
        args.extend_from_slice(flags);
        let run = eval(&dataset, &output, &args);
        assert_eq!(run.code, 2, "{flags:?}: {}", run.stderr);
        let message = run.stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{flags:?}: an error line in {}", run.stderr));
        for part in *said {
            assert!(message.contains(part), "{flags:?}: the message says {part:?}: {message}");
        }
        assert!(!output.exists() && !dir.join(format!("bad-{i}.json.journal")).exists(), "{flags:?}: nothing written");
    }
    assert!(chat_records(&emulator.stats(), None).is_empty(), "no request left for a refused command line");

    // An endpoint that answers 404: every sample ends `api_error` with the server's words, and the file is whole.
    let output = dir.join("nowhere.json");
    let run = eval(&dataset, &output, &["--provider", "openai", "--base-url", &emulator.url("/nowhere/v1"), "--model", "gpt-4o-mini"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let results = read(&output);
    assert_eq!(samples(&results).len(), 3, "nothing lost");
    for (i, s) in samples(&results).iter().enumerate() {
        assert_eq!((&s["agent_status"], &s["correct"]), (&json!("api_error"), &json!(false)), "sample {i}");
        let error = s["agent_error"].as_str().expect("a failed sample says why");
        assert!(error.contains("HTTP 404") && error.contains("no provider route at /nowhere/v1/chat/completions"), "sample {i}: {error}");
    }
    assert_eq!(results["summary"]["num_finished"], 3);
}

#[test]
fn a_proxy_page_in_place_of_the_api_is_retried_when_passing_and_reported_by_its_title_when_not() {
    let dir = scratch("providers-cli-gateway");
    let dataset = write_dataset(&dir, 3, false);
    let emulator = Emulator::start(&[]);
    let url = emulator.url("/openai/v1");

    // One nginx 502 page and one Envoy 503 line: both passing, both retried, nothing lost.
    emulator.control("gateway=1&provider=openai&status=502");
    emulator.control("gateway=1&provider=openai&status=503&page=text");
    let output = dir.join("passing.json");
    let run = eval(&dataset, &output, &["--provider", "openai", "--base-url", &url, "--model", "gpt-4o-mini", "--backoff-ms", "50"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_all_correct(&read(&output), 3, "after a gateway's 502 and 503");
    let records = chat_records(&emulator.stats(), None);
    assert_eq!((status_count(&records, 502), status_count(&records, 503)), (1, 1), "each page was served once");

    // A firewall's 403 page on every request: the samples end `api_error` saying the page's title, not its markup.
    emulator.reset();
    emulator.control("gateway=1000&provider=openai&status=403");
    let output = dir.join("refused.json");
    let run = eval(&dataset, &output, &["--provider", "openai", "--base-url", &url, "--model", "gpt-4o-mini"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let results = read(&output);
    assert_eq!(samples(&results).len(), 3, "nothing lost");
    for (i, s) in samples(&results).iter().enumerate() {
        assert_eq!(s["agent_status"], json!("api_error"), "sample {i}");
        let error = s["agent_error"].as_str().expect("a failed sample says why");
        assert!(error.starts_with("HTTP 403: 403 Forbidden (an HTML page"), "sample {i}: {error}");
        assert!(!error.contains('<'), "sample {i}: no markup in {error}");
    }
}
