//! `arbigraph inspect`: what a dataset or results file holds, and its schema problems.

use std::path::PathBuf;
use std::process::ExitCode;

use arbigraph_studio::engine::dataset::{inspect, FileKind};

use super::files::{fail, read_json};

/// Arguments of `arbigraph inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// A dataset or results file (reference layout or ours).
    file: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs the command; exit code 1 when schema problems were found.
pub fn run(args: Args) -> ExitCode {
    let json = match read_json(&args.file) {
        Ok(json) => json,
        Err(e) => return fail(e),
    };
    let report = inspect(&json);
    if args.json {
        let out = serde_json::json!({
            "kind": match report.kind { FileKind::Dataset => "dataset", FileKind::Results => "results" },
            "mode": report.mode, "topology": report.topology, "num_samples": report.num_samples,
            "families": report.families, "num_targets": report.num_targets, "correct": report.correct,
            "statuses": report.statuses, "problems": report.problems,
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        println!("file:      {}", args.file.display());
        println!("kind:      {}", match report.kind { FileKind::Dataset => "dataset", FileKind::Results => "results" });
        println!("mode:      {}", if report.mode.is_empty() { "(none)" } else { &report.mode });
        println!("topology:  {}", report.topology);
        println!("samples:   {}", report.num_samples);
        println!("targets:   {}", report.num_targets);
        let families: Vec<String> = report.families.iter().map(|(f, n)| format!("{f} {n}")).collect();
        println!("families:  {}", families.join(", "));
        if let Some(correct) = report.correct {
            let pct = if report.num_samples > 0 { 100.0 * correct as f64 / report.num_samples as f64 } else { 0.0 };
            println!("correct:   {correct}/{} ({pct:.1}%)", report.num_samples);
            let statuses: Vec<String> = report.statuses.iter().map(|(s, n)| format!("{s} {n}")).collect();
            println!("statuses:  {}", statuses.join(", "));
        }
        if report.problems.is_empty() {
            println!("problems:  none");
        } else {
            println!("problems:  {}", report.problems.len());
            for p in report.problems.iter().take(50) {
                println!("  {p}");
            }
            if report.problems.len() > 50 {
                println!("  … and {} more", report.problems.len() - 50);
            }
        }
    }
    if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
