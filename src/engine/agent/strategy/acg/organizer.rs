//! The structural-entropy organizer (appendix B.2): groups evidence units into clusters so that retrieval can add
//! a seed's local cluster (`LocalCluster(S_t)`, eq. 3.3).
//!
//! The weighted graph: every mutual-nearest-neighbour pair of units has semantic weight 1 (nearest by the same
//! lexical BM25 score that picks seeds); every pair of units sharing a source event, among `n > 1` units of that
//! source, has source-affinity weight `1/(n−1)` (a group is counted once); the two weights add. A partition `P`
//! is scored by the two-level structural entropy
//! `H(P) = −Σ_C g_C/vol(G)·log2(vol(C)/vol(G)) − Σ_C Σ_{v∈C} d_v/vol(G)·log2(d_v/vol(C))`, where `g_C` is the
//! weight leaving `C`. Zero-volume groups contribute zero; an edgeless graph scores zero.
//!
//! Minimisation is greedy and deterministic: start from singletons, repeatedly merge the two adjacent clusters
//! whose merge lowers `H` most (ties: the pair with the smallest cluster ids), stop when no merge lowers it (a
//! merge that leaves `H` unchanged is taken only when it closes a whole component, such as a lone pair). Each
//! pass scans the adjacent pairs once, so one run over `n` units and `m` weighted edges costs `O(n·m)` time and
//! `O(n + m)` memory. The strategy organises only the connected components around the seeds, at most
//! [`ORGANIZER_LIMIT`] units, so each request's cost is bounded whatever the length of the run.

use std::collections::BTreeMap;

/// Most units one organisation covers (the seeds' components, breadth-first from the seeds).
pub const ORGANIZER_LIMIT: usize = 256;

/// An undirected weighted graph over nodes `0..n`, edges merged by endpoint pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeightedGraph {
    /// Number of nodes.
    pub n: usize,
    /// Edge weights keyed by `(a, b)` with `a < b`.
    pub edges: BTreeMap<(usize, usize), f64>,
}

impl WeightedGraph {
    /// A graph of `n` nodes and no edges.
    pub fn new(n: usize) -> WeightedGraph {
        WeightedGraph { n, edges: BTreeMap::new() }
    }

    /// Adds `weight` to the edge between `a` and `b` (loops and non-positive weights are ignored).
    pub fn add(&mut self, a: usize, b: usize, weight: f64) {
        if a == b || weight <= 0.0 || a >= self.n || b >= self.n {
            return;
        }
        *self.edges.entry((a.min(b), a.max(b))).or_insert(0.0) += weight;
    }

    /// Weighted degree of every node.
    pub fn degrees(&self) -> Vec<f64> {
        let mut d = vec![0.0; self.n];
        for (&(a, b), &w) in &self.edges {
            d[a] += w;
            d[b] += w;
        }
        d
    }
}

/// The two-level structural entropy `H(P)` of `partition` (a cluster id per node).
pub fn structural_entropy(graph: &WeightedGraph, partition: &[usize]) -> f64 {
    let degrees = graph.degrees();
    let volume: f64 = degrees.iter().sum();
    if volume <= 0.0 {
        return 0.0;
    }
    let mut vol: BTreeMap<usize, f64> = BTreeMap::new();
    let mut cut: BTreeMap<usize, f64> = BTreeMap::new();
    for (v, d) in degrees.iter().enumerate() {
        *vol.entry(partition[v]).or_insert(0.0) += d;
    }
    for (&(a, b), &w) in &graph.edges {
        if partition[a] != partition[b] {
            *cut.entry(partition[a]).or_insert(0.0) += w;
            *cut.entry(partition[b]).or_insert(0.0) += w;
        }
    }
    let mut h = 0.0;
    for (c, &vc) in &vol {
        if vc <= 0.0 {
            continue;
        }
        let g = cut.get(c).copied().unwrap_or(0.0);
        h -= g / volume * (vc / volume).log2();
    }
    for (v, &d) in degrees.iter().enumerate() {
        let vc = vol[&partition[v]];
        if d > 0.0 && vc > 0.0 {
            h -= d / volume * (d / vc).log2();
        }
    }
    h
}

/// The part of `H` that depends on one cluster of volume `vol` and cut `g` (the `Σ d·log2 d` term is the same
/// for every partition and left out).
fn cluster_term(vol: f64, g: f64, volume: f64) -> f64 {
    if vol <= 0.0 {
        return 0.0;
    }
    -(g / volume) * (vol / volume).log2() + (vol / volume) * vol.log2()
}

