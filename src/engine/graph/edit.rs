//! Graph edits: the one way a graph changes, rejecting edits that could never be valid (unknown nodes,
//! duplicate ids, cycles, kind mismatches between known kinds, a second input into a one-input node), and
//! recording for every edit made what undoes it exactly.

use std::collections::HashMap;

use super::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::tasks::image::ImageParams;

/// One change to a graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphEdit {
    /// Adds a node at the end of the node list (its id must be new).
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
    /// Adds nodes at the end of the node list and edges at the end of the edge list, as they are (a paste):
    /// node ids must be new and edges must join known nodes; kinds, cycles and inputs are left to validation,
    /// as for an imported file.
    Insert { nodes: Vec<Node>, edges: Vec<Edge> },
    /// Several edits made in order as one: either all of them are made or, when one is refused, none.
    Batch(Vec<GraphEdit>),
    /// Replaces the whole graph (an import or a preset); it is taken as it is, problems and all.
    Replace(Box<TaskGraph>),
    /// Sets (or, with `None`, clears) the picture parameters of the graph's image tasks. Ranges are the
    /// caller's to check; validation reports a combination that cannot be drawn.
    SetImageParams(Option<ImageParams>),
    /// Replaces the graph's own Python functions (their sources; task nodes pin them by name).
    SetFunctions(Vec<String>),
}

/// Why an edit was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    #[error("no node `{0}`")]
    UnknownNode(NodeId),
    #[error("a node `{0}` already exists")]
    DuplicateId(NodeId),
    #[error("connecting {from} to {to} would create a cycle ({} -> {to})", path.iter().map(|n| n.0.as_str()).collect::<Vec<_>>().join(" -> "))]
    WouldCreateCycle { from: NodeId, to: NodeId, path: Vec<NodeId> },
    #[error("{from} is already connected to {to}")]
    DuplicateEdge { from: NodeId, to: NodeId },
    #[error("{from} outputs a {found}, but {to} takes a {expected}")]
    KindMismatch { from: NodeId, to: NodeId, expected: String, found: String },
    #[error("input already taken: {to} takes its one input from {taken_by} (use a pack adapter to combine values)")]
    InputTaken { to: NodeId, taken_by: NodeId },
    #[error("{from} is not connected to {to}")]
    NoEdge { from: NodeId, to: NodeId },
    #[error("{0} is not a {1} node")]
    WrongNodeKind(NodeId, &'static str),
}

/// What undoes one applied edit exactly, node and edge order included. Only `TaskGraph::apply_revertible`
/// makes one, and it is meant for the graph it came from, in the state that edit left it in.
#[derive(Clone, Debug, PartialEq)]
pub struct Revert(Step);

#[derive(Clone, Debug, PartialEq)]
enum Step {
    RemoveLastNode,
    RestoreNode { index: usize, node: Node, edges: Vec<(usize, Edge)>, was_target: bool },
    RemoveLastEdge,
    Truncate { nodes: usize, edges: usize },
    RestoreEdges(Vec<Edge>),
    SetTarget(Option<NodeId>),
    SetImageParams(Option<ImageParams>),
    SetFunctions(Vec<String>),
    SetKind { index: usize, kind: NodeKind },
    SetPosition { index: usize, position: Option<(f64, f64)> },
    Batch(Vec<Step>),
    Replace(Box<TaskGraph>),
}

impl Revert {
    /// True when the edit changed nothing but node positions (a move, or a batch of moves).
    pub fn is_move_only(&self) -> bool {
        fn moves(step: &Step) -> bool {
            match step {
                Step::SetPosition { .. } => true,
                Step::Batch(steps) => steps.iter().all(moves),
                _ => false,
            }
        }
        moves(&self.0)
    }
}

impl TaskGraph {
    /// Applies an edit, or leaves the graph unchanged and says why not.
    pub fn apply(&mut self, edit: GraphEdit) -> Result<(), EditError> {
        self.apply_revertible(edit).map(drop)
    }

