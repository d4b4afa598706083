//! The undo history: each step is the edits it made and what reverts them, so undo restores the graph
//! exactly and redo makes the same edits again. Steps that belong together coalesce into one: edits carrying
//! the same coalescing key within `COALESCE_MS` of each other (arrow-key nudges of one selection, typing in
//! one field), never across an undo. A drag-move or a paste is a single `Batch` edit, so it is one step.

use std::collections::VecDeque;

use crate::engine::graph::{EditError, GraphEdit, Revert, TaskGraph};

/// Steps kept; older ones are forgotten.
pub const DEPTH: usize = 500;
/// Edits with the same key this close together (milliseconds) join one step.
pub const COALESCE_MS: f64 = 1200.0;

/// One undoable step.
#[derive(Clone, Debug)]
struct Entry {
    label: String,
    edits: Vec<GraphEdit>,
    reverts: Vec<Revert>,
    key: Option<String>,
    last_ms: f64,
    /// False once something (an undo, a redo, a sealing action) closed the step to coalescing.
    open: bool,
}

/// Undo and redo stacks.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: VecDeque<Entry>,
    redo: Vec<Entry>,
}

impl History {
    /// Records an edit that was just applied (with its revert). It joins the latest step when both carry the
    /// same `key` and come within [`COALESCE_MS`]; otherwise it starts a step. Redo steps are dropped.
    pub fn record(&mut self, label: &str, edit: GraphEdit, revert: Revert, key: Option<&str>, time_ms: f64) {
        self.redo.clear();
        if let (Some(key), Some(top)) = (key, self.undo.back_mut()) {
            if top.open && top.key.as_deref() == Some(key) && (time_ms - top.last_ms).abs() <= COALESCE_MS {
                top.edits.push(edit);
                top.reverts.push(revert);
                top.last_ms = time_ms;
                return;
            }
        }
        self.undo.push_back(Entry { label: label.to_string(), edits: vec![edit], reverts: vec![revert], key: key.map(str::to_string), last_ms: time_ms, open: true });
        while self.undo.len() > DEPTH {
            self.undo.pop_front();
        }
    }

    /// Closes the latest step to coalescing.
    pub fn seal(&mut self) {
        if let Some(top) = self.undo.back_mut() {
            top.open = false;
        }
    }

    /// Undoes the latest step on `graph`; returns its label, or `None` when there is nothing to undo.
    pub fn undo(&mut self, graph: &mut TaskGraph) -> Option<String> {
        let mut entry = self.undo.pop_back()?;
        for revert in entry.reverts.drain(..).rev() {
            graph.revert(revert);
        }
        entry.open = false;
        let label = entry.label.clone();
        self.redo.push(entry);
        Some(label)
    }

    /// Makes the latest undone step again; returns its label (`None`: nothing to redo). If the graph no longer
    /// takes the edits (it cannot happen through this history alone), the step is dropped and the error returned.
    pub fn redo(&mut self, graph: &mut TaskGraph) -> Option<Result<String, EditError>> {
        let mut entry = self.redo.pop()?;
        let mut reverts = Vec::with_capacity(entry.edits.len());
        for edit in &entry.edits {
            match graph.apply_revertible(edit.clone()) {
                Ok(revert) => reverts.push(revert),
                Err(error) => {
                    for revert in reverts.into_iter().rev() {
                        graph.revert(revert);
                    }
                    return Some(Err(error));
                }
            }
        }
        entry.reverts = reverts;
        let label = entry.label.clone();
        self.undo.push_back(entry);
        Some(Ok(label))
    }

    /// Steps that can be undone.
    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    /// Steps that can be redone.
    pub fn redo_len(&self) -> usize {
        self.redo.len()
    }

