//! Seeded, portable randomness: every random choice derives from (run seed, target, sample index, attempt).
//!
//! ChaCha8 gives the same stream on every platform (unlike `SmallRng`, whose algorithm differs on 32-bit
//! wasm), so a dataset generated natively and in the browser is byte-identical. Draws go through the helpers
//! here, which use only 64-bit arithmetic, never `usize`-dependent sampling.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The RNG every generator and task uses.
#[derive(Clone, Debug)]
pub struct InstanceRng(ChaCha8Rng);

impl InstanceRng {
    /// An RNG seeded directly (tests, sub-streams).
    pub fn from_seed(seed: u64) -> InstanceRng {
        InstanceRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// The RNG of one generated instance: a pure function of the run seed and the instance's coordinates.
    pub fn for_instance(run_seed: u64, parts: &[u64]) -> InstanceRng {
        InstanceRng::from_seed(derive_seed(run_seed, parts))
    }

    /// A raw 64-bit draw.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform integer in `lo..=hi` (unbiased, by rejection).
    pub fn int_in(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        let span = (hi as i128 - lo as i128) as u128 + 1;
        if span > u64::MAX as u128 {
            return self.next_u64() as i64;
        }
        let span = span as u64;
        let zone = u64::MAX - (u64::MAX % span) - 1;
        loop {
            let draw = self.next_u64();
            if draw <= zone {
                return (lo as i128 + (draw % span) as i128) as i64;
            }
        }
    }

    /// Uniform index in `0..len` (`len > 0`).
    pub fn index(&mut self, len: usize) -> usize {
        assert!(len > 0, "index into an empty range");
        self.int_in(0, len as i64 - 1) as usize
    }

    /// A uniformly chosen element.
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.index(items.len())])
        }
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }

    /// `k` distinct indices from `0..n`, in draw order (partial Fisher–Yates).
    pub fn sample_indices(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut pool: Vec<usize> = (0..n).collect();
        let k = k.min(n);
        for i in 0..k {
            let j = i + self.index(n - i);
            pool.swap(i, j);
        }
        pool.truncate(k);
        pool
    }

    /// Uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// How far the stream has been read, in 32-bit words. A copy of this RNG taken earlier, moved to a
    /// position with `seek`, replays the draws made from there: a long search can note where each step drew
    /// from instead of keeping a copy of the whole state per step.
    pub fn position(&self) -> u128 {
        self.0.get_word_pos()
    }

    /// Moves to a position of the same stream (see `position`).
    pub fn seek(&mut self, position: u128) {
        self.0.set_word_pos(position);
    }

    /// A fresh 64-bit seed for a sub-stream.
    pub fn fork(&mut self) -> InstanceRng {
        InstanceRng::from_seed(self.next_u64())
    }
}

/// Mixes a run seed with coordinates (SplitMix64 finaliser per part), so nearby coordinates give unrelated streams.
pub fn derive_seed(run_seed: u64, parts: &[u64]) -> u64 {
    let mut acc = splitmix(run_seed ^ 0x6172_6269_6772_6170); // "arbigrap"
    for &part in parts {
        acc = splitmix(acc ^ splitmix(part.wrapping_add(0x9e37_79b9_7f4a_7c15)));
    }
    acc
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_coordinates_give_the_same_stream() {
        let mut a = InstanceRng::for_instance(7, &[3, 1]);
        let mut b = InstanceRng::for_instance(7, &[3, 1]);
        let mut c = InstanceRng::for_instance(7, &[1, 3]);
        let xs: Vec<i64> = (0..20).map(|_| a.int_in(-100, 100)).collect();
        let ys: Vec<i64> = (0..20).map(|_| b.int_in(-100, 100)).collect();
        let zs: Vec<i64> = (0..20).map(|_| c.int_in(-100, 100)).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        assert!(xs.iter().all(|x| (-100..=100).contains(x)));
    }

    #[test]
    fn int_in_covers_both_ends() {
        let mut rng = InstanceRng::from_seed(1);
        let draws: Vec<i64> = (0..2000).map(|_| rng.int_in(-5, 5)).collect();
        assert!(draws.contains(&-5) && draws.contains(&5));
    }

    #[test]
    fn the_stream_is_pinned_across_platforms() {
        // Pins the byte stream so a dependency upgrade that changes it fails loudly (datasets would change).
        let mut rng = InstanceRng::from_seed(0);
        let first: Vec<i64> = (0..5).map(|_| rng.int_in(0, 999)).collect();
        expect_test::expect!["[652, 623, 878, 556, 681]"].assert_eq(&format!("{first:?}"));
    }

    #[test]
    fn seeking_to_a_noted_position_replays_the_same_draws() {
        let mut rng = InstanceRng::from_seed(9);
        let origin = rng.clone();
        let mut noted = Vec::new();
        for step in 0..40 {
            // Steps draw different numbers of values, so positions land anywhere in the buffered blocks.
            noted.push(rng.position());
            let draws: Vec<i64> = (0..step % 7).map(|_| rng.int_in(-100, 100)).collect();
            let mut again = origin.clone();
            again.seek(noted[step]);
            let replay: Vec<i64> = (0..step % 7).map(|_| again.int_in(-100, 100)).collect();
            assert_eq!(replay, draws, "step {step}");
        }
        assert!(noted.windows(2).any(|w| w[0] != w[1]));
    }
}

