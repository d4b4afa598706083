//! Generation end to end: determinism per topology and family, single-sample regeneration, stage wiring,
//! custom graphs (reference files, non-sink targets, 10,000 nodes), located validation, bad configurations.

use arbigraph_studio::engine::dataset::{self, inspect, RunInfo};
use arbigraph_studio::engine::generate::{self, parse_structure, GenerateConfig, GenerateError, SampleShape, Topology};
use arbigraph_studio::engine::graph::{self, Severity, ValidGraph};
use arbigraph_studio::engine::tasks::registry::builtin;
use arbigraph_studio::engine::tasks::Family;
use arbigraph_studio::engine::value::Value;

fn topologies(family: Family) -> Vec<Topology> {
    let f = &family.as_str()[..1];
    let mut out = vec![Topology::Baseline, Topology::Forgetting { distractors: 3 }, Topology::Chain { length: 4 }];
    if family != Family::Gsm {
        out.push(Topology::Multichain(parse_structure(&format!("{f},{f},[{f},{f}],[{f},{f}],{f},{f}")).unwrap()));
    }
    out
}

fn config(topology: Topology, family: Family, seed: u64) -> GenerateConfig {
    let mut config = GenerateConfig::new(topology, vec![family]);
    config.samples_per_target = 2;
    config.seed = seed;
    config
}

fn file_text(config: &GenerateConfig) -> String {
    let registry = builtin();
    let samples = generate::generate(config, &registry, &mut |_, _| {}).expect("generation succeeds");
    dataset::to_pretty_string(&dataset::to_json(config, &samples, &RunInfo::default()))
}

#[test]
fn same_inputs_give_byte_identical_files_and_seeds_matter() {
    for family in [Family::Math, Family::Gsm] {
        for topology in topologies(family) {
            let name = topology.name();
            let a = file_text(&config(topology.clone(), family, 7));
            let b = file_text(&config(topology.clone(), family, 7));
            let c = file_text(&config(topology, family, 8));
            assert_eq!(a, b, "{family} {name}: same seed, same bytes");
            assert_ne!(a, c, "{family} {name}: another seed, other samples");
            let report = inspect(&serde_json::from_str(&a).unwrap());
            assert!(report.problems.is_empty(), "{family} {name}: {:?}", report.problems);
            assert_eq!(report.topology, if name == "multichain" { "multichain" } else { name });
        }
    }
}

#[test]
fn one_sample_regenerates_alone() {
    let registry = builtin();
    for family in [Family::Math, Family::Gsm] {
        for topology in topologies(family) {
            let config = config(topology, family, 3);
            let all = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
            for pick in [0, all.len() / 2, all.len() - 1] {
                let want = &all[pick];
                let got = generate::generate_sample(&config, &registry, want.target_index, want.sample_idx).unwrap();
                assert_eq!(&got, want, "{family} {}: sample {pick}", config.topology.name());
            }
        }
    }
}

#[test]
fn chain_stages_consume_the_previous_output() {
    let registry = builtin();
    let samples = generate::generate(&config(Topology::Chain { length: 5 }, Family::Math, 1), &registry, &mut |_, _| {}).unwrap();
    for sample in &samples {
        assert_eq!(sample.stages.len(), 5);
        assert_eq!(sample.stages[0].input_value, sample.chain_input);
        for pair in sample.stages.windows(2) {
            assert_eq!(pair[1].input_value, pair[0].ground_truth);
            assert_eq!(pair[1].input_name, format!("task_{}_out", pair[0].number));
            assert!(pair[1].info.accepts(pair[0].ground_truth.kind()));
        }
        assert_eq!(sample.ground_truth, sample.stages[4].ground_truth);
        assert_eq!(sample.target.key, sample.stages[4].info.key);
        for stage in &sample.stages {
            assert!(sample.prompt.text().contains(&format!("Task {}:", stage.number)));
        }
    }
}

#[test]
fn forgetting_distractors_are_distinct_other_tasks() {
    let registry = builtin();
    let samples = generate::generate(&config(Topology::Forgetting { distractors: 3 }, Family::Math, 2), &registry, &mut |_, _| {}).unwrap();
    for sample in &samples {
        let names: Vec<&str> = sample.stages.iter().map(|s| s.info.name.as_str()).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 4, "{names:?}");
        assert_eq!(names[3], sample.target.name);
        assert_eq!(sample.target_output_name, "task_4_out");
        assert!(sample.prompt.text().contains("Define task_2_input = "));
    }
}

