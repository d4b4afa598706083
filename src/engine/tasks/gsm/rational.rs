//! Exact rational numbers over big integers, the number type of the word-problem expression language.
//!
//! A `Rational` is always reduced with a positive denominator, so equality is structural and `is_integer`
//! is a denominator check. Only what the evaluator needs is here: the four operations, floor, truncation,
//! rounding with ties to even, and comparison.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// An exact fraction `num / den`, reduced, `den > 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rational {
    num: BigInt,
    den: BigInt,
}

impl Rational {
    /// The integer `n`.
    pub fn int(n: i64) -> Rational {
        Rational { num: BigInt::from(n), den: BigInt::one() }
    }

    /// The integer `n` (big).
    pub fn from_bigint(n: BigInt) -> Rational {
        Rational { num: n, den: BigInt::one() }
    }

    /// `num / den`, reduced; `None` when `den` is zero.
    pub fn new(num: BigInt, den: BigInt) -> Option<Rational> {
        if den.is_zero() {
            return None;
        }
        let g = gcd(&num, &den);
        let (mut num, mut den) = if g.is_one() || g.is_zero() { (num, den) } else { (num / &g, den / &g) };
        if den.is_negative() {
            num = -num;
            den = -den;
        }
        Some(Rational { num, den })
    }

    /// Parses a decimal literal such as `12`, `0.25` or `3.` exactly.
    pub fn parse_decimal(text: &str) -> Option<Rational> {
        let (whole, frac) = match text.split_once('.') {
            Some((w, f)) => (w, f),
            None => (text, ""),
        };
        if whole.is_empty() && frac.is_empty() {
            return None;
        }
        if !whole.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let digits = format!("{whole}{frac}");
        let num: BigInt = if digits.is_empty() { BigInt::zero() } else { digits.parse().ok()? };
        let den = num_traits::pow(BigInt::from(10), frac.len());
        Rational::new(num, den)
    }

    /// The numerator (sign carrier).
    pub fn numer(&self) -> &BigInt {
        &self.num
    }

    /// The denominator (always positive).
    pub fn denom(&self) -> &BigInt {
        &self.den
    }

    /// True when the denominator is one.
    pub fn is_integer(&self) -> bool {
        self.den.is_one()
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.num.is_zero()
    }

    /// The value as `i64` when it is an integer that fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.is_integer() {
            self.num.to_i64()
        } else {
            None
        }
    }

    /// Sum.
    pub fn add(&self, other: &Rational) -> Rational {
        if self.is_integer() && other.is_integer() {
            return Rational::from_bigint(&self.num + &other.num);
        }
        Rational::reduced(&self.num * &other.den + &other.num * &self.den, &self.den * &other.den)
    }

    /// Difference.
    pub fn sub(&self, other: &Rational) -> Rational {
        self.add(&other.neg())
    }

    /// Product.
    pub fn mul(&self, other: &Rational) -> Rational {
        if self.is_integer() && other.is_integer() {
            return Rational::from_bigint(&self.num * &other.num);
        }
        Rational::reduced(&self.num * &other.num, &self.den * &other.den)
    }

    /// Exact quotient; `None` when dividing by zero.
    pub fn div(&self, other: &Rational) -> Option<Rational> {
        Rational::new(&self.num * &other.den, &self.den * &other.num)
    }

    /// Negation.
    pub fn neg(&self) -> Rational {
        Rational { num: -&self.num, den: self.den.clone() }
    }

    /// Absolute value.
    pub fn abs(&self) -> Rational {
        Rational { num: self.num.abs(), den: self.den.clone() }
    }

    /// The largest integer not above the value.
    pub fn floor(&self) -> BigInt {
        self.num.div_floor(&self.den)
    }

    /// The integer part, rounding toward zero.
    pub fn trunc(&self) -> BigInt {
        &self.num / &self.den
    }

    /// The nearest integer, ties to the even neighbour (Python's `round`).
    pub fn round_half_even(&self) -> BigInt {
        let floor = self.floor();
        let rest = self.sub(&Rational::from_bigint(floor.clone()));
        let half = Rational { num: BigInt::one(), den: BigInt::from(2) };
        match rest.cmp(&half) {
            Ordering::Less => floor,
            Ordering::Greater => floor + 1,
            Ordering::Equal => {
                if floor.is_even() {
                    floor
                } else {
                    floor + 1
                }
            }
        }
    }

    /// `self ** exp` for an integer exponent; `None` for `0 ** negative`.
    pub fn pow(&self, exp: i32) -> Option<Rational> {
        let e = exp.unsigned_abs() as usize;
        let num = num_traits::pow(self.num.clone(), e);
        let den = num_traits::pow(self.den.clone(), e);
        if exp >= 0 {
            Some(Rational { num, den })
        } else {
            Rational::new(den, num)
        }
    }

    /// Bits of the larger of numerator and denominator (a size guard for exponentiation).
    pub fn bits(&self) -> u64 {
        self.num.bits().max(self.den.bits())
    }

    fn reduced(num: BigInt, den: BigInt) -> Rational {
        // Callers pass a positive denominator, so `new` cannot fail.
        Rational::new(num, den).unwrap_or_else(|| Rational::int(0))
    }
}

