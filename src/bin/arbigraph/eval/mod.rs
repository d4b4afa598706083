//! `arbigraph eval`: the native driver of the engine's agent loop against an OpenAI-compatible endpoint —
//! a blocking HTTP `ChatBackend` with per-request timeouts (the engine's retry policy decides retries and waits),
//! worker threads, an append-only journal of finished samples beside a results file rewritten atomically at most
//! every few seconds (so a kill loses nothing finished and the cost per sample stays flat), resume, and a
//! progress line. The run itself (what to resume and when to refuse, the queue, the tally) is `engine::run`'s:
//! this file is its IO.

mod lab;

use arbigraph_studio::engine::agent::endpoint::parse_header;
use arbigraph_studio::engine::agent::provider::{self, RequestShape, Resend, Wire};
use arbigraph_studio::engine::agent::retry::wait_from_headers;
use arbigraph_studio::engine::agent::strategy::{split_param, Strategy};
use arbigraph_studio::engine::agent::{
    run_episode, wire, AgentConfig, AgentError, AgentInput, AgentSession, CallFailure, ChatBackend, ChatReply, ChatRequest, Endpoint, EpisodeEnd, EpisodeEvent,
    RetryPolicy, Secret,
};
use arbigraph_studio::engine::dataset::shape::topology_of;
use arbigraph_studio::engine::dataset::to_pretty_string;
use arbigraph_studio::engine::results::{
    dataset_fingerprint, epoch_of, epoch_report, expand_epochs, grade_results_file, redact_url, result_sample, GradeOptions, RunHeader, Shard,
};
use arbigraph_studio::engine::run::{self, close, continue_from, resume, settle, Next, Run, Spend};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Arguments of `arbigraph eval`.
#[derive(clap::Args, Clone)]
pub struct Args {
    /// The dataset (reference layout), or a results file to continue.
    #[arg(long)]
    dataset: PathBuf,
    /// The endpoint's base URL, e.g. `http://127.0.0.1:8099/v1` (the request path is appended); default: the
    /// provider's. Repeatable: several replicas of one model share the samples (sample k of this run starts on
    /// replica k mod R), and a request that fails on one replica is retried on the next.
    #[arg(long)]
    base_url: Vec<String>,
    /// The provider: openai, azure, anthropic, gemini, openrouter, together, groq, deepseek, mistral, xai, vllm,
    /// sglang, ollama, llamacpp, lmstudio or compatible (docs/PROVIDERS.md). It decides how the key is sent, the
    /// wire, and the parameters each model takes. Default: inferred from --base-url.
    #[arg(long)]
    provider: Option<String>,
    /// The wire: `chat` (chat completions) or `messages` (Anthropic's Messages API). Default: the provider's.
    #[arg(long)]
    wire: Option<String>,
    /// The model name sent with every request.
    #[arg(long)]
    model: String,
    /// Name of the environment variable holding the API key (sent as the provider wants it, never written
    /// anywhere). Default: the provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …) when it is set.
    #[arg(long)]
    api_key_env: Option<String>,
    /// An extra request header, `Name: value` (repeatable; values are never written anywhere).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    // The help lists every strategy of the registry with its parameter defaults (`strategy::help`); repeated, it
    // runs a strategy lab (`lab.rs`).
    #[arg(long, default_value = "full", help = lab::strategy_help())]
    strategy: Vec<String>,
    /// One parameter of the strategy as `key=value` (repeatable; overrides the same key given after `NAME:`).
    #[arg(long = "strategy-param", value_name = "KEY=VALUE")]
    strategy_params: Vec<String>,
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
    /// Run one shard of the dataset, `I/N` (0 ≤ I < N): the samples whose index k (after --limit) has
    /// k mod N = I, so N runs with 0/N … N−1/N cover the dataset exactly once. The results file records the shard
    /// and the dataset index of each sample; `arbigraph merge` puts the parts together.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Attempts per sample: the run holds every sample K times (epoch by epoch, each marked with `epoch`), and
    /// the end of the run reports mean accuracy and pass^k (all K attempts correct).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    epochs: u32,
    /// Also record the lenient verdict.
    #[arg(long)]
    lenient: bool,
    /// The results file (continued if it exists); with several --strategy, a folder holding one results file
    /// per strategy.
    #[arg(short, long)]
    output: PathBuf,
}

