//! Number-theory helpers (primes, factorisation, totient, divisors, orders) and the ten scalar→scalar operators
//! (`task_id` 30–39).
//!
//! Inputs of these operators are tiny (the adapter bounds them to at most a few hundred), so plain trial
//! division is both exact and fast enough.

use super::{Adapted, Input, MathError, OpSpec, ParamSpec, Params};
use crate::engine::adapter::ScalarAdapter;
use crate::engine::value::{Kind, Value};

/// True if `n` is prime.
pub(crate) fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2;
    while d * d <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 1;
    }
    true
}

/// The `k`-th prime, `nth_prime(1) = 2` (`k = 0` is treated as 1).
pub(crate) fn nth_prime(k: u64) -> u64 {
    let mut count = 0;
    let mut n = 1;
    while count < k.max(1) {
        n += 1;
        if is_prime(n) {
            count += 1;
        }
    }
    n
}

/// The smallest prime strictly greater than `n`.
pub(crate) fn next_prime_after(n: u64) -> u64 {
    let mut m = n + 1;
    while !is_prime(m) {
        m += 1;
    }
    m
}

/// The prime factorisation of `n ≥ 1` as `(prime, exponent)` pairs in increasing order (empty for 1).
pub(crate) fn factorize(mut n: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        if n.is_multiple_of(p) {
            let mut e = 0;
            while n.is_multiple_of(p) {
                n /= p;
                e += 1;
            }
            out.push((p, e));
        }
        p += 1;
    }
    if n > 1 {
        out.push((n, 1));
    }
    out
}

/// The smallest prime factor of `n ≥ 2` (`n` itself when prime; 1 for 0 and 1).
pub(crate) fn smallest_prime_factor(n: u64) -> u64 {
    factorize(n).first().map(|&(p, _)| p).unwrap_or(1)
}

/// Euler's totient (`phi(1) = 1`, `phi(0) = 0`).
pub(crate) fn totient(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    factorize(n).iter().fold(n, |acc, &(p, _)| acc / p * (p - 1))
}

/// The number of positive divisors (`d(0) = 0` by the SortByDivisorCount convention).
pub(crate) fn divisor_count(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    factorize(n).iter().map(|&(_, e)| e as u64 + 1).product()
}

/// The sum of the `k`-th powers of the positive divisors of `n ≥ 1`.
pub(crate) fn divisor_sigma(n: u64, k: u32) -> u64 {
    (1..=n).filter(|&d| n.is_multiple_of(d)).map(|d| d.pow(k)).sum()
}

/// `base^exp mod m` (`m ≥ 1`).
pub(crate) fn mod_pow(base: u64, mut exp: u64, m: u64) -> u64 {
    let m128 = m as u128;
    let mut result = 1 % m128;
    let mut b = base as u128 % m128;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result * b % m128;
        }
        b = b * b % m128;
        exp >>= 1;
    }
    result as u64
}

/// The smallest `k ≥ 1` with `a^k ≡ 1 (mod m)`, for `gcd(a, m) = 1` and `m ≥ 2` (`None` otherwise).
pub(crate) fn multiplicative_order(a: u64, m: u64) -> Option<u64> {
    if m < 2 || gcd(a, m) != 1 {
        return None;
    }
    let mut x = a % m;
    let mut k = 1;
    while x != 1 {
        x = (x as u128 * a as u128 % m as u128) as u64;
        k += 1;
        if k > m {
            return None;
        }
    }
    Some(k)
}

/// The smallest positive primitive root modulo a prime `p` (1 for `p = 2`).
pub(crate) fn smallest_primitive_root(p: u64) -> u64 {
    if p <= 2 {
        return 1;
    }
    let factors = factorize(p - 1);
    (2..p).find(|&g| factors.iter().all(|&(q, _)| mod_pow(g, (p - 1) / q, p) != 1)).unwrap_or(1)
}

