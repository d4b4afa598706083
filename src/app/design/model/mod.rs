//! The editor model: the graph (changed only through `GraphEdit`s, each recorded in the history), the
//! selection, the viewport, the gesture in progress, snapping and the notice line. Pointer, wheel and key
//! events come in as plain data; the model decides, applies, and records what changed (`Changes`) so the
//! view redraws only that. Nothing here knows about the browser. Pointer, wheel and key handling is in
//! `input.rs`; the editing commands, the view and the internals they share are here.

use std::collections::BTreeSet;

mod input;
mod keyboard;

pub use keyboard::{palette_kind, ConnectMenu};

use super::access;
use super::clipboard;
use super::geometry::{bounds, node_center, Point, Rect};
use super::gesture::{Effect, Gesture, Machine, PaletteItem, PointerInput, SelectMode};
use super::history::History;
use super::hit::{hit_test, node_at, nodes_in_rect};
use super::keys::{command_for, Command, KeyInput};
use super::lod::TITLE_ZOOM;
use super::tidy;
use super::viewport::Viewport;
use crate::engine::graph::{EditError, GraphEdit, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::tasks::image::ImageParams;
use crate::engine::tasks::python_trace::UserFunction;

/// Grid spacing for snapping (world units).
pub const GRID: f64 = 24.0;
/// Zoom step of the zoom buttons and keys.
pub const ZOOM_STEP: f64 = 1.25;
/// Screen margin kept around the graph by "fit".
pub const FIT_MARGIN: f64 = 40.0;

/// How serious a notice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeLevel {
    /// An edit was refused; the graph is unchanged.
    Refused,
    /// Something failed (an import, a layout).
    Error,
    /// What just happened.
    Info,
}

/// The notice line, shown until the next action succeeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
    /// Where to show it beside the canvas's pointer (screen), for refusals made by dragging.
    pub at: Option<Point>,
}

/// What changed since the view last looked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Changes {
    pub graph: bool,
    pub selection: bool,
    pub view: bool,
    /// The drawing of the gesture in progress (and what the static drawing leaves out for it).
    pub overlay: bool,
    pub notice: bool,
    /// The connect list opened, closed, or changed its filter or active choice.
    pub menu: bool,
    /// Sentences were queued for the live region (`EditorModel::take_announcements`).
    pub announce: bool,
}

impl Changes {
    /// True when anything changed.
    pub fn any(&self) -> bool {
        self.graph || self.selection || self.view || self.overlay || self.notice || self.menu || self.announce
    }
}

/// What a key press needs from the page besides what the model did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOutcome {
    /// Not a canvas shortcut: the browser keeps the key.
    Ignored,
    /// Done; the browser's default action is suppressed.
    Handled,
    /// Show or hide the help overlay.
    ToggleHelp,
}

/// The editor.
#[derive(Clone, Debug)]
pub struct EditorModel {
    graph: TaskGraph,
    history: History,
    selection: BTreeSet<NodeId>,
    selected_edge: Option<(NodeId, NodeId)>,
    viewport: Viewport,
    machine: Machine,
    notice: Option<Notice>,
    snap: bool,
    /// The pointer's last position over the canvas (screen), for pastes and notices.
    pointer: Option<Point>,
    changes: Changes,
    /// The node with the keyboard focus (the canvas's one Tab stop); follows the selection.
    focused: Option<NodeId>,
    /// The connect list, while open.
    connect_menu: Option<ConnectMenu>,
    /// Sentences for the page's live region, oldest first, drained by `take_announcements`.
    announcements: Vec<String>,
    /// The validation count last announced.
    problems: Option<usize>,
}

impl Default for EditorModel {
    fn default() -> EditorModel {
        EditorModel::new(TaskGraph::new())
    }
}

/// A task as the palette places it: the kinds most of its family's tasks have (scalar in and out; a picture
/// task reads a scalar and lists the numbers on a path).
pub fn new_task(family: &str) -> TaskNode {
    let output = if family == "image" { "list" } else { "scalar" };
    TaskNode { family: family.to_string(), task_id: None, input_kind: Some("scalar".into()), output_kind: Some(output.into()), function: None }
}

impl EditorModel {
    /// An editor on `graph` (placed already), with an empty history.
    pub fn new(graph: TaskGraph) -> EditorModel {
        EditorModel {
            graph,
            history: History::default(),
            selection: BTreeSet::new(),
            selected_edge: None,
            viewport: Viewport::default(),
            machine: Machine::default(),
            notice: None,
            snap: false,
            pointer: None,
            changes: Changes { graph: true, selection: true, view: true, overlay: true, notice: true, menu: true, announce: false },
            focused: None,
            connect_menu: None,
            announcements: Vec::new(),
            problems: None,
        }
    }

