//! The designer's saved graphs: the autosaved current graph and a short list of recent ones (opened files,
//! presets, links), kept in local storage as JSON. The list is bounded in length and in bytes, a graph seen
//! again moves to the front, and a damaged saved list reads as empty rather than failing.

use serde::{Deserialize, Serialize};

/// Graphs kept in the list.
pub const MAX_RECENT: usize = 8;
/// Bytes of graph JSON the list may hold in all (local storage is small).
pub const MAX_RECENT_BYTES: usize = 2 * 1024 * 1024;
/// The storage key of the autosaved graph.
pub const CURRENT_KEY: &str = "arbigraph.design.current";
/// The storage key of the recent list.
pub const RECENT_KEY: &str = "arbigraph.design.recent";

/// One saved graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecentGraph {
    /// Where it came from (`dag200_mixed.json`, `preset: chain`, `shared link`).
    pub name: String,
    /// `Date.now()` when it was saved.
    pub saved_ms: f64,
    pub nodes: usize,
    pub edges: usize,
    /// Node-link JSON.
    pub json: String,
}

/// The recent list, newest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecentList {
    pub entries: Vec<RecentGraph>,
}

impl RecentList {
    /// Reads a saved list; anything unreadable is an empty list.
    pub fn from_json(text: &str) -> RecentList {
        serde_json::from_str(text).unwrap_or_default()
    }

    /// The list as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{\"entries\":[]}".into())
    }

    /// Puts `graph` first (dropping an older entry with the same name or the same graph), then trims the list
    /// to [`MAX_RECENT`] entries and [`MAX_RECENT_BYTES`]. A graph larger than the byte budget is not kept.
    pub fn remember(&mut self, graph: RecentGraph) {
        if graph.json.len() > MAX_RECENT_BYTES {
            return;
        }
        self.entries.retain(|e| e.name != graph.name && e.json != graph.json);
        self.entries.insert(0, graph);
        self.entries.truncate(MAX_RECENT);
        let mut total = 0;
        let keep = self.entries.iter().take_while(|e| {
            total += e.json.len();
            total <= MAX_RECENT_BYTES
        });
        let keep = keep.count();
        self.entries.truncate(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, json: &str) -> RecentGraph {
        RecentGraph { name: name.into(), saved_ms: 0.0, nodes: 1, edges: 0, json: json.into() }
    }

    #[test]
    fn graphs_seen_again_move_to_the_front_and_the_list_stays_short() {
        let mut list = RecentList::default();
        for i in 0..12 {
            list.remember(entry(&format!("g{i}"), &format!("{{\"n\": {i}}}")));
        }
        assert_eq!(list.entries.len(), MAX_RECENT);
        assert_eq!(list.entries[0].name, "g11");
        list.remember(entry("g8", "{\"changed\": true}"));
        assert_eq!(list.entries[0].name, "g8");
        assert_eq!(list.entries.iter().filter(|e| e.name == "g8").count(), 1);
        list.remember(entry("again", "{\"n\": 10}"));
        assert!(!list.entries.iter().any(|e| e.name == "g10"), "the same graph under another name replaces it");
    }

    #[test]
    fn the_list_round_trips_and_damage_reads_as_empty() {
        let mut list = RecentList::default();
        list.remember(entry("a", "{}"));
        assert_eq!(RecentList::from_json(&list.to_json()), list);
        assert_eq!(RecentList::from_json("{not json"), RecentList::default());
        assert_eq!(RecentList::from_json("[1, 2]"), RecentList::default());
    }

    #[test]
    fn the_byte_budget_drops_old_graphs_and_refuses_huge_ones() {
        let mut list = RecentList::default();
        let big = "x".repeat(MAX_RECENT_BYTES / 2 + 1);
        list.remember(entry("one", &big));
        list.remember(entry("two", &format!("{big}y")));
        assert_eq!(list.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), vec!["two"]);
        list.remember(entry("huge", &"z".repeat(MAX_RECENT_BYTES + 1)));
        assert_eq!(list.entries[0].name, "two");
    }
}
