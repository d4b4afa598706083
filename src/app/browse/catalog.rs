//! What the instance list shows and how it is narrowed: a `Row` per sample (small, so 100,000 of them fit in
//! the page), the `Query` of the browser's filters (topology, family, target task, chain length, text in the
//! prompt) and sort order, `select` (the positions a query keeps, in order), and the `Facets` the filter
//! menus offer. The text search runs where the prompts are (the worker); everything here is plain Rust.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use crate::engine::sort;

/// One sample as the list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Position in the dataset.
    pub index: usize,
    pub topology: String,
    pub family: String,
    /// The target task's name (`ConvolutionTask`, `GSM_0007.json`, a Python function).
    pub target: String,
    /// Task stages in the prompt (the chain length for chains).
    pub stages: usize,
    /// The sample's index among its target's samples, when the file says.
    pub sample_idx: Option<u32>,
    /// The graded answer as Python prints it, shortened for the list.
    pub answer: String,
    /// The prompt's length in characters.
    pub prompt_chars: usize,
    /// Generated samples: the plan's run and the target's position in it, so a link can regenerate the sample.
    pub origin: Option<(usize, usize)>,
}

/// The longest answer text a row keeps.
pub const ROW_ANSWER_CHARS: usize = 40;


/// The order of the list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    /// Dataset order.
    #[default]
    Index,
    Target,
    Stages,
    PromptLength,
    Answer,
}

impl SortKey {
    /// Every key, in menu order.
    pub const ALL: [SortKey; 5] = [SortKey::Index, SortKey::Target, SortKey::Stages, SortKey::PromptLength, SortKey::Answer];

    /// The key's name in menus and links.
    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Index => "index",
            SortKey::Target => "target",
            SortKey::Stages => "stages",
            SortKey::PromptLength => "prompt_length",
            SortKey::Answer => "answer",
        }
    }

    /// The key named `name` (dataset order for anything else).
    pub fn parse(name: &str) -> SortKey {
        SortKey::ALL.into_iter().find(|k| k.as_str() == name).unwrap_or_default()
    }
}

/// The browser's filters and sort order; empty strings and `None` filter nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    pub topology: String,
    pub family: String,
    pub target: String,
    /// Only samples with exactly this many stages.
    pub stages: Option<usize>,
    /// Text the prompt contains, ignoring ASCII case.
    pub text: String,
    pub sort: SortKey,
    pub descending: bool,
}

impl Query {
    /// True when the query keeps every row in dataset order (the page then needs no list from the worker).
    pub fn is_identity(&self) -> bool {
        self.topology.is_empty() && self.family.is_empty() && self.target.is_empty() && self.stages.is_none() && self.text.trim().is_empty() && self.sort == SortKey::Index && !self.descending
    }

    /// True when the query keeps `row`, whose prompt is `prompt`.
    pub fn matches(&self, row: &Row, prompt: &str) -> bool {
        (self.topology.is_empty() || row.topology == self.topology)
            && (self.family.is_empty() || row.family == self.family)
            && (self.target.is_empty() || row.target == self.target)
            && self.stages.is_none_or(|n| row.stages == n)
            && (self.text.trim().is_empty() || contains_ignoring_case(prompt, self.text.trim()))
    }
}

/// The dataset positions `query` keeps, in its order (ties in dataset order).
pub fn select<'a>(items: impl Iterator<Item = (&'a Row, &'a str)>, query: &Query) -> Vec<usize> {
    let mut kept: Vec<&Row> = items.filter(|(row, prompt)| query.matches(row, prompt)).map(|(row, _)| row).collect();
    match query.sort {
        SortKey::Index => sort::by_key(&mut kept, |r| r.index),
        SortKey::Target => sort::by(&mut kept, |a, b| a.target.cmp(&b.target).then(a.index.cmp(&b.index))),
        SortKey::Stages => sort::by(&mut kept, |a, b| a.stages.cmp(&b.stages).then(a.index.cmp(&b.index))),
        SortKey::PromptLength => sort::by(&mut kept, |a, b| a.prompt_chars.cmp(&b.prompt_chars).then(a.index.cmp(&b.index))),
        SortKey::Answer => sort::by(&mut kept, |a, b| a.answer.cmp(&b.answer).then(a.index.cmp(&b.index))),
    }
    if query.descending {
        kept.reverse();
    }
    kept.into_iter().map(|r| r.index).collect()
}

/// Where dataset position `index` is in a list: the list is every position in order (`None`) or the kept ones.
pub fn position_of(view: Option<&[usize]>, index: usize) -> Option<usize> {
    match view {
        None => Some(index),
        Some(kept) => kept.iter().position(|&i| i == index),
    }
}

/// The dataset position shown at list position `position`.
pub fn index_at(view: Option<&[usize]>, position: usize) -> Option<usize> {
    match view {
        None => Some(position),
        Some(kept) => kept.get(position).copied(),
    }
}

/// True when `haystack` contains `needle`, ignoring ASCII case (the prompts' names and numbers are ASCII).
pub fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    let needle = needle.as_bytes();
    let hay = haystack.as_bytes();
    let Some((&first, rest)) = needle.split_first() else { return true };
    if needle.len() > hay.len() {
        return false;
    }
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let last_start = hay.len() - needle.len();
    let mut i = 0;
    while i <= last_start {
        let b = hay[i];
        if (b == lower || b == upper) && hay[i + 1..i + needle.len()].eq_ignore_ascii_case(rest) {
            return true;
        }
        i += 1;
    }
    false
}

