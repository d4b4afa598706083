//! The keyboard's way through the editor, beside the pointer's: the focused node (the canvas's one Tab
//! stop, moved by arrows, following the selection), adding palette entries beside it, the connect list,
//! walking a node's edges, and the announcement queue the page reads into its live region. The rules of
//! focus geometry and of the connect list's contents are in `access.rs`.

use super::*;
use crate::app::design::access::{self, ConnectChoice, Direction};
use crate::app::design::geometry::node_rect;

/// Horizontal gap (world units) between the focused node and a node added beside it.
pub const ADD_GAP: f64 = 72.0;

/// The room the connect list takes on screen (its CSS width and most of its height), to keep it inside the canvas.
pub const MENU_SIZE: (f64, f64) = (340.0, 260.0);

/// The open connect list of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectMenu {
    /// The node whose list it is.
    pub node: NodeId,
    /// What was typed to filter it.
    pub query: String,
    /// The index of the active choice among the filtered ones.
    pub active: usize,
}

impl EditorModel {
    /// The node with the keyboard focus.
    pub fn focused(&self) -> Option<&NodeId> {
        self.focused.as_ref()
    }

    /// The port clicked first of a click-click connection.
    pub fn armed_port(&self) -> Option<&(NodeId, crate::app::design::geometry::PortSide)> {
        self.machine.armed()
    }

    /// The node that takes the canvas's Tab stop: the focused node, else the first node.
    pub fn tab_stop(&self) -> Option<&NodeId> {
        self.focused.as_ref().or_else(|| self.graph.nodes().first().map(|n| &n.id))
    }

    /// Gives a node the focus (the browser's focus landed on it, by Tab or a click); nothing is announced, as
    /// the node's own label is read.
    pub fn set_focus(&mut self, id: &NodeId) {
        if self.graph.node(id).is_some() && self.focused.as_ref() != Some(id) {
            self.focused = Some(id.clone());
            self.changes.selection = true;
        }
    }

    /// Moves the focus to the nearest node in `direction` (from the Tab stop when no node is focused),
    /// bringing it into view.
    pub fn move_focus(&mut self, direction: Direction) {
        let Some(from) = self.tab_stop().cloned() else {
            self.announce("The graph is empty");
            return;
        };
        let next = if self.focused.is_none() { Some(from.clone()) } else { access::nearest_in_direction(&self.graph, &from, direction) };
        match next {
            Some(id) => {
                self.focused = Some(id.clone());
                self.changes.selection = true;
                self.reveal(&id);
            }
            None => {
                let way = match direction {
                    Direction::Left => "to the left",
                    Direction::Right => "to the right",
                    Direction::Up => "above",
                    Direction::Down => "below",
                };
                self.announce(format!("No node {way} of {from}"));
            }
        }
    }

    /// Selects the focused node alone (Enter).
    pub fn activate(&mut self) {
        match self.focused.clone() {
            Some(id) => {
                self.set_selection(BTreeSet::from([id.clone()]));
                self.announce(format!("Selected {id}"));
            }
            None => self.announce("No node has the focus"),
        }
    }

    /// Adds a palette entry beside the focused node (to its right, moved down past any node in the way), or
    /// at the view's centre when no node is focused: one undoable step; the new node takes the focus.
    pub fn add_beside_focus(&mut self, item: &PaletteItem, time_ms: f64) -> Result<NodeId, EditError> {
        let probe = Node { id: NodeId(String::new()), kind: palette_kind(item), position: Some((0.0, 0.0)) };
        let size = node_rect(&probe, Point::default());
        let at = match self.focused.as_ref().and_then(|id| self.graph.node(id)) {
            Some(node) => {
                let r = node_rect(node, Point::default());
                let mut at = Point::new(r.right() + ADD_GAP + size.width / 2.0, r.center().y);
                for _ in 0..50 {
                    let spot = Rect::centered(at, size.width, size.height).inflate(8.0);
                    if !self.graph.nodes().iter().any(|n| node_rect(n, Point::default()).intersects(&spot)) {
                        break;
                    }
                    at.y += size.height + 24.0;
                }
                at
            }
            None => self.viewport.to_world(Point::new(self.viewport.width / 2.0, self.viewport.height / 2.0)),
        };
        self.history.seal();
        let id = self.add_node(item, at, time_ms)?;
        self.focused = Some(id.clone());
        self.reveal(&id);
        Ok(id)
    }

