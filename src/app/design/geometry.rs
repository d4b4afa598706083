//! World geometry of the canvas: points, rectangles, the fixed box of each kind of node (its position is
//! its centre), where its ports sit, and the curve an edge follows from an output port to an input port.

use crate::engine::graph::{Node, NodeKind};

/// A point in world or screen units.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    /// The point `(x, y)`.
    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Distance to `other`.
    pub fn distance(self, other: Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

/// An axis-aligned rectangle: top-left corner and size (never negative).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    /// The rectangle spanned by two corners, in any order.
    pub fn spanning(a: Point, b: Point) -> Rect {
        Rect { x: a.x.min(b.x), y: a.y.min(b.y), width: (a.x - b.x).abs(), height: (a.y - b.y).abs() }
    }

    /// The rectangle of the given size centred on `center`.
    pub fn centered(center: Point, width: f64, height: f64) -> Rect {
        Rect { x: center.x - width / 2.0, y: center.y - height / 2.0, width, height }
    }

    /// The centre.
    pub fn center(&self) -> Point {
        Point::new(self.x + self.width / 2.0, self.y + self.height / 2.0)
    }

    /// The right edge.
    pub fn right(&self) -> f64 {
        self.x + self.width
    }

    /// The bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }

    /// True when `p` is inside or on the border.
    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.x && p.x <= self.right() && p.y >= self.y && p.y <= self.bottom()
    }

    /// True when the two rectangles overlap (touching counts).
    pub fn intersects(&self, other: &Rect) -> bool {
        self.x <= other.right() && other.x <= self.right() && self.y <= other.bottom() && other.y <= self.bottom()
    }

    /// True when `other` lies wholly inside.
    pub fn encloses(&self, other: &Rect) -> bool {
        other.x >= self.x && other.right() <= self.right() && other.y >= self.y && other.bottom() <= self.bottom()
    }

    /// The smallest rectangle holding both.
    pub fn union(&self, other: &Rect) -> Rect {
        let x = self.x.min(other.x);
        let y = self.y.min(other.y);
        Rect { x, y, width: self.right().max(other.right()) - x, height: self.bottom().max(other.bottom()) - y }
    }

    /// Grown by `margin` on every side.
    pub fn inflate(&self, margin: f64) -> Rect {
        Rect { x: self.x - margin, y: self.y - margin, width: self.width + 2.0 * margin, height: self.height + 2.0 * margin }
    }
}

/// Size of a task node's box.
pub const TASK_SIZE: (f64, f64) = (184.0, 66.0);
/// Size of an adapter node's box (pick, pack, unknown).
pub const ADAPTER_SIZE: (f64, f64) = (112.0, 44.0);
/// Radius of a port's symbol.
pub const PORT_RADIUS: f64 = 6.0;

/// A node's box size.
pub fn node_size(kind: &NodeKind) -> (f64, f64) {
    match kind {
        NodeKind::Task(_) => TASK_SIZE,
        _ => ADAPTER_SIZE,
    }
}

/// A node's centre (the origin when it has no position yet).
pub fn node_center(node: &Node) -> Point {
    node.position.map(|(x, y)| Point::new(x, y)).unwrap_or_default()
}

/// A node's box, shifted by `offset` (a drag in progress).
pub fn node_rect(node: &Node, offset: Point) -> Rect {
    let (width, height) = node_size(&node.kind);
    let c = node_center(node);
    Rect::centered(Point::new(c.x + offset.x, c.y + offset.y), width, height)
}

/// The two ports of a node: values come in on the left, go out on the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortSide {
    In,
    Out,
}

impl PortSide {
    /// The value of the `data-port` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            PortSide::In => "in",
            PortSide::Out => "out",
        }
    }
}

/// Where a port of a node with box `rect` sits.
pub fn port_point(rect: &Rect, side: PortSide) -> Point {
    let y = rect.y + rect.height / 2.0;
    match side {
        PortSide::In => Point::new(rect.x, y),
        PortSide::Out => Point::new(rect.right(), y),
    }
}

/// The cubic curve of an edge from an output port to an input port: `[start, control, control, end]`.
/// Edges leave to the right and arrive from the left, also when the target lies behind the source.
pub fn edge_curve(from: Point, to: Point) -> [Point; 4] {
    let pull = ((to.x - from.x).abs() * 0.5).clamp(40.0, 160.0);
    [from, Point::new(from.x + pull, from.y), Point::new(to.x - pull, to.y), to]
}