    /// Applies an edit and returns what undoes it, or leaves the graph unchanged and says why not.
    pub fn apply_revertible(&mut self, edit: GraphEdit) -> Result<Revert, EditError> {
        self.step(edit).map(Revert)
    }

    /// Undoes an edit made by `apply_revertible` on this graph (the latest one not yet undone).
    pub fn revert(&mut self, revert: Revert) {
        self.undo_step(revert.0);
    }

    fn step(&mut self, edit: GraphEdit) -> Result<Step, EditError> {
        Ok(match edit {
            GraphEdit::AddNode(node) => {
                if self.node(&node.id).is_some() {
                    return Err(EditError::DuplicateId(node.id));
                }
                self.nodes.push(node);
                Step::RemoveLastNode
            }
            GraphEdit::RemoveNode(id) => {
                let index = self.index_of(&id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                let node = self.nodes.remove(index);
                let mut edges = Vec::new();
                let mut kept = Vec::with_capacity(self.edges.len());
                for (i, edge) in std::mem::take(&mut self.edges).into_iter().enumerate() {
                    if edge.source == id || edge.destination == id {
                        edges.push((i, edge));
                    } else {
                        kept.push(edge);
                    }
                }
                self.edges = kept;
                let was_target = self.target.as_ref() == Some(&id);
                if was_target {
                    self.target = None;
                }
                Step::RestoreNode { index, node, edges, was_target }
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
                if matches!(to_node.kind, NodeKind::Task(_) | NodeKind::Pick { .. }) {
                    if let Some(taken) = self.edges.iter().find(|e| e.destination == to) {
                        return Err(EditError::InputTaken { to, taken_by: taken.source.clone() });
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
                Step::RemoveLastEdge
            }
            GraphEdit::Disconnect { from, to } => {
                if !self.edges.iter().any(|e| e.source == from && e.destination == to) {
                    return Err(EditError::NoEdge { from, to });
                }
                let before = self.edges.clone();
                self.edges.retain(|e| !(e.source == from && e.destination == to));
                // Keep pack slots dense.
                if matches!(self.node(&to).map(|n| &n.kind), Some(NodeKind::Pack)) {
                    for (slot, edge) in self.edges.iter_mut().filter(|e| e.destination == to).enumerate() {
                        edge.slot = Some(slot as i64);
                    }
                }
                Step::RestoreEdges(before)
            }
            GraphEdit::SetTarget(id) => match self.node(&id).map(|n| &n.kind) {
                None => return Err(EditError::UnknownNode(id)),
                Some(NodeKind::Task(_)) => Step::SetTarget(self.target.replace(id)),
                Some(_) => return Err(EditError::WrongNodeKind(id, "task")),
            },
            GraphEdit::UpdateTask { id, task } => {
                let index = self.index_of(&id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                let node = &mut self.nodes[index];
                match &node.kind {
                    NodeKind::Task(_) => Step::SetKind { index, kind: std::mem::replace(&mut node.kind, NodeKind::Task(task)) },
                    _ => return Err(EditError::WrongNodeKind(id, "task")),
                }
            }
            GraphEdit::SetPickIndex { id, index: pick } => {
                let index = self.index_of(&id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                let node = &mut self.nodes[index];
                match &node.kind {
                    NodeKind::Pick { .. } => Step::SetKind { index, kind: std::mem::replace(&mut node.kind, NodeKind::Pick { index: pick }) },
                    _ => return Err(EditError::WrongNodeKind(id, "pick")),
                }
            }
            GraphEdit::Move { id, x, y } => {
                let index = self.index_of(&id).ok_or_else(|| EditError::UnknownNode(id.clone()))?;
                Step::SetPosition { index, position: self.nodes[index].position.replace((x, y)) }
            }
            GraphEdit::Insert { nodes, edges } => {
                let mut ids: std::collections::HashSet<&NodeId> = self.nodes.iter().map(|n| &n.id).collect();
                if let Some(duplicate) = nodes.iter().find(|n| !ids.insert(&n.id)) {
                    return Err(EditError::DuplicateId(duplicate.id.clone()));
                }
                if let Some(edge) = edges.iter().find(|e| !ids.contains(&e.source) || !ids.contains(&e.destination)) {
                    let missing = if ids.contains(&edge.source) { &edge.destination } else { &edge.source };
                    return Err(EditError::UnknownNode(missing.clone()));
                }
                let step = Step::Truncate { nodes: self.nodes.len(), edges: self.edges.len() };
                self.nodes.extend(nodes);
                self.edges.extend(edges);
                step
            }
            GraphEdit::Batch(edits) => {
                let mut done = Vec::with_capacity(edits.len());
                for edit in edits {
                    match self.step(edit) {
                        Ok(step) => done.push(step),
                        Err(error) => {
                            self.undo_step(Step::Batch(done));
                            return Err(error);
                        }
                    }
                }
                Step::Batch(done)
            }
            GraphEdit::Replace(graph) => Step::Replace(Box::new(std::mem::replace(self, *graph))),
            GraphEdit::SetImageParams(params) => Step::SetImageParams(std::mem::replace(&mut self.image, params)),
            GraphEdit::SetFunctions(functions) => Step::SetFunctions(std::mem::replace(&mut self.functions, functions)),
        })
    }

    fn undo_step(&mut self, step: Step) {
        match step {
            Step::RemoveLastNode => {
                self.nodes.pop();
            }
            Step::RestoreNode { index, node, edges, was_target } => {
                if was_target {
                    self.target = Some(node.id.clone());
                }
                self.nodes.insert(index.min(self.nodes.len()), node);
                for (i, edge) in edges {
                    self.edges.insert(i.min(self.edges.len()), edge);
                }
            }
            Step::RemoveLastEdge => {
                self.edges.pop();
            }
            Step::Truncate { nodes, edges } => {
                self.nodes.truncate(nodes);
                self.edges.truncate(edges);
            }
            Step::RestoreEdges(edges) => self.edges = edges,
            Step::SetTarget(target) => self.target = target,
            Step::SetImageParams(params) => self.image = params,
            Step::SetFunctions(functions) => self.functions = functions,
            Step::SetKind { index, kind } => {
                if let Some(node) = self.nodes.get_mut(index) {
                    node.kind = kind;
                }
            }
            Step::SetPosition { index, position } => {
                if let Some(node) = self.nodes.get_mut(index) {
                    node.position = position;
                }
            }
            Step::Batch(steps) => {
                for step in steps.into_iter().rev() {
                    self.undo_step(step);
                }
            }
            Step::Replace(graph) => *self = *graph,
        }
    }

    /// A path `from ->* to` along edges, if one exists: one pass to index the edges, then a depth-first search,
    /// so a check costs O(nodes + edges).
    fn path(&self, from: &NodeId, to: &NodeId) -> Option<Vec<NodeId>> {
        let mut out: HashMap<&NodeId, Vec<&NodeId>> = HashMap::new();
        for edge in &self.edges {
            out.entry(&edge.source).or_default().push(&edge.destination);
        }
        let mut parent: HashMap<&NodeId, &NodeId> = HashMap::new();
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
            for &next in out.get(node).into_iter().flatten() {
                if seen.insert(next) {
                    parent.insert(next, node);
                    stack.push(next);
                }
            }
        }
        None
    }
}

fn produces(node: &Node) -> Option<&'static str> {
    node.produces()
}

fn consumes(node: &Node) -> Option<&'static str> {
    node.consumes()
}

impl Node {
    /// The kind its output carries, when known (`scalar`, `list`), as edits check it.
    pub fn produces(&self) -> Option<&'static str> {
        match &self.kind {
            NodeKind::Task(task) => task.output_kind().map(|k| k.as_str()),
            NodeKind::Pick { .. } => Some("scalar"),
            NodeKind::Pack => Some("list"),
            NodeKind::Unknown { .. } => None,
        }
    }

    /// The kind its input takes, when known.
    pub fn consumes(&self) -> Option<&'static str> {
        match &self.kind {
            NodeKind::Task(task) => task.input_kind().map(|k| k.as_str()),
            NodeKind::Pick { .. } => Some("list"),
            NodeKind::Pack => Some("scalar"),
            NodeKind::Unknown { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, input: &str, output: &str) -> GraphEdit {
        GraphEdit::AddNode(Node {
            id: NodeId(id.into()),
            kind: NodeKind::Task(TaskNode { family: "math".into(), task_id: None, input_kind: Some(input.into()), output_kind: Some(output.into()), function: None }),
            position: None,
        })
    }

    fn adapter(id: &str, kind: NodeKind) -> GraphEdit {
        GraphEdit::AddNode(Node { id: NodeId(id.into()), kind, position: None })
    }

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    fn connect(from: &str, to: &str) -> GraphEdit {
        GraphEdit::Connect { from: id(from), to: id(to), slot: None }
    }

    /// a -> b -> c, scalar tasks, c the target, with positions.
    fn chain() -> TaskGraph {
        let mut g = TaskGraph::new();
        for edit in [task("a", "scalar", "scalar"), task("b", "scalar", "scalar"), task("c", "scalar", "scalar"), connect("a", "b"), connect("b", "c")] {
            g.apply(edit).unwrap();
        }
        g.apply(GraphEdit::SetTarget(id("c"))).unwrap();
        g.apply(GraphEdit::Move { id: id("b"), x: 10.0, y: 20.0 }).unwrap();
        g
    }

    #[test]
    fn edit_rejects_cycles_and_kind_mismatches() {
        let mut g = TaskGraph::new();
        g.apply(task("a", "scalar", "scalar")).unwrap();
        g.apply(task("b", "scalar", "scalar")).unwrap();
        g.apply(task("c", "list", "scalar")).unwrap();
        g.apply(connect("a", "b")).unwrap();
        let cycle = g.apply(connect("b", "a")).unwrap_err();
        assert_eq!(cycle, EditError::WouldCreateCycle { from: id("b"), to: id("a"), path: vec![id("a"), id("b")] });
        assert_eq!(cycle.to_string(), "connecting b to a would create a cycle (a -> b -> a)");
        let mismatch = g.apply(connect("a", "c")).unwrap_err();
        assert_eq!(mismatch.to_string(), "a outputs a scalar, but c takes a list");
        assert_eq!(g.apply(task("a", "list", "list")), Err(EditError::DuplicateId(id("a"))));
        assert_eq!(g.edges.len(), 1, "refused edits leave the graph unchanged");
    }

    #[test]
    fn removing_a_node_drops_its_edges_and_target() {
        let mut g = chain();
        g.apply(GraphEdit::RemoveNode(id("c"))).unwrap();
        assert_eq!(g.edges.len(), 1);
        assert_eq!(g.target, None);
    }

    #[test]
    fn a_task_or_pick_takes_one_input_and_a_pack_many() {
        let mut g = chain();
        g.apply(task("d", "scalar", "scalar")).unwrap();
        let taken = g.apply(connect("d", "b")).unwrap_err();
        assert_eq!(taken, EditError::InputTaken { to: id("b"), taken_by: id("a") });
        assert!(taken.to_string().starts_with("input already taken"), "{taken}");
        g.apply(adapter("k", NodeKind::Pack)).unwrap();
        g.apply(connect("a", "k")).unwrap();
        g.apply(connect("d", "k")).unwrap();
        let slots: Vec<Option<i64>> = g.edges.iter().filter(|e| e.destination == id("k")).map(|e| e.slot).collect();
        assert_eq!(slots, vec![Some(0), Some(1)], "pack inputs get the next free slot");
        g.apply(task("l", "list", "list")).unwrap();
        g.apply(adapter("p", NodeKind::Pick { index: 0 })).unwrap();
        g.apply(connect("l", "p")).unwrap();
        g.apply(task("l2", "list", "list")).unwrap();
        assert!(matches!(g.apply(connect("l2", "p")), Err(EditError::InputTaken { .. })));
    }

    #[test]
    fn duplicate_edges_self_loops_and_missing_edges_are_refused_with_reasons() {
        let mut g = chain();
        assert_eq!(g.apply(connect("a", "b")), Err(EditError::DuplicateEdge { from: id("a"), to: id("b") }));
        assert_eq!(g.apply(connect("a", "a")).unwrap_err().to_string(), "connecting a to a would create a cycle (a -> a)");
        assert_eq!(g.apply(GraphEdit::Disconnect { from: id("a"), to: id("c") }), Err(EditError::NoEdge { from: id("a"), to: id("c") }));
        assert_eq!(g.apply(connect("a", "ghost")), Err(EditError::UnknownNode(id("ghost"))));
    }

    /// Applies `edit` to `chain()` revertibly, checks the result with `changed`, reverts, and requires the
    /// original graph back exactly.
    fn check_revert(edit: GraphEdit, changed: impl Fn(&TaskGraph) -> bool) {
        let original = chain();
        let mut g = original.clone();
        let revert = g.apply_revertible(edit.clone()).unwrap_or_else(|e| panic!("{edit:?}: {e}"));
        assert!(changed(&g), "{edit:?} changed the graph as expected");
        g.revert(revert);
        assert_eq!(g, original, "reverting {edit:?} restores the graph exactly");
    }

    #[test]
    fn every_edit_reverts_to_the_exact_graph_it_changed() {
        check_revert(task("d", "list", "scalar"), |g| g.nodes.len() == 4);
        check_revert(GraphEdit::RemoveNode(id("b")), |g| g.nodes.len() == 2 && g.edges.is_empty());
        check_revert(GraphEdit::RemoveNode(id("c")), |g| g.target.is_none());
        check_revert(GraphEdit::Batch(vec![GraphEdit::Disconnect { from: id("b"), to: id("c") }, connect("a", "c")]), |g| g.edges[1].source == id("a"));
        check_revert(GraphEdit::Disconnect { from: id("a"), to: id("b") }, |g| g.edges.len() == 1);
        check_revert(GraphEdit::SetTarget(id("b")), |g| g.target == Some(id("b")));
        let gsm = TaskNode { family: "gsm".into(), ..TaskNode::default() };
        check_revert(GraphEdit::UpdateTask { id: id("a"), task: gsm }, |g| matches!(&g.nodes[0].kind, NodeKind::Task(t) if t.family == "gsm"));
        check_revert(GraphEdit::Move { id: id("a"), x: 1.0, y: 2.0 }, |g| g.nodes[0].position == Some((1.0, 2.0)));
        check_revert(GraphEdit::Move { id: id("b"), x: 1.0, y: 2.0 }, |g| g.nodes[1].position == Some((1.0, 2.0)));
        check_revert(GraphEdit::Replace(Box::new(TaskGraph::new())), |g| g.nodes.is_empty());
        let hard = ImageParams { num_paths: 12, ..ImageParams::default() };
        check_revert(GraphEdit::SetImageParams(Some(hard)), |g| g.image_params().map(|p| p.num_paths) == Some(12));
        check_revert(GraphEdit::SetFunctions(vec!["def f(x: int) -> int:\n    return x\n".into()]), |g| g.python_functions().len() == 1);
        let pasted = chain();
        let renamed = |n: &NodeId| NodeId(format!("{n}2"));
        let nodes = pasted.nodes.iter().map(|n| Node { id: renamed(&n.id), ..n.clone() }).collect();
        let edges = pasted.edges.iter().map(|e| Edge { source: renamed(&e.source), destination: renamed(&e.destination), slot: e.slot }).collect();
        check_revert(GraphEdit::Insert { nodes, edges }, |g| g.nodes.len() == 6 && g.edges.len() == 4);
        check_revert(
            GraphEdit::Batch(vec![GraphEdit::RemoveNode(id("a")), task("a", "scalar", "scalar"), connect("a", "b"), GraphEdit::SetTarget(id("a"))]),
            |g| g.nodes[2].id == id("a") && g.target == Some(id("a")),
        );
    }

    #[test]
    fn a_refused_batch_changes_nothing_and_reports_the_refused_edit() {
        let original = chain();
        let mut g = original.clone();
        let batch = GraphEdit::Batch(vec![task("d", "scalar", "scalar"), connect("c", "d"), connect("d", "a"), connect("c", "a")]);
        let error = g.apply(batch).unwrap_err();
        assert!(matches!(error, EditError::WouldCreateCycle { .. }), "{error}");
        assert_eq!(g, original);
    }

    #[test]
    fn an_insert_takes_broken_graphs_as_they_are_but_never_duplicate_ids_or_dangling_edges() {
        let mut g = chain();
        let node = |name: &str| Node { id: id(name), kind: NodeKind::Task(TaskNode::default()), position: None };
        let edge = |a: &str, b: &str| Edge { source: id(a), destination: id(b), slot: None };
        // A two-node cycle whose nodes have no declared kinds: validation's business, not the edit's.
        g.apply(GraphEdit::Insert { nodes: vec![node("x"), node("y")], edges: vec![edge("x", "y"), edge("y", "x")] }).unwrap();
        assert_eq!(g.edges.len(), 4);
        let before = g.clone();
        assert_eq!(g.apply(GraphEdit::Insert { nodes: vec![node("z"), node("z")], edges: vec![] }), Err(EditError::DuplicateId(id("z"))));
        assert_eq!(g.apply(GraphEdit::Insert { nodes: vec![node("a")], edges: vec![] }), Err(EditError::DuplicateId(id("a"))));
        assert_eq!(g.apply(GraphEdit::Insert { nodes: vec![node("z")], edges: vec![edge("z", "ghost")] }), Err(EditError::UnknownNode(id("ghost"))));
        assert_eq!(g, before);
    }

    #[test]
    fn disconnecting_a_pack_input_keeps_slots_dense_and_reverts_them() {
        let mut g = chain();
        g.apply(adapter("k", NodeKind::Pack)).unwrap();
        for from in ["a", "b", "c"] {
            g.apply(connect(from, "k")).unwrap();
        }
        let before = g.clone();
        let revert = g.apply_revertible(GraphEdit::Disconnect { from: id("a"), to: id("k") }).unwrap();
        let slots: Vec<Option<i64>> = g.edges.iter().filter(|e| e.destination == id("k")).map(|e| e.slot).collect();
        assert_eq!(slots, vec![Some(0), Some(1)]);
        g.revert(revert);
        assert_eq!(g, before);
    }

    #[test]
    fn only_position_changes_count_as_moves() {
        let mut g = chain();
        let moves = g.apply_revertible(GraphEdit::Batch(vec![GraphEdit::Move { id: id("a"), x: 0.0, y: 0.0 }, GraphEdit::Move { id: id("b"), x: 5.0, y: 0.0 }])).unwrap();
        assert!(moves.is_move_only());
        let target = g.apply_revertible(GraphEdit::SetTarget(id("b"))).unwrap();
        assert!(!target.is_move_only());
    }

    #[test]
    fn closing_a_long_chain_is_refused_with_its_whole_path() {
        // 20,000 nodes: the check indexes the edges once (a search per node visited would take minutes here).
        let n = 20_000;
        let untyped = NodeKind::Unknown { kind: "x".into(), op: None };
        let nodes = (0..n).map(|i| Node { id: NodeId(format!("n{i}")), kind: untyped.clone(), position: None }).collect();
        let edges = (1..n).map(|i| Edge { source: NodeId(format!("n{}", i - 1)), destination: NodeId(format!("n{i}")), slot: Some(0) }).collect();
        let mut g = TaskGraph::from_parts(nodes, edges, None);
        let Err(EditError::WouldCreateCycle { path, .. }) = g.apply(GraphEdit::Connect { from: NodeId(format!("n{}", n - 1)), to: id("n0"), slot: None }) else {
            panic!("closing the chain must be refused as a cycle")
        };
        assert_eq!(path.len(), n);
    }
}
