//! Drawing an instance's graph: graphs up to `DETAIL_NODES` nodes become our full SVG (every node's task name
//! and ground truth as notes); bigger ones become an `Overview` (boxes, labels and edge routes from the same
//! layout) that the page draws at the level of detail its zoom allows, with a minimap. `View` is the pan and
//! zoom of that drawing: which part of the graph is on screen, and whether labels are legible there.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::engine::dataset::instance_graph;
use crate::engine::render::{self, LayoutOptions, RenderOptions};

/// Graphs with more nodes are drawn as an overview with levels of detail.
pub const DETAIL_NODES: usize = 300;

/// How an instance's graph is drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Drawing {
    /// The full SVG (built by `render::to_svg` from escaped text).
    Svg { svg: String, nodes: usize },
    /// Boxes and routes of a large graph, drawn by the page.
    Overview(Overview),
    /// Why there is no drawing.
    Unavailable { reason: String },
}

/// A laid-out large graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    pub width: f64,
    pub height: f64,
    pub boxes: Vec<OverviewBox>,
    /// Each edge's route, as corner points.
    pub edges: Vec<Vec<(f64, f64)>>,
}

/// One node of an overview.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverviewBox {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    /// The node's id, then its notes (task name, ground truth).
    pub lines: Vec<String>,
    pub target: bool,
    pub adapter: bool,
}

/// The drawing of a sample record's graph.
pub fn draw(record: &Json) -> Drawing {
    let Some(instance) = instance_graph(record) else {
        return Drawing::Unavailable { reason: "the record names no task stage".into() };
    };
    let nodes = instance.graph.nodes().len();
    let options = LayoutOptions { node_notes: instance.notes.clone(), ..LayoutOptions::default() };
    if nodes <= DETAIL_NODES {
        return match render::to_svg(&instance.graph, &RenderOptions { layout: options, ..RenderOptions::default() }) {
            Ok(svg) => Drawing::Svg { svg, nodes },
            Err(e) => Drawing::Unavailable { reason: e.to_string() },
        };
    }
    match render::layout(&instance.graph, &options) {
        Err(e) => Drawing::Unavailable { reason: e.to_string() },
        Ok(placed) => {
            let boxes = placed
                .nodes
                .iter()
                .zip(instance.graph.nodes())
                .map(|(b, node)| {
                    let mut lines = vec![node.id.0.clone()];
                    lines.extend(instance.notes.get(&node.id.0).cloned().unwrap_or_default());
                    OverviewBox {
                        x: b.x,
                        y: b.y,
                        w: b.width,
                        h: b.height,
                        lines,
                        target: instance.graph.target() == Some(&node.id),
                        adapter: !matches!(node.kind, crate::engine::graph::NodeKind::Task(_)),
                    }
                })
                .collect();
            let edges = placed.edges.iter().map(|e| e.points.iter().map(|p| (p.x, p.y)).collect()).collect();
            Drawing::Overview(Overview { width: placed.width, height: placed.height, boxes, edges })
        }
    }
}

/// The text outline of a sample record's graph: each node with its task name and ground truth as notes
/// (empty when the record names no task stage).
pub fn outline_of(record: &Json) -> Vec<crate::app::design::outline::OutlineItem> {
    instance_graph(record).map(|instance| crate::app::design::outline::annotated(&instance.graph, &instance.notes)).unwrap_or_default()
}

/// A rectangle of the drawing, in graph coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    fn overlaps(&self, b: &OverviewBox) -> bool {
        b.x < self.x + self.w && b.x + b.w > self.x && b.y < self.y + self.h && b.y + b.h > self.y
    }
}

/// Font size of an overview's labels (`.lod-label` in `style/browse.css`).
pub const LABEL_FONT: f64 = 11.0;
/// Labels are drawn from this zoom on, where they reach 11 CSS px (smaller text is not drawn at all).
pub const LABEL_SCALE: f64 = 11.0 / LABEL_FONT;
/// Zoom limits.
pub const MIN_SCALE: f64 = 0.002;
pub const MAX_SCALE: f64 = 4.0;
/// The most labelled boxes drawn at once.
pub const MAX_LABELS: usize = 400;

/// The pan and zoom of a drawing: screen = (graph − origin) × scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub x: f64,
    pub y: f64,
    pub scale: f64,
}

impl View {
    /// The whole graph centred in a `screen_w` × `screen_h` screen (never enlarged past 1:1).
    pub fn fit(width: f64, height: f64, screen_w: f64, screen_h: f64) -> View {
        let scale = (screen_w / width.max(1.0)).min(screen_h / height.max(1.0)).clamp(MIN_SCALE, 1.0);
        View { x: (width - screen_w / scale) / 2.0, y: (height - screen_h / scale) / 2.0, scale }
    }

    /// Zooms by `factor` keeping the graph point under screen point (`sx`, `sy`) in place.
    pub fn zoom_at(self, sx: f64, sy: f64, factor: f64) -> View {
        let scale = (self.scale * factor).clamp(MIN_SCALE, MAX_SCALE);
        let (gx, gy) = (self.x + sx / self.scale, self.y + sy / self.scale);
        View { x: gx - sx / scale, y: gy - sy / scale, scale }
    }

    /// Moves the drawing by a screen distance.
    pub fn pan(self, dx: f64, dy: f64) -> View {
        View { x: self.x - dx / self.scale, y: self.y - dy / self.scale, scale: self.scale }
    }

    /// The part of the graph on a `screen_w` × `screen_h` screen.
    pub fn visible(self, screen_w: f64, screen_h: f64) -> Rect {
        Rect { x: self.x, y: self.y, w: screen_w / self.scale, h: screen_h / self.scale }
    }

