//! The transform operators on lists: linear convolution, Walsh–Hadamard, number-theoretic transform and the
//! subset-sum (zeta) transform (`task_id` 0, 1, 5, 9).

use super::number_theory::{is_prime, mod_pow, smallest_primitive_root};
use super::{fit, Adapted, Body, Input, MathError, OpSpec, ParamSpec, Params};
use crate::engine::adapter::ListAdapter;
use crate::engine::value::{Kind, Value};

fn convolution(a: &Adapted, params: &Params) -> Result<Value, MathError> {
    let xs = a.ints()?;
    let seq2 = params.seq2()?;
    if seq2.len() != xs.len() {
        return Err(MathError::ParamShape { param: "seq2", detail: format!("expected {} elements, found {}", xs.len(), seq2.len()) });
    }
    let mut out = vec![0i128; 2 * xs.len() - 1];
    for (i, &x) in xs.iter().enumerate() {
        for (j, &y) in seq2.iter().enumerate() {
            out[i + j] += x as i128 * y as i128;
        }
    }
    let out: Result<Vec<i64>, _> = out.into_iter().map(|c| fit(c, "a convolution coefficient")).collect();
    Ok(Value::ints(&out?))
}

pub(crate) const CONVOLUTION: OpSpec = OpSpec {
    name: "ConvolutionTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::List,
    params: ParamSpec::Seq2,
    summary: "full linear convolution with a random sequence of the same length",
    compute: convolution,
    describe: |b: &mut Body<'_>, _, params| {
        let (x, s, l) = (b.x.clone(), b.sym("seq2"), b.sym("L"));
        b.define(&s, &Value::ints(params.seq2().unwrap_or_default()).repr());
        b.text(&format!(
            "Let {l} be the length of {x} ({s} has the same length), with indices starting at 0.\n\
             Compute the full linear convolution of {x} and {s}: the list c of length 2*{l} - 1 whose element c[k], \
             for k = 0, 1, ..., 2*{l} - 2, is the sum of {x}[i] * {s}[j] over all index pairs (i, j) with i + j = k.\n"
        ));
        b.finish("Call this list ", ".");
    },
};

fn fwht(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let xs = a.ints()?;
    let n = xs.len();
    let out: Result<Vec<i64>, _> = (0..n)
        .map(|j| {
            let sum: i128 = xs.iter().enumerate().map(|(k, &x)| if (j & k).count_ones() % 2 == 0 { x as i128 } else { -(x as i128) }).sum();
            fit(sum, "a Walsh-Hadamard coefficient")
        })
        .collect();
    Ok(Value::ints(&out?))
}

pub(crate) const FWHT: OpSpec = OpSpec {
    name: "FWHTTask",
    input: Input::Seq(ListAdapter::SEQ_POW2),
    output: Kind::List,
    params: ParamSpec::None,
    summary: "unnormalised Walsh-Hadamard transform in natural (Sylvester) order",
    compute: fwht,
    describe: |b, _, _| {
        let (x, l, h) = (b.x.clone(), b.sym("L"), b.sym("H"));
        b.text(&format!(
            "Let {l} be the length of {x} (a power of 2), with indices starting at 0.\n\
             For each j = 0, 1, ..., {l} - 1, compute {h}[j] = the sum over k = 0, 1, ..., {l} - 1 of \
             (-1)**popcount(j AND k) * {x}[k], where AND is the bitwise and of the two indices and popcount counts the \
             1 bits of its argument (the unnormalised Walsh-Hadamard transform in natural order).\n"
        ));
        b.finish(&format!("Call the list [{h}[0], {h}[1], ..., {h}[{l} - 1]] "), ".");
    },
};

/// The NTT modulus for length `n`: the smallest prime `m·n + 1` with `m ≥ 1`.
pub(crate) fn ntt_prime(n: u64) -> u64 {
    let mut candidate = n + 1;
    while !is_prime(candidate) {
        candidate += n.max(1);
    }
    candidate
}

