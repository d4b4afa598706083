//! The canvas's pointer state machine: idle, pressed (not yet a drag), panning, moving the selection,
//! connecting from a port, box-selecting, placing a palette item, and pinching with two touches. It is
//! pointer-id aware (a second touch turns any one-finger gesture into a pinch; other pointers are ignored),
//! and it decides only: it returns `Effect`s that the editor model carries out, and the model draws the
//! gesture in progress from `Gesture`.

use std::collections::BTreeMap;

use super::geometry::{Point, PortSide};
use crate::engine::graph::NodeId;

/// How far (screen pixels) a pointer must travel before a press becomes a drag; touches get more slack.
pub const DRAG_THRESHOLD: f64 = 4.0;
/// The drag threshold for touch pointers.
pub const TOUCH_DRAG_THRESHOLD: f64 = 8.0;

/// What kind of device a pointer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PointerKind {
    #[default]
    Mouse,
    Pen,
    Touch,
}

/// One pointer event, in canvas screen coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PointerInput {
    /// The pointer's id (one per finger for touch).
    pub id: i32,
    pub kind: PointerKind,
    /// Position relative to the canvas's top-left corner.
    pub screen: Point,
    /// 0 primary, 1 middle, 2 secondary.
    pub button: i16,
    pub shift: bool,
    /// Ctrl, or Cmd on macOS.
    pub command: bool,
    /// Whether the pointer is over the canvas (palette drags start outside it).
    pub inside: bool,
    /// Event time in milliseconds (for history coalescing; never read from a clock here).
    pub time_ms: f64,
}

/// What is under a point of the canvas.
#[derive(Clone, Debug, PartialEq)]
pub enum Hit {
    Port(NodeId, PortSide),
    Node(NodeId),
    Edge(NodeId, NodeId),
    Background,
}

/// A palette entry being placed.
#[derive(Clone, Debug, PartialEq)]
pub enum PaletteItem {
    /// A task node of a family (`math`, `gsm`, `python`, `any`).
    Task(String),
    /// A task node pinned to one task of a family, with its kinds (a pack's task, from the palette's list).
    Pinned { family: String, task_id: i64, input: String, output: String, name: String },
    Pick,
    Pack,
}

/// The gesture in progress.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Gesture {
    #[default]
    Idle,
    /// Down, not yet moved past the threshold.
    Pressed { pointer: i32, start: Point, start_world: Point, hit: Hit, shift: bool, touch: bool },
    Panning { pointer: i32, last: Point },
    /// Moving the selection; `anchor` is the node grabbed, `offset` the world distance so far.
    Moving { pointer: i32, anchor: NodeId, start_world: Point, offset: Point },
    /// Dragging a new edge from a port; `over` is the node under the pointer.
    Connecting { pointer: i32, from: NodeId, side: PortSide, cursor: Point, over: Option<NodeId> },
    /// Dragging a selection rectangle (world corners).
    BoxSelecting { pointer: i32, start: Point, current: Point, additive: bool },
    /// Carrying a palette item; `cursor` is the world point while over the canvas.
    Placing { item: PaletteItem, cursor: Option<Point> },
    /// Two touches: the last known screen positions of both.
    Pinching { a: (i32, Point), b: (i32, Point) },
}

/// How a click changes the selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectMode {
    /// The clicked nodes become the selection.
    Replace,
    /// Shift-click: the clicked node joins or leaves the selection.
    Toggle,
    /// Shift-box: the boxed nodes join the selection.
    Add,
}

/// What the model must do after an event.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Move the view by a screen distance.
    Pan { dx: f64, dy: f64 },
    /// Zoom by `factor` around a screen point.
    Zoom { at: Point, factor: f64 },
    /// Change the node selection.
    Select { ids: Vec<NodeId>, mode: SelectMode },
    /// Select an edge.
    SelectEdge(NodeId, NodeId),
    /// Clear the selection.
    ClearSelection,
    /// A move began: make sure `anchor` is selected (alone unless `shift`).
    GrabNode { anchor: NodeId, shift: bool },
    /// Move the selection by a world distance (the drop of a move), anchored at `anchor`.
    MoveSelection { anchor: NodeId, by: Point },
    /// Connect two nodes.
    Connect { from: NodeId, to: NodeId },
    /// Select the nodes whose boxes meet the world rectangle spanned by two corners.
    BoxSelect { start: Point, end: Point, additive: bool },
    /// Add a palette item centred at a world point.
    Place { item: PaletteItem, at: Point },
    /// A port was clicked (pressed and released on its own node): the next click on another port connects.
    ArmPort(NodeId, PortSide),
    /// A palette entry was clicked (released without entering the canvas): the next canvas click places it.
    HoldPlacing(PaletteItem),
    /// The drawing of the gesture changed.
    Redraw,
}

