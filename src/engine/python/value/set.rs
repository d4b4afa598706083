//! The set, laid out like CPython's open-addressing hash table (linear probes, then perturbation, a search
//! finger for `pop`), with CPython's resizing and its algorithms for merging, intersection and differences, so
//! that iteration order matches CPython for ints, whose hashes are deterministic.

use crate::engine::python::hash::{cpython_hash, HashKey};
use super::PyValue;

const PERTURB_SHIFT: u32 = 5;
const LINEAR_PROBES: usize = 9;
const SET_MIN_SIZE: usize = 8;

/// One slot of a set table: `(hash, None)` is a deleted-entry dummy, `(hash, Some((key, value)))` an element.
type SetSlot = Option<(i64, Option<(HashKey, PyValue)>)>;

/// A set laid out like CPython's open-addressing table (linear probes, then perturbation), so iteration order
/// (`list(set(...))`, `for x in s`) matches CPython for ints, whose hashes are deterministic.
#[derive(Clone, Debug)]
pub struct PySet {
    /// Table slots: `None` empty, `Some((hash, None))` a deleted-entry dummy, `Some((hash, Some(key)))` active.
    table: Vec<SetSlot>,
    fill: usize,
    used: usize,
    /// Where `pop` starts looking (CPython's search finger).
    finger: usize,
    /// Bumped when elements are added or removed.
    pub version: u64,
}

impl Default for PySet {
    fn default() -> Self {
        PySet { table: vec![None; SET_MIN_SIZE], fill: 0, used: 0, finger: 0, version: 0 }
    }
}

