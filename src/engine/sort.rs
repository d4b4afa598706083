//! Stable sorting through one instantiation of the standard library's sort.
//!
//! `slice::sort_by` is generic over the element and the comparison, so every call site with its own element
//! type or closure links its own copy of the sort (a few kB of wasm each: the page's module held 319 such
//! functions, 167 kB of code before optimisation). These functions sort positions (`usize`) with a comparison
//! passed as a trait object, which links the sort once, then move the elements into that order; what remains
//! generic per call site is the small permutation. The app's and the page's code sorts only through here (the
//! tidy test holds `src/app` and `src/ui` to it); the generators' and the layout's hot loops keep `slice::sort`,
//! where the worker's speed matters more than its size.

use std::cmp::Ordering;

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub fn by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = positions(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` stably by `key`, as `slice::sort_by_key` does.
pub fn by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their own order, as `slice::sort` does.
pub fn natural<T: Ord>(items: &mut [T]) {
    by(items, T::cmp);
}

/// The positions `0..len` in the order `compare` (which compares two positions) gives, ties in position order.
fn positions(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Puts at each position `i` the element that was at `order[i]`, following each cycle of the permutation once.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every order the standard library's stable sort gives, including the order of ties.
        #[test]
        fn sorts_as_the_standard_library_does(items in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut expected = items.clone();
            expected.sort_by_key(|&(k, _)| k);
            let mut got = items.clone();
            by_key(&mut got, |&(k, _)| k);
            prop_assert_eq!(&got, &expected);

            let mut expected = items.clone();
            expected.sort_by(|a, b| b.1.cmp(&a.1));
            let mut got = items.clone();
            by(&mut got, |a, b| b.1.cmp(&a.1));
            prop_assert_eq!(&got, &expected);

            let mut expected = items.clone();
            expected.sort();
            let mut got = items;
            natural(&mut got);
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn moves_elements_that_own_memory() {
        let mut words: Vec<String> = ["pear", "fig", "apple", "fig", "kiwi"].iter().map(|w| w.to_string()).collect();
        by_key(&mut words, |w| w.len());
        assert_eq!(words, ["fig", "fig", "pear", "kiwi", "apple"]);
        let mut none: Vec<String> = vec![];
        natural(&mut none);
        assert!(none.is_empty());
    }
}
