//! `arbigraph solve`: evaluate one math operator on a raw input (its adapter runs first, as inside a graph),
//! one case from the command line or a JSONL batch, or list the operators.
//!
//! Batch mode writes exactly one line per input line, in order: `{"output": …}` or `{"error": "…"}`; a malformed
//! line yields an error line, never a crash.

use std::io::{BufRead, Write};
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

/// One batch line to its result object.
fn solve_line(line: &str) -> serde_json::Value {
    let result = (|| -> Result<Value, String> {
        let case: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("malformed JSON: {e}"))?;
        let object = case.as_object().ok_or("a case must be a JSON object with `task`, `input` and `params`")?;
        if let Some(extra) = object.keys().find(|k| !["task", "input", "params"].contains(&k.as_str())) {
            return Err(format!("unexpected field `{extra}` (expected `task`, `input`, `params`)"));
        }
        let task = object.get("task").and_then(|t| t.as_str()).ok_or("missing string field `task`")?;
        let input = object.get("input").ok_or("missing field `input`")?;
        let input = Value::from_json(input).map_err(|e| format!("input: {e}"))?;
        let params = object.get("params").cloned().unwrap_or(serde_json::Value::Null);
        math::solve(task, &input, &params).map_err(|e| e.to_string())
    })();
    match result {
        Ok(value) => serde_json::json!({ "output": value.to_json() }),
        Err(message) => serde_json::json!({ "error": message }),
    }
}

fn batch(path: &std::path::Path) -> ExitCode {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(file) => Box::new(std::io::BufReader::new(file)),
            Err(e) => return super::files::fail(format!("cannot read {}: {e}", path.display())),
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (number, line) in reader.split(b'\n').enumerate() {
        let result = match line {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => solve_line(text.trim_end_matches('\r')),
                Err(_) => serde_json::json!({ "error": format!("line {} is not valid UTF-8", number + 1) }),
            },
            Err(e) => {
                let _ = out.flush();
                return super::files::fail(format!("cannot read {}: {e}", path.display()));
            }
        };
        if writeln!(out, "{result}").is_err() {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_lines_become_outputs_or_errors() {
        let ok = solve_line(r#"{"task": "ConvolutionTask", "input": [1, 2], "params": {"seq2": [3, -1]}}"#);
        assert_eq!(ok, serde_json::json!({"output": [3, 5, -2]}));
        let scalar = solve_line(r#"{"task": "DivisorSumTask", "input": 5}"#);
        assert_eq!(scalar, serde_json::json!({"output": 12}));
        for bad in ["", "not json", "[1]", r#"{"task": "NoSuchTask", "input": 1}"#, r#"{"task": "FWHTTask"}"#, r#"{"task": "FWHTTask", "input": [1], "x": 1}"#] {
            let result = solve_line(bad);
            assert!(result.get("error").and_then(|e| e.as_str()).is_some_and(|e| !e.is_empty()), "{bad:?} gave {result}");
        }
    }

    #[test]
    fn single_mode_reports_json_problems_by_flag() {
        assert_eq!(solve_one("FWHTTask", "[1, 2, 3, 4]", None), Ok(Value::ints(&[10, -2, -4, 0])));
        assert!(solve_one("FWHTTask", "[1, 2", None).unwrap_err().starts_with("--input"));
        assert!(solve_one("ConvolutionTask", "[1]", Some("{seq2")).unwrap_err().starts_with("--params"));
    }
}
