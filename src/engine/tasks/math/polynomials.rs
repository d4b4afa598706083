//! Polynomial operators: quotient and remainder, resultant with x²+x+1, square-free part at 2, and Lagrange
//! interpolation evaluated at a point (`task_id` 6, 7, 11, 18, 19).
//!
//! "The polynomial of a list" has the list's elements as coefficients from the highest degree down; leading zeros
//! are dropped and the zero polynomial prints as `[0]`. Everything is exact: integers only (the interpolation uses
//! Newton's forward differences, whose binomial weights are integers at integer points; the square-free part uses
//! a primitive integer gcd with big integers), so no rational type is needed.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

use super::{fit, Adapted, Body, Input, MathError, OpSpec, ParamSpec, Params};
use crate::engine::adapter::ListAdapter;
use crate::engine::value::{Kind, Value};

/// Coefficients from the highest degree with leading zeros removed (empty = zero polynomial).
fn strip(coeffs: &[i64]) -> Vec<i128> {
    let start = coeffs.iter().position(|&c| c != 0).unwrap_or(coeffs.len());
    coeffs[start..].iter().map(|&c| c as i128).collect()
}

/// The list form: the coefficients, or `[0]` for the zero polynomial.
fn coefficient_list(coeffs: &[i128]) -> Result<Value, MathError> {
    let start = coeffs.iter().position(|&c| c != 0).unwrap_or(coeffs.len());
    if start == coeffs.len() {
        return Ok(Value::ints(&[0]));
    }
    let out: Result<Vec<i64>, _> = coeffs[start..].iter().map(|&c| fit(c, "a coefficient")).collect();
    Ok(Value::ints(&out?))
}

/// Division by a monic divisor (highest degree first): `(quotient, remainder)`.
fn divide_monic(p: &[i128], divisor: &[i128]) -> (Vec<i128>, Vec<i128>) {
    let m = divisor.len() - 1;
    if p.len() <= m {
        return (Vec::new(), p.to_vec());
    }
    let mut rem = p.to_vec();
    let mut quotient = Vec::with_capacity(p.len() - m);
    for i in 0..p.len() - m {
        let q = rem[i];
        quotient.push(q);
        for (j, &d) in divisor.iter().enumerate().skip(1) {
            rem[i + j] -= q * d;
        }
        rem[i] = 0;
    }
    (quotient, rem[p.len() - m..].to_vec())
}

const X2_X_1: [i128; 3] = [1, 1, 1];

/// The sympy-style expression of a polynomial given from the highest degree (`x**10 + 4*x**9 - 2*x**7 - x + 5`).
pub(crate) fn poly_expr(coeffs: &[i64]) -> String {
    let degree = coeffs.len().saturating_sub(1);
    let mut out = String::new();
    for (i, &c) in coeffs.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let k = degree - i;
        let power = match k {
            0 => String::new(),
            1 => "x".to_string(),
            _ => format!("x**{k}"),
        };
        let magnitude = c.unsigned_abs();
        let term = match (k, magnitude) {
            (0, _) => magnitude.to_string(),
            (_, 1) => power,
            _ => format!("{magnitude}*{power}"),
        };
        if out.is_empty() {
            out = if c < 0 { format!("-{term}") } else { term };
        } else {
            out.push_str(if c < 0 { " - " } else { " + " });
            out.push_str(&term);
        }
    }
    if out.is_empty() {
        "0".into()
    } else {
        out
    }
}

/// "Let P_N(x) be the polynomial of list_N …" (returns `P_N`).
fn define_poly(b: &mut Body<'_>) -> String {
    let (x, p) = (b.x.clone(), b.sym("P"));
    b.text(&format!(
        "Let {p}(x) be the polynomial whose coefficients, from the highest power of x down to the constant term, are \
         the elements of {x} in order (leading zero coefficients simply vanish).\n"
    ));
    p
}

