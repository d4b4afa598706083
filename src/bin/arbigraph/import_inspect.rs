//! `arbigraph import-inspect LOG -o results.json`: an Inspect AI log of the ArbiGraph task (`.eval` or JSON)
//! turned into our results file by the engine's reader (`engine::results::read_inspect_log`, the one the Results
//! page uses), graded again by our grader. A log of another task, a log cut short, or samples that are not the
//! dataset's are refused, and nothing is written.

use arbigraph_studio::engine::dataset::to_pretty_string;
use arbigraph_studio::engine::results::read_inspect_log;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `arbigraph import-inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// The Inspect log: a `.eval` archive or a JSON log (`--log-format json`).
    log: PathBuf,
    /// The dataset the run used: every log sample must be the dataset sample its `metadata.index` names.
    #[arg(long)]
    dataset: Option<PathBuf>,
    /// The results file to write.
    #[arg(short, long)]
    output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match import(&args) {
        Ok(code) => code,
        Err(message) => super::files::fail(format!("{message}; nothing written")),
    }
}

fn import(args: &Args) -> Result<ExitCode, String> {
    let bytes = std::fs::read(&args.log).map_err(|e| format!("cannot read {}: {e}", args.log.display()))?;
    let dataset = match &args.dataset {
        Some(path) => {
            let json = super::files::read_json(path)?;
            Some(json.get("samples").and_then(Value::as_array).cloned().ok_or_else(|| format!("{}: no `samples` array", path.display()))?)
        }
        None => None,
    };
    let results = read_inspect_log(&bytes, &args.log.display().to_string(), dataset.as_deref()).map_err(|e| e.to_string())?;
    super::files::write_text(&args.output, &to_pretty_string(&results))?;
    let summary = results.get("summary");
    let count = results.get("samples").and_then(Value::as_array).map_or(0, Vec::len);
    let accuracy = summary.and_then(|s| s.get("overall_accuracy")).and_then(Value::as_f64).unwrap_or(0.0);
    let disagreeing = summary.and_then(|s| s.get("imported_from")).and_then(|i| i.get("scores_disagreeing")).and_then(Value::as_array).map_or(0, Vec::len);
    eprintln!("[import-inspect] {count} samples, accuracy {:.1}% by our grader → {}", accuracy * 100.0, args.output.display());
    if disagreeing > 0 {
        eprintln!("[import-inspect] warning: {disagreeing} samples graded otherwise than the log's scores (summary.imported_from.scores_disagreeing)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
