//! Drawing task graphs: DOT text in the reference's visual conventions (§5.7), and SVG laid out by layout-rs.
//! This is the only file that imports `layout`.

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

use crate::engine::graph::{NodeKind, TaskGraph};

/// Drawing direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    LeftToRight,
    TopToBottom,
}

/// How to draw a graph.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    pub direction: Direction,
}

/// Why a graph could not be drawn.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RenderError {
    #[error("the graph has no nodes")]
    Empty,
    #[error("edge {0} -> {1} refers to an unknown node")]
    UnknownNode(String, String),
}

const TASK_FILL: u32 = 0xe8f1ff;
const TASK_LINE: u32 = 0x5279b8;
const TARGET_FILL: u32 = 0xfff2b8;
const TARGET_LINE: u32 = 0xc48a00;
const ADAPTER_FILL: u32 = 0xf1f1f1;
const ADAPTER_LINE: u32 = 0x777777;
const EDGE: u32 = 0x555555;

/// The label lines of a node: id, then `family in->out` (and `task_id=…`) or the adapter op.
pub fn node_label(kind: &NodeKind, id: &str) -> Vec<String> {
    match kind {
        NodeKind::Task(task) => {
            let show = |k: &Option<String>| k.clone().unwrap_or_else(|| "?".into());
            let mut lines = vec![id.to_string(), format!("{} {}->{}", task.family, show(&task.input_kind), show(&task.output_kind))];
            if let Some(t) = task.task_id {
                lines.push(format!("task_id={t}"));
            }
            lines
        }
        NodeKind::Pick { index } => vec![id.to_string(), format!("pick index={index}")],
        NodeKind::Pack => vec![id.to_string(), "pack".into()],
        NodeKind::Unknown { kind, op } => vec![id.to_string(), format!("{kind} {}", op.clone().unwrap_or_default())],
    }
}

/// DOT text with the reference's styling (rounded filled boxes, highlighted target, grey ellipse adapters).
pub fn to_dot(graph: &TaskGraph, options: &RenderOptions) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"));
    let rankdir = match options.direction {
        Direction::LeftToRight => "LR",
        Direction::TopToBottom => "TB",
    };
    let mut out = String::new();
    out.push_str("digraph task_graph {\n");
    out.push_str(&format!("  graph [rankdir={rankdir}, bgcolor=\"white\", pad=0.2, nodesep=0.45, ranksep=0.65];\n"));
    out.push_str("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\", arrowsize=0.7];\n");
    for node in &graph.nodes {
        let label = quote(&node_label(&node.kind, &node.id.0).join("\n"));
        let is_target = graph.target.as_ref() == Some(&node.id);
        let style = match (&node.kind, is_target) {
            (NodeKind::Task(_), true) => "fillcolor=\"#fff2b8\", color=\"#c48a00\", penwidth=2.0".to_string(),
            (NodeKind::Task(_), false) => "fillcolor=\"#e8f1ff\", color=\"#5279b8\", penwidth=1.2".to_string(),
            _ => "shape=ellipse, fillcolor=\"#f1f1f1\", color=\"#777777\"".to_string(),
        };
        out.push_str(&format!("  {} [label={label}, {style}];\n", quote(&node.id.0)));
    }
    for edge in &graph.edges {
        let is_pack = matches!(graph.node(&edge.destination).map(|n| &n.kind), Some(NodeKind::Pack));
        let label = match (is_pack, edge.slot) {
            (true, Some(slot)) => format!(" [label=\"slot {slot}\"]"),
            _ => String::new(),
        };
        out.push_str(&format!("  {} -> {}{label};\n", quote(&edge.source.0), quote(&edge.destination.0)));
    }
    out.push_str("}\n");
    out
}

/// SVG of the graph, laid out by layout-rs.
pub fn to_svg(graph: &TaskGraph, options: &RenderOptions) -> Result<String, RenderError> {
    if graph.nodes.is_empty() {
        return Err(RenderError::Empty); // layout-rs panics on an empty graph.
    }
    let orientation = match options.direction {
        Direction::LeftToRight => Orientation::LeftToRight,
        Direction::TopToBottom => Orientation::TopToBottom,
    };
    let mut vg = VisualGraph::new(orientation);
    let mut handles = std::collections::HashMap::new();
    for node in &graph.nodes {
        let is_target = graph.target.as_ref() == Some(&node.id);
        let (fill, line, width) = match (&node.kind, is_target) {
            (NodeKind::Task(_), true) => (TARGET_FILL, TARGET_LINE, 3),
            (NodeKind::Task(_), false) => (TASK_FILL, TASK_LINE, 1),
            _ => (ADAPTER_FILL, ADAPTER_LINE, 1),
        };
        let label = node_label(&node.kind, &node.id.0).join("\n");
        let look = StyleAttr::new(rgb(line), width, Some(rgb(fill)), if matches!(node.kind, NodeKind::Task(_)) { 8 } else { 0 }, 13);
        let shape = match node.kind {
            NodeKind::Task(_) => ShapeKind::new_box(&label),
            _ => ShapeKind::Circle(label.clone()),
        };
        let longest = label.lines().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
        let lines = label.lines().count() as f64;
        let size = Point::new(longest * 8.0 + 24.0, lines * 17.0 + 16.0);
        let element = Element::create(shape, look, orientation, size);
        handles.insert(node.id.clone(), vg.add_node(element));
    }
    for edge in &graph.edges {
        let (Some(&from), Some(&to)) = (handles.get(&edge.source), handles.get(&edge.destination)) else {
            return Err(RenderError::UnknownNode(edge.source.0.clone(), edge.destination.0.clone()));
        };
        let is_pack = matches!(graph.node(&edge.destination).map(|n| &n.kind), Some(NodeKind::Pack));
        let text = match (is_pack, edge.slot) {
            (true, Some(slot)) => format!("slot {slot}"),
            _ => String::new(),
        };
        let look = StyleAttr::new(rgb(EDGE), 1, None, 0, 11);
        let arrow = Arrow::new(LineEndKind::None, LineEndKind::Arrow, LineStyleKind::Normal, &text, &look, &None, &None);
        vg.add_edge(arrow, from, to);
    }
    let mut svg = SVGWriter::new();
    vg.do_it(false, false, false, &mut svg);
    Ok(svg.finalize())
}

fn rgb(hex: u32) -> Color {
    Color::new((hex << 8) | 0xff)
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
    fn svg_has_every_node_and_the_target_colour() {
        let svg = to_svg(&from_json_str(GRAPH).unwrap(), &RenderOptions { direction: Direction::TopToBottom }).unwrap();
        assert!(svg.contains("<svg"), "{}", &svg[..80.min(svg.len())]);
        for id in ["s", "p", "q", "k", "t"] {
            assert!(svg.contains(&format!(">{id}<")), "node {id} drawn");
        }
        assert!(svg.contains("#fff2b8"), "target fill");
        assert_eq!(to_svg(&TaskGraph::new(), &RenderOptions::default()), Err(RenderError::Empty));
    }
}
