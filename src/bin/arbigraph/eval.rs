//! `arbigraph eval`: the native driver of the sans-IO agent loop against an OpenAI-compatible endpoint —
//! HTTP with per-request timeouts, retries (exponential backoff with jitter, `Retry-After` honoured, capped),
//! worker threads, a results file rewritten atomically after every finished sample, resume, and a progress line.

use arbigraph_studio::engine::agent::context::{Strategy, DEFAULT_ACG_BUDGET};
use arbigraph_studio::engine::agent::openai_wire::{parse_reply, request_json};
use arbigraph_studio::engine::agent::results::{aggregates, generation_params, result_sample};
use arbigraph_studio::engine::dataset::to_pretty_string;
use arbigraph_studio::engine::agent::{run_to_end, AgentConfig, AgentError, AgentInput, ChatReply, ChatRequest};
use arbigraph_studio::engine::grade::metrics::topology_and_family;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Arguments of `arbigraph eval`.
#[derive(clap::Args)]
pub struct Args {
    /// The dataset (reference layout), or a results file to continue.
    #[arg(long)]
    dataset: PathBuf,
    /// The endpoint's base URL, e.g. `http://127.0.0.1:8099/v1` (`/chat/completions` is appended).
    #[arg(long)]
    base_url: String,
    /// The model name sent with every request.
    #[arg(long)]
    model: String,
    /// Name of the environment variable holding the API key (sent as a bearer token, never written anywhere).
    #[arg(long)]
    api_key_env: Option<String>,
    /// Context strategy.
    #[arg(long, default_value = "full", value_parser = ["full", "acg"])]
    strategy: String,
    /// Token budget of the `acg` view.
    #[arg(long, default_value_t = DEFAULT_ACG_BUDGET)]
    acg_budget: u64,
    /// Samples run at the same time.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Completion limit of a normal turn (default: the release's 16384).
    #[arg(long)]
    max_tokens: Option<u32>,
    /// Completion limit of a repair turn (default: the release's 32768).
    #[arg(long)]
    repair_max_tokens: Option<u32>,
    /// Context window for the pre-check (default: per topology, 262144 or 524288); 0 disables it.
    #[arg(long)]
    max_model_len: Option<u64>,
    /// Turn limit (default: per topology).
    #[arg(long)]
    max_turns: Option<usize>,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// Do not demand a calculator call before accepting answers.
    #[arg(long)]
    no_require_calculator: bool,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 600.0)]
    timeout_secs: f64,
    /// Attempts per request before the sample is recorded as `api_error`.
    #[arg(long, default_value_t = 6)]
    max_attempts: u32,
    /// First retry delay in milliseconds (doubled per attempt, with jitter).
    #[arg(long, default_value_t = 1000)]
    backoff_ms: u64,
    /// Longest retry delay in milliseconds (also caps `Retry-After`).
    #[arg(long, default_value_t = 60_000)]
    max_backoff_ms: u64,
    /// Only the first N samples of the dataset.
    #[arg(long)]
    limit: Option<usize>,
    /// Also record the lenient verdict.
    #[arg(long)]
    lenient: bool,
    /// The results file (continued if it exists).
    #[arg(short, long)]
    output: PathBuf,
}

/// Retry settings.
#[derive(Clone, Copy)]
struct RetryPolicy {
    max_attempts: u32,
    base: Duration,
    cap: Duration,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(code) => code,
        Err(message) => super::files::fail(message),
    }
}

fn now_iso() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}", rem / 3600, rem % 3600 / 60, rem % 60, now.subsec_micros())
}

