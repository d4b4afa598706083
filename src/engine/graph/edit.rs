//! Graph edits: the one way the designer changes a graph, rejecting edits that could never be valid
//! (unknown nodes, duplicate ids, cycles, kind mismatches between known kinds).

use super::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};

/// One change to a graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphEdit {
    /// Adds a node (its id must be new).
    AddNode(Node),
    /// Removes a node and its edges (and clears the target if it was the target).
    RemoveNode(NodeId),
    /// Connects two nodes; `slot` is for pack inputs (defaults to the next free slot).
    Connect { from: NodeId, to: NodeId, slot: Option<i64> },
    /// Removes the edge between two nodes.
    Disconnect { from: NodeId, to: NodeId },
    /// Makes a task node the target.
    SetTarget(NodeId),
    /// Replaces a task node's settings.
    UpdateTask { id: NodeId, task: TaskNode },
    /// Changes a pick adapter's index.
    SetPickIndex { id: NodeId, index: i64 },
    /// Moves a node in the designer.
    Move { id: NodeId, x: f64, y: f64 },
}

/// Why an edit was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    #[error("no node `{0}`")]
    UnknownNode(NodeId),
    #[error("a node `{0}` already exists")]
    DuplicateId(NodeId),
    #[error("connecting {from} to {to} would create a cycle ({})", path.iter().map(|n| n.0.as_str()).collect::<Vec<_>>().join(" -> "))]
    WouldCreateCycle { from: NodeId, to: NodeId, path: Vec<NodeId> },
    #[error("{from} is already connected to {to}")]
    DuplicateEdge { from: NodeId, to: NodeId },
    #[error("{from} outputs a {found}, but {to} takes a {expected}")]
    KindMismatch { from: NodeId, to: NodeId, expected: String, found: String },
    #[error("{0} is not a {1} node")]
    WrongNodeKind(NodeId, &'static str),
}

