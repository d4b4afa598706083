//! `arbigraph render`: a custom graph as SVG (our layered layout) or DOT text, after validation.

use std::path::PathBuf;
use std::process::ExitCode;

use arbigraph_studio::engine::graph::{self, Severity};
use arbigraph_studio::engine::render::{to_dot, to_svg, Direction, RenderOptions};

use super::files::{fail, read_text, write_text};

/// Arguments of `arbigraph render`.
#[derive(clap::Args)]
pub struct Args {
    /// The graph (node-link JSON).
    #[arg(long)]
    graph: PathBuf,
    /// Output: `.svg` or `.dot`.
    #[arg(short, long)]
    output: PathBuf,
    /// LR (left to right) or TB (top to bottom).
    #[arg(long, default_value = "LR")]
    rankdir: String,
    /// A task pack the graph's pinned tasks come from (`python=FILE`, `gsm=DIR_OR_FILE`); repeatable. Its
    /// problems are checked against the pack's tasks.
    #[arg(long = "pack")]
    packs: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let text = match read_text(&args.graph) {
        Ok(text) => text,
        Err(e) => return fail(e),
    };
    let graph = match graph::from_json_str(&text) {
        Ok(graph) => graph,
        Err(errors) => {
            let lines: Vec<String> = errors.iter().map(|e| format!("  {}: {e}", args.graph.display())).collect();
            return fail(format!("{} is not a valid graph file:\n{}", args.graph.display(), lines.join("\n")));
        }
    };
    // Problems are reported but do not stop drawing: a picture helps fixing them.
    let registry = match super::packs::checking_registry(graph.image_params().copied().unwrap_or_default(), &args.packs) {
        Ok(registry) => registry,
        Err(e) => return fail(e),
    };
    let issues = graph.issues(&registry);
    for issue in &issues {
        eprintln!("{issue}");
    }
    let direction = match args.rankdir.to_ascii_uppercase().as_str() {
        "LR" => Direction::LeftToRight,
        "TB" => Direction::TopToBottom,
        other => return fail(format!("--rankdir must be LR or TB, got {other}")),
    };
    let options = RenderOptions::with_direction(direction);
    let output = match args.output.extension().and_then(|e| e.to_str()) {
        Some("dot") | Some("gv") => to_dot(&graph, &options),
        Some("svg") => match to_svg(&graph, &options) {
            Ok(svg) => svg,
            Err(e) => return fail(e),
        },
        _ => return fail(format!("{}: the output must end in .svg or .dot", args.output.display())),
    };
    if let Err(e) = write_text(&args.output, &output) {
        return fail(e);
    }
    let errors = issues.iter().filter(|i| i.severity == Severity::Error).count();
    eprintln!("wrote {} ({} nodes, {} edges, {errors} error(s))", args.output.display(), graph.nodes().len(), graph.edges().len());
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
