//! The canvas's SVG markup, built as text from the model (the page sets it as the inner HTML of its layers):
//! the static scene (edges, then nodes, at the level of detail the window asks for), the overlay of the
//! gesture in progress (moving nodes and their edges, the edge being drawn, the selection box, the palette
//! item being carried), and the minimap. Every node carries `data-node-id` and its ports `data-port`, every
//! edge `data-edge="from->to"`; all text is escaped.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

use super::catalog::TaskNames;
use super::geometry::{bounds, edge_curve, node_rect, port_point, Point, PortSide, Rect, PORT_RADIUS};
use super::gesture::{Gesture, PaletteItem};
use super::hit::index;
use super::lod::{visible_nodes, Detail, DrawWindow};
use super::model::EditorModel;
use super::viewport::Viewport;
use crate::engine::graph::{GraphIssue, Node, NodeId, NodeKind, Severity, TaskGraph};
use crate::engine::render::{escape_svg_text as escape, shorten, svg_number as num};

/// Characters of a title line that fit a task box.
const TITLE_CHARS: usize = 21;
/// Characters of a detail line that fit a task box.
const DETAIL_CHARS: usize = 26;
/// Characters of a line that fit an adapter box.
const ADAPTER_CHARS: usize = 14;

/// Validation marks: the worst severity and the messages of each node, and the edges that take part in a
/// problem (an edge on a cycle, or one its destination's message names).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    pub nodes: HashMap<NodeId, (Severity, Vec<String>)>,
    pub edges: HashSet<(NodeId, NodeId)>,
}

/// The marks of `issues` on `graph`.
pub fn marks(graph: &TaskGraph, issues: &[GraphIssue]) -> Marks {
    let mut out = Marks::default();
    for issue in issues {
        let Some(node) = &issue.node else { continue };
        let entry = out.nodes.entry(node.clone()).or_insert((issue.severity, Vec::new()));
        if issue.severity == Severity::Error {
            entry.0 = Severity::Error;
        }
        entry.1.push(issue.message.clone());
    }
    let on_cycle = |id: &NodeId| out.nodes.get(id).is_some_and(|(_, m)| m.iter().any(|m| m.starts_with("is on a cycle")));
    let names = |dest: &NodeId, source: &NodeId| {
        out.nodes.get(dest).is_some_and(|(s, m)| *s == Severity::Error && m.iter().any(|m| m.contains(&format!("`{source}`"))))
    };
    let edges: HashSet<(NodeId, NodeId)> = graph
        .edges()
        .iter()
        .filter(|e| (on_cycle(&e.source) && on_cycle(&e.destination)) || names(&e.destination, &e.source))
        .map(|e| (e.source.clone(), e.destination.clone()))
        .collect();
    out.edges = edges;
    out
}

/// What a drawing needs besides the model.
pub struct DrawContext<'a> {
    pub marks: &'a Marks,
    pub names: &'a TaskNames,
}

