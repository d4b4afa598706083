//! `arbigraph bench --scale`: how generation scales. Time per sample against chain length (math and Python), a
//! 200-task multichain, and seeded random DAGs of 10,000 to 1,000,000 nodes streamed to JSONL, each by a child
//! `arbigraph generate` so that its peak memory is its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use arbigraph_studio::engine::generate::{self, parse_structure, GenerateConfig, Topology};
use arbigraph_studio::engine::graph::{self, NodeKind};
use arbigraph_studio::engine::tasks::registry::{builtin, Registry};
use arbigraph_studio::engine::tasks::Family;
use arbigraph_studio::engine::value::Kind;

use super::files::fail;

/// Chain lengths measured per family.
const CHAIN_LENGTHS: [(Family, &[usize]); 2] = [(Family::Math, &[4, 16, 64, 256, 1_000, 10_000]), (Family::Python, &[4, 16, 64, 256, 1_000])];

/// Custom DAG sizes, in nodes.
const DAG_SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

/// Runs the scale benchmark.
pub fn run() -> ExitCode {
    let registry = builtin();
    println!("{:<8} {:<12} {:>8} {:>8} {:>12} {:>10}", "family", "topology", "tasks", "samples", "s/sample", "µs/task");
    for (family, lengths) in CHAIN_LENGTHS {
        for &length in lengths {
            row(&registry, family, "chain", Topology::Chain { length }, length);
        }
    }
    for family in [Family::Math, Family::Python] {
        let f = &family.as_str()[..1];
        let text = format!("{}{f},{f}", format!("{f},{f},[{f},{f}],[{f},{f}],").repeat(33));
        match parse_structure(&text) {
            Ok(structure) => {
                let tasks = structure.task_count();
                row(&registry, family, "multichain", Topology::Multichain(structure), tasks);
            }
            Err(e) => println!("{:<8} multichain   invalid structure: {e}", family.as_str()),
        }
    }
    println!();
    println!("custom DAGs (random_dag, math, seed 1), one sample streamed to JSONL by `arbigraph generate` in a child process");
    println!("{:>9} {:>8} {:>10} {:>12} {:>11} {:>14} {:>12}", "nodes", "tasks", "seconds", "nodes/s", "JSONL MB", "peak RSS MiB", "peak B/node");
    let dir = std::env::temp_dir().join(format!("arbigraph-bench-scale-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(format!("cannot create {}: {e}", dir.display()));
    }
    for nodes in DAG_SIZES {
        if let Err(e) = dag_row(&registry, nodes, &dir) {
            println!("{nodes:>9} failed: {e}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    ExitCode::SUCCESS
}

/// Generates samples of one target until a second has passed (at least one) and prints the time per sample.
fn row(registry: &Registry, family: Family, name: &str, topology: Topology, tasks: usize) {
    let mut config = GenerateConfig::new(topology, vec![family]);
    config.samples_per_target = 1;
    let target = match generate::targets(&config, registry) {
        Ok(targets) => targets[0].clone(),
        Err(e) => return println!("{:<8} {name:<12} {tasks:>8} failed: {e}", family.as_str()),
    };
    config.only_targets = vec![target.info().key.clone()];
    let start = Instant::now();
    let mut samples = 0u32;
    while samples == 0 || (start.elapsed().as_secs_f64() < 1.0 && samples < 50) {
        config.seed = u64::from(samples);
        match generate::generate_sample(&config, registry, 0, 0) {
            Ok(sample) => {
                std::hint::black_box(sample.prompt.text().len());
            }
            Err(e) => return println!("{:<8} {name:<12} {tasks:>8} failed: {e}", family.as_str()),
        }
        samples += 1;
    }
    let per_sample = start.elapsed().as_secs_f64() / f64::from(samples);
    println!("{:<8} {name:<12} {tasks:>8} {samples:>8} {per_sample:>12.4} {:>10.1}", family.as_str(), per_sample * 1e6 / tasks as f64);
}

/// Writes a random DAG of `nodes` nodes, has a child `arbigraph generate` stream one sample of its first target
/// to JSONL, and prints the child's time and peak memory.
fn dag_row(registry: &Registry, nodes: usize, dir: &Path) -> Result<(), String> {
    let graph = graph::random_dag(nodes, 1, &[Family::Math], registry).map_err(|e| e.to_string())?;
    let tasks = graph.nodes().iter().filter(|n| matches!(n.kind, NodeKind::Task(_))).count();
    let target = first_target(&graph, registry).ok_or("the random graph's target has no task")?;
    let path = dir.join(format!("dag-{nodes}.json"));
    write_graph(&graph, &path)?;
    drop(graph);
    let out = dir.join(format!("dag-{nodes}.jsonl"));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let start = Instant::now();
    let child = Command::new(exe)
        .args(["generate", "--topology", "custom", "--samples-per-target", "1", "--peak-memory", "--target", &target])
        .arg("--graph")
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("cannot run the child: {e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&child.stderr);
    if !child.status.success() {
        return Err(stderr.trim().to_string());
    }
    let peak_kib: f64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak memory: "))
        .and_then(|rest| rest.trim_end_matches(" KiB").parse().ok())
        .ok_or("the child did not report its peak memory")?;
    let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&path);
    println!(
        "{nodes:>9} {tasks:>8} {seconds:>10.2} {:>12.0} {:>11.1} {:>14.1} {:>12.0}",
        nodes as f64 / seconds,
        bytes as f64 / 1e6,
        peak_kib / 1024.0,
        peak_kib * 1024.0 / nodes as f64
    );
    Ok(())
}

/// The key of the first task that can be the graph's (unpinned) target.
fn first_target(graph: &graph::TaskGraph, registry: &Registry) -> Option<String> {
    let target = graph.target()?;
    let node = graph.nodes().iter().rev().find(|n| &n.id == target)?;
    let NodeKind::Task(task) = &node.kind else { return None };
    let input = task.input_kind.as_deref().and_then(Kind::parse);
    Some(registry.matching(task.family()?, input, task.output_kind()).first()?.info().key.clone())
}

/// Streams the graph's node-link JSON to a file.
fn write_graph(graph: &graph::TaskGraph, path: &PathBuf) -> Result<(), String> {
    struct Sink<W: Write>(W, Option<std::io::Error>);
    impl<W: Write> std::fmt::Write for Sink<W> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write_all(s.as_bytes()).map_err(|e| {
                self.1 = Some(e);
                std::fmt::Error
            })
        }
    }
    let file = std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let mut sink = Sink(std::io::BufWriter::new(file), None);
    let written = graph::write_json(graph, &mut sink);
    match (written, sink.1.take()) {
        (Ok(()), None) => sink.0.flush().map_err(|e| format!("cannot write {}: {e}", path.display())),
        (_, Some(e)) => Err(format!("cannot write {}: {e}", path.display())),
        (Err(_), None) => Err(format!("cannot write {}", path.display())),
    }
}
