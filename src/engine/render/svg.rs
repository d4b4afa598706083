//! Our SVG drawing of a laid-out task graph: boxes with label and note lines, typed ports on the box sides
//! (scalar: circle, list: square, unknown: diamond), routed edges with arrowheads and pack slots, the
//! target and adapters styled apart. All text is escaped; the output is a pure function of the graph and
//! the options (numbers printed with one decimal, collections walked in graph order).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::layered::{Layout, NodeBox, Point};
use super::{layout, metrics, node_label, node_texts, port_kinds, Direction, NodeText, PortKind, RenderError, RenderOptions};
use crate::engine::graph::{NodeKind, TaskGraph};

const TASK: Look = Look { fill: "#e8f1ff", line: "#5279b8", width: 1.2, radius: 6.0 };
const TARGET: Look = Look { fill: "#fff2b8", line: "#c48a00", width: 2.5, radius: 6.0 };
const ADAPTER: Look = Look { fill: "#f1f1f1", line: "#777777", width: 1.0, radius: -1.0 };
const EDGE: &str = "#555555";
const BACK_EDGE: &str = "#b04a4a";
const TEXT: &str = "#1f2328";
const NOTE: &str = "#4a5560";
/// Half the size of a port symbol.
const PORT: f64 = 4.0;

/// How a kind of node is drawn; `radius < 0` means fully rounded ends.
struct Look {
    fill: &'static str,
    line: &'static str,
    width: f64,
    radius: f64,
}

/// SVG of the graph, laid out by `layout`.
pub fn to_svg(graph: &TaskGraph, options: &RenderOptions) -> Result<String, RenderError> {
    let placed = layout(graph, &options.layout)?;
    let texts = node_texts(graph, &options.layout.node_notes);
    let mut out = String::with_capacity(512 + 900 * graph.nodes().len());
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Helvetica, Arial, sans-serif" class="task-graph">"#,
        w = num(placed.width),
        h = num(placed.height)
    );
    out.push('\n');
    let _ = writeln!(
        out,
        r#"<defs><marker id="ag-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{EDGE}"/></marker><marker id="ag-arrow-back" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{BACK_EDGE}"/></marker></defs>"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    // Node kinds by id, the first node with an id winning (as in `TaskGraph::node`).
    let mut kinds: BTreeMap<&str, &NodeKind> = BTreeMap::new();
    for node in graph.nodes() {
        kinds.entry(node.id.0.as_str()).or_insert(&node.kind);
    }
    out.push_str("<g class=\"edges\">\n");
    for (edge, path) in graph.edges().iter().zip(&placed.edges) {
        let is_pack = matches!(kinds.get(edge.destination.0.as_str()), Some(NodeKind::Pack));
        let slot = if is_pack { edge.slot } else { None };
        write_edge(&mut out, &placed, path, slot);
    }
    out.push_str("</g>\n<g class=\"nodes\">\n");
    for ((node, placed_box), text) in graph.nodes().iter().zip(&placed.nodes).zip(&texts) {
        let is_target = graph.target() == Some(&node.id);
        let look = match (&node.kind, is_target) {
            (NodeKind::Task(_), true) => &TARGET,
            (NodeKind::Task(_), false) => &TASK,
            _ => &ADAPTER,
        };
        let mut class = String::from(match node.kind {
            NodeKind::Task(_) => "node task",
            _ => "node adapter",
        });
        if is_target {
            class.push_str(" target");
        }
        if let Some(extra) = options.node_classes.get(&node.id.0) {
            class.push(' ');
            class.push_str(extra);
        }
        let fill = options.node_fills.get(&node.id.0).map(String::as_str).unwrap_or(look.fill);
        let _ = write!(out, r#"<g class="{}" data-node-id="{}"><title>"#, escape(&class), escape(&node.id.0));
        let mut tooltip = node_label(&node.kind, &node.id.0);
        tooltip.extend(options.layout.node_notes.get(&node.id.0).into_iter().flatten().cloned());
        out.push_str(&escape(&tooltip.join("\n")));
        out.push_str("</title>");
        let b = placed_box;
        let radius = if look.radius < 0.0 { b.width.min(b.height) / 2.0 } else { look.radius };
        let _ = write!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="{r}" ry="{r}" fill="{}" stroke="{}" stroke-width="{}"/>"#,
            num(b.x),
            num(b.y),
            num(b.width),
            num(b.height),
            escape(fill),
            look.line,
            num(look.width),
            r = num(radius)
        );
        write_text(&mut out, b, text);
        let (input, output) = port_kinds(&node.kind);
        write_port(&mut out, b.input_port(placed.direction), input, look.line, "in");
        write_port(&mut out, b.output_port(placed.direction), output, look.line, "out");
        out.push_str("</g>\n");
    }
    out.push_str("</g>\n</svg>\n");
    Ok(out)
}

