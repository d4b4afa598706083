//! `arbigraph bench`: generation throughput per family × topology and for large custom graphs, printed as a
//! table with the reference's rates on the same kind of machine for comparison.

use std::process::ExitCode;
use std::time::Instant;

use arbigraph_studio::engine::generate::{self, parse_structure, GenerateConfig, Topology};
use arbigraph_studio::engine::graph::{self, ValidGraph};
use arbigraph_studio::engine::tasks::registry::{builtin, Registry};
use arbigraph_studio::engine::tasks::Family;

use super::files::fail;

/// Arguments of `arbigraph bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Seconds to spend per row (at least one full pass over the targets is always made).
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Only the large custom-graph rows.
    #[arg(long)]
    graphs_only: bool,
    #[command(flatten)]
    layout: super::bench_layout::LayoutArgs,
    /// Only the image-task figures: 1,000 pictures drawn, rendered to PNG and re-checked.
    #[arg(long)]
    image: bool,
    /// How generation scales instead: long chains, a 200-task multichain, 10,000- to 1,000,000-node graphs.
    #[arg(long)]
    scale: bool,
    /// The evaluation harness's own cost instead: requests per second `arbigraph eval` drives against an instant local endpoint.
    #[arg(long)]
    harness: bool,
}

/// The reference's published rates on a 2-vCPU machine (samples/s; chain rows in task instances/s).
fn reference_rate(family: Family, topology: &str) -> Option<f64> {
    match (family, topology) {
        (Family::Math, "baseline") => Some(200.0),
        (Family::Math, "chain") => Some(350.0),
        (Family::Python, "baseline") => Some(18.6),
        (Family::Python, "chain") => Some(9.8),
        (Family::Gsm, "baseline") => Some(40.0),
        _ => None,
    }
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    if args.layout.layout {
        return super::bench_layout::run(&args.layout);
    }
    if args.image {
        return super::bench_image::run();
    }
    if args.scale {
        return super::bench_scale::run();
    }
    if args.harness {
        return super::bench_harness::run();
    }
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        return fail("--seconds must be in (0, 600]");
    }
    let registry = builtin();
    println!("{:<8} {:<11} {:>9} {:>12} {:>14} {:>10} {:>10}", "family", "topology", "samples", "samples/s", "task-inst./s", "reference", "speed-up");
    if !args.graphs_only {
        for family in Family::ALL {
            if registry.family(family).is_empty() {
                println!("{:<8} (no tasks registered)", family.as_str());
                continue;
            }
            let letter = &family.as_str()[..1];
            let rows: Vec<(&str, Topology)> = vec![
                ("baseline", Topology::Baseline),
                ("forgetting", Topology::Forgetting { distractors: 3 }),
                ("chain", Topology::Chain { length: 4 }),
                ("multichain", Topology::Multichain(parse_structure(&format!("{letter},{letter},[{letter},{letter}],[{letter},{letter}],{letter},{letter}")).expect("valid structure"))),
            ];
            for (name, topology) in rows {
                match measure(&registry, topology, vec![family], args.seconds) {
                    Ok((samples, tasks_per_sample, secs)) => {
                        let rate = samples as f64 / secs;
                        let inst = rate * tasks_per_sample;
                        let reference = reference_rate(family, name);
                        let compared = if name == "chain" { inst } else { rate };
                        println!(
                            "{:<8} {:<11} {:>9} {:>12.0} {:>14.0} {:>10} {:>10}",
                            family.as_str(),
                            name,
                            samples,
                            rate,
                            inst,
                            reference.map(|r| format!("{r}")).unwrap_or_else(|| "-".into()),
                            reference.map(|r| format!("{:.0}x", compared / r)).unwrap_or_else(|| "-".into()),
                        );
                    }
                    Err(e) => println!("{:<8} {:<11} failed: {e}", family.as_str(), name),
                }
            }
        }
    }
    println!();
    println!("{:<28} {:>8} {:>10} {:>12} {:>14}", "custom graph", "nodes", "seconds", "nodes/s", "peak RSS MiB");
    for (name, nodes) in [("chain", 1_000), ("chain", 10_000), ("dag (pick/pack)", 1_000), ("dag (pick/pack)", 10_000)] {
        let json = if name == "chain" { chain_graph(nodes) } else { dag_graph(nodes) };
        let parsed = match graph::from_json(&json) {
            Ok(g) => g,
            Err(e) => return fail(format!("{e:?}")),
        };
        let start = Instant::now();
        let valid = match ValidGraph::new(parsed, &registry) {
            Ok(v) => v,
            Err(issues) => return fail(format!("benchmark graph invalid: {}", issues[0])),
        };
        let n = valid.graph().nodes().len();
        let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]);
        config.samples_per_target = 1;
        config.max_attempts = 20;
        match generate::generate_sample(&config, &registry, 0, 0) {
            Ok(sample) => {
                let secs = start.elapsed().as_secs_f64();
                std::hint::black_box(sample.prompt.text().len());
                println!("{:<28} {:>8} {:>10.3} {:>12.0} {:>14.1}", format!("{name} ({} tasks)", sample.stages.len()), n, secs, n as f64 / secs, peak_rss_mib());
            }
            Err(e) => println!("{name:<28} {n:>8} failed: {e}"),
        }
    }
    ExitCode::SUCCESS
}

