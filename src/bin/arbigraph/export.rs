//! `arbigraph export DATASET --format inspect|lm-eval|hf -o OUT`: a dataset (reference layout) in the formats
//! other harnesses read. `inspect`: Inspect AI's native JSONL (`input`, `target`, `id`, `metadata`, the whole
//! dataset sample under `metadata.sample`, so the ArbiGraph task and `import-inspect` grade it with our grader).
//! `lm-eval`: an lm-evaluation-harness task folder (a YAML task and its data), the single-turn, no-tool variant —
//! lm-eval has no multi-turn tool loop, so the model answers in one completion and the last `\boxed{… = …}` is
//! compared with the truth by exact match, a stricter and simpler check than our grader. `hf`: a Hugging Face
//! dataset folder (the rows as JSON lines in its data folder, and a `README.md` dataset card whose YAML metadata describes the fields,
//! the topology and the seed).

use arbigraph_studio::engine::dataset::SampleRecord;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `arbigraph export`.
#[derive(clap::Args)]
pub struct Args {
    /// The dataset file (reference layout, as `arbigraph generate` writes it).
    dataset: PathBuf,
    /// `inspect` (a JSONL file), `lm-eval` (a task folder) or `hf` (a dataset folder).
    #[arg(long, value_parser = ["inspect", "lm-eval", "hf"])]
    format: String,
    /// The task name (lm-eval's `task`, the dataset card's name). Default: `arbigraph_<topology>`.
    #[arg(long)]
    name: Option<String>,
    /// The output: a `.jsonl` file for `inspect`, a folder (created) for `lm-eval` and `hf`.
    #[arg(short, long)]
    output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match export(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => super::files::fail(message),
    }
}

/// One dataset sample as the exports carry it.
struct Row {
    id: String,
    prompt: String,
    /// The truth as literal text (`[1, 2]`, `7`).
    answer: String,
    target_output: String,
    topology: &'static str,
    task_name: String,
    sample: Value,
}

fn rows(path: &Path, dataset: &Value) -> Result<Vec<Row>, String> {
    let samples = dataset.get("samples").and_then(Value::as_array).ok_or_else(|| format!("{}: no `samples` array", path.display()))?;
    if samples.is_empty() {
        return Err(format!("{}: the dataset has no samples", path.display()));
    }
    samples
        .iter()
        .enumerate()
        .map(|(index, sample)| {
            let record = SampleRecord::parse(sample);
            let at = |what: &str| format!("{}: sample {index}: {what}", path.display());
            let prompt = record.prompt.clone().ok_or_else(|| at("no text prompt (pictures prompts cannot be exported to text-only formats)"))?;
            let truth = record.truth.clone().ok_or_else(|| at("no ground truth"))?;
            Ok(Row {
                id: format!("{}-{index}", record.topology.as_str()),
                prompt,
                answer: literal(&truth),
                target_output: record.target_output.clone().unwrap_or_default(),
                topology: record.topology.as_str(),
                task_name: record.task_name.clone().unwrap_or_default(),
                sample: sample.clone(),
            })
        })
        .collect()
}

/// A truth as literal text the way answers are written: lists with `, ` between items (`[1, -2, [3, 4]]`),
/// numbers and strings as JSON writes them.
fn literal(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("[{}]", items.iter().map(literal).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

fn export(args: &Args) -> Result<(), String> {
    let dataset = super::files::read_json(&args.dataset)?;
    let rows = rows(&args.dataset, &dataset)?;
    let summary = dataset.get("summary").cloned().unwrap_or(json!({}));
    let name = args.name.clone().unwrap_or_else(|| format!("arbigraph_{}", rows[0].topology));
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') || name.is_empty() {
        return Err(format!("--name `{name}`: use letters, digits, `_` and `-` only"));
    }
    match args.format.as_str() {
        "inspect" => super::files::write_text(&args.output, &inspect_jsonl(&rows)),
        "lm-eval" => {
            create_dir(&args.output.join("data"))?;
            super::files::write_text(&args.output.join("data/test.jsonl"), &plain_jsonl(&rows))?;
            super::files::write_text(&args.output.join(format!("{name}.yaml")), &lm_eval_yaml(&name))
        }
        _ => {
            create_dir(&args.output.join("data"))?;
            super::files::write_text(&args.output.join("data/test.jsonl"), &plain_jsonl(&rows))?;
            super::files::write_text(&args.output.join("README.md"), &dataset_card(&name, &rows, &summary))
        }
    }?;
    eprintln!("[export] {} samples as {} → {}", rows.len(), args.format, args.output.display());
    Ok(())
}

fn create_dir(path: &Path) -> Result<(), String> {
    std::fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()))
}

