//! `Picture`: one generated image with everything needed to re-check its ground truth (node positions and
//! numbers, the selected start index, the braid and the validation figures), and its SVG and PNG renderings.

use serde_json::{json, Value as Json};

use super::draw::{Drawing, Mark, RenderError};
use super::font;
use super::braid::{
    Layout, Point, EDGE_CLEARANCE, MIN_CROSSING_NODE_DISTANCE, MIN_CROSSING_SEPARATION, MIN_CROSSING_SINE, MIN_NODE_CLEARANCE, MIN_NODE_DISTANCE,
};
use super::params::{ImageParams, Numbering, LINE_WIDTH, NODE_RADIUS};
use crate::engine::rng::InstanceRng;
use crate::engine::value::Number;

/// The MIME type of [`Picture::to_png`].
pub const PNG_MIME: &str = "image/png";

/// A path-traversal picture and the question asked about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub params: ImageParams,
    /// Positions in start order, the braid and the validation figures.
    pub layout: Layout,
    /// `numbers[k][j]`: the number on node `j` (left to right) of path `k` (start order).
    pub numbers: Vec<Vec<u32>>,
    /// The raw value the selector was computed from.
    pub input: Number,
    /// The selected path's index in start order (0 = the path starting at the top).
    pub start_node_index: usize,
}

impl Picture {
    /// Numbers the nodes of `layout` by `params.numbering`.
    pub fn number(params: &ImageParams, layout: &Layout, rng: &mut InstanceRng) -> Vec<Vec<u32>> {
        let n = params.nodes_per_path as usize;
        let p = layout.paths.len();
        match params.numbering {
            Numbering::Sequential => {
                // Path after path, the paths taken in a random order.
                let mut order: Vec<usize> = (0..p).collect();
                rng.shuffle(&mut order);
                let mut numbers = vec![Vec::new(); p];
                for (block, &k) in order.iter().enumerate() {
                    numbers[k] = (0..n).map(|j| (block * n + j + 1) as u32).collect();
                }
                numbers
            }
            Numbering::Shuffled => {
                let mut all: Vec<u32> = (1..=(p * n) as u32).collect();
                rng.shuffle(&mut all);
                all.chunks(n).map(<[u32]>::to_vec).collect()
            }
        }
    }

    /// The numbers on the selected path, left to right: the ground truth.
    pub fn answer(&self) -> Vec<u32> {
        self.numbers[self.start_node_index].clone()
    }

    /// The selected path's node positions, left to right (for an overlay that shows the solution).
    pub fn selected_polyline(&self) -> &[Point] {
        &self.layout.paths[self.start_node_index]
    }

    /// The picture as drawing marks: every edge, then every node's disc, then every number.
    pub fn drawing(&self) -> Drawing {
        let mut marks = Vec::new();
        for path in &self.layout.paths {
            let points = path.iter().map(|pt| (pt.x as f32, pt.y as f32)).collect();
            marks.push(Mark::Polyline { points, width: LINE_WIDTH as f32 });
        }
        for path in &self.layout.paths {
            for pt in path {
                marks.push(Mark::Circle { cx: pt.x as f32, cy: pt.y as f32, radius: NODE_RADIUS as f32, width: LINE_WIDTH as f32 });
            }
        }
        for (path, numbers) in self.layout.paths.iter().zip(&self.numbers) {
            for (pt, &number) in path.iter().zip(numbers) {
                let (scale, width) = label_style(number);
                for stroke in font::number_strokes(number, pt.x as f32, pt.y as f32, scale) {
                    marks.push(Mark::Polyline { points: stroke, width });
                }
            }
        }
        Drawing { width: self.params.width, height: self.params.height, marks }
    }

    /// The picture as an SVG document.
    pub fn to_svg(&self) -> String {
        self.drawing().to_svg()
    }

    /// The picture as a greyscale PNG (the same bytes on every platform).
    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        self.drawing().to_png()
    }

    /// Everything needed to re-check the picture and its ground truth, as JSON (no image bytes).
    pub fn metadata_json(&self) -> Json {
        let figures = &self.layout.figures;
        let paths: Vec<Json> = self
            .layout
            .paths
            .iter()
            .zip(&self.numbers)
            .map(|(path, numbers)| json!({ "nodes": path.iter().zip(numbers).map(|(pt, n)| json!({"x": pt.x, "y": pt.y, "number": n})).collect::<Vec<_>>() }))
            .collect();
        let crossings: Vec<Json> = figures
            .crossings
            .iter()
            .map(|c| json!({"paths": [c.a, c.b], "edges": [c.edge_a, c.edge_b], "x": round2(c.x), "y": round2(c.y), "sine": round4(c.sine)}))
            .collect();
        let mut partners: Vec<Vec<usize>> = vec![Vec::new(); self.layout.paths.len()];
        for c in &figures.crossings {
            if !partners[c.a].contains(&c.b) {
                partners[c.a].push(c.b);
                partners[c.b].push(c.a);
            }
        }
        for list in &mut partners {
            list.sort_unstable();
        }
        json!({
            "kind": "path_traversal",
            "width": self.params.width,
            "height": self.params.height,
            "node_radius": NODE_RADIUS,
            "line_width": LINE_WIDTH,
            "params": self.params.to_json(),
            "selector": {
                "input": self.input.to_json(),
                "rule": "round half away from zero, absolute value, modulo num_paths",
                "start_node_index": self.start_node_index,
            },
            "selected_path": {
                "numbers": self.answer(),
                "polyline": self.selected_polyline().iter().map(|pt| json!([pt.x, pt.y])).collect::<Vec<_>>(),
            },
            "paths": paths,
            "braid": self.layout.braid.iter().map(|c| json!({"gap": c.gap, "paths": [c.a, c.b]})).collect::<Vec<_>>(),
            "validation": {
                "attempts": self.layout.attempts,
                "jitter_x": self.layout.jitter_x,
                "jitter_y": self.layout.jitter_y,
                "min_node_distance": finite(figures.min_node_distance),
                "min_node_clearance": finite(figures.min_node_clearance),
                "min_edge_distance": finite(figures.min_edge_distance),
                "min_crossing_sine": round4(figures.min_crossing_sine),
                "min_crossing_separation": finite(figures.min_crossing_separation),
                "min_crossing_node_distance": finite(figures.min_crossing_node_distance),
                "crossing_count": figures.crossings.len(),
                "crossing_partners": partners,
                "crossings": crossings,
                "thresholds": {
                    "min_node_distance": MIN_NODE_DISTANCE,
                    "min_node_clearance": MIN_NODE_CLEARANCE,
                    "min_crossing_sine": MIN_CROSSING_SINE,
                    "min_crossing_separation": MIN_CROSSING_SEPARATION,
                    "min_crossing_node_distance": MIN_CROSSING_NODE_DISTANCE,
                    "edge_clearance": EDGE_CLEARANCE,
                },
            },
        })
    }
}

/// Font scale (pixels per font unit) and stroke width of a node's number: as large as fits inside the circle.
fn label_style(number: u32) -> (f32, f32) {
    let digits = number.to_string().len();
    let room = 2.0 * (NODE_RADIUS - LINE_WIDTH) as f32 - 4.0;
    let scale = (room / font::text_width(digits)).min(1.6);
    (scale, 0.9 + 0.85 * scale)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// A figure rounded to hundredths, or null where none exists (no crossings, one path).
fn finite(x: f64) -> Json {
    if x.is_finite() { json!(round2(x)) } else { Json::Null }
}