/// Greatest common divisor (`gcd(0, 0) = 0`).
pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The adapted scalar as a non-negative integer (every scalar op's adapter takes `|v| mod 100`, so this holds).
pub(crate) fn natural(adapted: &Adapted) -> Result<u64, MathError> {
    let v = adapted.scalar()?;
    u64::try_from(v).map_err(|_| MathError::ParamShape { param: "input", detail: format!("expected a non-negative value, found {v}") })
}

fn int(x: u64) -> Result<Value, MathError> {
    i64::try_from(x).map(Value::int).map_err(|_| MathError::Overflow("the result"))
}

const fn scalar_op(name: &'static str, add: i64, summary: &'static str, compute: super::Compute, describe: super::Describe) -> OpSpec {
    OpSpec {
        name,
        input: Input::Scalar(ScalarAdapter::round_abs_mod_add(add)),
        output: Kind::Scalar,
        params: ParamSpec::None,
        summary,
        compute,
        describe,
    }
}

pub(crate) const DIVISOR_SIGMA_SQUARE: OpSpec = scalar_op(
    "DivisorSigmaSquareTask",
    1,
    "sum of the squares of the divisors of n",
    |a, _| int(divisor_sigma(natural(a)?, 2)),
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!("Add up the squares of all positive divisors of {x}, including 1 and {x} itself.\n"));
        b.finish("Call this sum ", ".");
    },
);

pub(crate) const DIVISOR_SUM: OpSpec = scalar_op(
    "DivisorSumTask",
    1,
    "sum of the divisors of n",
    |a, _| int(divisor_sigma(natural(a)?, 1)),
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!("Add up all positive divisors of {x}, including 1 and {x} itself.\n"));
        b.finish("Call this sum ", ".");
    },
);

fn legendre_weight(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let v = natural(a)?;
    let p = next_prime_after(v + 2);
    let total: u64 = (1..=v).map(|k| if mod_pow(k, (p - 1) / 2, p) == 1 { 2 * k } else { 0 }).sum();
    int(total)
}

pub(crate) const LEGENDRE_RESIDUE_WEIGHT: OpSpec = scalar_op(
    "LegendreResidueWeightTask",
    25,
    "weighted sum of Legendre symbols (a/p) + 1 for a = 1..n, p the first prime above n + 2",
    legendre_weight,
    |b, _, _| {
        let (x, p) = (b.x.clone(), b.sym("p"));
        b.text(&format!(
            "Let {p} be the smallest prime number that is greater than {x} + 2.\n\
             For each integer a from 1 to {x}, let L(a) be the Legendre symbol of a modulo {p}: L(a) = 1 if some integer y \
             satisfies y*y ≡ a (mod {p}), and L(a) = -1 otherwise (a is never a multiple of {p} here).\n\
             Compute the sum of a * (L(a) + 1) over a = 1, 2, ..., {x}.\n"
        ));
        b.finish("Call the result ", ".");
    },
);

pub(crate) const MULTIPLICATIVE_ORDER: OpSpec = scalar_op(
    "MultiplicativeOrderTask",
    1,
    "multiplicative order of 2 modulo 2n + 1",
    |a, _| {
        let v = natural(a)?;
        multiplicative_order(2, 2 * v + 1).ok_or(MathError::Overflow("the order")).and_then(int)
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "Find the smallest positive integer k such that 2**k leaves remainder 1 when divided by 2*{x} + 1 \
             (the multiplicative order of 2 modulo 2*{x} + 1).\n"
        ));
        b.finish("Call this k ", ".");
    },
);

pub(crate) const PRIME_OMEGA_SUM: OpSpec = scalar_op(
    "PrimeOmegaSumTask",
    2,
    "sum over i = 2..n of the number of distinct prime factors of i",
    |a, _| {
        let v = natural(a)?;
        int((2..=v).map(|i| factorize(i).len() as u64).sum())
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i from 2 to {x}, count how many different prime numbers divide i (for example 12 has \
             the two prime divisors 2 and 3). Add up these counts.\n"
        ));
        b.finish("Call the total ", ".");
    },
);

pub(crate) const PRIMITIVE_ROOT_COUNT: OpSpec = scalar_op(
    "PrimitiveRootCountTask",
    1,
    "number of primitive roots modulo the n-th prime, phi(prime(n) - 1)",
    |a, _| int(totient(nth_prime(natural(a)?) - 1)),
    |b, _, _| {
        let (x, q) = (b.x.clone(), b.sym("q"));
        b.text(&format!(
            "Let {q} be the {x}-th prime number, counting 2 as the 1st prime, 3 as the 2nd, and so on.\n\
             Compute Euler's totient of {q} - 1, that is, how many integers k with 1 <= k <= {q} - 1 satisfy \
             gcd(k, {q} - 1) = 1 (this counts the primitive roots modulo {q}).\n"
        ));
        b.finish("Call the result ", ".");
    },
);

