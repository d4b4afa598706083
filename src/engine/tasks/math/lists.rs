//! List operators about order, divisibility and geometry: sort by divisor count, convex-hull area, pairwise gcd
//! sum, permutation inversions and permutation order (`task_id` 8, 10, 15, 16, 17).

use super::number_theory::{divisor_count, gcd};
use super::{fit, Adapted, Body, Input, MathError, OpSpec, ParamSpec, Params};
use crate::engine::adapter::{ListAdapter, ScalarAdapter};
use crate::engine::value::{Kind, Value};

const fn list_op(name: &'static str, adapter: ListAdapter, output: Kind, summary: &'static str, compute: super::Compute, describe: super::Describe) -> OpSpec {
    OpSpec { name, input: Input::Seq(adapter), output, params: ParamSpec::None, summary, compute, describe }
}

pub(crate) const SORT_BY_DIVISOR_COUNT: OpSpec = list_op(
    "SortByDivisorCountTask",
    ListAdapter::SEQ,
    Kind::List,
    "stable sort by the number of divisors of |x| (0 has count 0)",
    |a, _| {
        let mut xs = a.ints()?;
        xs.sort_by_key(|x| divisor_count(x.unsigned_abs()));
        Ok(Value::ints(&xs))
    },
    |b: &mut Body<'_>, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "Sort the elements of {x} in ascending order of the number of positive divisors of their absolute value; \
             an element equal to 0 counts as having 0 divisors. Elements with the same count keep their original \
             relative order (the sort is stable).\n"
        ));
        b.finish("Call the sorted list ", ".");
    },
);

/// Twice the area of the convex hull of `(i, ys[i])`: 0 for fewer than 3 points or collinear points.
fn twice_hull_area(ys: &[i64]) -> i128 {
    let points: Vec<(i128, i128)> = ys.iter().enumerate().map(|(i, &y)| (i as i128, y as i128)).collect();
    if points.len() < 3 {
        return 0;
    }
    let cross = |o: (i128, i128), a: (i128, i128), b: (i128, i128)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    // Andrew's monotone chain; the points are already sorted by x with distinct x.
    let mut hull: Vec<(i128, i128)> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &(i128, i128)>> = if pass == 0 { Box::new(points.iter()) } else { Box::new(points.iter().rev()) };
        for &p in ordered {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    let n = hull.len();
    let shoelace: i128 = (0..n).map(|i| hull[i].0 * hull[(i + 1) % n].1 - hull[(i + 1) % n].0 * hull[i].1).sum();
    shoelace.abs()
}

pub(crate) const CONVEX_HULL_AREA: OpSpec = list_op(
    "ConvexHullAreaTask",
    ListAdapter::SEQ,
    Kind::Scalar,
    "twice the area of the convex hull of the points (i, a_i)",
    |a, _| Ok(Value::int(fit(twice_hull_area(&a.ints()?), "the hull area")?)),
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "Consider the points (i, {x}[i]) in the plane for every index i of {x}, with indices starting at 0.\n\
             Compute twice the area of their convex hull (the smallest convex polygon containing all the points), for \
             example as the absolute value of the shoelace sum over the hull's vertices in order. If there are fewer \
             than 3 points or all points lie on one straight line, the result is 0.\n"
        ));
        b.finish("Call the result ", ".");
    },
);

pub(crate) const PAIRWISE_GCD_SUM: OpSpec = list_op(
    "PairwiseGcdSumTask",
    ListAdapter { scalar: ScalarAdapter::round_abs_mod_add(0), pow2: false },
    Kind::Scalar,
    "sum of gcds over all pairs of elements",
    |a, _| {
        let xs: Vec<u64> = a.ints()?.iter().map(|x| x.unsigned_abs()).collect();
        let mut total: u64 = 0;
        for i in 0..xs.len() {
            for j in i + 1..xs.len() {
                total += gcd(xs[i], xs[j]);
            }
        }
        Ok(Value::int(fit(total as i128, "the gcd sum")?))
    },
    |b, _, _| {
        let x = b.x.clone();
        b.text(&format!(
            "For every pair of indices i < j of {x}, compute gcd({x}[i], {x}[j]), using gcd(0, 0) = 0 and gcd(0, y) = y. \
             Add up all these values (the sum is 0 if {x} has fewer than 2 elements).\n"
        ));
        b.finish("Call the sum ", ".");
    },
);

