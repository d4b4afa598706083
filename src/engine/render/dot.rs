//! DOT text for Graphviz in the reference's visual conventions: rounded filled boxes, a highlighted
//! target, grey ellipse adapters, pack slots on edge labels.

use std::collections::BTreeMap;

use super::{node_label, Direction, RenderOptions};
use crate::engine::graph::{NodeKind, TaskGraph};

/// DOT text with the reference's styling (rounded filled boxes, highlighted target, grey ellipse adapters).
pub fn to_dot(graph: &TaskGraph, options: &RenderOptions) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"));
    let rankdir = match options.layout.direction {
        Direction::LeftToRight => "LR",
        Direction::TopToBottom => "TB",
    };
    let mut out = String::new();
    out.push_str("digraph task_graph {\n");
    out.push_str(&format!("  graph [rankdir={rankdir}, bgcolor=\"white\", pad=0.2, nodesep=0.45, ranksep=0.65];\n"));
    out.push_str("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\", arrowsize=0.7];\n");
    for node in graph.nodes() {
        let label = quote(&node_label(&node.kind, &node.id.0).join("\n"));
        let is_target = graph.target() == Some(&node.id);
        let style = match (&node.kind, is_target) {
            (NodeKind::Task(_), true) => "fillcolor=\"#fff2b8\", color=\"#c48a00\", penwidth=2.0".to_string(),
            (NodeKind::Task(_), false) => "fillcolor=\"#e8f1ff\", color=\"#5279b8\", penwidth=1.2".to_string(),
            _ => "shape=ellipse, fillcolor=\"#f1f1f1\", color=\"#777777\"".to_string(),
        };
        out.push_str(&format!("  {} [label={label}, {style}];\n", quote(&node.id.0)));
    }
    let mut kinds: BTreeMap<&str, &NodeKind> = BTreeMap::new();
    for node in graph.nodes() {
        kinds.entry(node.id.0.as_str()).or_insert(&node.kind);
    }
    for edge in graph.edges() {
        let is_pack = matches!(kinds.get(edge.destination.0.as_str()), Some(NodeKind::Pack));
        let label = match (is_pack, edge.slot) {
            (true, Some(slot)) => format!(" [label=\"slot {slot}\"]"),
            _ => String::new(),
        };
        out.push_str(&format!("  {} -> {}{label};\n", quote(&edge.source.0), quote(&edge.destination.0)));
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::from_json_str;

    const GRAPH: &str = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "t"},
        "nodes": [{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"},
                  {"id": "p", "kind": "adapter", "op": "pick", "index": 1},
                  {"id": "q", "kind": "adapter", "op": "pick", "index": 2},
                  {"id": "k", "kind": "adapter", "op": "pack"},
                  {"id": "t", "kind": "task", "family": "math", "task_id": 10}],
        "edges": [{"source": "s", "destination": "p"}, {"source": "s", "destination": "q"},
                  {"source": "p", "destination": "k", "slot": 0}, {"source": "q", "destination": "k", "slot": 1},
                  {"source": "k", "destination": "t"}]}"#;

    #[test]
    fn dot_highlights_the_target_and_labels_pack_slots() {
        let dot = to_dot(&from_json_str(GRAPH).unwrap(), &RenderOptions::default());
        assert!(dot.contains("\"t\" [label=\"t\\nmath ?->?\\ntask_id=10\", fillcolor=\"#fff2b8\""), "{dot}");
        assert!(dot.contains("\"p\" -> \"k\" [label=\"slot 0\"]"));
        assert!(dot.contains("rankdir=LR"));
        assert_eq!(dot.matches("shape=ellipse").count(), 3);
    }

    #[test]
    fn dot_follows_the_direction_option() {
        let dot = to_dot(&from_json_str(GRAPH).unwrap(), &RenderOptions::with_direction(Direction::TopToBottom));
        assert!(dot.contains("rankdir=TB"), "{dot}");
    }
}
