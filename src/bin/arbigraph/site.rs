//! `arbigraph site`: a self-contained static site for browsing datasets: the built app (`dist/`), plus
//! `datasets/index.json`, every dataset file, each dataset split into JSONL shards the browser fetches on
//! demand, and any results files (`datasets/results/NAME.json`) for the Results page to list and open. Nothing beyond plain file hosting is needed, under any sub-path.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arbigraph_studio::engine::generate::form::GenerateForm;
use arbigraph_studio::engine::generate::plan::{plan, ALL_FAMILIES, PAPER};
use arbigraph_studio::engine::dataset::site::{describe, shard_texts, SiteDataset, SiteIndex, SiteResults, DEFAULT_SHARD_SIZE, INDEX_PATH};
use arbigraph_studio::engine::dataset::{self, read_dataset, FileFormat};
use arbigraph_studio::engine::generate;
use arbigraph_studio::engine::results::{grade_results_file, strategy_of, GradeOptions};
use arbigraph_studio::engine::tasks::registry::builtin;

use super::files::{fail, write_text, Progress};

/// Arguments of `arbigraph site`.
#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the site to (created; an existing one must be empty or a site).
    #[arg(long)]
    out: PathBuf,
    /// A dataset file (reference JSON or JSONL), named by its file stem; `NAME=FILE` names it. Repeatable.
    #[arg(long = "dataset")]
    datasets: Vec<String>,
    /// A results file (ours or the reference's), listed on the Results page and opened by `#/results?file=NAME`;
    /// named by its file stem, or `NAME=FILE`. Repeatable.
    #[arg(long = "results")]
    results: Vec<String>,
    /// `paper`: also generate the paper's layouts (baseline, forgetting, chain, multichain) for math, GSM
    /// and Python.
    #[arg(long)]
    preset: Option<String>,
    /// Samples per target of the preset's datasets.
    #[arg(long, default_value_t = 16)]
    samples_per_target: u32,
    /// Seed of the preset's datasets.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Samples per shard.
    #[arg(long, default_value_t = DEFAULT_SHARD_SIZE)]
    shard_size: usize,
    /// The built app to copy (`trunk build --release` writes it to `dist/`).
    #[arg(long, default_value = "dist")]
    dist: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match build(&args) {
        Ok(code) => code,
        Err(message) => fail(message),
    }
}

/// A dataset to publish: its name, file name, where it came from (for messages), and its text.
struct Source {
    name: String,
    file_name: String,
    origin: String,
    text: String,
}

