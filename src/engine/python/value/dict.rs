//! The dict: insertion-ordered entries with a hash index over their normalised keys, and the small
//! deterministic hasher behind that index.

use std::collections::HashMap;

use crate::engine::python::hash::HashKey;
use super::PyValue;

/// A small, fast, deterministic hasher for dict indexes (FxHash's multiply-rotate); iteration order never
/// depends on it, since dicts keep insertion order.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
}

type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// An insertion-ordered dict.
#[derive(Clone, Debug, Default)]
pub struct Dict {
    entries: Vec<Option<(PyValue, PyValue)>>,
    index: HashMap<HashKey, usize, FxBuild>,
    /// Bumped when keys are added or removed (iterators detect changes).
    pub version: u64,
}

impl Dict {
    /// An empty dict.
    pub fn new() -> Dict {
        Dict::default()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The value for a key.
    pub fn get(&self, key: &HashKey) -> Option<&PyValue> {
        self.index.get(key).and_then(|&i| self.entries[i].as_ref()).map(|e| &e.1)
    }

    /// Mutable access to the value for a key.
    pub fn get_mut(&mut self, key: &HashKey) -> Option<&mut PyValue> {
        match self.index.get(key) {
            Some(&i) => self.entries[i].as_mut().map(|e| &mut e.1),
            None => None,
        }
    }

    /// Inserts or replaces (an existing key keeps its original key object and position). Returns true if new.
    pub fn insert(&mut self, hk: HashKey, key: PyValue, value: PyValue) -> bool {
        if let Some(&i) = self.index.get(&hk) {
            if let Some(e) = self.entries[i].as_mut() {
                e.1 = value;
            }
            return false;
        }
        self.index.insert(hk, self.entries.len());
        self.entries.push(Some((key, value)));
        self.version += 1;
        true
    }

    /// Removes a key, returning its pair.
    pub fn remove(&mut self, hk: &HashKey) -> Option<(PyValue, PyValue)> {
        let i = self.index.remove(hk)?;
        let pair = self.entries[i].take();
        self.version += 1;
        if self.entries.len() > 16 && self.entries.len() > 2 * self.index.len() {
            self.compact();
        }
        pair
    }

    fn compact(&mut self) {
        self.entries.retain(|e| e.is_some());
        self.index.clear();
        for (i, e) in self.entries.iter().enumerate() {
            if let Some((k, _)) = e {
                if let Ok(hk) = k.hash_key() {
                    self.index.insert(hk, i);
                }
            }
        }
    }

    /// The entry at a raw slot (iteration): `None` past the end, `Some(None)` for a hole.
    pub fn slot(&self, i: usize) -> Option<Option<&(PyValue, PyValue)>> {
        self.entries.get(i).map(Option::as_ref)
    }

    /// Keys in order.
    pub fn keys(&self) -> Vec<PyValue> {
        self.entries.iter().flatten().map(|e| e.0.clone()).collect()
    }

    /// Pairs in order.
    pub fn pairs(&self) -> Vec<(PyValue, PyValue)> {
        self.entries.iter().flatten().cloned().collect()
    }

    /// The pairs in order, consuming the dict (for dropping nested values without recursion).
    pub fn into_pairs(self) -> impl Iterator<Item = (PyValue, PyValue)> {
        self.entries.into_iter().flatten()
    }

    /// Removes and returns the last pair.
    pub fn pop_last(&mut self) -> Option<(PyValue, PyValue)> {
        let (k, _) = self.entries.iter().rev().flatten().next()?.clone();
        let hk = k.hash_key().ok()?;
        self.remove(&hk)
    }
}