impl Args {
    /// The `--strategy` values as given, in order.
    pub(super) fn strategies(&self) -> &[String] {
        &self.strategy
    }

    /// `--output` as given.
    pub(super) fn output(&self) -> &Path {
        &self.output
    }

    /// Whether `--strategy-param` was given.
    pub(super) fn has_strategy_params(&self) -> bool {
        !self.strategy_params.is_empty()
    }

    /// The same run with one strategy, written to `output`.
    pub(super) fn one(&self, strategy: &str, output: PathBuf) -> Args {
        Args { strategy: vec![strategy.to_string()], output, ..self.clone() }
    }
}

/// Runs the command; several `--strategy` run a strategy lab.
pub fn run(args: Args) -> ExitCode {
    if args.strategy.len() > 1 {
        return lab::run(&args);
    }
    match run_one(&args) {
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

/// The strategy `--strategy` (the first) and `--strategy-param` name, checked against the registry.
pub(super) fn strategy_of(args: &Args) -> Result<Strategy, String> {
    let spec = args.strategy.first().map_or("full", String::as_str);
    let (name, inline) = match spec.split_once(':') {
        Some((name, rest)) => (name.trim(), rest),
        None => (spec.trim(), ""),
    };
    let mut params: Vec<(String, String)> = Vec::new();
    for text in inline.split(',').map(str::trim).filter(|t| !t.is_empty()).chain(args.strategy_params.iter().map(String::as_str)) {
        let (key, value) = split_param(text).map_err(|e| format!("--strategy: {e}"))?;
        params.retain(|(k, _)| *k != key);
        params.push((key, value));
    }
    Strategy::from_parts(name, &params).map_err(|e| format!("--strategy: {e}"))
}

fn config_for(sample: &Value, args: &Args, strategy: &Strategy) -> AgentConfig {
    let mut config = AgentConfig::for_topology(topology_of(sample));
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
    config.strategy = strategy.clone();
    config
}

/// The endpoints the flags describe (one per `--base-url`, or the provider's own), or the first problem with
/// them, named by its flag.
fn endpoints_of(args: &Args) -> Result<Vec<Endpoint>, String> {
    if args.base_url.is_empty() {
        return Ok(vec![endpoint_of(args, None)?]);
    }
    args.base_url.iter().enumerate().map(|(i, url)| endpoint_of(args, Some(url)).map_err(|e| if args.base_url.len() > 1 { format!("{e} (--base-url #{})", i + 1) } else { e })).collect()
}

/// The endpoint at `base_url` (default: the provider's) the other flags describe.
fn endpoint_of(args: &Args, base_url: Option<&String>) -> Result<Endpoint, String> {
    let named = args.provider.as_deref().map(|name| provider::profile(name).map_err(|e| format!("--provider: {e}"))).transpose()?;
    let base_url = match (base_url, named) {
        (Some(url), _) => url.clone(),
        (None, Some(profile)) => profile.base_url.to_string(),
        (None, None) => return Err("give --base-url, --provider, or both".into()),
    };
    let wire = args.wire.as_deref().map(|w| Wire::parse(w).map_err(|e| format!("--wire: {e}"))).transpose()?;
    let mut headers = Vec::new();
    for (i, line) in args.headers.iter().enumerate() {
        headers.push(parse_header(line).map_err(|e| format!("--header (#{}): {e}", i + 1))?);
    }
    let mut endpoint = Endpoint { base_url, model: args.model.clone(), headers, provider: args.provider.clone().unwrap_or_default(), wire, ..Endpoint::default() };
    if let Some(problem) = endpoint.base_url_problem() {
        let flag = if args.base_url.is_empty() { "--provider" } else { "--base-url" };
        return Err(format!("{flag}: {problem}"));
    }
    let profile = endpoint.profile();
    endpoint.api_key = match &args.api_key_env {
        Some(var) => Secret::new(std::env::var(var).map_err(|_| format!("environment variable {var} (named by --api-key-env) is not set"))?),
        None if !profile.key_env.is_empty() => std::env::var(profile.key_env).map(Secret::new).unwrap_or_default(),
        None => Secret::default(),
    };
    if endpoint.api_key.is_empty() && profile.needs_key {
        let hint = if profile.key_env.is_empty() { String::new() } else { format!(" (or set {})", profile.key_env) };
        eprintln!("[eval] warning: {} needs an API key and none was given: name its variable with --api-key-env{hint}", profile.label);
    }
    Ok(endpoint)
}

/// One run: the first `--strategy` over the dataset into `--output`.
pub(super) fn run_one(args: &Args) -> Result<ExitCode, String> {
    let strategy = strategy_of(args)?;
    let endpoints = endpoints_of(args)?;
    let endpoint = &endpoints[0];
    let DatasetSamples { samples, summary: dataset_summary, origins, shard } = dataset_samples(args)?;
    let first_config = config_for(&samples[0], args, &strategy);
    let mut header = RunHeader::new(&first_config, endpoint, &args.dataset.display().to_string(), &dataset_summary, now_iso());
    if endpoints.len() > 1 {
        let urls: Vec<String> = endpoints.iter().map(|e| redact_url(&e.profile().with_required_query(&e.base_url))).collect();
        header.generation_params["base_urls"] = json!(urls);
    }
    header.shard = shard.clone();
    let run = RefCell::new(Run::new(samples, Spend::default()));
    // Resume: keep finished samples of an existing results file made with the same settings (and shard).
    if args.output.exists() {
        let source = args.output.display().to_string();
        let previous = super::files::read_json(&args.output)?;
        super::shard::check_same_shard(&source, &previous, &shard)?;
        let entries = continue_from(&source, &previous, &mut header, &strategy)?;
        run.borrow_mut().merge(&source, entries)?;
    }
    // What the run sends, negotiated from the provider's profile and the endpoint's refusals, shared by every
    // worker and kept in the results file, so a resumed run starts from what this one learnt.
    let shape = RequestShape::resumed(endpoint.profile(), endpoint.wire(), &endpoint.model, Some(&header.adaptations));
    for line in shape.planned(first_config.temperature, first_config.repair_max_tokens) {
        eprintln!("[eval] {}: {line}", endpoint.profile().label);
    }
    let shape = Mutex::new(shape);
    let system_prompt = header.system_prompt.clone();
    let journal = FileJournal::open(&args.output, header, &shape)?;
    // Samples finished after the results file was last rewritten are in its journal.
    pollster::block_on(resume(&run, &journal))?;
    journal.start(run.borrow().current_samples())?;
    let started = Instant::now();
    let jobs = Workers { args, endpoints: &endpoints, shape: &shape, strategy: &strategy, system_prompt: &system_prompt, origins: &origins };
    jobs.run(&run, |index, result| {
        pollster::block_on(settle(&run, &journal, index, result))?;
        let t = run.borrow().tally();
        let (finished, total, resumed, correct, failed, secs) = (t.finished, t.total, t.resumed, t.correct, t.failed, started.elapsed().as_secs_f64());
        eprint!("\r[eval] {finished}/{total} finished ({resumed} resumed) · correct {correct} · failed {failed} · {secs:.1} s   ");
        Ok(())
    })?;
    eprintln!();
    pollster::block_on(close(&run, &journal))?;
    let (t, output) = (run.borrow().tally(), args.output.display());
    eprintln!("[eval] strategy {strategy} · accuracy {}/{} · explicitly failed {} · results in {output} (metrics: arbigraph grade {output})", t.correct, t.total, t.failed);
    if args.epochs > 1 {
        let file = journal.results_file();
        if let Some(report) = grade_results_file(&file, GradeOptions::default()).ok().and_then(|graded| epoch_report(&file, &graded)) {
            eprintln!("[eval] {}", report.headline());
        }
    }
    let unfinished = t.total - t.finished;
    if unfinished > 0 {
        return Err(format!("{unfinished} samples did not finish (a worker stopped); run the same command again to continue"));
    }
    Ok(if t.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What a run holds of its dataset.
struct DatasetSamples {
    /// The samples as the run holds them.
    samples: Vec<Value>,
    /// The dataset's summary.
    summary: Value,
    /// The dataset index of each sample (the identity unless the run is a shard).
    origins: Vec<usize>,
    /// `summary.shard` of a shard's results file, `Null` for a whole run.
    shard: Value,
}

/// The dataset's samples as the run holds them (the first `--limit`, those of `--shard`, pictures inlined,
/// `--epochs` attempts of each unless the dataset is a results file that already has them) and the dataset's
/// summary.
fn dataset_samples(args: &Args) -> Result<DatasetSamples, String> {
    let dataset = super::files::read_json(&args.dataset)?;
    let mut samples: Vec<Value> = dataset.get("samples").and_then(Value::as_array).cloned().ok_or_else(|| format!("{}: no `samples` array", args.dataset.display()))?;
    if let Some(limit) = args.limit {
        samples.truncate(limit);
    }
    if samples.is_empty() {
        return Err(format!("{}: the dataset has no samples", args.dataset.display()));
    }
    let has_epochs = samples.iter().any(|s| epoch_of(s) > 0);
    let (total, fingerprint) = (samples.len(), args.shard.map(|_| dataset_fingerprint(&samples)));
    let mut origins: Vec<usize> = (0..total).collect();
    if let Some(shard) = args.shard {
        if has_epochs {
            return Err(format!("--shard: {} is a results file holding several epochs; shard its dataset instead", args.dataset.display()));
        }
        origins = shard.select(total);
        if origins.is_empty() {
            return Err(format!("--shard {shard}: the dataset has {total} samples, so this shard holds none (use at most {total} shards)"));
        }
        samples = origins.iter().map(|&k| samples[k].clone()).collect();
    }
    // Pictures stored as files beside the dataset travel as data URLs, like inline ones.
    let base_dir = args.dataset.parent().unwrap_or(Path::new("."));
    for (sample, index) in samples.iter_mut().zip(&origins) {
        inline_image_files(sample, base_dir).map_err(|e| format!("{}: sample {index}: {e}", args.dataset.display()))?;
    }
    // A results file given as the dataset already holds every attempt.
    if !has_epochs {
        samples = expand_epochs(&samples, args.epochs as usize);
        origins = origins.iter().copied().cycle().take(samples.len()).collect();
    }
    let shard = match (args.shard, fingerprint) {
        (Some(shard), Some(fingerprint)) => shard.summary(total, &fingerprint, &origins),
        _ => Value::Null,
    };
    Ok(DatasetSamples { samples, summary: dataset.get("summary").cloned().unwrap_or(json!({})), origins, shard })
}

/// The worker threads of a run: each takes the jobs the run hands out, one at a time, and runs them against the
/// endpoint; the calling thread hands every finished sample to `settled` and asks the run for the next job, so
/// no job starts once the run says none may.
struct Workers<'a> {
    args: &'a Args,
    /// The replicas; sample k of the run starts on replica k mod R.
    endpoints: &'a [Endpoint],
    /// The dataset index of each sample of the run.
    origins: &'a [usize],
    shape: &'a Mutex<RequestShape>,
    strategy: &'a Strategy,
    system_prompt: &'a str,
}

impl Workers<'_> {
    fn run(&self, run: &RefCell<Run>, mut settled: impl FnMut(usize, Value) -> Result<(), String>) -> Result<(), String> {
        let args = self.args;
        let policy = RetryPolicy { max_attempts: args.max_attempts.max(1), base_delay_ms: args.backoff_ms, max_delay_ms: args.max_backoff_ms };
        let agent: ureq::Agent =
            ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs_f64(args.timeout_secs.max(0.001)))).http_status_as_error(false).build().into();
        let timeout_ms = (args.timeout_secs.max(0.001) * 1000.0) as u64;
        let workers = args.concurrency.clamp(1, 256).min(run.borrow().queued().max(1));
        let (job_sender, jobs) = mpsc::channel::<(usize, Value)>();
        let jobs = Mutex::new(jobs);
        let (sender, finished) = mpsc::channel::<(usize, Value)>();
        std::thread::scope(|scope| {
            for worker in 0..workers {
                let (jobs, sender, agent, policy) = (&jobs, sender.clone(), &agent, &policy);
                scope.spawn(move || loop {
                    let Ok(Ok((index, sample))) = jobs.lock().map(|jobs| jobs.recv()) else { break };
                    let mut config = config_for(&sample, args, self.strategy);
                    config.system_prompt = self.system_prompt.to_string();
                    let seed = Cell::new((worker as u64) << 48 ^ index as u64);
                    let replica = Cell::new(index % self.endpoints.len());
                    let backend = UreqBackend { agent, endpoints: self.endpoints, replica, shape: self.shape, timeout_ms, attempts: Cell::new(0), seed };
                    let origin = self.origins.get(index).copied().unwrap_or(index);
                    if sender.send((index, run_sample(&backend, &sample, origin, &config, policy))).is_err() {
                        break;
                    }
                });
            }
            drop(sender);
            // One job per worker to begin with, then one more for every job handed back.
            let mut job_sender = Some(job_sender);
            let mut hand_out = || {
                let next = run.borrow_mut().next_job();
                let job = match next {
                    Next::Job(index) => run.borrow().sample(index).map(|sample| (index, sample.clone())),
                    Next::Wait | Next::Over => None,
                };
                match (job, &job_sender) {
                    (Some(job), Some(sender)) => {
                        let _ = sender.send(job);
                    }
                    _ => job_sender = None,
                }
            };
            (0..workers).for_each(|_| hand_out());
            for (index, result) in finished {
                settled(index, result)?;
                hand_out();
            }
            Ok(())
        })
    }
}

