//! The layered layout: ranks, crossing reduction, coordinates and edge routes for a `TaskGraph`.
//!
//! Steps, all deterministic (plain vectors walked in node and edge order, no hash maps):
//! 1. cycles are broken by reversing the back edges of a depth-first search (self-loops are set aside);
//! 2. ranks: longest path from the sources, then nodes with more outgoing than incoming edges move forward
//!    (and the reverse), which shortens edges;
//! 3. an edge spanning several ranks gets one bend vertex per rank it passes;
//! 4. each rank is ordered by alternating median sweeps, keeping the order with the fewest crossings
//!    (counted exactly with a Fenwick tree);
//! 5. cross-axis positions: alternating sweeps put each vertex at the weighted mean of its neighbours,
//!    solved per rank as an isotonic regression so that boxes keep their order and gaps (bend vertices
//!    weigh more, so long edges run straight);
//! 6. routes: an edge leaves its source's output port, runs along the rank's column at its own height
//!    (a slot no box occupies), crosses each gap between ranks, and enters the target's input port.
//!
//! Work is O(sweeps × (vertices + edges) × log) for the ordering and O(sweeps × (vertices + edges)) for
//! the coordinates, with a fixed number of sweeps. Steps 1–2 are in `rank.rs`, 4 in `order.rs`, 5 in `place.rs`, 6 in
//! `route.rs`; this file holds the types, the driver and the proper layered graph they share.

mod order;
mod place;
mod rank;
mod route;

use super::{node_texts, Direction, LayoutOptions, RenderError, MAX_EDGES, MAX_LAYOUT_VERTICES, MAX_NODES};
use crate::engine::graph::TaskGraph;
use rank::{back_edges, rank_nodes, resolve_edges};
use crate::engine::sort;

/// A point of the drawing (y grows downwards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// A node's box: top-left corner and size, with the rank it was placed in.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBox {
    pub id: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub rank: usize,
}

impl NodeBox {
    /// Where edges enter: the middle of the left side (left to right) or of the top side (top to bottom).
    pub fn input_port(&self, direction: Direction) -> Point {
        match direction {
            Direction::LeftToRight => Point { x: self.x, y: self.y + self.height / 2.0 },
            Direction::TopToBottom => Point { x: self.x + self.width / 2.0, y: self.y },
        }
    }

    /// Where edges leave: the middle of the right side or of the bottom side.
    pub fn output_port(&self, direction: Direction) -> Point {
        match direction {
            Direction::LeftToRight => Point { x: self.x + self.width, y: self.y + self.height / 2.0 },
            Direction::TopToBottom => Point { x: self.x + self.width / 2.0, y: self.y + self.height },
        }
    }

    /// Whether `p` lies on the box's outline (within `eps`).
    pub fn on_outline(&self, p: Point, eps: f64) -> bool {
        let inside = p.x >= self.x - eps && p.x <= self.x + self.width + eps && p.y >= self.y - eps && p.y <= self.y + self.height + eps;
        let near_side = (p.x - self.x).abs() <= eps || (p.x - self.x - self.width).abs() <= eps || (p.y - self.y).abs() <= eps || (p.y - self.y - self.height).abs() <= eps;
        inside && near_side
    }
}

/// An edge's route, from a point on its source's box to a point on its target's box.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgePath {
    pub from: String,
    pub to: String,
    /// The route's corners. Consecutive points either share their cross-axis coordinate (a straight run) or
    /// lie on both sides of a gap between ranks (drawn as a curve inside the gap).
    pub points: Vec<Point>,
    /// The edge closes a cycle and runs against the drawing direction.
    pub reversed: bool,
    /// The edge joins a node to itself.
    pub self_loop: bool,
}

/// A laid-out graph: one box per node and one route per edge, both in the graph's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub direction: Direction,
    pub nodes: Vec<NodeBox>,
    pub edges: Vec<EdgePath>,
    pub width: f64,
    pub height: f64,
}

