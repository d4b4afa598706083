//! `arbigraph inspect`: what a dataset or results file holds, and its schema problems; for a node-link graph
//! file (ours or the reference's), what it holds and its validation: errors and warnings, each on its node.

use std::path::PathBuf;
use std::process::ExitCode;

use arbigraph_studio::engine::dataset::{inspect, FileKind};
use arbigraph_studio::engine::graph::{self, NodeKind, Severity, TaskGraph};

use super::files::{fail, read_json};

/// Arguments of `arbigraph inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// A dataset or results file (reference layout or ours), or a node-link graph file.
    file: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// A task pack a graph's pinned tasks come from (`python=FILE`, `gsm=DIR_OR_FILE`, as for `generate`);
    /// repeatable. A family with a pack is checked against the pack's tasks.
    #[arg(long = "pack")]
    packs: Vec<String>,
}

/// Runs the command; exit code 1 when schema problems (or, for a graph, errors) were found.
pub fn run(args: Args) -> ExitCode {
    let json = match read_json(&args.file) {
        Ok(json) => json,
        Err(e) => return fail(e),
    };
    // A node-link graph has nodes and links (or edges) and no samples.
    let is_graph = json.get("samples").is_none() && json.get("nodes").is_some_and(|n| n.is_array()) && (json.get("links").is_some() || json.get("edges").is_some());
    if is_graph {
        return inspect_graph(&args, &json);
    }
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

/// The graph report: counts, the target, families, and every validation issue; exit 1 when any is an error.
fn inspect_graph(args: &Args, json: &serde_json::Value) -> ExitCode {
    let parsed = match graph::from_json(json) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let lines: Vec<String> = errors.iter().map(|e| format!("  {}: {e}", args.file.display())).collect();
            return fail(format!("{} is not a valid graph file:\n{}", args.file.display(), lines.join("\n")));
        }
    };
    let registry = match super::packs::checking_registry(parsed.image_params().copied().unwrap_or_default(), &args.packs) {
        Ok(registry) => registry,
        Err(e) => return fail(e),
    };
    let issues = parsed.issues(&registry);
    let errors = issues.iter().filter(|i| i.severity == Severity::Error).count();
    let summary = GraphSummary::of(&parsed);
    if args.json {
        let out = serde_json::json!({
            "kind": "graph", "nodes": parsed.nodes().len(), "tasks": summary.tasks, "adapters": summary.adapters,
            "edges": parsed.edges().len(), "target": summary.target, "families": summary.families,
            "python_functions": parsed.python_functions().len(),
            "problems": issues.iter().map(|i| serde_json::json!({
                "severity": if i.severity == Severity::Error { "error" } else { "warning" },
                "node": i.node.as_ref().map(|n| n.0.clone()), "message": i.message,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        println!("file:      {}", args.file.display());
        println!("kind:      graph (node-link)");
        println!("nodes:     {} ({} tasks, {} adapters), {} edges", parsed.nodes().len(), summary.tasks, summary.adapters, parsed.edges().len());
        println!("target:    {}", summary.target.as_deref().unwrap_or("(none declared: the single sink, if there is one)"));
        let families: Vec<String> = summary.families.iter().map(|(f, n)| format!("{f} {n}")).collect();
        println!("families:  {}", if families.is_empty() { "(none)".to_string() } else { families.join(", ") });
        if issues.is_empty() {
            println!("problems:  none: the graph is valid");
        } else {
            println!("problems:  {errors} error(s), {} warning(s)", issues.len() - errors);
            for issue in issues.iter().take(50) {
                println!("  {issue}");
            }
            if issues.len() > 50 {
                println!("  … and {} more", issues.len() - 50);
            }
        }
    }
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// What a graph holds, counted.
struct GraphSummary {
    tasks: usize,
    adapters: usize,
    target: Option<String>,
    /// Task nodes per family as written, in first-seen order.
    families: Vec<(String, usize)>,
}

impl GraphSummary {
    fn of(graph: &TaskGraph) -> GraphSummary {
        let mut summary = GraphSummary { tasks: 0, adapters: 0, target: graph.target().map(|t| t.0.clone()), families: Vec::new() };
        for node in graph.nodes() {
            match &node.kind {
                NodeKind::Task(task) => {
                    summary.tasks += 1;
                    match summary.families.iter_mut().find(|(f, _)| *f == task.family) {
                        Some((_, n)) => *n += 1,
                        None => summary.families.push((task.family.clone(), 1)),
                    }
                }
                _ => summary.adapters += 1,
            }
        }
        summary
    }
}
