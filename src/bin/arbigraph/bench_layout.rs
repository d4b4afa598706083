//! `arbigraph bench --layout`: graph drawing time against node count, for the layered layout and its SVG and,
//! where it finishes in reasonable time, for the former layout-rs drawing.
//!
//! Rows: the first 25, 50, 100 and 150 nodes of the reference's 325-node example and the whole of it (read from
//! `--reference-dag`), then seeded random DAGs of 1,000, 3,000, 10,000 and 20,000 (the limit) scalar tasks
//! (each node takes one or two inputs among the 12 nodes before it). Beside the times, each drawing's edge
//! crossings and width, measured the same way on both SVGs (`measure`): edges are the paths with an arrowhead,
//! curves flattened, and two edges cross where their lines intersect away from the nodes they start or end at.

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
                for n in [25, 50, 100, 150] {
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

    println!(
        "{:<24} {:>7} {:>7} {:>14} {:>8} {:>9} {:>10} {:>8} | {:>12} {:>10} {:>8}",
        "graph", "nodes", "edges", "layout s", "svg s", "svg KiB", "crossings", "width", "layout-rs s", "crossings", "width"
    );
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
                if secs > LAYOUT_RS_BUDGET_SECONDS {
                    layout_rs_stop = Some(format!("not run (over {LAYOUT_RS_BUDGET_SECONDS} s at {n} nodes)"));
                }
                match drawn {
                    Ok(drawing) => {
                        let (crossings, width) = measure(&drawing);
                        format!("{secs:>12.3} {crossings:>10} {width:>8.0}")
                    }
                    Err(e) => format!("failed: {e}"),
                }
            }
        };
        // Counting crossings is quadratic in the edges: skipped where it would take longer than the drawing.
        let (crossings, width) = if graph.edges().len() <= MEASURE_MAX_EDGES { measure(&svg) } else { (usize::MAX, svg_width(&svg)) };
        let crossings = if crossings == usize::MAX { "-".to_string() } else { crossings.to_string() };
        println!(
            "{name:<24} {n:>7} {:>7} {:>14} {svg_secs:>8.4} {:>9.0} {crossings:>10} {width:>8.0} | {old}",
            graph.edges().len(),
            format!("{layout_secs:.4} ({runs}x)"),
            svg.len() as f64 / 1024.0
        );
    }
    ExitCode::SUCCESS
}

/// Crossings are counted up to this many edges (pairs grow quadratically).
const MEASURE_MAX_EDGES: usize = 2_000;
/// Segments a cubic curve is flattened into.
const CURVE_STEPS: usize = 12;
/// Intersections this close (in drawing units) to an edge's own start or end are where edges meet at a node.
const NODE_RADIUS: f64 = 6.0;

type Pt = (f64, f64);

/// The drawing's edge crossings and width: edges are the `<path>`s that end in an arrowhead.
fn measure(svg: &str) -> (usize, f64) {
    let edges: Vec<Vec<Pt>> = svg
        .split("<path")
        .skip(1)
        .filter(|element| element.split('>').next().is_some_and(|attrs| attrs.contains("marker-end")))
        .filter_map(|element| attribute(element, "d").map(flatten))
        .filter(|line| line.len() >= 2)
        .collect();
    let mut crossings = 0;
    for (i, a) in edges.iter().enumerate() {
        for b in &edges[i + 1..] {
            crossings += crossings_between(a, b);
        }
    }
    (crossings, svg_width(svg))
}

/// The `width` of the `<svg>` element.
fn svg_width(svg: &str) -> f64 {
    svg.split("<svg").nth(1).and_then(|element| attribute(element, "width")).and_then(|w| w.trim_end_matches("px").parse().ok()).unwrap_or(0.0)
}

/// The value of attribute `name` in an element's text.
fn attribute<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let attrs = element.split('>').next()?;
    let at = attrs.match_indices(&format!("{name}=\"")).find(|(i, _)| *i == 0 || attrs[..*i].ends_with(char::is_whitespace))?.0;
    let rest = &attrs[at + name.len() + 2..];
    rest.split('"').next()
}

