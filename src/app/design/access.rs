//! Keyboard alternatives to the canvas's drags, as pure functions of the graph: which node an arrow key
//! moves the focus to, what the connect list offers a node, and the wording of what the page announces.
//! The model (`model/keyboard.rs`) keeps the state (the focused node, the open list, the announcement queue).
//!
//! **Focus geometry.** From the focused node's centre `f`, an arrow with unit direction `d` considers every
//! other node whose centre `c` lies strictly in the arrow's half-plane (`(c - f) · d > 0`). Of those it takes
//! the one with the smallest `along + 2 × across`, where `along = (c - f) · d` is the distance in the
//! arrow's direction and `across` the distance off that line: near nodes win, and a node straight ahead
//! beats a slightly nearer one far off to the side. Ties go to the node earlier in the graph's order, so
//! the rule is deterministic. With no node in that half-plane the focus stays.
//!
//! **Connect list.** For the focused node `n` the list holds, first, `n`'s output into the input of every
//! other node (building left to right, "connect this to the next" is the common case), then, when `n`
//! has an input, every other node's output into `n`'s input (so a node is fed without walking the focus
//! to its source). Pairs already joined by an edge are left out. Within each direction, pairs whose kinds
//! fit (equal, or either side open) come first in graph order; pairs whose kinds differ follow, marked,
//! so the keyboard meets the same refusal a drag meets rather than a silently shorter list. Taken inputs
//! and would-be cycles stay in the list: choosing one is refused by `TaskGraph::apply` with its reason.

use super::geometry::{node_center, Point};
use crate::engine::graph::{Node, NodeId, NodeKind, TaskGraph};

/// An arrow key's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

impl Direction {
    /// The direction of an arrow key's `KeyboardEvent.key`.
    pub fn of_key(key: &str) -> Option<Direction> {
        match key {
            "ArrowLeft" => Some(Direction::Left),
            "ArrowRight" => Some(Direction::Right),
            "ArrowUp" => Some(Direction::Up),
            "ArrowDown" => Some(Direction::Down),
            _ => None,
        }
    }

    /// The unit vector (screen and world y grow downwards).
    fn unit(self) -> Point {
        match self {
            Direction::Left => Point::new(-1.0, 0.0),
            Direction::Right => Point::new(1.0, 0.0),
            Direction::Up => Point::new(0.0, -1.0),
            Direction::Down => Point::new(0.0, 1.0),
        }
    }
}

/// Weight of the distance off the arrow's line against the distance along it.
pub const ACROSS_WEIGHT: f64 = 2.0;

/// The node an arrow moves the focus to from `from` (see the module's rule), if any.
pub fn nearest_in_direction(graph: &TaskGraph, from: &NodeId, direction: Direction) -> Option<NodeId> {
    let origin = node_center(graph.node(from)?);
    let d = direction.unit();
    let mut best: Option<(f64, &Node)> = None;
    for node in graph.nodes().iter().filter(|n| &n.id != from) {
        let c = node_center(node);
        let (vx, vy) = (c.x - origin.x, c.y - origin.y);
        let along = vx * d.x + vy * d.y;
        if along <= 0.0 {
            continue;
        }
        let across = (vx * d.y - vy * d.x).abs();
        let score = along + ACROSS_WEIGHT * across;
        if best.is_none_or(|(s, _)| score < s) {
            best = Some((score, node));
        }
    }
    best.map(|(_, n)| n.id.clone())
}

/// Which end of the focused node a connect choice uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toward {
    /// The focused node's output feeds the other node's input.
    Output,
    /// The other node's output feeds the focused node's input.
    Input,
}

/// One entry of the connect list.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectChoice {
    pub from: NodeId,
    pub to: NodeId,
    /// The node that is not the focused one.
    pub other: NodeId,
    pub toward: Toward,
    /// The kinds fit (equal, or either side open); `false` choices are refused with a kind mismatch.
    pub fits: bool,
    /// What the list shows and a screen reader reads: `task_1 output → task_2 input (math, scalar)`.
    pub label: String,
}

