//! `arbigraph grade`: re-grade a results file (ours or the reference's), print the metrics table, optionally
//! one JSON line per sample, and compare two runs pairwise.

use arbigraph_studio::engine::grade::metrics::{outcome_of, paired, render_table, summarise, Outcome};
use arbigraph_studio::engine::grade::{grade_result_sample, SampleGrade};
use std::path::PathBuf;
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

/// One graded sample of a file.
pub struct Graded {
    /// The sample as stored.
    pub sample: serde_json::Value,
    /// Its grade.
    pub grade: SampleGrade,
    /// The answers used.
    pub answers: arbigraph_studio::engine::grade::collect::Answers,
}

/// Grades every sample of a results file; unfinished samples (no turn output) are skipped and counted.
pub fn grade_file(json: &serde_json::Value, replay: bool, lenient: bool) -> Result<(Vec<Option<Graded>>, usize), String> {
    let samples = json.get("samples").and_then(|s| s.as_array()).ok_or("the file has no `samples` array")?;
    let mut graded = Vec::with_capacity(samples.len());
    let mut skipped = 0;
    for (index, sample) in samples.iter().enumerate() {
        let finished = sample.get("agent_status").and_then(|s| s.as_str()).is_some_and(|s| s != "in_progress");
        if !finished {
            skipped += 1;
            graded.push(None);
            continue;
        }
        let (grade, answers) = grade_result_sample(sample, index, replay, lenient).map_err(|e| e.to_string())?;
        graded.push(Some(Graded { sample: sample.clone(), grade, answers }));
    }
    Ok((graded, skipped))
}

fn key_of(sample: &serde_json::Value) -> Option<String> {
    let id = sample.get("task_id")?;
    let name = sample.get("task_name")?;
    let idx = sample.get("sample_idx")?;
    Some(format!("{id}|{name}|{idx}"))
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(code) => code,
        Err(message) => super::files::fail(message),
    }
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let json = super::files::read_json(&args.results)?;
    let (graded, skipped) = grade_file(&json, args.replay, args.lenient).map_err(|e| format!("{}: {e}", args.results.display()))?;
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(graded.len());
    let mut lines = String::new();
    for (index, g) in graded.iter().enumerate() {
        let Some(g) = g else { continue };
        outcomes.push(outcome_of(&g.sample, &g.grade));
        if args.per_sample {
            let mut line = serde_json::json!({"index": index, "correct": g.grade.correct, "task_answers": g.answers.to_json()});
            if let Some(l) = g.grade.lenient {
                line["lenient_correct"] = serde_json::Value::Bool(l);
            }
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
    }
    let mut table = render_table(&summarise(&outcomes));
    if skipped > 0 {
        table.push_str(&format!("unfinished samples (not graded): {skipped}\n"));
    }
    if let Some(other) = &args.compare {
        let other_json = super::files::read_json(other)?;
        let (other_graded, _) = grade_file(&other_json, args.replay, false).map_err(|e| format!("{}: {e}", other.display()))?;
        let keyed: std::collections::HashMap<String, bool> = other_graded
            .iter()
            .flatten()
            .filter_map(|g| Some((key_of(&g.sample)?, g.grade.correct)))
            .collect();
        let own_keys: std::collections::HashSet<String> = graded.iter().flatten().filter_map(|g| key_of(&g.sample)).collect();
        // Keys are used only when they identify samples uniquely in both files; otherwise positions pair them.
        let use_keys = own_keys.len() == graded.iter().flatten().count()
            && keyed.len() == other_graded.iter().flatten().count()
            && graded.iter().flatten().all(|g| key_of(&g.sample).is_some_and(|k| keyed.contains_key(&k)));
        let mut pairs = Vec::new();
        for (index, g) in graded.iter().enumerate() {
            let Some(g) = g else { continue };
            let b = if use_keys {
                key_of(&g.sample).and_then(|k| keyed.get(&k).copied())
            } else {
                other_graded.get(index).and_then(|o| o.as_ref()).map(|o| o.grade.correct)
            };
            if let Some(b) = b {
                pairs.push((g.grade.correct, b));
            }
        }
        let p = paired(&pairs);
        table.push_str(&format!(
            "paired comparison vs {} (matched by {}): n {}  both {}  only this {}  only other {}  difference {:+.4}  McNemar exact p {:.4}\n",
            other.display(),
            if use_keys { "task_id, task_name, sample_idx" } else { "index" },
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
    Ok(ExitCode::SUCCESS)
}
