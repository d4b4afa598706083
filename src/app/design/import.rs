//! Opening graph files (by button, by dropping, by pasting, from a link): the size limit checked before
//! reading, JSON and schema problems located (`file:line:column`, `file: $.nodes[3]: …`), a clear word for
//! files that are datasets or results rather than graphs, and first placement of graphs without positions.
//! A graph with cycles or other semantic problems opens: validation shows them on the canvas.

use super::tidy::with_positions;
use crate::engine::graph::{self, ParseGraphError, TaskGraph};
use crate::engine::results::ResultRecord;

/// The largest file the designer opens.
pub const MAX_IMPORT_BYTES: usize = 8 * 1024 * 1024;
/// The most nodes the designer opens (the layout's own limit).
pub const MAX_IMPORT_NODES: usize = crate::engine::render::MAX_NODES;

/// Why a file did not open; the current graph stays as it was.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error("{name}: {bytes} bytes is too large to open (at most {MAX_IMPORT_BYTES} bytes)")]
    TooLarge { name: String, bytes: usize },
    #[error("{name}:{line}:{column}: not JSON: {message}")]
    NotJson { name: String, line: usize, column: usize, message: String },
    #[error("{name}: this is a {what} file, not a task graph (open it on the {page} page)")]
    WrongFile { name: String, what: &'static str, page: &'static str },
    #[error("{name}: not a node-link graph: {}", problems.join("; "))]
    Schema { name: String, problems: Vec<String> },
    #[error("{name}: {nodes} nodes is more than the designer opens (at most {MAX_IMPORT_NODES})")]
    TooManyNodes { name: String, nodes: usize },
    #[error("{name}: the graph could not be laid out: {message}")]
    Layout { name: String, message: String },
}

impl ImportError {
    /// Where the problem is (`file:line:column`, `file: $.path`, or the file name).
    pub fn location(&self) -> String {
        match self {
            ImportError::NotJson { name, line, column, .. } => format!("{name}:{line}:{column}"),
            ImportError::Schema { name, problems } => match problems.first().and_then(|p| p.split_once(':')) {
                Some((path, _)) => format!("{name}: {path}"),
                None => name.clone(),
            },
            ImportError::TooLarge { name, .. }
            | ImportError::WrongFile { name, .. }
            | ImportError::TooManyNodes { name, .. }
            | ImportError::Layout { name, .. } => name.clone(),
        }
    }
}

/// Refuses a file over the size limit before it is read.
pub fn check_size(name: &str, bytes: usize) -> Result<(), ImportError> {
    if bytes > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge { name: name.to_string(), bytes });
    }
    Ok(())
}

/// Parses a graph file; nodes without positions get a tidy placement (all of them, if any lacks one).
pub fn open(name: &str, text: &str) -> Result<TaskGraph, ImportError> {
    check_size(name, text.len())?;
    let json: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ImportError::NotJson { name: name.to_string(), line: e.line(), column: e.column(), message: e.to_string() })?;
    if let Some(obj) = json.as_object() {
        if !obj.contains_key("nodes") && obj.contains_key("samples") {
            let results = obj.get("samples").and_then(|s| s.get(0)).is_some_and(|s| {
                // Ours say `agent_status`; a bare `status` is how other harnesses' result lists mark a run.
                let record = ResultRecord::parse(s);
                record.status.is_some() || record.task_answers.is_some() || s.get("status").is_some()
            });
            return Err(if results {
                ImportError::WrongFile { name: name.to_string(), what: "results", page: "Results" }
            } else {
                ImportError::WrongFile { name: name.to_string(), what: "dataset", page: "Generate" }
            });
        }
    }
    let graph = graph::from_json(&json).map_err(|errors| ImportError::Schema { name: name.to_string(), problems: errors.iter().map(ParseGraphError::to_string).collect() })?;
    if graph.nodes().len() > MAX_IMPORT_NODES {
        return Err(ImportError::TooManyNodes { name: name.to_string(), nodes: graph.nodes().len() });
    }
    with_positions(graph).map_err(|e| ImportError::Layout { name: name.to_string(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tasks::registry::builtin;

    const DAG200: &str = include_str!("../../../tests/fixtures/reference/dag200_mixed.json");
    const BRANCHED: &str = include_str!("../../../tests/fixtures/reference/branched_test.json");

    #[test]
    fn the_reference_graphs_open_placed_and_unchanged_otherwise() {
        for (name, text, nodes) in [("dag200_mixed.json", DAG200, 325), ("branched_test.json", BRANCHED, 0)] {
            let opened = open(name, text).unwrap();
            let raw = graph::from_json_str(text).unwrap();
            assert!(nodes == 0 || opened.nodes().len() == nodes);
            assert_eq!(opened.edges(), raw.edges(), "{name}: edges as in the file");
            assert_eq!(opened.target(), raw.target());
            assert!(opened.nodes().iter().all(|n| n.position.is_some()), "{name}: placed");
        }
    }

    #[test]
    fn a_cycle_opens_and_is_left_to_validation() {
        let text = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                      {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
            "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "a"}]}"#;
        let graph = open("cycle.json", text).unwrap();
        assert!(graph.issues(&builtin()).iter().any(|i| i.message.contains("cycle")));
    }

    #[test]
    fn bad_files_get_located_messages() {
        let cases: &[(&str, &str)] = &[
            ("{\"nodes\": [", "bad.json:1:11"),
            ("not json", "bad.json:1:2"),
            (r#"{"nodes": [{"kind": "task"}], "edges": []}"#, "bad.json: $.nodes[0]"),
            (r#"[1, 2, 3]"#, "bad.json: $"),
            (r#"{"summary": {}, "samples": [{"prompt": "x"}]}"#, "bad.json"),
        ];
        for (text, location) in cases {
            let error = open("bad.json", text).unwrap_err();
            assert_eq!(&error.location(), location, "{text}: {error}");
        }
        let dataset = open("d.json", r#"{"summary": {}, "samples": [{"prompt": "x"}]}"#).unwrap_err();
        assert_eq!(dataset.to_string(), "d.json: this is a dataset file, not a task graph (open it on the Generate page)");
        for text in [r#"{"samples": [{"status": "success"}]}"#, r#"{"samples": [{"agent_status": "success"}]}"#] {
            let results = open("r.json", text).unwrap_err();
            assert!(results.to_string().contains("results file"), "{results}");
        }
    }

    #[test]
    fn oversized_files_are_refused_before_parsing() {
        let error = check_size("huge.json", 50 * 1024 * 1024).unwrap_err();
        assert_eq!(error.to_string(), format!("huge.json: 52428800 bytes is too large to open (at most {MAX_IMPORT_BYTES} bytes)"));
        let padded = format!("{DAG200}{}", " ".repeat(MAX_IMPORT_BYTES));
        assert!(matches!(open("padded.json", &padded), Err(ImportError::TooLarge { .. })));
        assert!(check_size("ok.json", 1000).is_ok());
    }
}