fn config_for(sample: &Value, args: &Args) -> AgentConfig {
    let (topology, _) = topology_and_family(sample);
    let mut config = AgentConfig::for_topology(&topology);
    if let Some(t) = args.max_tokens {
        config.max_tokens = t;
    }
    if let Some(t) = args.repair_max_tokens {
        config.repair_max_tokens = t;
    }
    if let Some(len) = args.max_model_len {
        config.max_model_len = (len > 0).then_some(len);
    }
    if let Some(turns) = args.max_turns {
        config.max_turns = turns.max(1);
    }
    config.temperature = args.temperature;
    config.require_initial_calculator_call = !args.no_require_calculator;
    config.lenient = args.lenient;
    config.strategy = if args.strategy == "acg" { Strategy::Acg { budget_tokens: args.acg_budget } } else { Strategy::Full };
    config
}

fn is_finished(sample: &Value) -> bool {
    sample.get("agent_status").and_then(Value::as_str).is_some_and(|s| s != "in_progress")
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let api_key = match &args.api_key_env {
        Some(var) => Some(std::env::var(var).map_err(|_| format!("environment variable {var} (named by --api-key-env) is not set"))?),
        None => None,
    };
    let dataset = super::files::read_json(&args.dataset)?;
    let mut samples: Vec<Value> = dataset.get("samples").and_then(Value::as_array).cloned().ok_or_else(|| format!("{}: no `samples` array", args.dataset.display()))?;
    if let Some(limit) = args.limit {
        samples.truncate(limit);
    }
    if samples.is_empty() {
        return Err(format!("{}: the dataset has no samples", args.dataset.display()));
    }
    let dataset_summary = dataset.get("summary").cloned().unwrap_or(json!({}));
    let first_config = config_for(&samples[0], args);
    let params = generation_params(&first_config, &args.model, &args.base_url);

    // Resume: keep finished samples of an existing results file made with the same settings.
    let mut start_times: Vec<Value> = Vec::new();
    let mut system_prompt = first_config.system_prompt.clone();
    if args.output.exists() {
        let previous = super::files::read_json(&args.output)?;
        let summary = previous.get("summary").cloned().unwrap_or(json!({}));
        let Some(old_params) = summary.get("generation_params") else {
            return Err(format!("{} exists and is not a results file; refusing to overwrite it", args.output.display()));
        };
        for key in ["model", "strategy", "max_tokens", "temperature", "require_initial_calculator_call"] {
            if old_params.get(key) != params.get(key) {
                return Err(format!(
                    "{}: cannot continue, `{key}` was {} and is now {}",
                    args.output.display(),
                    old_params.get(key).unwrap_or(&Value::Null),
                    params.get(key).unwrap_or(&Value::Null)
                ));
            }
        }
        if let Some(stored) = summary.get("system_prompt").and_then(Value::as_str) {
            system_prompt = stored.to_string();
        }
        start_times = summary.get("start_times").and_then(Value::as_array).cloned().unwrap_or_default();
        let old_samples = previous.get("samples").and_then(Value::as_array).cloned().unwrap_or_default();
        for (i, old) in old_samples.into_iter().enumerate() {
            if i >= samples.len() || !is_finished(&old) {
                continue;
            }
            if old.get("prompt") != samples[i].get("prompt") {
                return Err(format!("{}: sample {i} has a different prompt than the dataset; cannot continue", args.output.display()));
            }
            samples[i] = old;
        }
    }
    start_times.push(json!(now_iso()));

    let mut summary = serde_json::Map::new();
    summary.insert("start_times".into(), Value::Array(start_times));
    summary.insert("generation_params".into(), params);
    summary.insert("system_prompt".into(), json!(system_prompt));
    summary.insert("mode".into(), json!("agent"));
    for key in ["num_tasks", "num_samples_per_task"] {
        if let Some(v) = dataset_summary.get(key) {
            summary.insert(key.into(), v.clone());
        }
    }
    if let Some(mode) = dataset_summary.get("mode") {
        summary.insert("dataset_mode".into(), mode.clone());
    }
    summary.insert("dataset".into(), json!(args.dataset.display().to_string()));

    let pending: Vec<usize> = (0..samples.len()).filter(|&i| !is_finished(&samples[i])).collect();
    let resumed = samples.len() - pending.len();
    let total = samples.len();
    let url = if args.base_url.trim_end_matches('/').ends_with("/chat/completions") {
        args.base_url.clone()
    } else {
        format!("{}/chat/completions", args.base_url.trim_end_matches('/'))
    };
    let policy = RetryPolicy { max_attempts: args.max_attempts.max(1), base: Duration::from_millis(args.backoff_ms), cap: Duration::from_millis(args.max_backoff_ms) };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs_f64(args.timeout_secs.max(0.001))))
        .http_status_as_error(false)
        .build()
        .into();

    let jobs: Arc<Vec<(usize, Value, AgentConfig)>> = Arc::new(
        pending
            .iter()
            .map(|&i| {
                let mut config = config_for(&samples[i], args);
                config.system_prompt = system_prompt.clone();
                (i, samples[i].clone(), config)
            })
            .collect(),
    );
    let next_job = Arc::new(AtomicUsize::new(0));
    let (sender, receiver) = mpsc::channel::<(usize, Value)>();
    let started = Instant::now();
    let workers = args.concurrency.clamp(1, 256).min(jobs.len().max(1));
    let mut handles = Vec::new();
    for worker in 0..workers {
        let (jobs, next_job, sender, agent) = (Arc::clone(&jobs), Arc::clone(&next_job), sender.clone(), agent.clone());
        let (url, api_key, model, strategy) = (url.clone(), api_key.clone(), args.model.clone(), args.strategy.clone());
        handles.push(std::thread::spawn(move || {
            while let Some((index, sample, config)) = jobs.get(next_job.fetch_add(1, Ordering::SeqCst)) {
                let seed = (worker as u64) << 48 ^ *index as u64;
                let result = run_sample(&agent, &url, api_key.as_deref(), &model, sample, *index, config, &strategy, policy, seed);
                if sender.send((*index, result)).is_err() {
                    break;
                }
            }
        }));
    }
    drop(sender);

    let mut done = 0usize;
    let mut failed = 0usize;
    let mut correct = samples.iter().filter(|s| is_finished(s) && s.get("correct") == Some(&Value::Bool(true))).count();
    write_results(&args.output, &summary, &samples, false)?;
    for (index, result) in receiver {
        if result.get("correct") == Some(&Value::Bool(true)) {
            correct += 1;
        }
        if matches!(result.get("agent_status").and_then(Value::as_str), Some("api_error" | "invalid_sample")) {
            failed += 1;
        }
        samples[index] = result;
        done += 1;
        write_results(&args.output, &summary, &samples, false)?;
        eprint!(
            "\r[eval] {}/{} finished ({} resumed) · correct {} · failed {} · {:.1} s   ",
            resumed + done,
            total,
            resumed,
            correct,
            failed,
            started.elapsed().as_secs_f64()
        );
    }
    for handle in handles {
        let _ = handle.join();
    }
    eprintln!();
    write_results(&args.output, &summary, &samples, true)?;
    eprintln!(
        "[eval] accuracy {correct}/{total} · explicitly failed {failed} · results in {} (metrics: arbigraph grade {})",
        args.output.display(),
        args.output.display()
    );
    let unfinished = samples.iter().filter(|s| !is_finished(s)).count();
    if unfinished > 0 {
        return Err(format!("{unfinished} samples did not finish (a worker stopped); run the same command again to continue"));
    }
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Writes the whole results file to a temporary sibling and renames it over the target.
fn write_results(path: &Path, summary: &serde_json::Map<String, Value>, samples: &[Value], pretty: bool) -> Result<(), String> {
    let finished: Vec<Value> = samples.iter().filter(|s| is_finished(s)).cloned().collect();
    let mut summary = summary.clone();
    summary.extend(aggregates(&finished));
    summary.insert("num_finished".into(), json!(finished.len()));
    let file = json!({"summary": Value::Object(summary), "samples": samples});
    let text = if pretty { to_pretty_string(&file) } else { file.to_string() };
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), path.display()))
}