    /// The label of the step undo would revert.
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.back().map(|e| e.label.as_str())
    }

    /// The label of the step redo would make.
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|e| e.label.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{Node, NodeId, NodeKind, TaskNode};

    fn add(id: &str) -> GraphEdit {
        GraphEdit::AddNode(Node { id: NodeId(id.into()), kind: NodeKind::Task(TaskNode::default()), position: Some((0.0, 0.0)) })
    }

    fn nudge(id: &str, x: f64) -> GraphEdit {
        GraphEdit::Move { id: NodeId(id.into()), x, y: 0.0 }
    }

    /// Applies and records each `(edit, key, time)` on `graph`.
    fn run(graph: &mut TaskGraph, history: &mut History, steps: Vec<(GraphEdit, Option<&str>, f64)>) {
        for (edit, key, time) in steps {
            let revert = graph.apply_revertible(edit.clone()).unwrap_or_else(|e| panic!("{edit:?}: {e}"));
            history.record("edit", edit, revert, key, time);
        }
    }

    #[test]
    fn undo_and_redo_walk_back_and_forth_through_exact_graphs() {
        let mut graph = TaskGraph::new();
        let mut history = History::default();
        let mut states = vec![graph.clone()];
        for id in ["a", "b", "c"] {
            run(&mut graph, &mut history, vec![(add(id), None, 0.0)]);
            states.push(graph.clone());
        }
        for expected in states.iter().rev().skip(1) {
            assert!(history.undo(&mut graph).is_some());
            assert_eq!(&graph, expected);
        }
        assert!(history.undo(&mut graph).is_none(), "nothing left to undo");
        for expected in states.iter().skip(1) {
            assert!(matches!(history.redo(&mut graph), Some(Ok(_))));
            assert_eq!(&graph, expected);
        }
        assert!(history.redo(&mut graph).is_none());
    }

    /// The coalescing key and time of one nudge.
    type Nudge = (Option<&'static str>, f64);

    /// (keys and times of three nudges, steps expected)
    const COALESCING: [(&[Nudge], usize); 5] = [
        (&[(Some("nudge a"), 0.0), (Some("nudge a"), 300.0), (Some("nudge a"), 900.0)], 2),
        (&[(Some("nudge a"), 0.0), (Some("nudge a"), 300.0), (Some("nudge a"), 300.0 + COALESCE_MS + 1.0)], 3),
        (&[(Some("nudge a"), 0.0), (Some("nudge b"), 10.0), (Some("nudge a"), 20.0)], 4),
        (&[(None, 0.0), (None, 0.0), (None, 0.0)], 4),
        (&[(Some("k"), 0.0), (None, 1.0), (Some("k"), 2.0)], 4),
    ];

    #[test]
    fn edits_coalesce_only_with_the_same_key_close_in_time() {
        for (case, (steps, expected)) in COALESCING.iter().enumerate() {
            let mut graph = TaskGraph::new();
            let mut history = History::default();
            run(&mut graph, &mut history, vec![(add("a"), None, 0.0)]);
            let nudges = steps.iter().enumerate().map(|(i, &(key, t))| (nudge("a", i as f64 + 1.0), key, t)).collect();
            run(&mut graph, &mut history, nudges);
            assert_eq!(history.undo_len(), *expected, "case {case}");
        }
    }

    #[test]
    fn a_coalesced_step_undoes_all_its_edits_at_once_and_never_reopens_after_undo() {
        let mut graph = TaskGraph::new();
        let mut history = History::default();
        run(&mut graph, &mut history, vec![(add("a"), None, 0.0)]);
        let before = graph.clone();
        run(&mut graph, &mut history, vec![(nudge("a", 1.0), Some("k"), 0.0), (nudge("a", 2.0), Some("k"), 10.0)]);
        history.undo(&mut graph);
        assert_eq!(graph, before, "both nudges undone together");
        history.redo(&mut graph);
        run(&mut graph, &mut history, vec![(nudge("a", 3.0), Some("k"), 20.0)]);
        assert_eq!(history.undo_len(), 3, "a redone step is sealed");
        history.seal();
        run(&mut graph, &mut history, vec![(nudge("a", 4.0), Some("k"), 30.0)]);
        assert_eq!(history.undo_len(), 4, "a sealed step takes no more edits");
    }

    #[test]
    fn a_new_edit_drops_the_redo_steps() {
        let mut graph = TaskGraph::new();
        let mut history = History::default();
        run(&mut graph, &mut history, vec![(add("a"), None, 0.0), (add("b"), None, 0.0)]);
        history.undo(&mut graph);
        assert_eq!(history.redo_len(), 1);
        run(&mut graph, &mut history, vec![(add("c"), None, 0.0)]);
        assert_eq!(history.redo_len(), 0);
    }

    #[test]
    fn the_history_keeps_at_least_two_hundred_steps_and_forgets_beyond_its_depth() {
        let mut graph = TaskGraph::new();
        let mut history = History::default();
        run(&mut graph, &mut history, vec![(add("a"), None, 0.0)]);
        let start = graph.clone();
        let moves = (0..250).map(|i| (nudge("a", i as f64), None, 0.0)).collect();
        run(&mut graph, &mut history, moves);
        let mut undone = 0;
        while history.undo_len() > 1 {
            history.undo(&mut graph);
            undone += 1;
        }
        assert_eq!(undone, 250);
        assert_eq!(graph, start);
        let more = (0..DEPTH + 50).map(|i| (nudge("a", i as f64), None, 0.0)).collect();
        run(&mut graph, &mut history, more);
        assert_eq!(history.undo_len(), DEPTH);
        const { assert!(DEPTH >= 200) };
    }
}
