//! The task graph behind one sample record, rebuilt from what the record stores (ours or the reference's), so
//! any loaded instance can be drawn: one node per task stage with its task name and ground truth as notes,
//! edges from each stage's input name, and multichain branch splits and recombinations (custom adapters too)
//! as pick and pack nodes. Records that store fewer facts give fewer notes, never an error.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::record::{AdapterOp, SampleRecord, Stage, Topology};
use crate::engine::graph::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::value::Value;

/// A sample's graph and the note lines to draw under each node, by node id.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceGraph {
    pub graph: TaskGraph,
    pub notes: BTreeMap<String, Vec<String>>,
}

/// Longest value text shown in a note (the drawing shortens lines further).
const NOTE_CHARS: usize = 60;

/// The graph of a sample record: reference-layout records (every topology) and our JSONL lines. `None` when
/// the record names no stage at all.
pub fn instance_graph(sample: &Json) -> Option<InstanceGraph> {
    graph_of(&SampleRecord::parse(sample))
}

/// The graph of a record already read.
pub fn graph_of(record: &SampleRecord) -> Option<InstanceGraph> {
    if record.stages.is_empty() {
        return None;
    }
    let family = record.target_family.clone().unwrap_or_default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let add_task = |stage: &Stage, nodes: &mut Vec<Node>, notes: &mut BTreeMap<String, Vec<String>>| {
        let task = TaskNode {
            family: stage.family.clone().unwrap_or_else(|| family.clone()),
            task_id: stage.task_id,
            input_kind: stage.input_kind.clone(),
            output_kind: stage.output_kind.clone(),
            function: None,
        };
        nodes.push(Node { id: NodeId(stage.id.clone()), kind: NodeKind::Task(task), position: None });
        let mut lines: Vec<String> = stage.label.iter().cloned().collect();
        if let Some(truth) = &stage.truth {
            lines.push(format!("{} = {}", stage.output_name().unwrap_or_else(|| "out".into()), short_value(truth)));
        }
        notes.insert(stage.id.clone(), lines);
    };
    let add_adapter = |i: usize, nodes: &mut Vec<Node>, notes: &mut BTreeMap<String, Vec<String>>| {
        let adapter = &record.adapters[i];
        let kind = match &adapter.op {
            AdapterOp::Pick { index } => NodeKind::Pick { index: *index },
            AdapterOp::Pack => NodeKind::Pack,
            AdapterOp::Other(op) => NodeKind::Unknown { kind: "adapter".into(), op: Some(op.clone()) },
        };
        nodes.push(Node { id: NodeId(adapter.id.clone()), kind, position: None });
        // A multichain's split and join show the input they make; a custom adapter its value.
        let note = match (record.topology, &adapter.truth) {
            (Topology::Custom, Some(truth)) => Some(format!("{} = {}", adapter.name, short_value(truth))),
            (Topology::Custom, None) => None,
            _ => Some(adapter.name.clone()),
        };
        if let Some(note) = note {
            notes.insert(adapter.id.clone(), vec![note]);
        }
    };
    if record.topology == Topology::Custom {
        // Tasks, then adapters, then the target last, as the drawing's reading order expects.
        let target_last = record.target_node.as_ref().is_some_and(|t| record.stages.last().is_some_and(|s| s.id == *t));
        let split = if target_last { record.stages.len() - 1 } else { record.stages.len() };
        record.stages[..split].iter().for_each(|s| add_task(s, &mut nodes, &mut notes));
        (0..record.adapters.len()).for_each(|i| add_adapter(i, &mut nodes, &mut notes));
        record.stages[split..].iter().for_each(|s| add_task(s, &mut nodes, &mut notes));
    } else {
        // Each split or join right before the task it feeds.
        let mut placed = vec![false; record.adapters.len()];
        for stage in &record.stages {
            for (i, adapter) in record.adapters.iter().enumerate() {
                if !placed[i] && record.wires.iter().any(|w| w.from == adapter.id && w.to == stage.id) {
                    placed[i] = true;
                    add_adapter(i, &mut nodes, &mut notes);
                }
            }
            add_task(stage, &mut nodes, &mut notes);
        }
    }
    let edges = record.wires.iter().map(|w| Edge { source: NodeId(w.from.clone()), destination: NodeId(w.to.clone()), slot: w.slot }).collect();
    let target = nodes.iter().rev().find(|n| matches!(n.kind, NodeKind::Task(_))).map(|n| n.id.clone());
    Some(InstanceGraph { graph: TaskGraph::from_parts(nodes, edges, target), notes })
}

