//! The ten scalar→list operators (`task_id` 20–29): number-theoretic sequences of length about `n`.

use super::number_theory::{divisor_count, is_prime, natural, nth_prime, smallest_prime_factor, totient};
use super::{Body, Input, MathError, OpSpec, ParamSpec};
use crate::engine::adapter::ScalarAdapter;
use crate::engine::value::{Kind, Value};

fn list(items: impl IntoIterator<Item = u64>) -> Result<Value, MathError> {
    let items: Result<Vec<i64>, _> = items.into_iter().map(i64::try_from).collect();
    items.map(|v| Value::ints(&v)).map_err(|_| MathError::Overflow("a list element"))
}

const fn seq_op(name: &'static str, add: i64, summary: &'static str, compute: super::Compute, describe: super::Describe) -> OpSpec {
    OpSpec {
        name,
        input: Input::Scalar(ScalarAdapter::round_abs_mod_add(add)),
        output: Kind::List,
        params: ParamSpec::None,
        summary,
        compute,
        describe,
    }
}

/// The exponent of the prime `p` in `C(2v, v)` (Legendre/Kummer).
fn central_binomial_exponent(v: u64, p: u64) -> u64 {
    let mut e = 0;
    let mut q = p;
    while q <= 2 * v {
        e += (2 * v) / q - 2 * (v / q);
        q *= p;
    }
    e
}

pub(crate) const CENTRAL_BINOMIAL_VALUATIONS: OpSpec = seq_op(
    "CentralBinomialPrimeValuationVectorTask",
    30,
    "p * (e_p + 1) for every prime p <= 2n, e_p the exponent of p in C(2n, n)",
    |a, _| {
        let v = natural(a)?;
        list((2..=2 * v).filter(|&p| is_prime(p)).map(|p| p * (central_binomial_exponent(v, p) + 1)))
    },
    |b: &mut Body<'_>, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For every prime number p with p <= 2*{x}, let e(p) be the exponent of p in the prime factorisation of the \
             binomial coefficient C(2*{x}, {x}); equivalently, e(p) is the sum, over every integer j >= 1 with \
             p**j <= 2*{x}, of floor(2*{x} / p**j) - 2*floor({x} / p**j).\n\
             Form the list of the values p * (e(p) + 1), one per prime p, in increasing order of p.\n"
        ));
        b.finish("Call this list ", ".");
    },
);

pub(crate) const GRAY_CODES: OpSpec = seq_op(
    "GrayCodeSequenceTask",
    1,
    "reflected binary Gray codes of n+1 .. 2n",
    |a, _| {
        let v = natural(a)?;
        list((1..=v).map(|i| (i + v) ^ ((i + v) / 2)))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i = 1, 2, ..., {x} (in this order), let y = i + {x} and compute its reflected binary Gray \
             code y XOR floor(y / 2), where XOR is the bitwise exclusive or; write each result as an ordinary decimal \
             integer.\n"
        ));
        b.finish("Call the list of these values ", ".");
    },
);

pub(crate) const MODULAR_MULTIPLICATION: OpSpec = seq_op(
    "ModularMultiplicationSequenceTask",
    1,
    "(i * n) mod prime(n) for i = 1..n",
    |a, _| {
        let v = natural(a)?;
        let p = nth_prime(v);
        list((1..=v).map(|i| i * v % p))
    },
    |b, _, _| {
        let (x, q) = (b.x.clone(), b.sym("q"));
        b.text(&format!(
            "Let {q} be the {x}-th prime number, counting 2 as the 1st prime, 3 as the 2nd, and so on.\n\
             For each integer i = 1, 2, ..., {x} (in this order), compute the remainder of i * {x} divided by {q}.\n"
        ));
        b.finish("Call the list of these remainders ", ".");
    },
);

pub(crate) const POLYGON_DIAGONALS: OpSpec = seq_op(
    "PolygonDiagonalsSequenceTask",
    3,
    "number of diagonals of convex polygons with n+1 .. 2n vertices",
    |a, _| {
        let v = natural(a)?;
        list((1..=v).map(|i| (i + v) * (i + v - 3) / 2))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i = 1, 2, ..., {x} (in this order), count the diagonals of a convex polygon with i + {x} \
             vertices (a polygon with k vertices has k*(k-3)/2 diagonals).\n"
        ));
        b.finish("Call the list of these counts ", ".");
    },
);

