//! The streamed node-link reader: serde visitors that read each node and edge object into a small record of the
//! fields a graph uses and turn it into a `Node` or `Edge` at once, so a million-node file is never held as a JSON
//! tree. Any shape is accepted here; shape problems are reported by `assemble`, exactly as for a parsed tree.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::super::validate::MAX_NODES;
use super::{assemble, read_edge, read_node, Fields, List, ParseGraphError, Read};
use crate::engine::graph::{Edge, Node, TaskGraph};

/// The top-level value.
pub(super) enum RawTop {
    Object(Box<RawGraph>),
    Other,
}

#[derive(Default)]
pub(super) struct RawGraph {
    directed: Option<Json>,
    multigraph: Option<Json>,
    graph: Option<Json>,
    nodes: Option<List<Node>>,
    edges: Option<List<Edge>>,
    links: Option<List<Edge>>,
}

impl RawGraph {
    pub(super) fn into_graph(self) -> Result<TaskGraph, Vec<ParseGraphError>> {
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

const RECORD_KEYS: [&str; 15] = ["id", "kind", "family", "task_id", "input_kind", "output_kind", "function", "op", "index", "x", "y", "source", "destination", "target", "slot"];

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
pub(super) const TOO_MANY: &str = "the graph has more than";


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

