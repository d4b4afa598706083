//! The task graph behind one sample record, rebuilt from what the record stores (ours or the reference's), so
//! any loaded instance can be drawn: one node per task stage with its task name and ground truth as notes,
//! edges from each stage's input name, and multichain branch splits and recombinations (custom adapters too)
//! as pick and pack nodes. Records that store fewer facts give fewer notes, never an error.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::shape::topology_of;
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
    let mut builder = Builder::default();
    if let Some(meta) = sample.get("metadata") {
        builder.add_jsonl(sample, meta);
    } else {
        match topology_of(sample) {
            "custom" => builder.add_custom(sample),
            "multichain" => builder.add_multichain(sample),
            "chain" => builder.add_chain(sample),
            "forgetting" => builder.add_forgetting(sample),
            _ => builder.add_baseline(sample),
        }
    }
    if builder.nodes.is_empty() {
        return None;
    }
    let target = builder.nodes.iter().rev().find(|n| matches!(n.kind, NodeKind::Task(_))).map(|n| n.id.clone());
    Some(InstanceGraph { graph: TaskGraph::from_parts(builder.nodes, builder.edges, target), notes: builder.notes })
}

#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    notes: BTreeMap<String, Vec<String>>,
}

fn text(json: &Json, key: &str) -> Option<String> {
    json.get(key).and_then(|v| match v {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    })
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

impl Builder {
    fn add_task(&mut self, id: &str, stage: &Json, fallback_family: &str) {
        let family = text(stage, "family").unwrap_or_else(|| fallback_family.to_string());
        let task = TaskNode { family, task_id: stage.get("task_id").and_then(Json::as_i64), input_kind: text(stage, "input_kind"), output_kind: text(stage, "output_kind"), function: None };
        self.nodes.push(Node { id: NodeId(id.to_string()), kind: NodeKind::Task(task), position: None });
        let mut notes = Vec::new();
        if let Some(name) = text(stage, "task_name").or_else(|| text(stage, "template_index").map(|t| format!("template {t}"))) {
            notes.push(name);
        }
        if let Some(truth) = stage.get("ground_truth") {
            let number = stage.get("task_number").and_then(Json::as_u64);
            let name = number.map(|n| format!("task_{n}_out")).unwrap_or_else(|| "out".into());
            notes.push(format!("{name} = {}", short_value(truth)));
        }
        self.notes.insert(id.to_string(), notes);
    }

    fn add_adapter(&mut self, id: &str, kind: NodeKind, note: Option<String>) {
        self.nodes.push(Node { id: NodeId(id.to_string()), kind, position: None });
        if let Some(note) = note {
            self.notes.insert(id.to_string(), vec![note]);
        }
    }

    fn edge(&mut self, from: &str, to: &str, slot: Option<i64>) {
        self.edges.push(Edge { source: NodeId(from.to_string()), destination: NodeId(to.to_string()), slot });
    }

    /// The sample's own facts as a stage record (the target of baseline and JSONL records).
    fn target_stage(sample: &Json, number: u64) -> Json {
        let mut stage = serde_json::Map::new();
        stage.insert("task_number".into(), number.into());
        for key in ["task_name", "task_id", "ground_truth"] {
            if let Some(v) = sample.get(key) {
                stage.insert(key.into(), v.clone());
            }
        }
        if let Some(f) = sample.get("target_family") {
            stage.insert("family".into(), f.clone());
        }
        Json::Object(stage)
    }

    fn add_baseline(&mut self, sample: &Json) {
        let family = text(sample, "target_family").unwrap_or_default();
        self.add_task("task_1", &Self::target_stage(sample, 1), &family);
    }

    fn add_forgetting(&mut self, sample: &Json) {
        let family = text(sample, "target_family").unwrap_or_default();
        let forgetting = &sample["forgetting"];
        let stages: Vec<Json> = match forgetting.get("stages").and_then(Json::as_array) {
            Some(stages) => stages.clone(),
            None => {
                let mut stages: Vec<Json> = forgetting.get("distractors").and_then(Json::as_array).cloned().unwrap_or_default();
                let number = forgetting.get("target_task_number").and_then(Json::as_u64).unwrap_or(stages.len() as u64 + 1);
                stages.push(Self::target_stage(sample, number));
                stages
            }
        };
        for (i, stage) in stages.iter().enumerate() {
            let number = stage.get("task_number").and_then(Json::as_u64).unwrap_or(i as u64 + 1);
            self.add_task(&format!("task_{number}"), stage, &family);
        }
    }

    fn add_chain(&mut self, sample: &Json) {
        let family = text(sample, "target_family").unwrap_or_default();
        let chain = &sample["chain"];
        let mut stages: Vec<Json> = chain.get("distractors").and_then(Json::as_array).cloned().unwrap_or_default();
        match chain.get("target") {
            Some(target) => stages.push(target.clone()),
            None => stages.push(Self::target_stage(sample, stages.len() as u64 + 1)),
        }
        self.linear(&stages, &family);
    }

    /// Stages in order, each fed by the one before.
    fn linear(&mut self, stages: &[Json], family: &str) {
        let mut previous: Option<String> = None;
        for (i, stage) in stages.iter().enumerate() {
            let number = stage.get("task_number").and_then(Json::as_u64).unwrap_or(i as u64 + 1);
            let id = format!("task_{number}");
            self.add_task(&id, stage, family);
            if let Some(prev) = previous {
                self.edge(&prev, &id, None);
            }
            previous = Some(id);
        }
    }

    fn add_multichain(&mut self, sample: &Json) {
        let family = text(sample, "target_family").unwrap_or_default();
        let mc = &sample["multi_chain"];
        let stages = mc.get("stages").and_then(Json::as_array).cloned().unwrap_or_default();
        let blocks = mc.get("branch_blocks").and_then(Json::as_array).cloned().unwrap_or_default();
        // Branch inputs (`task_3_input`) come from a pick of the expansion; recombined inputs from a pack.
        let mut picks: BTreeMap<String, (String, i64)> = BTreeMap::new();
        let mut packs: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for block in &blocks {
            let expansion = block.get("expansion_task_number").and_then(Json::as_u64).unwrap_or(0);
            for (i, branch) in block.get("branches").and_then(Json::as_array).into_iter().flatten().enumerate() {
                if let Some(input) = text(branch, "input_name") {
                    picks.insert(input, (format!("task_{expansion}"), i as i64));
                }
            }
            if let Some(next) = text(block, "next_input_name") {
                let finals = block
                    .get("branches")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b.get("stages").and_then(Json::as_array).and_then(|s| s.last()).and_then(|s| s.get("task_number")).and_then(Json::as_u64))
                    .map(|n| format!("task_{n}"))
                    .collect();
                packs.insert(next, finals);
            }
        }
        for stage in &stages {
            let Some(number) = stage.get("task_number").and_then(Json::as_u64) else { continue };
            let id = format!("task_{number}");
            let input = text(stage, "input_name").unwrap_or_default();
            if let Some((from, index)) = picks.get(&input) {
                let pick = format!("pick_{number}");
                self.add_adapter(&pick, NodeKind::Pick { index: *index }, Some(input.clone()));
                self.edge(from, &pick, None);
                self.add_task(&id, stage, &family);
                self.edge(&pick, &id, None);
            } else if let Some(finals) = packs.get(&input) {
                let pack = format!("pack_{number}");
                self.add_adapter(&pack, NodeKind::Pack, Some(input.clone()));
                for (slot, from) in finals.iter().enumerate() {
                    self.edge(from, &pack, Some(slot as i64));
                }
                self.add_task(&id, stage, &family);
                self.edge(&pack, &id, None);
            } else {
                self.add_task(&id, stage, &family);
                if let Some(from) = input.strip_suffix("_out") {
                    self.edge(from, &id, None);
                }
            }
        }
    }

    fn add_custom(&mut self, sample: &Json) {
        let family = text(sample, "target_family").unwrap_or_default();
        let dag = &sample["custom_dag"];
        let prompt = sample.get("prompt").and_then(Json::as_str).unwrap_or("");
        let stages = dag.get("stages").and_then(Json::as_array).cloned().unwrap_or_default();
        let adapters = dag.get("adapters").and_then(Json::as_array).cloned().unwrap_or_default();
        let mut edges: Vec<(String, String, Option<i64>)> = Vec::new();
        for stage in &stages {
            let Some(id) = text(stage, "node_id") else { continue };
            self.add_task(&id, stage, &family);
            if let Some(from) = text(stage, "input_node_id") {
                edges.push((from, id, None));
            }
        }
        for adapter in &adapters {
            let Some(id) = text(adapter, "node_id") else { continue };
            let op = text(adapter, "op").unwrap_or_default();
            let output = text(adapter, "output_name").unwrap_or_default();
            let inputs: Vec<String> = adapter.get("input_node_ids").and_then(Json::as_array).into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect();
            let kind = match op.as_str() {
                "pack" => NodeKind::Pack,
                "pick" => match pick_index(prompt, &output) {
                    Some(index) => NodeKind::Pick { index },
                    None => NodeKind::Unknown { kind: "adapter".into(), op: Some(op.clone()) },
                },
                _ => NodeKind::Unknown { kind: "adapter".into(), op: Some(op.clone()) },
            };
            let slots = matches!(kind, NodeKind::Pack);
            let note = adapter.get("ground_truth").map(|v| format!("{output} = {}", short_value(v)));
            self.add_adapter(&id, kind, note);
            for (slot, from) in inputs.into_iter().enumerate() {
                edges.push((from, id.clone(), slots.then_some(slot as i64)));
            }
        }
        let target = text(sample, "target_node");
        // Draw the target last, as the drawing's reading order expects.
        if let Some(target) = target {
            if let Some(at) = self.nodes.iter().position(|n| n.id.0 == target) {
                let node = self.nodes.remove(at);
                self.nodes.push(node);
            }
        }
        for (from, to, slot) in edges {
            self.edge(&from, &to, slot);
        }
    }

    /// JSONL lines keep the topology and every stage's ground truth, not the wiring: chains are drawn as
    /// chains, other shapes as their stages alone.
    fn add_jsonl(&mut self, sample: &Json, meta: &Json) {
        let family = text(meta, "family").unwrap_or_default();
        let topology = text(meta, "topology").unwrap_or_default();
        let truths = meta.get("stage_ground_truths").and_then(Json::as_object);
        let mut stages: Vec<Json> = Vec::new();
        if let Some(truths) = truths {
            for (name, truth) in truths {
                let number = name.strip_prefix("task_").and_then(|r| r.strip_suffix("_out")).and_then(|n| n.parse::<u64>().ok());
                let mut stage = serde_json::Map::new();
                if let Some(n) = number {
                    stage.insert("task_number".into(), n.into());
                }
                stage.insert("ground_truth".into(), truth.clone());
                stages.push(Json::Object(stage));
            }
        }
        if let Some(last) = stages.last_mut().and_then(Json::as_object_mut) {
            for key in ["task_name", "task_id"] {
                if let Some(v) = meta.get(key) {
                    last.insert(key.into(), v.clone());
                }
            }
        }
        if stages.is_empty() {
            let mut target = Self::target_stage(meta, 1);
            if let (Some(obj), Some(answer)) = (target.as_object_mut(), sample.get("answer")) {
                obj.insert("ground_truth".into(), answer.clone());
            }
            stages.push(target);
        }
        if topology == "chain" {
            self.linear(&stages, &family);
        } else {
            for (i, stage) in stages.iter().enumerate() {
                let number = stage.get("task_number").and_then(Json::as_u64).unwrap_or(i as u64 + 1);
                self.add_task(&format!("task_{number}"), stage, &family);
            }
        }
    }
}

/// The index a pick adapter takes, read from the prompt's `Define <output> = <input>[<index>].` line.
fn pick_index(prompt: &str, output: &str) -> Option<i64> {
    let start = format!("Define {output} = ");
    let line = prompt.lines().find(|l| l.starts_with(&start))?;
    let open = line.rfind('[')?;
    let close = line[open..].find(']')? + open;
    line[open + 1..close].trim().parse().ok()
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
