//! Every context strategy against the probe, in process. The workloads: generated chains of 4, 16 and 64 tasks,
//! the paper's multichain (`m,m,[m,m],[m,m],m,m`), and four probe workloads that discriminate between strategies
//! by how far back a task reads: 64 math tasks in 8 interleaved chains (task i reads task i−8, the chains' ends
//! packed into a list target), a longer multichain with recombinations, a custom DAG with a long edge (the target
//! reads the output of the task 22 places before it), and a distractor-heavy forgetting layout; all with filler
//! turns between tasks. Every registered strategy's retention and prompt-token cost relative to `full` is
//! asserted on every probe workload, `acg` also with each of its mechanisms switched off.

use arbigraph_studio::engine::agent::probe::{Declarations, Probe, ProbeOptions};
use arbigraph_studio::engine::agent::strategy::{registry, Strategy};
use arbigraph_studio::engine::agent::{run_to_end, AgentConfig, AgentError, AgentInput, AgentRecord, Status};
use arbigraph_studio::engine::dataset::{self, RunInfo};
use arbigraph_studio::engine::generate::{self, parse_structure, GenerateConfig, Topology};
use arbigraph_studio::engine::grade::NodeStatus;
use arbigraph_studio::engine::graph::{self, ValidGraph};
use arbigraph_studio::engine::tasks::registry::builtin;
use arbigraph_studio::engine::tasks::Family;
use serde_json::{json, Value};

/// `count` samples of a math topology (the first targets that generate).
fn samples(topology: Topology, count: usize) -> Vec<Value> {
    let registry = builtin();
    let mut config = GenerateConfig::new(topology, vec![Family::Math]);
    config.samples_per_target = 1;
    config.max_attempts = 1_000;
    let mut made = Vec::new();
    for target in 0..40 {
        if made.len() == count {
            break;
        }
        if let Ok(sample) = generate::generate_sample(&config, &registry, target, 0) {
            made.push(sample);
        }
    }
    assert_eq!(made.len(), count, "enough targets generate");
    dataset::to_json(&config, &made, &RunInfo::default())["samples"].as_array().cloned().expect("a samples list")
}

pub fn chain(length: usize, count: usize) -> Vec<Value> {
    samples(Topology::Chain { length }, count)
}

pub fn multichain(count: usize) -> Vec<Value> {
    samples(Topology::Multichain(parse_structure("m,m,[m,m],[m,m],m,m").expect("the paper's structure")), count)
}

/// A longer multichain: three branch blocks, each recombined, between flat segments (21 tasks).
pub fn long_multichain(count: usize) -> Vec<Value> {
    samples(Topology::Multichain(parse_structure("m,m,[m,m],[m,m],m,m,[m,m,m],[m,m,m],m,m,[m,m],[m,m],m").expect("a valid structure")), count)
}

/// The forgetting layout: 30 independent distractors, then the target.
pub fn forgetting(count: usize) -> Vec<Value> {
    samples(Topology::Forgetting { distractors: 30 }, count)
}

/// Samples of a custom graph given as node-link JSON: `tasks` scalar math tasks wired by `edges` (1-based task
/// node numbers), and a list target fed by a pack of `packed` (1-based task node numbers, in slot order).
fn custom(tasks: usize, edges: &[(usize, usize)], packed: &[usize], count: usize) -> Vec<Value> {
    let mut nodes: Vec<Value> = (1..=tasks).map(|i| json!({"id": format!("t{i}"), "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"})).collect();
    nodes.push(json!({"id": "merge", "kind": "adapter", "op": "pack"}));
    nodes.push(json!({"id": "target", "kind": "task", "family": "math", "input_kind": "list"}));
    let mut links: Vec<Value> = edges.iter().map(|(a, b)| json!({"source": format!("t{a}"), "destination": format!("t{b}")})).collect();
    links.extend(packed.iter().enumerate().map(|(slot, a)| json!({"source": format!("t{a}"), "destination": "merge", "slot": slot})));
    links.push(json!({"source": "merge", "destination": "target"}));
    let text = json!({"directed": true, "multigraph": false, "graph": {"target_node": "target"}, "nodes": nodes, "edges": links});
    let registry = builtin();
    let valid = ValidGraph::new(graph::from_json(&text).expect("a node-link graph"), &registry).expect("a valid graph");
    samples(Topology::Custom(Box::new(valid)), count)
}