fn coefficients_finish(b: &mut Body<'_>, poly: &str) {
    b.text(&format!(
        "Write the coefficients of {poly}(x) as a list from its highest power down to the constant term, including a 0 \
         for every missing lower power and omitting leading zeros; the zero polynomial is written [0].\n"
    ));
    b.finish("Call this list ", ".");
}

pub(crate) const POLY_QUOTIENT: OpSpec = OpSpec {
    name: "PolyQuotientTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::List,
    params: ParamSpec::None,
    summary: "quotient of the list's polynomial divided by x^2 + x + 1",
    compute: |a, _| {
        let p = strip(&a.ints()?);
        coefficient_list(&divide_monic(&p, &X2_X_1).0)
    },
    describe: |b, _, _| {
        let p = define_poly(b);
        let q = b.sym("Q");
        b.text(&format!(
            "Divide {p}(x) by x**2 + x + 1 using polynomial long division and let {q}(x) be the quotient (it is the zero \
             polynomial when {p} has degree below 2).\n"
        ));
        coefficients_finish(b, &q);
    },
};

fn remainder(a: &Adapted, params: &Params) -> Result<Value, MathError> {
    let xs = a.ints()?;
    let seq2 = params.seq2()?;
    if seq2.len() != xs.len() {
        return Err(MathError::ParamShape { param: "seq2", detail: format!("expected {} elements, found {}", xs.len(), seq2.len()) });
    }
    let divisor: Vec<i128> = std::iter::once(1).chain(seq2.iter().map(|&c| c as i128)).collect();
    coefficient_list(&divide_monic(&strip(&xs), &divisor).1)
}

pub(crate) const POLY_REMAINDER: OpSpec = OpSpec {
    name: "PolyRemainderTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::List,
    params: ParamSpec::Seq2,
    summary: "remainder of the list's polynomial modulo a random monic polynomial of degree len(list)",
    compute: remainder,
    describe: |b, _, params| {
        let p = define_poly(b);
        let (d, r) = (b.sym("D"), b.sym("R"));
        let divisor: Vec<i64> = std::iter::once(1).chain(params.seq2().unwrap_or_default().iter().copied()).collect();
        b.text(&format!("Let {d}(x) = ")).value(&poly_expr(&divisor)).text(".\n");
        b.text(&format!("Divide {p}(x) by {d}(x) and let {r}(x) be the remainder (its degree is below the degree of {d}).\n"));
        coefficients_finish(b, &r);
    },
};

pub(crate) const RESULTANT_FIXED: OpSpec = OpSpec {
    name: "PolyResultantFixedTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::Scalar,
    params: ParamSpec::None,
    summary: "resultant of the list's polynomial and x^2 + x + 1",
    compute: |a, _| {
        // x³ ≡ 1 and x² ≡ -x - 1 modulo x² + x + 1, so P ≡ αx + β; Res = (αω + β)(αω̄ + β) = α² - αβ + β².
        let p = strip(&a.ints()?);
        let mut by_residue = [0i128; 3];
        for (i, &c) in p.iter().enumerate() {
            by_residue[(p.len() - 1 - i) % 3] += c;
        }
        let (alpha, beta) = (by_residue[1] - by_residue[2], by_residue[0] - by_residue[2]);
        Ok(Value::int(fit(alpha * alpha - alpha * beta + beta * beta, "the resultant")?))
    },
    describe: |b, _, _| {
        let p = define_poly(b);
        b.text(&format!(
            "Compute the resultant of {p}(x) and x**2 + x + 1 (the resultant of the zero polynomial with any polynomial \
             is 0).\n"
        ));
        b.finish("Call the result ", ".");
    },
};

type BigPoly = Vec<BigInt>;

fn trim(p: &mut BigPoly) {
    let start = p.iter().position(|c| !c.is_zero()).unwrap_or(p.len());
    p.drain(..start);
}

fn primitive(mut p: BigPoly) -> BigPoly {
    trim(&mut p);
    let content = p.iter().fold(BigInt::zero(), |acc, c| acc.gcd(c));
    if !content.is_zero() && !content.is_one() {
        for c in &mut p {
            *c /= &content;
        }
    }
    p
}

