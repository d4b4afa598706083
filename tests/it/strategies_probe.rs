//! Every context strategy against the probe, in process: generated chains of 4, 16 and 64 tasks and the paper's
//! multichain (`m,m,[m,m],[m,m],m,m`), with noise turns between tasks. `full` keeps everything where the context
//! fits, a small `window` loses state, `graph` keeps what each task reads, and every strategy runs to the end.

use arbigraph_studio::engine::agent::probe::{Probe, ProbeOptions};
use arbigraph_studio::engine::agent::strategy::{registry, Strategy};
use arbigraph_studio::engine::agent::{run_to_end, AgentConfig, AgentError, AgentInput, AgentRecord, Status};
use arbigraph_studio::engine::dataset::{self, RunInfo};
use arbigraph_studio::engine::generate::{self, parse_structure, GenerateConfig, Topology};
use arbigraph_studio::engine::grade::NodeStatus;
use arbigraph_studio::engine::tasks::registry::builtin;
use arbigraph_studio::engine::tasks::Family;
use serde_json::Value;

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

/// Runs every sample with `strategy` against a probe with `noise` turns between tasks.
fn run(samples: &[Value], strategy: &Strategy, noise: u32, max_model_len: Option<u64>) -> Vec<AgentRecord> {
    let probe = Probe::new(samples, ProbeOptions { noise_turns: noise, noise_chars: 600 }).expect("a probe over the samples");
    samples
        .iter()
        .enumerate()
        .map(|(i, sample)| {
            let input = AgentInput::from_sample(sample, i).expect("a valid sample");
            let mut config = AgentConfig::for_topology(sample.get("multi_chain").map(|_| "multichain").unwrap_or("chain"));
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

#[test]
fn full_keeps_everything_on_chains_of_4_16_and_64_and_the_multichain() {
    for (name, data) in [("chain 4", chain(4, 2)), ("chain 16", chain(16, 2)), ("chain 64", chain(64, 1)), ("multichain", multichain(2))] {
        let records = run(&data, &Strategy::Full, 2, None);
        let (correct, total) = retention(&records);
        assert!(total >= data.len() * 4, "{name}: every node is graded");
        assert_eq!(correct, total, "{name}: with everything in view the probe answers every task");
        assert!(records.iter().all(|r| r.status == Status::Success && r.grade.correct), "{name}");
    }
}

#[test]
fn a_small_window_loses_state_and_the_loss_grows_with_the_chain() {
    let small = Strategy::Window { exchanges: 1 };
    let (short, short_total) = retention(&run(&chain(4, 2), &small, 2, None));
    let (long, long_total) = retention(&run(&chain(64, 1), &small, 2, None));
    assert_eq!((short, short_total), (2, 8), "only the first task (its input is in the prompt) survives");
    assert_eq!((long, long_total), (1, 64));
    // With more exchanges than noise turns a chain keeps its thread; a multichain's joins read older values.
    let wide = Strategy::Window { exchanges: 3 };
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
            "graph" | "full" | "mask" | "acg-lite" => assert_eq!(kept, total, "{strategy}"),
            "summary" | "mask+summary" => assert!(aux > 0, "{strategy} summarised"),
            _ => {}
        }
        if !info.name.contains("summary") {
            assert_eq!(aux, 0, "{strategy} makes no auxiliary call");
        }
    }
}

#[test]
fn full_stops_where_the_context_does_not_fit_and_managed_strategies_go_on() {
    let data = chain(64, 1);
    let full = run(&data, &Strategy::Full, 2, Some(32_768));
    assert_eq!(full[0].status, Status::ContextLengthExceeded);
    let (kept, total) = retention(&full);
    assert!(kept > 0 && kept < total, "full answered the tasks before the window filled: {kept}/{total}");
    for strategy in [Strategy::Graph, Strategy::parse("acg").unwrap(), Strategy::parse("summary").unwrap()] {
        let records = run(&data, &strategy, 2, Some(32_768));
        assert_eq!(records[0].status, Status::Success, "{strategy}");
        let peak = records[0].requests.iter().map(|r| r.estimated_prompt_tokens).max().unwrap_or(0);
        assert!(peak < 32_768, "{strategy}: peak {peak}");
    }
}