/// 64 math tasks in 8 interleaved chains (task i reads task i−8), the chains' last tasks packed into a list
/// target (task 65): every value is read 8 tasks after it is produced.
pub fn interleaved_chains(count: usize) -> Vec<Value> {
    let edges: Vec<(usize, usize)> = (9..=64).map(|i| (i - 8, i)).collect();
    custom(64, &edges, &(57..=64).collect::<Vec<_>>(), count)
}

/// A chain of 22 math tasks whose target (task 23) reads a pack of the first and the last: a long edge, the
/// first task's output read 22 tasks after it was produced.
pub fn long_edge(count: usize) -> Vec<Value> {
    let edges: Vec<(usize, usize)> = (2..=22).map(|i| (i - 1, i)).collect();
    custom(22, &edges, &[1, 22], count)
}

/// Runs every sample with `strategy` against a probe with `noise` turns between tasks.
fn run(samples: &[Value], strategy: &Strategy, noise: u32, max_model_len: Option<u64>) -> Vec<AgentRecord> {
    run_with(samples, strategy, ProbeOptions { noise_turns: noise, noise_chars: 600 }, Declarations::Declared, max_model_len)
}

fn run_with(samples: &[Value], strategy: &Strategy, options: ProbeOptions, declarations: Declarations, max_model_len: Option<u64>) -> Vec<AgentRecord> {
    let probe = Probe::new(samples, options).expect("a probe over the samples").with_declarations(declarations);
    samples
        .iter()
        .enumerate()
        .map(|(i, sample)| {
            let input = AgentInput::from_sample(sample, i).expect("a valid sample");
            let topology = if sample.get("multi_chain").is_some() { "multichain" } else { "chain" };
            let mut config = AgentConfig::for_topology(topology);
            config.strategy = strategy.clone();
            config.max_model_len = max_model_len;
            config.max_tokens = 1_024;
            config.repair_max_tokens = 2_048;
            run_to_end(&input, &config, |request| {
                probe.respond(&request.messages, !request.kind.is_auxiliary(), Some(request.max_tokens)).map_err(|e| AgentError::Request { reason: e.to_string() })
            })
        })
        .collect()
}

/// Correct nodes and all nodes over the records.
fn retention(records: &[AgentRecord]) -> (usize, usize) {
    let nodes: Vec<NodeStatus> = records.iter().flat_map(|r| r.grade.nodes.iter().map(|(_, s)| *s)).collect();
    (nodes.iter().filter(|s| **s == NodeStatus::Correct).count(), nodes.len())
}

/// Prompt tokens (the probe's count) of every request, auxiliary calls included.
fn prompt_tokens(records: &[AgentRecord]) -> u64 {
    records.iter().map(|r| r.usage.prompt_tokens + r.usage.auxiliary_prompt_tokens).sum()
}

/// Targets right over the records.
fn targets_right(records: &[AgentRecord]) -> usize {
    records.iter().filter(|r| r.grade.correct).count()
}

/// One row of the discrimination table: a strategy on a workload.
#[derive(Clone, Debug)]
struct Row {
    workload: &'static str,
    strategy: String,
    targets: usize,
    samples: usize,
    kept: usize,
    total: usize,
    /// Prompt tokens relative to `full` on the same workload, in per cent.
    cost: f64,
}

/// The probe workloads that discriminate, with 2 filler turns of 1,200 characters per task.
fn discriminating_workloads() -> Vec<(&'static str, Vec<Value>)> {
    vec![("interleaved-64", interleaved_chains(3)), ("long-edge-23", long_edge(3)), ("multichain-21", long_multichain(2)), ("forgetting-31", forgetting(2))]
}