/// A point on a cubic curve at parameter `t` in [0, 1].
pub fn curve_point(c: &[Point; 4], t: f64) -> Point {
    let u = 1.0 - t;
    let (a, b, d, e) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    Point::new(a * c[0].x + b * c[1].x + d * c[2].x + e * c[3].x, a * c[0].y + b * c[1].y + d * c[2].y + e * c[3].y)
}

/// Distance from `p` to the curve, measured along 24 chords.
pub fn distance_to_curve(p: Point, c: &[Point; 4]) -> f64 {
    const STEPS: usize = 24;
    let mut best = f64::INFINITY;
    let mut prev = c[0];
    for i in 1..=STEPS {
        let next = curve_point(c, i as f64 / STEPS as f64);
        best = best.min(distance_to_segment(p, prev, next));
        prev = next;
    }
    best
}

/// Distance from `p` to the segment `a`–`b`.
pub fn distance_to_segment(p: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 { 0.0 } else { (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0) };
    p.distance(Point::new(a.x + t * dx, a.y + t * dy))
}

/// The bounding box of the nodes' boxes (`None` for no nodes).
pub fn bounds<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> Option<Rect> {
    nodes.into_iter().map(|n| node_rect(n, Point::default())).reduce(|a, b| a.union(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{NodeId, TaskNode};

    fn node(kind: NodeKind, x: f64, y: f64) -> Node {
        Node { id: NodeId("n".into()), kind, position: Some((x, y)) }
    }

    #[test]
    fn boxes_are_centred_on_positions_with_ports_on_the_sides() {
        let task = node(NodeKind::Task(TaskNode::default()), 100.0, 50.0);
        let rect = node_rect(&task, Point::default());
        assert_eq!(rect.center(), Point::new(100.0, 50.0));
        assert_eq!((rect.width, rect.height), TASK_SIZE);
        assert_eq!(port_point(&rect, PortSide::In), Point::new(100.0 - TASK_SIZE.0 / 2.0, 50.0));
        assert_eq!(port_point(&rect, PortSide::Out), Point::new(100.0 + TASK_SIZE.0 / 2.0, 50.0));
        let moved = node_rect(&task, Point::new(10.0, -5.0));
        assert_eq!(moved.center(), Point::new(110.0, 45.0));
        let pick = node(NodeKind::Pick { index: 0 }, 0.0, 0.0);
        assert_eq!(node_rect(&pick, Point::default()).width, ADAPTER_SIZE.0);
    }

    #[test]
    fn rectangles_span_intersect_enclose_and_unite() {
        let a = Rect::spanning(Point::new(10.0, 10.0), Point::new(0.0, 0.0));
        assert_eq!(a, Rect { x: 0.0, y: 0.0, width: 10.0, height: 10.0 });
        let b = Rect { x: 5.0, y: 5.0, width: 10.0, height: 10.0 };
        let c = Rect { x: 20.0, y: 0.0, width: 1.0, height: 1.0 };
        assert!(a.intersects(&b) && !a.intersects(&c));
        assert!(a.union(&b).encloses(&a) && a.union(&b).encloses(&b));
        assert!(!a.encloses(&b));
        assert!(a.contains(Point::new(10.0, 0.0)) && !a.contains(Point::new(10.1, 0.0)));
        assert_eq!(a.inflate(2.0).width, 14.0);
    }

    #[test]
    fn curves_start_and_end_at_their_ports_and_distances_are_measured_to_them() {
        let curve = edge_curve(Point::new(0.0, 0.0), Point::new(200.0, 100.0));
        assert_eq!(curve_point(&curve, 0.0), Point::new(0.0, 0.0));
        assert_eq!(curve_point(&curve, 1.0), Point::new(200.0, 100.0));
        assert!(distance_to_curve(Point::new(100.0, 50.0), &curve) < 1.0, "the middle of a symmetric curve");
        assert!(distance_to_curve(Point::new(100.0, 0.0), &curve) > 20.0);
        assert_eq!(distance_to_segment(Point::new(5.0, 5.0), Point::new(0.0, 0.0), Point::new(10.0, 0.0)), 5.0);
        assert_eq!(distance_to_segment(Point::new(-3.0, 4.0), Point::new(0.0, 0.0), Point::new(0.0, 0.0)), 5.0);
    }

    #[test]
    fn bounds_cover_every_box_and_are_none_for_no_nodes() {
        let nodes = [node(NodeKind::Pack, 0.0, 0.0), node(NodeKind::Task(TaskNode::default()), 500.0, 300.0)];
        let b = bounds(&nodes).unwrap();
        assert_eq!(b.x, -ADAPTER_SIZE.0 / 2.0);
        assert_eq!(b.bottom(), 300.0 + TASK_SIZE.1 / 2.0);
        assert_eq!(bounds(&[]), None);
    }
}
