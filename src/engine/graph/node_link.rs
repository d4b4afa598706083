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
        Some("task") => NodeKind::Task(TaskNode { family: text("family").unwrap_or_default(), task_id: obj.int("task_id"), input_kind: text("input_kind"), output_kind: text("output_kind") }),
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

// The streamed reader: serde visitors that read each node and edge object into a small record of the fields a
// graph uses, turn it into a `Node` or `Edge` at once, and accept any shape (shape problems are reported by
// `assemble`, exactly as for a parsed JSON tree).

/// The top-level value.
enum RawTop {
    Object(Box<RawGraph>),
    Other,
}

#[derive(Default)]
struct RawGraph {
    directed: Option<Json>,
    multigraph: Option<Json>,
    graph: Option<Json>,
    nodes: Option<List<Node>>,
    edges: Option<List<Edge>>,
    links: Option<List<Edge>>,
}

impl RawGraph {
    fn into_graph(self) -> Result<TaskGraph, Vec<ParseGraphError>> {
        let (edges_key, edges) = if self.edges.is_some() { ("edges", self.edges) } else { ("links", self.links) };
        assemble(self.directed.as_ref(), self.multigraph.as_ref(), self.graph.as_ref(), self.nodes, edges_key, edges)
    }
}

/// One field value of a node or edge object, as much of it as a graph reads.
#[derive(Default)]
enum Field {
    #[default]
    Absent,
    Text(String),
    Number(serde_json::Number),
    /// `null`, a boolean, a list or an object.
    Other,
}

/// The fields of one node or edge object that a graph reads (the last value wins for a repeated key, as in a
/// parsed JSON object).
#[derive(Default)]
struct RawRecord {
    fields: [Field; RECORD_KEYS.len()],
}

const RECORD_KEYS: [&str; 14] = ["id", "kind", "family", "task_id", "input_kind", "output_kind", "op", "index", "x", "y", "source", "destination", "target", "slot"];

impl RawRecord {
    fn get(&self, key: &str) -> &Field {
        RECORD_KEYS.iter().position(|k| *k == key).map(|at| &self.fields[at]).unwrap_or(&Field::Absent)
    }
}

