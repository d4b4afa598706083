//! The editor's input: pointer, wheel and key events, turned into gestures by the gesture machine and into
//! effects the model runs (selections, moves, connections, placements, commands).

use super::*;
use crate::app::design::access::Direction;

impl EditorModel {
    /// A pointer went down on the canvas.
    pub fn pointer_down(&mut self, input: &PointerInput) {
        self.pointer = Some(input.screen);
        let world = self.viewport.to_world(input.screen);
        let hit = hit_test(&self.graph, world, self.viewport.zoom);
        let effects = self.machine.down(input, world, hit);
        self.run(effects, input.time_ms);
    }

    /// A pointer moved (over the canvas, or anywhere while a palette item is carried).
    pub fn pointer_move(&mut self, input: &PointerInput) {
        if input.inside {
            self.pointer = Some(input.screen);
        }
        let world = self.viewport.to_world(input.screen);
        let over = match self.machine.gesture() {
            Gesture::Connecting { .. } => node_at(&self.graph, world, self.viewport.zoom),
            _ => None,
        };
        let effects = self.machine.moved(input, world, over);
        self.run(effects, input.time_ms);
    }

    /// A pointer went up.
    pub fn pointer_up(&mut self, input: &PointerInput) {
        let world = self.viewport.to_world(input.screen);
        let over = node_at(&self.graph, world, self.viewport.zoom);
        let effects = self.machine.up(input, world, over);
        self.run(effects, input.time_ms);
    }

    /// The browser cancelled a pointer.
    pub fn pointer_cancel(&mut self, id: i32) {
        let effects = self.machine.pointer_cancelled(id);
        self.run(effects, 0.0);
    }

    /// The pointer left the canvas.
    pub fn pointer_leave(&mut self) {
        self.pointer = None;
    }

    /// Starts carrying a palette item.
    pub fn begin_placing(&mut self, item: PaletteItem) {
        let effects = self.machine.begin_placing(item);
        self.run(effects, 0.0);
    }

    /// A wheel turn over the canvas: zoom around the pointer.
    pub fn wheel(&mut self, screen: Point, delta_y: f64) {
        let factor = (-delta_y * 0.0015).clamp(-0.5, 0.5).exp();
        self.viewport.zoom_at(screen, factor);
        self.changes.view = true;
    }

    /// A key went down while the canvas had the keyboard.
    pub fn key_down(&mut self, input: &KeyInput) -> KeyOutcome {
        if self.connect_menu.is_some() {
            return self.connect_menu_key(input);
        }
        let Some(command) = command_for(input) else { return KeyOutcome::Ignored };
        let t = input.time_ms;
        match command {
            // With nothing selected, arrows walk the focus between nodes rather than nudge nothing.
            Command::Nudge { dx, dy } if self.selection.is_empty() && !self.graph.nodes().is_empty() => {
                let direction = if dx < 0.0 {
                    Direction::Left
                } else if dx > 0.0 {
                    Direction::Right
                } else if dy < 0.0 {
                    Direction::Up
                } else {
                    Direction::Down
                };
                self.move_focus(direction);
            }
            Command::Focus(direction) => self.move_focus(direction),
            Command::Activate => self.activate(),
            Command::OpenConnect => self.open_connect(),
            Command::NextEdge => self.next_edge(),
            Command::Delete => self.delete_selection(t),
            Command::SelectAll => self.select_all(),
            Command::Duplicate => self.duplicate(t),
            Command::Undo => self.undo(),
            Command::Redo => self.redo(),
            Command::Nudge { dx, dy } => self.nudge(dx, dy, t),
            Command::Fit => self.fit(),
            Command::ZoomIn => self.zoom_by(ZOOM_STEP),
            Command::ZoomOut => self.zoom_by(1.0 / ZOOM_STEP),
            Command::ActualSize => self.zoom_by(1.0 / self.viewport.zoom),
            Command::MarkTarget => self.mark_target(t),
            Command::ToggleSnap => self.set_snap(!self.snap),
            Command::Escape => {
                if self.machine.disarm() {
                    self.changes.overlay = true;
                    self.announce("Cancelled the connection");
                } else if self.machine.is_idle() {
                    self.set_selection(BTreeSet::new());
                    self.clear_notice();
                } else {
                    let effects = self.machine.cancel();
                    self.run(effects, t);
                }
            }
            Command::ToggleHelp => return KeyOutcome::ToggleHelp,
            Command::HoldPan => self.machine.space_held = true,
        }
        KeyOutcome::Handled
    }

