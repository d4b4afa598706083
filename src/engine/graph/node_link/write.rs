//! Writing task graphs as node-link JSON: piece by piece for big graphs (`write_json`), or as a JSON tree
//! (`to_json`), with the JSON string escaping both use.

use serde_json::{json, Map, Value as Json};

use crate::engine::graph::{NodeKind, TaskGraph};

/// Writes `to_json(graph)` as compact JSON text piece by piece (the same bytes as `to_json(graph).to_string()`),
/// without building the JSON tree: for writing graphs of a million nodes.
pub fn write_json(graph: &TaskGraph, out: &mut impl std::fmt::Write) -> std::fmt::Result {
    out.write_str("{\"directed\":")?;
    out.write_str(if graph.directed { "true" } else { "false" })?;
    out.write_str(",\"multigraph\":")?;
    out.write_str(if graph.multigraph { "true" } else { "false" })?;
    out.write_str(",\"graph\":{")?;
    // Keys in the order `to_json` inserts them.
    if let Some(target) = &graph.target {
        out.write_str("\"target_node\":")?;
        write_json_string(out, &target.0)?;
    }
    if let Some(params) = &graph.image {
        let comma = if graph.target.is_some() { "," } else { "" };
        write!(out, "{comma}\"image_params\":{}", params.to_json())?;
    }
    if !graph.functions.is_empty() {
        out.write_str(if graph.target.is_some() || graph.image.is_some() { ",\"python_functions\":[" } else { "\"python_functions\":[" })?;
        for (i, source) in graph.functions.iter().enumerate() {
            if i > 0 {
                out.write_str(",")?;
            }
            write_json_string(out, source)?;
        }
        out.write_str("]")?;
    }
    out.write_str("},\"nodes\":[")?;
    for (i, node) in graph.nodes.iter().enumerate() {
        out.write_str(if i == 0 { "{\"id\":" } else { ",{\"id\":" })?;
        write_json_string(out, &node.id.0)?;
        let field = |out: &mut dyn std::fmt::Write, key: &str, value: &str| -> std::fmt::Result {
            write!(out, ",\"{key}\":")?;
            write_json_string(out, value)
        };
        match &node.kind {
            NodeKind::Task(task) => {
                field(out, "kind", "task")?;
                field(out, "family", &task.family)?;
                if let Some(id) = task.task_id {
                    write!(out, ",\"task_id\":{id}")?;
                }
                if let Some(k) = &task.input_kind {
                    field(out, "input_kind", k)?;
                }
                if let Some(k) = &task.output_kind {
                    field(out, "output_kind", k)?;
                }
                if let Some(name) = &task.function {
                    field(out, "function", name)?;
                }
            }
            NodeKind::Pick { index } => {
                field(out, "kind", "adapter")?;
                field(out, "op", "pick")?;
                write!(out, ",\"index\":{index}")?;
            }
            NodeKind::Pack => {
                field(out, "kind", "adapter")?;
                field(out, "op", "pack")?;
            }
            NodeKind::Unknown { kind, op } => {
                field(out, "kind", kind)?;
                if let Some(op) = op {
                    field(out, "op", op)?;
                }
            }
        }
        if let Some((x, y)) = node.position {
            write!(out, ",\"x\":{},\"y\":{}", json!(x), json!(y))?;
        }
        out.write_str("}")?;
    }
    out.write_str("],\"edges\":[")?;
    for (i, edge) in graph.edges.iter().enumerate() {
        out.write_str(if i == 0 { "{\"source\":" } else { ",{\"source\":" })?;
        write_json_string(out, &edge.source.0)?;
        out.write_str(",\"destination\":")?;
        write_json_string(out, &edge.destination.0)?;
        if let Some(slot) = edge.slot {
            write!(out, ",\"slot\":{slot}")?;
        }
        out.write_str("}")?;
    }
    out.write_str("]}")
}

/// Writes `text` as a JSON string literal with serde_json's escaping (quotes, backslashes and control characters;
/// everything else as is), so streamed output matches serialized output byte for byte.
pub fn write_json_string(out: &mut (impl std::fmt::Write + ?Sized), text: &str) -> std::fmt::Result {
    out.write_char('"')?;
    write_json_escaped(out, text)?;
    out.write_char('"')
}

/// The inside of `write_json_string`: `text` escaped, without the quotes (for a string written in pieces).
pub fn write_json_escaped(out: &mut (impl std::fmt::Write + ?Sized), text: &str) -> std::fmt::Result {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Skip eight bytes at a time while none of them needs escaping (prompts are long and mostly plain).
        if i + 8 <= bytes.len() {
            let word = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("eight bytes"));
            if !needs_escape(word) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0x00..=0x1f => None,
            _ => {
                i += 1;
                continue;
            }
        };
        out.write_str(&text[start..i])?;
        match escape {
            Some(e) => out.write_str(e)?,
            None => write!(out, "\\u{b:04x}")?,
        }
        i += 1;
        start = i;
    }
    out.write_str(&text[start..])
}

/// True if some byte of `word` is a control character, `"` or `\\` (the bytes JSON strings escape).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte below 0x20 (bytes of 0x80 and above are excluded by `!word`).
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let equal = |byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    control | equal(b'"') | equal(b'\\') != 0
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
                    if let Some(name) = &task.function {
                        obj.insert("function".into(), json!(name));
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
    if let Some(params) = &graph.image {
        graph_attrs.insert("image_params".into(), params.to_json());
    }
    if !graph.functions.is_empty() {
        graph_attrs.insert("python_functions".into(), json!(graph.functions));
    }
    json!({
        "directed": graph.directed,
        "multigraph": graph.multigraph,
        "graph": graph_attrs,
        "nodes": nodes,
        "edges": edges,
    })
}