impl Fields for RawRecord {
    fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Field::Text(s) => Some(s),
            _ => None,
        }
    }
    fn int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Field::Number(n) => n.as_i64(),
            _ => None,
        }
    }
    fn float(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Field::Number(n) => n.as_f64(),
            _ => None,
        }
    }
    fn id(&self, key: &str) -> Option<String> {
        match self.get(key) {
            Field::Text(s) => Some(s.clone()),
            Field::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
    fn present(&self, key: &str) -> bool {
        !matches!(self.get(key), Field::Absent)
    }
}

/// Caps checked while reading, so a huge file is refused before it is built.
const MAX_EDGES: usize = 4 * MAX_NODES;
const TOO_MANY: &str = "the graph has more than";

use super::validate::MAX_NODES;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Accepts anything: every scalar visit gives `$other`.
macro_rules! other_on_scalars {
    ($other:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
}

impl<'de> serde::Deserialize<'de> for RawTop {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TopVisitor;
        impl<'de> Visitor<'de> for TopVisitor {
            type Value = RawTop;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            other_on_scalars!(RawTop::Other);
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawTop, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(RawTop::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTop, A::Error> {
                let mut raw = RawGraph::default();
                while let Some(key) = map.next_key::<TopKey>()? {
                    match key.0 {
                        "directed" => raw.directed = Some(map.next_value()?),
                        "multigraph" => raw.multigraph = Some(map.next_value()?),
                        "graph" => raw.graph = Some(map.next_value()?),
                        "nodes" => raw.nodes = Some(map.next_value_seed(ListSeed { cap: MAX_NODES, what: "nodes", read: |r: &RawRecord| read_node(r) })?),
                        "edges" => raw.edges = Some(map.next_value_seed(ListSeed { cap: MAX_EDGES, what: "edges", read: read_raw_edge })?),
                        "links" => raw.links = Some(map.next_value_seed(ListSeed { cap: MAX_EDGES, what: "edges", read: read_raw_edge })?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(RawTop::Object(Box::new(raw)))
            }
        }
        deserializer.deserialize_any(TopVisitor)
    }
}

fn read_raw_edge(record: &RawRecord) -> Result<Edge, &'static str> {
    read_edge(record)
}

/// A top-level key, matched without allocating (`""` for one we skip).
struct TopKey(&'static str);

impl<'de> serde::Deserialize<'de> for TopKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = TopKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<TopKey, E> {
                const KEYS: [&str; 6] = ["directed", "multigraph", "graph", "nodes", "edges", "links"];
                Ok(TopKey(KEYS.iter().find(|k| **k == key).copied().unwrap_or("")))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// A key of a node or edge object: its place in `RECORD_KEYS`, if it is one we read (no allocation).
struct RecordKey(Option<usize>);

impl<'de> serde::Deserialize<'de> for RecordKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = RecordKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<RecordKey, E> {
                Ok(RecordKey(RECORD_KEYS.iter().position(|k| *k == key)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// A list whose object entries become items through `read`, refused past `cap` entries.
struct ListSeed<F> {
    cap: usize,
    what: &'static str,
    read: F,
}

impl<'de, T, F: Fn(&RawRecord) -> Result<T, &'static str>> DeserializeSeed<'de> for ListSeed<F> {
    type Value = List<T>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, T, F: Fn(&RawRecord) -> Result<T, &'static str>> Visitor<'de> for ListSeed<F> {
    type Value = List<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    other_on_scalars!(List::NotAList);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(List::NotAList)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut list = Read::default();
        let mut record = RawRecord::default();
        while let Some(entry) = seq.next_element_seed(EntrySeed(&mut record))? {
            if list.count == self.cap {
                return Err(de::Error::custom(format!("{TOO_MANY} {} {}; at most {} are supported", self.cap, self.what, self.cap)));
            }
            list.push(if entry { (self.read)(&record) } else { Err("expected an object") });
        }
        Ok(List::Items(list))
    }
}

/// Reads one list entry into a reused record; `true` if it was an object.
struct EntrySeed<'a>(&'a mut RawRecord);

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    other_on_scalars!(false);
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        for field in self.0.fields.iter_mut() {
            *field = Field::Absent;
        }
        while let Some(key) = map.next_key::<RecordKey>()? {
            match key.0 {
                Some(at) => self.0.fields[at] = map.next_value()?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(true)
    }
}

impl<'de> serde::Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl<'de> Visitor<'de> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Field, E> {
                Ok(Field::Number(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Field, E> {
                Ok(Field::Number(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Field, E> {
                Ok(serde_json::Number::from_f64(v).map(Field::Number).unwrap_or(Field::Other))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(Field::Text(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Field, E> {
                Ok(Field::Text(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
        }
        deserializer.deserialize_any(FieldVisitor)
    }
}

/// Writes `to_json(graph)` as compact JSON text piece by piece (the same bytes as `to_json(graph).to_string()`),
/// without building the JSON tree: for writing graphs of a million nodes.
pub fn write_json(graph: &TaskGraph, out: &mut impl std::fmt::Write) -> std::fmt::Result {
    out.write_str("{\"directed\":")?;
    out.write_str(if graph.directed { "true" } else { "false" })?;
    out.write_str(",\"multigraph\":")?;
    out.write_str(if graph.multigraph { "true" } else { "false" })?;
    out.write_str(",\"graph\":{")?;
    if let Some(target) = &graph.target {
        out.write_str("\"target_node\":")?;
        write_json_string(out, &target.0)?;
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
        graph.target = None;
        graph.nodes[0].position = Some((f64::NAN, 1.0));
        let mut text = String::new();
        write_json(&graph, &mut text).expect("a string accepts everything");
        assert_eq!(text, to_json(&graph).to_string());
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

