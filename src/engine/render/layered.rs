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
//! the coordinates, with a fixed number of sweeps.

use std::collections::{BTreeMap, VecDeque};

use super::{node_texts, Direction, LayoutOptions, RenderError, MAX_EDGES, MAX_LAYOUT_VERTICES, MAX_NODES};
use crate::engine::graph::TaskGraph;

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

/// Edges as node indices (the first node with a given id wins, as in `TaskGraph::node`).
fn resolve_edges(graph: &TaskGraph) -> Result<Vec<(usize, usize)>, RenderError> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, node) in graph.nodes().iter().enumerate() {
        index.entry(node.id.0.as_str()).or_insert(i);
    }
    graph
        .edges()
        .iter()
        .map(|e| match (index.get(e.source.0.as_str()), index.get(e.destination.0.as_str())) {
            (Some(&s), Some(&t)) => Ok((s, t)),
            _ => Err(RenderError::UnknownNode(e.source.0.clone(), e.destination.0.clone())),
        })
        .collect()
}

/// Marks the edges that close a cycle: back edges of a depth-first search from each node in order.
fn back_edges(n: usize, edges: &[(usize, usize)]) -> Vec<bool> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, &(s, t)) in edges.iter().enumerate() {
        if s != t {
            out[s].push((t, i));
        }
    }
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut reversed = vec![false; edges.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        state[root] = OPEN;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            if next == out[v].len() {
                state[v] = DONE;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let (w, i) = out[v][next];
            match state[w] {
                NEW => {
                    state[w] = OPEN;
                    stack.push((w, 0));
                }
                OPEN => reversed[i] = true,
                _ => {}
            }
        }
    }
    reversed
}

