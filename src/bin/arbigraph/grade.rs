//! `arbigraph grade`: re-grade a results file (ours or the reference's), print the metrics table, optionally
//! one JSON line per sample, and compare runs: `--compare A.json B.json …` prints one table of all runs
//! (accuracy, node accuracy, McNemar against the baseline, prompt tokens, total tokens with auxiliary calls,
//! calls per sample). Grading and the table are `engine::results` and `engine::grade::metrics`.

use arbigraph_studio::engine::grade::metrics::{metrics_csv, render_comparison, render_comparison_markdown, render_table, summarise};
use arbigraph_studio::engine::results::{compare_many, compare_runs, grade_results_file, strategy_of, GradeOptions, GradedFile, PairedBy, Run};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `arbigraph grade`.
#[derive(clap::Args)]
pub struct Args {
    /// The results file (reference layout: `{"summary": …, "samples": […]}`); optional with `--compare`.
    results: Option<PathBuf>,
    /// Re-collect the answers from `turn_outputs` (as raw completions) instead of trusting `task_answers`.
    #[arg(long)]
    replay: bool,
    /// Print one JSON line per sample on stdout (the table then goes to stderr).
    #[arg(long)]
    per_sample: bool,
    /// Also compute the lenient verdict (reported separately, never mixed into the score).
    #[arg(long)]
    lenient: bool,
    /// Other results files over the same instances: print one comparison table of every run (the results file,
    /// if given, first), each paired with the baseline by an exact McNemar test.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    compare: Vec<PathBuf>,
    /// The baseline of the comparison (default: the first run); added to the table if not among the runs.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Print the comparison table as Markdown.
    #[arg(long)]
    markdown: bool,
    /// Also write the accuracy figures as CSV (the run, each topology × family, each target task, each graded
    /// node, with Wilson 95% intervals) to this file (`-`: stdout, after the table).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(code) => code,
        Err(message) => super::files::fail(message),
    }
}

fn grade_path(path: &Path, options: GradeOptions) -> Result<(GradedFile, Option<String>), String> {
    let json = super::files::read_json(path)?;
    let graded = grade_results_file(&json, options).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((graded, strategy_of(&json)))
}

fn label(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let options = GradeOptions { replay: args.replay, lenient: args.lenient };
    let Some(results) = &args.results else {
        if args.compare.is_empty() {
            return Err("give a results file, or runs to compare with --compare".into());
        }
        let (table, unreadable) = comparison(args, &[])?;
        print!("{table}");
        return Ok(if unreadable { ExitCode::from(1) } else { ExitCode::SUCCESS });
    };
    let (graded, _) = grade_path(results, options)?;
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
    let metrics = summarise(&graded.outcomes());
    let mut table = render_table(&metrics);
    if graded.unfinished > 0 {
        table.push_str(&format!("unfinished samples (not graded): {}\n", graded.unfinished));
    }
    for (index, reason) in &graded.unreadable {
        table.push_str(&format!("unreadable sample (not graded): samples[{index}]: {reason}\n"));
    }
    if let [other] = args.compare.as_slice() {
        let (other_graded, _) = grade_path(other, GradeOptions { replay: args.replay, lenient: false })?;
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
    if !args.compare.is_empty() {
        table.push_str(&comparison(args, std::slice::from_ref(results))?.0);
    }
    if args.per_sample {
        print!("{lines}");
        eprint!("{table}");
    } else {
        print!("{table}");
    }
    match &args.csv {
        Some(path) if path.as_os_str() == "-" => print!("{}", metrics_csv(&metrics)),
        Some(path) => super::files::write_text(path, &metrics_csv(&metrics))?,
        None => {}
    }
    Ok(if graded.unreadable.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The comparison table of `first` and `--compare` (and `--baseline` when not among them); also whether any
/// file had unreadable samples.
fn comparison(args: &Args, first: &[PathBuf]) -> Result<(String, bool), String> {
    let mut paths: Vec<PathBuf> = first.iter().chain(&args.compare).cloned().collect();
    let baseline = match &args.baseline {
        Some(b) => match paths.iter().position(|p| p == b) {
            Some(i) => i,
            None => {
                paths.insert(0, b.clone());
                0
            }
        },
        None => 0,
    };
    compare_paths(&paths, baseline, args.markdown, GradeOptions { replay: args.replay, lenient: false })
}

/// The comparison table of the runs in `paths`, paired against `paths[baseline]` (Markdown when `markdown`),
/// with a line for each file that left samples ungraded; also whether any file had unreadable samples.
pub(super) fn compare_paths(paths: &[PathBuf], baseline: usize, markdown: bool, options: GradeOptions) -> Result<(String, bool), String> {
    let graded: Vec<(GradedFile, Option<String>)> = paths.iter().map(|p| grade_path(p, options)).collect::<Result<_, _>>()?;
    let runs: Vec<Run<'_>> = paths
        .iter()
        .zip(&graded)
        .map(|(path, (g, strategy))| Run { label: label(path), strategy: strategy.clone().unwrap_or_else(|| "?".into()), graded: g })
        .collect();
    let table = compare_many(&runs, baseline);
    let mut out = if markdown { render_comparison_markdown(&table) } else { render_comparison(&table) };
    let unreadable = graded.iter().any(|(g, _)| !g.unreadable.is_empty());
    for (path, (g, _)) in paths.iter().zip(&graded) {
        if g.unfinished > 0 || !g.unreadable.is_empty() {
            out.push_str(&format!("{}: {} unfinished and {} unreadable samples not graded\n", label(path), g.unfinished, g.unreadable.len()));
        }
    }
    Ok((out, unreadable))
}