fn stirling(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let v = natural(a)?;
    let m = crate::engine::adapter::isqrt(v as usize) as u64 + 7;
    let choose = |n: u64, k: u64| (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1));
    int(2 * choose(m, 3) + 3 * choose(m, 4))
}

pub(crate) const SCALED_STIRLING: OpSpec = scalar_op(
    "ScaledStirlingFirstKindTask",
    0,
    "unsigned Stirling number of the first kind c(m, m - 2) with m = isqrt(n) + 7",
    stirling,
    |b, _, _| {
        let (x, m) = (b.x.clone(), b.sym("m"));
        b.text(&format!(
            "Let {m} = floor(sqrt({x})) + 7.\n\
             Compute the unsigned Stirling number of the first kind c({m}, {m} - 2): the number of permutations of \
             {m} distinct objects whose cycle decomposition has exactly {m} - 2 cycles (fixed points count as cycles).\n"
        ));
        b.finish("Call this number ", ".");
    },
);

pub(crate) const SUM_DIVISOR_COUNTS: OpSpec = scalar_op(
    "SumDivisorCountsTask",
    1,
    "sum over i = 1..n of the number of divisors of i",
    |a, _| {
        let v = natural(a)?;
        int((1..=v).map(divisor_count).sum())
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!("For each integer i from 1 to {x}, count the positive divisors of i. Add up these counts.\n"));
        b.finish("Call the total ", ".");
    },
);

pub(crate) const SUMMATORY_TOTIENT: OpSpec = scalar_op(
    "SummatoryTotientTask",
    30,
    "sum of Euler's totient over 1..n",
    |a, _| {
        let v = natural(a)?;
        int((1..=v).map(totient).sum())
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer k from 1 to {x}, compute Euler's totient phi(k), the number of integers j with \
             1 <= j <= k and gcd(j, k) = 1 (so phi(1) = 1). Add up these values.\n"
        ));
        b.finish("Call the total ", ".");
    },
);

