//! Reading and writing task graphs as NetworkX node-link JSON, in the reference's spelling (`edges` with
//! `source`/`destination`, `graph.target_node`) and NetworkX's own (`links` with `source`/`target`).

use serde_json::{json, Map, Value as Json};

use super::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};

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
    let json: Json = serde_json::from_str(text)
        .map_err(|e| vec![ParseGraphError::Json { line: e.line(), column: e.column(), message: e.to_string() }])?;
    from_json(&json)
}

/// Reads a graph from parsed JSON. Structural problems (missing ids, non-object nodes) are all reported;
/// semantic ones (unknown family, bad kinds, cycles) are left to validation.
pub fn from_json(json: &Json) -> Result<TaskGraph, Vec<ParseGraphError>> {
    let mut errors = Vec::new();
    let shape = |path: &str, message: &str| ParseGraphError::Shape { path: path.to_string(), message: message.to_string() };
    let Some(top) = json.as_object() else {
        return Err(vec![shape("$", "expected a JSON object with `nodes` and `edges`")]);
    };
    let mut graph = TaskGraph {
        directed: top.get("directed").and_then(Json::as_bool).unwrap_or(true),
        multigraph: top.get("multigraph").and_then(Json::as_bool).unwrap_or(false),
        ..TaskGraph::default()
    };
    let graph_attrs = top.get("graph").and_then(Json::as_object);
    graph.target = graph_attrs
        .and_then(|g| g.get("target_node").or_else(|| g.get("target")))
        .and_then(id_of)
        .map(NodeId);

    match top.get("nodes").and_then(Json::as_array) {
        None => errors.push(shape("$.nodes", "missing or not a list")),
        Some(nodes) => {
            for (i, node) in nodes.iter().enumerate() {
                let path = format!("$.nodes[{i}]");
                match read_node(node) {
                    Ok(node) => graph.nodes.push(node),
                    Err(message) => errors.push(shape(&path, &message)),
                }
            }
        }
    }
    let edges = top.get("edges").or_else(|| top.get("links"));
    match edges.and_then(Json::as_array) {
        None => errors.push(shape("$.edges", "missing or not a list (also accepted: `links`)")),
        Some(edges) => {
            let key = if top.contains_key("edges") { "edges" } else { "links" };
            for (i, edge) in edges.iter().enumerate() {
                let path = format!("$.{key}[{i}]");
                let Some(obj) = edge.as_object() else {
                    errors.push(shape(&path, "expected an object"));
                    continue;
                };
                let source = obj.get("source").and_then(id_of);
                let destination = obj.get("destination").or_else(|| obj.get("target")).and_then(id_of);
                match (source, destination) {
                    (Some(source), Some(destination)) => graph.edges.push(Edge {
                        source: NodeId(source),
                        destination: NodeId(destination),
                        slot: obj.get("slot").and_then(Json::as_i64),
                    }),
                    _ => errors.push(shape(&path, "an edge needs `source` and `destination` (or `target`)")),
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(graph)
    } else {
        Err(errors)
    }
}

/// Node ids may be strings or numbers in NetworkX files.
fn id_of(json: &Json) -> Option<String> {
    match json {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_node(json: &Json) -> Result<Node, String> {
    let obj = json.as_object().ok_or("expected an object")?;
    let id = obj.get("id").and_then(id_of).ok_or("a node needs an `id` (string or number)")?;
    let text = |key: &str| obj.get(key).and_then(Json::as_str).map(str::to_string);
    let kind = match text("kind").as_deref() {
        Some("task") => NodeKind::Task(TaskNode {
            family: text("family").unwrap_or_default(),
            task_id: obj.get("task_id").and_then(Json::as_i64),
            input_kind: text("input_kind"),
            output_kind: text("output_kind"),
        }),
        Some("adapter") => match text("op").as_deref() {
            Some("pick") => NodeKind::Pick { index: obj.get("index").and_then(Json::as_i64).unwrap_or(-1) },
            Some("pack") => NodeKind::Pack,
            op => NodeKind::Unknown { kind: "adapter".into(), op: op.map(str::to_string) },
        },
        other => NodeKind::Unknown { kind: other.unwrap_or("").to_string(), op: text("op") },
    };
    let position = match (obj.get("x").and_then(Json::as_f64), obj.get("y").and_then(Json::as_f64)) {
        (Some(x), Some(y)) => Some((x, y)),
        _ => None,
    };
    Ok(Node { id: NodeId(id), kind, position })
}

/// Writes the reference's spelling (`edges`/`destination`), plus designer positions.
pub fn to_json(graph: &TaskGraph) -> Json {
    let nodes: Vec<Json> = graph
        .nodes
        .iter()
        .map(|node| {
            let mut obj = Map::new();
            obj.insert("id".into(), json!(node.id.0));
            match &node.kind {
                NodeKind::Task(task) => {
                    obj.insert("kind".into(), json!("task"));
                    obj.insert("family".into(), json!(task.family));
                    if let Some(id) = task.task_id {
                        obj.insert("task_id".into(), json!(id));
                    }
                    if let Some(k) = &task.input_kind {
                        obj.insert("input_kind".into(), json!(k));
                    }
                    if let Some(k) = &task.output_kind {
                        obj.insert("output_kind".into(), json!(k));
                    }
                }
                NodeKind::Pick { index } => {
                    obj.insert("kind".into(), json!("adapter"));
                    obj.insert("op".into(), json!("pick"));
                    obj.insert("index".into(), json!(index));
                }
                NodeKind::Pack => {
                    obj.insert("kind".into(), json!("adapter"));
                    obj.insert("op".into(), json!("pack"));
                }
                NodeKind::Unknown { kind, op } => {
                    obj.insert("kind".into(), json!(kind));
                    if let Some(op) = op {
                        obj.insert("op".into(), json!(op));
                    }
                }
            }
            if let Some((x, y)) = node.position {
                obj.insert("x".into(), json!(x));
                obj.insert("y".into(), json!(y));
            }
            Json::Object(obj)
        })
        .collect();
    let edges: Vec<Json> = graph
        .edges
        .iter()
        .map(|edge| {
            let mut obj = Map::new();
            obj.insert("source".into(), json!(edge.source.0));
            obj.insert("destination".into(), json!(edge.destination.0));
            if let Some(slot) = edge.slot {
                obj.insert("slot".into(), json!(slot));
            }
            Json::Object(obj)
        })
        .collect();
    let mut graph_attrs = Map::new();
    if let Some(target) = &graph.target {
        graph_attrs.insert("target_node".into(), json!(target.0));
    }
    json!({
        "directed": graph.directed,
        "multigraph": graph.multigraph,
        "graph": graph_attrs,
        "nodes": nodes,
        "edges": edges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn reports_every_structural_problem_with_its_path() {
        let errors = from_json_str(r#"{"nodes": [{"kind": "task"}, 3], "edges": [{"source": "a"}]}"#).unwrap_err();
        let paths: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(paths.len(), 3, "{paths:?}");
        assert!(paths[0].starts_with("$.nodes[0]") && paths[1].starts_with("$.nodes[1]") && paths[2].starts_with("$.edges[0]"));
        assert!(matches!(from_json_str("{\"nodes\": [").unwrap_err()[0], ParseGraphError::Json { line: 1, .. }));
    }
}