/// The static scene: every edge and node in `window`, except the nodes being moved and their edges (the
/// overlay draws those).
pub fn scene(model: &EditorModel, cx: &DrawContext, window: &DrawWindow) -> String {
    let graph = model.graph();
    let moving: Option<&BTreeSet<NodeId>> = model.moving().map(|(ids, _)| ids);
    let is_moving = |id: &NodeId| moving.is_some_and(|m| m.contains(id));
    let visible = visible_nodes(graph, window);
    let visible_ids: HashSet<&NodeId> = visible.iter().map(|&i| &graph.nodes()[i].id).collect();
    let by_id = index(graph);
    let mut out = String::with_capacity(256 + visible.len() * 520);
    out.push_str("<g class=\"dg-edges\">");
    // Zoomed far out, plain edges are one path (a few pixels each, too small to click); marked ones stay apart.
    let mut bulk = String::new();
    for edge in graph.edges() {
        if is_moving(&edge.source) || is_moving(&edge.destination) {
            continue;
        }
        if window.rect.is_some() && !visible_ids.contains(&edge.source) && !visible_ids.contains(&edge.destination) {
            continue;
        }
        let (Some(from), Some(to)) = (by_id.get(&edge.source), by_id.get(&edge.destination)) else { continue };
        let selected = model.selected_edge().is_some_and(|(a, b)| *a == edge.source && *b == edge.destination);
        let slot = if matches!(to.kind, NodeKind::Pack) { edge.slot } else { None };
        let marked = selected || cx.marks.edges.contains(&(edge.source.clone(), edge.destination.clone()));
        if window.detail == Detail::Box && !marked {
            let a = port_point(&node_rect(from, Point::default()), PortSide::Out);
            let b = port_point(&node_rect(to, Point::default()), PortSide::In);
            let _ = write!(bulk, "M{} {}L{} {}", num(a.x), num(a.y), num(b.x), num(b.y));
            continue;
        }
        write_edge(&mut out, cx, from, to, Point::default(), Point::default(), selected, slot, window.detail);
    }
    if !bulk.is_empty() {
        let _ = write!(out, r#"<path class="de de--bulk" d="{bulk}"/>"#);
    }
    out.push_str("</g><g class=\"dg-nodes\">");
    for &i in &visible {
        let node = &graph.nodes()[i];
        if is_moving(&node.id) {
            continue;
        }
        let selected = model.selection().contains(&node.id);
        let is_target = graph.target() == Some(&node.id);
        // Roving focus: the Tab stop is reachable (0), every other node only by the arrows (-1).
        let tab = Some(if model.tab_stop() == Some(&node.id) { 0 } else { -1 });
        write_node(&mut out, cx, node, Point::default(), NodeLook { selected, is_target, detail: window.detail, extra: "", tab });
    }
    out.push_str("</g>");
    out
}

/// The gesture in progress, in world coordinates.
pub fn overlay(model: &EditorModel, cx: &DrawContext) -> String {
    let graph = model.graph();
    let mut out = String::new();
    let zoom = model.viewport().zoom;
    match model.gesture() {
        Gesture::Moving { .. } => {
            let Some((ids, offset)) = model.moving() else { return out };
            let by_id = index(graph);
            let shift = |id: &NodeId| if ids.contains(id) { offset } else { Point::default() };
            for edge in graph.edges().iter().filter(|e| ids.contains(&e.source) || ids.contains(&e.destination)) {
                let (Some(from), Some(to)) = (by_id.get(&edge.source), by_id.get(&edge.destination)) else { continue };
                let slot = if matches!(to.kind, NodeKind::Pack) { edge.slot } else { None };
                write_edge(&mut out, cx, from, to, shift(&edge.source), shift(&edge.destination), false, slot, Detail::Full);
            }
            for node in graph.nodes().iter().filter(|n| ids.contains(&n.id)) {
                let is_target = graph.target() == Some(&node.id);
                write_node(&mut out, cx, node, offset, NodeLook { selected: true, is_target, detail: Detail::Full, extra: " dn--dragging", tab: None });
            }
        }
        Gesture::Connecting { from, side, cursor, over, .. } => {
            let Some(node) = graph.node(from) else { return out };
            let port = port_point(&node_rect(node, Point::default()), *side);
            let curve = match side {
                PortSide::Out => edge_curve(port, *cursor),
                PortSide::In => edge_curve(*cursor, port),
            };
            if let Some(target) = over.as_ref().and_then(|id| graph.node(id)).filter(|n| n.id != *from) {
                let r = node_rect(target, Point::default()).inflate(4.0);
                let _ = write!(out, r#"<rect class="dg-drop" x="{}" y="{}" width="{}" height="{}" rx="12"/>"#, num(r.x), num(r.y), num(r.width), num(r.height));
            }
            let _ = write!(out, r#"<path class="dg-wire" d="{}"/>"#, curve_d(&curve));
        }
        Gesture::BoxSelecting { start, current, .. } => {
            let r = Rect::spanning(*start, *current);
            let _ = write!(
                out,
                r#"<rect class="dg-marquee" x="{}" y="{}" width="{}" height="{}" stroke-width="{}"/>"#,
                num(r.x),
                num(r.y),
                num(r.width),
                num(r.height),
                num(1.0 / zoom)
            );
        }
        Gesture::Placing { item, cursor: Some(at) } => {
            let id = match item {
                PaletteItem::Task(_) | PaletteItem::Pinned { .. } => "new task",
                PaletteItem::Pick => "new pick",
                PaletteItem::Pack => "new pack",
            };
            let kind = super::model::palette_kind(item);
            let ghost = Node { id: NodeId(id.into()), kind, position: Some((at.x, at.y)) };
            write_node(&mut out, cx, &ghost, Point::default(), NodeLook { selected: false, is_target: false, detail: Detail::Full, extra: " dn--ghost", tab: None });
        }
        _ => {}
    }
    // The first port of a click-click connection, waiting for the second.
    if let Some((id, side)) = model.armed_port() {
        if let Some(node) = graph.node(id) {
            let p = port_point(&node_rect(node, Point::default()), *side);
            let _ = write!(out, r#"<circle class="dg-armed" cx="{}" cy="{}" r="{}"/>"#, num(p.x), num(p.y), num(PORT_RADIUS + 6.0));
        }
    }
    out
}

/// A minimap drawing and how to read clicks on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Minimap {
    pub svg: String,
    /// Minimap pixels per world unit.
    pub scale: f64,
    /// The world point at the minimap's top-left corner.
    pub origin: Point,
}

impl Minimap {
    /// The world point under a minimap point.
    pub fn to_world(&self, p: Point) -> Point {
        Point::new(self.origin.x + p.x / self.scale, self.origin.y + p.y / self.scale)
    }
}

/// The minimap of `graph` in `width` × `height` pixels: every node as a small box (one path in all), the
/// target and the selection marked, and the viewport's rectangle.
pub fn minimap(graph: &TaskGraph, view: &Viewport, selection: &BTreeSet<NodeId>, width: f64, height: f64) -> Minimap {
    let world = bounds(graph.nodes()).map(|b| b.union(&view.visible())).unwrap_or_else(|| view.visible()).inflate(40.0);
    let scale = (width / world.width).min(height / world.height);
    let origin = Point::new(world.x - (width / scale - world.width) / 2.0, world.y - (height / scale - world.height) / 2.0);
    let map = |p: Point| Point::new((p.x - origin.x) * scale, (p.y - origin.y) * scale);
    let mut plain = String::new();
    let mut marked = String::new();
    for node in graph.nodes() {
        let r = node_rect(node, Point::default());
        let a = map(Point::new(r.x, r.y));
        let (w, h) = ((r.width * scale).max(1.5), (r.height * scale).max(1.5));
        let target = if selection.contains(&node.id) || graph.target() == Some(&node.id) { &mut marked } else { &mut plain };
        let _ = write!(target, "M{} {}h{}v{}h-{}z", num(a.x), num(a.y), num(w), num(h), num(w));
    }
    let v = view.visible();
    let va = map(Point::new(v.x, v.y));
    let svg = format!(
        r#"<path class="dg-mini-nodes" d="{plain}"/><path class="dg-mini-marked" d="{marked}"/><rect class="dg-mini-view" x="{}" y="{}" width="{}" height="{}"/>"#,
        num(va.x),
        num(va.y),
        num(v.width * scale),
        num(v.height * scale)
    );
    Minimap { svg, scale, origin }
}

struct NodeLook<'a> {
    selected: bool,
    is_target: bool,
    detail: Detail,
    extra: &'a str,
    /// The node's `tabindex` in the scene (`None`: a drawing of the overlay, not focusable).
    tab: Option<i8>,
}

fn write_node(out: &mut String, cx: &DrawContext, node: &Node, offset: Point, look: NodeLook) {
    let r = node_rect(node, offset);
    let (kind_class, family) = match &node.kind {
        NodeKind::Task(t) => ("dn--task", t.family.as_str()),
        NodeKind::Pick { .. } => ("dn--pick", ""),
        NodeKind::Pack => ("dn--pack", ""),
        NodeKind::Unknown { .. } => ("dn--unknown", ""),
    };
    let mark = cx.marks.nodes.get(&node.id);
    let mut class = format!("dn {kind_class}");
    if !family.is_empty() {
        let family_class = if matches!(family, "math" | "gsm" | "python" | "image" | "any") { family } else { "other" };
        let _ = write!(class, " dn--fam-{family_class}");
    }
    if look.selected {
        class.push_str(" dn--selected");
    }
    if look.is_target {
        class.push_str(" dn--target");
    }
    match mark.map(|m| m.0) {
        Some(Severity::Error) => class.push_str(" dn--error"),
        Some(Severity::Warning) => class.push_str(" dn--warning"),
        None => {}
    }
    if look.detail == Detail::Box {
        class.push_str(" dn--box");
    }
    class.push_str(look.extra);
    let _ = write!(out, r#"<g class="{}" data-node-id="{}" transform="translate({} {})""#, class, escape(&node.id.0), num(r.x), num(r.y));
    if let Some(tab) = look.tab {
        let mut label = super::access::describe(node, look.is_target);
        if look.selected {
            label.push_str(", selected");
        }
        let _ = write!(out, r#" tabindex="{tab}" role="button" aria-label="{}""#, escape(&label));
    }
    out.push('>');
    if look.tab.is_some() {
        // The focus ring, drawn only while the node has the keyboard focus (CSS `:focus-visible`).
        let _ = write!(out, r#"<rect class="dn-focus" x="-6" y="-6" width="{}" height="{}" rx="14"/>"#, num(r.width + 12.0), num(r.height + 12.0));
    }
    let (w, h) = (r.width, r.height);
    let radius = if matches!(node.kind, NodeKind::Task(_)) { 9.0 } else { h / 2.0 };
    let _ = write!(out, r#"<rect class="dn-box" width="{}" height="{}" rx="{}"/>"#, num(w), num(h), num(radius));
    // Zoomed out this far, a box is a few pixels: its family colours the whole box (CSS, no shadow), and its
    // ports are kept (every node has both) but not drawn (CSS); nothing else.
    let (input, output) = crate::engine::render::port_kinds(&node.kind);
    if look.detail == Detail::Box {
        write_port(out, PortSide::In, input, 0.0, h / 2.0);
        write_port(out, PortSide::Out, output, w, h / 2.0);
        out.push_str("</g>");
        return;
    }
    if matches!(node.kind, NodeKind::Task(_)) {
        // The family's colour as a band along the left side, following the rounded corners.
        let _ = write!(out, r#"<path class="dn-band" d="M9 0A9 9 0 0 0 0 9V{}A9 9 0 0 0 9 {}z"/>"#, num(h - 9.0), num(h));
    }
    let _ = write!(out, "<title>{}</title>", escape(&tooltip(node, cx, mark)));
    let lines = lines(node, cx.names);
    let limit = |i: usize| match (&node.kind, i) {
        (NodeKind::Task(_), 0) => TITLE_CHARS,
        (NodeKind::Task(_), _) => DETAIL_CHARS,
        _ => ADAPTER_CHARS,
    };
    let shown = if look.detail == Detail::Full { lines.len() } else { 1 };
    let top = if matches!(node.kind, NodeKind::Task(_)) { 22.0 } else { 19.0 };
    let left = if matches!(node.kind, NodeKind::Task(_)) { 16.0 } else { w / 2.0 };
    let anchor = if matches!(node.kind, NodeKind::Task(_)) { "" } else { r#" text-anchor="middle""# };
    let baseline = |i: usize| if shown == 1 { h / 2.0 + 4.0 } else { top + i as f64 * 16.0 };
    for (i, line) in lines.iter().take(shown).enumerate() {
        let class = if i == 0 { "dn-title" } else if i == 1 { "dn-sub" } else { "dn-kinds" };
        let _ = write!(out, r#"<text class="{class}" x="{}" y="{}"{anchor}>{}</text>"#, num(left), num(baseline(i)), escape(&shorten(line, limit(i))));
    }
    // The flag and the badge are title-sized, so they stay whenever the title does.
    if look.is_target {
        let _ = write!(out, r#"<g class="dn-flag" transform="translate({} -10)"><rect width="60" height="20" rx="10"/><text x="30" y="14.5" text-anchor="middle">target</text></g>"#, num(w - 70.0));
    }
    if let Some((severity, messages)) = mark {
        let level = if *severity == Severity::Error { "error" } else { "warning" };
        let count = if messages.len() > 9 { "9+".to_string() } else { messages.len().to_string() };
        let _ = write!(out, r#"<g class="dn-badge dn-badge--{level}" transform="translate({} 0)"><circle r="11"/><text y="4.5" text-anchor="middle">{count}</text></g>"#, num(w - 2.0));
    }
    write_port(out, PortSide::In, input, 0.0, h / 2.0);
    write_port(out, PortSide::Out, output, w, h / 2.0);
    out.push_str("</g>");
}

fn write_port(out: &mut String, side: PortSide, kind: crate::engine::render::PortKind, x: f64, y: f64) {
    use crate::engine::render::PortKind;
    let r = PORT_RADIUS;
    let s = side.as_str();
    let _ = match kind {
        PortKind::Scalar => write!(out, r#"<circle class="dp dp--scalar" data-port="{s}" cx="{}" cy="{}" r="{}"/>"#, num(x), num(y), num(r)),
        PortKind::List => write!(out, r#"<rect class="dp dp--list" data-port="{s}" x="{}" y="{}" width="{}" height="{}" rx="2"/>"#, num(x - r), num(y - r), num(2.0 * r), num(2.0 * r)),
        PortKind::Unknown => write!(out, r#"<path class="dp dp--any" data-port="{s}" d="M{} {}l{r} {r}l-{r} {r}l-{r} -{r}z"/>"#, num(x), num(y - r)),
    };
}

#[allow(clippy::too_many_arguments)]
fn write_edge(out: &mut String, cx: &DrawContext, from: &Node, to: &Node, from_shift: Point, to_shift: Point, selected: bool, slot: Option<i64>, detail: Detail) {
    let a = port_point(&node_rect(from, from_shift), PortSide::Out);
    let b = port_point(&node_rect(to, to_shift), PortSide::In);
    let mut class = String::from("de");
    if selected {
        class.push_str(" de--selected");
    }
    if cx.marks.edges.contains(&(from.id.clone(), to.id.clone())) {
        class.push_str(" de--error");
    }
    let d = if detail == Detail::Box { format!("M{} {}L{} {}", num(a.x), num(a.y), num(b.x), num(b.y)) } else { curve_d(&edge_curve(a, b)) };
    let _ = write!(out, r#"<path class="{class}" data-edge="{}" d="{d}"/>"#, escape(&format!("{}->{}", from.id, to.id)));
    if let (Some(slot), Detail::Full) = (slot, detail) {
        let _ = write!(out, r#"<text class="de-slot" x="{}" y="{}">{slot}</text>"#, num(b.x - 16.0), num(b.y - 6.0));
    }
}

/// The lines of a node's box: its id, then what it computes, then its kinds.
fn lines(node: &Node, names: &TaskNames) -> Vec<String> {
    match &node.kind {
        NodeKind::Task(t) => {
            let task = match (&t.function, t.task_id) {
                (Some(name), _) => format!("{name}()"),
                (None, Some(id)) => names.get(&(t.family.clone(), id)).cloned().unwrap_or_else(|| format!("task_id {id}")),
                (None, None) => "any task".into(),
            };
            let kind = |k: &Option<String>| k.clone().unwrap_or_else(|| "any".into());
            vec![node.id.0.clone(), format!("{} · {task}", t.family), format!("{} → {}", kind(&t.input_kind), kind(&t.output_kind))]
        }
        NodeKind::Pick { index } => vec![node.id.0.clone(), format!("pick [{index}]")],
        NodeKind::Pack => vec![node.id.0.clone(), "pack → list".into()],
        NodeKind::Unknown { kind, op } => vec![node.id.0.clone(), format!("{kind} {}", op.clone().unwrap_or_default())],
    }
}

fn tooltip(node: &Node, cx: &DrawContext, mark: Option<&(Severity, Vec<String>)>) -> String {
    let mut text = lines(node, cx.names).join("\n");
    if let Some((_, messages)) = mark {
        for m in messages {
            text.push_str("\n⚠ ");
            text.push_str(m);
        }
    }
    text
}

fn curve_d(c: &[Point; 4]) -> String {
    format!("M{} {}C{} {} {} {} {} {}", num(c[0].x), num(c[0].y), num(c[1].x), num(c[1].y), num(c[2].x), num(c[2].y), num(c[3].x), num(c[3].y))
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::design::catalog::task_names;
    use crate::app::design::gesture::PointerInput;
    use crate::app::design::lod::{window, FULL_ZOOM, LOD_THRESHOLD, MIN_TEXT_PX, SMALL_FONT, TITLE_FONT, TITLE_ZOOM};
    use crate::app::design::viewport::MIN_ZOOM;
    use crate::app::design::presets;
    use crate::engine::graph::{from_json_str, GraphEdit, TaskNode};
    use crate::engine::tasks::registry::builtin;

    fn chain_model() -> EditorModel {
        let graph = presets::build("chain", &Default::default()).unwrap();
        let mut model = EditorModel::new(graph);
        model.resize(1200.0, 800.0);
        model.fit();
        model
    }

    fn draw(model: &EditorModel) -> String {
        let registry = builtin();
        let issues = model.graph().issues(&registry);
        let marks = marks(model.graph(), &issues);
        let names = task_names(&registry);
        scene(model, &DrawContext { marks: &marks, names: &names }, &window(model.graph().nodes().len(), model.viewport()))
    }

    fn count(haystack: &str, needle: &str) -> usize {
        haystack.matches(needle).count()
    }

    #[test]
    fn every_node_has_its_id_and_two_ports_and_every_edge_its_name() {
        let model = chain_model();
        let svg = draw(&model);
        assert_eq!(count(&svg, "data-node-id="), 4);
        assert_eq!(count(&svg, r#"data-port="in""#), 4);
        assert_eq!(count(&svg, r#"data-port="out""#), 4);
        assert!(svg.contains(r#"data-edge="task_1-&gt;task_2""#), "edge names are escaped attribute text");
        assert!(svg.contains("dn--target") && svg.contains(">target</text>"));
        assert!(svg.contains("dp--scalar"), "scalar ports are circles");
        assert!(svg.contains("dp--any"), "the target's open output is a diamond");
    }

    #[test]
    fn nodes_are_a_roving_tab_stop_with_a_spoken_label_and_a_focus_ring() {
        let mut model = chain_model();
        let svg = draw(&model);
        assert_eq!((count(&svg, r#"tabindex="0""#), count(&svg, r#"tabindex="-1""#)), (1, 3), "one Tab stop");
        assert!(svg.contains(r#"data-node-id="task_1" transform="#) && svg.contains(r#"tabindex="0" role="button" aria-label="task_1, math task"#), "the first node without a focus");
        assert_eq!(count(&svg, r#"class="dn-focus""#), 4);
        model.set_focus(&NodeId("task_3".into()));
        model.select_all();
        let svg = draw(&model);
        let stop = svg.split(r#"tabindex="0""#).nth(1).unwrap();
        assert!(stop.starts_with(r#" role="button" aria-label="task_3, "#) && stop.split('>').next().unwrap().ends_with(r#", selected""#), "{}", &stop[..80]);
    }

    #[test]
    fn names_are_escaped_and_shortened() {
        let mut model = chain_model();
        let nasty = Node { id: NodeId("<script>alert(1)</script>&".into()), kind: NodeKind::Pack, position: Some((0.0, 0.0)) };
        model.apply("add", GraphEdit::AddNode(nasty), None, 0.0).unwrap();
        let svg = draw(&model);
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;"), "the attribute keeps the whole id");
        assert!(svg.contains("…"), "the box shows a shortened id");
    }

    #[test]
    fn issues_mark_their_nodes_and_the_edges_of_a_cycle() {
        let text = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar", "x": 0, "y": 0},
                      {"id": "b", "kind": "task", "family": "mathz", "input_kind": "scalar", "output_kind": "scalar", "x": 300, "y": 0}],
            "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "a"}]}"#;
        let model = EditorModel::new(from_json_str(text).unwrap());
        let svg = draw(&model);
        assert_eq!(count(&svg, "dn--error"), 2);
        assert_eq!(count(&svg, "de de--error"), 2, "both cycle edges are marked");
        assert!(svg.contains("dn-badge--error"));
        assert!(svg.contains("unknown family `mathz`"), "messages are in the tooltip");
    }

    #[test]
    fn moving_nodes_leave_the_scene_for_the_overlay() {
        let mut model = chain_model();
        let centre = model.viewport().to_screen(super::super::geometry::node_center(&model.graph().nodes()[1]));
        let press = PointerInput { id: 1, screen: centre, inside: true, ..PointerInput::default() };
        model.pointer_down(&press);
        model.pointer_move(&PointerInput { screen: Point::new(centre.x + 40.0, centre.y), ..press });
        let svg = draw(&model);
        assert_eq!(count(&svg, "data-node-id="), 3);
        assert_eq!(count(&svg, "data-edge="), 1, "only the edge away from the moving node stays");
        let registry = builtin();
        let (m, n) = (marks(model.graph(), &[]), task_names(&registry));
        let over = overlay(&model, &DrawContext { marks: &m, names: &n });
        assert_eq!(count(&over, "data-node-id=\"task_2\""), 1);
        assert_eq!(count(&over, "data-edge="), 2);
        assert!(over.contains("dn--dragging"));
    }

    #[test]
    fn big_graphs_far_out_draw_boxes_without_text_and_only_what_is_near() {
        let graph = presets::build("random", &[("n".to_string(), "1000".to_string())].into_iter().collect()).unwrap();
        let mut model = EditorModel::new(graph);
        model.resize(1200.0, 800.0);
        model.fit();
        assert!((model.viewport().zoom - TITLE_ZOOM).abs() < 1e-9, "Fit stops where titles are legible");
        let titled = draw(&model);
        assert!(titled.contains("dn-title") && !titled.contains("dn-sub") && !titled.contains("de-slot"), "titles only");
        // As far out as the zoom goes, on a screen big enough for the whole graph.
        model.resize(6000.0, 4000.0);
        model.zoom_by(MIN_ZOOM / model.viewport().zoom);
        model.center_on(bounds(model.graph().nodes()).unwrap().center());
        let far = draw(&model);
        assert!(count(&far, "data-node-id=") >= 1000, "zoomed out, every node is in view");
        assert_eq!(count(&far, "<text"), 0, "boxes without text");
        assert_eq!(count(&far, "dn-band"), 0, "nor family bands");
        assert_eq!(count(&far, "data-port="), 2 * count(&far, "data-node-id="), "every node keeps its two ports");
        assert_eq!(count(&far, "dn--box"), count(&far, "data-node-id="), "every box is drawn plain");
        assert_eq!((count(&far, "data-edge="), count(&far, "de--bulk")), (0, 1), "plain edges are one path");
        assert_eq!(count(&far, "L"), model.graph().edges().len(), "with every edge in it");
        model.zoom_by(1.0 / model.viewport().zoom);
        let near = draw(&model);
        let drawn = count(&near, "data-node-id=");
        assert!(drawn > 0 && drawn < 300, "{drawn} nodes drawn at 100 %");
        assert!(near.contains("dn-title"));
        assert!(!near.contains("dn--box"), "full boxes when zoomed in");
        assert!(model.graph().nodes().len() > LOD_THRESHOLD);
    }

    /// Every text element's class in a drawing, with its font size (as `style/design.css` sets it).
    fn font_sizes(svg: &str) -> Vec<(&'static str, f64)> {
        let classes = [("dn-title", TITLE_FONT), ("dn-sub", SMALL_FONT), ("dn-kinds", SMALL_FONT), ("de-slot", SMALL_FONT), ("dn-flag", TITLE_FONT), ("dn-badge", TITLE_FONT)];
        classes.iter().flat_map(|&(class, size)| std::iter::repeat_n((class, size), count(svg, &format!("class=\"{class}")))).collect()
    }

    #[test]
    fn after_fit_every_drawn_label_is_at_least_11_px_on_desktop_and_phone() {
        let css = include_str!("../../../style/design.css");
        for (class, size) in [("dn-title", TITLE_FONT), ("dn-sub", SMALL_FONT), ("dn-kinds", SMALL_FONT), ("de-slot", SMALL_FONT), ("dn-flag text", TITLE_FONT), ("dn-badge text", TITLE_FONT)] {
            let rule = css.lines().find(|l| l.starts_with(&format!(".{class} {{"))).unwrap_or_else(|| panic!("no rule for .{class}"));
            assert!(rule.contains(&format!("font-size: {size}px")), "the stylesheet and the level of detail agree on .{class}: {rule}");
        }
        let presets: [(&str, &[(&str, &str)]); 3] = [("chain", &[("n", "8")]), ("random", &[("n", "50")]), ("chain", &[("n", "3")])];
        for (key, values) in presets {
            let values = values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            for (w, h) in [(1200.0, 800.0), (390.0, 480.0), (320.0, 400.0)] {
                let mut model = EditorModel::new(presets::build(key, &values).unwrap());
                model.resize(w, h);
                model.fit();
                let zoom = model.viewport().zoom;
                let svg = draw(&model);
                let sizes = font_sizes(&svg);
                assert!(sizes.iter().any(|(c, _)| *c == "dn-title"), "{key} {values:?} at {w}x{h}: titles drawn at zoom {zoom}");
                for (class, size) in sizes {
                    assert!(size * zoom >= MIN_TEXT_PX - 1e-9, "{key} {values:?} at {w}x{h}: .{class} is {:.1} px", size * zoom);
                }
                // The first node (the graph's start) is on screen.
                let first = &model.graph().nodes()[0];
                assert!(model.viewport().visible().intersects(&crate::app::design::geometry::node_rect(first, Point::default())), "{key} at {w}x{h}: the start is in view");
            }
        }
        // A graph that fits is drawn whole and in full, as before.
        let mut small = EditorModel::new(presets::build("chain", &Default::default()).unwrap());
        small.resize(1200.0, 800.0);
        small.fit();
        assert!(small.viewport().zoom >= FULL_ZOOM && small.viewport().visible().encloses(&bounds(small.graph().nodes()).unwrap()));
    }

    #[test]
    fn the_minimap_maps_clicks_back_to_the_world_and_shows_the_view() {
        let model = chain_model();
        let mini = minimap(model.graph(), model.viewport(), model.selection(), 200.0, 140.0);
        assert!(mini.svg.contains("dg-mini-view"));
        assert_eq!(count(&mini.svg, "z"), 4, "one box per node");
        let centre = model.viewport().visible().center();
        let on_map = Point::new((centre.x - mini.origin.x) * mini.scale, (centre.y - mini.origin.y) * mini.scale);
        assert!(mini.to_world(on_map).distance(centre) < 1e-9);
    }

    #[test]
    fn the_wire_and_the_ghost_follow_the_pointer() {
        let mut model = chain_model();
        model.begin_placing(PaletteItem::Task("gsm".into()));
        model.pointer_move(&PointerInput { id: 1, screen: Point::new(100.0, 100.0), inside: true, ..PointerInput::default() });
        let registry = builtin();
        let (m, n) = (marks(model.graph(), &[]), task_names(&registry));
        let cx = DrawContext { marks: &m, names: &n };
        assert!(overlay(&model, &cx).contains("dn--ghost"));
        let _ = TaskNode::default();
    }

    #[test]
    fn numbers_are_printed_short() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(-0.04), "0");
        assert_eq!(num(5.26), "5.3");
    }
}
