//! Reading and writing task graphs as NetworkX node-link JSON, in the reference's spelling (`edges` with
//! `source`/`destination`, `graph.target_node`) and NetworkX's own (`links` with `source`/`target`).

use serde_json::{Map, Value as Json};

use super::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::tasks::image::ImageParams;

mod stream;
mod write;

use stream::{RawTop, TOO_MANY};
pub use write::{to_json, write_json, write_json_escaped, write_json_string};

/// The file is not a node-link graph at all (each problem located by JSON path).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParseGraphError {
    #[error("malformed JSON at line {line}, column {column}: {message}")]
    Json { line: usize, column: usize, message: String },
    #[error("{path}: {message}")]
    Shape { path: String, message: String },
}

/// Parses node-link JSON text.
pub fn from_json_str(text: &str) -> Result<TaskGraph, Vec<ParseGraphError>> {
    read(serde_json::from_str(text))
}

/// Parses node-link JSON from a reader (for instance a buffered file) without holding the text or a JSON tree:
/// each node and edge goes straight into the graph as it is read. A file with more than `MAX_NODES` nodes (or
/// four times as many edges) is refused as soon as the parser gets there.
pub fn from_json_reader(reader: impl std::io::Read) -> Result<TaskGraph, Vec<ParseGraphError>> {
    read(serde_json::from_reader(reader))
}

fn read(parsed: Result<RawTop, serde_json::Error>) -> Result<TaskGraph, Vec<ParseGraphError>> {
    match parsed {
        Ok(RawTop::Object(raw)) => raw.into_graph(),
        Ok(RawTop::Other) => Err(vec![shape("$", "expected a JSON object with `nodes` and `edges`")]),
        Err(e) if e.classify() == serde_json::error::Category::Data && e.to_string().starts_with(TOO_MANY) => {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_string();
            let path = if message.contains("edges") { "$.edges" } else { "$.nodes" };
            Err(vec![ParseGraphError::Shape { path: path.into(), message }])
        }
        Err(e) => Err(vec![ParseGraphError::Json { line: e.line(), column: e.column(), message: e.to_string() }]),
    }
}

fn shape(path: &str, message: &str) -> ParseGraphError {
    ParseGraphError::Shape { path: path.to_string(), message: message.to_string() }
}

/// Reads a graph from parsed JSON. Structural problems (missing ids, non-object nodes) are all reported;
/// semantic ones (unknown family, bad kinds, cycles) are left to validation.
pub fn from_json(json: &Json) -> Result<TaskGraph, Vec<ParseGraphError>> {
    let Some(top) = json.as_object() else {
        return Err(vec![shape("$", "expected a JSON object with `nodes` and `edges`")]);
    };
    fn list<T>(value: Option<&Json>, read: impl Fn(&Map<String, Json>) -> Result<T, &'static str>) -> Option<List<T>> {
        value.map(|v| match v.as_array() {
            Some(entries) => {
                let mut list = Read::default();
                for entry in entries {
                    list.push(entry.as_object().ok_or("expected an object").and_then(&read));
                }
                List::Items(list)
            }
            None => List::NotAList,
        })
    }
    let edges_key = if top.contains_key("edges") { "edges" } else { "links" };
    assemble(
        top.get("directed"),
        top.get("multigraph"),
        top.get("graph"),
        list(top.get("nodes"), |obj| read_node(&obj)),
        edges_key,
        list(top.get(edges_key), |obj| read_edge(&obj)),
    )
}