/// The state machine, with the pointers it tracks.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    gesture: Gesture,
    /// Pointers down on the canvas, by id, with their latest screen positions.
    down: BTreeMap<i32, Point>,
    /// Space is held: presses pan.
    pub space_held: bool,
    /// The port clicked first of a click-click connection.
    armed: Option<(NodeId, PortSide)>,
    /// The carried palette item has been over the canvas (a release outside then cancels it).
    entered: bool,
}

impl Machine {
    /// The gesture in progress.
    pub fn gesture(&self) -> &Gesture {
        &self.gesture
    }

    /// True while no gesture is in progress.
    pub fn is_idle(&self) -> bool {
        self.gesture == Gesture::Idle
    }

    /// The port clicked first of a click-click connection, waiting for the second.
    pub fn armed(&self) -> Option<&(NodeId, PortSide)> {
        self.armed.as_ref()
    }

    /// Forgets a clicked port; true when one was waiting.
    pub fn disarm(&mut self) -> bool {
        self.armed.take().is_some()
    }

    /// Starts carrying a palette item (the pointer went down on the palette).
    pub fn begin_placing(&mut self, item: PaletteItem) -> Vec<Effect> {
        self.gesture = Gesture::Placing { item, cursor: None };
        self.entered = false;
        self.armed = None;
        vec![Effect::Redraw]
    }

    /// A pointer went down on the canvas at `world`, over `hit`.
    pub fn down(&mut self, input: &PointerInput, world: Point, hit: Hit) -> Vec<Effect> {
        self.down.insert(input.id, input.screen);
        // A second touch turns a one-finger gesture into a pinch; a moved selection is dropped where it was.
        if input.kind == PointerKind::Touch && self.down.len() == 2 {
            let mut pointers = self.down.iter().map(|(&id, &p)| (id, p));
            if let (Some(a), Some(b)) = (pointers.next(), pointers.next()) {
                let effects = if matches!(self.gesture, Gesture::Idle) { vec![] } else { vec![Effect::Redraw] };
                self.gesture = Gesture::Pinching { a, b };
                return effects;
            }
        }
        // A palette entry clicked before: this press places it.
        if let (Gesture::Placing { item, .. }, true, 0) = (&self.gesture, input.inside, input.button) {
            let item = item.clone();
            self.gesture = Gesture::Idle;
            return vec![Effect::Place { item, at: world }, Effect::Redraw];
        }
        if !matches!(self.gesture, Gesture::Idle) {
            return Vec::new();
        }
        // A port clicked before: a press on another node's port connects the two.
        if let Some((first, first_side)) = self.armed.take() {
            match &hit {
                Hit::Port(node, _) if *node != first => {
                    let (from, to) = match first_side {
                        PortSide::Out => (first, node.clone()),
                        PortSide::In => (node.clone(), first),
                    };
                    return vec![Effect::Connect { from, to }, Effect::Redraw];
                }
                _ => {}
            }
        }
        if input.button == 1 || self.space_held {
            self.gesture = Gesture::Panning { pointer: input.id, last: input.screen };
            return Vec::new();
        }
        if input.button != 0 {
            return Vec::new();
        }
        let touch = input.kind == PointerKind::Touch;
        self.gesture = match hit {
            Hit::Port(node, side) => Gesture::Connecting { pointer: input.id, from: node, side, cursor: Point::default(), over: None },
            hit => Gesture::Pressed { pointer: input.id, start: input.screen, start_world: world, hit, shift: input.shift, touch },
        };
        Vec::new()
    }