/// A partition of the graph's nodes that greedily minimises `H(P)`: a cluster id per node (the smallest node of
/// the cluster). Same graph, same partition.
pub fn organize(graph: &WeightedGraph) -> Vec<usize> {
    let degrees = graph.degrees();
    let volume: f64 = degrees.iter().sum();
    let mut cluster: Vec<usize> = (0..graph.n).collect();
    if volume <= 0.0 {
        return cluster;
    }
    let mut vol: BTreeMap<usize, f64> = degrees.iter().copied().enumerate().collect();
    let mut cut: BTreeMap<usize, f64> = vol.clone();
    // Weight between clusters, keyed by (smaller id, larger id).
    let mut between: BTreeMap<(usize, usize), f64> = graph.edges.clone();
    loop {
        let mut best: Option<((usize, usize), f64)> = None;
        for (&(a, b), &w) in &between {
            let (va, vb) = (vol[&a], vol[&b]);
            let (ga, gb) = (cut[&a], cut[&b]);
            let merged_cut = ga + gb - 2.0 * w;
            let merged = cluster_term(va + vb, merged_cut, volume);
            let delta = merged - cluster_term(va, ga, volume) - cluster_term(vb, gb, volume);
            // A merge that closes a component off (no weight leaves it) is taken on a tie too: a lone pair
            // scores the same apart and together.
            let closes = merged_cut.abs() <= 1e-12 && delta <= 1e-12;
            if (delta < -1e-12 || closes) && best.is_none_or(|(_, d)| delta < d - 1e-12) {
                best = Some(((a, b), delta));
            }
        }
        let Some(((a, b), _)) = best else { break };
        // Merge b into a (a < b).
        let w_ab = between.remove(&(a, b)).unwrap_or(0.0);
        let vb = vol.remove(&b).unwrap_or(0.0);
        let gb = cut.remove(&b).unwrap_or(0.0);
        *vol.entry(a).or_insert(0.0) += vb;
        *cut.entry(a).or_insert(0.0) += gb - 2.0 * w_ab;
        let moved: Vec<((usize, usize), f64)> = between.iter().filter(|((x, y), _)| *x == b || *y == b).map(|(k, w)| (*k, *w)).collect();
        for (key, w) in moved {
            between.remove(&key);
            let other = if key.0 == b { key.1 } else { key.0 };
            *between.entry((a.min(other), a.max(other))).or_insert(0.0) += w;
        }
        for c in cluster.iter_mut() {
            if *c == b {
                *c = a;
            }
        }
    }
    cluster
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize, f64)]) -> WeightedGraph {
        let mut g = WeightedGraph::new(n);
        for &(a, b, w) in edges {
            g.add(a, b, w);
        }
        g
    }

    #[test]
    fn two_cliques_joined_by_one_edge_become_two_clusters() {
        let g = graph(6, &[(0, 1, 1.0), (1, 2, 1.0), (0, 2, 1.0), (3, 4, 1.0), (4, 5, 1.0), (3, 5, 1.0), (2, 3, 0.2)]);
        let p = organize(&g);
        assert_eq!(p, vec![0, 0, 0, 3, 3, 3]);
        let singletons: Vec<usize> = (0..6).collect();
        assert!(structural_entropy(&g, &p) < structural_entropy(&g, &singletons));
        assert!(structural_entropy(&g, &p) <= structural_entropy(&g, &[0; 6]) + 1e-9, "two clusters beat one");
        assert_eq!(organize(&g), p, "deterministic");
    }

    #[test]
    fn an_edgeless_graph_scores_zero_and_stays_apart() {
        let g = WeightedGraph::new(4);
        assert_eq!(structural_entropy(&g, &[0, 1, 2, 3]), 0.0);
        assert_eq!(organize(&g), vec![0, 1, 2, 3]);
        let isolated = graph(3, &[(0, 1, 1.0)]);
        assert_eq!(organize(&isolated), vec![0, 0, 2], "a lone pair is one cluster; a node without edges joins nothing");
    }

    #[test]
    fn weights_on_the_same_pair_add_and_loops_are_ignored() {
        let mut g = graph(2, &[(0, 1, 1.0), (1, 0, 0.5), (1, 1, 3.0)]);
        assert_eq!(g.edges.get(&(0, 1)), Some(&1.5));
        g.add(0, 9, 1.0);
        assert_eq!(g.edges.len(), 1);
        assert_eq!(g.degrees(), vec![1.5, 1.5]);
    }
}
