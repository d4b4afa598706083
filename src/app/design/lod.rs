//! Level-of-detail decisions: past `LOD_THRESHOLD` nodes the canvas draws only what lies in a window around
//! the viewport; at every size it draws less of each node the further it is zoomed out, so that no text is
//! ever drawn below `MIN_TEXT_PX` CSS pixels (boxes without text, then titles, then everything; the graph
//! outline names what the boxes no longer say). The window is quantised (cells of a viewport's size at a
//! half-octave zoom step), so small pans and zooms keep the same drawing and cost nothing.

use super::geometry::{node_rect, Point, Rect};
use super::viewport::Viewport;
use crate::engine::graph::TaskGraph;

/// Graphs up to this many nodes are drawn whole and in full detail at every zoom.
pub const LOD_THRESHOLD: usize = 300;
/// The smallest text the canvas draws, in CSS pixels on screen (font size × zoom).
pub const MIN_TEXT_PX: f64 = 11.0;
/// Font size (world units, `style/design.css`) of a node's title, the target flag and the problem badge.
pub const TITLE_FONT: f64 = 12.5;
/// Font size of the smallest canvas text: a node's family/task and kinds lines, an edge's slot.
pub const SMALL_FONT: f64 = 11.0;
/// From this zoom on, every canvas text reaches `MIN_TEXT_PX`: nodes are drawn in full.
pub const FULL_ZOOM: f64 = MIN_TEXT_PX / SMALL_FONT;
/// From this zoom on (and below `FULL_ZOOM`) titles reach `MIN_TEXT_PX`: nodes show their title, the target
/// flag and the problem badge; below it, boxes without text. Fit never zooms out past it.
pub const TITLE_ZOOM: f64 = MIN_TEXT_PX / TITLE_FONT;

/// How much of each node is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Detail {
    /// Box, ports, title, family and task, kinds, badges.
    Full,
    /// Box, ports, title, target flag and problem badge.
    Title,
    /// Box and ports, no text.
    Box,
}

/// What the canvas draws: a world window (`None`: everything) and a detail level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawWindow {
    pub rect: Option<Rect>,
    pub detail: Detail,
}

/// The detail level at `zoom`, whatever the graph's size: the most that keeps every drawn text legible.
pub fn detail(zoom: f64) -> Detail {
    // A hair of tolerance: a zoom computed as 11 / 12.5 must count as reaching it.
    if zoom >= FULL_ZOOM - 1e-9 {
        Detail::Full
    } else if zoom >= TITLE_ZOOM - 1e-9 {
        Detail::Title
    } else {
        Detail::Box
    }
}

/// The window to draw for a graph of `nodes` nodes seen through `view`: everything for small graphs;
/// for big ones the viewport grown by one quantised cell (a quarter of a screen) on each side, so the
/// drawing is at most about three screens' worth and survives pans of up to a quarter screen.
pub fn window(nodes: usize, view: &Viewport) -> DrawWindow {
    let detail = detail(view.zoom);
    if nodes <= LOD_THRESHOLD {
        return DrawWindow { rect: None, detail };
    }
    // Half-octave zoom steps: the cell size changes only when the zoom crosses a step.
    let step = (view.zoom.log2() * 2.0).floor() / 2.0;
    let scale = 2f64.powf(step);
    let (cw, ch) = (view.width / scale / 4.0, view.height / scale / 4.0);
    let visible = view.visible();
    let x0 = (visible.x / cw).floor() * cw - cw;
    let y0 = (visible.y / ch).floor() * ch - ch;
    let x1 = ((visible.x + visible.width) / cw).ceil() * cw + cw;
    let y1 = ((visible.y + visible.height) / ch).ceil() * ch + ch;
    DrawWindow { rect: Some(Rect::spanning(Point::new(x0, y0), Point::new(x1, y1))), detail }
}

/// Indices of the nodes to draw in `window`, in graph order.
pub fn visible_nodes(graph: &TaskGraph, window: &DrawWindow) -> Vec<usize> {
    match &window.rect {
        None => (0..graph.nodes().len()).collect(),
        Some(rect) => graph.nodes().iter().enumerate().filter(|(_, n)| node_rect(n, Point::default()).intersects(rect)).map(|(i, _)| i).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{Node, NodeId, NodeKind, TaskNode};

    /// A grid of `n` tasks, 250 apart, 10 per row.
    fn grid(n: usize) -> TaskGraph {
        let nodes = (0..n)
            .map(|i| Node { id: NodeId(format!("n{i}")), kind: NodeKind::Task(TaskNode::default()), position: Some(((i % 10) as f64 * 250.0, (i / 10) as f64 * 250.0)) })
            .collect();
        TaskGraph::from_parts(nodes, vec![], None)
    }

    #[test]
    fn small_graphs_are_drawn_whole_at_any_zoom() {
        for zoom in [0.02, 0.2, 1.0, 4.0] {
            let view = Viewport { zoom, ..Viewport::default() };
            assert_eq!(window(LOD_THRESHOLD, &view).rect, None);
        }
        assert_eq!(visible_nodes(&grid(40), &window(40, &Viewport::default())).len(), 40);
    }

    #[test]
    fn text_is_dropped_before_it_would_be_drawn_under_11_px() {
        let cases = [(4.0, Detail::Full), (1.0, Detail::Full), (0.99, Detail::Title), (0.88, Detail::Title), (0.87, Detail::Box), (0.3, Detail::Box), (0.02, Detail::Box)];
        for (zoom, expected) in cases {
            assert_eq!(detail(zoom), expected, "zoom {zoom}");
            assert_eq!(window(12, &Viewport { zoom, ..Viewport::default() }).detail, expected, "a small graph at zoom {zoom}");
            let smallest = match expected {
                Detail::Full => Some(SMALL_FONT * zoom),
                Detail::Title => Some(TITLE_FONT * zoom),
                Detail::Box => None,
            };
            assert!(smallest.is_none_or(|px| px >= 10.999), "zoom {zoom}: text of {smallest:?} px");
        }
    }

    #[test]
    fn big_graphs_draw_only_the_nodes_near_the_viewport() {
        let g = grid(1000);
        let view = Viewport { origin: Point::new(0.0, 0.0), zoom: 1.0, width: 800.0, height: 600.0 };
        let w = window(1000, &view);
        let drawn = visible_nodes(&g, &w);
        assert!(!drawn.is_empty() && drawn.len() < 100, "{} nodes drawn", drawn.len());
        let rect = w.rect.unwrap();
        assert!(rect.encloses(&view.visible()), "the window covers the viewport");
        let zoomed_out = Viewport { zoom: 0.02, ..view };
        assert_eq!(visible_nodes(&g, &window(1000, &zoomed_out)).len(), 1000, "zoomed out, everything is in view");
    }

    #[test]
    fn small_pans_and_zooms_keep_the_same_window() {
        let view = Viewport { origin: Point::new(10.0, 10.0), zoom: 1.0, width: 800.0, height: 600.0 };
        let w = window(1000, &view);
        let mut panned = view;
        panned.pan_by(-30.0, -20.0);
        let area = |r: Rect| r.width * r.height;
        assert!(area(w.rect.unwrap()) <= 3.5 * area(view.visible()), "the window is a few screens at most");
        assert_eq!(window(1000, &panned), w);
        let mut zoomed = view;
        zoomed.zoom_at(Point::new(400.0, 300.0), 1.1);
        assert_eq!(window(1000, &zoomed).detail, w.detail);
        let mut far = view;
        far.pan_by(-400.0, 0.0);
        assert_ne!(window(1000, &far), w, "a long pan moves the window");
    }
}
