//! The graph as text, for anyone who cannot or would rather not read the drawing: every node in topological
//! order (sources first; nodes caught in a cycle last, in file order) with what it is, where its inputs come
//! from, what it feeds, whether it is the target, and its problems. Design shows it beside the canvas
//! (`[data-testid="graph-outline"]`), and so do the instance graph on Browse and "where the chain broke" on
//! Results; a screen reader reads each entry as one sentence (`OutlineItem::sentence`). Outside Design the
//! entries carry notes from the record (`annotated`): a stage's task name and ground truth, and on Results
//! the output's status (correct, wrong, missing, first break).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::engine::graph::{GraphIssue, NodeKind, TaskGraph};
use crate::engine::sort;

/// One node of the outline.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OutlineItem {
    /// The node's id.
    pub id: String,
    /// What it is: `math task, scalar to list`, `pick element 2`, `pack into a list`.
    pub what: String,
    /// Where its inputs come from, in slot order: `t1`, or `t1 (slot 0)` for a pack.
    pub inputs: Vec<String>,
    /// The nodes it feeds, in edge order.
    pub feeds: Vec<String>,
    /// True for the graph's target.
    pub target: bool,
    /// Its problems, as the validation words them.
    pub problems: Vec<String>,
    /// Its level: the longest chain of edges leading to it (0 for a source).
    pub level: usize,
    /// What the record says of it, in order: `Add`, `task_2_out = 4`, `status: wrong`.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl OutlineItem {
    /// The entry as one sentence: `t3, math task, scalar to list, the target: inputs from t1 and t2; feeds
    /// nothing. Problem: …`.
    pub fn sentence(&self) -> String {
        let mut out = format!("{}, {}", self.id, self.what);
        if self.target {
            out.push_str(", the target");
        }
        out.push_str(": ");
        out.push_str(&match self.inputs.as_slice() {
            [] => "no inputs".to_string(),
            inputs => format!("inputs from {}", and_list(inputs)),
        });
        out.push_str("; ");
        out.push_str(&match self.feeds.as_slice() {
            [] => "feeds nothing".to_string(),
            feeds => format!("feeds {}", and_list(feeds)),
        });
        out.push('.');
        if !self.notes.is_empty() {
            out.push(' ');
            out.push_str(&self.notes.join("; "));
            out.push('.');
        }
        for problem in &self.problems {
            out.push_str(" Problem: ");
            out.push_str(problem);
            if !problem.ends_with('.') {
                out.push('.');
            }
        }
        out
    }
}

/// The outline of `graph` with the validation's `issues`: its nodes in topological order, and the problems
/// that belong to no node.
pub fn outline(graph: &TaskGraph, issues: &[GraphIssue]) -> (Vec<OutlineItem>, Vec<String>) {
    let nodes = graph.nodes();
    let position: BTreeMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id.0.as_str(), i)).collect();
    let mut incoming: Vec<Vec<(Option<u32>, usize, usize)>> = vec![Vec::new(); nodes.len()];
    let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (order, edge) in graph.edges().iter().enumerate() {
        if let (Some(&from), Some(&to)) = (position.get(edge.source.0.as_str()), position.get(edge.destination.0.as_str())) {
            incoming[to].push((edge.slot.map(|s| s as u32), order, from));
            outgoing[from].push(to);
        }
    }
    // Kahn's order, the ready node earliest in the file first (a min-heap of positions); levels are longest paths.
    let mut waiting: Vec<usize> = incoming.iter().map(Vec::len).collect();
    let mut level = vec![0usize; nodes.len()];
    let mut ready: BinaryHeap<Reverse<usize>> = (0..nodes.len()).filter(|&i| waiting[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(nodes.len());
    let mut placed = vec![false; nodes.len()];
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        placed[i] = true;
        for &next in &outgoing[i] {
            level[next] = level[next].max(level[i] + 1);
            waiting[next] -= 1;
            if waiting[next] == 0 {
                ready.push(Reverse(next));
            }
        }
    }
    order.extend((0..nodes.len()).filter(|&i| !placed[i]));

    let mut by_node: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut graph_problems = Vec::new();
    for issue in issues {
        match &issue.node {
            Some(node) => by_node.entry(node.0.as_str()).or_default().push(issue.message.clone()),
            None => graph_problems.push(issue.message.clone()),
        }
    }
    let target = graph.target().map(|t| t.0.as_str());
    let items = order
        .into_iter()
        .map(|i| {
            let node = &nodes[i];
            let mut inputs = incoming[i].clone();
            sort::by_key(&mut inputs, |&(slot, edge, _)| (slot, edge));
            let is_pack = matches!(node.kind, NodeKind::Pack);
            OutlineItem {
                id: node.id.0.clone(),
                what: describe(&node.kind),
                inputs: inputs
                    .into_iter()
                    .map(|(slot, _, from)| match (is_pack, slot) {
                        (true, Some(slot)) => format!("{} (slot {slot})", nodes[from].id.0),
                        _ => nodes[from].id.0.clone(),
                    })
                    .collect(),
                feeds: outgoing[i].iter().map(|&to| nodes[to].id.0.clone()).collect(),
                target: target == Some(node.id.0.as_str()),
                problems: by_node.remove(node.id.0.as_str()).unwrap_or_default(),
                level: level[i],
                notes: Vec::new(),
            }
        })
        .collect();
    (items, graph_problems)
}

