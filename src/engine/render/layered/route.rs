//! Boxes and routes in drawing coordinates: an edge leaves its source's output port, runs along the rank's column
//! at its own height, crosses each gap between ranks and enters its target's input port.

use super::super::Direction;
use super::{EdgePath, Layered, Layout, NodeBox, Point, EDGE_GAP, MARGIN};
use crate::engine::graph::TaskGraph;

impl Layered {
    /// Boxes and routes in drawing coordinates.
    pub(super) fn finish(&self, graph: &TaskGraph, cross: &[f64], edges: &[(usize, usize)], reversed: &[bool], direction: Direction) -> Layout {
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