/// Python's printing of a stored value (the JSON text when it is not a dataset value), shortened.
fn short_value(json: &Json) -> String {
    let full = Value::from_json(json).map(|v| v.repr()).unwrap_or_else(|_| json.to_string());
    if full.chars().count() > NOTE_CHARS {
        let mut s: String = full.chars().take(NOTE_CHARS - 1).collect();
        s.push('…');
        s
    } else {
        full
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(g: &InstanceGraph) -> Vec<String> {
        g.graph.nodes().iter().map(|n| n.id.0.clone()).collect()
    }

    fn edges(g: &InstanceGraph) -> Vec<(String, String)> {
        g.graph.edges().iter().map(|e| (e.source.0.clone(), e.destination.0.clone())).collect()
    }

    #[test]
    fn a_reference_chain_becomes_a_path_with_names_and_truths() {
        let sample = json!({"task_name": "ConvolutionTask", "prompt": "p", "ground_truth": [1, 2],
            "chain": {"distractors": [{"task_number": 1, "task_name": "A", "input_name": "task_1_input", "ground_truth": 5},
                                      {"task_number": 2, "task_name": "B", "input_name": "task_1_out", "ground_truth": [1, 2, 3]}],
                      "target": {"task_number": 3, "task_name": "ConvolutionTask", "input_name": "task_2_out", "ground_truth": [1, 2]}}});
        let g = instance_graph(&sample).unwrap();
        assert_eq!(ids(&g), ["task_1", "task_2", "task_3"]);
        assert_eq!(edges(&g), [("task_1".into(), "task_2".into()), ("task_2".into(), "task_3".into())]);
        assert_eq!(g.graph.target(), Some(&NodeId("task_3".into())));
        assert_eq!(g.notes["task_2"], ["B", "task_2_out = [1, 2, 3]"]);
    }

    #[test]
    fn forgetting_stages_stand_alone_and_baseline_is_one_node() {
        let sample = json!({"task_name": "T", "ground_truth": 7, "prompt": "p",
            "forgetting": {"target_task_number": 3, "num_distractors": 2,
                           "distractors": [{"task_number": 1, "task_name": "A"}, {"task_number": 2, "task_name": "B"}]}});
        let g = instance_graph(&sample).unwrap();
        assert_eq!(ids(&g), ["task_1", "task_2", "task_3"]);
        assert!(g.graph.edges().is_empty());
        assert_eq!(g.notes["task_3"], ["T", "task_3_out = 7"]);
        let one = instance_graph(&json!({"task_name": "GSM_0001.json", "ground_truth": 12.5, "prompt": "p"})).unwrap();
        assert_eq!(ids(&one), ["task_1"]);
        assert_eq!(one.notes["task_1"], ["GSM_0001.json", "task_1_out = 12.5"]);
    }

    #[test]
    fn multichain_branches_split_through_picks_and_join_through_a_pack() {
        let stage = |n: u64, input: &str| json!({"task_number": n, "task_name": format!("T{n}"), "input_name": input, "ground_truth": n});
        let sample = json!({"task_name": "T5", "prompt": "p", "ground_truth": 5, "multi_chain": {
            "stages": [stage(1, "task_1_input"), stage(2, "task_2_input"), stage(3, "task_3_input"), stage(4, "task_4_input"), stage(5, "task_4_out")],
            "branch_blocks": [{"expansion_task_number": 1, "next_input_name": "task_4_input",
                "branches": [{"input_name": "task_2_input", "stages": [stage(2, "task_2_input")]},
                             {"input_name": "task_3_input", "stages": [stage(3, "task_3_input")]}]}]}});
        let g = instance_graph(&sample).unwrap();
        assert_eq!(ids(&g), ["task_1", "pick_2", "task_2", "pick_3", "task_3", "pack_4", "task_4", "task_5"]);
        let e = edges(&g);
        for (a, b) in [("task_1", "pick_2"), ("pick_2", "task_2"), ("task_1", "pick_3"), ("task_2", "pack_4"), ("task_3", "pack_4"), ("pack_4", "task_4"), ("task_4", "task_5")] {
            assert!(e.contains(&(a.into(), b.into())), "{a} -> {b} missing from {e:?}");
        }
        assert!(matches!(g.graph.nodes()[3].kind, NodeKind::Pick { index: 1 }));
        assert_eq!(g.graph.target(), Some(&NodeId("task_5".into())));
    }

    #[test]
    fn custom_records_keep_node_ids_and_read_pick_indices_from_the_prompt() {
        let sample = json!({"task_name": "C", "target_node": "c", "ground_truth": 3,
            "prompt": "Define task_2_input = task_1_out[2].\n",
            "custom_dag": {"stages": [
                {"task_number": 1, "task_name": "A", "node_id": "a", "input_node_id": null, "ground_truth": [1, 2, 3]},
                {"task_number": 2, "task_name": "C", "node_id": "c", "input_node_id": "p", "ground_truth": 3}],
              "adapters": [{"node_id": "p", "op": "pick", "input_node_ids": ["a"], "output_name": "task_2_input", "ground_truth": 3}]}});
        let g = instance_graph(&sample).unwrap();
        assert_eq!(ids(&g), ["a", "p", "c"]);
        assert!(matches!(g.graph.nodes()[1].kind, NodeKind::Pick { index: 2 }));
        assert_eq!(edges(&g), [("p".to_string(), "c".to_string()), ("a".to_string(), "p".to_string())]);
        assert_eq!(g.notes["p"], ["task_2_input = 3"]);
    }

    #[test]
    fn jsonl_lines_draw_their_stage_truths() {
        let line = json!({"id": "chain/math.X/0", "prompt": "p", "answer": 4, "metadata": {"topology": "chain", "family": "math",
            "task_name": "X", "stage_ground_truths": {"task_1_out": 1, "task_2_out": 4}}});
        let g = instance_graph(&line).unwrap();
        assert_eq!(ids(&g), ["task_1", "task_2"]);
        assert_eq!(edges(&g).len(), 1);
        assert_eq!(g.notes["task_2"], ["X", "task_2_out = 4"]);
        assert_eq!(instance_graph(&json!({"prompt": "p"})).map(|g| g.graph.nodes().len()), Some(1));
    }
}