#[test]
fn multichain_branches_take_expansion_elements_and_recombine() {
    let registry = builtin();
    let structure = parse_structure("m,m,[m,m],[m,m,m],m,m").unwrap();
    let samples = generate::generate(&config(Topology::Multichain(structure), Family::Math, 5), &registry, &mut |_, _| {}).unwrap();
    for sample in &samples {
        assert_eq!(sample.stages.len(), 9);
        let SampleShape::Multichain { blocks } = &sample.shape else { panic!("multichain shape") };
        let block = &blocks[0];
        let Value::List(expansion) = &sample.stages[block.expansion_task_number - 1].ground_truth else { panic!("expansion is a list") };
        for (i, branch) in block.branches.iter().enumerate() {
            assert_eq!(branch.input_value, expansion[i]);
            assert!(sample.prompt.text().contains(&format!("Define {} = task_{}_out[{i}].", branch.input_name, block.expansion_task_number)));
        }
        assert_eq!(block.recombined.len(), 10);
        let next = sample.stages.iter().find(|s| s.input_name == block.next_input_name).expect("post-block stage");
        assert_eq!(next.input_value, Value::List(block.recombined.clone()));
    }
}

#[test]
fn reference_custom_graph_generates_with_a_non_sink_target() {
    let registry = builtin();
    let text = std::fs::read_to_string(crate::support::reference("branched_test.json")).unwrap();
    let mut graph = graph::from_json_str(&text).unwrap();
    let valid = ValidGraph::new(graph.clone(), &registry).expect("the reference test graph is valid");
    let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]);
    config.samples_per_target = 3;
    config.seed = 1;
    let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
    assert_eq!(samples.len(), 3);
    for sample in &samples {
        assert_eq!(sample.target.name, "ConvexHullAreaTask");
        let SampleShape::Custom { adapters, .. } = &sample.shape else { panic!("custom shape") };
        assert_eq!(adapters.len(), 3);
        assert!(sample.prompt.text().contains("Static Inputs:"));
    }
    // Make task_2 (a middle node) the target: it is graded even though it is not a sink.
    graph.apply(graph::GraphEdit::SetTarget(graph::NodeId("task_2".into()))).unwrap();
    let valid = ValidGraph::new(graph, &registry).unwrap();
    let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]);
    config.samples_per_target = 2;
    let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
    for sample in &samples {
        assert_eq!(sample.target_output_name, "task_2_out");
        let stage = sample.stages.iter().find(|s| s.node_id.as_deref() == Some("task_2")).unwrap();
        assert_eq!(sample.ground_truth, stage.ground_truth);
        let json = dataset::to_json(&config, std::slice::from_ref(sample), &RunInfo::default());
        assert_eq!(json["samples"][0]["target_output_name"], "task_2_out");
    }
}

#[test]
fn ten_thousand_node_custom_chain_generates() {
    let registry = builtin();
    let n = 10_000;
    let nodes: Vec<_> = (0..n).map(|i| serde_json::json!({"id": format!("t{i}"), "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"})).collect();
    let edges: Vec<_> = (1..n).map(|i| serde_json::json!({"source": format!("t{}", i - 1), "destination": format!("t{i}")})).collect();
    let json = serde_json::json!({"directed": true, "multigraph": false, "graph": {"target_node": format!("t{}", n - 1)}, "nodes": nodes, "edges": edges});
    let valid = ValidGraph::new(graph::from_json(&json).unwrap(), &registry).unwrap();
    let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]);
    config.samples_per_target = 1;
    let sample = generate::generate_sample(&config, &registry, 0, 0).unwrap();
    assert_eq!(sample.stages.len(), n);
    assert_eq!(sample.target_output_name, format!("task_{n}_out"));
}

#[test]
fn any_family_nodes_draw_from_the_run_families() {
    let registry = builtin();
    let text = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
        "nodes": [{"id": "a", "kind": "task", "family": "any", "input_kind": "scalar", "output_kind": "scalar"},
                  {"id": "b", "kind": "task", "family": "any", "input_kind": "scalar"}],
        "edges": [{"source": "a", "destination": "b"}]}"#;
    let graph = graph::from_json_str(text).unwrap();
    assert!(graph.issues(&registry).is_empty(), "{:?}", graph.issues(&registry));
    for families in [vec![Family::Gsm], vec![Family::Math, Family::Python]] {
        let valid = ValidGraph::new(graph.clone(), &registry).unwrap();
        let mut config = GenerateConfig::new(Topology::Custom(Box::new(valid)), families.clone());
        config.samples_per_target = 1;
        let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
        let seen: std::collections::BTreeSet<Family> = samples.iter().map(|s| s.target.family).collect();
        assert_eq!(seen, families.iter().copied().collect(), "targets come from every run family");
        for sample in &samples {
            assert!(sample.stages.iter().all(|st| families.contains(&st.info.family)), "{:?}", sample.stages.iter().map(|s| &s.info.key).collect::<Vec<_>>());
        }
    }
    let pinned = text.replace(r#""family": "any", "input_kind": "scalar"}"#, r#""family": "any", "task_id": 3, "input_kind": "scalar"}"#);
    let issues = graph::from_json_str(&pinned).unwrap().issues(&registry);
    assert!(issues.iter().any(|i| i.message.contains("pin a task only with its family")), "{issues:?}");
}

