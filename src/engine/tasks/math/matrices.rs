//! Matrix operators: Kronecker product, matrix product, matrix polynomial, squared Frobenius norm, 1-norm and
//! trace of the cube (`task_id` 2, 3, 4, 12, 13, 14).
//!
//! Shapes: Kronecker and MatrixMul take `matrix_rect` of the *raw* length, MatrixPolynomial `matrix_square` of the
//! raw length, and the three scalar ops a `k × k` matrix with `k = isqrt(len(adapted))`.

use super::{fit, flatten_finish, matrix_repr, reshape_sentence, Adapted, Input, MathError, OpSpec, ParamSpec, Params};
use crate::engine::adapter::{isqrt, ListAdapter, ScalarAdapter};
use crate::engine::value::{Kind, Number, Value};

type Matrix = Vec<Vec<i128>>;

/// Row-major reshape of integers, zero-padded or truncated.
fn reshape(xs: &[i64], rows: usize, cols: usize) -> Matrix {
    (0..rows).map(|r| (0..cols).map(|c| xs.get(r * cols + c).copied().unwrap_or(0) as i128).collect()).collect()
}

fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    let inner = b.len();
    let cols = b.first().map_or(0, Vec::len);
    a.iter().map(|row| (0..cols).map(|j| (0..inner).map(|k| row[k] * b[k][j]).sum()).collect()).collect()
}

fn flat(m: &Matrix) -> Result<Value, MathError> {
    let items: Result<Vec<i64>, _> = m.iter().flatten().map(|&x| fit(x, "a matrix entry")).collect();
    Ok(Value::ints(&items?))
}

fn m2_checked(params: &Params, rows: usize, cols: usize) -> Result<Matrix, MathError> {
    let m2 = params.m2()?;
    if m2.len() != rows || m2.iter().any(|r| r.len() != cols) {
        return Err(MathError::ParamShape { param: "M2", detail: format!("expected a {rows}x{cols} matrix") });
    }
    Ok(m2.iter().map(|r| r.iter().map(|&x| x as i128).collect()).collect())
}

fn kronecker(a: &Adapted, params: &Params) -> Result<Value, MathError> {
    let (r, c) = (a.rows, a.cols);
    let m1 = reshape(&a.ints()?, r, c);
    let m2 = m2_checked(params, r, c)?;
    let mut out = vec![vec![0i128; c * c]; r * r];
    for i1 in 0..r {
        for i2 in 0..r {
            for j1 in 0..c {
                for j2 in 0..c {
                    out[i1 * r + i2][j1 * c + j2] = m1[i1][j1] * m2[i2][j2];
                }
            }
        }
    }
    flat(&out)
}

pub(crate) const KRONECKER: OpSpec = OpSpec {
    name: "KroneckerProductTask",
    input: Input::Rect(ListAdapter::SEQ),
    output: Kind::List,
    params: ParamSpec::M2Same,
    summary: "Kronecker product with a random matrix of the same shape, flattened",
    compute: kronecker,
    describe: |b, adapted, params| {
        let (r, c) = (adapted.rows, adapted.cols);
        let (m1, m2, k) = (b.sym("M1"), b.sym("M2"), b.sym("K"));
        reshape_sentence(b, &m1, r, c);
        b.define(&m2, &matrix_repr(params.m2().unwrap_or_default()));
        b.text(&format!(
            "Compute the Kronecker product {k} of {m1} and {m2}: the {}x{} matrix made of {r}x{c} blocks, where the block \
             in block row i1 and block column j1 is {m1}[i1][j1] * {m2}; equivalently, with indices from 0, the entry in \
             row i1*{r} + i2 and column j1*{c} + j2 is {m1}[i1][j1] * {m2}[i2][j2].\n",
            r * r,
            c * c
        ));
        flatten_finish(b, &k);
    },
};