pub(crate) const PRIMES_BETWEEN_SQUARES: OpSpec = seq_op(
    "PrimesBetweenSquaresTask",
    1,
    "primes strictly between n^2 and (n+1)^2",
    |a, _| {
        let v = natural(a)?;
        list((v * v + 1..(v + 1) * (v + 1)).filter(|&p| is_prime(p)))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!("List, in increasing order, every prime number p with {x}**2 < p < ({x} + 1)**2.\n"));
        b.finish("Call this list ", ".");
    },
);

pub(crate) const QUADRATIC_RESIDUES: OpSpec = seq_op(
    "QuadraticResiduesPrimeTask",
    1,
    "sorted distinct squares modulo the n-th prime (0 included)",
    |a, _| {
        let v = natural(a)?;
        let p = nth_prime(v);
        let mut seen = vec![false; p as usize];
        for y in 0..p {
            seen[(y * y % p) as usize] = true;
        }
        list((0..p).filter(|&r| seen[r as usize]))
    },
    |b, _, _| {
        let (x, q) = (b.x.clone(), b.sym("q"));
        b.text(&format!(
            "Let {q} be the {x}-th prime number, counting 2 as the 1st prime, 3 as the 2nd, and so on.\n\
             Collect the distinct values of (y * y) mod {q} for y = 0, 1, ..., {q} - 1 (so 0 is included), and sort them \
             in increasing order.\n"
        ));
        b.finish("Call the sorted list ", ".");
    },
);

pub(crate) const SMALLEST_FACTOR_QUADRATIC: OpSpec = seq_op(
    "SmallestFactorQuadraticTask",
    1,
    "smallest prime factor of i^2 + n for i = 1..n",
    |a, _| {
        let v = natural(a)?;
        list((1..=v).map(|i| smallest_prime_factor(i * i + v)))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i = 1, 2, ..., {x} (in this order), find the smallest prime number that divides i*i + {x}.\n"
        ));
        b.finish("Call the list of these primes ", ".");
    },
);

pub(crate) const TOTIENT_PRODUCTS: OpSpec = seq_op(
    "TotientProductSequenceTask",
    1,
    "phi(i * n) for i = 1..n",
    |a, _| {
        let v = natural(a)?;
        list((1..=v).map(|i| totient(i * v)))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i = 1, 2, ..., {x} (in this order), compute Euler's totient of i * {x}, the number of \
             integers j with 1 <= j <= i * {x} and gcd(j, i * {x}) = 1.\n"
        ));
        b.finish("Call the list of these values ", ".");
    },
);

pub(crate) const TOTIENT_SHIFTS: OpSpec = seq_op(
    "TotientShiftSequenceTask",
    1,
    "phi(i + n) for i = 1..n",
    |a, _| {
        let v = natural(a)?;
        list((1..=v).map(|i| totient(i + v)))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i = 1, 2, ..., {x} (in this order), compute Euler's totient of i + {x}, the number of \
             integers j with 1 <= j <= i + {x} and gcd(j, i + {x}) = 1.\n"
        ));
        b.finish("Call the list of these values ", ".");
    },
);