#[allow(clippy::too_many_arguments)]
fn run_sample(
    agent: &ureq::Agent,
    url: &str,
    api_key: Option<&str>,
    model: &str,
    sample: &Value,
    index: usize,
    config: &AgentConfig,
    strategy: &str,
    policy: RetryPolicy,
    seed: u64,
) -> Value {
    let started_at = now_iso();
    let clock = Instant::now();
    let input = match AgentInput::from_sample(sample, index) {
        Ok(input) => input,
        Err(e) => {
            let mut out = sample.clone();
            if let Some(map) = out.as_object_mut() {
                map.insert("correct".into(), json!(false));
                map.insert("agent_status".into(), json!("invalid_sample"));
                map.insert("agent_error".into(), json!(e.to_string()));
            }
            return out;
        }
    };
    let mut attempts_total = 0u32;
    let record = run_to_end(&input, config, |request| {
        call_with_retries(agent, url, api_key, model, request, policy, seed, &mut attempts_total).map_err(|message| AgentError { message })
    });
    let timings = json!({
        "started_at": started_at,
        "finished_at": now_iso(),
        "wall_ms": clock.elapsed().as_millis() as u64,
        "http_attempts": attempts_total
    });
    result_sample(sample, &record, strategy, timings)
}

/// One request with retries; returns the reply or the final error (never containing the API key).
#[allow(clippy::too_many_arguments)]
fn call_with_retries(
    agent: &ureq::Agent,
    url: &str,
    api_key: Option<&str>,
    model: &str,
    request: &ChatRequest,
    policy: RetryPolicy,
    seed: u64,
    attempts_total: &mut u32,
) -> Result<ChatReply, String> {
    let body = request_json(request, model).to_string();
    let mut last_error = String::new();
    for attempt in 1..=policy.max_attempts {
        *attempts_total += 1;
        let started = Instant::now();
        let mut builder = agent.post(url).header("Content-Type", "application/json");
        if let Some(key) = api_key {
            builder = builder.header("Authorization", format!("Bearer {key}"));
        }
        let mut retry_after: Option<Duration> = None;
        match builder.send(body.as_str()) {
            Ok(mut response) => {
                let status = response.status().as_u16();
                retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64);
                let text = response.body_mut().read_to_string();
                match (status, text) {
                    (200..=299, Ok(text)) => match parse_reply(&text) {
                        Ok(mut reply) => {
                            reply.latency_ms = Some(started.elapsed().as_millis() as u64);
                            return Ok(reply);
                        }
                        Err(e) => last_error = e.to_string(),
                    },
                    (200..=299, Err(e)) => last_error = format!("reading the reply body failed: {e}"),
                    (429 | 500..=599, text) => last_error = format!("HTTP {status}: {}", short(&text.unwrap_or_default())),
                    (_, text) => return Err(format!("HTTP {status}: {}", short(&text.unwrap_or_default()))),
                }
            }
            Err(e) => last_error = format!("request failed: {e}"),
        }
        if attempt == policy.max_attempts {
            break;
        }
        std::thread::sleep(backoff(policy, attempt, retry_after, seed));
    }
    Err(format!("gave up after {} attempts: {last_error}", policy.max_attempts))
}

fn short(text: &str) -> String {
    let mut s: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        s.push('…');
    }
    s
}

/// Exponential backoff with jitter (50–100% of the step), or the server's `Retry-After`, both capped.
fn backoff(policy: RetryPolicy, attempt: u32, retry_after: Option<Duration>, seed: u64) -> Duration {
    if let Some(wait) = retry_after {
        return wait.min(policy.cap);
    }
    let step = policy.base.saturating_mul(1u32 << (attempt - 1).min(20)).min(policy.cap);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos() as u64).unwrap_or(0);
    let mut x = seed ^ nanos ^ ((attempt as u64) << 32) ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    let fraction = 0.5 + 0.5 * (x % 10_000) as f64 / 10_000.0;
    step.mul_f64(fraction)
}
