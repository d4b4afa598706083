//! The designer's state: the graph, changed only through `TaskGraph::apply` or a whole replacement.

use leptos::prelude::*;

use crate::engine::graph::{self, EditError, GraphEdit, TaskGraph};

/// The example graph the designer opens with.
pub const FIRST_GRAPH: &str = include_str!("../../../public/examples/diamond.json");

/// The designer's graph. It changes only through [`DesignState::apply`] (one `GraphEdit` at a time, refused edits
/// leave it untouched) or [`DesignState::replace`] (an import that already parsed).
#[derive(Clone, Copy)]
pub struct DesignState {
    graph: RwSignal<TaskGraph>,
    /// The node-link JSON the text editor shows; kept in step with the graph.
    pub text: RwSignal<String>,
}

impl DesignState {
    pub(super) fn new() -> DesignState {
        let graph = graph::from_json_str(FIRST_GRAPH).unwrap_or_default();
        DesignState { graph: RwSignal::new(graph), text: RwSignal::new(FIRST_GRAPH.to_string()) }
    }

    /// The graph, read-only.
    pub fn graph(&self) -> Signal<TaskGraph> {
        self.graph.into()
    }

    /// Applies one edit; a refused edit changes nothing and says why.
    pub fn apply(&self, edit: GraphEdit) -> Result<(), EditError> {
        let mut result = Ok(());
        self.graph.update(|g| result = g.apply(edit));
        if result.is_ok() {
            self.text.set(graph::to_json(&self.graph.get_untracked()).to_string());
        }
        result
    }

    /// Replaces the graph with one parsed elsewhere (an import, a preset, the text editor).
    pub fn replace(&self, graph: TaskGraph, text: String) {
        self.graph.set(graph);
        self.text.set(text);
    }
}

