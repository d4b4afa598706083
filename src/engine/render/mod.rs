//! Drawing task graphs: the public API (options, errors, label text) over a layered layout of our own,
//! an SVG writer built on it, and DOT text in the reference's visual conventions.
//!
//! - `layered` places the nodes in ranks (longest path, then edges shortened), orders each rank to reduce
//!   crossings (median sweeps, crossings counted exactly), and sets cross-axis positions by weighted
//!   least-squares sweeps; long edges get one bend vertex per rank they pass, so they never cross a box.
//! - `svg` draws a `Layout`: boxes with their label lines, typed ports, routed edges with arrowheads.
//! - `dot` writes DOT text for Graphviz.
//! - `layout_rs` (native only) is the former drawing through the layout-rs crate, kept so `arbigraph bench
//!   --layout` can compare against it. It is never used for drawing: it takes seconds from ~150 nodes on and
//!   minutes at 325, while the layered layout is faster and looks better at every size we tried.
//!
//! Layout work is bounded: graphs over `MAX_NODES` nodes or `MAX_EDGES` edges, or whose long edges would
//! need more than `MAX_LAYOUT_VERTICES` vertices in all, are refused at once with a typed error.
//! Only files under `render/` import layout crates.

mod dot;
mod layered;
#[cfg(not(target_arch = "wasm32"))]
mod layout_rs;
mod svg;

use std::collections::BTreeMap;

use crate::engine::graph::{Node, NodeKind, TaskGraph};

pub use dot::to_dot;
pub use layered::{layout, EdgePath, Layout, NodeBox, Point};
#[cfg(not(target_arch = "wasm32"))]
pub use layout_rs::to_svg_with_layout_rs;
pub use svg::{escape as escape_svg_text, num as svg_number, to_svg};

/// The most nodes `layout` accepts.
pub const MAX_NODES: usize = 20_000;
/// The most edges `layout` accepts.
pub const MAX_EDGES: usize = 40_000;
/// The most vertices (nodes plus one bend vertex per rank a long edge passes) `layout` works on.
pub const MAX_LAYOUT_VERTICES: usize = 200_000;

/// Drawing direction: the direction edges run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    LeftToRight,
    TopToBottom,
}

/// How to lay a graph out.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutOptions {
    pub direction: Direction,
    /// Free space between two boxes of the same rank.
    pub node_gap: f64,
    /// Free space between two ranks (where edges bend from one rank to the next).
    pub rank_gap: f64,
    /// Extra text lines shown under a node's label, by node id; they make the box larger.
    pub node_notes: BTreeMap<String, Vec<String>>,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions { direction: Direction::LeftToRight, node_gap: 18.0, rank_gap: 64.0, node_notes: BTreeMap::new() }
    }
}

/// How to draw a graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderOptions {
    pub layout: LayoutOptions,
    /// Extra CSS classes for a node's group, by node id (e.g. `correct`, `wrong`, `missing`).
    pub node_classes: BTreeMap<String, String>,
    /// A fill colour overriding the kind's colour, by node id (any SVG paint, e.g. `#d8f5d0`).
    pub node_fills: BTreeMap<String, String>,
}

impl RenderOptions {
    /// Default drawing in the given direction.
    pub fn with_direction(direction: Direction) -> RenderOptions {
        RenderOptions { layout: LayoutOptions { direction, ..LayoutOptions::default() }, ..RenderOptions::default() }
    }
}

/// Why a graph could not be laid out or drawn.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RenderError {
    #[error("the graph has no nodes")]
    Empty,
    #[error("edge {0} -> {1} refers to an unknown node")]
    UnknownNode(String, String),
    #[error("the graph is too large to draw: {nodes} nodes and {edges} edges (at most {max_nodes} nodes and {max_edges} edges)")]
    TooLarge { nodes: usize, edges: usize, max_nodes: usize, max_edges: usize },
    #[error("the graph's long edges need {vertices} layout vertices (at most {limit}): too large to draw")]
    TooManyBends { vertices: usize, limit: usize },
}

/// The type of value a port carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    Scalar,
    List,
    /// Not declared, or not a known kind.
    Unknown,
}

impl PortKind {
    fn parse(kind: Option<&str>) -> PortKind {
        match kind {
            Some("scalar") => PortKind::Scalar,
            Some("list") => PortKind::List,
            _ => PortKind::Unknown,
        }
    }

    /// The kind's name as written in graph files (`?` when unknown).
    pub fn as_str(self) -> &'static str {
        match self {
            PortKind::Scalar => "scalar",
            PortKind::List => "list",
            PortKind::Unknown => "?",
        }
    }
}

