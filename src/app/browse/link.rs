//! Deep links to one sample, both kinds: a regenerating link carries the generator settings (or the custom
//! graph itself) and the sample's target and index, so any browser rebuilds the identical sample; a dataset
//! link names a hosted or opened dataset and a position in it. Both live in the `#/browse?…` hash.

use crate::app::browse::catalog::Row;
use crate::engine::generate::form::{query_pairs, GenerateForm};

/// Custom graphs longer than this (compact JSON, in bytes) are not put in links: URLs that long are unreliable.
pub const MAX_LINKED_GRAPH: usize = 16 * 1024;

/// What a `#/browse` (or `#/generate`) query asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Link {
    /// Regenerate one sample from settings (and a custom graph's node-link JSON).
    Regenerate { form: GenerateForm, graph: Option<String>, target: usize, sample: u32 },
    /// Open a dataset by name, at a position when given.
    Dataset { name: String, index: Option<usize> },
    /// Nothing in particular.
    #[default]
    None,
}

impl Link {
    /// Reads a hash query (`topology=chain&…&target=3&sample=1`, or `dataset=math_chain&index=7`).
    pub fn parse(query: &str) -> Link {
        let pairs = query_pairs(query);
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        if let Some(name) = get("dataset").filter(|n| !n.is_empty()) {
            return Link::Dataset { name: name.to_string(), index: get("index").and_then(|i| i.parse().ok()) };
        }
        match (get("target").and_then(|t| t.parse().ok()), get("sample").and_then(|s| s.parse().ok())) {
            (Some(target), Some(sample)) => {
                Link::Regenerate { form: GenerateForm::from_query(query), graph: get("graph").filter(|g| !g.is_empty()).map(str::to_string), target, sample }
            }
            _ => Link::None,
        }
    }

    /// The link's hash (`#/browse?…`), or `None` for a graph too long to carry.
    pub fn to_hash(&self) -> Option<String> {
        match self {
            Link::Regenerate { form, graph, target, sample } => {
                let mut hash = format!("#/browse?{}&target={target}&sample={sample}", form.to_query());
                if let Some(graph) = graph {
                    let compact = compact_json(graph);
                    if compact.len() > MAX_LINKED_GRAPH {
                        return None;
                    }
                    hash.push_str("&graph=");
                    hash.push_str(&encode(&compact));
                }
                Some(hash)
            }
            Link::Dataset { name, index } => Some(match index {
                Some(i) => format!("#/browse?dataset={}&index={i}", encode(name)),
                None => format!("#/browse?dataset={}", encode(name)),
            }),
            Link::None => Some("#/browse".into()),
        }
    }
}

/// The regenerating link of a generated row: the settings of the run it came from (`runs` are the plan's
/// forms), the custom graph if any, and the sample's target and index.
pub fn regenerating(runs: &[GenerateForm], graph: Option<&str>, row: &Row) -> Option<Link> {
    let (run, target) = row.origin?;
    let form = runs.get(run)?.clone();
    Some(Link::Regenerate { form, graph: graph.map(str::to_string), target, sample: row.sample_idx? })
}

/// JSON text without insignificant whitespace (the text itself when it does not parse).
fn compact_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text).map(|v| v.to_string()).unwrap_or_else(|_| text.to_string())
}

/// Percent-encodes everything but unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regenerating_links_round_trip_with_their_settings() {
        let form = GenerateForm { topology: "chain".into(), family: "math".into(), samples_per_target: 16, seed: 4, length: 6, ..GenerateForm::default() };
        let link = Link::Regenerate { form: form.clone(), graph: None, target: 3, sample: 1 };
        let hash = link.to_hash().unwrap();
        assert_eq!(hash, "#/browse?topology=chain&family=math&spt=16&seed=4&length=6&target=3&sample=1");
        assert_eq!(Link::parse(hash.split_once('?').unwrap().1), link);
    }

    #[test]
    fn a_custom_graph_travels_compacted_and_encoded() {
        let graph = "{\n  \"nodes\": [{\"id\": \"a b&c\"}],\n  \"edges\": []\n}";
        let link = Link::Regenerate { form: GenerateForm::default(), graph: Some(graph.into()), target: 0, sample: 2 };
        let hash = link.to_hash().unwrap();
        assert!(!hash.contains(' ') && !hash.contains("&c") && hash.contains("&graph=%7B%22nodes%22"), "{hash}");
        let Link::Regenerate { graph: Some(back), .. } = Link::parse(hash.split_once('?').unwrap().1) else { panic!("{hash}") };
        assert_eq!(back, r#"{"nodes":[{"id":"a b&c"}],"edges":[]}"#);
        let huge = format!("[{}]", vec!["1"; MAX_LINKED_GRAPH].join(","));
        assert_eq!(Link::Regenerate { form: GenerateForm::default(), graph: Some(huge), target: 0, sample: 0 }.to_hash(), None);
    }

    #[test]
    fn a_generated_row_links_to_its_own_run() {
        let runs = [GenerateForm { topology: "baseline".into(), ..GenerateForm::default() }, GenerateForm { topology: "chain".into(), ..GenerateForm::default() }];
        let row = Row { index: 9, topology: "chain".into(), family: "math".into(), target: "T".into(), stages: 4, sample_idx: Some(1), answer: String::new(), prompt_chars: 0, origin: Some((1, 5)) };
        assert_eq!(regenerating(&runs, None, &row), Some(Link::Regenerate { form: runs[1].clone(), graph: None, target: 5, sample: 1 }));
        assert_eq!(regenerating(&runs, None, &Row { origin: None, ..row.clone() }), None, "a row from a file has no settings to regenerate");
        assert_eq!(regenerating(&runs, None, &Row { origin: Some((2, 0)), ..row }), None);
    }

    #[test]
    fn dataset_links_name_a_dataset_and_a_position() {
        let link = Link::Dataset { name: "math chain".into(), index: Some(42) };
        let hash = link.to_hash().unwrap();
        assert_eq!(hash, "#/browse?dataset=math%20chain&index=42");
        assert_eq!(Link::parse(hash.split_once('?').unwrap().1), link);
        assert_eq!(Link::parse("dataset=x"), Link::Dataset { name: "x".into(), index: None });
        assert_eq!(Link::parse("topology=chain&target=3"), Link::None, "a link without a sample index regenerates nothing");
        assert_eq!(Link::parse(""), Link::None);
    }
}