/// Free space around the drawing.
const MARGIN: f64 = 16.0;
/// Gap between two bend vertices of the same rank.
const EDGE_GAP: f64 = 9.0;
/// Ordering sweeps at most, and sweeps without improvement before stopping.
const ORDER_SWEEPS: usize = 24;
const ORDER_PATIENCE: usize = 6;
/// Coordinate sweeps (each one down and one up), then balancing sweeps over both sides.
const PLACE_SWEEPS: usize = 12;
const BALANCE_SWEEPS: usize = 4;
/// Weight keeping a vertex without neighbours on the swept side where it is.
const STAY: f64 = 0.05;
/// Weight pulling every vertex towards the cross-axis centre line (0).
const CENTRE_PULL: f64 = 0.1;

/// Lays `graph` out. Errors: no nodes, an edge to an unknown node, or the graph over the size limits.
pub fn layout(graph: &TaskGraph, options: &LayoutOptions) -> Result<Layout, RenderError> {
    let n = graph.nodes().len();
    if n > MAX_NODES || graph.edges().len() > MAX_EDGES {
        return Err(RenderError::TooLarge { nodes: n, edges: graph.edges().len(), max_nodes: MAX_NODES, max_edges: MAX_EDGES });
    }
    if n == 0 {
        return Err(RenderError::Empty);
    }
    let edges = resolve_edges(graph)?;
    let sizes: Vec<(f64, f64)> = node_texts(graph, &options.node_notes).iter().map(|t| t.size()).collect();
    // (main, cross) extents: along the drawing direction and across it.
    let extents: Vec<(f64, f64)> = match options.direction {
        Direction::LeftToRight => sizes.clone(),
        Direction::TopToBottom => sizes.iter().map(|&(w, h)| (h, w)).collect(),
    };

    let reversed = back_edges(n, &edges);
    let dag: Vec<(usize, usize)> = edges.iter().zip(&reversed).map(|(&(s, t), &r)| if r { (t, s) } else { (s, t) }).collect();
    let self_loop: Vec<bool> = edges.iter().map(|&(s, t)| s == t).collect();
    let ranks = rank_nodes(n, &dag, &self_loop);

    let mut layered = Layered::build(n, &ranks, &dag, &self_loop, &extents, options)?;
    layered.order();
    let cross = layered.place();
    Ok(layered.finish(graph, &cross, &edges, &reversed, options.direction))
}



/// The proper layered graph: real nodes `0..n`, then bend vertices; every edge joins adjacent ranks.
struct Layered {
    n: usize,
    layer: Vec<usize>,
    up: Vec<Vec<usize>>,
    down: Vec<Vec<usize>>,
    /// Vertices of each rank, in order.
    layers: Vec<Vec<usize>>,
    /// (main, cross) extents of each vertex (bend vertices: zero).
    extent: Vec<(f64, f64)>,
    /// Each non-loop edge's vertex chain, from its layout source to its layout target.
    chains: Vec<Vec<usize>>,
    node_gap: f64,
    rank_gap: f64,
}