fn matrix_mul(a: &Adapted, params: &Params) -> Result<Value, MathError> {
    let (r, c) = (a.rows, a.cols);
    let m2 = m2_checked(params, c, r)?;
    if a.items.iter().all(|x| matches!(x, Number::Int(_))) {
        let m1 = reshape(&a.ints()?, r, c);
        return flat(&mul(&m1, &m2));
    }
    // Floats survive this adapter (it does not round): compute in floating point, as the reference does.
    let m1: Vec<Vec<f64>> = (0..r).map(|i| (0..c).map(|j| a.items.get(i * c + j).map_or(0.0, |x| x.as_f64())).collect()).collect();
    let out: Vec<Number> =
        (0..r).flat_map(|i| (0..r).map(|j| (0..c).map(|k| m1[i][k] * m2[k][j] as f64).sum::<f64>()).collect::<Vec<_>>()).map(|x| Number::Float(x).normalized()).collect();
    Ok(Value::List(out))
}

pub(crate) const MATRIX_MUL: OpSpec = OpSpec {
    name: "MatrixMulTask",
    input: Input::Rect(ListAdapter { scalar: ScalarAdapter { to_int: false, modulo: true, abs: false, add: 0 }, pow2: false }),
    output: Kind::List,
    params: ParamSpec::M2Transposed,
    summary: "matrix product with a random matrix of the transposed shape, flattened",
    compute: matrix_mul,
    describe: |b, adapted, params| {
        let (r, c) = (adapted.rows, adapted.cols);
        let (m1, m2, p) = (b.sym("M1"), b.sym("M2"), b.sym("P"));
        reshape_sentence(b, &m1, r, c);
        b.define(&m2, &matrix_repr(params.m2().unwrap_or_default()));
        b.text(&format!("Compute the matrix product {p} = {m1} * {m2} (a {r}x{r} matrix; ordinary matrix multiplication).\n"));
        flatten_finish(b, &p);
    },
};

pub(crate) const MATRIX_POLYNOMIAL: OpSpec = OpSpec {
    name: "MatrixPolynomialTask",
    input: Input::Square(ListAdapter::SEQ),
    output: Kind::List,
    params: ParamSpec::None,
    summary: "M^3 + M^2 + M for the square reshape M, flattened",
    compute: |a, _| {
        let m = reshape(&a.ints()?, a.rows, a.cols);
        let m2 = mul(&m, &m);
        let m3 = mul(&m2, &m);
        let sum: Matrix = (0..m.len()).map(|i| (0..m.len()).map(|j| m3[i][j] + m2[i][j] + m[i][j]).collect()).collect();
        flat(&sum)
    },
    describe: |b, adapted, _| {
        let (m, q) = (b.sym("M"), b.sym("Q"));
        reshape_sentence(b, &m, adapted.rows, adapted.cols);
        b.text(&format!(
            "Compute {q} = {m}**3 + {m}**2 + {m}, where {m}**k is the k-th matrix power (repeated matrix multiplication, \
             not element-wise powers).\n"
        ));
        flatten_finish(b, &q);
    },
};

/// The `k × k` matrix of the first `k²` elements, `k = isqrt(len)`.
fn square_prefix(a: &Adapted) -> Result<Matrix, MathError> {
    let xs = a.ints()?;
    let k = isqrt(xs.len());
    Ok(reshape(&xs, k, k))
}

fn square_side(a: &Adapted) -> usize {
    isqrt(a.items.len())
}

fn scalar(x: i128, what: &'static str) -> Result<Value, MathError> {
    fit(x, what).map(Value::int)
}

pub(crate) const FROBENIUS_SQ: OpSpec = OpSpec {
    name: "MatrixFrobeniusSqTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::Scalar,
    params: ParamSpec::None,
    summary: "squared Frobenius norm of the isqrt(len) x isqrt(len) reshape",
    compute: |a, _| scalar(square_prefix(a)?.iter().flatten().map(|x| x * x).sum(), "the Frobenius norm"),
    describe: |b, adapted, _| {
        let (k, m) = (square_side(adapted), b.sym("M"));
        reshape_sentence(b, &m, k, k);
        b.text(&format!("Compute the sum of the squares of all entries of {m} (its squared Frobenius norm).\n"));
        b.finish("Call this sum ", ".");
    },
};