/// A scalar multiple of the pseudo-remainder of `a` by `b` (`b` non-zero).
fn pseudo_remainder(a: &BigPoly, b: &BigPoly) -> BigPoly {
    let mut r = a.clone();
    trim(&mut r);
    while r.len() >= b.len() && !r.is_empty() {
        let lead = r[0].clone();
        for c in &mut r {
            *c *= &b[0];
        }
        for (j, d) in b.iter().enumerate() {
            r[j] -= &lead * d;
        }
        trim(&mut r);
    }
    r
}

/// `S(2)` for the square-free part `S = P / monic gcd(P, P')` over Q, leading coefficient kept.
fn square_free_at_two(coeffs: &[i64]) -> Result<i64, MathError> {
    let p: BigPoly = strip(coeffs).into_iter().map(BigInt::from).collect();
    match p.len() {
        0 => return Ok(0),
        1 => return p[0].to_i64().ok_or(MathError::Overflow("the constant")),
        _ => {}
    }
    let degree = p.len() - 1;
    let derivative: BigPoly = p[..degree].iter().enumerate().map(|(i, c)| c * BigInt::from(degree - i)).collect();
    let (mut a, mut b) = (primitive(p.clone()), primitive(derivative));
    while !b.is_empty() {
        let r = primitive(pseudo_remainder(&a, &b));
        a = b;
        b = r;
    }
    // `a` is the primitive integer gcd G_Z; the monic gcd is G_Z / lc(G_Z), so S = lc(G_Z) * (P / G_Z), and
    // P / G_Z has integer coefficients (Gauss's lemma), so the long division below is exact.
    let mut rem = p.clone();
    let mut quotient: BigPoly = Vec::new();
    for i in 0..=(p.len() - a.len()) {
        let (q, r) = rem[i].div_rem(&a[0]);
        if !r.is_zero() {
            return Err(MathError::Overflow("an exact division"));
        }
        for (j, d) in a.iter().enumerate() {
            rem[i + j] -= &q * d;
        }
        quotient.push(q);
    }
    let value = quotient.iter().fold(BigInt::zero(), |acc, c| acc * 2 + c) * &a[0];
    value.to_i64().ok_or(MathError::Overflow("the square-free value"))
}

pub(crate) const SQUARE_FREE_EVAL: OpSpec = OpSpec {
    name: "PolySquareFreeEvalTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::Scalar,
    params: ParamSpec::None,
    summary: "square-free part P / gcd(P, P') over Q (monic gcd) evaluated at 2",
    compute: |a, _| square_free_at_two(&a.ints()?).map(Value::int),
    describe: |b, _, _| {
        let p = define_poly(b);
        let (g, s) = (b.sym("G"), b.sym("S"));
        b.text(&format!(
            "If {p} is the zero polynomial, the result is 0; if {p} is a nonzero constant, the result is that constant.\n\
             Otherwise let {g}(x) be the greatest common divisor of {p}(x) and its derivative {p}'(x), computed over the \
             rational numbers and scaled to be monic (leading coefficient 1), and let {s}(x) = {p}(x) / {g}(x). Keep the \
             leading coefficient this division leaves in {s}; do not rescale {s}. The result is {s}(2).\n"
        ));
        b.finish("Call the result ", ".");
    },
};

/// `f(x0)` for the polynomial of degree `< n` through `(i, ys[i])`: Newton's forward differences,
/// `f(x0) = Σ_k Δ^k y_0 · C(x0, k)`, all integers.
fn interpolate_at(ys: &[i64], x0: i64) -> Result<i64, MathError> {
    let overflow = || MathError::Overflow("the interpolated value");
    let mut diffs: Vec<i128> = ys.iter().map(|&y| y as i128).collect();
    let mut total: i128 = 0;
    let mut binom: i128 = 1; // C(x0, k), an integer for integer x0 (also negative).
    for k in 0..ys.len() {
        total = total.checked_add(diffs[0].checked_mul(binom).ok_or_else(overflow)?).ok_or_else(overflow)?;
        diffs = diffs.windows(2).map(|w| w[1] - w[0]).collect();
        binom = binom.checked_mul(x0 as i128 - k as i128).ok_or_else(overflow)? / (k as i128 + 1);
    }
    fit(total, "the interpolated value")
}