/// Ranks of an acyclic graph: longest path from the sources, then two rounds of moving nodes that have more
/// edges on one side towards that side, which shortens edges (a cheap stand-in for network simplex).
fn rank_nodes(n: usize, dag: &[(usize, usize)], self_loop: &[bool]) -> Vec<i64> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (&(s, t), &is_loop) in dag.iter().zip(self_loop) {
        if !is_loop {
            succ[s].push(t);
            pred[t].push(s);
        }
    }
    let mut indegree: Vec<usize> = pred.iter().map(Vec::len).collect();
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut topo = Vec::with_capacity(n);
    while let Some(v) = queue.pop_front() {
        topo.push(v);
        for &w in &succ[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    let mut rank = vec![0i64; n];
    for &v in &topo {
        for &w in &succ[v] {
            rank[w] = rank[w].max(rank[v] + 1);
        }
    }
    for _ in 0..2 {
        for &v in topo.iter().rev() {
            if !succ[v].is_empty() && succ[v].len() > pred[v].len() {
                rank[v] = succ[v].iter().map(|&w| rank[w]).min().unwrap_or(rank[v] + 1) - 1;
            }
        }
        for &v in &topo {
            if !pred[v].is_empty() && pred[v].len() > succ[v].len() {
                rank[v] = pred[v].iter().map(|&u| rank[u]).max().unwrap_or(rank[v] - 1) + 1;
            }
        }
    }
    let low = rank.iter().copied().min().unwrap_or(0);
    rank.iter().map(|r| r - low).collect()
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
        roots.sort_by_key(|&v| (layer[v], v));
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

    /// Crossing reduction: alternating median sweeps; the order with the fewest crossings wins.
    fn order(&mut self) {
        let mut pos = self.positions();
        let mut best = self.layers.clone();
        let mut best_crossings = self.crossings(&pos);
        let mut stale = 0;
        for sweep in 0..ORDER_SWEEPS {
            if best_crossings == 0 || stale == ORDER_PATIENCE {
                break;
            }
            let downward = sweep % 2 == 0;
            let ranks: Vec<usize> = if downward { (1..self.layers.len()).collect() } else { (0..self.layers.len().saturating_sub(1)).rev().collect() };
            for r in ranks {
                let mut layer = std::mem::take(&mut self.layers[r]);
                let neighbours = if downward { &self.up } else { &self.down };
                sort_by_median(&mut layer, neighbours, &pos);
                for (i, &v) in layer.iter().enumerate() {
                    pos[v] = i;
                }
                self.layers[r] = layer;
            }
            let crossings = self.crossings(&pos);
            if crossings < best_crossings {
                best_crossings = crossings;
                best = self.layers.clone();
                stale = 0;
            } else {
                stale += 1;
            }
        }
        self.layers = best;
    }

    /// Edge crossings between all pairs of adjacent ranks.
    fn crossings(&self, pos: &[usize]) -> u64 {
        let mut total = 0;
        let mut targets = Vec::new();
        for r in 0..self.layers.len().saturating_sub(1) {
            targets.clear();
            for &v in &self.layers[r] {
                let start = targets.len();
                targets.extend(self.down[v].iter().map(|&w| pos[w]));
                targets[start..].sort_unstable();
            }
            total += inversions(&targets, self.layers[r + 1].len());
        }
        total
    }

    /// Minimum centre distance between two neighbours of a rank.
    fn separation(&self, a: usize, b: usize) -> f64 {
        let gap = match (a < self.n, b < self.n) {
            (true, true) => self.node_gap,
            (false, false) => EDGE_GAP,
            _ => (self.node_gap + EDGE_GAP) / 2.0,
        };
        (self.extent[a].1 + self.extent[b].1) / 2.0 + gap
    }

    /// Weight of the segment between `a` and `b`: straight long edges matter more than short ones.
    fn weight(&self, a: usize, b: usize) -> f64 {
        match (a < self.n, b < self.n) {
            (true, true) => 1.0,
            (false, false) => 8.0,
            _ => 2.0,
        }
    }

    /// Cross-axis centre of every vertex.
    fn place(&self) -> Vec<f64> {
        // Start from each rank packed and centred on the centre line.
        let mut x = vec![0.0; self.layer.len()];
        for layer in &self.layers {
            let mut at = 0.0;
            for (i, &v) in layer.iter().enumerate() {
                if i > 0 {
                    at += self.separation(layer[i - 1], v);
                }
                x[v] = at;
            }
            for &v in layer {
                x[v] -= at / 2.0;
            }
        }
        let depth = self.layers.len();
        let mut desired = Vec::new();
        let mut weights = Vec::new();
        let mut sweep = |x: &mut Vec<f64>, r: usize, use_up: bool, use_down: bool| {
            let layer = &self.layers[r];
            desired.clear();
            weights.clear();
            for &v in layer {
                let (mut sum, mut total) = (0.0, 0.0);
                let sides = [(use_up, &self.up[v]), (use_down, &self.down[v])];
                for (on, neighbours) in sides {
                    if on {
                        for &u in neighbours {
                            let w = self.weight(u, v);
                            sum += w * x[u];
                            total += w;
                        }
                    }
                }
                if total == 0.0 {
                    // No neighbour on that side: stay put, yielding easily.
                    sum = STAY * x[v];
                    total = STAY;
                }
                // A faint pull towards the centre line keeps long drawings from drifting sideways.
                total += CENTRE_PULL;
                desired.push(sum / total);
                weights.push(total);
            }
            let seps: Vec<f64> = layer.windows(2).map(|p| self.separation(p[0], p[1])).collect();
            let placed = isotonic_place(&desired, &weights, &seps);
            for (&v, p) in layer.iter().zip(placed) {
                x[v] = p;
            }
        };
        for _ in 0..PLACE_SWEEPS {
            for r in 1..depth {
                sweep(&mut x, r, true, false);
            }
            for r in (0..depth.saturating_sub(1)).rev() {
                sweep(&mut x, r, false, true);
            }
        }
        for _ in 0..BALANCE_SWEEPS {
            for r in 0..depth {
                sweep(&mut x, r, true, true);
            }
            for r in (0..depth).rev() {
                sweep(&mut x, r, true, true);
            }
        }
        x
    }

    /// Boxes and routes in drawing coordinates.
    fn finish(&self, graph: &TaskGraph, cross: &[f64], edges: &[(usize, usize)], reversed: &[bool], direction: Direction) -> Layout {
        // Main-axis columns: each rank is as thick as its thickest box.
        let depth = self.layers.len();
        let mut thickness = vec![0.0f64; depth];
        for v in 0..self.n {
            thickness[self.layer[v]] = thickness[self.layer[v]].max(self.extent[v].0);
        }
        let mut start = vec![MARGIN; depth];
        for r in 1..depth {
            start[r] = start[r - 1] + thickness[r - 1] + self.rank_gap;
        }
        let low = (0..self.layer.len()).map(|v| cross[v] - self.extent[v].1 / 2.0).fold(f64::INFINITY, f64::min);
        let shift = MARGIN - low;
        let c = |v: usize| cross[v] + shift;
        let point = |main: f64, across: f64| match direction {
            Direction::LeftToRight => Point { x: main, y: across },
            Direction::TopToBottom => Point { x: across, y: main },
        };
        let nodes: Vec<NodeBox> = (0..self.n)
            .map(|v| {
                let r = self.layer[v];
                let (main, across) = self.extent[v];
                let corner = point(start[r] + (thickness[r] - main) / 2.0, c(v) - across / 2.0);
                let (width, height) = match direction {
                    Direction::LeftToRight => (main, across),
                    Direction::TopToBottom => (across, main),
                };
                NodeBox { id: graph.nodes()[v].id.0.clone(), x: corner.x, y: corner.y, width, height, rank: r }
            })
            .collect();
        let box_main = |v: usize| {
            let r = self.layer[v];
            (start[r] + (thickness[r] - self.extent[v].0) / 2.0, start[r] + (thickness[r] + self.extent[v].0) / 2.0)
        };
        let mut routes = Vec::with_capacity(edges.len());
        for (i, &(s, t)) in edges.iter().enumerate() {
            let mut points = Vec::new();
            if s == t {
                let (lo, hi) = box_main(s);
                let half = self.extent[s].1 / 2.0;
                let out = 10.0;
                let above = c(s) - half - self.node_gap.min(EDGE_GAP * 2.0) / 2.0;
                points.extend([(hi, c(s)), (hi + out, c(s)), (hi + out, above), (lo - out, above), (lo - out, c(s)), (lo, c(s))]);
            } else {
                let chain = &self.chains[i];
                for (k, &v) in chain.iter().enumerate() {
                    let r = self.layer[v];
                    let (lo, hi) = if v < self.n { box_main(v) } else { (start[r] + thickness[r] / 2.0, start[r] + thickness[r] / 2.0) };
                    if k > 0 {
                        points.push((start[r], c(v)));
                        points.push((lo, c(v)));
                    }
                    if k + 1 < chain.len() {
                        points.push((hi, c(v)));
                        points.push((start[r] + thickness[r], c(v)));
                    }
                }
                points.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9);
                // Drop middle points of straight runs.
                let mut kept: Vec<(f64, f64)> = Vec::with_capacity(points.len());
                for p in points {
                    if kept.len() >= 2 {
                        let a = kept[kept.len() - 2];
                        let b = kept[kept.len() - 1];
                        if (a.1 - b.1).abs() < 1e-9 && (b.1 - p.1).abs() < 1e-9 {
                            kept.pop();
                        }
                    }
                    kept.push(p);
                }
                points = kept;
                if reversed[i] {
                    points.reverse();
                }
            }
            routes.push(EdgePath {
                from: graph.nodes()[s].id.0.clone(),
                to: graph.nodes()[t].id.0.clone(),
                points: points.into_iter().map(|(m, a)| point(m, a)).collect(),
                reversed: reversed[i],
                self_loop: s == t,
            });
        }
        let main_size = start[depth - 1] + thickness[depth - 1] + MARGIN;
        let cross_size = (0..self.layer.len()).map(|v| c(v) + self.extent[v].1 / 2.0).fold(0.0, f64::max) + MARGIN;
        let (width, height) = match direction {
            Direction::LeftToRight => (main_size, cross_size),
            Direction::TopToBottom => (cross_size, main_size),
        };
        Layout { direction, nodes, edges: routes, width: width.ceil(), height: height.ceil() }
    }
}