/// Replaces each `images[].file` of a sample by a `data_url` with the file's bytes (read relative to `base_dir`).
fn inline_image_files(sample: &mut Value, base_dir: &Path) -> Result<(), String> {
    let Some(images) = sample.get_mut("images").and_then(Value::as_array_mut) else { return Ok(()) };
    for entry in images {
        if entry.get("data_url").is_some() {
            continue;
        }
        let Some(file) = entry.get("file").and_then(Value::as_str) else { continue };
        let path = base_dir.join(file);
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read the picture {}: {e}", path.display()))?;
        entry["data_url"] = json!(arbigraph_studio::engine::dataset::data_url(&bytes));
    }
    Ok(())
}

/// How often the whole results file is rewritten while samples finish (the journal holds those in between).
const REWRITE_EVERY: Duration = Duration::from_secs(5);

/// The journal beside `output`: `results.json` → `results.json.journal`.
fn journal_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

/// Finished samples appended one JSON line each (`{"index": i, "result": {…}}`), flushed as they come, so a
/// kill loses at most the line being written.
struct JournalFile {
    file: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
}

impl JournalFile {
    /// An empty journal at `path` (truncating an old one).
    fn create(path: &Path) -> Result<JournalFile, String> {
        let file = std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(JournalFile { file: std::io::BufWriter::new(file), path: path.to_path_buf() })
    }