/// Inspect AI's native sample fields, one JSON object a line.
fn inspect_jsonl(rows: &[Row]) -> String {
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let metadata = json!({"index": index, "topology": row.topology, "task_name": row.task_name, "target_output": row.target_output, "sample": row.sample});
            json!({"input": row.prompt, "target": row.answer, "id": row.id, "metadata": metadata}).to_string() + "\n"
        })
        .collect()
}

/// The flat rows of the lm-eval and Hugging Face exports (the dataset sample kept as JSON text, so every row has
/// the same columns).
fn plain_jsonl(rows: &[Row]) -> String {
    rows.iter()
        .map(|row| {
            let line = json!({"id": row.id, "prompt": row.prompt, "answer": row.answer, "target_output": row.target_output, "topology": row.topology, "task_name": row.task_name, "sample": row.sample.to_string()});
            line.to_string() + "\n"
        })
        .collect()
}

/// The lm-eval task: one generation per sample, the last `\boxed{name = value}` taken, exact match with the truth.
fn lm_eval_yaml(name: &str) -> String {
    format!(
        r#"# ArbiGraph for lm-evaluation-harness: the single-turn, no-tool variant (lm-eval has no multi-turn tool loop).
# The model answers in one completion; the last \boxed{{name = value}} is compared with the truth by exact match
# (spaces ignored). The data file is read relative to the working directory:
# Run from this folder: lm_eval --model … --include_path . --tasks {name}
task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: data/test.jsonl
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}\n\nGive the final result as \\boxed{{{{ '{{' }}}}{{{{target_output}}}} = ...{{{{ '}}' }}}}."
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: []
  do_sample: false
  max_gen_toks: 16384
filter_list:
  - name: last-boxed
    filter:
      - function: regex
        regex_pattern: '\\boxed\{{[^=}}]*=\s*(.*)\}}'
        group_select: -1
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    regexes_to_ignore:
      - " "
metadata:
  version: 1.0
"#
    )
}

/// A Hugging Face dataset card: YAML metadata (the split's file, the fields and their types, the topology, the
/// seed and the generation settings) and a short description.
fn dataset_card(name: &str, rows: &[Row], summary: &Value) -> String {
    let topology = rows[0].topology;
    let seed = summary.get("seed").map_or("null".to_string(), Value::to_string);
    let families: Vec<String> = summary.get("families").and_then(Value::as_array).map(|f| f.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default();
    let generator = summary.get("generator").and_then(Value::as_str).unwrap_or("arbigraph");
    let mode = summary.get("mode").and_then(Value::as_str).unwrap_or("");
    let fields = [
        ("id", "string", "`<topology>-<index>`"),
        ("prompt", "string", "the whole multi-step task as the model reads it"),
        ("answer", "string", "the target output's truth, as literal text"),
        ("target_output", "string", "the name the final answer is boxed under (`\\boxed{name = value}`)"),
        ("topology", "string", "baseline, forgetting, chain, multichain or custom"),
        ("task_name", "string", "the target task's operator"),
        ("sample", "string", "the dataset sample in the reference layout, as JSON (every stage's truth, for per-node grading)"),
    ];
    let features: String = fields.iter().map(|(n, t, _)| format!("  - name: {n}\n    dtype: {t}\n")).collect();
    let table: String = fields.iter().map(|(n, t, d)| format!("| `{n}` | {t} | {d} |\n")).collect();
    format!(
        "---\npretty_name: {name}\nlicense: mit\ntask_categories:\n- text-generation\ntags:\n- arbigraph\n- multi-step-reasoning\n- {topology}\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test.jsonl\ndataset_info:\n  features:\n{features}  splits:\n  - name: test\n    num_examples: {count}\narbigraph:\n  topology: {topology}\n  mode: {mode:?}\n  seed: {seed}\n  families: {families:?}\n  generator: {generator:?}\n---\n\n# {name}\n\nVerifiable multi-step task graphs generated by ArbiGraph ({generator}): topology `{topology}`, seed {seed}, {count} samples. Each prompt asks for several intermediate outputs; the graded answer is the target output, and `sample` keeps every stage's truth so a grader can say where a chain first broke.\n\n| field | type | meaning |\n|---|---|---|\n{table}\nThe same samples come again from `arbigraph generate` with the settings above (the `arbigraph` block of this card).\n",
        count = rows.len()
    )
}
