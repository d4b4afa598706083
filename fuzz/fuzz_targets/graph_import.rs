//! Fuzzes node-link graph import: the streaming reader, the text reader and the JSON-tree reader agree on every
//! input, a graph that reads writes back to text that reads to the same graph, and validation never panics.
#![no_main]

use std::cell::OnceCell;

use arbigraph_studio::engine::graph::{from_json, from_json_reader, from_json_str, to_json, write_json, ParseGraphError, ValidGraph};
use arbigraph_studio::engine::tasks::registry::{builtin, Registry};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static REGISTRY: OnceCell<Registry> = const { OnceCell::new() };
}

/// The errors with JSON syntax errors stripped of their position.
fn shapes(errors: &[ParseGraphError]) -> Vec<ParseGraphError> {
    errors
        .iter()
        .map(|e| match e {
            ParseGraphError::Json { .. } => ParseGraphError::Json { line: 0, column: 0, message: String::new() },
            other => other.clone(),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let streamed = from_json_reader(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let read = from_json_str(text);
        match (&read, &streamed) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "text and stream readers disagree on {text:?}"),
            // serde_json may place a syntax error a character apart in text and in a stream; shapes must agree.
            (Err(a), Err(b)) => assert_eq!(shapes(a), shapes(b), "text and stream readers report differently on {text:?}"),
            _ => panic!("one reader accepts {text:?}: text {read:?}, stream {streamed:?}"),
        }
        if let Ok(tree) = serde_json::from_str::<serde_json::Value>(text) {
            if let (Ok(from_tree), Ok(from_text)) = (from_json(&tree), &read) {
                assert_eq!(&from_tree, from_text, "tree and text readers disagree on {text:?}");
            }
        }
    }
    let Ok(graph) = streamed else { return };
    let mut written = String::new();
    write_json(&graph, &mut written).expect("writing to a String cannot fail");
    let again = from_json_str(&written).unwrap_or_else(|e| panic!("written graph does not read back: {e:?}\n{written}"));
    assert_eq!(again, graph, "write/read round trip of {written}");
    assert_eq!(from_json(&to_json(&graph)).as_ref(), Ok(&graph), "to_json/from_json round trip");
    REGISTRY.with(|cell| {
        let registry = cell.get_or_init(builtin);
        let _ = ValidGraph::new(graph, registry);
    });
});