const FILLER: ProbeOptions = ProbeOptions { noise_turns: 2, noise_chars: 1_200 };

/// Every registered strategy at its defaults, then `acg` with each mechanism switched off.
fn strategies_under_test() -> Vec<String> {
    let mut all: Vec<String> = registry().iter().map(|s| s.name.to_string()).collect();
    all.extend(["acg:clusters=0", "acg:anchors=0", "acg:spans=0", "acg:inherit=0"].map(String::from));
    all
}

/// Runs every strategy under test on every discriminating workload (calls declared, as the probe does).
fn discrimination_table() -> Vec<Row> {
    let mut rows = Vec::new();
    for (workload, data) in discriminating_workloads() {
        let full = prompt_tokens(&run_with(&data, &Strategy::default(), FILLER, Declarations::Declared, None)) as f64;
        for text in strategies_under_test() {
            let strategy = Strategy::parse(&text).expect("a registered strategy");
            let records = run_with(&data, &strategy, FILLER, Declarations::Declared, None);
            assert!(records.iter().all(|r| r.status == Status::Success), "{workload} {text}: every sample runs to the end");
            let (kept, total) = retention(&records);
            rows.push(Row { workload, strategy: text, targets: targets_right(&records), samples: records.len(), kept, total, cost: 100.0 * prompt_tokens(&records) as f64 / full });
        }
    }
    rows
}

/// What each strategy keeps on each discriminating workload (the probe is deterministic, so retention is exact)
/// and the most prompt tokens it may spend relative to `full`, in per cent (the measured figure plus a margin of
/// at most 1.5 points; `acg` on the 64-task workload is held to the 20%).
const EXPECTED: &[(&str, &str, usize, f64)] = &[
    ("interleaved-64", "full", 195, 100.0),
    ("interleaved-64", "acg-lite", 195, 29.0),
    ("interleaved-64", "acg", 195, 20.0),
    ("interleaved-64", "mask", 195, 72.0),
    ("interleaved-64", "window", 24, 25.0),
    ("interleaved-64", "summary", 195, 28.5),
    ("interleaved-64", "mask+summary", 195, 28.5),
    ("interleaved-64", "graph", 195, 38.5),
    ("interleaved-64", "acg:clusters=0", 195, 20.0),
    ("interleaved-64", "acg:anchors=0", 192, 21.0),
    ("interleaved-64", "acg:spans=0", 195, 20.0),
    ("interleaved-64", "acg:inherit=0", 195, 20.0),
    ("long-edge-23", "full", 69, 100.0),
    ("long-edge-23", "acg-lite", 69, 47.5),
    ("long-edge-23", "acg", 69, 27.0),
    ("long-edge-23", "mask", 69, 78.0),
    ("long-edge-23", "window", 66, 38.0),
    ("long-edge-23", "summary", 69, 44.5),
    ("long-edge-23", "mask+summary", 69, 45.0),
    ("long-edge-23", "graph", 69, 33.0),
    ("long-edge-23", "acg:clusters=0", 69, 26.0),
    ("long-edge-23", "acg:anchors=0", 69, 27.0),
    ("long-edge-23", "acg:spans=0", 69, 26.5),
    ("long-edge-23", "acg:inherit=0", 69, 24.0),
    ("multichain-21", "full", 42, 100.0),
    ("multichain-21", "acg-lite", 42, 53.0),
    ("multichain-21", "acg", 42, 34.0),
    ("multichain-21", "mask", 42, 81.5),
    ("multichain-21", "window", 22, 44.0),
    ("multichain-21", "summary", 35, 51.5),
    ("multichain-21", "mask+summary", 42, 51.5),
    ("multichain-21", "graph", 42, 40.5),
    ("multichain-21", "acg:clusters=0", 42, 33.0),
    ("multichain-21", "acg:anchors=0", 42, 33.5),
    ("multichain-21", "acg:spans=0", 42, 33.0),
    ("multichain-21", "acg:inherit=0", 42, 31.0),
    ("forgetting-31", "full", 62, 100.0),
    ("forgetting-31", "acg-lite", 62, 45.0),
    ("forgetting-31", "acg", 62, 32.0),
    ("forgetting-31", "mask", 62, 78.5),
    ("forgetting-31", "window", 62, 38.0),
    ("forgetting-31", "summary", 62, 44.5),
    ("forgetting-31", "mask+summary", 62, 44.5),
    ("forgetting-31", "graph", 62, 28.0),
    ("forgetting-31", "acg:clusters=0", 62, 31.0),
    ("forgetting-31", "acg:anchors=0", 62, 31.5),
    ("forgetting-31", "acg:spans=0", 62, 31.5),
    ("forgetting-31", "acg:inherit=0", 62, 29.0),
];