    /// A pointer moved; `world` is its world position and `over` the node under it (for connecting).
    pub fn moved(&mut self, input: &PointerInput, world: Point, over: Option<NodeId>) -> Vec<Effect> {
        if let Some(p) = self.down.get_mut(&input.id) {
            *p = input.screen;
        }
        match &mut self.gesture {
            Gesture::Idle => Vec::new(),
            Gesture::Placing { cursor, .. } => {
                *cursor = input.inside.then_some(world);
                self.entered |= input.inside;
                vec![Effect::Redraw]
            }
            Gesture::Pinching { a, b } => {
                let (old_a, old_b) = (a.1, b.1);
                if a.0 == input.id {
                    a.1 = input.screen;
                } else if b.0 == input.id {
                    b.1 = input.screen;
                } else {
                    return Vec::new();
                }
                let (new_a, new_b) = (a.1, b.1);
                let old_mid = Point::new((old_a.x + old_b.x) / 2.0, (old_a.y + old_b.y) / 2.0);
                let new_mid = Point::new((new_a.x + new_b.x) / 2.0, (new_a.y + new_b.y) / 2.0);
                let old_d = old_a.distance(old_b).max(1.0);
                let factor = new_a.distance(new_b).max(1.0) / old_d;
                vec![Effect::Pan { dx: new_mid.x - old_mid.x, dy: new_mid.y - old_mid.y }, Effect::Zoom { at: new_mid, factor }]
            }
            g if pointer_of(g) != Some(input.id) => Vec::new(),
            Gesture::Pressed { pointer, start, start_world, hit, shift, touch } => {
                let threshold = if *touch { TOUCH_DRAG_THRESHOLD } else { DRAG_THRESHOLD };
                if start.distance(input.screen) < threshold {
                    return Vec::new();
                }
                let (pointer, start, start_world, shift) = (*pointer, *start, *start_world, *shift);
                match hit.clone() {
                    Hit::Node(anchor) => {
                        let offset = Point::new(world.x - start_world.x, world.y - start_world.y);
                        self.gesture = Gesture::Moving { pointer, anchor: anchor.clone(), start_world, offset };
                        vec![Effect::GrabNode { anchor, shift }, Effect::Redraw]
                    }
                    _ if shift => {
                        self.gesture = Gesture::BoxSelecting { pointer, start: start_world, current: world, additive: true };
                        vec![Effect::Redraw]
                    }
                    _ => {
                        self.gesture = Gesture::Panning { pointer, last: input.screen };
                        vec![Effect::Pan { dx: input.screen.x - start.x, dy: input.screen.y - start.y }]
                    }
                }
            }
            Gesture::Panning { last, .. } => {
                let (dx, dy) = (input.screen.x - last.x, input.screen.y - last.y);
                *last = input.screen;
                vec![Effect::Pan { dx, dy }]
            }
            Gesture::Moving { start_world, offset, .. } => {
                *offset = Point::new(world.x - start_world.x, world.y - start_world.y);
                vec![Effect::Redraw]
            }
            Gesture::Connecting { cursor, over: hovered, .. } => {
                *cursor = world;
                *hovered = over;
                vec![Effect::Redraw]
            }
            Gesture::BoxSelecting { current, .. } => {
                *current = world;
                vec![Effect::Redraw]
            }
        }
    }