#[test]
fn validation_reports_every_problem_on_its_node() {
    let registry = builtin();
    let text = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "t"},
        "nodes": [
          {"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
          {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
          {"id": "c", "kind": "task", "family": "algebra", "input_kind": "scalar", "output_kind": "scalar"},
          {"id": "d", "kind": "task", "family": "math", "task_id": 99, "input_kind": "scalar", "output_kind": "list"},
          {"id": "e", "kind": "task", "family": "math", "input_kind": "matrix"},
          {"id": "p", "kind": "adapter", "op": "pick", "index": -1},
          {"id": "k", "kind": "adapter", "op": "pack"},
          {"id": "z", "kind": "adapter", "op": "zip"},
          {"id": "t", "kind": "task", "family": "math", "task_id": 10}
        ],
        "edges": [
          {"source": "a", "destination": "b"}, {"source": "b", "destination": "a"},
          {"source": "a", "destination": "p"}, {"source": "p", "destination": "k", "slot": 3},
          {"source": "k", "destination": "t"}, {"source": "a", "destination": "ghost"}
        ]}"#;
    let graph = graph::from_json_str(text).unwrap();
    let issues = ValidGraph::new(graph, &registry).unwrap_err();
    let on = |node: &str| issues.iter().filter(|i| i.severity == Severity::Error && i.node.as_ref().is_some_and(|n| n.0 == node)).map(|i| i.message.clone()).collect::<Vec<_>>();
    assert!(on("a").iter().any(|m| m.contains("cycle")), "{issues:#?}");
    assert!(on("b").iter().any(|m| m.contains("cycle")));
    assert!(on("a").iter().any(|m| m.contains("unknown node `ghost`")));
    assert!(on("c").iter().any(|m| m.contains("unknown family `algebra`")));
    assert!(on("d").iter().any(|m| m.contains("unknown math task_id 99")));
    assert!(on("e").iter().any(|m| m.contains("input_kind must be `scalar` or `list`")));
    assert!(on("e").iter().any(|m| m.contains("output_kind is required")));
    assert!(on("p").iter().any(|m| m.contains("needs a list input")));
    assert!(on("p").iter().any(|m| m.contains("non-negative")));
    assert!(on("k").iter().any(|m| m.contains("slots must be exactly 0..0")));
    assert!(on("z").iter().any(|m| m.contains("unknown adapter op `zip`")));
    assert!(on("t").is_empty(), "the target itself is fine: {:?}", on("t"));
}

#[test]
fn bad_configurations_are_clear_errors() {
    let registry = builtin();
    let huge = config(Topology::Chain { length: 10_000_000 }, Family::Math, 0);
    assert!(matches!(generate::generate(&huge, &registry, &mut |_, _| {}), Err(GenerateError::Config(m)) if m.contains("chain length")));
    let gsm_multichain = config(Topology::Multichain(parse_structure("g,g,[g,g],[g,g],g").unwrap()), Family::Gsm, 0);
    assert!(matches!(generate::targets(&gsm_multichain, &registry), Err(GenerateError::Config(m)) if m.contains("outputs a list")));
    let no_samples = GenerateConfig { samples_per_target: 0, ..config(Topology::Baseline, Family::Math, 0) };
    assert!(matches!(generate::generate(&no_samples, &registry, &mut |_, _| {}), Err(GenerateError::Config(_))));
    assert!(matches!(generate::generate_sample(&config(Topology::Baseline, Family::Math, 0), &registry, 999, 0), Err(GenerateError::TargetOutOfRange { .. })));
}

#[test]
fn reference_dataset_and_results_files_load_without_problems() {
    for name in ["math_baseline.sample.json", "math_chain.sample.json", "math_forgetting.sample.json", "gsm_baseline.sample.json",
        "gsm_chain.sample.json", "gsm_forgetting.sample.json", "python_baseline.sample.json", "results_gsm_baseline.sample.json",
        "results_math_multichain.sample.json"]
    {
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(crate::support::reference(name)).unwrap()).unwrap();
        let report = inspect(&json);
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        assert!(report.num_samples > 0, "{name}");
    }
}

/// The same digest is asserted by `e2e/platform.test.mjs` in the browser: native and wasm files are byte-identical.
pub const PROBE_FINGERPRINT: &str = "e83521980d7580fe";

#[test]
fn the_cross_platform_probe_has_the_pinned_fingerprint() {
    let text = dataset::cross_platform_probe(&builtin());
    assert!(text.len() > 10_000, "the probe generated real files");
    assert_eq!(format!("{:016x}", dataset::fingerprint(&text)), PROBE_FINGERPRINT, "e2e/platform.test.mjs reads this pin: a change here must be on purpose");
}