impl Layered {
    fn build(n: usize, ranks: &[i64], dag: &[(usize, usize)], self_loop: &[bool], extents: &[(f64, f64)], options: &LayoutOptions) -> Result<Layered, RenderError> {
        let bends: usize = dag.iter().zip(self_loop).filter(|(_, &l)| !l).map(|(&(s, t), _)| (ranks[t] - ranks[s] - 1).max(0) as usize).sum();
        if n + bends > MAX_LAYOUT_VERTICES {
            return Err(RenderError::TooManyBends { vertices: n + bends, limit: MAX_LAYOUT_VERTICES });
        }
        let total = n + bends;
        let mut layer: Vec<usize> = ranks.iter().map(|&r| r as usize).collect();
        layer.reserve(bends);
        let mut up = vec![Vec::new(); total];
        let mut down = vec![Vec::new(); total];
        let mut extent = extents.to_vec();
        extent.resize(total, (0.0, 0.0));
        let mut chains = Vec::with_capacity(dag.len());
        for (&(s, t), &is_loop) in dag.iter().zip(self_loop) {
            if is_loop {
                chains.push(Vec::new());
                continue;
            }
            let mut chain = vec![s];
            let mut prev = s;
            for r in layer[s] + 1..layer[t] {
                let v = layer.len();
                layer.push(r);
                down[prev].push(v);
                up[v].push(prev);
                chain.push(v);
                prev = v;
            }
            down[prev].push(t);
            up[t].push(prev);
            chain.push(t);
            chains.push(chain);
        }
        let depth = layer.iter().copied().max().unwrap_or(0) + 1;
        // Initial order: depth-first from the real nodes by rank, so connected vertices start close.
        let mut layers = vec![Vec::new(); depth];
        let mut seen = vec![false; total];
        let mut roots: Vec<usize> = (0..n).collect();
        sort::by_key(&mut roots, |&v| (layer[v], v));
        let mut stack = Vec::new();
        for root in roots {
            if seen[root] {
                continue;
            }
            stack.push(root);
            while let Some(v) = stack.pop() {
                if seen[v] {
                    continue;
                }
                seen[v] = true;
                layers[layer[v]].push(v);
                for &w in down[v].iter().rev() {
                    if !seen[w] {
                        stack.push(w);
                    }
                }
            }
        }
        Ok(Layered { n, layer, up, down, layers, extent, chains, node_gap: options.node_gap.max(0.0), rank_gap: options.rank_gap.max(8.0) })
    }

