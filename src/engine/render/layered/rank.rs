//! Ranking: edges resolved to node indices, cycles broken by reversing back edges, and ranks that keep every
//! edge pointing forward.

use std::collections::{BTreeMap, VecDeque};

use super::super::RenderError;
use crate::engine::graph::TaskGraph;

/// Edges as node indices (the first node with a given id wins, as in `TaskGraph::node`).
pub(super) fn resolve_edges(graph: &TaskGraph) -> Result<Vec<(usize, usize)>, RenderError> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, node) in graph.nodes().iter().enumerate() {
        index.entry(node.id.0.as_str()).or_insert(i);
    }
    graph
        .edges()
        .iter()
        .map(|e| match (index.get(e.source.0.as_str()), index.get(e.destination.0.as_str())) {
            (Some(&s), Some(&t)) => Ok((s, t)),
            _ => Err(RenderError::UnknownNode(e.source.0.clone(), e.destination.0.clone())),
        })
        .collect()
}

/// Marks the edges that close a cycle: back edges of a depth-first search from each node in order.
pub(super) fn back_edges(n: usize, edges: &[(usize, usize)]) -> Vec<bool> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, &(s, t)) in edges.iter().enumerate() {
        if s != t {
            out[s].push((t, i));
        }
    }
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut reversed = vec![false; edges.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        state[root] = OPEN;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (v, next) = *top;
            if next == out[v].len() {
                state[v] = DONE;
                stack.pop();
                continue;
            }
            top.1 += 1;
            let (w, i) = out[v][next];
            match state[w] {
                NEW => {
                    state[w] = OPEN;
                    stack.push((w, 0));
                }
                OPEN => reversed[i] = true,
                _ => {}
            }
        }
    }
    reversed
}

/// Ranks of an acyclic graph: longest path from the sources, then two rounds of moving nodes that have more
/// edges on one side towards that side, which shortens edges (a cheap stand-in for network simplex).
pub(super) fn rank_nodes(n: usize, dag: &[(usize, usize)], self_loop: &[bool]) -> Vec<i64> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (&(s, t), &is_loop) in dag.iter().zip(self_loop) {
        if !is_loop {
            succ[s].push(t);
            pred[t].push(s);
        }
    }
    let mut indegree: Vec<usize> = pred.iter().map(Vec::len).collect();
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut topo = Vec::with_capacity(n);
    while let Some(v) = queue.pop_front() {
        topo.push(v);
        for &w in &succ[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    let mut rank = vec![0i64; n];
    for &v in &topo {
        for &w in &succ[v] {
            rank[w] = rank[w].max(rank[v] + 1);
        }
    }
    for _ in 0..2 {
        for &v in topo.iter().rev() {
            if !succ[v].is_empty() && succ[v].len() > pred[v].len() {
                rank[v] = succ[v].iter().map(|&w| rank[w]).min().unwrap_or(rank[v] + 1) - 1;
            }
        }
        for &v in &topo {
            if !pred[v].is_empty() && pred[v].len() > succ[v].len() {
                rank[v] = pred[v].iter().map(|&u| rank[u]).max().unwrap_or(rank[v] - 1) + 1;
            }
        }
    }
    let low = rank.iter().copied().min().unwrap_or(0);
    rank.iter().map(|r| r - low).collect()
}