pub(crate) const UNITARY_DIVISOR_SUM: OpSpec = scalar_op(
    "UnitaryDivisorSumTask",
    1,
    "sum of the unitary divisors of n",
    |a, _| int(factorize(natural(a)?).iter().map(|&(p, e)| 1 + p.pow(e)).product()),
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "A positive divisor d of {x} is called unitary when gcd(d, {x} / d) = 1. Add up all unitary divisors of \
             {x} (1 and {x} itself are always unitary).\n"
        ));
        b.finish("Call this sum ", ".");
    },
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::value::Number;

    fn check(op: &OpSpec, raw: i64, expected: i64) {
        let adapted = op.input.adapt(&Value::int(raw)).unwrap();
        assert_eq!((op.compute)(&adapted, &Params::None), Ok(Value::int(expected)), "{} on {raw}", op.name);
    }

    #[test]
    fn helpers_agree_with_small_tables() {
        assert_eq!((1..=10).map(nth_prime).collect::<Vec<_>>(), vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
        assert_eq!(nth_prime(100), 541);
        assert_eq!((1..=10).map(totient).collect::<Vec<_>>(), vec![1, 1, 2, 2, 4, 2, 6, 4, 6, 4]);
        assert_eq!((0..=6).map(divisor_count).collect::<Vec<_>>(), vec![0, 1, 2, 2, 3, 2, 4]);
        assert_eq!(factorize(360), vec![(2, 3), (3, 2), (5, 1)]);
        assert_eq!([2, 3, 5, 7, 17, 23].map(smallest_primitive_root), [1, 2, 2, 3, 3, 5]);
        assert_eq!(multiplicative_order(2, 7), Some(3));
        assert_eq!(multiplicative_order(2, 9), Some(6));
        assert_eq!(multiplicative_order(2, 8), None);
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(0, 12), 12);
    }

    #[test]
    fn divisor_sums_by_hand() {
        // -94 → |94| mod 100 = 94, +1 = 95 = 5·19: sigma_1 = 1+5+19+95 = 120, sigma_2 = 1+25+361+9025 = 9412.
        check(&DIVISOR_SUM, -94, 120);
        check(&DIVISOR_SIGMA_SQUARE, -94, 9412);
        // 299 → 99 + 1 = 100: 1+2+4+5+10+20+25+50+100 = 217 (the reference chain sample's target).
        check(&DIVISOR_SUM, 299, 217);
        // 5 → 6: unitary divisors 1, 2, 3, 6 → 12; 11 → 12 = 4·3: unitary 1, 3, 4, 12 → 20 = (1+4)(1+3).
        check(&UNITARY_DIVISOR_SUM, 5, 12);
        check(&UNITARY_DIVISOR_SUM, 11, 20);
        // 0 → 1: the only divisor is 1.
        check(&UNITARY_DIVISOR_SUM, 0, 1);
    }

    #[test]
    fn legendre_weight_doubles_the_small_quadratic_residues() {
        // 0 → v = 25, p = first prime > 27 = 29. Squares mod 29 in 1..25: 1, 4, 9, 16, 25 (y=1..5), 36-29=7, 49-29=20,
        // 64-58=6, 81-58=23, 100-87=13, 121-116=5, 144-116=28, 169-145=24, 196-174=22 → {1,4,5,6,7,9,13,16,20,22,23,24,25}.
        // Their sum is 175, so the output is 2 * 175 = 350.
        check(&LEGENDRE_RESIDUE_WEIGHT, 0, 350);
    }

    #[test]
    fn orders_omegas_and_root_counts_by_hand() {
        // 2 → v = 3, modulus 7: 2, 4, 1 → order 3.
        check(&MULTIPLICATIVE_ORDER, 2, 3);
        // 0 → v = 1, modulus 3: 2, 1 → order 2.
        check(&MULTIPLICATIVE_ORDER, 0, 2);
        // 8 → v = 10: omega(2..10) = 1,1,1,1,2,1,1,1,2 → 11.
        check(&PRIME_OMEGA_SUM, 8, 11);
        // 0 → v = 2: just omega(2) = 1.
        check(&PRIME_OMEGA_SUM, 0, 1);
        // 2 → v = 3, prime(3) = 5, phi(4) = 2;  6 → v = 7, prime(7) = 17, phi(16) = 8; 0 → prime(1) = 2, phi(1) = 1.
        check(&PRIMITIVE_ROOT_COUNT, 2, 2);
        check(&PRIMITIVE_ROOT_COUNT, 6, 8);
        check(&PRIMITIVE_ROOT_COUNT, 0, 1);
    }

    #[test]
    fn stirling_counts_permutations_with_two_fewer_cycles() {
        // v = 0 → m = 7: c(7,5) = 2*C(7,3) + 3*C(7,4) = 70 + 105 = 175 (known table value).
        check(&SCALED_STIRLING, 0, 175);
        // v = 50 → m = 7 + 7 = 14: 2*364 + 3*1001 = 3731.
        check(&SCALED_STIRLING, 50, 3731);
        // v = 99 → m = 9 + 7 = 16: 2*560 + 3*1820 = 6580. A float 98.6 rounds to 99 too.
        check(&SCALED_STIRLING, 99, 6580);
        let adapted = SCALED_STIRLING.input.adapt(&Value::Scalar(Number::Float(98.6))).unwrap();
        assert_eq!((SCALED_STIRLING.compute)(&adapted, &Params::None), Ok(Value::int(6580)));
    }

    #[test]
    fn summatory_functions_by_hand() {
        // 4 → v = 5: d(1..5) = 1,2,2,3,2 → 10.
        check(&SUM_DIVISOR_COUNTS, 4, 10);
        // 0 → v = 30: sum of phi(1..30) = 278 (OEIS A002088 lists 278 at n = 30).
        check(&SUMMATORY_TOTIENT, 0, 278);
        // -1 → v = 31: 278 + phi(31) = 278 + 30 = 308.
        check(&SUMMATORY_TOTIENT, -1, 308);
    }
}