/// The connect list of `node` filtered by `query` (every word must appear in the other node's id or
/// family, case-insensitive), in the module's order.
pub fn connect_choices(graph: &TaskGraph, node: &NodeId, query: &str) -> Vec<ConnectChoice> {
    let Some(focused) = graph.node(node) else { return Vec::new() };
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let joined = |from: &NodeId, to: &NodeId| graph.edges().iter().any(|e| &e.source == from && &e.destination == to);
    let matches = |other: &Node| {
        let haystack = format!("{} {}", other.id, family_of(other)).to_lowercase();
        words.iter().all(|w| haystack.contains(w))
    };
    let mut out = Vec::new();
    for toward in [Toward::Output, Toward::Input] {
        if toward == Toward::Input && !has_input(focused) {
            continue;
        }
        let mut fitting = Vec::new();
        let mut misfits = Vec::new();
        for other in graph.nodes().iter().filter(|o| &o.id != node && matches(o)) {
            let (from, to) = match toward {
                Toward::Output => (focused, other),
                Toward::Input => (other, focused),
            };
            if !has_input(to) || joined(&from.id, &to.id) {
                continue;
            }
            let (found, expected) = (produces(from), consumes(to));
            let fits = found.is_none() || expected.is_none() || found == expected;
            let kind = found.or(expected).unwrap_or("open");
            let what = match family_of(other) {
                "" => kind.to_string(),
                family => format!("{family}, {kind}"),
            };
            let mut label = format!("{} output → {} input ({what})", from.id, to.id);
            if !fits {
                label = format!("{} output → {} input (kind mismatch: {} gives a {}, {} takes a {})", from.id, to.id, from.id, found.unwrap_or("?"), to.id, expected.unwrap_or("?"));
            }
            let choice = ConnectChoice { from: from.id.clone(), to: to.id.clone(), other: other.id.clone(), toward, fits, label };
            if fits {
                fitting.push(choice);
            } else {
                misfits.push(choice);
            }
        }
        out.extend(fitting);
        out.extend(misfits);
    }
    out
}

/// The family of a task node (`math`), the op of an adapter (`pick`, `pack`), else empty.
pub fn family_of(node: &Node) -> &str {
    match &node.kind {
        NodeKind::Task(task) => task.family.as_str(),
        NodeKind::Pick { .. } => "pick",
        NodeKind::Pack => "pack",
        NodeKind::Unknown { .. } => "",
    }
}

/// How a node is read aloud: `task_1, math task, scalar to scalar, target`.
pub fn describe(node: &Node, is_target: bool) -> String {
    let mut out = match &node.kind {
        NodeKind::Task(task) => {
            let kind = |k: &Option<String>| k.clone().unwrap_or_else(|| "open".into());
            format!("{}, {} task, {} to {}", node.id, task.family, kind(&task.input_kind), kind(&task.output_kind))
        }
        NodeKind::Pick { index } => format!("{}, pick adapter, element {index} of a list", node.id),
        NodeKind::Pack => format!("{}, pack adapter, scalars into a list", node.id),
        NodeKind::Unknown { kind, .. } => format!("{}, unknown {kind} node", node.id),
    };
    if is_target {
        out.push_str(", target");
    }
    out
}

/// The sentence announced for an applied edit, from its history label (`connect a to b` → `Connected a to b`).
pub fn edit_sentence(label: &str) -> String {
    let (verb, rest) = label.split_once(' ').unwrap_or((label, ""));
    let past = match verb {
        "add" => "Added",
        "connect" => "Connected",
        "delete" => "Deleted",
        "nudge" | "move" => "Moved",
        "make" => "Made",
        "edit" => "Edited",
        "tidy" => "Tidied",
        "paste" => "Pasted",
        "duplicate" => "Duplicated",
        "open" => "Opened",
        "change" => "Changed",
        "add_function" => "Added function",
        _ => return capitalise(label),
    };
    if rest.is_empty() {
        past.to_string()
    } else {
        format!("{past} {}", rest.replace(" -> ", " to "))
    }
}

/// The sentence for a validation count: `No problems`, `1 problem`, `2 problems`.
pub fn problems_sentence(count: usize) -> String {
    match count {
        0 => "No problems".into(),
        1 => "1 problem".into(),
        n => format!("{n} problems"),
    }
}

