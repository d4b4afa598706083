//! Generation over several workers. Every sample is a pure function of (settings, position), so a run's
//! positions are cut into blocks that any worker may make: the worker that holds the run (and its store) makes
//! blocks itself and lends others to helper workers, each as a `GenerateRange` job; `Merge` takes the blocks
//! back in whatever order they come and releases the samples in position order, so the store, the rows and any
//! file made from them are those of one worker alone (`jobs`' tests compare them byte for byte).

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

/// Positions per block: small enough that the last blocks finish close together, large enough that a block's
/// message is worth sending.
pub const BLOCK: usize = 48;
/// At most this many workers share a run (the browser's cores beyond it add little and cost memory).
pub const MAX_WORKERS: usize = 8;

/// Workers to use on a machine with `cores` logical cores (`navigator.hardwareConcurrency`; 0 when unknown).
pub fn workers_for(cores: u32) -> usize {
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// The blocks of positions `0..total`, in order.
pub fn blocks(total: usize, block: usize) -> VecDeque<Range<usize>> {
    let block = block.max(1);
    (0..total).step_by(block).map(|first| first..(first + block).min(total)).collect()
}

/// Takes runs of consecutive items by their first position, in any order, and gives them back in position
/// order as soon as every earlier position is in.
#[derive(Debug)]
pub struct Merge<T> {
    next: usize,
    waiting: BTreeMap<usize, Vec<T>>,
}

impl<T> Default for Merge<T> {
    fn default() -> Merge<T> {
        Merge { next: 0, waiting: BTreeMap::new() }
    }
}

/// A run that does not fit what was already taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("positions {first}..{end} were already taken (the merge is at {next})")]
pub struct Overlap {
    pub first: usize,
    pub end: usize,
    pub next: usize,
}

impl<T> Merge<T> {
    /// Positions released so far: every position below this one has been given back.
    pub fn released(&self) -> usize {
        self.next
    }

    /// Items held back, waiting for an earlier position.
    pub fn held(&self) -> usize {
        self.waiting.values().map(Vec::len).sum()
    }

    /// Takes `items`, the positions from `first` on, and returns the position of the first item released and the
    /// items now in order (none while an earlier position is missing). A run that overlaps one taken before is
    /// refused.
    pub fn put(&mut self, first: usize, items: Vec<T>) -> Result<(usize, Vec<T>), Overlap> {
        let end = first + items.len();
        let overlaps_waiting = self.waiting.range(..end).next_back().is_some_and(|(at, held)| at + held.len() > first);
        if first < self.next || overlaps_waiting {
            return Err(Overlap { first, end, next: self.next });
        }
        let from = self.next;
        if items.is_empty() {
            return Ok((from, Vec::new()));
        }
        self.waiting.insert(first, items);
        let mut out = Vec::new();
        while let Some(run) = self.waiting.remove(&self.next) {
            self.next += run.len();
            out.extend(run);
        }
        Ok((from, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cores_give_one_to_eight_workers() {
        assert_eq!([0, 1, 2, 4, 8, 64].map(workers_for), [1, 1, 2, 4, 8, 8]);
    }

    #[test]
    fn blocks_cover_every_position_once_in_order() {
        let cut: Vec<Range<usize>> = blocks(100, 48).into_iter().collect();
        assert_eq!(cut, vec![0..48, 48..96, 96..100]);
        assert!(blocks(0, 48).is_empty());
        assert_eq!(blocks(3, 0).len(), 3, "a zero block is one position");
    }

    #[test]
    fn runs_given_out_of_order_come_back_in_order() {
        let mut merge = Merge::default();
        assert_eq!(merge.put(4, vec!['e', 'f']), Ok((0, vec![])));
        assert_eq!(merge.put(2, vec!['c', 'd']), Ok((0, vec![])));
        assert_eq!(merge.held(), 4);
        assert_eq!(merge.put(0, vec!['a', 'b']), Ok((0, vec!['a', 'b', 'c', 'd', 'e', 'f'])));
        assert_eq!((merge.released(), merge.held()), (6, 0));
        assert_eq!(merge.put(6, vec!['g']), Ok((6, vec!['g'])));
    }

    #[test]
    fn a_run_taken_twice_is_refused() {
        let mut merge = Merge::default();
        merge.put(0, vec![1, 2]).unwrap();
        assert_eq!(merge.put(1, vec![9]), Err(Overlap { first: 1, end: 2, next: 2 }));
        merge.put(5, vec![5, 6]).unwrap();
        assert!(merge.put(4, vec![4, 5]).is_err(), "overlaps a held run");
        assert!(merge.put(6, vec![6]).is_err());
        assert_eq!(merge.put(2, vec![2, 3, 4]).map(|(_, v)| v), Ok(vec![2, 3, 4, 5, 6]));
    }

    #[test]
    fn any_order_of_blocks_releases_every_position_once() {
        let cut: Vec<Range<usize>> = blocks(230, 48).into_iter().collect();
        for rotation in 0..cut.len() {
            let mut order = cut.clone();
            order.rotate_left(rotation);
            order.reverse();
            let mut merge = Merge::default();
            let mut out = Vec::new();
            for block in order {
                out.extend(merge.put(block.start, block.collect()).unwrap().1);
            }
            assert_eq!(out, (0..230).collect::<Vec<_>>());
        }
    }
}