    fn positions(&self) -> Vec<usize> {
        let mut pos = vec![0; self.layer.len()];
        for layer in &self.layers {
            for (i, &v) in layer.iter().enumerate() {
                pos[v] = i;
            }
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::order::inversions;
    use super::place::isotonic_place;
    use super::*;
    use std::collections::BTreeMap;
    use crate::engine::graph::{from_json_str, Edge, Node, NodeId, NodeKind, TaskNode};

    /// A seeded random DAG of scalar tasks: node i takes one or two inputs among the few nodes before it.
    pub(crate) fn random_dag(n: usize, seed: u64) -> TaskGraph {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let (mut nodes, mut edges) = (Vec::new(), Vec::new());
        for i in 0..n {
            let task = TaskNode { family: "math".into(), input_kind: Some("scalar".into()), output_kind: Some("scalar".into()), task_id: None, function: None };
            nodes.push(Node { id: NodeId(format!("n{i}")), kind: NodeKind::Task(task), position: None });
            if i > 0 {
                for _ in 0..1 + next(2) {
                    let j = i - 1 - next(i.min(12));
                    let edge = Edge { source: NodeId(format!("n{j}")), destination: NodeId(format!("n{i}")), slot: None };
                    if !edges.contains(&edge) {
                        edges.push(edge);
                    }
                }
            }
        }
        TaskGraph::from_parts(nodes, edges, Some(NodeId(format!("n{}", n - 1))))
    }

    fn dag200() -> TaskGraph {
        from_json_str(include_str!("../../../../tests/fixtures/reference/dag200_mixed.json")).expect("dag200_mixed.json parses")
    }

    fn tb() -> LayoutOptions {
        LayoutOptions { direction: Direction::TopToBottom, ..LayoutOptions::default() }
    }

    fn overlaps(a: &NodeBox, b: &NodeBox) -> bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }

    /// Checks the layout invariants shared by every test graph; returns the layout.
    fn check(graph: &TaskGraph, options: &LayoutOptions) -> Layout {
        let placed = layout(graph, options).expect("the graph lays out");
        assert_eq!(placed.nodes.len(), graph.nodes().len(), "one box per node");
        assert_eq!(placed.edges.len(), graph.edges().len(), "one route per edge");
        for (node, b) in graph.nodes().iter().zip(&placed.nodes) {
            assert_eq!(node.id.0, b.id, "boxes in graph order");
            assert!(b.width > 0.0 && b.height > 0.0 && b.x >= 0.0 && b.y >= 0.0, "{b:?}");
            assert!(b.x + b.width <= placed.width && b.y + b.height <= placed.height, "{b:?} inside {}x{}", placed.width, placed.height);
        }
        // Boxes sorted by their left side: only boxes starting before one ends can overlap it.
        let mut by_x: Vec<&NodeBox> = placed.nodes.iter().collect();
        by_x.sort_by(|a, b| a.x.total_cmp(&b.x));
        for (i, a) in by_x.iter().enumerate() {
            for b in by_x[i + 1..].iter().take_while(|b| b.x < a.x + a.width) {
                assert!(!overlaps(a, b), "{a:?} overlaps {b:?}");
            }
        }
        let boxes: BTreeMap<&str, &NodeBox> = placed.nodes.iter().rev().map(|b| (b.id.as_str(), b)).collect();
        for (edge, path) in graph.edges().iter().zip(&placed.edges) {
            assert_eq!((edge.source.0.as_str(), edge.destination.0.as_str()), (path.from.as_str(), path.to.as_str()));
            let (first, last) = (path.points[0], path.points[path.points.len() - 1]);
            assert!(boxes[path.from.as_str()].on_outline(first, 1e-6), "{path:?} starts on its source");
            assert!(boxes[path.to.as_str()].on_outline(last, 1e-6), "{path:?} ends on its target");
        }
        placed
    }

    /// Asserts every route runs forward along the drawing direction.
    fn assert_forward(placed: &Layout) {
        for path in &placed.edges {
            for pair in path.points.windows(2) {
                let step = match placed.direction {
                    Direction::LeftToRight => pair[1].x - pair[0].x,
                    Direction::TopToBottom => pair[1].y - pair[0].y,
                };
                assert!(step >= 0.0, "{path:?} runs backwards");
            }
            let along = |p: Point| if placed.direction == Direction::LeftToRight { p.x } else { p.y };
            assert!(along(path.points[path.points.len() - 1]) > along(path.points[0]), "{path:?} moves forward");
        }
    }

    #[test]
    fn the_reference_dag_lays_out_every_node_without_overlaps_in_both_directions() {
        let graph = dag200();
        assert_eq!(graph.nodes().len(), 325);
        let lr = check(&graph, &LayoutOptions::default());
        assert_forward(&lr);
        assert!(lr.width > lr.height, "a deep graph drawn left to right is wide: {}x{}", lr.width, lr.height);
        let down = check(&graph, &tb());
        assert_forward(&down);
        assert!(down.height > down.width);
    }

    #[test]
    fn random_dags_lay_out_forward_without_overlaps() {
        for seed in 0..4 {
            let graph = random_dag(120, seed);
            assert_forward(&check(&graph, &LayoutOptions::default()));
            assert_forward(&check(&graph, &tb()));
        }
    }

    #[test]
    fn layout_is_deterministic() {
        let graph = dag200();
        let first = layout(&graph, &LayoutOptions::default()).unwrap();
        assert_eq!(first, layout(&graph.clone(), &LayoutOptions::default()).unwrap());
        let random = random_dag(400, 9);
        assert_eq!(layout(&random, &tb()).unwrap(), layout(&random, &tb()).unwrap());
    }

    #[test]
    fn ranks_follow_edges_and_long_edges_bend_between_boxes() {
        // a -> b -> c -> d plus a -> d: the long edge passes two ranks.
        let graph = from_json_str(
            r#"{"directed": true, "multigraph": false, "graph": {},
            "nodes": [{"id": "a", "kind": "task", "family": "math"}, {"id": "b", "kind": "task", "family": "math"},
                      {"id": "c", "kind": "task", "family": "math"}, {"id": "d", "kind": "task", "family": "math"}],
            "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "c"},
                      {"source": "c", "destination": "d"}, {"source": "a", "destination": "d"}]}"#,
        )
        .unwrap();
        let placed = check(&graph, &LayoutOptions::default());
        assert_eq!(placed.nodes.iter().map(|b| b.rank).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        let long = &placed.edges[3];
        assert!(long.points.len() > 2, "{long:?}");
        // Where the long edge passes the ranks of b and c it is beside their boxes, not through them.
        for b in &placed.nodes[1..3] {
            for p in &long.points {
                if p.x >= b.x && p.x <= b.x + b.width {
                    assert!(p.y < b.y || p.y > b.y + b.height, "{p:?} inside {b:?}");
                }
            }
        }
    }