    /// Opens the connect list of the focused node (C).
    pub fn open_connect(&mut self) {
        let Some(node) = self.focused.clone() else {
            self.announce("Focus a node first: Tab to the canvas, then arrow keys");
            return;
        };
        self.connect_menu = Some(ConnectMenu { node: node.clone(), query: String::new(), active: 0 });
        self.changes.menu = true;
        let n = self.connect_choices().len();
        self.announce(format!("Connect {node}: {} (type to filter, Enter connects, Escape closes)", plural(n, "choice")));
    }

    /// The open connect list.
    pub fn connect_menu(&self) -> Option<&ConnectMenu> {
        self.connect_menu.as_ref()
    }

    /// The open connect list's choices, filtered by what was typed.
    pub fn connect_choices(&self) -> Vec<ConnectChoice> {
        match &self.connect_menu {
            Some(menu) => access::connect_choices(&self.graph, &menu.node, &menu.query),
            None => Vec::new(),
        }
    }

    /// Where to show the connect list (screen, its top-left corner): under the node's box, kept inside the
    /// canvas (above the box when there is no room below).
    pub fn connect_menu_anchor(&self) -> Option<Point> {
        let node = self.graph.node(&self.connect_menu.as_ref()?.node)?;
        let r = node_rect(node, Point::default());
        let below = self.viewport.to_screen(Point::new(r.x, r.bottom() + 6.0));
        let above = self.viewport.to_screen(Point::new(r.x, r.y - 6.0)).y - MENU_SIZE.1;
        let y = if below.y + MENU_SIZE.1 > self.viewport.height && above >= 0.0 { above } else { below.y };
        Some(Point::new(below.x.min(self.viewport.width - MENU_SIZE.0 - 8.0).max(8.0), y.max(8.0)))
    }

    /// Filters the connect list (the first choice becomes the active one).
    pub fn set_connect_query(&mut self, query: &str) {
        if let Some(menu) = &mut self.connect_menu {
            menu.query = query.to_string();
            menu.active = 0;
            self.changes.menu = true;
        }
    }

    /// Moves the active choice by `delta`, wrapping around.
    pub fn move_connect_choice(&mut self, delta: isize) {
        let n = self.connect_choices().len() as isize;
        if let (Some(menu), true) = (&mut self.connect_menu, n > 0) {
            menu.active = (menu.active as isize + delta).rem_euclid(n) as usize;
            self.changes.menu = true;
        }
    }

    /// Makes the active choice's edge through `GraphEdit::Connect`: the list closes on success and stays open
    /// on a refusal, which is announced and shown exactly as a drag's.
    pub fn choose_connect(&mut self, time_ms: f64) -> Result<(), EditError> {
        let choices = self.connect_choices();
        let Some(choice) = self.connect_menu.as_ref().and_then(|m| choices.get(m.active)).cloned() else {
            self.announce("No choice matches");
            return Ok(());
        };
        let pointer = self.pointer.take();
        let result = self.connect(&choice.from, &choice.to, time_ms);
        self.pointer = pointer;
        if result.is_ok() {
            self.close_connect();
        }
        result
    }

    /// Closes the connect list.
    pub fn close_connect(&mut self) {
        if self.connect_menu.take().is_some() {
            self.changes.menu = true;
        }
    }

