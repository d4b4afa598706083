//! The editor model: the graph (changed only through `GraphEdit`s, each recorded in the history), the
//! selection, the viewport, the gesture in progress, snapping and the notice line. Pointer, wheel and key
//! events come in as plain data; the model decides, applies, and records what changed (`Changes`) so the
//! view redraws only that. Nothing here knows about the browser. Pointer, wheel and key handling is in
//! `input.rs`; the editing commands, the view and the internals they share are here.

use std::collections::BTreeSet;

mod input;
mod keyboard;

pub use keyboard::ConnectMenu;

use super::access;
use super::clipboard;
use super::geometry::{bounds, node_center, Point, Rect};
use super::gesture::{Effect, Gesture, Machine, PaletteItem, PointerInput, SelectMode};
use super::history::History;
use super::hit::{hit_test, node_at, nodes_in_rect};
use super::keys::{command_for, Command, KeyInput};
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
            PaletteItem::Task(_) => "task",
            PaletteItem::Pick => "pick",
            PaletteItem::Pack => "pack",
        };
        let kind = keyboard::palette_kind(item);
        let id = self.graph.fresh_id(prefix);
        let mut edits = vec![GraphEdit::AddNode(Node { id: id.clone(), kind, position: Some((at.x, at.y)) })];
        if self.graph.target().is_none() && matches!(item, PaletteItem::Task(_)) {
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
            self.viewport.fit(&b, FIT_MARGIN);
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

    /// Fits the whole graph in the view.
    pub fn fit(&mut self) {
        if let Some(b) = bounds(self.graph.nodes()) {
            self.viewport.fit(&b, FIT_MARGIN);
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
mod tests {
    use super::*;
    use crate::app::editor::geometry::{port_point, node_rect, PortSide, TASK_SIZE};
    use crate::app::editor::gesture::PointerKind;

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    /// An editor whose screen shows world (0, 0) at its top-left corner at zoom 1.
    fn editor() -> EditorModel {
        EditorModel { viewport: Viewport { origin: Point::default(), zoom: 1.0, width: 1200.0, height: 800.0 }, ..EditorModel::default() }
    }

    fn pointer(x: f64, y: f64) -> PointerInput {
        PointerInput { id: 1, screen: Point::new(x, y), inside: true, ..PointerInput::default() }
    }

    /// A real drag: down, a few moves, up.
    fn drag(model: &mut EditorModel, from: Point, to: Point) {
        model.pointer_down(&pointer(from.x, from.y));
        for i in 1..=4 {
            let t = i as f64 / 4.0;
            model.pointer_move(&pointer(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t));
        }
        model.pointer_up(&pointer(to.x, to.y));
    }

    fn place(model: &mut EditorModel, family: &str, x: f64, y: f64) {
        model.begin_placing(PaletteItem::Task(family.into()));
        model.pointer_move(&pointer(x, y));
        model.pointer_up(&pointer(x, y));
    }

    fn out_port(model: &EditorModel, name: &str) -> Point {
        port_point(&node_rect(model.graph().node(&id(name)).unwrap(), Point::default()), PortSide::Out)
    }

    fn in_port(model: &EditorModel, name: &str) -> Point {
        port_point(&node_rect(model.graph().node(&id(name)).unwrap(), Point::default()), PortSide::In)
    }

    /// Three tasks placed from the palette and connected by dragging port to port.
    fn three_task_chain() -> EditorModel {
        let mut model = editor();
        for (i, x) in [150.0, 450.0, 750.0].into_iter().enumerate() {
            place(&mut model, "math", x, 200.0);
            assert_eq!(model.selection(), &BTreeSet::from([id(&format!("task_{}", i + 1))]));
        }
        let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_2"));
        drag(&mut model, a, b);
        let (a, b) = (out_port(&model, "task_2"), in_port(&model, "task_3"));
        drag(&mut model, a, b);
        model
    }

    #[test]
    fn a_chain_is_built_by_placing_and_connecting_and_every_step_undoes() {
        let mut model = three_task_chain();
        assert_eq!(model.graph().nodes().len(), 3);
        assert_eq!(model.graph().edges().len(), 2);
        assert_eq!(model.graph().target(), Some(&id("task_1")), "the first task became the target");
        assert_eq!(model.history_lengths(), (5, 0));
        for _ in 0..5 {
            model.undo();
        }
        assert!(model.graph().nodes().is_empty());
        for _ in 0..5 {
            model.redo();
        }
        assert_eq!(model.graph().edges().len(), 2);
    }

    #[test]
    fn every_family_from_the_palette_is_a_valid_graph_on_its_own() {
        let registry = crate::engine::tasks::registry::builtin();
        for family in ["math", "gsm", "python", "image"] {
            let mut model = editor();
            place(&mut model, family, 300.0, 200.0);
            let errors: Vec<String> = model.graph().issues(&registry).into_iter().filter(|i| i.severity == crate::engine::graph::Severity::Error).map(|i| i.to_string()).collect();
            assert!(errors.is_empty(), "{family}: {errors:?}");
        }
    }

    #[test]
    fn a_pasted_function_joins_the_graph_and_a_python_node_can_pin_it() {
        let registry = crate::engine::tasks::registry::builtin();
        let mut model = editor();
        place(&mut model, "python", 300.0, 200.0);
        let source = "def total(xs: List[int]) -> int:\n    return sum(xs)\n";
        assert_eq!(model.add_function(source, 1.0), Ok("total".to_string()));
        assert!(model.add_function("def broken(x: int) -> int:\n    return x +\n", 2.0).unwrap_err().starts_with("line 2"));
        let pinned = TaskNode { family: "python".into(), input_kind: Some("list".into()), output_kind: Some("scalar".into()), function: Some("total".into()), ..TaskNode::default() };
        model.update_task(&id("task_1"), pinned, 3.0).unwrap();
        assert!(crate::engine::graph::ValidGraph::new(model.graph().clone(), &registry).is_ok(), "{:?}", model.graph().issues(&registry));
        // The same name again replaces the source; undo brings the first back.
        model.add_function("def total(xs: List[int]) -> int:\n    return len(xs)\n", 4.0).unwrap();
        assert_eq!(model.graph().python_functions().len(), 1);
        assert!(model.graph().python_functions()[0].contains("len(xs)"));
        model.undo();
        assert!(model.graph().python_functions()[0].contains("sum(xs)"));
    }

    #[test]
    fn picture_parameters_are_one_undo_step_per_field_typed_into() {
        let mut model = three_task_chain();
        let steps = model.history_lengths().0;
        let mut params = ImageParams::default();
        for (k, paths) in [5, 6, 7].into_iter().enumerate() {
            params.num_paths = paths;
            model.set_image_params(Some(params), Some("num_paths"), 100.0 * k as f64).unwrap();
        }
        assert_eq!(model.graph().image_params().map(|p| p.num_paths), Some(7));
        assert_eq!(model.history_lengths().0, steps + 1, "typing into one field coalesces");
        params.height = 1000;
        model.set_image_params(Some(params), Some("height"), 400.0).unwrap();
        assert_eq!(model.history_lengths().0, steps + 2, "another field is another step");
        model.undo();
        assert_eq!(model.graph().image_params().map(|p| (p.num_paths, p.height)), Some((7, 1400)));
        model.undo();
        assert_eq!(model.graph().image_params(), None);
        model.redo();
        model.set_image_params(None, None, 900.0).unwrap();
        assert_eq!(model.graph().image_params(), None, "reset to the run's parameters");
    }

    #[test]
    fn refused_connections_leave_the_graph_and_say_why_at_the_pointer() {
        let mut model = three_task_chain();
        let list_input = TaskNode { family: "math".into(), task_id: None, input_kind: Some("list".into()), output_kind: Some("scalar".into()), function: None };
        // A fourth task taking a list: a scalar output cannot feed it.
        place(&mut model, "math", 450.0, 500.0);
        model.update_task(&id("task_4"), list_input, 0.0).unwrap();
        let before = model.graph().clone();
        let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_4"));
        drag(&mut model, a, b);
        let notice = model.notice().unwrap();
        assert_eq!(notice.level, NoticeLevel::Refused);
        assert_eq!(notice.text, "refused: task_1 outputs a scalar, but task_4 takes a list");
        assert!(notice.at.is_some(), "shown at the pointer");
        // Closing the chain into a loop.
        let (a, b) = (out_port(&model, "task_3"), in_port(&model, "task_1"));
        drag(&mut model, a, b);
        assert!(model.notice().unwrap().text.contains("would create a cycle (task_1 -> task_2 -> task_3 -> task_1)"), "{:?}", model.notice());
        let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_3"));
        drag(&mut model, a, b);
        assert!(model.notice().unwrap().text.starts_with("refused: input already taken"));
        assert_eq!(model.graph(), &before);
        // The next successful action clears the notice.
        model.nudge(8.0, 0.0, 0.0);
        assert_eq!(model.notice(), None);
    }

    #[test]
    fn a_drag_move_is_one_step_however_many_pointer_moves_it_took() {
        let mut model = three_task_chain();
        model.select_all();
        let steps = model.history_lengths().0;
        let before = model.graph().clone();
        let grab = Point::new(450.0, 200.0);
        model.pointer_down(&pointer(grab.x, grab.y));
        for i in 1..=30 {
            model.pointer_move(&pointer(grab.x + i as f64 * 3.0, grab.y + i as f64));
            if i == 15 {
                let (moving, offset) = model.moving().unwrap();
                assert_eq!(moving.len(), 3);
                assert_eq!(offset, Point::new(45.0, 15.0));
                assert_eq!(model.graph(), &before, "the graph changes only on the drop");
            }
        }
        model.pointer_up(&pointer(grab.x + 90.0, grab.y + 30.0));
        assert_eq!(model.history_lengths().0, steps + 1);
        for (old, new) in before.nodes().iter().zip(model.graph().nodes()) {
            assert_eq!(node_center(new), Point::new(node_center(old).x + 90.0, node_center(old).y + 30.0));
        }
        model.undo();
        assert_eq!(model.graph(), &before);
    }

    #[test]
    fn dragging_an_unselected_node_moves_only_it_and_snapping_lands_it_on_the_grid() {
        let mut model = three_task_chain();
        model.set_snap(true);
        model.select_all();
        // Clicking task_2 alone first selects only it.
        model.pointer_down(&pointer(450.0, 200.0));
        model.pointer_up(&pointer(450.0, 200.0));
        drag(&mut model, Point::new(450.0, 200.0), Point::new(500.0, 213.0));
        let c = node_center(model.graph().node(&id("task_2")).unwrap());
        assert_eq!((c.x % GRID, c.y % GRID), (0.0, 0.0), "{c:?}");
        assert_eq!(node_center(model.graph().node(&id("task_1")).unwrap()), Point::new(150.0, 200.0));
    }

    #[test]
    fn clicks_shift_clicks_and_box_selection() {
        let mut model = three_task_chain();
        model.pointer_down(&pointer(150.0, 200.0));
        model.pointer_up(&pointer(150.0, 200.0));
        assert_eq!(model.selection(), &BTreeSet::from([id("task_1")]));
        let shift = |x: f64, y: f64| PointerInput { shift: true, ..pointer(x, y) };
        model.pointer_down(&shift(750.0, 200.0));
        model.pointer_up(&shift(750.0, 200.0));
        assert_eq!(model.selection().len(), 2);
        model.pointer_down(&shift(150.0, 200.0));
        model.pointer_up(&shift(150.0, 200.0));
        assert_eq!(model.selection(), &BTreeSet::from([id("task_3")]), "shift-click toggles");
        model.pointer_down(&pointer(20.0, 600.0));
        model.pointer_up(&pointer(20.0, 600.0));
        assert!(model.selection().is_empty(), "a click on the background clears");
        // Shift-drag a box around the first two.
        model.pointer_down(&shift(10.0, 100.0));
        for x in [100.0, 300.0, 520.0] {
            model.pointer_move(&shift(x, 300.0));
        }
        model.pointer_up(&shift(520.0, 300.0));
        assert_eq!(model.selection(), &BTreeSet::from([id("task_1"), id("task_2")]));
    }

    #[test]
    fn clicking_an_edge_selects_it_and_delete_removes_only_it() {
        let mut model = three_task_chain();
        let (a, b) = (out_port(&model, "task_1"), in_port(&model, "task_2"));
        let middle = Point::new((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
        model.pointer_down(&pointer(middle.x, middle.y));
        model.pointer_up(&pointer(middle.x, middle.y));
        assert_eq!(model.selected_edge(), Some(&(id("task_1"), id("task_2"))));
        model.key_down(&KeyInput { key: "Delete".into(), ..KeyInput::default() });
        assert_eq!(model.graph().edges().len(), 1);
        assert_eq!(model.graph().nodes().len(), 3);
    }

    #[test]
    fn deleting_a_selection_is_one_step_and_undo_restores_it_exactly() {
        let mut model = three_task_chain();
        let before = model.graph().clone();
        model.select_all();
        model.key_down(&KeyInput { key: "Backspace".into(), ..KeyInput::default() });
        assert!(model.graph().nodes().is_empty());
        assert!(model.selection().is_empty());
        model.key_down(&KeyInput { key: "z".into(), command: true, ..KeyInput::default() });
        assert_eq!(model.graph(), &before);
        model.key_down(&KeyInput { key: "Z".into(), command: true, shift: true, ..KeyInput::default() });
        assert!(model.graph().nodes().is_empty());
        model.key_down(&KeyInput { key: "y".into(), command: true, ..KeyInput::default() });
        assert_eq!(model.notice().unwrap().text, "nothing to redo");
    }

    #[test]
    fn copy_then_paste_is_one_step_with_fresh_ids_at_the_pointer() {
        let mut model = three_task_chain();
        model.select_all();
        let text = model.copy().unwrap();
        let clip = crate::engine::graph::from_json_str(&text).unwrap();
        model.pointer_move(&pointer(600.0, 600.0));
        let steps = model.history_lengths().0;
        assert_eq!(model.paste(&clip, 0.0), Ok(3));
        assert_eq!(model.history_lengths().0, steps + 1);
        assert_eq!(model.graph().nodes().len(), 6);
        assert_eq!(model.graph().edges().len(), 4, "the edges inside the copy came along");
        assert_eq!(model.selection().len(), 3, "the pasted nodes are selected");
        let pasted = bounds(model.graph().nodes().iter().skip(3)).unwrap();
        assert!(pasted.center().distance(Point::new(600.0, 600.0)) < 1.0);
        model.undo();
        assert_eq!(model.graph().nodes().len(), 3);
        assert!(model.selection().is_empty(), "undone nodes leave the selection");
    }

    #[test]
    fn a_paste_wider_than_the_view_brings_the_view_to_it() {
        let mut model = editor();
        let clip = crate::app::editor::presets::build("chain", &[("n".to_string(), "40".to_string())].into_iter().collect()).unwrap();
        let zoom = model.viewport().zoom;
        assert_eq!(model.paste(&clip, 0.0), Ok(40));
        let pasted = bounds(model.graph().nodes()).unwrap();
        assert!(model.viewport().zoom < zoom, "zoomed out to show the paste");
        assert!(model.viewport().visible().encloses(&pasted), "the whole paste is in view");
    }

    #[test]
    fn cut_and_duplicate() {
        let mut model = three_task_chain();
        model.pointer_down(&pointer(150.0, 200.0));
        model.pointer_up(&pointer(150.0, 200.0));
        model.key_down(&KeyInput { key: "d".into(), command: true, ..KeyInput::default() });
        assert_eq!(model.graph().nodes().len(), 4);
        assert_eq!(model.selection(), &BTreeSet::from([id("task_4")]));
        let text = model.cut(0.0).unwrap();
        assert!(text.contains("task_4"));
        assert_eq!(model.graph().nodes().len(), 3);
    }

    #[test]
    fn nudges_in_a_row_are_one_step_and_escape_cancels_a_drag() {
        let mut model = three_task_chain();
        model.select_all();
        let steps = model.history_lengths().0;
        for t in [0.0, 100.0, 200.0] {
            model.key_down(&KeyInput { key: "ArrowRight".into(), time_ms: t, ..KeyInput::default() });
        }
        assert_eq!(model.history_lengths().0, steps + 1);
        assert_eq!(node_center(model.graph().node(&id("task_1")).unwrap()).x, 150.0 + 24.0);
        let before = model.graph().clone();
        model.pointer_down(&pointer(174.0, 200.0));
        model.pointer_move(&pointer(300.0, 300.0));
        assert!(model.moving().is_some());
        model.key_down(&KeyInput { key: "Escape".into(), ..KeyInput::default() });
        model.pointer_up(&pointer(300.0, 300.0));
        assert_eq!(model.graph(), &before, "a cancelled move moves nothing");
    }

    #[test]
    fn tidy_is_one_undoable_step() {
        let mut model = three_task_chain();
        drag(&mut model, Point::new(450.0, 200.0), Point::new(460.0, 700.0));
        let messy = model.graph().clone();
        model.tidy(0.0);
        let tidy: Vec<Point> = model.graph().nodes().iter().map(node_center).collect();
        assert_eq!(tidy[0].y, tidy[1].y, "a chain tidies into a line");
        assert!(tidy[0].x < tidy[1].x && tidy[1].x < tidy[2].x);
        model.undo();
        assert_eq!(model.graph(), &messy);
    }

    #[test]
    fn the_view_pans_zooms_and_fits() {
        let mut model = three_task_chain();
        drag(&mut model, Point::new(300.0, 600.0), Point::new(400.0, 650.0));
        assert_eq!(model.viewport().origin, Point::new(-100.0, -50.0), "dragging the background pans");
        let anchor = model.viewport().to_world(Point::new(300.0, 300.0));
        model.wheel(Point::new(300.0, 300.0), -240.0);
        assert!(model.viewport().zoom > 1.0);
        assert!(model.viewport().to_world(Point::new(300.0, 300.0)).distance(anchor) < 1e-9, "wheel zooms around the pointer");
        model.key_down(&KeyInput { key: "f".into(), ..KeyInput::default() });
        let all = bounds(model.graph().nodes()).unwrap();
        assert!(model.viewport().visible().encloses(&all));
        assert!(model.take_changes().view);
        assert!(!model.take_changes().view, "changes are taken once");
    }

    #[test]
    fn a_touch_drag_moves_a_node_and_a_pinch_zooms() {
        let mut model = three_task_chain();
        let touch = |id: i32, x: f64, y: f64| PointerInput { id, kind: PointerKind::Touch, screen: Point::new(x, y), inside: true, ..PointerInput::default() };
        model.pointer_down(&touch(5, 450.0, 200.0));
        for x in [460.0, 480.0, 500.0] {
            model.pointer_move(&touch(5, x, 200.0));
        }
        model.pointer_up(&touch(5, 500.0, 200.0));
        assert_eq!(node_center(model.graph().node(&id("task_2")).unwrap()), Point::new(500.0, 200.0));
        model.pointer_down(&touch(6, 100.0, 600.0));
        model.pointer_down(&touch(7, 200.0, 600.0));
        model.pointer_move(&touch(7, 300.0, 600.0));
        assert!((model.viewport().zoom - 2.0).abs() < 1e-9);
    }

    #[test]
    fn marking_the_target_and_editing_a_task_in_the_inspector() {
        let mut model = three_task_chain();
        model.pointer_down(&pointer(750.0, 200.0));
        model.pointer_up(&pointer(750.0, 200.0));
        model.key_down(&KeyInput { key: "t".into(), ..KeyInput::default() });
        assert_eq!(model.graph().target(), Some(&id("task_3")));
        let steps = model.history_lengths().0;
        for pinned in [1, 12, 123] {
            let task = TaskNode { family: "math".into(), task_id: Some(pinned), input_kind: Some("scalar".into()), output_kind: Some("scalar".into()), function: None };
            model.update_task(&id("task_3"), task, pinned as f64).unwrap();
        }
        assert_eq!(model.history_lengths().0, steps + 1, "typing in one field is one step");
        model.select_all();
        model.mark_target(0.0);
        assert_eq!(model.notice().unwrap().text, "select one task to make it the target");
    }

    #[test]
    fn palette_items_dropped_outside_the_canvas_add_nothing() {
        let mut model = editor();
        model.begin_placing(PaletteItem::Pack);
        let outside = PointerInput { inside: false, ..pointer(-50.0, 10.0) };
        model.pointer_move(&outside);
        model.pointer_up(&outside);
        assert!(model.graph().nodes().is_empty());
        model.begin_placing(PaletteItem::Pick);
        model.pointer_move(&pointer(100.0, 100.0));
        model.pointer_up(&pointer(100.0, 100.0));
        assert_eq!(model.graph().nodes()[0].id, id("pick_1"));
        assert_eq!(model.graph().target(), None, "an adapter never becomes the target");
        assert_eq!(node_rect(&model.graph().nodes()[0], Point::default()).center(), Point::new(100.0, 100.0));
        let _ = TASK_SIZE;
    }

    #[test]
    fn clicking_an_issue_focuses_its_node() {
        let mut model = three_task_chain();
        model.focus(&id("task_3"));
        assert_eq!(model.selection(), &BTreeSet::from([id("task_3")]));
        let centre = model.viewport().to_screen(Point::new(750.0, 200.0));
        assert!(centre.distance(Point::new(600.0, 400.0)) < 1e-9);
    }

    #[test]
    fn replacing_the_graph_is_undoable_and_fits_the_view() {
        let mut model = three_task_chain();
        let before = model.graph().clone();
        let other = crate::app::editor::presets::build("multichain", &Default::default()).unwrap();
        model.replace(other.clone(), "open preset", 0.0);
        assert_eq!(model.graph(), &other);
        assert!(model.viewport().visible().encloses(&bounds(other.nodes()).unwrap()));
        model.undo();
        assert_eq!(model.graph(), &before);
    }

    // ---- Keyboard alternatives and announcements -----------------------------------------------------------

    fn key(model: &mut EditorModel, key: &str) -> KeyOutcome {
        model.key_down(&KeyInput { key: key.into(), ..KeyInput::default() })
    }

    fn alt(model: &mut EditorModel, key: &str) -> KeyOutcome {
        model.key_down(&KeyInput { key: key.into(), alt: true, ..KeyInput::default() })
    }

    /// Three tasks added from the palette with the keyboard alone, each beside the last, then unselected.
    fn keyboard_three() -> EditorModel {
        let mut model = editor();
        for _ in 0..3 {
            model.add_beside_focus(&PaletteItem::Task("math".into()), 0.0).unwrap();
        }
        key(&mut model, "Escape");
        model.take_announcements();
        model
    }

    #[test]
    fn the_canvas_has_one_tab_stop_and_arrows_walk_the_focus_when_nothing_is_selected() {
        let mut model = three_task_chain();
        key(&mut model, "Escape");
        assert!(model.selection().is_empty());
        assert_eq!(model.focused(), Some(&id("task_3")), "the focus stayed on the node added last");
        model.set_focus(&id("task_1"));
        assert_eq!(model.tab_stop(), Some(&id("task_1")));
        let before = model.graph().clone();
        key(&mut model, "ArrowRight");
        assert_eq!(model.focused(), Some(&id("task_2")));
        key(&mut model, "ArrowRight");
        key(&mut model, "ArrowRight");
        assert_eq!(model.focused(), Some(&id("task_3")), "nothing further right: the focus stays");
        assert_eq!(model.take_announcements().last().map(String::as_str), Some("No node to the right of task_3"));
        alt(&mut model, "ArrowLeft");
        assert_eq!(model.focused(), Some(&id("task_2")));
        assert_eq!(model.graph(), &before, "walking the focus moves no node");
        // Enter selects the focused node; arrows then nudge it, Alt+arrows still walk; Escape puts it down.
        key(&mut model, "Enter");
        assert_eq!(model.selection(), &BTreeSet::from([id("task_2")]));
        key(&mut model, "ArrowDown");
        assert_eq!(node_center(model.graph().node(&id("task_2")).unwrap()), Point::new(450.0, 208.0));
        alt(&mut model, "ArrowRight");
        assert_eq!(model.focused(), Some(&id("task_3")));
        assert_eq!(model.selection(), &BTreeSet::from([id("task_2")]), "the focus follows the selection, not the other way round");
    }

    #[test]
    fn the_focus_follows_clicks_and_leaves_deleted_nodes() {
        let mut model = three_task_chain();
        model.pointer_down(&pointer(150.0, 200.0));
        model.pointer_up(&pointer(150.0, 200.0));
        assert_eq!(model.focused(), Some(&id("task_1")));
        model.select_all();
        assert_eq!(model.focused(), Some(&id("task_1")), "a selection that keeps the focused node keeps the focus");
        key(&mut model, "Delete");
        assert_eq!(model.focused(), None);
        assert_eq!(model.tab_stop(), None);
        model.undo();
        assert_eq!(model.tab_stop(), Some(&id("task_1")), "with no focus the first node is the Tab stop");
    }

    #[test]
    fn enter_on_a_palette_entry_adds_beside_the_focus_in_one_step_and_focuses_it() {
        let mut model = editor();
        let first = model.add_beside_focus(&PaletteItem::Task("math".into()), 0.0).unwrap();
        assert_eq!(node_center(model.graph().node(&first).unwrap()), Point::new(600.0, 400.0), "no focus: the view's centre");
        assert_eq!(model.graph().target(), Some(&first));
        let steps = model.history_lengths().0;
        let pack = model.add_beside_focus(&PaletteItem::Pack, 0.0).unwrap();
        assert_eq!(pack, id("pack_2"), "ids count every node");
        assert_eq!(model.history_lengths().0, steps + 1, "one undoable step");
        assert_eq!(model.focused(), Some(&pack));
        let (a, b) = (node_rect(model.graph().node(&first).unwrap(), Point::default()), node_rect(model.graph().node(&pack).unwrap(), Point::default()));
        assert_eq!((b.x - a.right(), b.center().y), (keyboard::ADD_GAP, a.center().y), "to the right, level");
        // Beside the first again: the spot is taken, so the new node goes below it.
        model.set_focus(&first);
        let third = model.add_beside_focus(&PaletteItem::Pick, 0.0).unwrap();
        let c = node_rect(model.graph().node(&third).unwrap(), Point::default());
        assert!(!c.intersects(&b) && c.y > b.bottom(), "{c:?} below {b:?}");
        assert_eq!(model.take_announcements(), ["Added task_1, math task, scalar to scalar, target", "Added pack_2, pack adapter, scalars into a list", "Added pick_3, pick adapter, element 0 of a list"]);
        model.undo();
        assert_eq!(model.graph().nodes().len(), 2);
        assert_eq!(model.focused(), None, "an undone node loses the focus");
        assert_eq!(model.take_announcements(), ["Undid: add pick_3"]);
    }

    #[test]
    fn c_opens_a_filterable_connect_list_and_enter_connects_through_graph_edit() {
        let mut model = keyboard_three();
        model.set_focus(&id("task_2"));
        key(&mut model, "c");
        let menu = model.connect_menu().unwrap();
        assert_eq!((menu.node.clone(), menu.query.as_str(), menu.active), (id("task_2"), "", 0));
        let labels: Vec<String> = model.connect_choices().into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["task_2 output → task_1 input (math, scalar)", "task_2 output → task_3 input (math, scalar)", "task_1 output → task_2 input (math, scalar)", "task_3 output → task_2 input (math, scalar)"]);
        assert_eq!(model.take_announcements(), ["Connect task_2: 4 choices (type to filter, Enter connects, Escape closes)"]);
        for ch in ["3"] {
            key(&mut model, ch);
        }
        assert_eq!(model.connect_choices().len(), 2, "typing filters by node id");
        key(&mut model, "ArrowDown");
        key(&mut model, "ArrowDown");
        assert_eq!(model.connect_menu().unwrap().active, 0, "the active choice wraps around");
        let steps = model.history_lengths().0;
        key(&mut model, "Enter");
        assert!(model.connect_menu().is_none(), "a made edge closes the list");
        assert_eq!(model.graph().edges().len(), 1);
        assert_eq!((model.graph().edges()[0].source.clone(), model.graph().edges()[0].destination.clone()), (id("task_2"), id("task_3")));
        assert_eq!(model.history_lengths().0, steps + 1);
        assert_eq!(model.take_announcements(), ["Connected task_2 output to task_3 input"]);
        key(&mut model, "c");
        key(&mut model, "Escape");
        assert!(model.connect_menu().is_none());
        assert_eq!(model.selection(), &BTreeSet::new(), "Escape closed the list, nothing else");
        model.undo();
        assert!(model.graph().edges().is_empty());
        assert_eq!(model.take_announcements().last().map(String::as_str), Some("Undid: connect task_2 to task_3"));
    }

    #[test]
    fn refusals_from_the_connect_list_say_exactly_what_a_drag_says() {
        let mut model = keyboard_three();
        model.connect(&id("task_1"), &id("task_2"), 0.0).unwrap();
        model.connect(&id("task_2"), &id("task_3"), 0.0).unwrap();
        let list_input = TaskNode { family: "math".into(), task_id: None, input_kind: Some("list".into()), output_kind: Some("scalar".into()), function: None };
        model.set_focus(&id("task_2"));
        model.add_beside_focus(&PaletteItem::Task("math".into()), 0.0).unwrap();
        model.update_task(&id("task_4"), list_input, 0.0).unwrap();
        model.take_announcements();
        let before = model.graph().clone();
        // Kind mismatch: task_3's scalar into task_4's list, listed last and marked.
        model.set_focus(&id("task_3"));
        key(&mut model, "c");
        let choices = model.connect_choices();
        let mismatch = choices.iter().position(|c| c.to == id("task_4")).unwrap();
        assert!(!choices[mismatch].fits && choices[mismatch].label.contains("kind mismatch"));
        for _ in 0..mismatch {
            key(&mut model, "ArrowDown");
        }
        model.take_announcements();
        key(&mut model, "Enter");
        let text = "task_3 outputs a scalar, but task_4 takes a list";
        assert_eq!(model.notice().unwrap().text, format!("refused: {text}"));
        assert_eq!(model.notice().unwrap().at, None, "a keyboard refusal is not pinned to the pointer");
        assert_eq!(model.take_announcements(), [format!("Refused: {text}")]);
        assert!(model.connect_menu().is_some(), "the list stays open after a refusal");
        // A cycle, with its path; then a taken input.
        key(&mut model, "Escape");
        key(&mut model, "c");
        model.set_connect_query("task_1");
        let first = model.connect_choices()[0].clone();
        assert_eq!((first.from.clone(), first.to.clone()), (id("task_3"), id("task_1")));
        key(&mut model, "Enter");
        assert_eq!(model.take_announcements().last().unwrap(), "Refused: connecting task_3 to task_1 would create a cycle (task_1 -> task_2 -> task_3 -> task_1)");
        model.set_connect_query("task_2");
        let labels: Vec<String> = model.connect_choices().into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["task_3 output → task_2 input (math, scalar)"], "task_2 -> task_3 exists already; the other way is listed");
        model.close_connect();
        model.set_focus(&id("task_1"));
        key(&mut model, "c");
        model.set_connect_query("task_3");
        key(&mut model, "Enter");
        assert!(model.take_announcements().last().unwrap().starts_with("Refused: input already taken: task_3 takes its one input from task_2"));
        assert_eq!(model.graph(), &before, "refusals change nothing");
    }

    #[test]
    fn e_walks_the_focused_nodes_edges_and_delete_removes_the_one_selected() {
        let mut model = three_task_chain();
        key(&mut model, "Escape");
        model.set_focus(&id("task_2"));
        model.take_announcements();
        key(&mut model, "e");
        assert_eq!(model.selected_edge(), Some(&(id("task_1"), id("task_2"))));
        key(&mut model, "e");
        assert_eq!(model.selected_edge(), Some(&(id("task_2"), id("task_3"))));
        key(&mut model, "e");
        assert_eq!(model.selected_edge(), Some(&(id("task_1"), id("task_2"))), "cycles around");
        assert_eq!(model.take_announcements(), ["Edge task_1 to task_2, 1 of 2; Delete removes it", "Edge task_2 to task_3, 2 of 2; Delete removes it", "Edge task_1 to task_2, 1 of 2; Delete removes it"]);
        key(&mut model, "Delete");
        assert_eq!(model.graph().edges().len(), 1);
        assert_eq!(model.graph().nodes().len(), 3);
        assert_eq!(model.focused(), Some(&id("task_2")), "the focus stays on the node");
        assert_eq!(model.take_announcements(), ["Deleted edge task_1 to task_2"]);
        model.undo();
        assert_eq!(model.graph().edges().len(), 2);
        assert_eq!(model.take_announcements(), ["Undid: delete edge task_1 -> task_2"]);
    }

    #[test]
    fn click_a_port_then_another_to_connect_and_click_a_palette_entry_then_the_canvas_to_place() {
        let mut model = three_task_chain();
        let a = out_port(&model, "task_1");
        let c = in_port(&model, "task_3");
        model.pointer_down(&pointer(a.x, a.y));
        model.pointer_up(&pointer(a.x, a.y));
        assert_eq!(model.armed_port(), Some(&(id("task_1"), PortSide::Out)));
        assert_eq!(model.take_announcements().last().unwrap(), "Connecting from task_1 output: click an input port, Escape cancels");
        model.pointer_down(&pointer(c.x, c.y));
        model.pointer_up(&pointer(c.x, c.y));
        assert!(model.take_announcements().last().unwrap().starts_with("Refused: input already taken"), "the same refusal as a drag");
        assert_eq!(model.armed_port(), None);
        // In port first, then an out port: connects the other way round.
        place(&mut model, "math", 450.0, 500.0);
        let (free_in, out) = (in_port(&model, "task_4"), out_port(&model, "task_3"));
        model.pointer_down(&pointer(free_in.x, free_in.y));
        model.pointer_up(&pointer(free_in.x, free_in.y));
        model.pointer_down(&pointer(out.x, out.y));
        model.pointer_up(&pointer(out.x, out.y));
        assert!(model.graph().edges().iter().any(|e| e.source == id("task_3") && e.destination == id("task_4")));
        // Escape forgets a clicked port.
        model.pointer_down(&pointer(out.x, out.y));
        model.pointer_up(&pointer(out.x, out.y));
        key(&mut model, "Escape");
        assert_eq!(model.armed_port(), None);
        // A palette entry clicked (released off the canvas without entering it), then a click on the canvas.
        model.begin_placing(PaletteItem::Pack);
        model.pointer_up(&PointerInput { inside: false, ..pointer(-40.0, 10.0) });
        assert!(matches!(model.gesture(), Gesture::Placing { .. }), "still carried");
        assert_eq!(model.take_announcements().last().unwrap(), "Click the canvas to place a pack adapter, Escape cancels");
        model.pointer_down(&pointer(300.0, 650.0));
        model.pointer_up(&pointer(300.0, 650.0));
        let pack = model.graph().nodes().last().unwrap();
        assert_eq!((pack.kind.clone(), node_center(pack)), (NodeKind::Pack, Point::new(300.0, 650.0)));
        assert!(model.gesture() == &Gesture::Idle);
    }

    #[test]
    fn every_edit_refusal_undo_and_problem_count_is_announced_once() {
        let mut model = keyboard_three();
        model.note_problems(3);
        model.note_problems(3);
        model.connect(&id("task_1"), &id("task_2"), 0.0).unwrap();
        model.note_problems(2);
        let _ = model.connect(&id("task_2"), &id("task_1"), 0.0);
        model.undo();
        model.redo();
        model.undo();
        model.undo();
        model.undo();
        model.undo();
        model.undo();
        model.note_problems(0);
        assert_eq!(
            model.take_announcements(),
            [
                "3 problems",
                "Connected task_1 output to task_2 input",
                "2 problems",
                "Refused: connecting task_2 to task_1 would create a cycle (task_1 -> task_2 -> task_1)",
                "Undid: connect task_1 to task_2",
                "Redid: connect task_1 to task_2",
                "Undid: connect task_1 to task_2",
                "Undid: add task_3",
                "Undid: add task_2",
                "Undid: add task_1",
                "Nothing to undo",
                "No problems",
            ]
        );
        assert!(model.take_announcements().is_empty(), "drained");
        let changes = model.take_changes();
        assert!(changes.announce || changes.any());
    }

    #[test]
    fn the_connect_list_stays_inside_the_canvas() {
        let mut model = editor();
        place(&mut model, "math", 1150.0, 780.0);
        key(&mut model, "c");
        let at = model.connect_menu_anchor().unwrap();
        let (w, h) = keyboard::MENU_SIZE;
        assert!(at.x >= 8.0 && at.x + w <= 1200.0 - 8.0, "{at:?}");
        assert!(at.y >= 8.0 && at.y + h <= 800.0, "above the node when there is no room below: {at:?}");
        model.close_connect();
        place(&mut model, "math", 100.0, 100.0);
        key(&mut model, "c");
        let node = node_rect(model.graph().node(&id("task_2")).unwrap(), Point::default());
        assert_eq!(model.connect_menu_anchor(), Some(Point::new(node.x.max(8.0), node.bottom() + 6.0)), "under the node when it fits");
    }
}
