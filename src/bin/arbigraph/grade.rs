//! `arbigraph grade`: re-grade a results file (ours or the reference's), print the metrics table, optionally
//! one JSON line per sample, and compare two runs pairwise. Grading itself is `engine::results`.

use arbigraph_studio::engine::grade::metrics::{render_table, summarise};
use arbigraph_studio::engine::results::{compare_runs, grade_results_file, GradeOptions, GradedFile, PairedBy};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `arbigraph grade`.
#[derive(clap::Args)]
pub struct Args {
    /// The results file (reference layout: `{"summary": …, "samples": […]}`).
    results: PathBuf,
    /// Re-collect the answers from `turn_outputs` (as raw completions) instead of trusting `task_answers`.
    #[arg(long)]
    replay: bool,
    /// Print one JSON line per sample on stdout (the table then goes to stderr).
    #[arg(long)]
    per_sample: bool,
    /// Also compute the lenient verdict (reported separately, never mixed into the score).
    #[arg(long)]
    lenient: bool,
    /// A second results file over the same instances: print the paired comparison (exact McNemar test).
    #[arg(long)]
    compare: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(code) => code,
        Err(message) => super::files::fail(message),
    }
}

fn grade_path(path: &Path, options: GradeOptions) -> Result<GradedFile, String> {
    let json = super::files::read_json(path)?;
    grade_results_file(&json, options).map_err(|e| format!("{}: {e}", path.display()))
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let graded = grade_path(&args.results, GradeOptions { replay: args.replay, lenient: args.lenient })?;
    let mut lines = String::new();
    if args.per_sample {
        for g in &graded.samples {
            let mut line = serde_json::json!({"index": g.index, "correct": g.grade.correct, "task_answers": g.answers.to_json()});
            if let Some(l) = g.grade.lenient {
                line["lenient_correct"] = serde_json::Value::Bool(l);
            }
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
    }
    let mut table = render_table(&summarise(&graded.outcomes()));
    if graded.unfinished > 0 {
        table.push_str(&format!("unfinished samples (not graded): {}\n", graded.unfinished));
    }
    for (index, reason) in &graded.unreadable {
        table.push_str(&format!("unreadable sample (not graded): samples[{index}]: {reason}\n"));
    }
    if let Some(other) = &args.compare {
        let other_graded = grade_path(other, GradeOptions { replay: args.replay, lenient: false })?;
        let comparison = compare_runs(&graded, &other_graded);
        let p = comparison.stats;
        table.push_str(&format!(
            "paired comparison vs {} (matched by {}): n {}  both {}  only this {}  only other {}  difference {:+.4}  McNemar exact p {:.4}\n",
            other.display(),
            match comparison.paired_by {
                PairedBy::Key => "task_id, task_name, sample_idx",
                PairedBy::Index => "index",
            },
            p.n,
            p.both,
            p.only_a,
            p.only_b,
            p.difference,
            p.p_value
        ));
    }
    if args.per_sample {
        print!("{lines}");
        eprint!("{table}");
    } else {
        print!("{table}");
    }
    Ok(if graded.unreadable.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