    #[test]
    fn cycles_and_self_loops_are_drawn_not_refused() {
        let graph = from_json_str(
            r#"{"directed": true, "multigraph": false, "graph": {},
            "nodes": [{"id": "a", "kind": "task", "family": "math"}, {"id": "b", "kind": "task", "family": "math"},
                      {"id": "c", "kind": "task", "family": "math"}],
            "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "c"},
                      {"source": "c", "destination": "a"}, {"source": "b", "destination": "b"}]}"#,
        )
        .unwrap();
        let placed = check(&graph, &LayoutOptions::default());
        assert_eq!(placed.edges.iter().map(|e| (e.reversed, e.self_loop)).collect::<Vec<_>>(), vec![(false, false), (false, false), (true, false), (false, true)]);
    }

    #[test]
    fn empty_graphs_unknown_nodes_and_oversized_graphs_are_typed_errors() {
        assert_eq!(layout(&TaskGraph::new(), &LayoutOptions::default()), Err(RenderError::Empty));
        let small = random_dag(3, 1);
        let mut edges = small.edges().to_vec();
        edges.push(Edge { source: NodeId("n0".into()), destination: NodeId("ghost".into()), slot: None });
        let dangling = TaskGraph::from_parts(small.nodes().to_vec(), edges, None);
        assert_eq!(layout(&dangling, &LayoutOptions::default()), Err(RenderError::UnknownNode("n0".into(), "ghost".into())));
        let two = random_dag(2, 1);
        let mut nodes = two.nodes().to_vec();
        nodes.resize(MAX_NODES + 1, two.nodes()[0].clone());
        let huge = TaskGraph::from_parts(nodes, two.edges().to_vec(), None);
        assert_eq!(
            layout(&huge, &LayoutOptions::default()),
            Err(RenderError::TooLarge { nodes: MAX_NODES + 1, edges: huge.edges().len(), max_nodes: MAX_NODES, max_edges: MAX_EDGES })
        );
    }

    #[test]
    fn edges_needing_too_many_bends_are_refused() {
        // A chain of 10,000 nodes with 20 edges from its first node to its last: 10,000 + 20 × 9,998 vertices.
        let task = NodeKind::Task(TaskNode { family: "math".into(), ..TaskNode::default() });
        let n = 10_000;
        let (mut nodes, mut edges) = (Vec::new(), Vec::new());
        for i in 0..n {
            nodes.push(Node { id: NodeId(format!("n{i}")), kind: task.clone(), position: None });
            if i > 0 {
                edges.push(Edge { source: NodeId(format!("n{}", i - 1)), destination: NodeId(format!("n{i}")), slot: None });
            }
        }
        for _ in 0..20 {
            edges.push(Edge { source: NodeId("n0".into()), destination: NodeId(format!("n{}", n - 1)), slot: None });
        }
        let graph = TaskGraph::from_parts(nodes, edges, None);
        assert_eq!(layout(&graph, &LayoutOptions::default()), Err(RenderError::TooManyBends { vertices: n + 20 * (n - 2), limit: MAX_LAYOUT_VERTICES }));
    }

    #[test]
    fn isotonic_placement_keeps_order_and_gaps_and_meets_free_targets() {
        let placed = isotonic_place(&[0.0, 0.0, 50.0], &[1.0, 1.0, 1.0], &[10.0, 10.0]);
        assert_eq!(placed, vec![-5.0, 5.0, 50.0]);
        assert_eq!(inversions(&[2, 0, 1], 3), 2);
        assert_eq!(inversions(&[0, 1, 1, 2], 3), 0);
    }
}