/// The (input, output) port kinds of a node: declared kinds for tasks, fixed kinds for adapters.
pub fn port_kinds(kind: &NodeKind) -> (PortKind, PortKind) {
    match kind {
        NodeKind::Task(task) => (PortKind::parse(task.input_kind.as_deref()), PortKind::parse(task.output_kind.as_deref())),
        NodeKind::Pick { .. } => (PortKind::List, PortKind::Scalar),
        NodeKind::Pack => (PortKind::Scalar, PortKind::List),
        NodeKind::Unknown { .. } => (PortKind::Unknown, PortKind::Unknown),
    }
}

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

/// Text metrics shared by the layout (box sizes) and the SVG writer (text positions). Widths are estimates
/// for a proportional sans-serif face; lines longer than `MAX_LINE_CHARS` are shortened with `…` (the full
/// text stays in the node's tooltip).
pub(crate) mod metrics {
    pub const TITLE_SIZE: f64 = 12.0;
    pub const TEXT_SIZE: f64 = 11.0;
    pub const TITLE_CHAR: f64 = 7.3;
    pub const TEXT_CHAR: f64 = 6.3;
    pub const LINE_HEIGHT: f64 = 15.0;
    pub const PAD_X: f64 = 14.0;
    pub const PAD_Y: f64 = 7.0;
    pub const MIN_WIDTH: f64 = 56.0;
    pub const MAX_LINE_CHARS: usize = 40;
}

/// What a node's box shows: the title line (the id), detail lines, note lines, all already shortened.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NodeText {
    pub title: String,
    pub details: Vec<String>,
    pub notes: Vec<String>,
}

impl NodeText {
    pub fn of(node: &Node, notes: Option<&Vec<String>>) -> NodeText {
        let mut lines = node_label(&node.kind, &node.id.0).into_iter().map(|l| shorten(&l, metrics::MAX_LINE_CHARS));
        let title = lines.next().unwrap_or_default();
        NodeText { title, details: lines.collect(), notes: notes.map(|n| n.iter().map(|l| shorten(l, metrics::MAX_LINE_CHARS)).collect()).unwrap_or_default() }
    }

    /// Box size (width, height) in left-to-right reading, whatever the drawing direction.
    pub fn size(&self) -> (f64, f64) {
        use metrics::*;
        let width = |s: &str, per_char: f64| s.chars().count() as f64 * per_char;
        let widest = self.details.iter().chain(&self.notes).map(|l| width(l, TEXT_CHAR)).fold(width(&self.title, TITLE_CHAR), f64::max);
        let lines = 1 + self.details.len() + self.notes.len();
        ((widest + 2.0 * PAD_X).max(MIN_WIDTH).ceil(), (lines as f64 * LINE_HEIGHT + 2.0 * PAD_Y).ceil())
    }
}

/// Shortens `text` to `max` characters, marking the cut with `…` (box lines here, and the app's list cells and
/// canvas labels).
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// Box sizes of every node of `graph`, in node order, with the options' notes.
pub(crate) fn node_texts(graph: &TaskGraph, notes: &BTreeMap<String, Vec<String>>) -> Vec<NodeText> {
    graph.nodes().iter().map(|n| NodeText::of(n, notes.get(&n.id.0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::from_json_str;

    #[test]
    fn adapters_have_fixed_port_kinds_and_tasks_their_declared_ones() {
        let graph = from_json_str(
            r#"{"directed": true, "multigraph": false, "graph": {},
            "nodes": [{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"},
                      {"id": "p", "kind": "adapter", "op": "pick", "index": 1},
                      {"id": "t", "kind": "task", "family": "math"}],
            "edges": [{"source": "s", "destination": "p"}, {"source": "p", "destination": "t"}]}"#,
        )
        .unwrap();
        let kinds: Vec<_> = graph.nodes().iter().map(|n| port_kinds(&n.kind)).collect();
        assert_eq!(kinds, vec![(PortKind::Scalar, PortKind::List), (PortKind::List, PortKind::Scalar), (PortKind::Unknown, PortKind::Unknown)]);
    }

    #[test]
    fn long_label_lines_are_shortened_and_boxes_grow_with_notes() {
        let graph = from_json_str(&format!(
            r#"{{"directed": true, "multigraph": false, "graph": {{}},
            "nodes": [{{"id": "{}", "kind": "task", "family": "math"}}], "edges": []}}"#,
            "x".repeat(100)
        ))
        .unwrap();
        let plain = NodeText::of(&graph.nodes()[0], None);
        assert_eq!(plain.title.chars().count(), metrics::MAX_LINE_CHARS);
        assert!(plain.title.ends_with('…'));
        let notes = vec!["truth: 42".to_string()];
        let noted = NodeText::of(&graph.nodes()[0], Some(&notes));
        assert!(noted.size().1 > plain.size().1, "{:?} vs {:?}", noted.size(), plain.size());
        assert_eq!(noted.size().0, plain.size().0);
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abc", 4), "abc");
    }
}