    /// A key went up (releasing Space ends pan-on-press).
    pub fn key_up(&mut self, key: &str) {
        if key == " " {
            self.machine.space_held = false;
        }
    }

    fn run(&mut self, effects: Vec<Effect>, time_ms: f64) {
        for effect in effects {
            match effect {
                Effect::Pan { dx, dy } => {
                    self.viewport.pan_by(dx, dy);
                    self.changes.view = true;
                }
                Effect::Zoom { at, factor } => {
                    self.viewport.zoom_at(at, factor);
                    self.changes.view = true;
                }
                Effect::Select { ids, mode } => self.select(ids, mode),
                Effect::SelectEdge(from, to) => {
                    self.selection.clear();
                    self.selected_edge = Some((from, to));
                    self.changes.selection = true;
                }
                Effect::ClearSelection => self.set_selection(BTreeSet::new()),
                Effect::GrabNode { anchor, shift } => {
                    if !self.selection.contains(&anchor) {
                        self.select(vec![anchor], if shift { SelectMode::Add } else { SelectMode::Replace });
                    }
                    // The static drawing leaves the moving nodes out.
                    self.changes.overlay = true;
                }
                Effect::MoveSelection { anchor, by } => {
                    let offset = self.snapped_offset(&anchor, by);
                    if offset != Point::default() {
                        let edit = self.move_edit(offset);
                        self.history.seal();
                        let _ = self.apply(&format!("move {}", plural(self.selection.len(), "node")), edit, None, time_ms);
                    }
                }
                Effect::Connect { from, to } => {
                    let _ = self.connect(&from, &to, time_ms);
                }
                Effect::BoxSelect { start, end, additive } => {
                    let ids = nodes_in_rect(&self.graph, &Rect::spanning(start, end));
                    self.select(ids, if additive { SelectMode::Add } else { SelectMode::Replace });
                }
                Effect::Place { item, at } => {
                    let _ = self.add_node(&item, at, time_ms);
                }
                Effect::ArmPort(node, side) => {
                    let (end, other) = match side {
                        crate::app::design::geometry::PortSide::Out => ("output", "an input"),
                        crate::app::design::geometry::PortSide::In => ("input", "an output"),
                    };
                    self.announce(format!("Connecting from {node} {end}: click {other} port, Escape cancels"));
                    self.changes.overlay = true;
                }
                Effect::HoldPlacing(item) => {
                    let what = match item {
                        PaletteItem::Task(family) => format!("a {family} task"),
                        PaletteItem::Pick => "a pick adapter".into(),
                        PaletteItem::Pinned { name, .. } => format!("the task {name}"),
                        PaletteItem::Pack => "a pack adapter".into(),
                    };
                    self.announce(format!("Click the canvas to place {what}, Escape cancels"));
                }
                Effect::Redraw => self.changes.overlay = true,
            }
        }
    }

    fn select(&mut self, ids: Vec<NodeId>, mode: SelectMode) {
        let clicked = ids.last().cloned();
        let mut selection = match mode {
            SelectMode::Replace => BTreeSet::new(),
            SelectMode::Toggle | SelectMode::Add => self.selection.clone(),
        };
        for id in ids {
            if mode == SelectMode::Toggle && selection.contains(&id) {
                selection.remove(&id);
            } else {
                selection.insert(id);
            }
        }
        // The focus follows the selection to the node clicked last.
        if let Some(id) = clicked.filter(|id| selection.contains(id)) {
            if self.focused.as_ref() != Some(&id) {
                self.focused = Some(id);
                self.changes.selection = true;
            }
        }
        self.set_selection(selection);
    }
}