    /// The SVG `viewBox` for the screen.
    pub fn view_box(self, screen_w: f64, screen_h: f64) -> String {
        let r = self.visible(screen_w, screen_h);
        format!("{:.1} {:.1} {:.1} {:.1}", r.x, r.y, r.w, r.h)
    }

    /// True when labels are legible at this zoom.
    pub fn labels_shown(self) -> bool {
        self.scale >= LABEL_SCALE
    }
}

/// The boxes to label in `visible`: none when zoomed out past legibility, at most `MAX_LABELS`.
pub fn labelled(overview: &Overview, view: View, visible: Rect) -> Vec<usize> {
    if !view.labels_shown() {
        return Vec::new();
    }
    overview.boxes.iter().enumerate().filter(|(_, b)| visible.overlaps(b)).map(|(i, _)| i).take(MAX_LABELS).collect()
}

/// One SVG path with every box of the overview (drawn as a single element however many nodes there are).
pub fn boxes_path(overview: &Overview, keep: impl Fn(&OverviewBox) -> bool) -> String {
    let mut d = String::new();
    for b in overview.boxes.iter().filter(|b| keep(b)) {
        d.push_str(&format!("M{:.1} {:.1}h{:.1}v{:.1}h{:.1}z", b.x, b.y, b.w, b.h, -b.w));
    }
    d
}

/// One SVG path with every edge route.
pub fn edges_path(overview: &Overview) -> String {
    let mut d = String::new();
    for route in &overview.edges {
        for (i, (x, y)) in route.iter().enumerate() {
            d.push_str(&format!("{}{x:.1} {y:.1}", if i == 0 { 'M' } else { 'L' }));
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(n: usize) -> Json {
        let stages: Vec<Json> = (1..n).map(|k| json!({"task_number": k, "task_name": format!("T{k}"), "ground_truth": k})).collect();
        json!({"task_name": "Last", "prompt": "p", "ground_truth": 0,
            "chain": {"distractors": stages, "target": {"task_number": n, "task_name": "Last", "ground_truth": 0}}})
    }

    #[test]
    fn the_outline_names_each_node_with_its_task_and_truth() {
        let items = outline_of(&chain(3));
        assert_eq!(items.len(), 3);
        let last = items.last().unwrap();
        assert!(last.target && last.inputs.len() == 1, "{last:?}");
        assert!(items[1].notes.iter().any(|n| n.contains("T2")) && items[1].notes.iter().any(|n| n.contains("= 2")), "{:?}", items[1]);
    }

    #[test]
    fn small_graphs_are_drawn_in_full_with_names_and_truths() {
        let Drawing::Svg { svg, nodes } = draw(&chain(4)) else { panic!("a small graph is an SVG") };
        assert_eq!(nodes, 4);
        assert!(svg.starts_with("<svg") && svg.contains("T2") && svg.contains("task_2_out = 2") && svg.contains("target"), "{svg}");
        assert!(matches!(draw(&json!({"samples": []})), Drawing::Svg { nodes: 1, .. }), "a record without stages is one task");
    }

    #[test]
    fn large_graphs_become_an_overview_with_one_path_for_all_boxes() {
        let Drawing::Overview(overview) = draw(&chain(DETAIL_NODES + 50)) else { panic!("a large graph is an overview") };
        assert_eq!(overview.boxes.len(), DETAIL_NODES + 50);
        assert_eq!(overview.edges.len(), DETAIL_NODES + 49);
        assert!(overview.boxes.last().is_some_and(|b| b.target && b.lines[0] == format!("task_{}", DETAIL_NODES + 50)));
        assert_eq!(boxes_path(&overview, |_| true).matches('M').count(), DETAIL_NODES + 50);
        assert!(edges_path(&overview).starts_with('M'));
    }

    #[test]
    fn zoom_keeps_the_point_under_the_pointer_and_labels_follow_the_zoom() {
        let view = View::fit(10_000.0, 500.0, 1_000.0, 500.0);
        assert!((view.scale - 0.1).abs() < 1e-9);
        assert!(!view.labels_shown());
        assert!(!view.zoom_at(250.0, 100.0, 8.0).labels_shown(), "8 px labels are not drawn");
        let zoomed = view.zoom_at(250.0, 100.0, 10.0);
        let before = (view.x + 250.0 / view.scale, view.y + 100.0 / view.scale);
        let after = (zoomed.x + 250.0 / zoomed.scale, zoomed.y + 100.0 / zoomed.scale);
        assert!((before.0 - after.0).abs() < 1e-6 && (before.1 - after.1).abs() < 1e-6);
        assert!(zoomed.labels_shown() && LABEL_FONT * zoomed.scale >= 11.0 - 1e-9);
        let css = include_str!("../../../style/browse.css");
        assert!(css.contains(&format!(".lod-label {{ font: {LABEL_FONT}px ")), "the stylesheet draws labels at LABEL_FONT");
        assert_eq!(view.zoom_at(0.0, 0.0, 1e9).scale, MAX_SCALE);
        let moved = zoomed.pan(80.0, 0.0);
        assert!((moved.x - (zoomed.x - 80.0)).abs() < 1e-9);
        let overview = Overview {
            width: 300.0,
            height: 50.0,
            boxes: (0..3).map(|i| OverviewBox { x: i as f64 * 100.0, y: 0.0, w: 50.0, h: 20.0, lines: vec![], target: false, adapter: false }).collect(),
            edges: vec![],
        };
        let close = View { x: 90.0, y: 0.0, scale: 1.0 };
        assert_eq!(labelled(&overview, close, close.visible(100.0, 50.0)), [1]);
        let far = View { scale: 0.1, ..close };
        assert!(labelled(&overview, far, far.visible(100.0, 50.0)).is_empty());
        assert_eq!(close.view_box(100.0, 50.0), "90.0 0.0 100.0 50.0");
    }
}
