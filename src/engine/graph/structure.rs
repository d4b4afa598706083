//! The index structures and graph algorithms validation runs on a million-node graph: compact adjacency lists,
//! an inline id key with a fast hasher, repeated-edge detection, NetworkX's topological generations and cycles.

use std::collections::HashSet;

use super::NodeId;
use crate::engine::sort;

/// Neighbour lists in two allocations: node `i`'s neighbours are `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub(super) struct Adjacency {
    pub(super) offsets: Vec<usize>,
    pub(super) items: Vec<usize>,
}

impl Adjacency {
    /// Lists for `n` nodes from (node, neighbour) pairs, each list in pair order.
    pub(super) fn new(n: usize, pairs: &[(usize, usize)]) -> Adjacency {
        let mut offsets = vec![0usize; n + 1];
        for &(node, _) in pairs {
            offsets[node + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut items = vec![0usize; pairs.len()];
        for &(node, neighbour) in pairs {
            items[next[node]] = neighbour;
            next[node] += 1;
        }
        Adjacency { offsets, items }
    }

    pub(super) fn of(&self, node: usize) -> &[usize] {
        &self.items[self.offsets[node]..self.offsets[node + 1]]
    }

    pub(super) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// Marks every edge (in `pairs`, in edge order) that repeats an earlier edge between the same two nodes, by
/// scanning each node's outgoing edges (short lists, read in order) rather than hashing every pair.
pub(super) fn duplicate_edges(n: usize, pairs: &[(usize, usize)]) -> Vec<bool> {
    let by_source: Vec<(usize, usize)> = pairs.iter().enumerate().map(|(e, &(s, _))| (s, e)).collect();
    let outgoing = Adjacency::new(n, &by_source);
    let mut duplicate = vec![false; pairs.len()];
    let mut seen: HashSet<usize, Fast> = HashSet::default();
    for node in 0..n {
        let edges = outgoing.of(node);
        if edges.len() <= 16 {
            for (k, &e) in edges.iter().enumerate() {
                duplicate[e] = edges[..k].iter().any(|&f| pairs[f].1 == pairs[e].1);
            }
        } else {
            seen.clear();
            for &e in edges {
                duplicate[e] = !seen.insert(pairs[e].1);
            }
        }
    }
    duplicate
}

/// A node id as a hash key: short ids are compared inline (no pointer to follow into the graph, which costs
/// cache misses in a million-node graph), longer ones by reference.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum IdKey<'a> {
    Short(u8, [u8; 22]),
    Long(&'a str),
}

impl<'a> IdKey<'a> {
    pub(super) fn new(id: &'a NodeId) -> IdKey<'a> {
        let bytes = id.0.as_bytes();
        if bytes.len() <= 22 {
            let mut inline = [0u8; 22];
            inline[..bytes.len()].copy_from_slice(bytes);
            IdKey::Short(bytes.len() as u8, inline)
        } else {
            IdKey::Long(&id.0)
        }
    }
}

/// A fast hasher for node ids and edge pairs, hashed a million times in big graphs (SipHash's resistance to
/// crafted keys buys nothing for a file the user loads themselves).
#[derive(Default)]
pub(super) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits (which pick the bucket) depending on the inputs' low bytes only, the
        // same `t` or `a` of every id: mix the high bits down (SplitMix64's finaliser).
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

pub(super) type Fast = std::hash::BuildHasherDefault<FastHasher>;

/// NetworkX's `topological_sort`: generations of in-degree-0 nodes, each in order, children in edge order.
pub(super) fn generations(preds: &Adjacency, succs: &Adjacency) -> Vec<usize> {
    let n = preds.len();
    let mut indegree: Vec<usize> = (0..n).map(|i| preds.of(i).len()).collect();
    let mut current: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut next = Vec::new();
    while !current.is_empty() {
        for &node in &current {
            for &child in succs.of(node) {
                indegree[child] -= 1;
                if indegree[child] == 0 {
                    next.push(child);
                }
            }
        }
        order.extend_from_slice(&current);
        std::mem::swap(&mut current, &mut next);
        next.clear();
    }
    order
}

/// Strongly connected components that contain a cycle (iterative Tarjan via petgraph).
pub(super) fn cycles(succs: &Adjacency) -> Vec<Vec<usize>> {
    let n = succs.len();
    let mut g = petgraph::graph::DiGraph::<(), ()>::with_capacity(n, 0);
    let nodes: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
    for s in 0..n {
        for &d in succs.of(s) {
            g.add_edge(nodes[s], nodes[d], ());
        }
    }
    let mut out: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1 || succs.of(c[0].index()).contains(&c[0].index()))
        .map(|c| {
            let mut c: Vec<usize> = c.into_iter().map(|n| n.index()).collect();
            sort::natural(&mut c);
            c
        })
        .collect();
    sort::natural(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn the_fast_hasher_spreads_similar_ids_over_buckets() {
        // Ids that differ only in their digits must not pile into a few buckets (hashbrown picks buckets with
        // the low bits).
        let fast = Fast::default();
        let buckets: HashSet<u64> = (0..10_000).map(|i| fast.hash_one(NodeId(format!("t{i}"))) & 0xfff).collect();
        assert!(buckets.len() > 3_500, "{} of 4096 buckets used", buckets.len());
        let pairs: HashSet<u64> = (0..10_000usize).map(|i| fast.hash_one((i, i + 1)) & 0xfff).collect();
        assert!(pairs.len() > 3_500, "{} of 4096 buckets used", pairs.len());
    }

    #[test]
    fn generations_follow_networkx_and_cycles_are_found() {
        // 0 -> 2, 1 -> 2, 2 -> 3; then a separate cycle 4 -> 5 -> 4 and a self-loop on 6.
        let pairs = [(0, 2), (1, 2), (2, 3), (4, 5), (5, 4), (6, 6)];
        let succs = Adjacency::new(7, &pairs);
        let reversed: Vec<(usize, usize)> = pairs.iter().map(|&(s, d)| (d, s)).collect();
        let preds = Adjacency::new(7, &reversed);
        assert_eq!(generations(&preds, &succs), vec![0, 1, 2, 3]);
        assert_eq!(cycles(&succs), vec![vec![4, 5], vec![6]]);
    }

    #[test]
    fn only_repeats_of_an_earlier_edge_are_duplicates() {
        let pairs = [(0, 1), (0, 2), (0, 1), (1, 2), (0, 2)];
        assert_eq!(duplicate_edges(3, &pairs), vec![false, false, true, false, true]);
        // Past 16 outgoing edges the check switches to a set: same answer.
        let many: Vec<(usize, usize)> = (0..40).map(|k| (0, 1 + k % 20)).collect();
        let marked = duplicate_edges(21, &many);
        assert!(marked[..20].iter().all(|d| !d) && marked[20..].iter().all(|&d| d));
    }
}