fn ntt(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let xs = a.ints()?;
    let n = xs.len() as u64;
    let p = ntt_prime(n);
    let g = smallest_primitive_root(p);
    let omega = mod_pow(g, (p - 1) / n.max(1), p);
    let residues: Vec<u64> = xs.iter().map(|&x| x.rem_euclid(p as i64) as u64).collect();
    let out: Vec<i64> = (0..n)
        .map(|j| {
            let step = mod_pow(omega, j, p);
            let mut power = 1 % p;
            let mut sum = 0;
            for &r in &residues {
                sum = (sum + r * power) % p;
                power = power * step % p;
            }
            sum as i64
        })
        .collect();
    Ok(Value::ints(&out))
}

pub(crate) const NTT: OpSpec = OpSpec {
    name: "NTTTask",
    input: Input::Seq(ListAdapter::SEQ_POW2),
    output: Kind::List,
    params: ParamSpec::None,
    summary: "number-theoretic transform modulo the smallest prime m*N + 1",
    compute: ntt,
    describe: |b, adapted, _| {
        let (x, l, p, g, w, t) = (b.x.clone(), b.sym("L"), b.sym("p"), b.sym("g"), b.sym("w"), b.sym("A"));
        let prime = ntt_prime(adapted.items.len() as u64);
        b.text(&format!("Let {l} be the length of {x} (a power of 2), with indices starting at 0.\n"));
        b.define(&p, &prime.to_string());
        b.text(&format!(
            "({p} is the smallest prime of the form m*{l} + 1 with m >= 1.) All arithmetic below is modulo {p}.\n\
             Let {g} be the smallest positive primitive root modulo {p}, i.e. the smallest integer g >= 1 whose powers \
             g**1, g**2, ..., g**({p} - 1) are pairwise different modulo {p}. Let {w} = {g}**(({p} - 1) / {l}) mod {p}.\n\
             For each j = 0, 1, ..., {l} - 1, compute {t}[j] = (the sum over k = 0, 1, ..., {l} - 1 of \
             {x}[k] * {w}**(j*k)) mod {p}, written as the least non-negative residue (0 <= {t}[j] <= {p} - 1).\n"
        ));
        b.finish(&format!("Call the list [{t}[0], {t}[1], ..., {t}[{l} - 1]] "), ".");
    },
};

fn subset_zeta(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let xs = a.ints()?;
    let mut out: Vec<i128> = xs.iter().map(|&x| x as i128).collect();
    let n = out.len();
    let mut bit = 1;
    while bit < n {
        for s in 0..n {
            if s & bit != 0 {
                out[s] += out[s ^ bit];
            }
        }
        bit <<= 1;
    }
    let out: Result<Vec<i64>, _> = out.into_iter().map(|v| fit(v, "a subset sum")).collect();
    Ok(Value::ints(&out?))
}

