//! Copy and paste as node-link JSON (the text goes through the system clipboard, so it also works between
//! tabs and into a text editor): the copied selection keeps the edges inside it; a paste gets fresh ids
//! where its ids are taken, lands centred on a point, and is one `Insert` edit.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::geometry::{bounds, Point};
use crate::engine::graph::{self, Edge, GraphEdit, Node, NodeId, TaskGraph};

/// The selected nodes and the edges between them as node-link JSON text (`None` when nothing is selected).
/// The target is kept when it is selected.
pub fn copy(graph: &TaskGraph, selected: &BTreeSet<NodeId>) -> Option<String> {
    let nodes: Vec<Node> = graph.nodes().iter().filter(|n| selected.contains(&n.id)).cloned().collect();
    if nodes.is_empty() {
        return None;
    }
    let edges = graph.edges().iter().filter(|e| selected.contains(&e.source) && selected.contains(&e.destination)).cloned().collect();
    let target = graph.target().filter(|t| selected.contains(t)).cloned();
    Some(graph::to_json(&TaskGraph::from_parts(nodes, edges, target)).to_string())
}

/// A paste ready to apply: the edit and the ids the pasted nodes got, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Paste {
    pub edit: GraphEdit,
    pub ids: Vec<NodeId>,
}

/// Pastes `clip` (every node positioned) into `graph`: ids already taken become fresh ones with the same
/// prefix (`task_3` -> `task_9`), the clip's centre lands on `at` (or 40 units right and down of where it
/// was), and the clip's target becomes the graph's target only when the graph has none.
pub fn paste(graph: &TaskGraph, clip: &TaskGraph, at: Option<Point>) -> Paste {
    let mut taken: HashSet<String> = graph.nodes().iter().map(|n| n.id.0.clone()).collect();
    let mut renamed: HashMap<&NodeId, NodeId> = HashMap::new();
    let mut counters: HashMap<String, usize> = HashMap::new();
    for node in clip.nodes() {
        if renamed.contains_key(&node.id) {
            continue;
        }
        let id = if taken.contains(&node.id.0) { fresh(&node.id.0, &taken, &mut counters, graph.nodes().len()) } else { node.id.0.clone() };
        taken.insert(id.clone());
        renamed.insert(&node.id, NodeId(id));
    }
    let shift = match (at, bounds(clip.nodes())) {
        (Some(at), Some(b)) => Point::new(at.x - b.center().x, at.y - b.center().y),
        _ => Point::new(40.0, 40.0),
    };
    let mut seen = HashSet::new();
    let nodes: Vec<Node> = clip
        .nodes()
        .iter()
        .filter(|n| seen.insert(&n.id))
        .map(|n| Node { id: renamed[&n.id].clone(), kind: n.kind.clone(), position: n.position.map(|(x, y)| ((x + shift.x).round(), (y + shift.y).round())) })
        .collect();
    let edges: Vec<Edge> = clip
        .edges()
        .iter()
        .filter_map(|e| Some(Edge { source: renamed.get(&e.source)?.clone(), destination: renamed.get(&e.destination)?.clone(), slot: e.slot }))
        .collect();
    let ids: Vec<NodeId> = nodes.iter().map(|n| n.id.clone()).collect();
    let mut edits = vec![GraphEdit::Insert { nodes, edges }];
    if let (None, Some(target)) = (graph.target(), clip.target().and_then(|t| renamed.get(t))) {
        edits.push(GraphEdit::SetTarget(target.clone()));
    }
    Paste { edit: GraphEdit::Batch(edits), ids }
}

