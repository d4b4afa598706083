//! "Tidy up" and first placement: the engine's layered layout (ranks left to right, crossings reduced)
//! mapped onto the canvas's fixed boxes: one column per rank, each column's nodes in the layout's order at
//! the layout's heights, pushed apart where the canvas boxes would touch.

use std::collections::BTreeMap;

use super::geometry::{node_size, Point, TASK_SIZE};
use crate::engine::graph::{GraphEdit, NodeId, TaskGraph};
use crate::engine::render::{layout, Direction, LayoutOptions, RenderError};
use crate::engine::sort;

/// Horizontal distance between two rank columns' centres.
pub const COLUMN_PITCH: f64 = TASK_SIZE.0 + 72.0;
/// Smallest free space between two boxes of a column.
pub const ROW_GAP: f64 = 18.0;

/// A tidy position (centre) for every node, in graph order.
pub fn arrange(graph: &TaskGraph) -> Result<Vec<(NodeId, Point)>, RenderError> {
    // The layout's boxes are lower than the canvas's: a wider gap keeps its order and spacing usable as is.
    let options = LayoutOptions { direction: Direction::LeftToRight, node_gap: ROW_GAP + 22.0, rank_gap: 64.0, node_notes: BTreeMap::new() };
    let placed = layout(graph, &options)?;
    let mut columns: BTreeMap<usize, Vec<(f64, usize)>> = BTreeMap::new();
    for (i, b) in placed.nodes.iter().enumerate() {
        columns.entry(b.rank).or_default().push((b.y + b.height / 2.0, i));
    }
    let mut centres = vec![Point::default(); graph.nodes().len()];
    for (rank, mut column) in columns {
        sort::by(&mut column, |a, b| a.0.total_cmp(&b.0));
        let mut previous: Option<(f64, f64)> = None;
        for (y, i) in column {
            let height = node_size(&graph.nodes()[i].kind).1;
            let y = match previous {
                Some((prev_y, prev_h)) => y.max(prev_y + (prev_h + height) / 2.0 + ROW_GAP),
                None => y,
            };
            previous = Some((y, height));
            centres[i] = Point::new(rank as f64 * COLUMN_PITCH, y.round());
        }
    }
    Ok(graph.nodes().iter().zip(centres).map(|(n, p)| (n.id.clone(), p)).collect())
}

/// The edit moving every node to its tidy position (only the nodes that move).
pub fn tidy_edit(graph: &TaskGraph) -> Result<GraphEdit, RenderError> {
    let moves = arrange(graph)?
        .into_iter()
        .zip(graph.nodes())
        .filter(|((_, p), node)| node.position != Some((p.x, p.y)))
        .map(|((id, p), _)| GraphEdit::Move { id, x: p.x, y: p.y })
        .collect();
    Ok(GraphEdit::Batch(moves))
}

/// `graph` with a position for every node: unchanged when all have one, otherwise tidied whole (a graph
/// drawn half by hand and half by the layout would look worse than either).
pub fn with_positions(mut graph: TaskGraph) -> Result<TaskGraph, RenderError> {
    if graph.nodes().iter().all(|n| n.position.is_some()) {
        return Ok(graph);
    }
    let edit = tidy_edit(&graph)?;
    // Every id in the edit came from this graph, so the moves cannot be refused.
    graph.apply(edit).map_err(|e| RenderError::UnknownNode(e.to_string(), String::new()))?;
    Ok(graph)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::design::geometry::{node_rect, Rect};
    use crate::engine::graph::from_json_str;

    fn reference(name: &str) -> TaskGraph {
        let text = match name {
            "dag200" => include_str!("../../../tests/fixtures/reference/dag200_mixed.json"),
            _ => include_str!("../../../tests/fixtures/reference/branched_test.json"),
        };
        from_json_str(text).expect("the reference graphs parse")
    }

    fn boxes(graph: &TaskGraph) -> Vec<Rect> {
        graph.nodes().iter().map(|n| node_rect(n, Point::default())).collect()
    }

    #[test]
    fn tidy_positions_never_overlap_and_edges_run_left_to_right() {
        for name in ["branched", "dag200"] {
            let graph = with_positions(reference(name)).unwrap();
            let rects = boxes(&graph);
            let mut sorted: Vec<&Rect> = rects.iter().collect();
            sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
            for (i, a) in sorted.iter().enumerate() {
                for b in sorted[i + 1..].iter().take_while(|b| b.x <= a.right()) {
                    assert!(!a.inflate(-0.5).intersects(&b.inflate(-0.5)), "{name}: {a:?} overlaps {b:?}");
                }
            }
            for edge in graph.edges() {
                let (from, to) = (graph.node(&edge.source).unwrap(), graph.node(&edge.destination).unwrap());
                assert!(from.position.unwrap().0 < to.position.unwrap().0, "{name}: {} -> {} runs left to right", edge.source, edge.destination);
            }
        }
    }

    #[test]
    fn placed_graphs_keep_their_positions_and_a_tidy_graph_needs_no_moves() {
        let placed = with_positions(reference("branched")).unwrap();
        assert_eq!(with_positions(placed.clone()).unwrap(), placed);
        assert_eq!(tidy_edit(&placed).unwrap(), GraphEdit::Batch(vec![]));
    }

    #[test]
    fn an_empty_graph_cannot_be_tidied() {
        assert_eq!(arrange(&TaskGraph::new()), Err(RenderError::Empty));
    }
}
