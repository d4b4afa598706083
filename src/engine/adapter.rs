//! Preprocessing adapters: how a task maps the raw incoming value onto its own domain, exactly as the
//! reference does, plus the sentence that tells the model to do the same.
//!
//! Example: a scalar adapter with rounding, `|v| mod 100` and `+1` turns `-14.5` into `15 + 1 = 16`, and its
//! prompt sentence reads "Let val_3 be task_2_out preprocessed as follows: round it to an integer, …; then add 1 to it."

use super::prompt::{Prompt, Role};
use super::value::{Kind, Number, Value};

/// The longest list a task consumes; longer inputs are truncated.
pub const LIST_LEN_MAX: usize = 10;
/// Fresh random inputs are uniform in `[-SCALAR_MAX_MAG, SCALAR_MAX_MAG]`.
pub const SCALAR_MAX_MAG: i64 = 100;

/// The scalar pipeline, applied in this order: round half away from zero, modulo 100 (sign-preserving unless
/// `abs`), absolute value, add a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarAdapter {
    pub to_int: bool,
    pub modulo: bool,
    pub abs: bool,
    pub add: i64,
}

/// The list pipeline: the scalar pipeline element-wise, truncation to `LIST_LEN_MAX`, optional zero padding to a power of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListAdapter {
    pub scalar: ScalarAdapter,
    pub pow2: bool,
}

/// Why an adapter could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdaptError {
    #[error("expected a {expected} input, found a {found}")]
    WrongKind { expected: Kind, found: Kind },
    #[error("the input list is empty")]
    EmptyList,
    #[error("the input is not a finite number")]
    NotFinite,
}

impl ScalarAdapter {
    /// Round, sign-preserving modulo 100 (the common list-element pipeline).
    pub const ROUND_MOD: ScalarAdapter = ScalarAdapter { to_int: true, modulo: true, abs: false, add: 0 };

    /// Round, `|v| mod 100`, then add `add` (every scalar-input math op).
    pub const fn round_abs_mod_add(add: i64) -> ScalarAdapter {
        ScalarAdapter { to_int: true, modulo: true, abs: true, add }
    }

    /// Applies the pipeline to one number.
    pub fn apply(&self, x: Number) -> Result<Number, AdaptError> {
        if !x.is_finite() {
            return Err(AdaptError::NotFinite);
        }
        let mut x = x;
        if self.to_int {
            x = Number::Int(round_half_away(x));
        }
        if self.modulo {
            x = match x {
                Number::Int(i) => Number::Int(i % 100),
                Number::Float(f) => Number::Float(f % 100.0),
            };
        }
        if self.abs {
            x = match x {
                Number::Int(i) => Number::Int(i.abs()),
                Number::Float(f) => Number::Float(f.abs()),
            };
        }
        if self.add != 0 {
            x = match x {
                Number::Int(i) => Number::Int(i + self.add),
                Number::Float(f) => Number::Float(f + self.add as f64),
            };
        }
        Ok(x)
    }

    /// Applies the pipeline to a scalar value.
    pub fn apply_value(&self, value: &Value) -> Result<Number, AdaptError> {
        match value {
            Value::Scalar(x) => self.apply(*x),
            Value::List(_) => Err(AdaptError::WrongKind { expected: Kind::Scalar, found: Kind::List }),
        }
    }

    /// The clauses, joined by "; then ", without the final period.
    fn clauses(&self) -> String {
        let mut clauses: Vec<String> = Vec::new();
        if self.to_int {
            clauses.push("round it to an integer, rounding halves away from zero (0.5 becomes 1 and -0.5 becomes -1)".into());
        }
        if self.modulo {
            if self.abs {
                clauses.push("replace it by the remainder of its absolute value divided by 100".into());
            } else {
                clauses.push("replace it by the remainder of its absolute value divided by 100, keeping its original sign".into());
            }
        } else if self.abs {
            clauses.push("take its absolute value".into());
        }
        if self.add != 0 {
            clauses.push(format!("add {} to it", self.add));
        }
        if clauses.is_empty() {
            clauses.push("leave it unchanged".into());
        }
        clauses.join("; then ")
    }

    /// Writes the sentence defining `local` (e.g. `val_3`) from `source` (e.g. `task_2_out`).
    pub fn describe(&self, prompt: &mut Prompt, local: &str, source: &str) {
        prompt.push(Role::Adapter, &format!("Let {local} be {source} preprocessed as follows: {}.\n", self.clauses()));
    }

    /// The clauses as a stand-alone sentence ("Round it …; then add 3 to it."), used after an element selection.
    pub fn describe_sentence(&self, prompt: &mut Prompt) {
        let clauses = self.clauses();
        let mut chars = clauses.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or(' ');
        prompt.push(Role::Adapter, &format!("{first}{}.\n", chars.as_str()));
    }
}

impl ListAdapter {
    /// Round, sign-preserving mod 100, truncate (most list ops).
    pub const SEQ: ListAdapter = ListAdapter { scalar: ScalarAdapter::ROUND_MOD, pow2: false };
    /// As `SEQ`, then pad to a power of two.
    pub const SEQ_POW2: ListAdapter = ListAdapter { scalar: ScalarAdapter::ROUND_MOD, pow2: true };

    /// Applies the pipeline to a list.
    pub fn apply(&self, items: &[Number]) -> Result<Vec<Number>, AdaptError> {
        if items.is_empty() {
            return Err(AdaptError::EmptyList);
        }
        let mut out = items.iter().take(LIST_LEN_MAX).map(|&x| self.scalar.apply(x)).collect::<Result<Vec<_>, _>>()?;
        if self.pow2 {
            let target = out.len().next_power_of_two();
            out.resize(target, Number::Int(0));
        }
        Ok(out)
    }