/// The values each filter can take in a set of rows, with how many rows have each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facets {
    pub topologies: Vec<(String, usize)>,
    pub families: Vec<(String, usize)>,
    pub targets: Vec<(String, usize)>,
    pub stages: Vec<(usize, usize)>,
}

impl Facets {
    /// The facets of `rows`, each sorted by value.
    pub fn of<'a>(rows: impl Iterator<Item = &'a Row>) -> Facets {
        let mut topologies = BTreeMap::new();
        let mut families = BTreeMap::new();
        let mut targets = BTreeMap::new();
        let mut stages = BTreeMap::new();
        for row in rows {
            *topologies.entry(row.topology.clone()).or_insert(0) += 1;
            *families.entry(row.family.clone()).or_insert(0) += 1;
            *targets.entry(row.target.clone()).or_insert(0) += 1;
            *stages.entry(row.stages).or_insert(0) += 1;
        }
        Facets {
            topologies: topologies.into_iter().collect(),
            families: families.into_iter().collect(),
            targets: targets.into_iter().collect(),
            stages: stages.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(index: usize, topology: &str, family: &str, target: &str, stages: usize, answer: &str) -> Row {
        Row { index, topology: topology.into(), family: family.into(), target: target.into(), stages, sample_idx: Some(0), answer: answer.into(), prompt_chars: 100 - index, origin: None }
    }

    fn rows() -> (Vec<Row>, Vec<String>) {
        let rows = vec![
            row(0, "chain", "math", "ConvolutionTask", 4, "[1, 2]"),
            row(1, "baseline", "math", "PolyQuotientTask", 1, "7"),
            row(2, "chain", "gsm", "GSM_0007.json", 4, "12"),
            row(3, "chain", "math", "ConvolutionTask", 8, "-3"),
        ];
        let prompts = vec!["Task 1: convolution".to_string(), "Task 1: quotient".into(), "Zoe bought a Jersey".into(), "Task 8: CONVOLUTION".into()];
        (rows, prompts)
    }

    fn run(query: &Query) -> Vec<usize> {
        let (rows, prompts) = rows();
        select(rows.iter().zip(prompts.iter().map(String::as_str)), query)
    }

    #[test]
    fn filters_combine_and_keep_dataset_order() {
        assert_eq!(run(&Query::default()), [0, 1, 2, 3]);
        assert_eq!(run(&Query { topology: "chain".into(), ..Query::default() }), [0, 2, 3]);
        assert_eq!(run(&Query { topology: "chain".into(), family: "math".into(), ..Query::default() }), [0, 3]);
        assert_eq!(run(&Query { target: "ConvolutionTask".into(), stages: Some(8), ..Query::default() }), [3]);
        assert_eq!(run(&Query { family: "python".into(), ..Query::default() }), Vec::<usize>::new());
    }

    #[test]
    fn text_search_ignores_case_and_surrounding_space() {
        assert_eq!(run(&Query { text: " Convolution ".into(), ..Query::default() }), [0, 3]);
        assert_eq!(run(&Query { text: "jersey".into(), ..Query::default() }), [2]);
        assert!(contains_ignoring_case("abc", ""));
        assert!(!contains_ignoring_case("ab", "abc"));
        assert!(contains_ignoring_case("xxABc", "abC"));
        assert!(!contains_ignoring_case("task_1_out = 5", "task_2"));
    }

    #[test]
    fn sorting_breaks_ties_by_index_and_can_be_reversed() {
        assert_eq!(run(&Query { sort: SortKey::Target, ..Query::default() }), [0, 3, 2, 1]);
        assert_eq!(run(&Query { sort: SortKey::Stages, ..Query::default() }), [1, 0, 2, 3]);
        assert_eq!(run(&Query { sort: SortKey::Stages, descending: true, ..Query::default() }), [3, 2, 0, 1]);
        assert_eq!(run(&Query { sort: SortKey::PromptLength, ..Query::default() }), [3, 2, 1, 0]);
        assert_eq!(SortKey::parse("prompt_length"), SortKey::PromptLength);
        assert_eq!(SortKey::parse("nonsense"), SortKey::Index);
        assert!(Query::default().is_identity());
        assert!(!Query { descending: true, ..Query::default() }.is_identity());
    }

    #[test]
    fn facets_count_each_value() {
        let (rows, _) = rows();
        let facets = Facets::of(rows.iter());
        assert_eq!(facets.topologies, [("baseline".to_string(), 1), ("chain".to_string(), 3)]);
        assert_eq!(facets.stages, [(1, 1), (4, 2), (8, 1)]);
        assert_eq!(facets.targets[0], ("ConvolutionTask".to_string(), 2));
    }

    #[test]
    fn list_positions_map_to_dataset_positions_both_ways() {
        assert_eq!((position_of(None, 7), index_at(None, 7)), (Some(7), Some(7)));
        let kept = [4, 9, 2];
        assert_eq!((position_of(Some(&kept), 9), position_of(Some(&kept), 5)), (Some(1), None));
        assert_eq!((index_at(Some(&kept), 2), index_at(Some(&kept), 3)), (Some(2), None));
    }
}