/// Reorders `layer` by the median position of each vertex's `neighbours`; vertices without neighbours keep
/// their slot. Ties keep the current order.
fn sort_by_median(layer: &mut [usize], neighbours: &[Vec<usize>], pos: &[usize]) {
    let mut keyed: Vec<(f64, usize, usize)> = Vec::new();
    let mut fixed = vec![false; layer.len()];
    let mut ps = Vec::new();
    for (i, &v) in layer.iter().enumerate() {
        ps.clear();
        ps.extend(neighbours[v].iter().map(|&u| pos[u] as f64));
        if ps.is_empty() {
            fixed[i] = true;
            continue;
        }
        ps.sort_by(f64::total_cmp);
        let m = ps.len() / 2;
        let median = if ps.len() % 2 == 1 {
            ps[m]
        } else if ps.len() == 2 {
            (ps[0] + ps[1]) / 2.0
        } else {
            let left = ps[m - 1] - ps[0];
            let right = ps[ps.len() - 1] - ps[m];
            if left + right == 0.0 {
                (ps[m - 1] + ps[m]) / 2.0
            } else {
                (ps[m - 1] * right + ps[m] * left) / (left + right)
            }
        };
        keyed.push((median, i, v));
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut next = keyed.into_iter();
    for (i, slot) in layer.iter_mut().enumerate() {
        if !fixed[i] {
            if let Some((_, _, v)) = next.next() {
                *slot = v;
            }
        }
    }
}

/// Inversions of `seq` (values below `bound`): the crossings of edges listed by source order.
fn inversions(seq: &[usize], bound: usize) -> u64 {
    let mut tree = vec![0u64; bound + 1];
    let mut count = 0;
    for (seen, &value) in seq.iter().enumerate() {
        // Entries so far that are <= value.
        let mut i = value + 1;
        let mut at_most = 0;
        while i > 0 {
            at_most += tree[i];
            i &= i - 1;
        }
        count += seen as u64 - at_most;
        let mut i = value + 1;
        while i <= bound {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    count
}

/// Positions minimising Σ wᵢ (xᵢ − dᵢ)² with xᵢ₊₁ − xᵢ ≥ sepᵢ: pool-adjacent-violators on the positions with
/// the separations taken out.
fn isotonic_place(desired: &[f64], weights: &[f64], seps: &[f64]) -> Vec<f64> {
    let mut offset = Vec::with_capacity(desired.len());
    let mut at = 0.0;
    for i in 0..desired.len() {
        if i > 0 {
            at += seps[i - 1];
        }
        offset.push(at);
    }
    // Blocks of (weight, weighted sum, count).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::new();
    for i in 0..desired.len() {
        blocks.push((weights[i], weights[i] * (desired[i] - offset[i]), 1));
        while blocks.len() >= 2 {
            let (w2, s2, c2) = blocks[blocks.len() - 1];
            let (w1, s1, c1) = blocks[blocks.len() - 2];
            if s1 / w1 <= s2 / w2 {
                break;
            }
            blocks.pop();
            let last = blocks.len() - 1;
            blocks[last] = (w1 + w2, s1 + s2, c1 + c2);
        }
    }
    let mut out = Vec::with_capacity(desired.len());
    for (w, s, count) in blocks {
        let value = s / w;
        for _ in 0..count {
            out.push(value + offset[out.len()]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
            let task = TaskNode { family: "math".into(), input_kind: Some("scalar".into()), output_kind: Some("scalar".into()), task_id: None };
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
        from_json_str(include_str!("../../../tests/fixtures/reference/dag200_mixed.json")).expect("dag200_mixed.json parses")
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