pub(crate) const SUBSET_ZETA: OpSpec = OpSpec {
    name: "SubsetZetaTransformTask",
    input: Input::Seq(ListAdapter::SEQ_POW2),
    output: Kind::List,
    params: ParamSpec::None,
    summary: "subset-sum (zeta) transform over bitmask indices",
    compute: subset_zeta,
    describe: |b, _, _| {
        let (x, l, z) = (b.x.clone(), b.sym("L"), b.sym("B"));
        b.text(&format!(
            "Let {l} be the length of {x} (a power of 2), with indices starting at 0, and read every index as a bitmask.\n\
             For each S = 0, 1, ..., {l} - 1, compute {z}[S] = the sum of {x}[T] over all T in 0, 1, ..., {l} - 1 that are \
             subsets of S, meaning every 1 bit of T is also a 1 bit of S (T AND S = T; T = 0 and T = S both count).\n"
        ));
        b.finish(&format!("Call the list [{z}[0], {z}[1], ..., {z}[{l} - 1]] "), ".");
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn adapt(op: &OpSpec, raw: &[i64]) -> Adapted {
        op.input.adapt(&Value::ints(raw)).unwrap()
    }

    fn check(op: &OpSpec, raw: &[i64], params: Params, expected: &[i64]) {
        assert_eq!((op.compute)(&adapt(op, raw), &params), Ok(Value::ints(expected)), "{} on {raw:?}", op.name);
    }

    #[test]
    fn convolution_multiplies_polynomials() {
        // (1 + 2y)(3 - y) = 3 + 5y - 2y²; a raw 102 is reduced to 2 first.
        check(&CONVOLUTION, &[1, 102], Params::Seq2(vec![3, -1]), &[3, 5, -2]);
        // One element: a single product.
        check(&CONVOLUTION, &[-7], Params::Seq2(vec![4]), &[-28]);
        // Zeros inside keep the full length 2n - 1.
        check(&CONVOLUTION, &[0, 1, 0], Params::Seq2(vec![1, 0, 0]), &[0, 1, 0, 0, 0]);
        let shape = (CONVOLUTION.compute)(&adapt(&CONVOLUTION, &[1, 2]), &Params::Seq2(vec![1]));
        assert!(matches!(shape, Err(MathError::ParamShape { param: "seq2", .. })));
    }

    #[test]
    fn walsh_hadamard_by_hand() {
        // [1, 2, 3, 4]: H0 = 10, H1 = 1-2+3-4 = -2, H2 = 1+2-3-4 = -4, H3 = 1-2-3+4 = 0.
        check(&FWHT, &[1, 2, 3, 4], Params::None, &[10, -2, -4, 0]);
        // Three elements pad to four: [1, 1, 1, 0] → 3, 1, 1, -1.
        check(&FWHT, &[1, 1, 1], Params::None, &[3, 1, 1, -1]);
    }

    #[test]
    fn ntt_primes_and_roots_follow_the_spec() {
        assert_eq!([1, 2, 4, 8, 16].map(ntt_prime), [2, 3, 5, 17, 17]);
        // N = 4, p = 5, g = 2, w = 2^(4/4) = 2. [1, 2, 3, 4]: A0 = 10 mod 5 = 0; A1 = 1 + 2*2 + 3*4 + 4*8 = 49 → 4;
        // A2 (w² = 4): 1 + 8 + 48 + 256 = 313 → 3; A3 (w³ = 3): 1 + 6 + 27 + 108 = 142 → 2.
        check(&NTT, &[1, 2, 3, 4], Params::None, &[0, 4, 3, 2]);
        // Negative inputs reduce first: -1 ≡ 4 (mod 5) → same as [4, 0, 0, 0].
        check(&NTT, &[-1, 0, 0, 0], Params::None, &[4, 4, 4, 4]);
        // N = 1: p = 2, g = 1, the output is a0 mod 2.
        check(&NTT, &[-7], Params::None, &[1]);
        // N = 2: p = 3, g = 2, w = 2 ≡ -1: [a0 + a1, a0 - a1] mod 3 → [5, 3] → [2, 0].
        check(&NTT, &[4, 1], Params::None, &[2, 0]);
    }

    #[test]
    fn subset_zeta_sums_submasks() {
        // B[0] = a0, B[1] = a0 + a1, B[2] = a0 + a2, B[3] = all four.
        check(&SUBSET_ZETA, &[1, 2, 3, 4], Params::None, &[1, 3, 4, 10]);
        // Reference chain sample: the first outputs of [-83, -64, 43, 92, ...] are -83, -147, -40, -12.
        let out = (SUBSET_ZETA.compute)(&adapt(&SUBSET_ZETA, &[-83, -64, 43, 92, -33, 99, 33, -60, 9, 27]), &Params::None).unwrap();
        assert_eq!(&out.as_numbers()[..4], Value::ints(&[-83, -147, -40, -12]).as_numbers());
    }
}
