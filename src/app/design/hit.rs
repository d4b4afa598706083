//! Hit testing in world coordinates: which port, node or edge lies under a point (nodes drawn later lie on
//! top), and which nodes a selection rectangle meets. Tolerances are in screen pixels, so ports and edges
//! stay easy to grab at every zoom.

use std::collections::HashMap;

use super::geometry::{distance_to_curve, edge_curve, node_rect, port_point, Point, PortSide, Rect, PORT_RADIUS};
use super::gesture::Hit;
use crate::engine::graph::{Node, NodeId, TaskGraph};

/// How close (screen pixels) a pointer must be to a port's centre to grab it.
pub const PORT_GRAB_PX: f64 = 11.0;
/// How close (screen pixels) a pointer must be to an edge to select it.
pub const EDGE_GRAB_PX: f64 = 6.0;

/// What lies under `world` at `zoom`: a port, else a node's box, else an edge, else the background.
pub fn hit_test(graph: &TaskGraph, world: Point, zoom: f64) -> Hit {
    let port_reach = (PORT_GRAB_PX / zoom).max(PORT_RADIUS + 2.0);
    for node in graph.nodes().iter().rev() {
        let rect = node_rect(node, Point::default());
        if !rect.inflate(port_reach).contains(world) {
            continue;
        }
        for side in [PortSide::Out, PortSide::In] {
            if port_point(&rect, side).distance(world) <= port_reach {
                return Hit::Port(node.id.clone(), side);
            }
        }
        if rect.contains(world) {
            return Hit::Node(node.id.clone());
        }
    }
    let by_id = index(graph);
    let reach = EDGE_GRAB_PX / zoom;
    for edge in graph.edges().iter().rev() {
        let (Some(from), Some(to)) = (by_id.get(&edge.source), by_id.get(&edge.destination)) else { continue };
        let curve = edge_curve(port_point(&node_rect(from, Point::default()), PortSide::Out), port_point(&node_rect(to, Point::default()), PortSide::In));
        let hull = curve.iter().fold(Rect::spanning(curve[0], curve[3]), |r, p| r.union(&Rect { x: p.x, y: p.y, width: 0.0, height: 0.0 }));
        if hull.inflate(reach).contains(world) && distance_to_curve(world, &curve) <= reach {
            return Hit::Edge(edge.source.clone(), edge.destination.clone());
        }
    }
    Hit::Background
}

/// The node whose box (or input port) is under `world`, for dropping a connection on it.
pub fn node_at(graph: &TaskGraph, world: Point, zoom: f64) -> Option<NodeId> {
    match hit_test(graph, world, zoom) {
        Hit::Port(id, _) | Hit::Node(id) => Some(id),
        Hit::Edge(..) | Hit::Background => None,
    }
}

/// The nodes whose boxes meet `rect`, in graph order.
pub fn nodes_in_rect(graph: &TaskGraph, rect: &Rect) -> Vec<NodeId> {
    graph.nodes().iter().filter(|n| node_rect(n, Point::default()).intersects(rect)).map(|n| n.id.clone()).collect()
}

/// Nodes by id (the first node with an id wins, as in `TaskGraph::node`).
pub fn index(graph: &TaskGraph) -> HashMap<&NodeId, &Node> {
    let mut map = HashMap::with_capacity(graph.nodes().len());
    for node in graph.nodes() {
        map.entry(&node.id).or_insert(node);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::design::geometry::{ADAPTER_SIZE, TASK_SIZE};
    use crate::engine::graph::{Edge, NodeKind, TaskNode};

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    /// a at (0, 0) and b at (400, 0), a -> b; c (a pick) at (0, 200).
    fn graph() -> TaskGraph {
        let task = |name: &str, x: f64, y: f64| Node { id: id(name), kind: NodeKind::Task(TaskNode::default()), position: Some((x, y)) };
        let pick = Node { id: id("c"), kind: NodeKind::Pick { index: 0 }, position: Some((0.0, 200.0)) };
        TaskGraph::from_parts(vec![task("a", 0.0, 0.0), task("b", 400.0, 0.0), pick], vec![Edge { source: id("a"), destination: id("b"), slot: None }], None)
    }

    #[test]
    fn points_hit_ports_then_boxes_then_edges_then_the_background() {
        let g = graph();
        let half = TASK_SIZE.0 / 2.0;
        let cases = [
            (Point::new(half, 0.0), Hit::Port(id("a"), PortSide::Out)),
            (Point::new(half + 5.0, 3.0), Hit::Port(id("a"), PortSide::Out)),
            (Point::new(400.0 - half, 0.0), Hit::Port(id("b"), PortSide::In)),
            (Point::new(0.0, 10.0), Hit::Node(id("a"))),
            (Point::new(ADAPTER_SIZE.0 / 2.0 - 20.0, 210.0), Hit::Node(id("c"))),
            (Point::new(200.0, 0.0), Hit::Edge(id("a"), id("b"))),
            (Point::new(200.0, 40.0), Hit::Background),
            (Point::new(-500.0, -500.0), Hit::Background),
        ];
        for (point, expected) in cases {
            assert_eq!(hit_test(&g, point, 1.0), expected, "at {point:?}");
        }
    }

    #[test]
    fn grab_distances_are_screen_pixels_so_zooming_out_widens_them_in_the_world() {
        let g = graph();
        let near_edge = Point::new(200.0, 20.0);
        assert_eq!(hit_test(&g, near_edge, 1.0), Hit::Background);
        assert_eq!(hit_test(&g, near_edge, 0.25), Hit::Edge(id("a"), id("b")));
    }

    #[test]
    fn the_node_drawn_last_wins_where_boxes_overlap() {
        let task = |name: &str, x: f64| Node { id: id(name), kind: NodeKind::Task(TaskNode::default()), position: Some((x, 0.0)) };
        let g = TaskGraph::from_parts(vec![task("under", 0.0), task("over", 20.0)], vec![], None);
        assert_eq!(hit_test(&g, Point::new(10.0, 0.0), 1.0), Hit::Node(id("over")));
        assert_eq!(node_at(&g, Point::new(10.0, 0.0), 1.0), Some(id("over")));
    }

    #[test]
    fn a_selection_rectangle_takes_every_box_it_touches() {
        let g = graph();
        assert_eq!(nodes_in_rect(&g, &Rect::spanning(Point::new(-10.0, -10.0), Point::new(10.0, 300.0))), vec![id("a"), id("c")]);
        assert_eq!(nodes_in_rect(&g, &Rect::spanning(Point::new(150.0, 100.0), Point::new(250.0, 120.0))), Vec::<NodeId>::new());
    }
}