/// The entries of a `nodes` or `edges` list as read, with the problem of each entry that is not one.
struct Read<T> {
    items: Vec<T>,
    problems: Vec<(usize, &'static str)>,
    count: usize,
}

impl<T> Default for Read<T> {
    fn default() -> Self {
        Read { items: Vec::new(), problems: Vec::new(), count: 0 }
    }
}

impl<T> Read<T> {
    fn push(&mut self, entry: Result<T, &'static str>) {
        match entry {
            Ok(item) => self.items.push(item),
            Err(problem) => self.problems.push((self.count, problem)),
        }
        self.count += 1;
    }
}

/// A `nodes` or `edges` value: a list, or something else.
enum List<T> {
    Items(Read<T>),
    NotAList,
}

/// The fields of a node or edge object, as a graph reads them.
trait Fields {
    fn text(&self, key: &str) -> Option<&str>;
    fn int(&self, key: &str) -> Option<i64>;
    fn float(&self, key: &str) -> Option<f64>;
    /// A node id: a string, or a number as it prints.
    fn id(&self, key: &str) -> Option<String>;
    /// Whether the key is there at all (an edge's `destination` wins over `target` even when it is not an id).
    fn present(&self, key: &str) -> bool;
}

impl Fields for &Map<String, Json> {
    fn text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Json::as_str)
    }
    fn int(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(Json::as_i64)
    }
    fn float(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Json::as_f64)
    }
    fn id(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Json::String(s) => Some(s.clone()),
            Json::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
    fn present(&self, key: &str) -> bool {
        self.contains_key(key)
    }
}

/// Builds the graph from its parts, reporting every structural problem with its JSON path.
fn assemble(directed: Option<&Json>, multigraph: Option<&Json>, attrs: Option<&Json>, nodes: Option<List<Node>>, edges_key: &str, edges: Option<List<Edge>>) -> Result<TaskGraph, Vec<ParseGraphError>> {
    let mut errors = Vec::new();
    let mut graph = TaskGraph {
        directed: directed.and_then(Json::as_bool).unwrap_or(true),
        multigraph: multigraph.and_then(Json::as_bool).unwrap_or(false),
        ..TaskGraph::default()
    };
    let graph_attrs = attrs.and_then(Json::as_object);
    graph.target = graph_attrs.and_then(|g| g.get("target_node").or_else(|| g.get("target"))).and_then(|id| match id {
        Json::String(s) => Some(NodeId(s.clone())),
        Json::Number(n) => Some(NodeId(n.to_string())),
        _ => None,
    });
    if let Some(params) = graph_attrs.and_then(|g| g.get("image_params")) {
        match ImageParams::from_json(params) {
            Ok(params) => graph.image = Some(params),
            Err(e) => errors.push(shape("$.graph.image_params", &e.to_string())),
        }
    }
    match graph_attrs.and_then(|g| g.get("python_functions")) {
        None => {}
        Some(Json::Array(sources)) => {
            for (i, source) in sources.iter().enumerate() {
                match source.as_str() {
                    Some(text) => graph.functions.push(text.to_string()),
                    None => errors.push(shape(&format!("$.graph.python_functions[{i}]"), "expected the source of a Python function, as a string")),
                }
            }
        }
        Some(_) => errors.push(shape("$.graph.python_functions", "expected a list of Python function sources")),
    }
    match nodes {
        None | Some(List::NotAList) => errors.push(shape("$.nodes", "missing or not a list")),
        Some(List::Items(read)) => {
            errors.extend(read.problems.iter().map(|&(i, problem)| shape(&format!("$.nodes[{i}]"), problem)));
            graph.nodes = read.items;
            graph.nodes.shrink_to_fit();
        }
    }
    match edges {
        None | Some(List::NotAList) => errors.push(shape("$.edges", "missing or not a list (also accepted: `links`)")),
        Some(List::Items(read)) => {
            errors.extend(read.problems.iter().map(|&(i, problem)| shape(&format!("$.{edges_key}[{i}]"), problem)));
            graph.edges = read.items;
            graph.edges.shrink_to_fit();
        }
    }
    if errors.is_empty() {
        Ok(graph)
    } else {
        Err(errors)
    }
}

fn read_node(obj: &impl Fields) -> Result<Node, &'static str> {
    let id = obj.id("id").ok_or("a node needs an `id` (string or number)")?;
    let text = |key: &str| obj.text(key).map(str::to_string);
    let kind = match obj.text("kind") {
        Some("task") => NodeKind::Task(TaskNode { family: text("family").unwrap_or_default(), task_id: obj.int("task_id"), input_kind: text("input_kind"), output_kind: text("output_kind"), function: text("function") }),
        Some("adapter") => match obj.text("op") {
            Some("pick") => NodeKind::Pick { index: obj.int("index").unwrap_or(-1) },
            Some("pack") => NodeKind::Pack,
            op => NodeKind::Unknown { kind: "adapter".into(), op: op.map(str::to_string) },
        },
        other => NodeKind::Unknown { kind: other.unwrap_or("").to_string(), op: text("op") },
    };
    let position = match (obj.float("x"), obj.float("y")) {
        (Some(x), Some(y)) => Some((x, y)),
        _ => None,
    };
    Ok(Node { id: NodeId(id), kind, position })
}