pub(crate) const WEIGHTED_DIVISOR_PREFIX: OpSpec = seq_op(
    "WeightedDivisorCountPrefixSequenceTask",
    1,
    "prefix sums of k * d(n + k) for k = 1..n",
    |a, _| {
        let v = natural(a)?;
        let mut total = 0;
        list((1..=v).map(|k| {
            total += k * divisor_count(v + k);
            total
        }))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For each integer i = 1, 2, ..., {x}, let A(i) be the sum over k = 1, 2, ..., i of k times the number of \
             positive divisors of {x} + k.\n\
             Form the list [A(1), A(2), ..., A({x})].\n"
        ));
        b.finish("Call this list ", ".");
    },
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tasks::math::Params;

    fn check(op: &OpSpec, raw: i64, expected: &[i64]) {
        let adapted = op.input.adapt(&Value::int(raw)).unwrap();
        assert_eq!((op.compute)(&adapted, &Params::None), Ok(Value::ints(expected)), "{} on {raw}", op.name);
    }

    #[test]
    fn central_binomial_valuations_by_hand() {
        // 0 → v = 30, C(60, 30). Carries of 30 + 30 in base p give e_p (Kummer): base 2: 30 = 11110b → 4 carries,
        // e=4 → 2*5 = 10; base 3: 30 = 1010_3 → digits 1,0,1,0 doubled have no carry ≥ 3 → e = 0 → 3; base 5: 30 = 110_5
        // → no carry → 5; base 7: 30 = 42_7 → 2+2 = 4 < 7, 4+4 = 8 ≥ 7 → one carry → 7*2 = 14; 11: 30 = 28_11, 8+8 ≥ 11 →
        // 22; 13: 30 = 24_13 → 4+4 < 13 and 2+2 < 13 → 13; 17: 30 = 1,13 → carry → 34; 19: 1,11 → carry → 38;
        // 23: 1,7 → 23; 29: 1,1 → 29; every prime 31..59 appears once (e = 1): 62, 74, 82, 86, 94, 106, 118.
        check(&CENTRAL_BINOMIAL_VALUATIONS, 0, &[10, 3, 5, 14, 22, 13, 34, 38, 23, 29, 62, 74, 82, 86, 94, 106, 118]);
    }

    #[test]
    fn gray_codes_and_polygon_diagonals_by_hand() {
        // 2 → v = 3: y = 4, 5, 6 → 4^2 = 6, 5^2 = 7, 6^3 = 5.
        check(&GRAY_CODES, 2, &[6, 7, 5]);
        // 0 → v = 3: k = 4, 5, 6 → 2, 5, 9.
        check(&POLYGON_DIAGONALS, 0, &[2, 5, 9]);
    }

    #[test]
    fn prime_based_sequences_by_hand() {
        // 3 → v = 4, prime(4) = 7: 4, 8 mod 7 = 1, 12 mod 7 = 5, 16 mod 7 = 2.
        check(&MODULAR_MULTIPLICATION, 3, &[4, 1, 5, 2]);
        // 2 → v = 3: primes in (9, 16): 11, 13.
        check(&PRIMES_BETWEEN_SQUARES, 2, &[11, 13]);
        // 3 → v = 4, p = 7: squares 0, 1, 4, 2, 2, 4, 1 → [0, 1, 2, 4]. v = 1 (p = 2) gives [0, 1].
        check(&QUADRATIC_RESIDUES, 3, &[0, 1, 2, 4]);
        check(&QUADRATIC_RESIDUES, 0, &[0, 1]);
        // 4 → v = 5: 6 → 2, 9 → 3, 14 → 2, 21 → 3, 30 → 2.
        check(&SMALLEST_FACTOR_QUADRATIC, 4, &[2, 3, 2, 3, 2]);
    }

    #[test]
    fn totient_sequences_by_hand() {
        // 2 → v = 3: phi(3), phi(6), phi(9) = 2, 2, 6.
        check(&TOTIENT_PRODUCTS, 2, &[2, 2, 6]);
        // 2 → v = 3: phi(4), phi(5), phi(6) = 2, 4, 2.
        check(&TOTIENT_SHIFTS, 2, &[2, 4, 2]);
        // -45 → v = 46 starts with phi(46) = 22, phi(92) = 44 (reference chain sample).
        let adapted = TOTIENT_PRODUCTS.input.adapt(&Value::int(-45)).unwrap();
        let Ok(Value::List(items)) = (TOTIENT_PRODUCTS.compute)(&adapted, &Params::None) else { panic!("list expected") };
        assert_eq!(items.len(), 46);
        assert_eq!(Value::List(items[..2].to_vec()), Value::ints(&[22, 44]));
    }

    #[test]
    fn weighted_divisor_prefix_by_hand() {
        // 2 → v = 3: d(4) = 3, d(5) = 2, d(6) = 4 → 1*3 = 3, 3 + 2*2 = 7, 7 + 3*4 = 19.
        check(&WEIGHTED_DIVISOR_PREFIX, 2, &[3, 7, 19]);
    }
}
