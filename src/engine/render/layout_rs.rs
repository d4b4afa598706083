//! The former drawing through the layout-rs crate (native only), kept as the comparison point of
//! `arbigraph bench --layout`. It is slow from about 150 nodes on, so nothing draws with it.

use std::collections::BTreeMap;

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::{node_label, Direction, RenderError, RenderOptions};
use crate::engine::graph::{NodeKind, TaskGraph};

const TASK_FILL: u32 = 0xe8f1ff;
const TASK_LINE: u32 = 0x5279b8;
const TARGET_FILL: u32 = 0xfff2b8;
const TARGET_LINE: u32 = 0xc48a00;
const ADAPTER_FILL: u32 = 0xf1f1f1;
const ADAPTER_LINE: u32 = 0x777777;
const EDGE: u32 = 0x555555;

/// SVG of the graph, laid out and drawn by layout-rs.
pub fn to_svg_with_layout_rs(graph: &TaskGraph, options: &RenderOptions) -> Result<String, RenderError> {
    if graph.nodes().is_empty() {
        return Err(RenderError::Empty); // layout-rs panics on an empty graph.
    }
    let orientation = match options.layout.direction {
        Direction::LeftToRight => Orientation::LeftToRight,
        Direction::TopToBottom => Orientation::TopToBottom,
    };
    let mut vg = VisualGraph::new(orientation);
    let mut handles = BTreeMap::new();
    for node in graph.nodes() {
        let is_target = graph.target() == Some(&node.id);
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
    for edge in graph.edges() {
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

    #[test]
    fn layout_rs_draws_every_node_and_refuses_the_empty_graph() {
        let graph = from_json_str(
            r#"{"directed": true, "multigraph": false, "graph": {"target_node": "t"},
            "nodes": [{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                      {"id": "t", "kind": "task", "family": "math"}],
            "edges": [{"source": "s", "destination": "t"}]}"#,
        )
        .unwrap();
        let svg = to_svg_with_layout_rs(&graph, &RenderOptions::default()).unwrap();
        assert!(svg.contains(">s<") && svg.contains(">t<"), "{svg}");
        assert!(svg.contains("#fff2b8"), "target fill");
        assert_eq!(to_svg_with_layout_rs(&TaskGraph::new(), &RenderOptions::default()), Err(RenderError::Empty));
    }
}