    fn append(&mut self, index: usize, result: &Value) -> Result<(), String> {
        use std::io::Write;
        let line = json!({"index": index, "result": result}).to_string();
        writeln!(self.file, "{line}").and_then(|()| self.file.flush()).map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// The journal's entries in order; a missing journal is empty, and a line cut short by a kill (the last one) or
/// unreadable is skipped.
fn read_journal(path: &Path) -> Result<Vec<(usize, Value)>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    Ok(text
        .lines()
        .filter_map(|line| {
            let entry: Value = serde_json::from_str(line).ok()?;
            Some((entry.get("index")?.as_u64()? as usize, entry.get("result")?.clone()))
        })
        .collect())
}

/// Writes the whole results file to a temporary sibling and renames it over the target.
fn write_results(path: &Path, header: &RunHeader, samples: &[Value], pretty: bool) -> Result<(), String> {
    let file = header.results_file(samples.to_vec());
    let text = if pretty { to_pretty_string(&file) } else { file.to_string() };
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), path.display()))
}

/// The CLI's journal of a run: the results file, rewritten whole at most every `REWRITE_EVERY`, and the
/// `.journal` beside it holding the samples finished since. Unfinished samples stay in the file as the dataset
/// has them.
struct FileJournal<'a> {
    output: &'a Path,
    path: PathBuf,
    header: RefCell<RunHeader>,
    samples: RefCell<Vec<Value>>,
    file: RefCell<Option<JournalFile>>,
    rewritten: Cell<Instant>,
    shape: &'a Mutex<RequestShape>,
}

