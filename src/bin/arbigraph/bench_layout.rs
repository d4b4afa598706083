//! `arbigraph bench --layout`: graph drawing time against node count, for the layered layout and its SVG and,
//! where it finishes in reasonable time, for the former layout-rs drawing.
//!
//! Rows: the first 50, 100 and 150 nodes of the reference's 325-node example and the whole of it (read from
//! `--reference-dag`), then seeded random DAGs of 1,000, 3,000, 10,000 and 20,000 (the limit) scalar tasks
//! (each node takes one or two inputs among the 12 nodes before it).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use arbigraph_studio::engine::graph::{self, Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use arbigraph_studio::engine::render::{layout, to_svg, to_svg_with_layout_rs, LayoutOptions, RenderOptions};
use arbigraph_studio::engine::rng::InstanceRng;

use super::files::{fail, read_text};

/// Arguments of the layout section of `arbigraph bench`.
#[derive(clap::Args)]
pub struct LayoutArgs {
    /// Time graph layout and drawing against node count instead of generation.
    #[arg(long)]
    pub layout: bool,
    /// The reference's 325-node example (node-link JSON); its rows are skipped with a note when absent.
    #[arg(long, default_value = "tests/fixtures/reference/dag200_mixed.json")]
    pub reference_dag: PathBuf,
}

/// layout-rs is not run again once one drawing took longer than this.
const LAYOUT_RS_BUDGET_SECONDS: f64 = 5.0;
/// layout-rs is never run above this many nodes (it took over two minutes at 325).
const LAYOUT_RS_MAX_NODES: usize = 200;
/// Each layered-layout figure is the mean over repeated runs lasting at least this long.
const REPEAT_SECONDS: f64 = 0.3;

/// Runs the layout section.
pub fn run(args: &LayoutArgs) -> ExitCode {
    let mut rows: Vec<(String, TaskGraph)> = Vec::new();
    match read_text(&args.reference_dag) {
        Ok(text) => match graph::from_json_str(&text) {
            Ok(full) => {
                for n in [50, 100, 150] {
                    rows.push((format!("reference, first {n}"), prefix(&full, n)));
                }
                rows.push(("reference dag200_mixed".into(), full));
            }
            Err(errors) => return fail(format!("{}: {}", args.reference_dag.display(), errors[0])),
        },
        Err(e) => println!("reference rows skipped: {e}"),
    }
    for n in [1_000, 3_000, 10_000, 20_000] {
        rows.push(("random DAG (seed 1)".to_string(), random_dag(n, 1)));
    }

    println!("{:<24} {:>7} {:>7} {:>12} {:>12} {:>9} {:>30}", "graph", "nodes", "edges", "layout s", "svg s", "svg KiB", "layout-rs s");
    let mut layout_rs_stop: Option<String> = None;
    for (name, graph) in rows {
        let n = graph.nodes().len();
        let options = RenderOptions::default();
        let (layout_secs, runs) = match repeat(|| layout(&graph, &LayoutOptions::default()).map(|l| l.nodes.len())) {
            Ok(timing) => timing,
            Err(e) => {
                println!("{name:<24} {n:>7} {:>7} failed: {e}", graph.edges().len());
                continue;
            }
        };
        let start = Instant::now();
        let svg = match to_svg(&graph, &options) {
            Ok(svg) => svg,
            Err(e) => return fail(e),
        };
        let svg_secs = start.elapsed().as_secs_f64();
        if layout_rs_stop.is_none() && n > LAYOUT_RS_MAX_NODES {
            layout_rs_stop = Some(format!("not run (over {LAYOUT_RS_MAX_NODES} nodes)"));
        }
        let old = match &layout_rs_stop {
            Some(why) => why.clone(),
            None => {
                let start = Instant::now();
                let drawn = to_svg_with_layout_rs(&graph, &options);
                let secs = start.elapsed().as_secs_f64();
                std::hint::black_box(drawn.map(|s| s.len()).unwrap_or(0));
                if secs > LAYOUT_RS_BUDGET_SECONDS {
                    layout_rs_stop = Some(format!("not run (over {LAYOUT_RS_BUDGET_SECONDS} s at {n} nodes)"));
                }
                format!("{secs:.3}")
            }
        };
        println!(
            "{name:<24} {n:>7} {:>7} {:>12} {svg_secs:>12.4} {:>9.0} {old:>30}",
            graph.edges().len(),
            format!("{layout_secs:.4} ({runs}x)"),
            svg.len() as f64 / 1024.0
        );
    }
    ExitCode::SUCCESS
}

/// Mean seconds per run of `f`, repeated until `REPEAT_SECONDS` have passed (at least once).
fn repeat<T, E>(mut f: impl FnMut() -> Result<T, E>) -> Result<(f64, usize), E> {
    let start = Instant::now();
    let mut runs = 0;
    while runs == 0 || start.elapsed().as_secs_f64() < REPEAT_SECONDS {
        std::hint::black_box(f()?);
        runs += 1;
    }
    Ok((start.elapsed().as_secs_f64() / runs as f64, runs))
}

/// The first `n` nodes of `graph` (in file order) and the edges among them.
fn prefix(graph: &TaskGraph, n: usize) -> TaskGraph {
    let nodes: Vec<Node> = graph.nodes().iter().take(n).cloned().collect();
    let kept: std::collections::BTreeSet<&NodeId> = nodes.iter().map(|node| &node.id).collect();
    let edges = graph.edges().iter().filter(|e| kept.contains(&e.source) && kept.contains(&e.destination)).cloned().collect();
    let target = graph.target().filter(|t| kept.contains(t)).cloned();
    TaskGraph::from_parts(nodes, edges, target)
}

/// A seeded random DAG of `n` scalar math tasks: node i takes one or two inputs among the 12 nodes before it.
fn random_dag(n: usize, seed: u64) -> TaskGraph {
    let mut rng = InstanceRng::from_seed(seed);
    let id = |i: usize| NodeId(format!("n{i}"));
    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    for i in 0..n {
        let task = TaskNode { family: "math".into(), input_kind: Some("scalar".into()), output_kind: Some("scalar".into()), task_id: None, function: None };
        nodes.push(Node { id: id(i), kind: NodeKind::Task(task), position: None });
        if i == 0 {
            continue;
        }
        let first = edges.len();
        for _ in 0..1 + rng.index(2) {
            let edge = Edge { source: id(i - 1 - rng.index(i.min(12))), destination: id(i), slot: None };
            if !edges[first..].contains(&edge) {
                edges.push(edge);
            }
        }
    }
    TaskGraph::from_parts(nodes, edges, Some(id(n - 1)))
}
