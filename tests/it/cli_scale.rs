//! The command line at scale: JSONL streamed to the file equals the engine's in-memory JSONL byte for byte (a
//! custom graph read through the buffered reader, and a long chain), a graph over the node cap is refused
//! before it is built, and `--peak-memory` reports.

use arbigraph_studio::engine::dataset;
use arbigraph_studio::engine::generate::{self, GenerateConfig, Topology};
use arbigraph_studio::engine::graph::{self, ValidGraph};
use arbigraph_studio::engine::tasks::registry::builtin;
use arbigraph_studio::engine::tasks::Family;

/// Runs `arbigraph`: (exit code, stderr).
fn arbigraph(args: &[&str]) -> (i32, String) {
    let (code, _, err) = crate::support::arbigraph(args);
    (code, err)
}

fn temp(name: &str) -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| crate::support::scratch("cli-scale")).join(name)
}

#[test]
fn streamed_jsonl_of_a_custom_graph_equals_the_in_memory_jsonl() {
    let registry = builtin();
    let graph = graph::random_dag(1_500, 5, &[Family::Math], &registry).expect("a graph");
    let mut text = String::new();
    graph::write_json(&graph, &mut text).expect("a string takes everything");
    let graph_path = temp("dag.json");
    std::fs::write(&graph_path, &text).expect("write graph");
    let valid = ValidGraph::new(graph, &registry).expect("random graphs are valid");
    let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]);
    config.samples_per_target = 2;
    config.seed = 3;
    let target = generate::targets(&config, &registry).expect("targets").last().expect("a target").info().key.clone();
    config.only_targets = vec![target.clone()];
    let want = dataset::to_jsonl(&config, &generate::generate(&config, &registry, &mut |_, _| {}).expect("generates"));

    let out = temp("dag.jsonl");
    let (code, err) = arbigraph(&[
        "generate", "--topology", "custom", "--graph", graph_path.to_str().unwrap(), "--samples-per-target", "2", "--seed", "3",
        "--target", &target, "--peak-memory", "-o", out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 2 samples") && err.contains("peak memory: "), "{err}");
    assert_eq!(std::fs::read_to_string(&out).expect("output written"), want);
}

#[test]
fn streamed_jsonl_of_a_long_chain_equals_the_in_memory_jsonl() {
    let registry = builtin();
    let mut config = GenerateConfig::new(Topology::Chain { length: 300 }, vec![Family::Math]);
    config.samples_per_target = 1;
    config.only_targets = vec!["math.ConvolutionTask".into()];
    let want = dataset::to_jsonl(&config, &generate::generate(&config, &registry, &mut |_, _| {}).expect("generates"));
    let out = temp("chain.jsonl");
    let (code, err) = arbigraph(&["generate", "--topology", "chain", "--length", "300", "--samples-per-target", "1", "--target", "math.ConvolutionTask", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&out).expect("output written"), want);
}

#[test]
fn a_graph_over_the_node_cap_is_refused_while_it_is_read() {
    let nodes = vec!["{}"; 2_000_001].join(",");
    let path = temp("huge.json");
    std::fs::write(&path, format!(r#"{{"nodes": [{nodes}], "edges": []}}"#)).expect("write graph");
    let out = temp("huge.jsonl");
    let (code, err) = arbigraph(&["generate", "--topology", "custom", "--graph", path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("$.nodes: the graph has more than 2000000 nodes; at most 2000000 are supported"), "{err}");
}