impl<'a> FileJournal<'a> {
    /// The journal of the results file `output`; a journal without its results file belongs to nothing and goes.
    fn open(output: &'a Path, header: RunHeader, shape: &'a Mutex<RequestShape>) -> Result<FileJournal<'a>, String> {
        let path = journal_path(output);
        if !output.exists() && path.exists() {
            std::fs::remove_file(&path).map_err(|e| format!("cannot remove the stale {}: {e}", path.display()))?;
        }
        let (header, samples, file) = (RefCell::new(header), RefCell::default(), RefCell::default());
        Ok(FileJournal { output, path, header, samples, file, rewritten: Cell::new(Instant::now()), shape })
    }

    /// Writes the results file with `samples` (everything finished so far) and starts the journal afresh.
    fn start(&self, samples: Vec<Value>) -> Result<(), String> {
        *self.samples.borrow_mut() = samples;
        self.rewrite(false)
    }

    fn rewrite(&self, pretty: bool) -> Result<(), String> {
        self.header.borrow_mut().adaptations = self.shape.lock().map(|s| s.notes_json()).unwrap_or(Value::Null);
        write_results(self.output, &self.header.borrow(), &self.samples.borrow(), pretty)?;
        // The results file now holds everything finished so far: the journal starts afresh.
        *self.file.borrow_mut() = if pretty { None } else { Some(JournalFile::create(&self.path)?) };
        self.rewritten.set(Instant::now());
        Ok(())
    }

    /// The results file as it stands.
    fn results_file(&self) -> Value {
        self.header.borrow().results_file(self.samples.borrow().clone())
    }
}