pub(crate) const NORM_1: OpSpec = OpSpec {
    name: "MatrixNorm1Task",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::Scalar,
    params: ParamSpec::None,
    summary: "maximum absolute column sum of the isqrt(len) x isqrt(len) reshape",
    compute: |a, _| {
        let m = square_prefix(a)?;
        let best = (0..m.len()).map(|j| m.iter().map(|row| row[j].abs()).sum::<i128>()).max().unwrap_or(0);
        scalar(best, "the 1-norm")
    },
    describe: |b, adapted, _| {
        let (k, m) = (square_side(adapted), b.sym("M"));
        reshape_sentence(b, &m, k, k);
        b.text(&format!(
            "For each column of {m}, add up the absolute values of its entries; take the largest of these column sums \
             (the matrix 1-norm of {m}).\n"
        ));
        b.finish("Call the result ", ".");
    },
};

pub(crate) const TRACE_CUBE: OpSpec = OpSpec {
    name: "MatrixTraceCubeTask",
    input: Input::Seq(ListAdapter::SEQ),
    output: Kind::Scalar,
    params: ParamSpec::None,
    summary: "trace of M^3 for the isqrt(len) x isqrt(len) reshape M",
    compute: |a, _| {
        let m = square_prefix(a)?;
        let cube = mul(&mul(&m, &m), &m);
        scalar((0..cube.len()).map(|i| cube[i][i]).sum(), "the trace")
    },
    describe: |b, adapted, _| {
        let (k, m) = (square_side(adapted), b.sym("M"));
        reshape_sentence(b, &m, k, k);
        b.text(&format!("Compute the trace (the sum of the diagonal entries) of the matrix product {m} * {m} * {m}.\n"));
        b.finish("Call the trace ", ".");
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: &OpSpec, raw: &[i64], params: Params) -> Result<Value, MathError> {
        (op.compute)(&op.input.adapt(&Value::ints(raw)).unwrap(), &params)
    }

    #[test]
    fn kronecker_places_scaled_copies_in_blocks() {
        // Raw length 2 → 1x2. M1 = [[1, 2]], M2 = [[3, -1]]: kron = [[3, -1, 6, -2]].
        assert_eq!(run(&KRONECKER, &[1, 2], Params::M2(vec![vec![3, -1]])), Ok(Value::ints(&[3, -1, 6, -2])));
        // Raw length 4 → 2x2. M1 = [[1, 2], [3, 4]], M2 = [[0, 1], [1, 0]]:
        // rows: [0,1,0,2], [1,0,2,0], [0,3,0,4], [3,0,4,0].
        let m2 = Params::M2(vec![vec![0, 1], vec![1, 0]]);
        assert_eq!(run(&KRONECKER, &[1, 2, 3, 4], m2), Ok(Value::ints(&[0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0])));
        // A 10-element raw list is a 3x4 shape → 9x16 = 144 outputs; a wrong M2 shape is an error.
        let m2 = Params::M2(vec![vec![1; 4]; 3]);
        assert_eq!(run(&KRONECKER, &[1; 10], m2).map(|v| v.as_numbers().len()), Ok(144));
        assert!(matches!(run(&KRONECKER, &[1; 10], Params::M2(vec![vec![1; 3]; 4])), Err(MathError::ParamShape { .. })));
        // A 144-element raw list (a previous Kronecker output) gives a 4x4 shape of 10 values + 6 zeros → 256 outputs;
        // M1[0][0] = 1 starts the list and the last block (M1[3][3] = 0, a padding zero) is all zeros.
        let raw: Vec<i64> = (1..=144).collect();
        let out = run(&KRONECKER, &raw, Params::M2(vec![vec![1; 4]; 4])).unwrap();
        assert_eq!(out.as_numbers().len(), 256);
        assert_eq!(out.as_numbers()[0], Number::Int(1));
        assert_eq!(out.as_numbers()[255], Number::Int(0));
    }

    #[test]
    fn matrix_mul_prompt_omits_the_rounding_clause() {
        let mut prompt = crate::engine::prompt::Prompt::new();
        let Input::Rect(adapter) = MATRIX_MUL.input else { panic!("MatrixMul reshapes a rectangle") };
        adapter.describe(&mut prompt, "list_1", "task_1_input");
        assert!(!prompt.text().contains("round"), "{}", prompt.text());
        assert!(prompt.text().contains("keeping its original sign"), "{}", prompt.text());
    }

    #[test]
    fn matrix_mul_uses_the_transposed_shape_and_keeps_floats() {
        // Raw length 5 → 2x3: M1 = [[1, 2, 3], [4, 5, 0]]; M2 (3x2) = [[1, 0], [0, 1], [1, 1]] → [[4, 5], [4, 5]].
        let m2 = Params::M2(vec![vec![1, 0], vec![0, 1], vec![1, 1]]);
        assert_eq!(run(&MATRIX_MUL, &[1, 2, 3, 4, 5], m2.clone()), Ok(Value::ints(&[4, 5, 4, 5])));
        // No rounding: 1.5 stays 1.5 (and -101.5 becomes -1.5), so products are floats; integral ones become ints.
        // M1 = [[1.5, 2, 3], [4, -1.5, 0]] → [[1.5 + 3, 2 + 3], [4, -1.5]].
        let raw = Value::List(vec![Number::Float(1.5), Number::Int(2), Number::Int(3), Number::Int(4), Number::Float(-101.5)]);
        let adapted = MATRIX_MUL.input.adapt(&raw).unwrap();
        assert_eq!(adapted.items[4], Number::Float(-1.5));
        let out = (MATRIX_MUL.compute)(&adapted, &m2).unwrap();
        assert_eq!(out, Value::List(vec![Number::Float(4.5), Number::Int(5), Number::Int(4), Number::Float(-1.5)]));
    }

    #[test]
    fn matrix_polynomial_by_hand() {
        // Raw length 4 → 2x2, M = [[1, 1], [0, 1]]: M² = [[1, 2], [0, 1]], M³ = [[1, 3], [0, 1]] → [[3, 6], [0, 3]].
        assert_eq!(run(&MATRIX_POLYNOMIAL, &[1, 1, 0, 1], Params::None), Ok(Value::ints(&[3, 6, 0, 3])));
        // Raw length 2 → 2x2 too (padded): M = [[2, 0], [0, 0]] → 8 + 4 + 2 = 14.
        assert_eq!(run(&MATRIX_POLYNOMIAL, &[2, 0], Params::None), Ok(Value::ints(&[14, 0, 0, 0])));
    }

    #[test]
    fn square_prefix_ops_drop_elements_beyond_k_squared() {
        // 10 elements → 3x3 of the first 9; the 10th (99) is ignored.
        let raw = [1, -2, 3, 0, 4, 0, -5, 0, 6, 99];
        // Squares: 1 + 4 + 9 + 16 + 25 + 36 = 91.
        assert_eq!(run(&FROBENIUS_SQ, &raw, Params::None), Ok(Value::int(91)));
        // Columns |1|+0+|-5| = 6, |-2|+4+0 = 6, 3+0+6 = 9 → 9.
        assert_eq!(run(&NORM_1, &raw, Params::None), Ok(Value::int(9)));
        // Diagonal matrix diag(2, 3) (raw length 4): trace of cube 8 + 27 = 35.
        assert_eq!(run(&TRACE_CUBE, &[2, 0, 0, 3], Params::None), Ok(Value::int(35)));
        // Permutation-like [[0, 1], [1, 0]]: cube is itself, trace 0; 3 elements → 1x1 [[4]] → 64.
        assert_eq!(run(&TRACE_CUBE, &[0, 1, 1, 0], Params::None), Ok(Value::int(0)));
        assert_eq!(run(&TRACE_CUBE, &[4, 7, 7], Params::None), Ok(Value::int(64)));
    }
}