#[test]
fn every_strategy_on_every_discriminating_workload() {
    let rows = discrimination_table();
    eprintln!("| workload | strategy | targets right | nodes correct | prompt tokens vs full |");
    eprintln!("|---|---|---:|---:|---:|");
    for r in &rows {
        eprintln!("| {} | `{}` | {}/{} | {}/{} | {:.1}% |", r.workload, r.strategy, r.targets, r.samples, r.kept, r.total, r.cost);
    }
    assert_eq!(rows.len(), EXPECTED.len(), "one expectation per strategy under test and workload");
    for r in &rows {
        let Some((_, _, kept, cost)) = EXPECTED.iter().find(|(w, s, _, _)| *w == r.workload && *s == r.strategy) else {
            panic!("no expectation for `{}` on {}: add one", r.strategy, r.workload);
        };
        assert_eq!(r.kept, *kept, "{} `{}`: nodes correct", r.workload, r.strategy);
        assert!(r.cost <= *cost, "{} `{}`: {:.1}% of full's prompt tokens, expected at most {cost}%", r.workload, r.strategy, r.cost);
    }
    // The acceptance on the 64-task long-range workload: `acg` keeps every target, as `full` does, at no
    // more than 20% of its prompt tokens; `window` loses values; switching concept anchors off loses a target.
    let row = |strategy: &str| rows.iter().find(|r| r.workload == "interleaved-64" && r.strategy == strategy).expect("a row");
    assert_eq!((row("acg").targets, row("full").targets), (3, 3));
    assert!(row("acg").cost <= 20.0);
    assert!(row("window").kept < row("window").total);
    assert!(row("acg:anchors=0").targets < 3, "concept anchors bring back the value read 24 exchanges earlier");
}

#[test]
fn undeclared_calls_inherit_their_turns_requirement() {
    // Real models leave the calculator's `requirements` argument out: with inheritance, the calls and results
    // are still attributed (to the one open requirement their turn names) and every value is kept.
    let data = long_edge(1);
    for text in ["acg", "acg:inherit=0"] {
        let records = run_with(&data, &Strategy::parse(text).unwrap(), FILLER, Declarations::Undeclared, None);
        let (kept, total) = retention(&records);
        assert_eq!(kept, total, "{text}");
        let record = records[0].strategy_state.to_json().expect("acg keeps a record");
        let units = record["units"].as_array().expect("units");
        let inherited = units.iter().filter(|u| u["inherited"] == true).count();
        let anchored_calls = units.iter().filter(|u| u["kind"] == "call" && u["anchors"].as_array().is_some_and(|a| !a.is_empty())).count();
        if text == "acg" {
            assert!(inherited > 0 && anchored_calls >= 23, "{text}: {inherited} inherited, {anchored_calls} calls anchored");
        } else {
            assert_eq!((inherited, anchored_calls), (0, 0), "{text}: undeclared calls stay unassigned");
        }
    }
}