/// `text` with its first letter in upper case.
pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn has_input(node: &Node) -> bool {
    !matches!(node.kind, NodeKind::Unknown { .. })
}

/// The kind a node's output carries, when known (as `TaskGraph::apply` reads it).
fn produces(node: &Node) -> Option<&'static str> {
    node.produces()
}

/// The kind a node's input takes, when known.
fn consumes(node: &Node) -> Option<&'static str> {
    node.consumes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{Edge, TaskNode};

    fn id(s: &str) -> NodeId {
        NodeId(s.into())
    }

    fn task(name: &str, input: &str, output: &str, x: f64, y: f64) -> Node {
        let kinds = |k: &str| (!k.is_empty()).then(|| k.to_string());
        let kind = NodeKind::Task(TaskNode { family: "math".into(), task_id: None, input_kind: kinds(input), output_kind: kinds(output), function: None });
        Node { id: id(name), kind, position: Some((x, y)) }
    }

    /// A plus-shaped layout around `c`: `r` right, `l` left, `u` up, `d` down, and `far` far right but level.
    fn plus() -> TaskGraph {
        let nodes = vec![
            task("c", "scalar", "scalar", 0.0, 0.0),
            task("r", "scalar", "scalar", 300.0, 40.0),
            task("l", "scalar", "scalar", -300.0, 0.0),
            task("u", "scalar", "scalar", 10.0, -200.0),
            task("d", "scalar", "scalar", 0.0, 200.0),
            task("diag", "scalar", "scalar", 250.0, 240.0),
            task("far", "scalar", "scalar", 900.0, 0.0),
        ];
        TaskGraph::from_parts(nodes, vec![], None)
    }

    fn check_focus(graph: &TaskGraph, from: &str, direction: Direction, expected: Option<&str>) {
        assert_eq!(nearest_in_direction(graph, &id(from), direction), expected.map(id), "{from} {direction:?}");
    }

    #[test]
    fn arrows_take_the_nearest_node_in_their_half_plane_weighing_distance_off_the_line() {
        let g = plus();
        check_focus(&g, "c", Direction::Right, Some("r"));
        check_focus(&g, "c", Direction::Left, Some("l"));
        check_focus(&g, "c", Direction::Up, Some("u"));
        check_focus(&g, "c", Direction::Down, Some("d"));
        // From r, down: diag (along 200, across 50 → 300) beats d (along 160, across 300 → 760).
        check_focus(&g, "r", Direction::Down, Some("diag"));
        // Far right but level beats nothing; the leftmost node has no one further left.
        check_focus(&g, "r", Direction::Right, Some("far"));
        check_focus(&g, "l", Direction::Left, None);
        check_focus(&g, "ghost", Direction::Left, None);
    }

    #[test]
    fn ties_go_to_the_earlier_node_and_nodes_level_with_the_focus_are_not_ahead() {
        let g = TaskGraph::from_parts(vec![task("a", "", "", 0.0, 0.0), task("b", "", "", 100.0, -50.0), task("c", "", "", 100.0, 50.0), task("side", "", "", 0.0, 300.0)], vec![], None);
        check_focus(&g, "a", Direction::Right, Some("b"));
        // Down: c (50 along, 100 across: 250) beats `side` straight below but further (300).
        check_focus(&g, "a", Direction::Down, Some("c"));
    }

    fn labels(g: &TaskGraph, node: &str, query: &str) -> Vec<String> {
        connect_choices(g, &id(node), query).into_iter().map(|c| c.label).collect()
    }

    #[test]
    fn the_connect_list_offers_outputs_first_then_inputs_fitting_first_and_skips_existing_edges() {
        let nodes = vec![
            task("a", "scalar", "scalar", 0.0, 0.0),
            task("b", "scalar", "scalar", 300.0, 0.0),
            task("l", "list", "scalar", 600.0, 0.0),
            Node { id: id("p"), kind: NodeKind::Pack, position: Some((600.0, 200.0)) },
            task("t", "", "", 900.0, 0.0),
        ];
        let g = TaskGraph::from_parts(nodes, vec![Edge { source: id("a"), destination: id("b"), slot: None }], None);
        assert_eq!(
            labels(&g, "b", ""),
            [
                "b output → a input (math, scalar)",
                "b output → p input (pack, scalar)",
                "b output → t input (math, scalar)",
                "b output → l input (kind mismatch: b gives a scalar, l takes a list)",
                "l output → b input (math, scalar)",
                "t output → b input (math, scalar)",
                "p output → b input (kind mismatch: p gives a list, b takes a scalar)",
            ],
            "a -> b exists already, so a's output is not offered; b -> a (a cycle) is, and is refused when chosen"
        );
        let choices = connect_choices(&g, &id("b"), "");
        assert_eq!((choices[1].from.clone(), choices[1].to.clone(), choices[1].toward), (id("b"), id("p"), Toward::Output));
        assert_eq!((choices[4].from.clone(), choices[4].to.clone(), choices[4].other.clone(), choices[4].toward), (id("l"), id("b"), id("l"), Toward::Input));
        assert!(choices[1].fits && !choices[3].fits);
    }

    #[test]
    fn typing_filters_the_connect_list_by_node_id_and_family() {
        let nodes = vec![task("a", "scalar", "scalar", 0.0, 0.0), task("b", "scalar", "scalar", 1.0, 0.0), Node { id: id("pack_1"), kind: NodeKind::Pack, position: Some((2.0, 0.0)) }];
        let g = TaskGraph::from_parts(nodes, vec![], None);
        assert_eq!(labels(&g, "a", "PACK"), ["a output → pack_1 input (pack, scalar)", "pack_1 output → a input (kind mismatch: pack_1 gives a list, a takes a scalar)"]);
        assert_eq!(labels(&g, "a", "math b"), ["a output → b input (math, scalar)", "b output → a input (math, scalar)"]);
        assert!(labels(&g, "a", "nothing like it").is_empty());
        assert!(labels(&g, "ghost", "").is_empty());
    }

    #[test]
    fn sentences_for_edits_problems_and_nodes() {
        let cases = [
            ("add task_1", "Added task_1"),
            ("connect a to b", "Connected a to b"),
            ("delete edge a -> b", "Deleted edge a to b"),
            ("delete 2 nodes", "Deleted 2 nodes"),
            ("nudge", "Moved"),
            ("make t the target", "Made t the target"),
            ("tidy up", "Tidied up"),
            ("something else", "Something else"),
        ];
        for (label, sentence) in cases {
            assert_eq!(edit_sentence(label), sentence, "{label}");
        }
        assert_eq!([0, 1, 2].map(problems_sentence), ["No problems", "1 problem", "2 problems"]);
        assert_eq!(describe(&task("t", "list", "", 0.0, 0.0), true), "t, math task, list to open, target");
        assert_eq!(describe(&Node { id: id("p"), kind: NodeKind::Pick { index: 2 }, position: None }, false), "p, pick adapter, element 2 of a list");
    }

    /// WCAG relative luminance of `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).unwrap()) / 255.0;
            if c <= 0.03928 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
    }

    /// The values of a custom property in the stylesheet, in order (light first, then dark).
    fn colours(css: &str, name: &str) -> Vec<String> {
        css.match_indices(&format!("{name}:")).map(|(i, m)| css[i + m.len()..].trim_start()[..7].to_string()).collect()
    }

    #[test]
    fn the_focus_ring_contrasts_at_least_3_to_1_with_the_canvas_and_node_fills_in_both_themes() {
        let css = include_str!("../../../style/design.css");
        let focus = colours(css, "--dg-focus");
        assert_eq!(focus.len(), 2, "a light and a dark focus colour");
        for background in ["--dg-canvas", "--dg-node", "--dg-adapter", "--dg-target-bg"] {
            for (theme, (ring, fill)) in focus.iter().zip(colours(css, background)).enumerate() {
                let (a, b) = (luminance(ring), luminance(&fill));
                let ratio = (a.max(b) + 0.05) / (a.min(b) + 0.05);
                assert!(ratio >= 3.0, "{ring} on {background} {fill} (theme {theme}): {ratio:.2}");
            }
        }
    }
}