/// The greatest common divisor of `a` and `b` (non-negative), by Lehmer's algorithm (Knuth, TAOCP 4.5.2,
/// algorithm L). The binary algorithm of `num-integer` takes a shift and a subtraction of the whole number per
/// bit, so reducing a fraction of two 4,096-bit numbers took thousands of passes over them; Lehmer's runs the
/// Euclidean steps on the leading 63 bits and applies a run of them at once, as one linear combination.
fn gcd(a: &BigInt, b: &BigInt) -> BigInt {
    let (a, b) = (a.magnitude(), b.magnitude());
    let (mut u, mut v) = if a >= b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) };
    while v.bits() > 64 {
        let shift = u.bits() - 63;
        let mut uh = (&u >> shift).to_i128().unwrap_or(0);
        let mut vh = (&v >> shift).to_i128().unwrap_or(0);
        let (mut ca, mut cb, mut cc, mut cd) = (1i128, 0i128, 0i128, 1i128);
        // Steps on the leading bits are exact while both bounds on the quotient agree.
        while vh + cc != 0 && vh + cd != 0 {
            let q = (uh + ca) / (vh + cc);
            if q != (uh + cb) / (vh + cd) {
                break;
            }
            (ca, cc) = (cc, ca - q * cc);
            (cb, cd) = (cd, cb - q * cd);
            (uh, vh) = (vh, uh - q * vh);
        }
        if cb == 0 {
            let r = &u % &v;
            (u, v) = (v, r);
        } else {
            let (bu, bv) = (BigInt::from(u), BigInt::from(v));
            let next_u = &bu * ca + &bv * cb;
            let next_v = bu * cc + bv * cd;
            (u, v) = (next_u.into_parts().1, next_v.into_parts().1);
        }
    }
    let Some(small) = v.to_u64().filter(|s| *s != 0) else { return BigInt::from(u) };
    let (mut x, mut y) = (small, (u % small).to_u64().unwrap_or(0));
    while y != 0 {
        (x, y) = (y, x % y);
    }
    BigInt::from(x)
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Rational) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rational {
    fn cmp(&self, other: &Rational) -> Ordering {
        if self.den == other.den {
            return self.num.cmp(&other.num);
        }
        (&self.num * &other.den).cmp(&(&other.num * &self.den))
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integer() {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> Rational {
        Rational::new(BigInt::from(n), BigInt::from(d)).unwrap()
    }

    #[test]
    fn fractions_are_kept_reduced_with_a_positive_denominator() {
        assert_eq!(q(6, -4), q(-3, 2));
        assert_eq!(q(6, -4).denom(), &BigInt::from(2));
        assert!(q(10, 5).is_integer());
        assert_eq!(Rational::new(BigInt::from(1), BigInt::from(0)), None);
    }

    #[test]
    fn decimal_literals_parse_exactly() {
        assert_eq!(Rational::parse_decimal("0.25"), Some(q(1, 4)));
        assert_eq!(Rational::parse_decimal("12"), Some(Rational::int(12)));
        assert_eq!(Rational::parse_decimal("1.50"), Some(q(3, 2)));
        assert_eq!(Rational::parse_decimal("."), None);
        assert_eq!(Rational::parse_decimal("1e3"), None);
    }

    #[test]
    fn floor_and_trunc_differ_below_zero() {
        assert_eq!(q(-7, 2).floor(), BigInt::from(-4));
        assert_eq!(q(-7, 2).trunc(), BigInt::from(-3));
        assert_eq!(q(7, 2).floor(), BigInt::from(3));
    }

    #[test]
    fn rounding_sends_ties_to_the_even_neighbour() {
        for (n, d, expected) in [(5, 2, 2), (7, 2, 4), (-5, 2, -2), (-7, 2, -4), (13, 5, 3), (12, 5, 2), (-13, 5, -3)] {
            assert_eq!(q(n, d).round_half_even(), BigInt::from(expected), "{n}/{d}");
        }
    }

    #[test]
    fn comparison_cross_multiplies() {
        assert!(q(1, 3) < q(1, 2));
        assert!(q(-1, 2) < q(-1, 3));
        assert_eq!(q(2, 4).cmp(&q(1, 2)), Ordering::Equal);
    }

    #[test]
    fn powers_with_negative_exponents_invert() {
        assert_eq!(q(2, 3).pow(2), Some(q(4, 9)));
        assert_eq!(q(2, 3).pow(-2), Some(q(9, 4)));
        assert_eq!(Rational::int(0).pow(-1), None);
        assert_eq!(Rational::int(0).pow(0), Some(Rational::int(1)));
    }

    /// A big integer of `limbs` random 32-bit limbs times `factor` (a shared factor makes gcds above one).
    fn big(sign: bool, limbs: &[u32], factor: &BigInt) -> BigInt {
        let n = BigInt::from_slice(if sign { num_bigint::Sign::Minus } else { num_bigint::Sign::Plus }, limbs);
        n * factor
    }

    proptest::proptest! {
        #[test]
        fn the_gcd_agrees_with_num_integer_at_any_lengths(
            a in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..130),
            b in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..6),
            f in proptest::collection::vec(proptest::prelude::any::<u32>(), 1..4),
            signs in proptest::prelude::any::<(bool, bool, bool)>(),
        ) {
            let factor = BigInt::from_slice(num_bigint::Sign::Plus, &f);
            let (x, y) = (big(signs.0, &a, &factor), big(signs.1, &b, &factor));
            let (x, y) = if signs.2 { (y, x) } else { (x, y) };
            proptest::prop_assert_eq!(gcd(&x, &y), x.gcd(&y));
            proptest::prop_assert_eq!(gcd(&x, &BigInt::zero()), x.abs());
            proptest::prop_assert_eq!(gcd(&x, &BigInt::one()), BigInt::one());
        }

        #[test]
        fn the_gcd_agrees_with_num_integer_on_two_long_numbers(
            a in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..130),
            b in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..130),
            f in proptest::collection::vec(proptest::prelude::any::<u32>(), 1..40),
            signs in proptest::prelude::any::<(bool, bool)>(),
        ) {
            let factor = BigInt::from_slice(num_bigint::Sign::Plus, &f);
            let (x, y) = (big(signs.0, &a, &factor), big(signs.1, &b, &factor));
            proptest::prop_assert_eq!(gcd(&x, &y), x.gcd(&y));
            proptest::prop_assert_eq!(gcd(&x, &(&x + &factor)), x.gcd(&factor));
        }
    }

    #[test]
    fn the_gcd_of_neighbouring_fibonacci_numbers_is_one() {
        // Every Euclidean quotient is one: the longest run of steps for numbers of their size.
        let (mut a, mut b) = (BigInt::one(), BigInt::one());
        for _ in 0..5000 {
            (a, b) = (b.clone(), a + b);
        }
        assert_eq!(gcd(&a, &b), BigInt::one());
        let (x, y) = (&a * 6u32, &b * 10u32);
        assert_eq!(gcd(&x, &y), x.gcd(&y));
        assert_eq!(gcd(&BigInt::zero(), &BigInt::zero()), BigInt::zero());
    }
}