    /// The graph.
    pub fn graph(&self) -> &TaskGraph {
        &self.graph
    }

    /// The selected nodes.
    pub fn selection(&self) -> &BTreeSet<NodeId> {
        &self.selection
    }

    /// The selected edge, if an edge (rather than nodes) is selected.
    pub fn selected_edge(&self) -> Option<&(NodeId, NodeId)> {
        self.selected_edge.as_ref()
    }

    /// The one selected node, if exactly one is selected.
    pub fn single_selected(&self) -> Option<&Node> {
        match self.selection.len() {
            1 => self.selection.iter().next().and_then(|id| self.graph.node(id)),
            _ => None,
        }
    }

    /// The viewport.
    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// The gesture in progress.
    pub fn gesture(&self) -> &Gesture {
        self.machine.gesture()
    }

    /// The notice line.
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// Whether moves and new nodes snap to the grid.
    pub fn snap(&self) -> bool {
        self.snap
    }

    /// Steps that undo / redo would take.
    pub fn history_lengths(&self) -> (usize, usize) {
        (self.history.undo_len(), self.history.redo_len())
    }

    /// What undo and redo would do, for button tooltips.
    pub fn history_labels(&self) -> (Option<&str>, Option<&str>) {
        (self.history.undo_label(), self.history.redo_label())
    }

