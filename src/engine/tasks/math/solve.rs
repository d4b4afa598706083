//! `solve`: evaluate one math operator on a *raw* input with given static parameters, exactly as inside a graph
//! (the operator's adapter runs first). Parameters use the reference's names: `seq2`, `M2`, `x0`.

use super::{Adapted, MathError, OpSpec, ParamSpec, Params, M2_RANGE, OPS, SEQ2_RANGE, X0_RANGE};
use crate::engine::adapter::AdaptError;
use crate::engine::value::{Kind, Value};

/// Why `solve` could not evaluate an operator.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolveError {
    #[error("unknown math task `{name}`{}", suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
    UnknownTask { name: String, suggestion: Option<String> },
    #[error("{task}: the input cannot be preprocessed: {source}")]
    Input { task: &'static str, source: AdaptError },
    #[error("{task}: the parameters must be a JSON object, found {found}")]
    ParamsNotObject { task: &'static str, found: String },
    #[error("{task}: missing parameter `{param}`")]
    MissingParam { task: &'static str, param: &'static str },
    #[error("{task}: unexpected parameter `{param}` (expected {expected})")]
    UnexpectedParam { task: &'static str, param: String, expected: String },
    #[error("{task}: parameter `{param}` {problem}")]
    BadParam { task: &'static str, param: &'static str, problem: String },
    #[error("{task}: parameter `{param}` has {value} at {at}, outside [{lo}, {hi}]")]
    OutOfRange { task: &'static str, param: &'static str, at: String, value: i64, lo: i64, hi: i64 },
    #[error("{task}: {source}")]
    Compute { task: &'static str, source: MathError },
}

/// The signature of an operator, for listings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSignature {
    /// The reference's `task_name`.
    pub name: &'static str,
    /// The reference's `task_id`.
    pub task_id: u32,
    /// The input kind the operator takes.
    pub input: Kind,
    /// The output kind it produces.
    pub output: Kind,
    /// The static parameter's name (`seq2`, `M2`, `x0`), if any.
    pub param: Option<&'static str>,
}

/// Every operator's signature, in `task_id` order.
pub fn signatures() -> Vec<OpSignature> {
    OPS.iter()
        .enumerate()
        .map(|(i, op)| OpSignature { name: op.name, task_id: i as u32, input: op.input.kind(), output: op.output, param: op.params.name() })
        .collect()
}

/// Evaluates the operator `task_name` (`ConvolutionTask` or `math.ConvolutionTask`) on a raw input.
pub fn solve(task_name: &str, raw_input: &Value, params: &serde_json::Value) -> Result<Value, SolveError> {
    let op = find(task_name)?;
    let task = op.name;
    let adapted = op.input.adapt(raw_input).map_err(|source| SolveError::Input { task, source })?;
    let params = parse_params(op, &adapted, params)?;
    (op.compute)(&adapted, &params).map_err(|source| SolveError::Compute { task, source })
}

fn find(task_name: &str) -> Result<&'static OpSpec, SolveError> {
    let bare = task_name.trim().strip_prefix("math.").unwrap_or(task_name.trim());
    if let Some(op) = OPS.iter().find(|op| op.name == bare) {
        return Ok(op);
    }
    let folded = bare.to_ascii_lowercase();
    let suggestion = OPS
        .iter()
        .map(|op| (edit_distance(&folded, &op.name.to_ascii_lowercase()), op.name))
        .min()
        .filter(|&(d, name)| d <= name.len() / 2)
        .map(|(_, name)| name.to_string());
    Err(SolveError::UnknownTask { name: task_name.to_string(), suggestion })
}

/// Levenshtein distance (names are short ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j])).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn parse_params(op: &OpSpec, adapted: &Adapted, json: &serde_json::Value) -> Result<Params, SolveError> {
    let task = op.name;
    let empty = serde_json::Map::new();
    let object = match json {
        serde_json::Value::Null => &empty,
        serde_json::Value::Object(map) => map,
        other => return Err(SolveError::ParamsNotObject { task, found: other.to_string() }),
    };
    let expected = op.params.name();
    if let Some(extra) = object.keys().find(|k| Some(k.as_str()) != expected) {
        let expected = expected.map(|e| format!("`{e}`")).unwrap_or_else(|| "no parameters".into());
        return Err(SolveError::UnexpectedParam { task, param: extra.clone(), expected });
    }
    let Some(name) = expected else { return Ok(Params::None) };
    let value = object.get(name).ok_or(SolveError::MissingParam { task, param: name })?;
    let bad = |problem: String| SolveError::BadParam { task, param: name, problem };
    let int_in = |json: &serde_json::Value, at: String, (lo, hi): (i64, i64)| -> Result<i64, SolveError> {
        let v = json.as_i64().ok_or_else(|| bad(format!("must hold integers, found {json} at {at}")))?;
        if v < lo || v > hi {
            return Err(SolveError::OutOfRange { task, param: name, at, value: v, lo, hi });
        }
        Ok(v)
    };
    match op.params {
        ParamSpec::None => Ok(Params::None),
        ParamSpec::Seq2 => {
            let items = value.as_array().ok_or_else(|| bad(format!("must be a list of integers, found {value}")))?;
            let want = adapted.items.len();
            if items.len() != want {
                return Err(bad(format!("must have {want} elements (the preprocessed input's length), found {}", items.len())));
            }
            let seq2 = items.iter().enumerate().map(|(i, x)| int_in(x, format!("index {i}"), SEQ2_RANGE)).collect::<Result<_, _>>()?;
            Ok(Params::Seq2(seq2))
        }
        ParamSpec::M2Same | ParamSpec::M2Transposed => {
            let (rows, cols) = op.params.m2_shape(adapted);
            let shape_error = || bad(format!("must be a {rows}x{cols} list of rows for this input"));
            let list = value.as_array().ok_or_else(shape_error)?;
            if list.len() != rows {
                return Err(shape_error());
            }
            let mut m2 = Vec::with_capacity(rows);
            for (r, row) in list.iter().enumerate() {
                let row = row.as_array().filter(|row| row.len() == cols).ok_or_else(shape_error)?;
                m2.push(row.iter().enumerate().map(|(c, x)| int_in(x, format!("row {r}, column {c}"), M2_RANGE)).collect::<Result<_, _>>()?);
            }
            Ok(Params::M2(m2))
        }
        ParamSpec::X0 => Ok(Params::X0(int_in(value, "the top level".into(), X0_RANGE)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn solve_adapts_the_raw_input_first() {
        // 147 → 47, -250.5 → -251 → -51: convolution with [1, 1] → [47, -4, -51].
        let raw = Value::from_json(&json!([147, -250.5])).unwrap();
        assert_eq!(solve("ConvolutionTask", &raw, &json!({"seq2": [1, 1]})), Ok(Value::ints(&[47, -4, -51])));
        // The `math.` key works too; parameter-free ops accept `{}` and `null`.
        assert_eq!(solve("math.DivisorSumTask", &Value::int(-105), &json!({})), Ok(Value::int(12)));
        assert_eq!(solve("DivisorSumTask", &Value::int(5), &serde_json::Value::Null), Ok(Value::int(12)));
    }

    #[test]
    fn unknown_names_get_a_suggestion() {
        let err = solve("ConvolutionTsk", &Value::int(1), &json!({})).unwrap_err();
        assert_eq!(err, SolveError::UnknownTask { name: "ConvolutionTsk".into(), suggestion: Some("ConvolutionTask".into()) });
        assert!(err.to_string().contains("did you mean `ConvolutionTask`"));
        let err = solve("zzz", &Value::int(1), &json!({})).unwrap_err();
        assert_eq!(err, SolveError::UnknownTask { name: "zzz".into(), suggestion: None });
    }

    #[test]
    fn parameters_are_checked_for_presence_shape_and_range() {
        let list = Value::ints(&[1, 2, 3]);
        let check = |task: &str, input: &Value, params: serde_json::Value| solve(task, input, &params).unwrap_err();
        assert!(matches!(check("ConvolutionTask", &list, json!({})), SolveError::MissingParam { param: "seq2", .. }));
        assert!(matches!(check("ConvolutionTask", &list, json!({"seq2": [1, 2]})), SolveError::BadParam { param: "seq2", .. }));
        assert!(matches!(check("ConvolutionTask", &list, json!({"seq2": [1, 2, 6]})), SolveError::OutOfRange { value: 6, .. }));
        assert!(matches!(check("ConvolutionTask", &list, json!({"seq2": [1, 2, 0.5]})), SolveError::BadParam { .. }));
        assert!(matches!(check("ConvolutionTask", &list, json!({"seq2": [1, 2, 3], "M2": []})), SolveError::UnexpectedParam { .. }));
        assert!(matches!(check("FWHTTask", &list, json!({"x0": 1})), SolveError::UnexpectedParam { .. }));
        assert!(matches!(check("FWHTTask", &list, json!([1])), SolveError::ParamsNotObject { .. }));
        // Raw length 3 → rows = isqrt(3) = 1, cols = ceil(3 / 1) = 3: Kronecker's M2 must be 1x3.
        assert!(matches!(check("KroneckerProductTask", &list, json!({"M2": [[1], [2], [3]]})), SolveError::BadParam { param: "M2", .. }));
        assert_eq!(solve("KroneckerProductTask", &list, &json!({"M2": [[1, 0, -1]]})).map(|v| v.as_numbers().len()), Ok(9));
        // MatrixMul wants the transposed shape: 3x1.
        assert_eq!(solve("MatrixMulTask", &list, &json!({"M2": [[1], [1], [1]]})), Ok(Value::ints(&[6])));
        assert!(matches!(check("MatrixMulTask", &list, json!({"M2": [[1, 0, 101]]})), SolveError::BadParam { .. }));
        assert!(matches!(check("MatrixMulTask", &list, json!({"M2": [[1], [0], [101]]})), SolveError::OutOfRange { value: 101, .. }));
        assert!(matches!(check("InterpolateEvalTask", &list, json!({"x0": 100})), SolveError::OutOfRange { value: 100, .. }));
        assert!(matches!(check("InterpolateEvalTask", &Value::int(3), json!({"x0": 1})), SolveError::Input { .. }));
        assert!(matches!(check("FWHTTask", &Value::ints(&[]), json!({})), SolveError::Input { .. }));
    }

    #[test]
    fn signatures_list_every_operator_with_its_parameter() {
        let sigs = signatures();
        assert_eq!(sigs.len(), 40);
        assert_eq!(sigs[0], OpSignature { name: "ConvolutionTask", task_id: 0, input: Kind::List, output: Kind::List, param: Some("seq2") });
        assert_eq!(sigs[11].param, Some("x0"));
        assert_eq!(sigs[39].name, "UnitaryDivisorSumTask");
    }
}
