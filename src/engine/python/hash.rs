//! Hashing: `HashKey`, the normalised key a hashable value becomes (`PyValue::hash_key` in `value` makes it;
//! equal numbers of any type share one), and CPython's hash of that key, which places set elements in CPython's
//! table order.

use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};

/// A hashable key, normalised so that equal Python values (`1`, `1.0`, `True`) give equal keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HashKey {
    None,
    Int(i64),
    Big(BigInt),
    Float(u64),
    Str(Rc<str>),
    Tuple(Vec<HashKey>),
    /// Objects hashed by identity (functions, builtins, ranges).
    Identity(usize),
}

/// CPython's hash for the normalised key (ints exact; other keys get a stable stand-in).
pub fn cpython_hash(key: &HashKey) -> i64 {
    const MODULUS: u64 = (1u64 << 61) - 1;
    let h: i64 = match key {
        HashKey::Int(i) => {
            let m = (i.unsigned_abs() % MODULUS) as i64;
            if *i < 0 {
                -m
            } else {
                m
            }
        }
        HashKey::Big(b) => {
            let m = (b.abs() % BigInt::from(MODULUS)).to_i64().unwrap_or(0);
            if b.is_negative() {
                -m
            } else {
                m
            }
        }
        HashKey::None => 0xFCA86420,
        HashKey::Float(bits) => float_hash(f64::from_bits(*bits)),
        HashKey::Str(s) => {
            // CPython randomises string hashes per process; any deterministic hash is as good.
            let mut h: u64 = 0xcbf29ce484222325;
            for b in s.bytes() {
                h = (h ^ b as u64).wrapping_mul(0x100000001b3);
            }
            h as i64
        }
        HashKey::Tuple(items) => {
            // CPython's xxHash-based tuple hash (3.8+).
            const P1: u64 = 11400714785074694791;
            const P2: u64 = 14029467366897019727;
            const P5: u64 = 2870177450012600261;
            let mut acc: u64 = P5;
            for item in items {
                let lane = cpython_hash(item) as u64;
                acc = acc.wrapping_add(lane.wrapping_mul(P2));
                acc = acc.rotate_left(31);
                acc = acc.wrapping_mul(P1);
            }
            acc = acc.wrapping_add((items.len() as u64) ^ (P5 ^ 3527539));
            if acc == u64::MAX {
                1546275796
            } else {
                acc as i64
            }
        }
        HashKey::Identity(p) => (*p >> 4) as i64,
    };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `frexp`: `v = m * 2**e` with `0.5 <= |m| < 1` (zero, infinities and NaN come back unchanged with `e = 0`).
fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (v, 0);
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(v * f64::from_bits((1023u64 + 54) << 52));
        return (m, e - 54);
    }
    (f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52)), biased - 1022)
}

/// CPython's hash of a float that is not a whole number (`_Py_HashDouble`): the value reduced modulo the
/// Mersenne prime 2**61 - 1, so it agrees with the int hash; infinities hash to ±314159. NaN hashes by identity
/// in CPython, so any stand-in is as good.
fn float_hash(v: f64) -> i64 {
    const BITS: i32 = 61;
    const MODULUS: u64 = (1u64 << 61) - 1;
    if v.is_nan() {
        return 0;
    }
    if v.is_infinite() {
        return if v > 0.0 { 314159 } else { -314159 };
    }
    let (mut m, mut e) = frexp(v);
    let negative = m < 0.0;
    if negative {
        m = -m;
    }
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | x >> (BITS - 28);
        m *= 268435456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    let e = if e >= 0 { e % BITS } else { BITS - 1 - ((-1 - e) % BITS) };
    x = ((x << e) & MODULUS) | x >> (BITS - e);
    if negative {
        x = x.wrapping_neg();
    }
    x as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_hashes_match_cpython() {
        // python3 -c 'print([hash(x) for x in [1.5, -1.5, 0.1, 2.5e-300, 5e-324, float("inf"), -float("inf")]])'
        // (2.5e-300 exercises the negative exponent wrap, 5e-324 a subnormal; none is whole, so each keeps a
        // float key)
        let h = |f: f64| cpython_hash(&HashKey::Float(f.to_bits()));
        let got: Vec<i64> = [1.5, -1.5, 0.1, 2.5e-300, 5e-324, f64::INFINITY, f64::NEG_INFINITY].into_iter().map(h).collect();
        assert_eq!(got, vec![1152921504606846977, -1152921504606846977, 230584300921369408, 52920977297143526, 16777216, 314159, -314159]);
    }
}