fn read_edge(obj: &impl Fields) -> Result<Edge, &'static str> {
    let source = obj.id("source");
    let destination = if obj.present("destination") { obj.id("destination") } else { obj.id("target") };
    match (source, destination) {
        (Some(source), Some(destination)) => Ok(Edge { source: NodeId(source), destination: NodeId(destination), slot: obj.int("slot") }),
        _ => Err("an edge needs `source` and `destination` (or `target`)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::validate::MAX_NODES;

    #[test]
    fn reads_both_edge_spellings() {
        let reference = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"},
                      {"id": "b", "kind": "task", "family": "math", "task_id": 10}],
            "edges": [{"source": "a", "destination": "b"}]}"#;
        let networkx = reference.replace("\"edges\"", "\"links\"").replace("\"destination\"", "\"target\"");
        let a = from_json_str(reference).expect("reference spelling");
        let b = from_json_str(&networkx).expect("networkx spelling");
        assert_eq!(a, b);
        assert_eq!(a.target, Some(NodeId("b".into())));
        assert_eq!(a.edges.len(), 1);
    }

    #[test]
    fn round_trips_through_json() {
        let text = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "t"},
            "nodes": [{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list", "x": 1.0, "y": 2.0},
                      {"id": "p", "kind": "adapter", "op": "pick", "index": 3},
                      {"id": "k", "kind": "adapter", "op": "pack"},
                      {"id": "t", "kind": "task", "family": "gsm"}],
            "edges": [{"source": "s", "destination": "p"}, {"source": "p", "destination": "k", "slot": 0}, {"source": "k", "destination": "t"}]}"#;
        let graph = from_json_str(text).expect("valid");
        assert_eq!(from_json(&to_json(&graph)).expect("round trip"), graph);
        assert_eq!(graph.image, None, "no picture parameters unless the file sets them");
        let with_params = text.replace(r#""graph": {"target_node": "t"}"#, r#""graph": {"target_node": "t", "image_params": {"num_paths": 5, "numbering": "shuffled"}}"#);
        let graph = from_json_str(&with_params).expect("valid");
        let params = graph.image.expect("read");
        assert_eq!((params.num_paths, params.nodes_per_path, params.numbering), (5, 6, crate::engine::tasks::image::Numbering::Shuffled));
        assert_eq!(from_json(&to_json(&graph)).expect("round trip"), graph);
        let with_function = text
            .replace(r#""graph": {"target_node": "t"}"#, r#""graph": {"target_node": "t", "python_functions": ["def twice(x: int) -> int:\n    return 2 * x\n"]}"#)
            .replace(r#"{"id": "t", "kind": "task", "family": "gsm"}"#, r#"{"id": "t", "kind": "task", "family": "python", "function": "twice"}"#);
        let graph = from_json_str(&with_function).expect("valid");
        assert_eq!(graph.python_functions(), ["def twice(x: int) -> int:\n    return 2 * x\n"]);
        assert!(matches!(&graph.nodes[3].kind, NodeKind::Task(t) if t.function.as_deref() == Some("twice")));
        assert_eq!(from_json(&to_json(&graph)).expect("round trip"), graph);
        assert_eq!(from_json_reader(with_function.as_bytes()).expect("streamed"), graph);
        for (functions, message) in [(r#"[3]"#, "$.graph.python_functions[0]: expected the source"), (r#""def f(): pass""#, "$.graph.python_functions: expected a list")] {
            let bad = text.replace(r#""graph": {"target_node": "t"}"#, &format!(r#""graph": {{"target_node": "t", "python_functions": {functions}}}"#));
            let errors: Vec<String> = from_json_str(&bad).unwrap_err().iter().map(|e| e.to_string()).collect();
            assert!(errors.len() == 1 && errors[0].starts_with(message), "{errors:?}");
        }
    }

    #[test]
    fn bad_picture_parameters_are_refused_where_they_are() {
        for (params, message) in [
            (r#"{"num_paths": 99}"#, "num_paths must be between 2 and 16, got 99"),
            (r#"{"paths": 4}"#, "unknown image parameter `paths`"),
            (r#"{"width": "wide"}"#, "width must be a whole number"),
            (r#"{"numbering": "random"}"#, "unknown numbering"),
            (r#"[8]"#, "expected an object of image parameters"),
        ] {
            let text = format!(r#"{{"graph": {{"image_params": {params}}}, "nodes": [{{"id": "a", "kind": "task", "family": "image"}}], "edges": []}}"#);
            let errors: Vec<String> = from_json_str(&text).unwrap_err().iter().map(|e| e.to_string()).collect();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(errors[0].starts_with("$.graph.image_params: ") && errors[0].contains(message), "{errors:?}");
            assert_eq!(from_json_reader(text.as_bytes()).map_err(|e| e.len()), Err(1), "the streamed reader agrees");
        }
    }

    #[test]
    fn reports_every_structural_problem_with_its_path() {
        let errors = from_json_str(r#"{"nodes": [{"kind": "task"}, 3], "edges": [{"source": "a"}]}"#).unwrap_err();
        let paths: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(paths.len(), 3, "{paths:?}");
        assert!(paths[0].starts_with("$.nodes[0]") && paths[1].starts_with("$.nodes[1]") && paths[2].starts_with("$.edges[0]"));
        assert!(matches!(from_json_str("{\"nodes\": [").unwrap_err()[0], ParseGraphError::Json { line: 1, .. }));
    }

    #[test]
    fn the_streamed_reader_agrees_with_the_json_tree_reader_on_every_shape() {
        let texts = [
            r#"{"directed": true, "multigraph": false, "graph": {"target_node": 7},
                "nodes": [{"id": 7, "kind": "task", "family": "math", "task_id": 3, "x": 1, "y": 2.5, "extra": {"a": [1, {"b": null}]}},
                          {"id": "p", "kind": "adapter", "op": "pick", "index": 1.5}, {"id": "u", "kind": "widget", "op": 4},
                          {"id": "k", "kind": "adapter", "op": "pack", "id": "k2"}],
                "links": [{"source": 7, "target": "p", "slot": 2}, {"source": "p", "destination": "k", "slot": "x"}]}"#,
            r#"{"nodes": [{"kind": "task"}, 3, [1, 2], null], "edges": [{"source": "a"}, "x"], "directed": "yes"}"#,
            r#"{"nodes": {"a": 1}, "edges": 4, "links": []}"#,
            r#"{"graph": {"target": "a"}, "nodes": [], "links": [{"source": "a", "destination": "b"}]}"#,
            r#"[1, 2]"#,
            r#""text""#,
            r#"{"nodes": [], "edges": []} x"#,
            r#"{"nodes": [{"id": "a"}, "#,
        ];
        let graph = from_json_reader(texts[0].as_bytes()).expect("a graph");
        let ids: Vec<&str> = graph.nodes.iter().map(|n| n.id.0.as_str()).collect();
        assert_eq!(ids, ["7", "p", "u", "k2"]);
        assert_eq!(graph.target, Some(NodeId("7".into())));
        assert_eq!(graph.nodes[0].position, Some((1.0, 2.5)));
        assert!(matches!(&graph.nodes[0].kind, NodeKind::Task(t) if t.task_id == Some(3) && t.input_kind.is_none()));
        assert_eq!(graph.nodes[1].kind, NodeKind::Pick { index: -1 });
        assert_eq!(graph.nodes[2].kind, NodeKind::Unknown { kind: "widget".into(), op: None });
        assert_eq!(graph.edges, vec![
            Edge { source: NodeId("7".into()), destination: NodeId("p".into()), slot: Some(2) },
            Edge { source: NodeId("p".into()), destination: NodeId("k".into()), slot: None },
        ]);
        let problems: Vec<String> = from_json_reader(texts[1].as_bytes()).unwrap_err().iter().map(|e| e.to_string()).collect();
        assert_eq!(problems, [
            "$.nodes[0]: a node needs an `id` (string or number)",
            "$.nodes[1]: expected an object",
            "$.nodes[2]: expected an object",
            "$.nodes[3]: expected an object",
            "$.edges[0]: an edge needs `source` and `destination` (or `target`)",
            "$.edges[1]: expected an object",
        ]);
        for text in texts {
            let tree = serde_json::from_str::<Json>(text)
                .map_err(|e| vec![ParseGraphError::Json { line: e.line(), column: e.column(), message: e.to_string() }])
                .and_then(|json| from_json(&json));
            assert_eq!(from_json_str(text), tree, "{text}");
            assert_eq!(from_json_reader(text.as_bytes()), tree, "{text}");
        }
    }

    #[test]
    fn write_json_gives_the_bytes_of_the_json_tree() {
        let mut graph = from_json_str(
            r#"{"directed": true, "multigraph": true, "graph": {"target_node": "t\"1"},
                "nodes": [{"id": "s\u0001\n", "kind": "task", "family": "math", "task_id": -4, "input_kind": "scalar", "x": 0.1, "y": -2e30},
                          {"id": "p", "kind": "adapter", "op": "pick", "index": 3}, {"id": "k", "kind": "adapter", "op": "pack"},
                          {"id": "w", "kind": "widget", "op": "spin"}, {"id": "é", "kind": "adapter"}],
                "edges": [{"source": "s\u0001\n", "destination": "p"}, {"source": "p", "destination": "k", "slot": 0}]}"#,
        )
        .expect("valid");
        let mut text = String::new();
        write_json(&graph, &mut text).expect("a string accepts everything");
        assert_eq!(text, to_json(&graph).to_string());
        graph.image = Some(crate::engine::tasks::image::ImageParams { perturbation: 0, ..Default::default() });
        graph.functions = vec!["def f(x: int) -> int:\n    return x  # \"quoted\" \u{1}\n".into(), "def g(y: List[int]) -> int:\n    return len(y)\n".into()];
        if let NodeKind::Task(task) = &mut graph.nodes[0].kind {
            task.function = Some("f\"".into());
        }
        let mut text = String::new();
        write_json(&graph, &mut text).expect("a string accepts everything");
        assert_eq!(text, to_json(&graph).to_string());
        graph.target = None;
        graph.nodes[0].position = Some((f64::NAN, 1.0));
        let mut text = String::new();
        write_json(&graph, &mut text).expect("a string accepts everything");
        assert_eq!(text, to_json(&graph).to_string());
        assert!(text.contains(r#""graph":{"image_params":{"num_paths":8,"#), "{text}");
    }

    #[test]
    fn json_strings_are_escaped_as_serde_json_escapes_them() {
        let mut all: String = (0u8..128).map(char::from).collect();
        all.push_str("é∑😀\u{7f}");
        let mut text = String::new();
        write_json_string(&mut text, &all).expect("a string accepts everything");
        assert_eq!(text, serde_json::to_string(&all).expect("serializable"));
    }

    #[test]
    fn a_file_over_the_node_cap_is_refused_at_the_first_node_too_many() {
        let nodes = vec!["{}"; MAX_NODES + 1].join(",");
        let text = format!(r#"{{"nodes": [{nodes}], "edges": []}}"#);
        let errors = from_json_reader(text.as_bytes()).unwrap_err();
        assert_eq!(errors.len(), 1);
        let message = errors[0].to_string();
        assert!(message.starts_with("$.nodes: the graph has more than") && message.contains("at most"), "{message}");
    }

    #[test]
    fn long_texts_are_escaped_as_serde_json_escapes_them() {
        let mut rng = crate::engine::rng::InstanceRng::from_seed(5);
        let alphabet: Vec<char> = "abc xyz\n\t\"\\é∑😀\u{1}\u{1f}\u{7f}~!".chars().collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 64, 300] {
            for _ in 0..20 {
                let text: String = (0..len).map(|_| alphabet[rng.index(alphabet.len())]).collect();
                let mut out = String::new();
                write_json_string(&mut out, &text).expect("a string accepts everything");
                assert_eq!(out, serde_json::to_string(&text).expect("serializable"), "{text:?}");
            }
        }
    }
}

