//! Okapi BM25 over a small set of documents (the `acg` strategy's evidence units): lexical scoring in place of
//! the paper's semantic similarity. Tokens are lowercase runs of letters, digits and underscores, so output
//! names such as `task_3_out` are single terms. Common English function words are dropped, as usual for BM25,
//! and so are bare numbers: they are the values being carried, and a query built from an instruction span would
//! otherwise match every unit that happens to contain its constants (0, 1, 100) instead of the names it shares.

use std::collections::HashMap;
use crate::engine::sort;

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// Length normalisation.
pub const B: f64 = 0.75;

/// Function words that carry no evidence.
pub const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "an", "and", "any", "are", "as", "at", "be", "been", "before", "but", "by", "can", "do", "does", "each", "every", "for",
    "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "once", "one", "only", "or", "other", "our",
    "own", "so", "such", "than", "that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "up", "was", "we", "were", "what", "when",
    "which", "while", "will", "with", "you", "your",
];

/// The terms of a text.
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .filter(|t| !STOPWORDS.contains(&t.as_str()) && !t.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

/// An index over documents given in order; document ids are their positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bm25 {
    /// Term counts per document.
    docs: Vec<HashMap<String, u32>>,
    /// Document lengths in terms.
    lengths: Vec<usize>,
    /// Documents containing each term.
    df: HashMap<String, u32>,
}

impl Bm25 {
    /// An empty index.
    pub fn new() -> Bm25 {
        Bm25::default()
    }

    /// Adds a document; returns its id.
    pub fn add(&mut self, text: &str) -> usize {
        let terms = tokenize(text);
        let mut counts: HashMap<String, u32> = HashMap::new();
        for t in &terms {
            *counts.entry(t.clone()).or_default() += 1;
        }
        for t in counts.keys() {
            *self.df.entry(t.clone()).or_default() += 1;
        }
        self.lengths.push(terms.len());
        self.docs.push(counts);
        self.docs.len() - 1
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The BM25 score of document `doc` for `query` (0 for an unknown id).
    pub fn score(&self, doc: usize, query: &str) -> f64 {
        self.score_terms(doc, &query_terms(query), self.average_length())
    }

    /// The mean document length in terms.
    pub fn average_length(&self) -> f64 {
        self.lengths.iter().sum::<usize>() as f64 / (self.docs.len() as f64).max(1.0)
    }

    /// The BM25 score of `doc` for distinct query `terms` (see [`query_terms`]) with mean length `avg`.
    pub fn score_terms(&self, doc: usize, terms: &[String], avg: f64) -> f64 {
        let Some(counts) = self.docs.get(doc) else { return 0.0 };
        let n = self.docs.len() as f64;
        let len = self.lengths[doc] as f64;
        terms
            .iter()
            .filter_map(|t| {
                let tf = f64::from(*counts.get(t)?);
                let df = f64::from(self.df.get(t).copied().unwrap_or(0));
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                Some(idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg.max(1e-9))))
            })
            .sum()
    }

    /// Documents among `candidates` with a positive score for `query`, best first (ties: the later document
    /// first, since newer evidence is more likely current).
    pub fn rank(&self, query: &str, candidates: impl IntoIterator<Item = usize>) -> Vec<(usize, f64)> {
        let terms = query_terms(query);
        let avg = self.average_length();
        let mut scored: Vec<(usize, f64)> = candidates.into_iter().map(|d| (d, self.score_terms(d, &terms, avg))).filter(|(_, s)| *s > 0.0).collect();
        sort::by(&mut scored, |a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        scored
    }
}

/// The distinct terms of a query, sorted.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms = tokenize(query);
    sort::natural(&mut terms);
    terms.dedup();
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_output_names_and_numbers_whole() {
        assert_eq!(tokenize("\\boxed{task_3_out = [-1082, 7]} Task 3 x2"), vec!["boxed", "task_3_out", "task", "x2"]);
        assert!(tokenize(" ,;{} ").is_empty());
        assert_eq!(tokenize("Let the list be the result of task_2_out"), vec!["let", "list", "result", "task_2_out"]);
    }

    #[test]
    fn rare_terms_outweigh_common_ones_and_unrelated_documents_score_zero() {
        let mut index = Bm25::new();
        let a = index.add("task_1_out = 5, computed from task_1_input");
        let b = index.add("the calculator returned five");
        let c = index.add("task_2_out reads task_1_out");
        let d = index.add("nothing relevant here, only the words of the query: be");
        let ranked = index.rank("Let list_2 be task_1_out", [a, b, c, d]);
        assert_eq!(ranked.iter().map(|(d, _)| *d).collect::<Vec<_>>(), vec![c, a], "{ranked:?}");
        assert_eq!(index.score(d, "task_1_out"), 0.0);
        assert!(index.score(b, "five") > 0.0);
        assert_eq!(index.score(a, "5"), 0.0, "numbers are not terms");
        assert!(index.score(a, "task_1_input") > index.score(a, "task_1_out"), "a term in fewer documents weighs more");
    }

    #[test]
    fn longer_documents_are_normalised_and_ties_prefer_newer_ones() {
        let mut index = Bm25::new();
        let short = index.add("alpha");
        let long = index.add(&format!("alpha {}", "filler ".repeat(50)));
        assert!(index.score(short, "alpha") > index.score(long, "alpha"));
        let again = index.add("alpha");
        assert_eq!(index.rank("alpha", [short, again])[0].0, again);
        assert_eq!(index.len(), 3);
    }
}