/// The outline of a record's graph (Browse's instance, Results' "where the chain broke"): no validation
/// problems, and each node's `notes` (by node id) attached in the order given.
pub fn annotated(graph: &TaskGraph, notes: &BTreeMap<String, Vec<String>>) -> Vec<OutlineItem> {
    let (mut items, _) = outline(graph, &[]);
    for item in &mut items {
        item.notes = notes.get(&item.id).cloned().unwrap_or_default();
    }
    items
}

/// What a node is, in words.
fn describe(kind: &NodeKind) -> String {
    match kind {
        NodeKind::Task(task) => {
            let kind = |k: &Option<String>| k.clone().unwrap_or_else(|| "any kind".into());
            let family = if task.family == "any" { "task of any family".to_string() } else { format!("{} task", task.family) };
            let pinned = match (&task.function, task.task_id) {
                (Some(function), _) => format!(" (function {function})"),
                (None, Some(id)) => format!(" (task {id})"),
                (None, None) => String::new(),
            };
            format!("{family}{pinned}, {} to {}", kind(&task.input_kind), kind(&task.output_kind))
        }
        NodeKind::Pick { index } => format!("pick element {index} of a list"),
        NodeKind::Pack => "pack scalars into a list".to_string(),
        NodeKind::Unknown { kind, op } => format!("unknown node {kind}{}", op.as_ref().map(|o| format!(" {o}")).unwrap_or_default()),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{from_json_str, NodeId, Severity};

    fn graph(text: &str) -> TaskGraph {
        from_json_str(text).expect("a graph")
    }

    #[test]
    fn nodes_come_in_topological_order_with_their_inputs_feeds_and_problems() {
        // File order puts the target first; the outline puts the sources first.
        let g = graph(
            r#"{"graph": {"target_node": "t"}, "nodes": [
                {"id": "t", "kind": "task", "family": "math", "input_kind": "list", "output_kind": "scalar"},
                {"id": "p", "kind": "adapter", "op": "pack"},
                {"id": "b", "kind": "task", "family": "gsm", "input_kind": "scalar", "output_kind": "scalar"},
                {"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar", "task_id": 7}],
              "links": [{"source": "b", "target": "p", "slot": 1}, {"source": "a", "target": "p", "slot": 0},
                        {"source": "p", "target": "t"}, {"source": "a", "target": "b"}]}"#,
        );
        let issues = vec![
            GraphIssue { node: Some(NodeId("b".into())), severity: Severity::Warning, message: "gsm has few scalar tasks".into() },
            GraphIssue { node: None, severity: Severity::Error, message: "no seed".into() },
        ];
        let (items, rest) = outline(&g, &issues);
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, vec!["a", "b", "p", "t"]);
        assert_eq!(items.iter().map(|i| i.level).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(items[2].inputs, vec!["a (slot 0)", "b (slot 1)"], "a pack's inputs in slot order");
        assert_eq!(items[0].feeds, vec!["p", "b"]);
        assert_eq!(rest, vec!["no seed"]);
        assert_eq!(items[0].sentence(), "a, math task (task 7), scalar to scalar: no inputs; feeds p and b.");
        assert_eq!(items[1].sentence(), "b, gsm task, scalar to scalar: inputs from a; feeds p. Problem: gsm has few scalar tasks.");
        assert_eq!(items[3].sentence(), "t, math task, list to scalar, the target: inputs from p; feeds nothing.");
        assert_eq!(items[2].what, "pack scalars into a list");
    }

    #[test]
    fn a_cycle_leaves_its_nodes_last_in_file_order_and_nothing_is_lost() {
        let g = graph(
            r#"{"nodes": [{"id": "x", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                          {"id": "y", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                          {"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
              "links": [{"source": "x", "target": "y"}, {"source": "y", "target": "x"}, {"source": "s", "target": "x"}]}"#,
        );
        let (items, _) = outline(&g, &[]);
        assert_eq!(items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), vec!["s", "x", "y"]);
        assert_eq!(outline(&TaskGraph::default(), &[]).0, Vec::new());
    }

    #[test]
    fn a_records_notes_join_each_entry_and_its_sentence() {
        let g = graph(
            r#"{"graph": {"target_node": "b"}, "nodes": [
                {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                {"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
              "links": [{"source": "a", "target": "b"}]}"#,
        );
        let notes = BTreeMap::from([("b".to_string(), vec!["Add".to_string(), "task_2_out = 4".to_string(), "status: wrong, the first break".to_string()])]);
        let items = annotated(&g, &notes);
        assert_eq!(items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
        assert!(items[0].notes.is_empty());
        assert_eq!(items[1].sentence(), "b, math task, scalar to scalar, the target: inputs from a; feeds nothing. Add; task_2_out = 4; status: wrong, the first break.");
    }
}
