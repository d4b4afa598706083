//! Narrowing the list: a `RowFilter` of verdict, failures and text, the text found in any case by a scan of the
//! record's texts that copies nothing (large files stay responsive).

use super::*;

/// The list's filters; the default keeps everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowFilter {
    /// Only samples with this verdict.
    pub verdict: Option<Verdict>,
    /// Only wrong samples and samples ended by an error.
    pub failures_only: bool,
    /// Text that the prompt, an answer, a turn output or a transcript message must contain (any case).
    pub text: String,
}

/// The positions in `rows` the filter keeps, in order. `samples` is the file's list the rows were made from;
/// the text search reads it, and only for rows that pass the other filters.
pub fn filter_rows(rows: &[SampleRow], samples: &[Json], filter: &RowFilter) -> Vec<usize> {
    let mut search = Search::new(filter);
    search.step(rows, samples, usize::MAX);
    search.kept
}

/// A filtering of the list read in slices, so that a text search through a large file never holds the page:
/// each `step` reads rows until about `budget` bytes of text have been searched, and the rows kept so far
/// stay in list order.
pub struct Search {
    verdict: Option<Verdict>,
    failures_only: bool,
    needle: Option<Needle>,
    next: usize,
    kept: Vec<usize>,
}

impl Search {
    /// A search for `filter`, before its first row.
    pub fn new(filter: &RowFilter) -> Search {
        Search { verdict: filter.verdict, failures_only: filter.failures_only, needle: Needle::new(&filter.text), next: 0, kept: Vec::new() }
    }

    /// Reads on from where the last step stopped; true once every row has been read. A step reads at least
    /// one row, however long its text.
    pub fn step(&mut self, rows: &[SampleRow], samples: &[Json], budget: usize) -> bool {
        let read = std::cell::Cell::new(0usize);
        while let Some(row) = rows.get(self.next) {
            if read.get() >= budget {
                return false;
            }
            let passes = self.verdict.is_none_or(|v| row.verdict == v) && (!self.failures_only || row.verdict.is_failure());
            if passes && self.needle.as_ref().is_none_or(|n| samples.get(row.index).is_some_and(|s| mentions(s, n, &read))) {
                self.kept.push(self.next);
            }
            self.next += 1;
        }
        true
    }

    /// Rows read so far.
    pub fn read(&self) -> usize {
        self.next
    }

    /// The positions kept so far.
    pub fn kept(&self) -> &[usize] {
        &self.kept
    }

    /// The positions kept, taken out.
    pub fn into_kept(self) -> Vec<usize> {
        self.kept
    }
}

/// The count line above the list: `12 of 10,000 samples` or `10,000 samples`.
pub fn count_line(kept: usize, total: usize) -> String {
    let noun = if total == 1 { "sample" } else { "samples" };
    if kept == total {
        format!("{} {noun}", grouped(total as u64))
    } else {
        format!("{} of {} {noun}", grouped(kept as u64), grouped(total as u64))
    }
}

/// A search text, folded once.
enum Needle {
    /// ASCII text, lower-cased: matched byte by byte without allocating.
    Ascii(Vec<u8>),
    /// Other text, lower-cased: matched against lower-cased haystacks.
    Unicode(String),
}

impl Needle {
    fn new(text: &str) -> Option<Needle> {
        let text = text.trim();
        if text.is_empty() {
            None
        } else if text.is_ascii() {
            Some(Needle::Ascii(text.to_ascii_lowercase().into_bytes()))
        } else {
            Some(Needle::Unicode(text.to_lowercase()))
        }
    }

    fn found_in(&self, haystack: &str) -> bool {
        match self {
            Needle::Ascii(needle) => contains_ascii_folded(haystack.as_bytes(), needle),
            Needle::Unicode(needle) => haystack.to_lowercase().contains(needle.as_str()),
        }
    }
}

/// True when `haystack` contains `needle` (lower-case ASCII) in any ASCII case.
pub(super) fn contains_ascii_folded(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else { return true };
    if haystack.len() < needle.len() {
        return false;
    }
    let upper = first.to_ascii_uppercase();
    let last_start = haystack.len() - needle.len();
    (0..=last_start).any(|i| {
        let b = haystack[i];
        (b == first || b == upper) && haystack[i + 1..i + needle.len()].eq_ignore_ascii_case(rest)
    })
}

/// True when the sample's prompt, answers, turn outputs, transcript or error mention `needle`; `read` counts
/// the bytes searched.
fn mentions(sample: &Json, needle: &Needle, read: &std::cell::Cell<usize>) -> bool {
    any_text(sample, &mut |s| {
        read.set(read.get() + s.len());
        needle.found_in(s)
    })
}