/// A fresh id for `original`: its prefix (the part before a trailing `_<digits>`) and the next free number.
fn fresh(original: &str, taken: &HashSet<String>, counters: &mut HashMap<String, usize>, start: usize) -> String {
    let prefix = match original.rsplit_once('_') {
        Some((prefix, digits)) if !prefix.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => prefix,
        _ => original,
    };
    let n = counters.entry(prefix.to_string()).or_insert(start);
    loop {
        *n += 1;
        let id = format!("{prefix}_{n}");
        if !taken.contains(&id) {
            return id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{from_json_str, NodeKind, TaskNode};

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    /// task_1 -> task_2 -> task_3 (target), at x = 0, 300, 600.
    fn chain() -> TaskGraph {
        let nodes = (1..=3).map(|i| Node { id: id(&format!("task_{i}")), kind: NodeKind::Task(TaskNode::default()), position: Some(((i - 1) as f64 * 300.0, 0.0)) }).collect();
        let edges = vec![Edge { source: id("task_1"), destination: id("task_2"), slot: None }, Edge { source: id("task_2"), destination: id("task_3"), slot: None }];
        TaskGraph::from_parts(nodes, edges, Some(id("task_3")))
    }

    fn selection(ids: &[&str]) -> BTreeSet<NodeId> {
        ids.iter().map(|s| id(s)).collect()
    }

    #[test]
    fn copying_keeps_only_the_edges_inside_the_selection() {
        let text = copy(&chain(), &selection(&["task_1", "task_2"])).unwrap();
        let clip = from_json_str(&text).unwrap();
        assert_eq!(clip.nodes().len(), 2);
        assert_eq!(clip.edges().len(), 1);
        assert_eq!(clip.target(), None, "the target was not selected");
        assert_eq!(copy(&chain(), &BTreeSet::new()), None);
    }

    #[test]
    fn pasting_renames_taken_ids_keeps_inner_edges_and_lands_on_the_point() {
        let mut graph = chain();
        let clip = from_json_str(&copy(&graph, &selection(&["task_1", "task_2"])).unwrap()).unwrap();
        let paste = paste(&graph, &clip, Some(Point::new(1000.0, 500.0)));
        assert_eq!(paste.ids, vec![id("task_4"), id("task_5")]);
        graph.apply(paste.edit).unwrap();
        assert_eq!(graph.nodes().len(), 5);
        assert_eq!(graph.edges().last(), Some(&Edge { source: id("task_4"), destination: id("task_5"), slot: None }));
        let centre = bounds(graph.nodes().iter().skip(3)).unwrap().center();
        assert!(centre.distance(Point::new(1000.0, 500.0)) < 1.0, "{centre:?}");
        assert_eq!(graph.target(), Some(&id("task_3")), "the graph's target stays");
    }

    #[test]
    fn pasting_twice_and_pasting_into_an_empty_graph() {
        let mut graph = chain();
        let clip = from_json_str(&copy(&graph, &selection(&["task_1", "task_2", "task_3"])).unwrap()).unwrap();
        for _ in 0..2 {
            let p = paste(&graph, &clip, None);
            graph.apply(p.edit).unwrap();
        }
        let ids: BTreeSet<&str> = graph.nodes().iter().map(|n| n.id.0.as_str()).collect();
        assert_eq!(ids.len(), 9, "every pasted node got a distinct id");
        let mut empty = TaskGraph::new();
        let p = paste(&empty, &clip, None);
        empty.apply(p.edit).unwrap();
        assert_eq!(empty.target(), Some(&id("task_3")), "a graph without a target takes the clip's");
        assert_eq!(p.ids, vec![id("task_1"), id("task_2"), id("task_3")], "free ids are kept");
    }

    #[test]
    fn fresh_ids_keep_the_prefix_of_numbered_ids_and_extend_others() {
        let taken: HashSet<String> = ["task_1", "task_2", "adapter"].iter().map(|s| s.to_string()).collect();
        let mut counters = HashMap::new();
        assert_eq!(fresh("task_1", &taken, &mut counters, 0), "task_3");
        assert_eq!(fresh("task_2", &taken, &mut counters, 0), "task_4");
        assert_eq!(fresh("adapter", &taken, &mut counters, 0), "adapter_1");
        assert_eq!(fresh("_7", &taken, &mut counters, 0), "_7_1");
    }
}