    /// A pointer went up at `world`, over node `over` (the node under it, for connecting).
    pub fn up(&mut self, input: &PointerInput, world: Point, over: Option<NodeId>) -> Vec<Effect> {
        self.down.remove(&input.id);
        let gesture = std::mem::take(&mut self.gesture);
        match gesture {
            Gesture::Placing { item, cursor } => {
                if input.inside {
                    vec![Effect::Place { item, at: world }, Effect::Redraw]
                } else if !self.entered {
                    // Released where it was pressed (a click on the palette): keep it for a click on the canvas.
                    self.gesture = Gesture::Placing { item: item.clone(), cursor };
                    vec![Effect::HoldPlacing(item)]
                } else {
                    vec![Effect::Redraw]
                }
            }
            Gesture::Pinching { a, b } => {
                // The remaining finger does nothing until it is lifted and pressed again.
                self.gesture = if a.0 == input.id || b.0 == input.id { Gesture::Idle } else { Gesture::Pinching { a, b } };
                Vec::new()
            }
            g if pointer_of(&g) != Some(input.id) => {
                self.gesture = g;
                Vec::new()
            }
            Gesture::Pressed { hit, shift, .. } => match hit {
                Hit::Node(id) => vec![Effect::Select { ids: vec![id], mode: if shift { SelectMode::Toggle } else { SelectMode::Replace } }],
                Hit::Edge(from, to) => vec![Effect::SelectEdge(from, to)],
                _ if shift => Vec::new(),
                _ => vec![Effect::ClearSelection],
            },
            Gesture::Moving { anchor, start_world, .. } => {
                let offset = Point::new(world.x - start_world.x, world.y - start_world.y);
                let mut effects = Vec::new();
                if offset != Point::default() {
                    effects.push(Effect::MoveSelection { anchor, by: offset });
                }
                effects.push(Effect::Redraw);
                effects
            }
            Gesture::Connecting { from, side, .. } => {
                let mut effects = Vec::new();
                if over.as_ref() == Some(&from) {
                    // Released on its own node: a click on the port, the first half of a click-click connection.
                    self.armed = Some((from.clone(), side));
                    return vec![Effect::ArmPort(from, side), Effect::Redraw];
                }
                if let Some(other) = over.filter(|o| *o != from) {
                    effects.push(match side {
                        PortSide::Out => Effect::Connect { from, to: other },
                        PortSide::In => Effect::Connect { from: other, to: from },
                    });
                }
                effects.push(Effect::Redraw);
                effects
            }
            Gesture::BoxSelecting { start, additive, .. } => vec![Effect::BoxSelect { start, end: world, additive }, Effect::Redraw],
            Gesture::Idle | Gesture::Panning { .. } => Vec::new(),
        }
    }

    /// Escape, a cancelled pointer or a lost capture: the gesture ends without effect.
    pub fn cancel(&mut self) -> Vec<Effect> {
        self.down.clear();
        self.armed = None;
        let was = std::mem::take(&mut self.gesture);
        if matches!(was, Gesture::Idle | Gesture::Pressed { .. } | Gesture::Panning { .. }) {
            Vec::new()
        } else {
            vec![Effect::Redraw]
        }
    }

    /// A pointer was cancelled by the browser (a touch taken over by scrolling, say).
    pub fn pointer_cancelled(&mut self, id: i32) -> Vec<Effect> {
        self.down.remove(&id);
        if pointer_of(&self.gesture) == Some(id) || matches!(self.gesture, Gesture::Pinching { .. }) {
            self.cancel()
        } else {
            Vec::new()
        }
    }
}

