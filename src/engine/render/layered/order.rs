//! Crossing reduction: each rank ordered by alternating median sweeps, keeping the order with the fewest
//! crossings (counted exactly with a Fenwick tree).

use super::{Layered, ORDER_PATIENCE, ORDER_SWEEPS};

impl Layered {
    /// Crossing reduction: alternating median sweeps; the order with the fewest crossings wins.
    pub(super) fn order(&mut self) {
        let mut pos = self.positions();
        let mut best = self.layers.clone();
        let mut best_crossings = self.crossings(&pos);
        let mut stale = 0;
        for sweep in 0..ORDER_SWEEPS {
            if best_crossings == 0 || stale == ORDER_PATIENCE {
                break;
            }
            let downward = sweep % 2 == 0;
            let ranks: Vec<usize> = if downward { (1..self.layers.len()).collect() } else { (0..self.layers.len().saturating_sub(1)).rev().collect() };
            for r in ranks {
                let mut layer = std::mem::take(&mut self.layers[r]);
                let neighbours = if downward { &self.up } else { &self.down };
                sort_by_median(&mut layer, neighbours, &pos);
                for (i, &v) in layer.iter().enumerate() {
                    pos[v] = i;
                }
                self.layers[r] = layer;
            }
            let crossings = self.crossings(&pos);
            if crossings < best_crossings {
                best_crossings = crossings;
                best = self.layers.clone();
                stale = 0;
            } else {
                stale += 1;
            }
        }
        self.layers = best;
    }

    /// Edge crossings between all pairs of adjacent ranks.
    fn crossings(&self, pos: &[usize]) -> u64 {
        let mut total = 0;
        let mut targets = Vec::new();
        for r in 0..self.layers.len().saturating_sub(1) {
            targets.clear();
            for &v in &self.layers[r] {
                let start = targets.len();
                targets.extend(self.down[v].iter().map(|&w| pos[w]));
                targets[start..].sort_unstable();
            }
            total += inversions(&targets, self.layers[r + 1].len());
        }
        total
    }
}

/// Reorders `layer` by the median position of each vertex's `neighbours`; vertices without neighbours keep
/// their slot. Ties keep the current order.
fn sort_by_median(layer: &mut [usize], neighbours: &[Vec<usize>], pos: &[usize]) {
    let mut keyed: Vec<(f64, usize, usize)> = Vec::new();
    let mut fixed = vec![false; layer.len()];
    let mut ps = Vec::new();
    for (i, &v) in layer.iter().enumerate() {
        ps.clear();
        ps.extend(neighbours[v].iter().map(|&u| pos[u] as f64));
        if ps.is_empty() {
            fixed[i] = true;
            continue;
        }
        ps.sort_by(f64::total_cmp);
        let m = ps.len() / 2;
        let median = if ps.len() % 2 == 1 {
            ps[m]
        } else if ps.len() == 2 {
            (ps[0] + ps[1]) / 2.0
        } else {
            let left = ps[m - 1] - ps[0];
            let right = ps[ps.len() - 1] - ps[m];
            if left + right == 0.0 {
                (ps[m - 1] + ps[m]) / 2.0
            } else {
                (ps[m - 1] * right + ps[m] * left) / (left + right)
            }
        };
        keyed.push((median, i, v));
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut next = keyed.into_iter();
    for (i, slot) in layer.iter_mut().enumerate() {
        if !fixed[i] {
            if let Some((_, _, v)) = next.next() {
                *slot = v;
            }
        }
    }
}

/// Inversions of `seq` (values below `bound`): the crossings of edges listed by source order.
pub(super) fn inversions(seq: &[usize], bound: usize) -> u64 {
    let mut tree = vec![0u64; bound + 1];
    let mut count = 0;
    for (seen, &value) in seq.iter().enumerate() {
        // Entries so far that are <= value.
        let mut i = value + 1;
        let mut at_most = 0;
        while i > 0 {
            at_most += tree[i];
            i &= i - 1;
        }
        count += seen as u64 - at_most;
        let mut i = value + 1;
        while i <= bound {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    count
}