    /// Selects the focused node's next edge, in the graph's edge order (E); Delete then removes it.
    pub fn next_edge(&mut self) {
        let Some(node) = self.focused.clone() else {
            self.announce("No node has the focus");
            return;
        };
        let edges: Vec<(NodeId, NodeId)> = self.graph.edges().iter().filter(|e| e.source == node || e.destination == node).map(|e| (e.source.clone(), e.destination.clone())).collect();
        if edges.is_empty() {
            self.announce(format!("{node} has no edges"));
            return;
        }
        let next = match &self.selected_edge {
            Some(current) => edges.iter().position(|e| e == current).map_or(0, |i| (i + 1) % edges.len()),
            None => 0,
        };
        let (from, to) = edges[next].clone();
        self.selection.clear();
        self.selected_edge = Some((from.clone(), to.clone()));
        self.changes.selection = true;
        self.announce(format!("Edge {from} to {to}, {} of {}; Delete removes it", next + 1, edges.len()));
    }

    /// Takes the validation count after the graph changed; a change from the last count is announced.
    pub fn note_problems(&mut self, count: usize) {
        if self.problems.replace(count) != Some(count) {
            self.announce(access::problems_sentence(count));
        }
    }

    /// The sentences to announce since the last call, oldest first.
    pub fn take_announcements(&mut self) -> Vec<String> {
        std::mem::take(&mut self.announcements)
    }

    /// Queues a sentence for the live region.
    pub fn announce(&mut self, sentence: impl Into<String>) {
        self.announcements.push(sentence.into());
        self.changes.announce = true;
    }

    /// A key while the connect list is open: arrows, Home and End move, Enter connects, Escape and Tab close,
    /// Backspace and characters edit the filter (the page's field types them itself and sends only the rest).
    pub(super) fn connect_menu_key(&mut self, input: &KeyInput) -> KeyOutcome {
        match input.key.as_str() {
            "ArrowDown" => self.move_connect_choice(1),
            "ArrowUp" => self.move_connect_choice(-1),
            "Home" => {
                if let Some(menu) = &mut self.connect_menu {
                    menu.active = 0;
                    self.changes.menu = true;
                }
            }
            "End" => {
                let last = self.connect_choices().len().saturating_sub(1);
                if let Some(menu) = &mut self.connect_menu {
                    menu.active = last;
                    self.changes.menu = true;
                }
            }
            "Enter" => {
                let _ = self.choose_connect(input.time_ms);
            }
            "Escape" => {
                self.close_connect();
                self.announce("Closed the connect list");
            }
            "Tab" => {
                self.close_connect();
                return KeyOutcome::Ignored;
            }
            "Backspace" => {
                let mut query = self.connect_menu.as_ref().map(|m| m.query.clone()).unwrap_or_default();
                query.pop();
                self.set_connect_query(&query);
            }
            key if key.chars().count() == 1 && !input.command => {
                let query = format!("{}{key}", self.connect_menu.as_ref().map(|m| m.query.as_str()).unwrap_or_default());
                self.set_connect_query(&query);
            }
            _ => return KeyOutcome::Ignored,
        }
        KeyOutcome::Handled
    }

    /// Brings a node into view when it is outside it.
    fn reveal(&mut self, id: &NodeId) {
        let Some(node) = self.graph.node(id) else { return };
        let r = node_rect(node, Point::default());
        if !self.viewport.visible().encloses(&r) {
            self.viewport.center_on(r.center());
            self.changes.view = true;
        }
    }
}

/// The node kind a palette entry adds.
pub fn palette_kind(item: &PaletteItem) -> NodeKind {
    match item {
        PaletteItem::Task(family) => NodeKind::Task(new_task(family)),
        PaletteItem::Pinned { family, task_id, input, output, .. } => NodeKind::Task(crate::engine::graph::TaskNode {
            family: family.clone(),
            task_id: Some(*task_id),
            input_kind: Some(input.clone()),
            output_kind: Some(output.clone()),
            function: None,
        }),
        PaletteItem::Pick => NodeKind::Pick { index: 0 },
        PaletteItem::Pack => NodeKind::Pack,
    }
}