/// The pointer driving a one-pointer gesture.
fn pointer_of(gesture: &Gesture) -> Option<i32> {
    match gesture {
        Gesture::Pressed { pointer, .. }
        | Gesture::Panning { pointer, .. }
        | Gesture::Moving { pointer, .. }
        | Gesture::Connecting { pointer, .. }
        | Gesture::BoxSelecting { pointer, .. } => Some(*pointer),
        Gesture::Idle | Gesture::Placing { .. } | Gesture::Pinching { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    fn at(id: i32, x: f64, y: f64) -> PointerInput {
        PointerInput { id, screen: Point::new(x, y), inside: true, ..PointerInput::default() }
    }

    fn touch(id: i32, x: f64, y: f64) -> PointerInput {
        PointerInput { kind: PointerKind::Touch, ..at(id, x, y) }
    }

    fn shifted(mut input: PointerInput) -> PointerInput {
        input.shift = true;
        input
    }

    /// World equals screen in these tests.
    fn world(input: &PointerInput) -> Point {
        input.screen
    }

    /// Runs down, moves and up of one pointer; returns every effect.
    fn drag(machine: &mut Machine, hit: Hit, points: &[PointerInput], over_at_end: Option<NodeId>) -> Vec<Effect> {
        let mut effects = machine.down(&points[0], world(&points[0]), hit);
        for p in &points[1..] {
            effects.extend(machine.moved(p, world(p), over_at_end.clone()));
        }
        let last = points[points.len() - 1];
        effects.extend(machine.up(&last, world(&last), over_at_end));
        effects
    }

    #[test]
    fn clicks_select_toggle_or_clear_without_moving_anything() {
        let cases: Vec<(Hit, bool, Vec<Effect>)> = vec![
            (Hit::Node(id("a")), false, vec![Effect::Select { ids: vec![id("a")], mode: SelectMode::Replace }]),
            (Hit::Node(id("a")), true, vec![Effect::Select { ids: vec![id("a")], mode: SelectMode::Toggle }]),
            (Hit::Edge(id("a"), id("b")), false, vec![Effect::SelectEdge(id("a"), id("b"))]),
            (Hit::Background, false, vec![Effect::ClearSelection]),
            (Hit::Background, true, vec![]),
        ];
        for (hit, shift, expected) in cases {
            let mut machine = Machine::default();
            let press = if shift { shifted(at(1, 10.0, 10.0)) } else { at(1, 10.0, 10.0) };
            // A wobble under the threshold is still a click.
            let wobble = if shift { shifted(at(1, 12.0, 11.0)) } else { at(1, 12.0, 11.0) };
            assert_eq!(drag(&mut machine, hit.clone(), &[press, wobble], None), expected, "{hit:?} shift={shift}");
            assert!(machine.is_idle());
        }
    }

    #[test]
    fn dragging_a_node_grabs_it_and_moves_the_selection_once_on_drop() {
        let mut machine = Machine::default();
        let effects = drag(&mut machine, Hit::Node(id("a")), &[at(1, 0.0, 0.0), at(1, 10.0, 0.0), at(1, 30.0, 5.0)], None);
        assert_eq!(effects[0], Effect::GrabNode { anchor: id("a"), shift: false });
        let moves: Vec<&Effect> = effects.iter().filter(|e| matches!(e, Effect::MoveSelection { .. })).collect();
        assert_eq!(moves, vec![&Effect::MoveSelection { anchor: id("a"), by: Point::new(30.0, 5.0) }], "the offset counts from the press");
    }

    #[test]
    fn dragging_the_background_pans_and_shift_dragging_it_box_selects() {
        let mut machine = Machine::default();
        let pans = drag(&mut machine, Hit::Background, &[at(1, 0.0, 0.0), at(1, 10.0, 0.0), at(1, 15.0, 5.0)], None);
        assert_eq!(pans, vec![Effect::Pan { dx: 10.0, dy: 0.0 }, Effect::Pan { dx: 5.0, dy: 5.0 }]);
        let boxed = drag(&mut machine, Hit::Background, &[shifted(at(1, 0.0, 0.0)), shifted(at(1, 10.0, 0.0)), shifted(at(1, 50.0, 40.0))], None);
        assert!(boxed.contains(&Effect::BoxSelect { start: Point::new(0.0, 0.0), end: Point::new(50.0, 40.0), additive: true }));
    }

    #[test]
    fn space_or_the_middle_button_pans_even_over_a_node() {
        let mut machine = Machine { space_held: true, ..Machine::default() };
        let effects = drag(&mut machine, Hit::Node(id("a")), &[at(1, 0.0, 0.0), at(1, 3.0, 4.0)], None);
        assert_eq!(effects, vec![Effect::Pan { dx: 3.0, dy: 4.0 }]);
        let mut machine = Machine::default();
        let middle = PointerInput { button: 1, ..at(1, 0.0, 0.0) };
        let effects = drag(&mut machine, Hit::Node(id("a")), &[middle, PointerInput { button: 1, ..at(1, 2.0, 0.0) }], None);
        assert_eq!(effects, vec![Effect::Pan { dx: 2.0, dy: 0.0 }]);
    }

    #[test]
    fn connecting_from_an_output_or_an_input_port_orders_the_edge_by_data_flow() {
        let mut machine = Machine::default();
        let out = drag(&mut machine, Hit::Port(id("a"), PortSide::Out), &[at(1, 0.0, 0.0), at(1, 90.0, 0.0)], Some(id("b")));
        assert!(out.contains(&Effect::Connect { from: id("a"), to: id("b") }));
        let back = drag(&mut machine, Hit::Port(id("b"), PortSide::In), &[at(1, 0.0, 0.0), at(1, 90.0, 0.0)], Some(id("a")));
        assert!(back.contains(&Effect::Connect { from: id("a"), to: id("b") }));
        let nowhere = drag(&mut machine, Hit::Port(id("a"), PortSide::Out), &[at(1, 0.0, 0.0), at(1, 90.0, 0.0)], None);
        assert!(!nowhere.iter().any(|e| matches!(e, Effect::Connect { .. })), "a drop on nothing connects nothing");
        let onto_itself = drag(&mut machine, Hit::Port(id("a"), PortSide::Out), &[at(1, 0.0, 0.0), at(1, 5.0, 0.0)], Some(id("a")));
        assert!(!onto_itself.iter().any(|e| matches!(e, Effect::Connect { .. })));
    }

    #[test]
    fn escape_cancels_any_drag_without_effect() {
        let mut machine = Machine::default();
        machine.down(&at(1, 0.0, 0.0), Point::default(), Hit::Node(id("a")));
        machine.moved(&at(1, 40.0, 0.0), Point::new(40.0, 0.0), None);
        assert!(matches!(machine.gesture(), Gesture::Moving { .. }));
        assert_eq!(machine.cancel(), vec![Effect::Redraw]);
        assert!(machine.up(&at(1, 40.0, 0.0), Point::new(40.0, 0.0), None).is_empty(), "the release after a cancel does nothing");
        machine.begin_placing(PaletteItem::Pick);
        machine.cancel();
        assert!(machine.is_idle());
    }

    #[test]
    fn palette_items_are_placed_only_when_dropped_on_the_canvas() {
        let mut machine = Machine::default();
        machine.begin_placing(PaletteItem::Task("math".into()));
        let outside = PointerInput { inside: false, ..at(1, -20.0, 5.0) };
        machine.moved(&outside, Point::new(-20.0, 5.0), None);
        assert_eq!(machine.gesture(), &Gesture::Placing { item: PaletteItem::Task("math".into()), cursor: None });
        machine.moved(&at(1, 100.0, 50.0), Point::new(100.0, 50.0), None);
        let placed = machine.up(&at(1, 100.0, 50.0), Point::new(100.0, 50.0), None);
        assert_eq!(placed[0], Effect::Place { item: PaletteItem::Task("math".into()), at: Point::new(100.0, 50.0) });
        machine.begin_placing(PaletteItem::Pack);
        assert!(!machine.up(&outside, Point::new(-20.0, 5.0), None).iter().any(|e| matches!(e, Effect::Place { .. })));
    }

    #[test]
    fn two_touches_pinch_zoom_around_their_midpoint_and_pan_with_it() {
        let mut machine = Machine::default();
        machine.down(&touch(1, 100.0, 100.0), Point::default(), Hit::Node(id("a")));
        machine.down(&touch(2, 200.0, 100.0), Point::default(), Hit::Background);
        assert!(matches!(machine.gesture(), Gesture::Pinching { .. }));
        let effects = machine.moved(&touch(2, 300.0, 100.0), Point::default(), None);
        assert_eq!(effects, vec![Effect::Pan { dx: 50.0, dy: 0.0 }, Effect::Zoom { at: Point::new(200.0, 100.0), factor: 2.0 }]);
        assert!(machine.moved(&touch(3, 0.0, 0.0), Point::default(), None).is_empty(), "a third finger is ignored");
        machine.up(&touch(1, 100.0, 100.0), Point::default(), None);
        assert!(machine.is_idle());
    }

    #[test]
    fn a_single_touch_on_a_node_moves_it_with_touch_slack() {
        let mut machine = Machine::default();
        machine.down(&touch(7, 0.0, 0.0), Point::default(), Hit::Node(id("a")));
        assert!(machine.moved(&touch(7, 6.0, 0.0), Point::new(6.0, 0.0), None).is_empty(), "within the touch threshold");
        machine.moved(&touch(7, 20.0, 0.0), Point::new(20.0, 0.0), None);
        let effects = machine.up(&touch(7, 50.0, 0.0), Point::new(50.0, 0.0), None);
        assert_eq!(effects[0], Effect::MoveSelection { anchor: id("a"), by: Point::new(50.0, 0.0) });
    }

    #[test]
    fn other_pointers_do_not_disturb_a_mouse_drag() {
        let mut machine = Machine::default();
        machine.down(&at(1, 0.0, 0.0), Point::default(), Hit::Background);
        machine.moved(&at(1, 10.0, 0.0), Point::new(10.0, 0.0), None);
        assert!(machine.moved(&at(2, 50.0, 0.0), Point::new(50.0, 0.0), None).is_empty());
        assert!(machine.up(&at(2, 50.0, 0.0), Point::new(50.0, 0.0), None).is_empty());
        assert!(matches!(machine.gesture(), Gesture::Panning { pointer: 1, .. }));
        assert!(machine.pointer_cancelled(1).is_empty());
        assert!(machine.is_idle());
    }
}
