//! Cross-axis coordinates: alternating sweeps put each vertex at the weighted mean of its neighbours, solved per
//! rank as an isotonic regression so that boxes keep their order and gaps.

use super::{Layered, BALANCE_SWEEPS, CENTRE_PULL, EDGE_GAP, PLACE_SWEEPS, STAY};

impl Layered {
    /// Minimum centre distance between two neighbours of a rank.
    pub(super) fn separation(&self, a: usize, b: usize) -> f64 {
        let gap = match (a < self.n, b < self.n) {
            (true, true) => self.node_gap,
            (false, false) => EDGE_GAP,
            _ => (self.node_gap + EDGE_GAP) / 2.0,
        };
        (self.extent[a].1 + self.extent[b].1) / 2.0 + gap
    }

    /// Weight of the segment between `a` and `b`: straight long edges matter more than short ones.
    fn weight(&self, a: usize, b: usize) -> f64 {
        match (a < self.n, b < self.n) {
            (true, true) => 1.0,
            (false, false) => 8.0,
            _ => 2.0,
        }
    }

    /// Cross-axis centre of every vertex.
    pub(super) fn place(&self) -> Vec<f64> {
        // Start from each rank packed and centred on the centre line.
        let mut x = vec![0.0; self.layer.len()];
        for layer in &self.layers {
            let mut at = 0.0;
            for (i, &v) in layer.iter().enumerate() {
                if i > 0 {
                    at += self.separation(layer[i - 1], v);
                }
                x[v] = at;
            }
            for &v in layer {
                x[v] -= at / 2.0;
            }
        }
        let depth = self.layers.len();
        let mut desired = Vec::new();
        let mut weights = Vec::new();
        let mut sweep = |x: &mut Vec<f64>, r: usize, use_up: bool, use_down: bool| {
            let layer = &self.layers[r];
            desired.clear();
            weights.clear();
            for &v in layer {
                let (mut sum, mut total) = (0.0, 0.0);
                let sides = [(use_up, &self.up[v]), (use_down, &self.down[v])];
                for (on, neighbours) in sides {
                    if on {
                        for &u in neighbours {
                            let w = self.weight(u, v);
                            sum += w * x[u];
                            total += w;
                        }
                    }
                }
                if total == 0.0 {
                    // No neighbour on that side: stay put, yielding easily.
                    sum = STAY * x[v];
                    total = STAY;
                }
                // A faint pull towards the centre line keeps long drawings from drifting sideways.
                total += CENTRE_PULL;
                desired.push(sum / total);
                weights.push(total);
            }
            let seps: Vec<f64> = layer.windows(2).map(|p| self.separation(p[0], p[1])).collect();
            let placed = isotonic_place(&desired, &weights, &seps);
            for (&v, p) in layer.iter().zip(placed) {
                x[v] = p;
            }
        };
        for _ in 0..PLACE_SWEEPS {
            for r in 1..depth {
                sweep(&mut x, r, true, false);
            }
            for r in (0..depth.saturating_sub(1)).rev() {
                sweep(&mut x, r, false, true);
            }
        }
        for _ in 0..BALANCE_SWEEPS {
            for r in 0..depth {
                sweep(&mut x, r, true, true);
            }
            for r in (0..depth).rev() {
                sweep(&mut x, r, true, true);
            }
        }
        x
    }
}

/// Positions minimising Σ wᵢ (xᵢ − dᵢ)² with xᵢ₊₁ − xᵢ ≥ sepᵢ: pool-adjacent-violators on the positions with
/// the separations taken out.
pub(super) fn isotonic_place(desired: &[f64], weights: &[f64], seps: &[f64]) -> Vec<f64> {
    let mut offset = Vec::with_capacity(desired.len());
    let mut at = 0.0;
    for i in 0..desired.len() {
        if i > 0 {
            at += seps[i - 1];
        }
        offset.push(at);
    }
    // Blocks of (weight, weighted sum, count).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::new();
    for i in 0..desired.len() {
        blocks.push((weights[i], weights[i] * (desired[i] - offset[i]), 1));
        while blocks.len() >= 2 {
            let (w2, s2, c2) = blocks[blocks.len() - 1];
            let (w1, s1, c1) = blocks[blocks.len() - 2];
            if s1 / w1 <= s2 / w2 {
                break;
            }
            blocks.pop();
            let last = blocks.len() - 1;
            blocks[last] = (w1 + w2, s1 + s2, c1 + c2);
        }
    }
    let mut out = Vec::with_capacity(desired.len());
    for (w, s, count) in blocks {
        let value = s / w;
        for _ in 0..count {
            out.push(value + offset[out.len()]);
        }
    }
    out
}