    /// Applies the pipeline to a list value.
    pub fn apply_value(&self, value: &Value) -> Result<Vec<Number>, AdaptError> {
        match value {
            Value::List(items) => self.apply(items),
            Value::Scalar(_) => Err(AdaptError::WrongKind { expected: Kind::List, found: Kind::Scalar }),
        }
    }

    /// Writes the sentences defining `local` (e.g. `list_3`) from `source`.
    pub fn describe(&self, prompt: &mut Prompt, local: &str, source: &str) {
        prompt.push(
            Role::Adapter,
            &format!("Let {local} be {source} with every element preprocessed as follows: {}.\n", self.scalar.clauses()),
        );
        prompt.push(Role::Adapter, &format!("If {local} has more than {LIST_LEN_MAX} elements, keep only its first {LIST_LEN_MAX}.\n"));
        if self.pow2 {
            prompt.push(
                Role::Adapter,
                &format!("If the length of {local} is not a power of 2, append zeros to {local} until its length is the next power of 2.\n"),
            );
        }
    }
}

/// Rounds half away from zero (`2.5 → 3`, `-2.5 → -3`); ints are unchanged. Saturates far outside `i64`.
pub fn round_half_away(x: Number) -> i64 {
    match x {
        Number::Int(i) => i,
        Number::Float(f) => {
            let r = if f >= 0.0 { (f + 0.5).floor() } else { (f - 0.5).ceil() };
            r as i64
        }
    }
}

/// `(rows, cols)` of the `matrix_rect` adapter, computed from the *raw* incoming list length.
pub fn matrix_rect(raw_len: usize) -> (usize, usize) {
    let d = 4; // ceil(sqrt(LIST_LEN_MAX)).
    let l = raw_len.max(1);
    let rows = (isqrt(l)).clamp(1, d);
    let cols = l.div_ceil(rows).clamp(1, d);
    (rows, cols)
}

/// The side of the `matrix_square` adapter, computed from the *raw* incoming list length.
pub fn matrix_square(raw_len: usize) -> usize {
    let l = raw_len.max(1);
    let mut d = isqrt(l);
    if d * d < l {
        d += 1;
    }
    d.clamp(1, 4)
}

/// Integer square root.
pub fn isqrt(n: usize) -> usize {
    let mut r = (n as f64).sqrt() as usize;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

/// Reshapes a list row-major into `rows × cols`, padding with zeros or truncating.
pub fn reshape(items: &[Number], rows: usize, cols: usize) -> Vec<Vec<Number>> {
    (0..rows)
        .map(|r| (0..cols).map(|c| items.get(r * cols + c).copied().unwrap_or(Number::Int(0))).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_goes_half_away_from_zero() {
        for (x, expected) in [(0.5, 1), (-0.5, -1), (2.4, 2), (-2.6, -3), (-2.5, -3), (1.5, 2)] {
            assert_eq!(round_half_away(Number::Float(x)), expected, "{x}");
        }
    }

    #[test]
    fn sign_preserving_and_absolute_modulo() {
        let seq = ScalarAdapter::ROUND_MOD;
        assert_eq!(seq.apply(Number::Int(-147)), Ok(Number::Int(-47)));
        assert_eq!(seq.apply(Number::Int(250)), Ok(Number::Int(50)));
        assert_eq!(seq.apply(Number::Float(-99.5)), Ok(Number::Int(0)));
        let plus = ScalarAdapter::round_abs_mod_add(30);
        assert_eq!(plus.apply(Number::Int(-147)), Ok(Number::Int(77)));
        assert_eq!(plus.apply(Number::Int(-100)), Ok(Number::Int(30)));
    }

    #[test]
    fn list_adapter_truncates_then_pads_to_a_power_of_two() {
        let raw: Vec<Number> = (1..=12).map(Number::Int).collect();
        assert_eq!(ListAdapter::SEQ.apply(&raw).unwrap().len(), 10);
        assert_eq!(ListAdapter::SEQ_POW2.apply(&raw).unwrap().len(), 16);
        assert_eq!(ListAdapter::SEQ_POW2.apply(&raw[..4]).unwrap().len(), 4);
        assert_eq!(ListAdapter::SEQ_POW2.apply(&raw[..1]).unwrap().len(), 1);
        assert_eq!(ListAdapter::SEQ.apply(&[]), Err(AdaptError::EmptyList));
    }

    #[test]
    fn matrix_shapes_follow_the_raw_length() {
        let rect: Vec<_> = [10, 9, 4, 2, 5, 7, 16, 144, 0, 1].iter().map(|&l| matrix_rect(l)).collect();
        assert_eq!(rect, vec![(3, 4), (3, 3), (2, 2), (1, 2), (2, 3), (2, 4), (4, 4), (4, 4), (1, 1), (1, 1)]);
        let square: Vec<_> = [10, 4, 9, 2, 1, 100].iter().map(|&l| matrix_square(l)).collect();
        assert_eq!(square, vec![4, 2, 3, 2, 1, 4]);
    }

    #[test]
    fn adapter_sentences_name_local_and_source() {
        let mut prompt = Prompt::new();
        ScalarAdapter::round_abs_mod_add(-4).describe(&mut prompt, "val_2", "task_1_out");
        assert!(prompt.text().starts_with("Let val_2 be task_1_out preprocessed as follows: round it"));
        assert!(prompt.text().ends_with("; then add -4 to it.\n"));
    }
}