/// A path's `d` (M, L, C and S commands, absolute) as a polyline, curves flattened.
fn flatten(d: &str) -> Vec<Pt> {
    let mut numbers_and_commands: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in d.chars() {
        if c.is_ascii_alphabetic() && c != 'e' {
            if !current.is_empty() {
                numbers_and_commands.push(std::mem::take(&mut current));
            }
            numbers_and_commands.push(c.to_string());
        } else if c == ',' || c.is_whitespace() || (c == '-' && !current.is_empty() && !current.ends_with('e')) {
            if !current.is_empty() {
                numbers_and_commands.push(std::mem::take(&mut current));
            }
            if c == '-' {
                current.push(c);
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        numbers_and_commands.push(current);
    }
    let (mut out, mut command, mut numbers): (Vec<Pt>, char, Vec<f64>) = (Vec::new(), 'M', Vec::new());
    let mut last_control: Option<Pt> = None;
    let emit = |command: char, numbers: &mut Vec<f64>, out: &mut Vec<Pt>, last_control: &mut Option<Pt>| {
        let need = match command {
            'M' | 'L' => 2,
            'C' => 6,
            'S' => 4,
            _ => usize::MAX,
        };
        while numbers.len() >= need {
            let n: Vec<f64> = numbers.drain(..need).collect();
            let here = out.last().copied().unwrap_or((0.0, 0.0));
            match command {
                'M' | 'L' => {
                    out.push((n[0], n[1]));
                    *last_control = None;
                }
                'C' | 'S' => {
                    let (c1, c2, end) = if command == 'C' {
                        ((n[0], n[1]), (n[2], n[3]), (n[4], n[5]))
                    } else {
                        let reflected = last_control.map_or(here, |c| (2.0 * here.0 - c.0, 2.0 * here.1 - c.1));
                        (reflected, (n[0], n[1]), (n[2], n[3]))
                    };
                    for step in 1..=CURVE_STEPS {
                        let t = step as f64 / CURVE_STEPS as f64;
                        let u = 1.0 - t;
                        let (a, b, c, e) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
                        out.push((a * here.0 + b * c1.0 + c * c2.0 + e * end.0, a * here.1 + b * c1.1 + c * c2.1 + e * end.1));
                    }
                    *last_control = Some(c2);
                }
                _ => {}
            }
        }
    };
    for token in numbers_and_commands {
        match token.parse::<f64>() {
            Ok(value) => numbers.push(value),
            Err(_) => {
                emit(command, &mut numbers, &mut out, &mut last_control);
                numbers.clear();
                command = token.chars().next().unwrap_or('M').to_ascii_uppercase();
            }
        }
    }
    emit(command, &mut numbers, &mut out, &mut last_control);
    out
}

/// Points where polylines `a` and `b` cross, away from either one's ends (where edges meet at nodes).
fn crossings_between(a: &[Pt], b: &[Pt]) -> usize {
    let near_end = |p: Pt, line: &[Pt]| [line[0], line[line.len() - 1]].iter().any(|q| (p.0 - q.0).hypot(p.1 - q.1) < NODE_RADIUS);
    let mut count = 0;
    for s in a.windows(2) {
        for t in b.windows(2) {
            if let Some(p) = intersection(s[0], s[1], t[0], t[1]) {
                if !near_end(p, a) && !near_end(p, b) {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Where segments p1–p2 and q1–q2 properly intersect, if they do.
fn intersection(p1: Pt, p2: Pt, q1: Pt, q2: Pt) -> Option<Pt> {
    let (r, s) = ((p2.0 - p1.0, p2.1 - p1.1), (q2.0 - q1.0, q2.1 - q1.1));
    let denominator = r.0 * s.1 - r.1 * s.0;
    if denominator.abs() < 1e-12 {
        return None; // parallel or collinear: overlapping runs are not counted as crossings
    }
    let (dx, dy) = (q1.0 - p1.0, q1.1 - p1.1);
    let t = (dx * s.1 - dy * s.0) / denominator;
    let u = (dx * r.1 - dy * r.0) / denominator;
    ((0.0..1.0).contains(&t) && (0.0..1.0).contains(&u)).then(|| (p1.0 + t * r.0, p1.1 + t * r.1))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossings_and_width_are_read_from_either_drawing() {
        // Two straight edges forming an X, one edge meeting them only at a shared end, one path without an arrowhead.
        let ours = r#"<svg xmlns="x" width="300" height="100"><path d="M0 0 L100 100" marker-end="url(#a)"/><path d="M0 100 L100 0" marker-end="url(#a)"/><path d="M100 100 L200 100" marker-end="url(#a)"/><path d="M0 50 L200 50" fill="white"/></svg>"#;
        assert_eq!(measure(ours), (1, 300.0));
        // layout-rs's cubic curves (C then S), crossing a straight edge twice.
        let theirs = "<svg width=\"250\" height=\"9\" viewBox=\"0 0 250 9\">\n<path id=\"arrow0\" d=\"M 0 50 C 50 -50, 50 -50, 100 50 S 150 150, 200 50 \" stroke=\"black\" marker-end=\"url(#endarrow)\" fill=\"transparent\" />\n<path d=\"M -10 50 L 210 50\" marker-end=\"url(#endarrow)\" />";
        assert_eq!(measure(theirs), (1, 250.0), "the crossing at x=100; the two ends lie on the line and are node meetings");
        assert_eq!(flatten("M0 0 L10 0 L10 10").len(), 3);
        assert_eq!(flatten("M0,0 C0,10 10,10 10,0").len(), 1 + CURVE_STEPS);
    }
}