impl TaskGraph {
    /// Applies an edit, or leaves the graph unchanged and says why not.
    pub fn apply(&mut self, edit: GraphEdit) -> Result<(), EditError> {
        match edit {
            GraphEdit::AddNode(node) => {
                if self.node(&node.id).is_some() {
                    return Err(EditError::DuplicateId(node.id));
                }
                self.nodes.push(node);
            }
            GraphEdit::RemoveNode(id) => {
                let i = self.index_of(&id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                self.nodes.remove(i);
                self.edges.retain(|e| e.source != id && e.destination != id);
                if self.target.as_ref() == Some(&id) {
                    self.target = None;
                }
            }
            GraphEdit::Connect { from, to, slot } => {
                let to_node = self.node(&to).ok_or_else(|| EditError::UnknownNode(to.clone()))?;
                let from_node = self.node(&from).ok_or_else(|| EditError::UnknownNode(from.clone()))?;
                if self.edges.iter().any(|e| e.source == from && e.destination == to) {
                    return Err(EditError::DuplicateEdge { from, to });
                }
                if let (Some(found), Some(expected)) = (produces(from_node), consumes(to_node)) {
                    if found != expected {
                        return Err(EditError::KindMismatch { from, to, expected: expected.into(), found: found.into() });
                    }
                }
                if let Some(path) = self.path(&to, &from) {
                    return Err(EditError::WouldCreateCycle { from, to, path });
                }
                let slot = match (&to_node.kind, slot) {
                    (NodeKind::Pack, None) => Some(self.edges.iter().filter(|e| e.destination == to).count() as i64),
                    (_, slot) => slot,
                };
                self.edges.push(Edge { source: from, destination: to, slot });
            }
            GraphEdit::Disconnect { from, to } => {
                let before = self.edges.len();
                self.edges.retain(|e| !(e.source == from && e.destination == to));
                if self.edges.len() == before {
                    return Err(EditError::UnknownNode(to));
                }
                // Keep pack slots dense.
                if matches!(self.node(&to).map(|n| &n.kind), Some(NodeKind::Pack)) {
                    for (slot, edge) in self.edges.iter_mut().filter(|e| e.destination == to).enumerate() {
                        edge.slot = Some(slot as i64);
                    }
                }
            }
            GraphEdit::SetTarget(id) => match self.node(&id).map(|n| &n.kind) {
                None => return Err(EditError::UnknownNode(id)),
                Some(NodeKind::Task(_)) => self.target = Some(id),
                Some(_) => return Err(EditError::WrongNodeKind(id, "task")),
            },
            GraphEdit::UpdateTask { id, task } => {
                let node = self.nodes.iter_mut().find(|n| n.id == id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                match &mut node.kind {
                    NodeKind::Task(existing) => *existing = task,
                    _ => return Err(EditError::WrongNodeKind(id, "task")),
                }
            }
            GraphEdit::SetPickIndex { id, index } => {
                let node = self.nodes.iter_mut().find(|n| n.id == id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                match &mut node.kind {
                    NodeKind::Pick { index: existing } => *existing = index,
                    _ => return Err(EditError::WrongNodeKind(id, "pick")),
                }
            }
            GraphEdit::Move { id, x, y } => {
                let node = self.nodes.iter_mut().find(|n| n.id == id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                node.position = Some((x, y));
            }
        }
        Ok(())
    }

    /// A path `from ->* to` along edges, if one exists (iterative search).
    fn path(&self, from: &NodeId, to: &NodeId) -> Option<Vec<NodeId>> {
        let mut parent: std::collections::HashMap<&NodeId, &NodeId> = std::collections::HashMap::new();
        let mut stack = vec![from];
        let mut seen = std::collections::HashSet::from([from]);
        while let Some(node) = stack.pop() {
            if node == to {
                let mut path = vec![to.clone()];
                let mut at = to;
                while let Some(p) = parent.get(at) {
                    path.push((*p).clone());
                    at = p;
                }
                path.reverse();
                return Some(path);
            }
            for edge in self.edges.iter().filter(|e| &e.source == node) {
                if seen.insert(&edge.destination) {
                    parent.insert(&edge.destination, node);
                    stack.push(&edge.destination);
                }
            }
        }
        None
    }
}

fn produces(node: &Node) -> Option<&'static str> {
    match &node.kind {
        NodeKind::Task(task) => task.output_kind().map(|k| k.as_str()),
        NodeKind::Pick { .. } => Some("scalar"),
        NodeKind::Pack => Some("list"),
        NodeKind::Unknown { .. } => None,
    }
}

fn consumes(node: &Node) -> Option<&'static str> {
    match &node.kind {
        NodeKind::Task(task) => task.input_kind().map(|k| k.as_str()),
        NodeKind::Pick { .. } => Some("list"),
        NodeKind::Pack => Some("scalar"),
        NodeKind::Unknown { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, input: &str, output: &str) -> GraphEdit {
        GraphEdit::AddNode(Node {
            id: NodeId(id.into()),
            kind: NodeKind::Task(TaskNode { family: "math".into(), task_id: None, input_kind: Some(input.into()), output_kind: Some(output.into()) }),
            position: None,
        })
    }

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    #[test]
    fn edit_rejects_cycles_and_kind_mismatches() {
        let mut g = TaskGraph::new();
        g.apply(task("a", "scalar", "scalar")).unwrap();
        g.apply(task("b", "scalar", "scalar")).unwrap();
        g.apply(task("c", "list", "scalar")).unwrap();
        g.apply(GraphEdit::Connect { from: id("a"), to: id("b"), slot: None }).unwrap();
        let cycle = g.apply(GraphEdit::Connect { from: id("b"), to: id("a"), slot: None }).unwrap_err();
        assert_eq!(cycle, EditError::WouldCreateCycle { from: id("b"), to: id("a"), path: vec![id("a"), id("b")] });
        assert!(matches!(g.apply(GraphEdit::Connect { from: id("a"), to: id("c"), slot: None }), Err(EditError::KindMismatch { .. })));
        assert_eq!(g.apply(task("a", "list", "list")), Err(EditError::DuplicateId(id("a"))));
        assert_eq!(g.edges.len(), 1, "refused edits leave the graph unchanged");
    }

    #[test]
    fn removing_a_node_drops_its_edges_and_target() {
        let mut g = TaskGraph::new();
        g.apply(task("a", "scalar", "scalar")).unwrap();
        g.apply(task("b", "scalar", "scalar")).unwrap();
        g.apply(GraphEdit::Connect { from: id("a"), to: id("b"), slot: None }).unwrap();
        g.apply(GraphEdit::SetTarget(id("b"))).unwrap();
        g.apply(GraphEdit::RemoveNode(id("b"))).unwrap();
        assert!(g.edges.is_empty());
        assert_eq!(g.target, None);
    }
}
