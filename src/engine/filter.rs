//! Degenerate-output filters, as the reference applies them: outputs too trivial to be a meaningful test are rejected and resampled.

use super::value::{Number, Value};

/// Values at or above this magnitude are rejected.
pub const MAGNITUDE_LIMIT: f64 = 1e10;

/// Which filter a generator applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Single-task samples: `unusable`, plus "equals the raw input" and the magnitude check on list elements.
    Baseline,
    /// Chains, multichains, custom DAGs.
    Unusable,
    /// GSM stages: only non-finite, {0, ±1} and huge scalars.
    Gsm,
    /// No filter (GSM baseline in the reference).
    None,
}

impl Filter {
    /// True if `output` (computed from `raw_input`) is acceptable.
    pub fn accepts(self, output: &Value, raw_input: &Value) -> bool {
        match self {
            Filter::None => true,
            Filter::Gsm => match output {
                Value::Scalar(x) => scalar_ok(*x),
                Value::List(_) => true,
            },
            Filter::Unusable => !is_unusable(output),
            Filter::Baseline => {
                !is_unusable(output)
                    && output != raw_input
                    && output.as_numbers().iter().all(|x| x.is_finite() && x.magnitude() < MAGNITUDE_LIMIT)
            }
        }
    }
}

/// The reference's `unusable` predicate: short, mostly-constant or `range`-like lists; trivial, non-finite or huge scalars.
pub fn is_unusable(output: &Value) -> bool {
    match output {
        Value::Scalar(x) => !scalar_ok(*x),
        Value::List(items) => {
            if items.len() <= 1 {
                return true;
            }
            if majority_count(items) * 2 > items.len() {
                return true;
            }
            let is_range_from = |start: i64| items.iter().enumerate().all(|(i, x)| x.as_f64() == (start + i as i64) as f64);
            is_range_from(0) || is_range_from(1)
        }
    }
}

fn scalar_ok(x: Number) -> bool {
    x.is_finite() && ![0.0, 1.0, -1.0].contains(&x.as_f64()) && x.magnitude() < MAGNITUDE_LIMIT
}

/// How often the most common value occurs (values compared as floats; NaN equals nothing).
fn majority_count(items: &[Number]) -> usize {
    if items.len() <= 16 {
        return majority_count_small(items);
    }
    // Long lists (huge graphs filter millions of them): sort and count runs instead of comparing all pairs.
    // -0.0 becomes 0.0 so that `total_cmp` groups the values `==` groups.
    let mut values: Vec<f64> = items.iter().map(|x| x.as_f64()).filter(|v| !v.is_nan()).map(|v| if v == 0.0 { 0.0 } else { v }).collect();
    values.sort_by(f64::total_cmp);
    let mut best = 0;
    let mut run = 0;
    for (i, v) in values.iter().enumerate() {
        run = if i > 0 && values[i - 1] == *v { run + 1 } else { 1 };
        best = best.max(run);
    }
    best
}

fn majority_count_small(items: &[Number]) -> usize {
    let mut best = 0;
    for (i, x) in items.iter().enumerate() {
        if items[..i].iter().any(|y| y.as_f64() == x.as_f64()) {
            continue;
        }
        best = best.max(items.iter().filter(|y| y.as_f64() == x.as_f64()).count());
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_rejects_trivial_outputs() {
        for bad in [Value::int(0), Value::int(1), Value::int(-1), Value::int(10_000_000_000), Value::ints(&[5]), Value::ints(&[]),
            Value::ints(&[2, 2, 2, 1]), Value::ints(&[0, 1, 2, 3]), Value::ints(&[1, 2, 3])]
        {
            assert!(is_unusable(&bad), "{bad}");
        }
        for good in [Value::int(2), Value::int(-9_999_999_999), Value::ints(&[2, 2, 1, 3]), Value::ints(&[1, 3, 2])] {
            assert!(!is_unusable(&good), "{good}");
        }
    }

    #[test]
    fn baseline_also_rejects_echoes_and_huge_elements() {
        let input = Value::ints(&[3, 1, 2]);
        assert!(!Filter::Baseline.accepts(&input, &input));
        assert!(!Filter::Baseline.accepts(&Value::ints(&[3, 10_000_000_000]), &input));
        assert!(Filter::Unusable.accepts(&Value::ints(&[3, 10_000_000_000]), &input));
        assert!(Filter::Gsm.accepts(&Value::int(7), &input));
        assert!(!Filter::Gsm.accepts(&Value::int(1), &input));
    }

    #[test]
    fn majority_counts_of_long_lists_agree_with_comparing_all_pairs() {
        let mut rng = crate::engine::rng::InstanceRng::from_seed(3);
        for len in [17, 40, 100, 333] {
            for _ in 0..50 {
                let items: Vec<Number> = (0..len)
                    .map(|_| match rng.index(6) {
                        0 => Number::Float(-0.0),
                        1 => Number::Float(f64::NAN),
                        2 => Number::Float(rng.int_in(-3, 3) as f64),
                        _ => Number::Int(rng.int_in(-3, 3)),
                    })
                    .collect();
                assert_eq!(majority_count(&items), majority_count_small(&items), "{items:?}");
            }
        }
    }
}