#[test]
fn full_keeps_everything_on_chains_of_4_16_and_64_and_the_multichain() {
    for (name, data) in [("chain 4", chain(4, 2)), ("chain 16", chain(16, 2)), ("chain 64", chain(64, 1)), ("multichain", multichain(2))] {
        let records = run(&data, &Strategy::default(), 2, None);
        let (correct, total) = retention(&records);
        assert!(total >= data.len() * 4, "{name}: every node is graded");
        assert_eq!(correct, total, "{name}: with everything in view the probe answers every task");
        assert!(records.iter().all(|r| r.status == Status::Success && r.grade.correct), "{name}");
    }
}

#[test]
fn a_small_window_loses_state_and_the_loss_grows_with_the_chain() {
    let small = Strategy::parse("window:exchanges=1").unwrap();
    let (short, short_total) = retention(&run(&chain(4, 2), &small, 2, None));
    let (long, long_total) = retention(&run(&chain(64, 1), &small, 2, None));
    assert_eq!((short, short_total), (2, 8), "only the first task (its input is in the prompt) survives");
    assert_eq!((long, long_total), (1, 64));
    // With more exchanges than noise turns a chain keeps its thread; a multichain's joins read older values.
    let wide = Strategy::parse("window:exchanges=3").unwrap();
    let (kept, total) = retention(&run(&chain(16, 2), &wide, 2, None));
    assert_eq!(kept, total);
    let (joins, join_total) = retention(&run(&multichain(2), &wide, 2, None));
    assert!(joins < join_total, "branch and recombination inputs fall out of a 3-exchange window: {joins}/{join_total}");
}

#[test]
fn every_strategy_runs_to_the_end_and_graph_keeps_what_each_task_reads() {
    let data: Vec<Value> = chain(16, 1).into_iter().chain(multichain(2)).collect();
    for info in registry() {
        let strategy = match info.name {
            // Small thresholds so that the summaries actually happen on these short runs.
            "summary" => Strategy::parse("summary:trigger_tokens=1500,keep_exchanges=2").unwrap(),
            "mask+summary" => Strategy::parse("mask+summary:keep=2,trigger_tokens=1500,keep_exchanges=2").unwrap(),
            name => Strategy::parse(name).unwrap(),
        };
        let records = run(&data, &strategy, 2, None);
        for r in &records {
            assert!(matches!(r.status, Status::Success), "{strategy}: {:?}", r.status);
            assert!(r.requests.iter().all(|q| q.reported_prompt_tokens.is_some()));
        }
        let (kept, total) = retention(&records);
        let aux: u64 = records.iter().map(|r| r.usage.auxiliary_calls).sum();
        match info.name {
            // With 2 noise turns per task, the default window of 8 exchanges still spans these joins; the
            // discriminating workloads above are where it loses values.
            "graph" | "full" | "mask" | "acg-lite" | "acg" | "window" => assert_eq!(kept, total, "{strategy}"),
            "summary" | "mask+summary" => assert!(aux > 0 && kept * 2 > total, "{strategy} summarised: {kept}/{total}"),
            other => panic!("no expectation for the registered strategy `{other}`: add one"),
        }
        if !info.name.contains("summary") {
            assert_eq!(aux, 0, "{strategy} makes no auxiliary call");
        }
    }
}

#[test]
fn full_stops_where_the_context_does_not_fit_and_managed_strategies_go_on() {
    let data = chain(64, 1);
    let full = run(&data, &Strategy::default(), 2, Some(32_768));
    assert_eq!(full[0].status, Status::ContextLengthExceeded);
    let (kept, total) = retention(&full);
    assert!(kept > 0 && kept < total, "full answered the tasks before the window filled: {kept}/{total}");
    for strategy in [Strategy::parse("graph").unwrap(), Strategy::parse("acg").unwrap(), Strategy::parse("summary").unwrap()] {
        let records = run(&data, &strategy, 2, Some(32_768));
        assert_eq!(records[0].status, Status::Success, "{strategy}");
        let peak = records[0].requests.iter().map(|r| r.estimated_prompt_tokens).max().unwrap_or(0);
        assert!(peak < 32_768, "{strategy}: peak {peak}");
    }
}