impl run::Journal for FileJournal<'_> {
    fn source(&self) -> String {
        self.path.display().to_string()
    }

    async fn append(&self, index: usize, result: &Value) -> Result<(), String> {
        if let Some(file) = self.file.borrow_mut().as_mut() {
            file.append(index, result)?;
        }
        if let Some(slot) = self.samples.borrow_mut().get_mut(index) {
            *slot = result.clone();
        }
        if self.rewritten.get().elapsed() >= REWRITE_EVERY {
            self.rewrite(false)?;
        }
        Ok(())
    }

    async fn read(&self) -> Result<Vec<(usize, Value)>, String> {
        read_journal(&self.path)
    }

    async fn finish(&self, _samples: Vec<Value>, _complete: bool) -> Result<(), String> {
        self.rewrite(true)?;
        std::fs::remove_file(&self.path).map_err(|e| format!("cannot remove {}: {e}", self.path.display()))
    }
}

fn run_sample(backend: &UreqBackend<'_>, sample: &Value, index: usize, config: &AgentConfig, policy: &RetryPolicy) -> Value {
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
    let (session, step) = AgentSession::start(&input, config);
    let record = match pollster::block_on(run_episode(backend, session, step, policy)) {
        EpisodeEnd::Finished(record) => record,
        // The CLI has no stop button: a backend never reports a cancellation, so this is unreachable in practice.
        EpisodeEnd::Cancelled => return sample.clone(),
    };
    let timings = json!({
        "started_at": started_at,
        "finished_at": now_iso(),
        "wall_ms": clock.elapsed().as_millis() as u64,
        "http_attempts": backend.attempts.get()
    });
    result_sample(sample, &record, record.strategy.name(), timings)
}

/// Blocking HTTP with `ureq` (one per worker thread): each `send` is one attempt; the engine retries and
/// decides adaptations, which all workers share through `shape`. With several replicas, an attempt that fails
/// moves the sample to the next replica, so the engine's retry goes there.
struct UreqBackend<'a> {
    agent: &'a ureq::Agent,
    endpoints: &'a [Endpoint],
    /// The replica the next attempt goes to.
    replica: Cell<usize>,
    shape: &'a Mutex<RequestShape>,
    timeout_ms: u64,
    /// HTTP attempts made for the current sample.
    attempts: Cell<u32>,
    /// Jitter state (a splitmix64 stream seeded per worker and sample).
    seed: Cell<u64>,
}