/// Generates whole passes over the targets until `seconds` have passed; returns (samples, tasks per sample, seconds).
fn measure(registry: &Registry, topology: Topology, families: Vec<Family>, seconds: f64) -> Result<(usize, f64, f64), String> {
    let start = Instant::now();
    let mut samples = 0;
    let mut tasks = 0;
    let mut seed = 0;
    while samples == 0 || start.elapsed().as_secs_f64() < seconds {
        let mut config = GenerateConfig::new(topology.clone(), families.clone());
        config.samples_per_target = 2;
        config.seed = seed;
        let made = generate::generate(&config, registry, &mut |_, _| {}).map_err(|e| e.to_string())?;
        samples += made.len();
        tasks += made.iter().map(|s| s.stages.len()).sum::<usize>();
        seed += 1;
    }
    Ok((samples, tasks as f64 / samples as f64, start.elapsed().as_secs_f64()))
}

/// A chain of `n` unpinned scalar→scalar math tasks.
fn chain_graph(n: usize) -> serde_json::Value {
    let nodes: Vec<_> = (0..n).map(|i| serde_json::json!({"id": format!("t{i}"), "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"})).collect();
    let edges: Vec<_> = (1..n).map(|i| serde_json::json!({"source": format!("t{}", i - 1), "destination": format!("t{i}")})).collect();
    serde_json::json!({"directed": true, "multigraph": false, "graph": {"target_node": format!("t{}", n - 1)}, "nodes": nodes, "edges": edges})
}

/// Repeated diamonds: scalar→list task, two picks, two scalar tasks, a pack, a list→scalar task (7 nodes each).
fn dag_graph(n: usize) -> serde_json::Value {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let task = |id: String, i: &str, o: &str| serde_json::json!({"id": id, "kind": "task", "family": "math", "input_kind": i, "output_kind": o});
    let mut prev: Option<String> = None;
    let mut k = 0;
    while nodes.len() + 7 <= n.max(7) {
        let ids: Vec<String> = ["split", "pa", "pb", "left", "right", "pack", "join"].iter().map(|s| format!("{s}{k}")).collect();
        nodes.push(task(ids[0].clone(), "scalar", "list"));
        nodes.push(serde_json::json!({"id": ids[1], "kind": "adapter", "op": "pick", "index": 0}));
        nodes.push(serde_json::json!({"id": ids[2], "kind": "adapter", "op": "pick", "index": 1}));
        nodes.push(task(ids[3].clone(), "scalar", "scalar"));
        nodes.push(task(ids[4].clone(), "scalar", "scalar"));
        nodes.push(serde_json::json!({"id": ids[5], "kind": "adapter", "op": "pack"}));
        nodes.push(task(ids[6].clone(), "list", "scalar"));
        if let Some(p) = &prev {
            edges.push(serde_json::json!({"source": p, "destination": ids[0]}));
        }
        for (a, b) in [(0, 1), (0, 2), (1, 3), (2, 4)] {
            edges.push(serde_json::json!({"source": ids[a], "destination": ids[b]}));
        }
        edges.push(serde_json::json!({"source": ids[3], "destination": ids[5], "slot": 0}));
        edges.push(serde_json::json!({"source": ids[4], "destination": ids[5], "slot": 1}));
        edges.push(serde_json::json!({"source": ids[5], "destination": ids[6]}));
        prev = Some(ids[6].clone());
        k += 1;
    }
    serde_json::json!({"directed": true, "multigraph": false, "graph": {"target_node": prev}, "nodes": nodes, "edges": edges})
}

/// Peak resident memory of this process (Linux), in MiB; 0 where unknown.
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}