impl PySet {
    /// An empty set.
    pub fn new() -> PySet {
        PySet::default()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.used
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    fn mask(&self) -> usize {
        self.table.len() - 1
    }

    fn find(&self, hk: &HashKey, hash: i64) -> Option<usize> {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in i..=i + probes {
                match &self.table[j] {
                    None => return None,
                    Some((h, Some((k, _)))) if *h == hash && k == hk => return Some(j),
                    _ => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
    }

    /// True if the set holds the key.
    pub fn contains(&self, hk: &HashKey) -> bool {
        self.find(hk, cpython_hash(hk)).is_some()
    }

    /// Adds an element; returns true if it was new.
    pub fn insert(&mut self, hk: HashKey, value: PyValue) -> bool {
        let hash = cpython_hash(&hk);
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut freeslot: Option<usize> = None;
        let slot = 'search: loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in i..=i + probes {
                match &self.table[j] {
                    None => break 'search j,
                    Some((h, Some((k, _)))) => {
                        if *h == hash && *k == hk {
                            return false;
                        }
                    }
                    // CPython 3.11 reuses the last deleted slot met before the empty one that ends the search.
                    Some((_, None)) => freeslot = Some(j),
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        };
        self.version += 1;
        self.used += 1;
        if let Some(free) = freeslot {
            self.table[free] = Some((hash, Some((hk, value))));
            return true;
        }
        self.fill += 1;
        self.table[slot] = Some((hash, Some((hk, value))));
        if self.fill * 5 >= mask * 3 {
            let minused = if self.used > 50000 { self.used * 2 } else { self.used * 4 };
            self.resize(minused);
        }
        true
    }

    fn resize(&mut self, minused: usize) {
        let mut newsize = SET_MIN_SIZE;
        while newsize <= minused {
            newsize <<= 1;
        }
        let old = std::mem::replace(&mut self.table, vec![None; newsize]);
        self.fill = self.used;
        for (hash, entry) in old.into_iter().flatten() {
            if let Some(entry) = entry {
                self.insert_clean(hash, entry);
            }
        }
    }

    /// Places an element known to be absent into the first free slot of its probe sequence (CPython's
    /// `set_insert_clean`); the caller keeps `fill` and `used` right.
    fn insert_clean(&mut self, hash: i64, entry: (HashKey, PyValue)) {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let slot = 'search: loop {
            if self.table[i].is_none() {
                break 'search i;
            }
            if i + LINEAR_PROBES <= mask {
                for j in i + 1..=i + LINEAR_PROBES {
                    if self.table[j].is_none() {
                        break 'search j;
                    }
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        };
        self.table[slot] = Some((hash, Some(entry)));
    }

    /// Adds every element of another set the way CPython's `set_merge` does (`set(s)`, `s.copy()`, `s | t`,
    /// `s.update(t)`): one resize up front for `used + other.used` elements, then a verbatim copy of the table
    /// when this set is empty and both tables have the same size and `other` has no deleted entries, clean
    /// insertion in `other`'s slot order when this set is empty, and ordinary insertion otherwise.
    pub fn merge(&mut self, other: &PySet) {
        if other.used == 0 {
            return;
        }
        if (self.fill + other.used) * 5 >= self.mask() * 3 {
            self.resize((self.used + other.used) * 2);
        }
        if self.fill == 0 && self.mask() == other.mask() && other.fill == other.used {
            self.table = other.table.clone();
            self.fill = other.fill;
            self.used = other.used;
            self.version += 1;
            return;
        }
        let entries = other.table.iter().flatten().filter_map(|(hash, entry)| entry.as_ref().map(|e| (*hash, e.clone())));
        if self.fill == 0 {
            for (hash, entry) in entries {
                self.insert_clean(hash, entry);
            }
            self.fill = other.used;
            self.used = other.used;
            self.version += 1;
            return;
        }
        for (_, (hk, value)) in entries {
            self.insert(hk, value);
        }
    }

    /// Prepares for the keys of a dict of `incoming` entries the way CPython's `set_update_internal` does before
    /// inserting them: one resize to fit `(used + incoming) * 2` when the table would pass its fill limit.
    pub fn presize_for_dict(&mut self, incoming: usize) {
        if (self.fill + incoming) * 5 >= self.mask() * 3 {
            self.resize((self.used + incoming) * 2);
        }
    }

    /// Removes an element; returns true if it was present.
    pub fn remove(&mut self, hk: &HashKey) -> bool {
        let hash = cpython_hash(hk);
        match self.find(hk, hash) {
            Some(j) => {
                self.table[j] = Some((-1, None));
                self.used -= 1;
                self.version += 1;
                true
            }
            None => false,
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        *self = PySet { version: self.version + 1, finger: self.finger, ..PySet::default() };
    }

    /// The element at a raw slot (iteration): `None` past the end, `Some(None)` for an empty slot.
    pub fn slot(&self, i: usize) -> Option<Option<&PyValue>> {
        match self.table.get(i) {
            Some(Some((_, Some((_, v))))) => Some(Some(v)),
            Some(_) => Some(None),
            None => None,
        }
    }

    /// Elements in iteration order.
    pub fn items(&self) -> Vec<PyValue> {
        self.table.iter().filter_map(|e| e.as_ref().and_then(|(_, kv)| kv.as_ref()).map(|(_, v)| v.clone())).collect()
    }

    /// Keys in iteration order.
    pub fn keys(&self) -> impl Iterator<Item = &HashKey> {
        self.table.iter().filter_map(|e| e.as_ref().and_then(|(_, kv)| kv.as_ref()).map(|(k, _)| k))
    }

    /// Removes and returns an element the way CPython's `set.pop` does: the first active slot at or after the
    /// search finger (wrapping around), which then moves past it.
    pub fn pop_first(&mut self) -> Option<PyValue> {
        if self.used == 0 {
            return None;
        }
        let mask = self.mask();
        let mut j = self.finger & mask;
        while !matches!(self.table[j], Some((_, Some(_)))) {
            j = if j >= mask { 0 } else { j + 1 };
        }
        let taken = self.table[j].replace((-1, None));
        self.used -= 1;
        self.version += 1;
        self.finger = j + 1;
        taken.and_then(|(_, kv)| kv).map(|(_, v)| v)
    }

    /// Replaces the elements with another set's table (CPython's `set_swap_bodies`, as `s &= t` does), keeping
    /// this set's search finger and bumping its version.
    pub fn take_contents(&mut self, other: PySet) {
        let (finger, version) = (self.finger, self.version + 1);
        *self = PySet { finger, version, ..other };
    }

    /// Active elements in slot order, with their keys.
    pub fn entries(&self) -> Vec<(HashKey, PyValue)> {
        self.table.iter().flatten().filter_map(|(_, kv)| kv.clone()).collect()
    }

    /// `a & b` for two distinct sets (CPython's `set_intersection`): walks the smaller set (the right one on a
    /// tie) and adds, in its slot order, the elements the other set holds.
    pub fn intersection(&self, other: &PySet) -> PySet {
        let (walked, probed) = if other.len() > self.len() { (self, other) } else { (other, self) };
        let mut out = PySet::new();
        for (hk, v) in walked.entries() {
            if probed.contains(&hk) {
                out.insert(hk, v);
            }
        }
        out
    }

    /// `a - b` (CPython's `set_difference` with a set or dict of `other_len` elements, membership by
    /// `in_other`): a set much larger than the other is copied and then has the other's elements removed;
    /// otherwise the elements missing from the other are added to a new set in slot order.
    pub fn difference_by(&self, other_len: usize, in_other: impl Fn(&HashKey) -> bool, other_keys: impl FnOnce() -> Vec<HashKey>) -> PySet {
        let mut out = PySet::new();
        if (self.len() >> 2) > other_len {
            out.merge(self);
            out.discard_all(other_keys());
            return out;
        }
        for (hk, v) in self.entries() {
            if !in_other(&hk) {
                out.insert(hk, v);
            }
        }
        out
    }

    /// `s -= t` for a distinct set (CPython's `set_difference_update_internal`): removes t's elements (only
    /// those of `s & t` when t is more than 8 times larger), then drops deleted slots if over a quarter are.
    pub fn difference_update(&mut self, other: &PySet) {
        let keys: Vec<HashKey> = if (other.len() >> 3) > self.len() {
            self.intersection(other).entries().into_iter().map(|(k, _)| k).collect()
        } else {
            other.entries().into_iter().map(|(k, _)| k).collect()
        };
        self.discard_all(keys);
    }

    /// Removes every key given (in order), then resizes away deleted slots if over a quarter of the table are.
    pub fn discard_all(&mut self, keys: Vec<HashKey>) {
        for k in keys {
            self.remove(&k);
        }
        if self.fill - self.used > self.mask() / 4 {
            let minused = if self.used > 50000 { self.used * 2 } else { self.used * 4 };
            self.resize(minused);
        }
    }

    /// `s ^= t` for a distinct set (CPython's `set_symmetric_difference_update`): each element of t, in slot
    /// order, is removed from s if present and added otherwise.
    pub fn symmetric_difference_update(&mut self, other: &PySet) {
        for (hk, v) in other.entries() {
            if !self.remove(&hk) {
                self.insert(hk, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_set(items: &[i64]) -> Vec<i64> {
        let mut s = PySet::new();
        for &i in items {
            s.insert(HashKey::Int(i), PyValue::Int(i));
        }
        s.items().iter().filter_map(|v| v.as_i64()).collect()
    }

    #[test]
    fn set_iteration_order_follows_cpython_hash_table() {
        // Checked against CPython 3.11: list({3, 1, 2}) == [1, 2, 3]; list({-1, 5, 9}) == [9, 5, -1];
        // list(set([10, -3, 7, 100, 0])) == [0, 100, 7, 10, -3].
        assert_eq!(int_set(&[3, 1, 2]), vec![1, 2, 3]);
        assert_eq!(int_set(&[-1, 5, 9]), vec![9, 5, -1]);
        assert_eq!(int_set(&[10, -3, 7, 100, 0]), vec![0, 100, 7, 10, -3]);
    }
}