fn build(args: &Args) -> Result<ExitCode, String> {
    if args.shard_size == 0 {
        return Err("--shard-size must be at least 1".into());
    }
    if !args.dist.join("index.html").is_file() {
        return Err(format!("{} has no built app (index.html): build it first with `trunk build --release`", args.dist.display()));
    }
    if args.datasets.is_empty() && args.preset.is_none() && args.results.is_empty() {
        return Err("nothing to publish: give --dataset FILE or --results FILE (both repeatable) or --preset paper".into());
    }
    let mut sources = Vec::new();
    for spec in &args.datasets {
        sources.push(read_source(spec)?);
    }
    match args.preset.as_deref() {
        None => {}
        Some(PAPER) => sources.extend(paper(args.samples_per_target, args.seed)?),
        Some(other) => return Err(format!("unknown preset `{other}` (the one preset is `paper`)")),
    }
    for (i, source) in sources.iter().enumerate() {
        if sources[..i].iter().any(|s| s.name == source.name) {
            return Err(format!("two datasets are named `{}`: name one with --dataset NAME=FILE", source.name));
        }
    }
    // Results files are read and graded before anything is written, so a bad one leaves no half-built site.
    let mut results = Vec::new();
    for spec in &args.results {
        let source = read_source(spec)?;
        if results.iter().any(|(s, _): &(Source, SiteResults)| s.name == source.name) {
            return Err(format!("two results files are named `{}`: name one with --results NAME=FILE", source.name));
        }
        let entry = describe_results(&source)?;
        results.push((source, entry));
    }
    prepare_out(&args.out)?;
    copy_dir(&args.dist, &args.out, &args.dist.join("datasets"))?;
    // The site's root opens on what it publishes: its datasets, or its results files when it has no dataset.
    let page = args.out.join("index.html");
    let html = std::fs::read_to_string(&page).map_err(|e| format!("cannot read {}: {e}", page.display()))?;
    let start = if sources.is_empty() { "results" } else { "browse" };
    write_text(&page, &dataset::site::with_start_page(&html, start))?;
    // The build's precompressed copies of index.html (scripts/precompress.mjs) lack the start page: a host that
    // prefers them would open the wrong page, so they go (the host compresses the new one itself, if at all).
    for stale in ["index.html.gz", "index.html.br"] {
        let path = args.out.join(stale);
        if path.exists() {
            std::fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        }
    }
    let datasets_dir = args.out.join("datasets");
    let mut index = SiteIndex { generator: dataset::GENERATOR.to_string(), datasets: Vec::new(), results: Vec::new() };
    let mut shard_count = 0;
    for source in &sources {
        let entry = publish(source, &datasets_dir, args.shard_size)?;
        shard_count += entry.shards.len();
        index.datasets.push(entry);
    }
    if !results.is_empty() {
        std::fs::create_dir_all(datasets_dir.join("results")).map_err(|e| format!("cannot create {}: {e}", datasets_dir.join("results").display()))?;
    }
    for (source, entry) in results {
        write_text(&datasets_dir.join(&entry.file), &source.text)?;
        index.results.push(entry);
    }
    let text = dataset::to_pretty_string(&index.to_json()) + "\n";
    write_text(&args.out.join(INDEX_PATH), &text)?;
    let samples: usize = index.datasets.iter().map(|d| d.samples).sum();
    eprintln!(
        "wrote {} dataset(s), {samples} samples in {shard_count} shard(s), and {} results file(s), to {}",
        index.datasets.len(),
        index.results.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads `FILE` or `NAME=FILE`.
fn read_source(spec: &str) -> Result<Source, String> {
    let (name, path) = match spec.split_once('=') {
        Some((name, path)) if !name.is_empty() && !name.contains(['/', '\\']) => (Some(name.to_string()), PathBuf::from(path)),
        _ => (None, PathBuf::from(spec)),
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("dataset");
    let name = safe_name(&name.unwrap_or_else(|| stem.to_string()));
    let ext = if FileFormat::of_name(&path.to_string_lossy()) == FileFormat::Jsonl { "jsonl" } else { "json" };
    Ok(Source { file_name: format!("{name}.{ext}"), name, origin: path.display().to_string(), text })
}

/// A name usable as a file name and in links: letters, digits, `-`, `_` and `.`, anything else `_`.
fn safe_name(name: &str) -> String {
    let cleaned: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    if cleaned.is_empty() || cleaned.starts_with('.') {
        format!("dataset{cleaned}")
    } else {
        cleaned
    }
}

/// The paper's layouts for math, GSM and Python, as the CLI's `generate` would write them.
fn paper(samples_per_target: u32, seed: u64) -> Result<Vec<Source>, String> {
    let registry = builtin();
    let form = GenerateForm { topology: PAPER.into(), family: ALL_FAMILIES.into(), samples_per_target, seed, ..GenerateForm::default() };
    let mut sources = Vec::new();
    for run in plan(&form) {
        let mut config = run.to_config().map_err(|e| format!("{} {}: {e}", run.family, run.topology))?;
        config.samples_per_target = samples_per_target;
        let mut progress = Progress::new("generating");
        let samples = generate::generate(&config, &registry, &mut |done, total| progress.update(done, total)).map_err(|e| format!("{} {}: {e}", run.family, run.topology))?;
        progress.finish();
        let name = format!("{}_{}", run.family, run.topology);
        let text = dataset::file_text(&config, &samples, &dataset::plain_run_info(), FileFormat::Json);
        sources.push(Source { file_name: format!("{name}.json"), origin: format!("the paper's {} {}", run.family, run.topology), name, text });
    }
    Ok(sources)
}

/// Creates `out`, refusing a non-empty directory that is not a site (so a typo cannot clobber a folder).
fn prepare_out(out: &Path) -> Result<(), String> {
    if out.exists() {
        if !out.is_dir() {
            return Err(format!("{} exists and is not a directory", out.display()));
        }
        let mut entries = std::fs::read_dir(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
        if entries.next().is_some() && !out.join("index.html").is_file() {
            return Err(format!("{} is not empty and holds no site (index.html): choose a new or empty directory", out.display()));
        }
        let old = out.join("datasets");
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| format!("cannot replace {}: {e}", old.display()))?;
        }
    }
    std::fs::create_dir_all(out.join("datasets")).map_err(|e| format!("cannot create {}: {e}", out.display()))
}

/// Copies `from` into `to` recursively, leaving out `skip` (the app's own demo datasets).
fn copy_dir(from: &Path, to: &Path, skip: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path == skip {
            continue;
        }
        if path.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| format!("cannot create {}: {e}", target.display()))?;
            copy_dir(&path, &target, skip)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| format!("cannot copy {} to {}: {e}", path.display(), target.display()))?;
        }
    }
    Ok(())
}

/// Writes a dataset's file and shards under `dir` and returns its index entry.
fn publish(source: &Source, dir: &Path, shard_size: usize) -> Result<SiteDataset, String> {
    let read = read_dataset(&source.origin, &source.text).map_err(|e| e.to_string())?;
    write_text(&dir.join(&source.file_name), &source.text)?;
    std::fs::create_dir_all(dir.join(&source.name)).map_err(|e| format!("cannot create {}: {e}", dir.join(&source.name).display()))?;
    let mut shards = Vec::new();
    for (shard, text) in shard_texts(&source.name, &read.samples, shard_size) {
        write_text(&dir.join(&shard.file), &text)?;
        shards.push(shard);
    }
    Ok(describe(&source.name, &source.file_name, source.text.len() as u64, read.summary.as_ref(), &read.samples, shards))
}

/// The index entry of a results file, graded as stored; a file that is not one is refused with its location.
fn describe_results(source: &Source) -> Result<SiteResults, String> {
    let json: serde_json::Value = serde_json::from_str(&source.text)
        .map_err(|e| format!("{}: malformed JSON at line {}, column {}: {e}", source.origin, e.line(), e.column()))?;
    let graded = grade_results_file(&json, GradeOptions::default()).map_err(|e| format!("{}: {e}", source.origin))?;
    let params = json.get("summary").and_then(|s| s.get("generation_params"));
    let model = params.or(json.get("summary")).and_then(|p| p.get("model")).and_then(serde_json::Value::as_str).unwrap_or("").to_string();
    Ok(SiteResults {
        file: format!("results/{}.json", source.name),
        name: source.name.clone(),
        bytes: source.text.len() as u64,
        samples: json.get("samples").and_then(serde_json::Value::as_array).map_or(0, Vec::len),
        graded: graded.samples.len(),
        correct: graded.samples.iter().filter(|s| s.grade.correct).count(),
        model,
        strategy: strategy_of(&json).unwrap_or_default(),
    })
}