/// The stable argsort of `xs`: indices ordered by `(xs[i], i)`.
fn argsort(xs: &[i64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by_key(|&i| (xs[i], i));
    idx
}

fn inversions(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let pi = argsort(&a.ints()?);
    let count = (0..pi.len()).flat_map(|r| (r + 1..pi.len()).map(move |s| (r, s))).filter(|&(r, s)| pi[r] > pi[s]).count();
    Ok(Value::int(count as i64))
}

fn order(a: &Adapted, _: &Params) -> Result<Value, MathError> {
    let pi = argsort(&a.ints()?);
    let mut seen = vec![false; pi.len()];
    let mut lcm: u64 = 1;
    for start in 0..pi.len() {
        let mut len = 0;
        let mut r = start;
        while !seen[r] {
            seen[r] = true;
            r = pi[r];
            len += 1;
        }
        if len > 0 {
            lcm = lcm / gcd(lcm, len) * len;
        }
    }
    Ok(Value::int(fit(lcm as i128, "the permutation order")?))
}

fn argsort_sentence(b: &mut Body<'_>) -> String {
    let (x, l, pi) = (b.x.clone(), b.sym("L"), b.sym("pi"));
    b.text(&format!(
        "Let {l} be the length of {x}, with indices starting at 0.\n\
         Sort the indices 0, 1, ..., {l} - 1 in increasing order of {x}[i], breaking ties by the smaller index i, and let \
         {pi} be the resulting list of indices.\n"
    ));
    pi
}

pub(crate) const PERMUTATION_INVERSIONS: OpSpec = list_op(
    "PermutationInversionsTask",
    ListAdapter::SEQ,
    Kind::Scalar,
    "number of inversions of the stable argsort permutation",
    inversions,
    |b, _, _| {
        let pi = argsort_sentence(b);
        let l = b.sym("L");
        b.text(&format!("Count the pairs of positions (r, s) with 0 <= r < s < {l} and {pi}[r] > {pi}[s].\n"));
        b.finish("Call this count ", ".");
    },
);

pub(crate) const PERMUTATION_ORDER: OpSpec = list_op(
    "PermutationOrderTask",
    ListAdapter::SEQ,
    Kind::Scalar,
    "order (lcm of cycle lengths) of the stable argsort permutation",
    order,
    |b, _, _| {
        let pi = argsort_sentence(b);
        b.text(&format!(
            "Read {pi} as the permutation that sends each position r to {pi}[r]. Compute its order: the smallest \
             positive integer t such that applying the permutation t times brings every position back to itself (the \
             least common multiple of its cycle lengths; the order of an empty permutation is 1).\n"
        ));
        b.finish("Call the order ", ".");
    },
);

#[cfg(test)]
mod tests {
    use super::*;

    fn check(op: &OpSpec, raw: &[i64], expected: Value) {
        let adapted = op.input.adapt(&Value::ints(raw)).unwrap();
        assert_eq!((op.compute)(&adapted, &Params::None), Ok(expected), "{} on {raw:?}", op.name);
    }

    #[test]
    fn sort_by_divisor_count_is_stable_and_puts_zero_first() {
        // d: 6→4, 0→0, -7→2, 4→3, 3→2, 1→1 → order 0, 1, -7, 3, 4, 6 (-7 before 3: stable).
        check(&SORT_BY_DIVISOR_COUNT, &[6, 0, -7, 4, 3, 1], Value::ints(&[0, 1, -7, 3, 4, 6]));
        // Reference multichain sample: the recombined [10, 1351, 21, 2703, …] adapts to
        // [10, 51, 21, 3, 32, 55, 43, 7, 54, 59] and sorts to [3, 43, 7, 59, 10, 51, 21, 55, 32, 54].
        check(
            &SORT_BY_DIVISOR_COUNT,
            &[10, 1351, 21, 2703, 32, 4055, 43, 5407, 54, 6759],
            Value::ints(&[3, 43, 7, 59, 10, 51, 21, 55, 32, 54]),
        );
    }

    #[test]
    fn hull_area_doubles_and_handles_degenerate_sets() {
        // Triangle (0,0), (1,5), (2,0): area 5, doubled 10.
        check(&CONVEX_HULL_AREA, &[0, 5, 0], Value::int(10));
        // Square-ish (0,0), (1,2), (2,2), (3,0): trapezoid area (3 + 1) / 2 * 2 = 4 → 8. Interior points do not count.
        check(&CONVEX_HULL_AREA, &[0, 2, 2, 0], Value::int(8));
        check(&CONVEX_HULL_AREA, &[0, 2, 1, 2, 0], Value::int(12)); // hull (0,0),(1,2),(3,2),(4,0): (4 + 2) / 2 * 2 = 6 → 12
        // Collinear points and fewer than three points give 0.
        check(&CONVEX_HULL_AREA, &[1, 3, 5, 7], Value::int(0));
        check(&CONVEX_HULL_AREA, &[4, 9], Value::int(0));
        check(&CONVEX_HULL_AREA, &[4], Value::int(0));
    }

    #[test]
    fn pairwise_gcds_use_absolute_values_and_zero_conventions() {
        // Adapter: |-12| = 12, 118 → 18. Pairs: gcd(12,18) = 6, gcd(12,0) = 12, gcd(18,0) = 18 → 36.
        check(&PAIRWISE_GCD_SUM, &[-12, 118, 0], Value::int(36));
        check(&PAIRWISE_GCD_SUM, &[0, 0], Value::int(0));
        check(&PAIRWISE_GCD_SUM, &[5], Value::int(0));
    }

    #[test]
    fn permutation_statistics_by_hand() {
        // [3, 1, 2]: argsort = [1, 2, 0]; inversions (1,0), (2,0) → 2; cycle 0→1→2→0 has length 3 → order 3.
        check(&PERMUTATION_INVERSIONS, &[3, 1, 2], Value::int(2));
        check(&PERMUTATION_ORDER, &[3, 1, 2], Value::int(3));
        // Ties break by index: [5, 5, 1] → argsort [2, 0, 1]: inversions (2,0), (2,1) → 2; one 3-cycle → 3.
        check(&PERMUTATION_INVERSIONS, &[5, 5, 1], Value::int(2));
        // [2, 1, 4, 3, 6, 7, 5]: argsort [1, 0, 3, 2, 6, 4, 5] → cycles (0 1), (2 3), (4 6 5) → lcm(2, 2, 3) = 6.
        check(&PERMUTATION_ORDER, &[2, 1, 4, 3, 6, 7, 5], Value::int(6));
        // Already sorted: identity, order 1 and no inversions.
        check(&PERMUTATION_ORDER, &[1, 2, 3], Value::int(1));
        check(&PERMUTATION_INVERSIONS, &[1, 2, 3], Value::int(0));
    }
}
