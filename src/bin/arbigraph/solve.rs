//! `arbigraph solve`: evaluate one math operator on a raw input (its adapter runs first, as inside a graph),
//! one case from the command line or a JSONL batch, or list the operators.
//!
//! Batch mode writes exactly one line per input line, in order: `{"output": …}` or `{"error": "…"}`, with the
//! line's `id` echoed when it has one (see `batch`); a malformed line yields an error line, never a crash.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use arbigraph_studio::engine::tasks::math;
use arbigraph_studio::engine::value::Value;

/// Arguments of `arbigraph solve`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["task", "batch", "list"])))]
pub struct Args {
    /// The operator's reference name, e.g. `ConvolutionTask` (a `math.` prefix is accepted).
    #[arg(long, requires = "input")]
    task: Option<String>,
    /// The raw input as JSON: a number or a flat list of numbers, e.g. '[18, -1, -87]'.
    #[arg(long, allow_hyphen_values = true)]
    input: Option<String>,
    /// Static parameters as a JSON object with the reference's names: '{"seq2": [...]}', '{"M2": [[...], ...]}', '{"x0": 5}'.
    #[arg(long, allow_hyphen_values = true)]
    params: Option<String>,
    /// A JSONL file of cases `{"task": …, "input": …, "params": …}` (`-` reads stdin); one result line per input line.
    #[arg(long, conflicts_with_all = ["task", "input", "params", "list"])]
    batch: Option<PathBuf>,
    /// List the 40 operators with their signatures and parameters.
    #[arg(long, conflicts_with_all = ["task", "input", "params"])]
    list: bool,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    if args.list {
        return list();
    }
    if let Some(path) = &args.batch {
        return batch(path);
    }
    let (Some(task), Some(input)) = (&args.task, &args.input) else {
        return super::files::fail("`--task` needs `--input`");
    };
    match solve_one(task, input, args.params.as_deref()) {
        Ok(output) => {
            let _ = writeln!(std::io::stdout(), "{}", output.to_json());
            ExitCode::SUCCESS
        }
        Err(message) => super::files::fail(message),
    }
}

fn list() -> ExitCode {
    let mut out = std::io::stdout().lock();
    for sig in math::signatures() {
        let param = sig.param.map(|p| format!("  params: {p}")).unwrap_or_default();
        let line = format!("{:>2}  {:<42} {:>6} -> {:<6}{param}", sig.task_id, sig.name, sig.input.as_str(), sig.output.as_str());
        // A closed pipe (`| head`) ends the listing quietly.
        if writeln!(out, "{}", line.trim_end()).is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}

fn solve_one(task: &str, input: &str, params: Option<&str>) -> Result<Value, String> {
    let input: serde_json::Value = serde_json::from_str(input).map_err(|e| format!("--input is not valid JSON: {e}"))?;
    let input = Value::from_json(&input).map_err(|e| format!("--input: {e}"))?;
    let params: serde_json::Value = match params {
        Some(text) => serde_json::from_str(text).map_err(|e| format!("--params is not valid JSON: {e}"))?,
        None => serde_json::Value::Null,
    };
    math::solve(task, &input, &params).map_err(|e| e.to_string())
}

/// One batch line to its output's JSON text, or an error. Fields other than `task`, `input`, `params` are ignored.
fn solve_line(line: &str) -> Result<String, String> {
    let case: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("malformed JSON: {e}"))?;
    let object = case.as_object().ok_or("a case must be a JSON object with `task`, `input` and `params`")?;
    let task = object.get("task").and_then(|t| t.as_str()).ok_or("missing string field `task`")?;
    let input = object.get("input").ok_or("missing field `input`")?;
    let input = Value::from_json(input).map_err(|e| format!("input: {e}"))?;
    let params = object.get("params").cloned().unwrap_or(serde_json::Value::Null);
    let output = math::solve(task, &input, &params).map_err(|e| e.to_string())?;
    Ok(output.to_json().to_string())
}

fn batch(path: &std::path::Path) -> ExitCode {
    match super::batch::run(path, "output", solve_line) {
        Ok(_) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_lines_become_outputs_or_errors() {
        let ok = solve_line(r#"{"task": "ConvolutionTask", "input": [1, 2], "params": {"seq2": [3, -1]}}"#);
        assert_eq!(ok.as_deref(), Ok("[3,5,-2]"));
        let scalar = solve_line(r#"{"task": "DivisorSumTask", "input": 5}"#);
        assert_eq!(scalar.as_deref(), Ok("12"));
        // Extra fields (an `id`, notes) are ignored, as `trace --batch` does.
        let extra = solve_line(r#"{"id": "c1", "task": "FWHTTask", "input": [1, 2, 3, 4], "note": "x"}"#);
        assert_eq!(extra.as_deref(), Ok("[10,-2,-4,0]"));
        for bad in ["", "not json", "[1]", r#"{"task": "NoSuchTask", "input": 1}"#, r#"{"task": "FWHTTask"}"#] {
            let result = solve_line(bad);
            assert!(result.as_ref().is_err_and(|e| !e.is_empty()), "{bad:?} gave {result:?}");
        }
    }

    #[test]
    fn single_mode_reports_json_problems_by_flag() {
        assert_eq!(solve_one("FWHTTask", "[1, 2, 3, 4]", None), Ok(Value::ints(&[10, -2, -4, 0])));
        assert!(solve_one("FWHTTask", "[1, 2", None).unwrap_err().starts_with("--input"));
        assert!(solve_one("ConvolutionTask", "[1]", Some("{seq2")).unwrap_err().starts_with("--params"));
    }
}
