//! Values that flow along task-graph edges: numbers and flat lists, their kinds, and Python-style printing.
//!
//! The reference passes Python ints, floats and flat lists between nodes; booleans and nested lists never
//! flow. Ints here are `i64`: every value that leaves a node is filtered to `|x| < 10^10` or comes from a
//! bounded operator, and anything that would not fit is rejected by the producer (see `docs/DEVIATIONS.md`).
//! Operators that need more precision inside (interpolation, Python tracing) use big integers internally.

use std::fmt;

/// One number: an exact integer or a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

/// A value on an edge: a scalar or a flat list of numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar(Number),
    List(Vec<Number>),
}

/// The kind of a value, the only type information ports carry (`scalar` < `list` is not the sort order: see `Kind::sort_key`).
/// Serialised as its name, `scalar` or `list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Scalar,
    List,
}

impl Kind {
    /// The reference's spelling, as in `input_kind` fields.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Scalar => "scalar",
            Kind::List => "list",
        }
    }

    /// Parses `scalar` / `list`.
    pub fn parse(text: &str) -> Option<Kind> {
        match text {
            "scalar" => Some(Kind::Scalar),
            "list" => Some(Kind::List),
            _ => None,
        }
    }

    /// The reference sorts registries by the kind *string*, so `list` comes before `scalar`.
    pub fn sort_key(self) -> u8 {
        match self {
            Kind::List => 0,
            Kind::Scalar => 1,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Number {
    /// The value as a float (ints converted).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(x) => x,
        }
    }

    /// True for finite numbers (ints always are).
    pub fn is_finite(self) -> bool {
        match self {
            Number::Int(_) => true,
            Number::Float(x) => x.is_finite(),
        }
    }

    /// Absolute magnitude as a float, for the `>= 10^10` filters.
    pub fn magnitude(self) -> f64 {
        self.as_f64().abs()
    }

    /// Normalises a float that is integral (and fits) to an int, as the reference does for outputs.
    pub fn normalized(self) -> Number {
        match self {
            Number::Float(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15 => Number::Int(x as i64),
            other => other,
        }
    }

    /// Converts to JSON (ints stay exact).
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Number::Int(i) => serde_json::Value::from(i),
            Number::Float(x) => serde_json::Number::from_f64(x).map(serde_json::Value::Number).unwrap_or(serde_json::Value::Null),
        }
    }

    /// Reads a JSON number; booleans and other shapes are rejected.
    pub fn from_json(json: &serde_json::Value) -> Option<Number> {
        let number = json.as_number()?;
        if let Some(i) = number.as_i64() {
            Some(Number::Int(i))
        } else {
            number.as_f64().map(Number::Float)
        }
    }
}

impl fmt::Display for Number {
    /// Python `repr`: ints in decimal, floats in Python's shortest round-trip form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => f.write_str(&python_float_repr(*x)),
        }
    }
}

impl Value {
    /// Shorthand for an integer scalar.
    pub fn int(i: i64) -> Value {
        Value::Scalar(Number::Int(i))
    }

    /// Shorthand for a list of integers.
    pub fn ints(items: &[i64]) -> Value {
        Value::List(items.iter().map(|&i| Number::Int(i)).collect())
    }

    /// The value's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Scalar(_) => Kind::Scalar,
            Value::List(_) => Kind::List,
        }
    }

    /// Python `repr` of the value (`[1, -2, 3]`, `0.5`).
    pub fn repr(&self) -> String {
        self.to_string()
    }

    /// Converts to JSON.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Scalar(n) => n.to_json(),
            Value::List(items) => serde_json::Value::Array(items.iter().map(|n| n.to_json()).collect()),
        }
    }

    /// Reads a JSON number or flat list of numbers.
    pub fn from_json(json: &serde_json::Value) -> Result<Value, ValueError> {
        match json {
            serde_json::Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| Number::from_json(item).ok_or(ValueError::NotANumber { index: Some(i), found: short(item) }))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::List),
            other => Number::from_json(other).map(Value::Scalar).ok_or(ValueError::NotANumber { index: None, found: short(other) }),
        }
    }

    /// The integer items of a list value (floats rounded half away from zero), or the scalar as a one-element list.
    pub fn as_numbers(&self) -> &[Number] {
        match self {
            Value::Scalar(n) => std::slice::from_ref(n),
            Value::List(items) => items,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Scalar(n) => write!(f, "{n}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// A JSON value that is not a number or a flat list of numbers.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    #[error("expected a number{}, found {found}", index.map(|i| format!(" at list index {i}")).unwrap_or_default())]
    NotANumber { index: Option<usize>, found: String },
}

fn short(json: &serde_json::Value) -> String {
    let text = json.to_string();
    if text.len() > 40 {
        format!("{}…", &text[..text.char_indices().nth(40).map(|(i, _)| i).unwrap_or(text.len())])
    } else {
        text
    }
}

/// Python's `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent form outside `1e-4 ..= 1e16`.
pub fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip mantissa, which is what Python uses too.
    let sci = format!("{x:e}");
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` exponent is an integer");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exponent) {
        let point = exponent + 1; // Position of the decimal point within `digits`.
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        };
        format!("{sign}{body}")
    } else {
        let mantissa = if digits.len() == 1 { digits.clone() } else { format!("{}.{}", &digits[..1], &digits[1..]) };
        let exp_sign = if exponent < 0 { "-" } else { "+" };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
    }
}

/// Python's float `divmod(a, b)`: the floored quotient and a remainder with the divisor's sign (CPython's
/// `float_divmod`, including the signed zeros). The calculator and the interpreter share it.
pub fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut rem = a % b;
    let mut div = (a - rem) / b;
    if rem != 0.0 {
        if (b < 0.0) != (rem < 0.0) {
            rem += b;
            div -= 1.0;
        }
    } else {
        rem = 0.0f64.copysign(b);
    }
    let floor = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(a / b)
    };
    (floor, rem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python_repr() {
        for (x, expected) in [
            (0.5, "0.5"),
            (1.0, "1.0"),
            (-2.25, "-2.25"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.0 / 3.0, "0.3333333333333333"),
            (-0.0, "-0.0"),
            (100.0, "100.0"),
        ] {
            assert_eq!(python_float_repr(x), expected, "{x}");
        }
    }

    #[test]
    fn lists_print_with_comma_space() {
        assert_eq!(Value::ints(&[1, -2, 3]).repr(), "[1, -2, 3]");
        assert_eq!(Value::List(vec![]).repr(), "[]");
        assert_eq!(Value::List(vec![Number::Int(1), Number::Float(2.5)]).repr(), "[1, 2.5]");
    }

    #[test]
    fn json_round_trip_keeps_ints_exact() {
        let value = Value::ints(&[9_999_999_999, -7]);
        assert_eq!(Value::from_json(&value.to_json()), Ok(value));
        assert!(Value::from_json(&serde_json::json!([1, true])).is_err());
        assert!(Value::from_json(&serde_json::json!([[1], 2])).is_err());
    }
}
