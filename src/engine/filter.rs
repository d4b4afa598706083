//! Degenerate-output filters (§1.5): outputs too trivial to be a meaningful test are rejected and resampled.

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

fn majority_count(items: &[Number]) -> usize {
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
}