pub(crate) const INTERPOLATE_EVAL: OpSpec = OpSpec {
    name: "InterpolateEvalTask",
    input: Input::Points(ListAdapter::SEQ),
    output: Kind::Scalar,
    params: ParamSpec::X0,
    summary: "interpolating polynomial through (i, a_i) evaluated at a random point",
    compute: |a, params| interpolate_at(&a.ints()?, params.x0()?).map(Value::int),
    describe: |b, _, params| {
        let (x, l, f, t) = (b.x.clone(), b.sym("L"), b.sym("f"), b.sym("x0"));
        b.text(&format!(
            "Let {l} be the length of {x}, with indices starting at 0, and let {f} be the unique polynomial of degree \
             less than {l} with {f}(i) = {x}[i] for every i = 0, 1, ..., {l} - 1.\n"
        ));
        b.define(&t, &params.x0().map(|v| v.to_string()).unwrap_or_default());
        b.text(&format!("Evaluate {f}({t}) exactly (the value is an integer).\n"));
        b.finish("Call the value ", ".");
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: &OpSpec, raw: &[i64], params: Params) -> Result<Value, MathError> {
        (op.compute)(&op.input.adapt(&Value::ints(raw)).unwrap(), &params)
    }

    #[test]
    fn quotient_by_x2_x_1() {
        // x³ - 1 = (x - 1)(x² + x + 1) → [1, -1].
        assert_eq!(run(&POLY_QUOTIENT, &[1, 0, 0, -1], Params::None), Ok(Value::ints(&[1, -1])));
        // Leading zeros vanish: [0, 0, 1, 1, 1] is x² + x + 1 → quotient 1 → [1].
        assert_eq!(run(&POLY_QUOTIENT, &[0, 0, 1, 1, 1], Params::None), Ok(Value::ints(&[1])));
        // x⁴ = (x² - x)(x² + x + 1) + x → [1, -1, 0] (internal zero kept).
        assert_eq!(run(&POLY_QUOTIENT, &[1, 0, 0, 0, 0], Params::None), Ok(Value::ints(&[1, -1, 0])));
        // Degree < 2 (and the zero polynomial) → [0].
        assert_eq!(run(&POLY_QUOTIENT, &[0, 3, 4], Params::None), Ok(Value::ints(&[0])));
        assert_eq!(run(&POLY_QUOTIENT, &[0, 0, 0], Params::None), Ok(Value::ints(&[0])));
    }

    #[test]
    fn remainder_is_the_input_without_leading_zeros() {
        // deg D = len > deg P, so the remainder is P itself.
        assert_eq!(run(&POLY_REMAINDER, &[0, 5, -2, 0], Params::Seq2(vec![1, 2, 3, 4])), Ok(Value::ints(&[5, -2, 0])));
        assert_eq!(run(&POLY_REMAINDER, &[0, 0], Params::Seq2(vec![1, 2])), Ok(Value::ints(&[0])));
        // 100 reduces to 0 first, -150 to -50.
        assert_eq!(run(&POLY_REMAINDER, &[100, -150, 7], Params::Seq2(vec![0, 0, 0])), Ok(Value::ints(&[-50, 7])));
        // The general division is right too: (x³ + 2) mod (x² + 1) = -x + 2.
        assert_eq!(divide_monic(&[1, 0, 0, 2], &[1, 0, 1]), (vec![1, 0], vec![-1, 2]));
    }

    #[test]
    fn divisor_prints_as_a_sympy_expression() {
        assert_eq!(poly_expr(&[1, 4, 0, -2, 0, 0, 0, 0, 0, -1, 5]), "x**10 + 4*x**9 - 2*x**7 - x + 5");
        assert_eq!(poly_expr(&[1, -1, 1]), "x**2 - x + 1");
        assert_eq!(poly_expr(&[1, 0]), "x");
        assert_eq!(poly_expr(&[1, -3]), "x - 3");
        assert_eq!(poly_expr(&[-1, 0, 0]), "-x**2");
    }

    #[test]
    fn resultant_with_x2_x_1_by_hand() {
        // P = x: Res = ω·ω̄ = 1 → α = 1, β = 0 → 1. P = x - 1: (ω - 1)(ω̄ - 1) = 1 + 1 + 1 = 3.
        assert_eq!(run(&RESULTANT_FIXED, &[1, -1], Params::None), Ok(Value::int(3)));
        // Constant c → c²; zero polynomial → 0.
        assert_eq!(run(&RESULTANT_FIXED, &[0, 0, -7], Params::None), Ok(Value::int(49)));
        assert_eq!(run(&RESULTANT_FIXED, &[0, 0], Params::None), Ok(Value::int(0)));
        // A multiple of x² + x + 1 has resultant 0.
        assert_eq!(run(&RESULTANT_FIXED, &[2, 2, 2], Params::None), Ok(Value::int(0)));
        // Reference baseline sample: [60, 22, 100, …] → 4627 (c0 = 0, c1 = 47, c2 = -31 → α = 78, β = 31).
        assert_eq!(run(&RESULTANT_FIXED, &[60, 22, 100, 54, 20, -35, -40, -73, 82, -74], Params::None), Ok(Value::int(4627)));
    }

    #[test]
    fn square_free_part_keeps_the_leading_coefficient() {
        // (x - 1)² → S = x - 1 → 1.
        assert_eq!(run(&SQUARE_FREE_EVAL, &[1, -2, 1], Params::None), Ok(Value::int(1)));
        // (2x - 1)² = 4x² - 4x + 1: monic gcd x - 1/2, S = 4x - 2 → 6.
        assert_eq!(run(&SQUARE_FREE_EVAL, &[4, -4, 1], Params::None), Ok(Value::int(6)));
        // 3(x + 1)²(x - 3) = 3x³ - 3x² - 15x - 9: S = 3(x + 1)(x - 3) → 3 * 3 * (-1) = -9.
        assert_eq!(run(&SQUARE_FREE_EVAL, &[3, -3, -15, -9], Params::None), Ok(Value::int(-9)));
        // Already square-free: S = P, e.g. x² + 1 → 5.
        assert_eq!(run(&SQUARE_FREE_EVAL, &[0, 1, 0, 1], Params::None), Ok(Value::int(5)));
        // Constant and zero conventions.
        assert_eq!(run(&SQUARE_FREE_EVAL, &[0, -6], Params::None), Ok(Value::int(-6)));
        assert_eq!(run(&SQUARE_FREE_EVAL, &[0, 0, 0], Params::None), Ok(Value::int(0)));
    }

    #[test]
    fn interpolation_is_exact_at_any_integer_point() {
        // Points of y = i² at 0..3, evaluated at -5 → 25 and at 10 → 100.
        assert_eq!(run(&INTERPOLATE_EVAL, &[0, 1, 4, 9], Params::X0(-5)), Ok(Value::int(25)));
        assert_eq!(run(&INTERPOLATE_EVAL, &[0, 1, 4, 9], Params::X0(10)), Ok(Value::int(100)));
        // [1, 0, 0]: f = (x - 1)(x - 2)/2 → f(-100) = (-101)(-102)/2 = 5151.
        assert_eq!(run(&INTERPOLATE_EVAL, &[1, 0, 0], Params::X0(-100)), Ok(Value::int(5151)));
        // One point: a constant.
        assert_eq!(run(&INTERPOLATE_EVAL, &[7], Params::X0(42)), Ok(Value::int(7)));
        // [0, 0, 1]: f = x(x - 1)/2 at 99 → 4851.
        assert_eq!(run(&INTERPOLATE_EVAL, &[0, 0, 1], Params::X0(99)), Ok(Value::int(4851)));
    }
}