fn write_text(out: &mut String, b: &NodeBox, text: &NodeText) {
    let lines = 1 + text.details.len() + text.notes.len();
    let centre = b.x + b.width / 2.0;
    let top = b.y + (b.height - lines as f64 * metrics::LINE_HEIGHT) / 2.0;
    // Baseline of line i: a little below the middle of its slot.
    let baseline = |i: usize| top + (i as f64 + 0.72) * metrics::LINE_HEIGHT;
    let _ = write!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle" font-size="{}" font-weight="bold" fill="{TEXT}">{}</text>"#,
        num(centre),
        num(baseline(0)),
        num(metrics::TITLE_SIZE),
        escape(&text.title)
    );
    for (i, line) in text.details.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="{}" fill="{TEXT}">{}</text>"#,
            num(centre),
            num(baseline(1 + i)),
            num(metrics::TEXT_SIZE),
            escape(line)
        );
    }
    for (i, line) in text.notes.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text class="note" x="{}" y="{}" text-anchor="middle" font-size="{}" font-style="italic" fill="{NOTE}">{}</text>"#,
            num(centre),
            num(baseline(1 + text.details.len() + i)),
            num(metrics::TEXT_SIZE),
            escape(line)
        );
    }
}

fn write_port(out: &mut String, at: Point, kind: PortKind, line: &str, side: &str) {
    let (x, y) = (num(at.x), num(at.y));
    let class = format!("port {side} {}", match kind {
        PortKind::Scalar => "scalar",
        PortKind::List => "list",
        PortKind::Unknown => "unknown",
    });
    let _ = write!(out, r#"<g class="{class}"><title>{side}: {}</title>"#, kind.as_str());
    match kind {
        PortKind::Scalar => {
            let _ = write!(out, r#"<circle cx="{x}" cy="{y}" r="{}" fill="white" stroke="{line}" stroke-width="1.5"/>"#, num(PORT));
        }
        PortKind::List => {
            let _ = write!(
                out,
                r#"<rect x="{}" y="{}" width="{s}" height="{s}" fill="{line}" stroke="{line}" stroke-width="1"/>"#,
                num(at.x - PORT),
                num(at.y - PORT),
                s = num(2.0 * PORT)
            );
        }
        PortKind::Unknown => {
            let _ = write!(
                out,
                r#"<path d="M{} {y} L{x} {} L{} {y} L{x} {} z" fill="white" stroke="{line}" stroke-width="1" stroke-dasharray="2 1.5"/>"#,
                num(at.x - PORT),
                num(at.y - PORT),
                num(at.x + PORT),
                num(at.y + PORT)
            );
        }
    }
    out.push_str("</g>");
}

fn write_edge(out: &mut String, placed: &Layout, path: &super::EdgePath, slot: Option<i64>) {
    let colour = if path.reversed { BACK_EDGE } else { EDGE };
    let mut class = String::from("edge");
    if path.reversed {
        class.push_str(" back");
    }
    if path.self_loop {
        class.push_str(" loop");
    }
    let _ = write!(
        out,
        r#"<g class="{class}" data-edge="{}"><title>{}</title>"#,
        escape(&format!("{}->{}", path.from, path.to)),
        escape(&format!("{} -> {}", path.from, path.to))
    );
    let mut points = path.points.clone();
    // Stop short of the target's port symbol so the arrowhead touches it. Routes arrive along the drawing
    // direction (the last step is straight, or a curve whose end tangent is), so shorten along it.
    if let [.., a, b] = points.as_mut_slice() {
        match placed.direction {
            Direction::LeftToRight if (b.x - a.x).abs() > PORT * 2.0 => b.x -= PORT * (b.x - a.x).signum(),
            Direction::TopToBottom if (b.y - a.y).abs() > PORT * 2.0 => b.y -= PORT * (b.y - a.y).signum(),
            _ => {}
        }
    }
    let dash = if path.reversed { r#" stroke-dasharray="5 3""# } else { "" };
    let marker = if path.reversed { "ag-arrow-back" } else { "ag-arrow" };
    let _ = write!(
        out,
        r#"<path d="{}" fill="none" stroke="{colour}" stroke-width="1.2"{dash} marker-end="url(#{marker})"/>"#,
        path_data(&points, placed.direction)
    );
    if let (Some(slot), Some((at, anchor))) = (slot, slot_label_anchor(&path.points, placed.direction)) {
        let anchor = if anchor == Anchor::End { r#" text-anchor="end""# } else { "" };
        let _ = write!(
            out,
            r#"<text class="slot" x="{}" y="{}"{anchor} font-size="{}" fill="{EDGE}">slot {slot}</text>"#,
            num(at.x),
            num(at.y),
            num(metrics::TEXT_SIZE)
        );
    }
    out.push_str("</g>\n");
}

/// Straight runs as lines; steps across a gap between ranks as curves leaving and arriving along the
/// drawing direction (they stay inside the gap).
fn path_data(points: &[Point], direction: Direction) -> String {
    let mut d = String::new();
    let Some(first) = points.first() else { return d };
    let _ = write!(d, "M{} {}", num(first.x), num(first.y));
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let straight = match direction {
            Direction::LeftToRight => (a.y - b.y).abs() < 1e-9 || (a.x - b.x).abs() < 1e-9,
            Direction::TopToBottom => (a.x - b.x).abs() < 1e-9 || (a.y - b.y).abs() < 1e-9,
        };
        if straight {
            let _ = write!(d, " L{} {}", num(b.x), num(b.y));
        } else {
            let (c1, c2) = match direction {
                Direction::LeftToRight => {
                    let mid = (a.x + b.x) / 2.0;
                    (Point { x: mid, y: a.y }, Point { x: mid, y: b.y })
                }
                Direction::TopToBottom => {
                    let mid = (a.y + b.y) / 2.0;
                    (Point { x: a.x, y: mid }, Point { x: b.x, y: mid })
                }
            };
            let _ = write!(d, " C{} {} {} {} {} {}", num(c1.x), num(c1.y), num(c2.x), num(c2.y), num(b.x), num(b.y));
        }
    }
    d
}

/// Which end of a slot label its anchor point is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Anchor {
    Start,
    End,
}

/// Where a pack edge's slot label goes (its baseline point and which end of the text that is): just after the
/// start of the last step into the target's rank, which differs between the edges converging on one port, on
/// the side of the edge that the step turns away from, so the 11 px text never sits on its own curve. Left to
/// right, the label is above the edge when the step goes down (or straight on) and below it when the step goes
/// up; top to bottom, it is left of the edge when the step goes right and right of it otherwise.
fn slot_label_anchor(points: &[Point], direction: Direction) -> Option<(Point, Anchor)> {
    let across = |p: &Point| match direction {
        Direction::LeftToRight => p.y,
        Direction::TopToBottom => p.x,
    };
    let end = points.last()?;
    // The last point off the target's own line starts the step; a straight edge uses its start.
    let from = points.iter().rev().find(|p| (across(p) - across(end)).abs() > 1e-9).or(points.first())?;
    // How far the text's glyphs reach below and above its baseline, for a label just clear of the line.
    let (below, above) = (0.25 * metrics::TEXT_SIZE, 0.75 * metrics::TEXT_SIZE);
    Some(match direction {
        Direction::LeftToRight if end.y < from.y - 1e-9 => (Point { x: from.x + 8.0, y: from.y + 3.0 + above }, Anchor::Start),
        Direction::LeftToRight => (Point { x: from.x + 8.0, y: from.y - 3.0 - below }, Anchor::Start),
        Direction::TopToBottom if end.x > from.x + 1e-9 => (Point { x: from.x - 4.0, y: from.y + 3.0 + above }, Anchor::End),
        Direction::TopToBottom => (Point { x: from.x + 4.0, y: from.y + 3.0 + above }, Anchor::Start),
    })
}

/// A coordinate with one decimal, without a trailing `.0`.
/// A coordinate with at most one decimal (whole numbers without one, never `-0`).
pub fn num(v: f64) -> String {
    let rounded = (v * 10.0).round() / 10.0;
    let rounded = if rounded == 0.0 { 0.0 } else { rounded };
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

/// Escapes text for SVG element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // XML allows no other control characters, not even escaped.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::from_json_str;
    use crate::engine::render::LayoutOptions;

    const GRAPH: &str = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "t"},
        "nodes": [{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"},
                  {"id": "p", "kind": "adapter", "op": "pick", "index": 1},
                  {"id": "q", "kind": "adapter", "op": "pick", "index": 2},
                  {"id": "k", "kind": "adapter", "op": "pack"},
                  {"id": "t", "kind": "task", "family": "math", "task_id": 10}],
        "edges": [{"source": "s", "destination": "p"}, {"source": "s", "destination": "q"},
                  {"source": "p", "destination": "k", "slot": 0}, {"source": "q", "destination": "k", "slot": 1},
                  {"source": "k", "destination": "t"}]}"#;

    #[test]
    fn svg_has_every_node_edge_port_and_the_target_colour() {
        let graph = from_json_str(GRAPH).unwrap();
        for options in [RenderOptions::default(), RenderOptions::with_direction(Direction::TopToBottom)] {
            let svg = to_svg(&graph, &options).unwrap();
            assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{}", &svg[..80.min(svg.len())]);
            assert!(svg.trim_end().ends_with("</svg>"));
            for id in ["s", "p", "q", "k", "t"] {
                assert_eq!(svg.matches(&format!("data-node-id=\"{id}\"")).count(), 1, "node {id} drawn once");
                assert!(svg.contains(&format!(">{id}</text>")), "node {id} labelled");
            }
            for edge in ["s-&gt;p", "s-&gt;q", "p-&gt;k", "q-&gt;k", "k-&gt;t"] {
                assert_eq!(svg.matches(&format!("data-edge=\"{edge}\"")).count(), 1, "edge {edge}");
            }
            assert_eq!(svg.matches("marker-end=\"url(#ag-arrow)\"").count(), 5);
            assert!(svg.contains("fill=\"#fff2b8\" stroke=\"#c48a00\""), "target colours");
            assert_eq!(svg.matches("fill=\"#f1f1f1\" stroke=\"#777777\"").count(), 3, "adapter colours");
            assert!(svg.contains("class=\"node task target\""));
            assert!(svg.contains(">slot 0</text>") && svg.contains(">slot 1</text>"), "pack slots");
            // s: scalar in, list out; picks: list in, scalar out; pack: scalar in, list out; t: unknown both.
            assert_eq!(svg.matches("class=\"port in scalar\"").count(), 2);
            assert_eq!(svg.matches("class=\"port out list\"").count(), 2);
            assert_eq!(svg.matches("class=\"port in unknown\"").count(), 1);
            assert_eq!(svg.matches("<circle").count(), 4, "scalar ports are circles");
        }
    }

    #[test]
    fn svg_escapes_ids_and_notes_from_user_files() {
        let graph = from_json_str(
            r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a<script>&\"'", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                      {"id": "b", "kind": "task", "family": "math"}],
            "edges": [{"source": "a<script>&\"'", "destination": "b"}]}"#,
        )
        .unwrap();
        let mut options = RenderOptions::default();
        options.layout.node_notes.insert("b".into(), vec!["truth: <42> & \"more\"".into()]);
        options.node_classes.insert("b".into(), "wrong\" onclick=\"x".into());
        let svg = to_svg(&graph, &options).unwrap();
        assert!(!svg.contains("<script") && !svg.contains("&\"") && !svg.contains("onclick=\"x"), "{svg}");
        assert!(svg.contains("data-node-id=\"a&lt;script&gt;&amp;&quot;&#39;\""), "{svg}");
        assert!(svg.contains("data-edge=\"a&lt;script&gt;&amp;&quot;&#39;-&gt;b\""), "{svg}");
        assert!(svg.contains(">truth: &lt;42&gt; &amp; &quot;more&quot;</text>"), "{svg}");
        // Every `<` left in the output opens a tag or closes one.
        for piece in svg.split('<').skip(1) {
            assert!(piece.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/'), "stray `<` before {piece:.20}");
        }
    }

    #[test]
    fn notes_classes_and_fills_reach_their_node() {
        let graph = from_json_str(GRAPH).unwrap();
        let mut options = RenderOptions::default();
        options.layout.node_notes.insert("t".into(), vec!["truth: 7".into(), "answer: 8".into()]);
        options.node_classes.insert("t".into(), "wrong".into());
        options.node_fills.insert("s".into(), "#d8f5d0".into());
        let svg = to_svg(&graph, &options).unwrap();
        assert!(svg.contains("class=\"node task target wrong\" data-node-id=\"t\""), "{svg}");
        assert!(svg.contains("fill=\"#d8f5d0\" stroke=\"#5279b8\""), "{svg}");
        assert_eq!(svg.matches("class=\"note\"").count(), 2);
        let plain = layout(&graph, &LayoutOptions::default()).unwrap();
        let noted = layout(&graph, &options.layout).unwrap();
        assert!(noted.nodes[4].height > plain.nodes[4].height, "notes make the box taller");
    }

    #[test]
    fn svg_is_deterministic_and_refuses_the_empty_graph() {
        let graph = from_json_str(include_str!("../../../tests/fixtures/reference/dag200_mixed.json")).unwrap();
        let svg = to_svg(&graph, &RenderOptions::default()).unwrap();
        assert_eq!(svg, to_svg(&graph.clone(), &RenderOptions::default()).unwrap());
        assert_eq!(svg.matches("data-node-id=").count(), 325);
        assert_eq!(to_svg(&TaskGraph::new(), &RenderOptions::default()), Err(RenderError::Empty));
    }

    /// The value of attribute `name` in the tag text `tag`.
    fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(&tag[start..start + tag[start..].find('"')?])
    }

    /// A pack fed by `inputs` tasks through picks of one list, the last input one rank later than the others,
    /// so the converging edges step up, down and straight on.
    fn wide_pack(inputs: usize) -> TaskGraph {
        let mut nodes = vec![r#"{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"}"#.to_string()];
        let mut edges = Vec::new();
        for i in 0..inputs {
            nodes.push(format!(r#"{{"id": "p{i}", "kind": "adapter", "op": "pick", "index": {i}}}"#));
            nodes.push(format!(r#"{{"id": "t{i}", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}}"#));
            edges.push(format!(r#"{{"source": "s", "destination": "p{i}"}}"#));
            edges.push(format!(r#"{{"source": "p{i}", "destination": "t{i}"}}"#));
            let last = if i + 1 == inputs {
                nodes.push(r#"{"id": "later", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}"#.to_string());
                edges.push(format!(r#"{{"source": "t{i}", "destination": "later"}}"#));
                "later".to_string()
            } else {
                format!("t{i}")
            };
            edges.push(format!(r#"{{"source": "{last}", "destination": "k", "slot": {i}}}"#));
        }
        nodes.push(r#"{"id": "k", "kind": "adapter", "op": "pack"}"#.to_string());
        nodes.push(r#"{"id": "z", "kind": "task", "family": "math", "input_kind": "list", "output_kind": "scalar"}"#.to_string());
        edges.push(r#"{"source": "k", "destination": "z"}"#.to_string());
        from_json_str(&format!(
            r#"{{"directed": true, "multigraph": false, "graph": {{"target_node": "z"}}, "nodes": [{}], "edges": [{}]}}"#,
            nodes.join(","),
            edges.join(",")
        ))
        .unwrap()
    }

    #[test]
    fn every_text_is_at_least_11_px_and_slot_labels_clear_each_other_and_every_box() {
        // Boxes as (left, top, right, bottom); a label's box from its baseline, 11 px text, 6.3 px a character.
        let overlap = |a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)| a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3;
        for graph in [from_json_str(GRAPH).unwrap(), wide_pack(4), wide_pack(12)] {
            for direction in [Direction::LeftToRight, Direction::TopToBottom] {
                let options = RenderOptions::with_direction(direction);
                let svg = to_svg(&graph, &options).unwrap();
                let tags: Vec<&str> = svg.split("<text").skip(1).collect();
                for tag in &tags {
                    let size: f64 = attribute(tag, "font-size").expect("every text has a size").parse().unwrap();
                    assert!(size >= 11.0, "text drawn at {size} px: <text{tag:.80}");
                }
                let labels: Vec<(f64, f64, f64, f64)> = tags
                    .iter()
                    .filter(|tag| attribute(tag, "class") == Some("slot"))
                    .map(|tag| {
                        let (x, y): (f64, f64) = (attribute(tag, "x").unwrap().parse().unwrap(), attribute(tag, "y").unwrap().parse().unwrap());
                        let text = &tag[tag.find('>').unwrap() + 1..tag.find("</text>").unwrap()];
                        let width = text.chars().count() as f64 * metrics::TEXT_CHAR;
                        let left = if attribute(tag, "text-anchor") == Some("end") { x - width } else { x };
                        (left, y - 0.75 * metrics::TEXT_SIZE, left + width, y + 0.25 * metrics::TEXT_SIZE)
                    })
                    .collect();
                let packs = graph.edges().iter().filter(|e| e.slot.is_some()).count();
                assert_eq!(labels.len(), packs, "{direction:?}: a label per slot");
                let placed = layout(&graph, &options.layout).unwrap();
                for (i, label) in labels.iter().enumerate() {
                    for other in &labels[i + 1..] {
                        assert!(!overlap(*label, *other), "{direction:?}: slot labels {label:?} and {other:?} overlap");
                    }
                    for b in &placed.nodes {
                        assert!(!overlap(*label, (b.x, b.y, b.x + b.width, b.y + b.height)), "{direction:?}: slot label {label:?} covers a box");
                    }
                    assert!(label.0 >= 0.0 && label.2 <= placed.width && label.1 >= 0.0 && label.3 <= placed.height, "{direction:?}: {label:?} inside the drawing");
                }
            }
        }
    }

    #[test]
    fn numbers_print_with_at_most_one_decimal() {
        assert_eq!([num(3.0), num(2.25), num(-0.04), num(1234.56)], ["3", "2.3", "0", "1234.6"].map(String::from));
        assert_eq!(escape("a\u{1}b\nc"), "a\u{fffd}b\nc");
    }
}