    /// What changed since the last call, resetting it.
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changes)
    }

    /// The nodes being dragged and by how much (world), while a move is in progress.
    pub fn moving(&self) -> Option<(&BTreeSet<NodeId>, Point)> {
        match self.machine.gesture() {
            Gesture::Moving { anchor, offset, .. } => Some((&self.selection, self.snapped_offset(anchor, *offset))),
            _ => None,
        }
    }

    /// Shows a notice (replacing the current one).
    pub fn set_notice(&mut self, level: NoticeLevel, text: impl Into<String>) {
        self.notice = Some(Notice { level, text: text.into(), at: None });
        self.changes.notice = true;
    }

    /// Clears the notice.
    pub fn clear_notice(&mut self) {
        if self.notice.take().is_some() {
            self.changes.notice = true;
        }
    }

    // ---- Edits -------------------------------------------------------------------------------------------

    /// Applies `edit` as one undoable step labelled `label`; `key` lets consecutive edits coalesce. A refused
    /// edit changes nothing and becomes the notice, shown at the pointer.
    pub fn apply(&mut self, label: &str, edit: GraphEdit, key: Option<&str>, time_ms: f64) -> Result<(), EditError> {
        match self.graph.apply_revertible(edit.clone()) {
            Ok(revert) => {
                self.history.record(label, edit, revert, key, time_ms);
                self.changes.graph = true;
                self.clear_notice();
                self.drop_missing_from_selection();
                self.announce(access::edit_sentence(label));
                Ok(())
            }
            Err(error) => {
                self.notice = Some(Notice { level: NoticeLevel::Refused, text: format!("refused: {error}"), at: self.pointer });
                self.changes.notice = true;
                self.announce(format!("Refused: {error}"));
                Err(error)
            }
        }
    }

    /// Replaces the whole graph (an import, a preset, a link) as one undoable step, selecting nothing and
    /// fitting the view to it.
    pub fn replace(&mut self, graph: TaskGraph, label: &str, time_ms: f64) {
        self.history.seal();
        // A replacement is never refused.
        let _ = self.apply(label, GraphEdit::Replace(Box::new(graph)), None, time_ms);
        self.history.seal();
        self.set_selection(BTreeSet::new());
        self.fit();
    }

    /// Undoes the latest step.
    pub fn undo(&mut self) {
        match self.history.undo(&mut self.graph) {
            Some(label) => {
                self.changes.graph = true;
                self.drop_missing_from_selection();
                self.set_notice(NoticeLevel::Info, format!("undid {label}"));
                self.announce(format!("Undid: {label}"));
            }
            None => {
                self.set_notice(NoticeLevel::Info, "nothing to undo");
                self.announce("Nothing to undo");
            }
        }
    }

    /// Redoes the latest undone step.
    pub fn redo(&mut self) {
        match self.history.redo(&mut self.graph) {
            Some(Ok(label)) => {
                self.changes.graph = true;
                self.drop_missing_from_selection();
                self.set_notice(NoticeLevel::Info, format!("redid {label}"));
                self.announce(format!("Redid: {label}"));
            }
            Some(Err(error)) => {
                self.set_notice(NoticeLevel::Error, format!("could not redo: {error}"));
                self.announce(format!("Could not redo: {error}"));
            }
            None => {
                self.set_notice(NoticeLevel::Info, "nothing to redo");
                self.announce("Nothing to redo");
            }
        }
    }

    /// Adds a palette item centred at `at` (world), selects it and returns its id. The first task of a graph
    /// without a target becomes the target.
    pub fn add_node(&mut self, item: &PaletteItem, at: Point, time_ms: f64) -> Result<NodeId, EditError> {
        let at = self.snap_point(at);
        let prefix = match item {
            PaletteItem::Task(_) | PaletteItem::Pinned { .. } => "task",
            PaletteItem::Pick => "pick",
            PaletteItem::Pack => "pack",
        };
        let kind = keyboard::palette_kind(item);
        let id = self.graph.fresh_id(prefix);
        let mut edits = vec![GraphEdit::AddNode(Node { id: id.clone(), kind, position: Some((at.x, at.y)) })];
        if self.graph.target().is_none() && matches!(item, PaletteItem::Task(_) | PaletteItem::Pinned { .. }) {
            edits.push(GraphEdit::SetTarget(id.clone()));
        }
        self.apply(&format!("add {id}"), GraphEdit::Batch(edits), None, time_ms)?;
        if let (Some(last), Some(node)) = (self.announcements.last_mut(), self.graph.node(&id)) {
            *last = format!("Added {}", access::describe(node, self.graph.target() == Some(&id)));
        }
        self.set_selection(BTreeSet::from([id.clone()]));
        Ok(id)
    }

    /// Connects two nodes (a refusal becomes the notice), announced as `Connected a output to b input`.
    pub fn connect(&mut self, from: &NodeId, to: &NodeId, time_ms: f64) -> Result<(), EditError> {
        self.apply(&format!("connect {from} to {to}"), GraphEdit::Connect { from: from.clone(), to: to.clone(), slot: None }, None, time_ms)?;
        if let Some(last) = self.announcements.last_mut() {
            *last = format!("Connected {from} output to {to} input");
        }
        Ok(())
    }

    /// Deletes the selected nodes (with their edges) or the selected edge, as one step.
    pub fn delete_selection(&mut self, time_ms: f64) {
        if let Some((from, to)) = self.selected_edge.clone() {
            if self.apply(&format!("delete edge {from} -> {to}"), GraphEdit::Disconnect { from, to }, None, time_ms).is_ok() {
                self.selected_edge = None;
                self.changes.selection = true;
            }
            return;
        }
        if self.selection.is_empty() {
            return;
        }
        let edits: Vec<GraphEdit> = self.selection.iter().cloned().map(GraphEdit::RemoveNode).collect();
        let label = plural(edits.len(), "node");
        if self.apply(&format!("delete {label}"), GraphEdit::Batch(edits), None, time_ms).is_ok() {
            self.set_selection(BTreeSet::new());
        }
    }

    /// Moves the selection by a world distance as one step; nudges in a row coalesce.
    pub fn nudge(&mut self, dx: f64, dy: f64, time_ms: f64) {
        if self.selection.is_empty() {
            return;
        }
        let key = format!("nudge {}", self.selection.iter().map(|n| n.0.as_str()).collect::<Vec<_>>().join(","));
        let edit = self.move_edit(Point::new(dx, dy));
        let _ = self.apply("nudge", edit, Some(&key), time_ms);
    }

    /// Marks the one selected task as the target.
    pub fn mark_target(&mut self, time_ms: f64) {
        match self.single_selected().map(|n| n.id.clone()) {
            Some(id) => {
                let _ = self.apply(&format!("make {id} the target"), GraphEdit::SetTarget(id), None, time_ms);
            }
            None => self.set_notice(NoticeLevel::Info, "select one task to make it the target"),
        }
    }

    /// Changes a task node's settings; edits of one node in a row coalesce (typing in a field).
    pub fn update_task(&mut self, id: &NodeId, task: TaskNode, time_ms: f64) -> Result<(), EditError> {
        self.apply(&format!("edit {id}"), GraphEdit::UpdateTask { id: id.clone(), task }, Some(&format!("task {id}")), time_ms)
    }

    /// Changes a pick adapter's index; edits of one node in a row coalesce.
    pub fn set_pick_index(&mut self, id: &NodeId, index: i64, time_ms: f64) -> Result<(), EditError> {
        self.apply(&format!("edit {id}"), GraphEdit::SetPickIndex { id: id.clone(), index }, Some(&format!("pick {id}")), time_ms)
    }

    /// Sets (or, with `None`, clears) the picture parameters of the graph's image tasks. Typing in the field
    /// `field` coalesces into one undo step.
    pub fn set_image_params(&mut self, params: Option<ImageParams>, field: Option<&str>, time_ms: f64) -> Result<(), EditError> {
        let key = field.map(|f| format!("pictures {f}"));
        self.apply("change the picture parameters", GraphEdit::SetImageParams(params), key.as_deref(), time_ms)
    }

    /// Adds a pasted Python function to the graph's own functions (replacing one of the same name), so python
    /// task nodes can pin it; returns its name, or the located problems of the source.
    pub fn add_function(&mut self, source: &str, time_ms: f64) -> Result<String, String> {
        let function = UserFunction::from_source(source).map_err(|errors| errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
        let name = function.signature().name.clone();
        let mut sources = self.graph.python_functions().to_vec();
        match sources.iter().position(|s| UserFunction::from_source(s).is_ok_and(|f| f.signature().name == name)) {
            Some(at) => sources[at] = source.to_string(),
            None => sources.push(source.to_string()),
        }
        self.history.seal();
        self.apply(&format!("add the function {name}"), GraphEdit::SetFunctions(sources), None, time_ms).map_err(|e| e.to_string())?;
        Ok(name)
    }

    /// Arranges the graph with the layered layout, as one step, and fits the view.
    pub fn tidy(&mut self, time_ms: f64) {
        match tidy::tidy_edit(&self.graph) {
            Ok(edit) => {
                self.history.seal();
                if self.apply("tidy up", edit, None, time_ms).is_ok() {
                    self.fit();
                }
            }
            Err(error) => self.set_notice(NoticeLevel::Error, format!("cannot tidy: {error}")),
        }
    }

    /// Moves every node to the given positions as one step (a tidy computed off the main thread).
    pub fn move_to(&mut self, label: &str, positions: &[(NodeId, Point)], time_ms: f64) {
        let edits = positions
            .iter()
            .filter(|(id, p)| self.graph.node(id).is_some_and(|n| n.position != Some((p.x, p.y))))
            .map(|(id, p)| GraphEdit::Move { id: id.clone(), x: p.x, y: p.y })
            .collect();
        self.history.seal();
        if self.apply(label, GraphEdit::Batch(edits), None, time_ms).is_ok() {
            self.fit();
        }
    }

    // ---- Clipboard ---------------------------------------------------------------------------------------

    /// The selection as node-link JSON, for the clipboard.
    pub fn copy(&self) -> Option<String> {
        clipboard::copy(&self.graph, &self.selection)
    }

    /// Copies the selection and deletes it (one step).
    pub fn cut(&mut self, time_ms: f64) -> Option<String> {
        let text = self.copy()?;
        self.delete_selection(time_ms);
        Some(text)
    }

    /// Pastes a graph (every node positioned) centred at the pointer, or at the view's centre, as one step,
    /// and selects what was pasted.
    pub fn paste(&mut self, clip: &TaskGraph, time_ms: f64) -> Result<usize, EditError> {
        let at = self.viewport.to_world(self.pointer.unwrap_or(Point::new(self.viewport.width / 2.0, self.viewport.height / 2.0)));
        let paste = clipboard::paste(&self.graph, clip, Some(self.snap_point(at)));
        let count = paste.ids.len();
        self.history.seal();
        self.apply(&format!("paste {}", plural(count, "node")), paste.edit, None, time_ms)?;
        // A paste bigger than the view would land mostly out of sight: bring it into view.
        let pasted = bounds(paste.ids.iter().filter_map(|id| self.graph.node(id)));
        if let Some(b) = pasted.filter(|b| !self.viewport.visible().encloses(b)) {
            self.viewport.fit(&b, FIT_MARGIN, TITLE_ZOOM);
            self.changes.view = true;
        }
        self.set_selection(paste.ids.into_iter().collect());
        Ok(count)
    }

    /// Duplicates the selection beside itself, as one step.
    pub fn duplicate(&mut self, time_ms: f64) {
        let Some(text) = self.copy() else { return };
        let Ok(clip) = crate::engine::graph::from_json_str(&text) else { return };
        let paste = clipboard::paste(&self.graph, &clip, None);
        let count = paste.ids.len();
        if self.apply(&format!("duplicate {}", plural(count, "node")), paste.edit, None, time_ms).is_ok() {
            self.set_selection(paste.ids.into_iter().collect());
        }
    }

    // ---- Selection and view ------------------------------------------------------------------------------

    /// Selects every node.
    pub fn select_all(&mut self) {
        self.set_selection(self.graph.nodes().iter().map(|n| n.id.clone()).collect());
    }

    /// Selects one node and centres the view on it (an issue clicked in the list).
    pub fn focus(&mut self, id: &NodeId) {
        if let Some(node) = self.graph.node(id) {
            let centre = node_center(node);
            self.viewport.center_on(centre);
            self.changes.view = true;
            self.set_selection(BTreeSet::from([id.clone()]));
        }
    }

    /// Sets the canvas's screen size.
    pub fn resize(&mut self, width: f64, height: f64) {
        if (self.viewport.width, self.viewport.height) != (width, height) {
            self.viewport.resize(width, height);
            self.changes.view = true;
        }
    }

    /// Fits the whole graph in the view, zooming out no further than node titles stay legible (11 CSS px);
    /// a graph too big for that is shown from its start, with the rest a scroll away.
    pub fn fit(&mut self) {
        if let Some(b) = bounds(self.graph.nodes()) {
            self.viewport.fit(&b, FIT_MARGIN, TITLE_ZOOM);
            self.changes.view = true;
        }
    }

    /// Zooms by `factor` around the screen centre (the zoom buttons).
    pub fn zoom_by(&mut self, factor: f64) {
        let centre = Point::new(self.viewport.width / 2.0, self.viewport.height / 2.0);
        self.viewport.zoom_at(centre, factor);
        self.changes.view = true;
    }

    /// Centres the view on a world point (a click on the minimap).
    pub fn center_on(&mut self, world: Point) {
        self.viewport.center_on(world);
        self.changes.view = true;
    }

    /// Turns snapping to the grid on or off.
    pub fn set_snap(&mut self, on: bool) {
        self.snap = on;
        self.set_notice(NoticeLevel::Info, if on { "snap to grid on" } else { "snap to grid off" });
    }

    // ---- Internals shared with input.rs ---------------------------------------------------------------

    fn set_selection(&mut self, selection: BTreeSet<NodeId>) {
        if selection != self.selection || self.selected_edge.is_some() {
            // The focus follows the selection: it stays on a selected node, else goes to the first one.
            if !selection.is_empty() && !self.focused.as_ref().is_some_and(|f| selection.contains(f)) {
                self.focused = selection.iter().next().cloned();
            }
            self.selection = selection;
            self.selected_edge = None;
            self.changes.selection = true;
        }
    }

    fn drop_missing_from_selection(&mut self) {
        if self.focused.as_ref().is_some_and(|f| self.graph.node(f).is_none()) {
            self.focused = None;
            self.changes.selection = true;
        }
        let before = self.selection.len();
        let graph = &self.graph;
        self.selection.retain(|id| graph.node(id).is_some());
        let edge_gone = self.selected_edge.as_ref().is_some_and(|(a, b)| !graph.edges().iter().any(|e| &e.source == a && &e.destination == b));
        if edge_gone {
            self.selected_edge = None;
        }
        if before != self.selection.len() || edge_gone {
            self.changes.selection = true;
        }
    }

    /// The edit moving every selected node by `offset`.
    fn move_edit(&self, offset: Point) -> GraphEdit {
        GraphEdit::Batch(
            self.graph
                .nodes()
                .iter()
                .filter(|n| self.selection.contains(&n.id))
                .map(|n| {
                    let c = node_center(n);
                    GraphEdit::Move { id: n.id.clone(), x: c.x + offset.x, y: c.y + offset.y }
                })
                .collect(),
        )
    }

    /// A move's offset, adjusted so the grabbed node lands on the grid when snapping.
    fn snapped_offset(&self, anchor: &NodeId, offset: Point) -> Point {
        if !self.snap {
            return offset;
        }
        let Some(node) = self.graph.node(anchor) else { return offset };
        let c = node_center(node);
        let landed = self.snap_point(Point::new(c.x + offset.x, c.y + offset.y));
        Point::new(landed.x - c.x, landed.y - c.y)
    }

    fn snap_point(&self, p: Point) -> Point {
        if self.snap {
            Point::new((p.x / GRID).round() * GRID, (p.y / GRID).round() * GRID)
        } else {
            Point::new(p.x.round(), p.y.round())
        }
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests;