impl UreqBackend<'_> {
    /// One HTTP attempt at `endpoint`.
    fn attempt(&self, endpoint: &Endpoint, request: &ChatRequest) -> Result<ChatReply, CallFailure> {
        self.attempts.set(self.attempts.get() + 1);
        let (body, wire) = {
            let shape = self.shape.lock().map_err(|_| AgentError::Request { reason: "a worker panicked".into() })?;
            (wire::request_body(&shape, request, &endpoint.model, false).to_string(), shape.wire)
        };
        let started = Instant::now();
        let mut builder = self.agent.post(&endpoint.chat_url());
        for (name, value) in endpoint.request_headers(false) {
            builder = builder.header(name, value);
        }
        let mut response = builder.send(body.as_str()).map_err(|e| match e {
            ureq::Error::Timeout(_) => AgentError::Timeout { after_ms: self.timeout_ms },
            other => AgentError::Network { message: other.to_string() },
        })?;
        let status = response.status().as_u16();
        let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).ok();
        let headers = response.headers().clone();
        let wait = wait_from_headers(&|name| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string), now_ms);
        let text = response.body_mut().read_to_string().map_err(|e| AgentError::Network { message: format!("reading the reply body failed: {e}") })?;
        if !(200..300).contains(&status) {
            return Err(CallFailure::http(status, text, wait));
        }
        let mut reply = wire::parse_reply(wire, &text).map_err(|e| AgentError::Malformed { reason: e.to_string() })?;
        reply.latency_ms = Some(started.elapsed().as_millis() as u64);
        Ok(reply)
    }
}

impl ChatBackend for UreqBackend<'_> {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, CallFailure> {
        let endpoint = &self.endpoints[self.replica.get() % self.endpoints.len()];
        let result = self.attempt(endpoint, request);
        if result.is_err() && self.endpoints.len() > 1 {
            self.replica.set((self.replica.get() + 1) % self.endpoints.len());
        }
        result
    }

    async fn sleep(&self, ms: u64) {
        std::thread::sleep(Duration::from_millis(ms));
    }

    async fn record(&self, event: EpisodeEvent<'_>) {
        if let EpisodeEvent::Retry { delay_ms, limit: Some(limit), .. } = event {
            eprintln!("\n[eval] rate-limited: waiting {:.1} s for the endpoint's {limit}", delay_ms as f64 / 1000.0);
        }
    }

    fn adapt(&self, failure: &CallFailure) -> Resend {
        let AgentError::Http { status, .. } = failure.error else { return Resend::Stands };
        let Ok(mut shape) = self.shape.lock() else { return Resend::Stands };
        let resend = shape.respond(status, &failure.body);
        if let Resend::Adapted(note) = &resend {
            eprintln!("\n[eval] adapted the requests: {}", note.sentence());
        }
        resend
    }

    fn jitter(&self) -> f64 {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos() as u64).unwrap_or(0);
        let mut x = self.seed.get().wrapping_add(0x9E37_79B9_7F4A_7C15) ^ nanos;
        self.seed.set(x);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back_what_was_appended_and_skips_a_line_cut_short() {
        let dir = std::env::temp_dir().join(format!("arbigraph-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = journal_path(&dir.join("results.json"));
        assert!(path.ends_with("results.json.journal"));
        assert_eq!(read_journal(&path).unwrap(), Vec::new(), "no journal: nothing to add");
        let mut journal = JournalFile::create(&path).unwrap();
        journal.append(3, &json!({"prompt": "a", "agent_status": "success"})).unwrap();
        journal.append(0, &json!({"prompt": "b", "agent_status": "timeout"})).unwrap();
        drop(journal);
        // A kill in the middle of a line leaves it unterminated.
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap() + r#"{"index": 7, "result": {"pro"#).unwrap();
        let entries = read_journal(&path).unwrap();
        assert_eq!(entries.iter().map(|(i, r)| (*i, r["prompt"].as_str().unwrap())).collect::<Vec<_>>(), vec![(3, "a"), (0, "b")]);
        JournalFile::create(&path).unwrap();
        assert!(read_journal(&path).unwrap().is_empty(), "created afresh after a rewrite");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
