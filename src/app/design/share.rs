//! Share links: the whole graph (positions included) as compact node-link JSON, deflated (`miniz_oxide`)
//! and base64url-encoded (`base64`) into the URL fragment `#/design?graph=1.<data>`, and back. Decoding is
//! bounded: a link never inflates past `MAX_GRAPH_BYTES`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::engine::graph::{self, TaskGraph};

/// The query key that carries a graph.
pub const KEY: &str = "graph";
/// The format version written before the data.
const VERSION: &str = "1.";
/// The most JSON a link may inflate to.
pub const MAX_GRAPH_BYTES: usize = 16 * 1024 * 1024;

/// Why a link could not be opened.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShareError {
    #[error("the link's graph is not in a format this version reads (expected `{KEY}=1.…`)")]
    Version,
    #[error("the link's graph is damaged: {0}")]
    Damaged(String),
    #[error("the link's graph would inflate past {MAX_GRAPH_BYTES} bytes")]
    TooLarge,
    #[error("the link's graph is not a node-link graph: {0}")]
    NotAGraph(String),
}

/// The fragment value for `graph` (without the key).
pub fn encode(graph: &TaskGraph) -> String {
    let json = graph::to_json(graph).to_string();
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(packed))
}

/// The whole hash of a share link for `graph`.
pub fn link_hash(graph: &TaskGraph) -> String {
    format!("#/design?{KEY}={}", encode(graph))
}

/// The graph in a fragment value made by `encode`.
pub fn decode(value: &str) -> Result<TaskGraph, ShareError> {
    let data = value.strip_prefix(VERSION).ok_or(ShareError::Version)?;
    let packed = URL_SAFE_NO_PAD.decode(data.trim_end_matches('=')).map_err(|e| ShareError::Damaged(e.to_string()))?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_GRAPH_BYTES).map_err(|e| match e.status {
        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => ShareError::TooLarge,
        status => ShareError::Damaged(format!("{status:?}")),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| ShareError::Damaged(e.to_string()))?;
    graph::from_json_str(&text).map_err(|errors| ShareError::NotAGraph(errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")))
}

/// The graph value in a hash query (`graph=1.…` among other pairs), if there is one.
pub fn find_in_query(query: &str) -> Option<&str> {
    query.split('&').find_map(|pair| pair.strip_prefix(KEY).and_then(|rest| rest.strip_prefix('=')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::design::presets;
    use crate::app::design::tidy::with_positions;

    fn dag200() -> TaskGraph {
        let graph = graph::from_json_str(include_str!("../../../tests/fixtures/reference/dag200_mixed.json")).unwrap();
        with_positions(graph).unwrap()
    }

    #[test]
    fn graphs_round_trip_through_links_exactly() {
        for graph in [dag200(), presets::build("multichain", &Default::default()).unwrap(), TaskGraph::new()] {
            let hash = link_hash(&graph);
            let query = hash.split_once('?').unwrap().1;
            let value = find_in_query(query).unwrap();
            assert!(value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'), "URL-safe");
            assert_eq!(decode(value).unwrap(), graph);
        }
    }

    #[test]
    fn links_are_much_smaller_than_the_json() {
        let graph = dag200();
        let json = graph::to_json(&graph).to_string();
        let link = encode(&graph);
        assert!(link.len() * 4 < json.len(), "{} link bytes for {} JSON bytes", link.len(), json.len());
    }

    #[test]
    fn damaged_foreign_and_bomb_links_are_typed_errors() {
        assert_eq!(decode("2.abc"), Err(ShareError::Version));
        assert!(matches!(decode("1.***"), Err(ShareError::Damaged(_))));
        assert!(matches!(decode("1.AAAA"), Err(ShareError::Damaged(_))));
        let not_graph = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"[1, 2]", 9)));
        assert!(matches!(decode(&not_graph), Err(ShareError::NotAGraph(_))));
        let bomb = format!("1.{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&vec![b' '; MAX_GRAPH_BYTES + 10], 9)));
        assert!(bomb.len() < 100_000);
        assert_eq!(decode(&bomb), Err(ShareError::TooLarge));
    }

    #[test]
    fn the_graph_is_found_among_other_query_pairs() {
        assert_eq!(find_in_query("x=1&graph=1.abc&y=2"), Some("1.abc"));
        assert_eq!(find_in_query("graphs=1"), None);
        assert_eq!(find_in_query(""), None);
    }
}
