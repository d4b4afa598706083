//! The math task family: the reference's 40 operators, each a typed node with its adapter, static parameters,
//! exact solver and prompt, plus `solve` to evaluate one operator on a raw input outside a graph.
//!
//! Every operator is described once by an [`OpSpec`] (name, adapter, parameter kind, solver, prompt body) in the
//! file of its topic; [`MathTask`] implements [`Task`] generically over a spec. The list [`OPS`] is in the
//! reference's `task_id` order: sorted by (input kind string, output kind string, class name).

mod lists;
mod matrices;
mod number_theory;
mod polynomials;
mod sequences;
mod solve;
mod transforms;

use std::rc::Rc;

pub use solve::{signatures, solve, OpSignature, SolveError};

use super::{Family, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
use crate::engine::adapter::{matrix_rect, matrix_square, AdaptError, ListAdapter, ScalarAdapter};
use crate::engine::prompt::{Prompt, Role};
use crate::engine::rng::InstanceRng;
use crate::engine::value::{Kind, Number, Value};

/// Every operator, in reference `task_id` order (the index is the `task_id`).
pub(crate) static OPS: [&OpSpec; 40] = [
    &transforms::CONVOLUTION,
    &transforms::FWHT,
    &matrices::KRONECKER,
    &matrices::MATRIX_MUL,
    &matrices::MATRIX_POLYNOMIAL,
    &transforms::NTT,
    &polynomials::POLY_QUOTIENT,
    &polynomials::POLY_REMAINDER,
    &lists::SORT_BY_DIVISOR_COUNT,
    &transforms::SUBSET_ZETA,
    &lists::CONVEX_HULL_AREA,
    &polynomials::INTERPOLATE_EVAL,
    &matrices::FROBENIUS_SQ,
    &matrices::NORM_1,
    &matrices::TRACE_CUBE,
    &lists::PAIRWISE_GCD_SUM,
    &lists::PERMUTATION_INVERSIONS,
    &lists::PERMUTATION_ORDER,
    &polynomials::RESULTANT_FIXED,
    &polynomials::SQUARE_FREE_EVAL,
    &sequences::CENTRAL_BINOMIAL_VALUATIONS,
    &sequences::GRAY_CODES,
    &sequences::MODULAR_MULTIPLICATION,
    &sequences::POLYGON_DIAGONALS,
    &sequences::PRIMES_BETWEEN_SQUARES,
    &sequences::QUADRATIC_RESIDUES,
    &sequences::SMALLEST_FACTOR_QUADRATIC,
    &sequences::TOTIENT_PRODUCTS,
    &sequences::TOTIENT_SHIFTS,
    &sequences::WEIGHTED_DIVISOR_PREFIX,
    &number_theory::DIVISOR_SIGMA_SQUARE,
    &number_theory::DIVISOR_SUM,
    &number_theory::LEGENDRE_RESIDUE_WEIGHT,
    &number_theory::MULTIPLICATIVE_ORDER,
    &number_theory::PRIME_OMEGA_SUM,
    &number_theory::PRIMITIVE_ROOT_COUNT,
    &number_theory::SCALED_STIRLING,
    &number_theory::SUM_DIVISOR_COUNTS,
    &number_theory::SUMMATORY_TOTIENT,
    &number_theory::UNITARY_DIVISOR_SUM,
];

/// Every task of the family, in reference `task_id` order.
pub fn all() -> Vec<Rc<dyn Task>> {
    OPS.iter()
        .enumerate()
        .map(|(task_id, op)| Rc::new(MathTask::new(op, task_id as u32)) as Rc<dyn Task>)
        .collect()
}

/// How an operator maps its raw input onto its domain (the reference's input adapters).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Input {
    /// A list, named `list_N`.
    Seq(ListAdapter),
    /// A list plus an `r × c` shape from the raw length (`matrix_rect`).
    Rect(ListAdapter),
    /// A list plus a `d × d` shape from the raw length (`matrix_square`).
    Square(ListAdapter),
    /// A list of point ordinates, named `points_N`.
    Points(ListAdapter),
    /// A scalar, named `val_N`.
    Scalar(ScalarAdapter),
}

impl Input {
    pub(crate) fn kind(self) -> Kind {
        match self {
            Input::Scalar(_) => Kind::Scalar,
            _ => Kind::List,
        }
    }

    fn local_name(self, number: usize) -> String {
        match self {
            Input::Scalar(_) => format!("val_{number}"),
            Input::Points(_) => format!("points_{number}"),
            _ => format!("list_{number}"),
        }
    }

    /// Applies the adapter to a raw value.
    pub(crate) fn adapt(self, raw: &Value) -> Result<Adapted, AdaptError> {
        let raw_len = raw.as_numbers().len();
        let (items, (rows, cols)) = match self {
            Input::Scalar(adapter) => (vec![adapter.apply_value(raw)?], (1, 1)),
            Input::Seq(adapter) | Input::Points(adapter) => (adapter.apply_value(raw)?, (1, 1)),
            Input::Rect(adapter) => (adapter.apply_value(raw)?, matrix_rect(raw_len)),
            Input::Square(adapter) => (adapter.apply_value(raw)?, (matrix_square(raw_len), matrix_square(raw_len))),
        };
        Ok(Adapted { items, rows, cols })
    }

    fn describe(self, prompt: &mut Prompt, local: &str, source: &str) {
        match self {
            Input::Scalar(adapter) => adapter.describe(prompt, local, source),
            Input::Seq(a) | Input::Rect(a) | Input::Square(a) | Input::Points(a) => a.describe(prompt, local, source),
        }
    }
}

/// An adapted input: the items (one item for scalar ops) and, for matrix ops, the shape from the raw length.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Adapted {
    /// The adapted elements (one for scalar ops).
    pub items: Vec<Number>,
    /// Matrix rows from the raw length (1 for non-matrix ops).
    pub rows: usize,
    /// Matrix columns from the raw length (1 for non-matrix ops).
    pub cols: usize,
}

impl Adapted {
    /// The items as integers (every adapter but MatrixMul's rounds, so this only fails on unrounded floats).
    pub fn ints(&self) -> Result<Vec<i64>, MathError> {
        self.items
            .iter()
            .map(|x| match x {
                Number::Int(i) => Ok(*i),
                Number::Float(f) => Err(MathError::NotInteger(*f)),
            })
            .collect()
    }

    /// The adapted scalar of a scalar op.
    pub fn scalar(&self) -> Result<i64, MathError> {
        self.ints()?.first().copied().ok_or(MathError::Empty)
    }
}

/// The static parameters an operator draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamSpec {
    None,
    /// `seq2`: `len(adapted)` ints in `[-5, 5]`.
    Seq2,
    /// `M2`: an `r × c` matrix (same shape as M1) of ints in `[-100, 100]`.
    M2Same,
    /// `M2`: a `c × r` matrix of ints in `[-100, 100]`.
    M2Transposed,
    /// `x0`: an int in `[-100, 99]`.
    X0,
}

/// Bounds of the drawn parameters.
pub(crate) const SEQ2_RANGE: (i64, i64) = (-5, 5);
pub(crate) const M2_RANGE: (i64, i64) = (-100, 100);
pub(crate) const X0_RANGE: (i64, i64) = (-100, 99);

impl ParamSpec {
    /// The reference's parameter name, if any.
    pub(crate) fn name(self) -> Option<&'static str> {
        match self {
            ParamSpec::None => None,
            ParamSpec::Seq2 => Some("seq2"),
            ParamSpec::M2Same | ParamSpec::M2Transposed => Some("M2"),
            ParamSpec::X0 => Some("x0"),
        }
    }

    /// The `(rows, cols)` the parameter must have for this input, for matrix parameters.
    pub(crate) fn m2_shape(self, adapted: &Adapted) -> (usize, usize) {
        match self {
            ParamSpec::M2Transposed => (adapted.cols, adapted.rows),
            _ => (adapted.rows, adapted.cols),
        }
    }

    /// Draws the parameters after adapting, in the reference's order (matrices row-major).
    fn draw(self, adapted: &Adapted, rng: &mut InstanceRng) -> Params {
        match self {
            ParamSpec::None => Params::None,
            ParamSpec::Seq2 => Params::Seq2((0..adapted.items.len()).map(|_| rng.int_in(SEQ2_RANGE.0, SEQ2_RANGE.1)).collect()),
            ParamSpec::M2Same | ParamSpec::M2Transposed => {
                let (rows, cols) = self.m2_shape(adapted);
                Params::M2((0..rows).map(|_| (0..cols).map(|_| rng.int_in(M2_RANGE.0, M2_RANGE.1)).collect()).collect())
            }
            ParamSpec::X0 => Params::X0(rng.int_in(X0_RANGE.0, X0_RANGE.1)),
        }
    }
}

/// Drawn (or user-supplied) static parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Params {
    None,
    Seq2(Vec<i64>),
    M2(Vec<Vec<i64>>),
    X0(i64),
}

impl Params {
    pub(crate) fn seq2(&self) -> Result<&[i64], MathError> {
        match self {
            Params::Seq2(s) => Ok(s),
            _ => Err(MathError::MissingParam("seq2")),
        }
    }

    pub(crate) fn m2(&self) -> Result<&[Vec<i64>], MathError> {
        match self {
            Params::M2(m) => Ok(m),
            _ => Err(MathError::MissingParam("M2")),
        }
    }

    pub(crate) fn x0(&self) -> Result<i64, MathError> {
        match self {
            Params::X0(x) => Ok(*x),
            _ => Err(MathError::MissingParam("x0")),
        }
    }
}

/// Why an operator could not compute its output.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MathError {
    #[error("{0} does not fit a 64-bit integer")]
    Overflow(&'static str),
    #[error("expected an integer after preprocessing, found {0}")]
    NotInteger(f64),
    #[error("the adapted input is empty")]
    Empty,
    #[error("the static parameter `{0}` is missing")]
    MissingParam(&'static str),
    #[error("the static parameter `{param}` has the wrong shape: {detail}")]
    ParamShape { param: &'static str, detail: String },
}

/// Converts an exact intermediate to the i64 an output value carries.
pub(crate) fn fit(x: i128, what: &'static str) -> Result<i64, MathError> {
    i64::try_from(x).map_err(|_| MathError::Overflow(what))
}

/// A solver: adapted input and parameters to the output value.
pub(crate) type Compute = fn(&Adapted, &Params) -> Result<Value, MathError>;
/// A prompt body writer (everything after the adapter sentences).
pub(crate) type Describe = fn(&mut Body<'_>, &Adapted, &Params);

/// One operator, described once.
pub(crate) struct OpSpec {
    /// The reference's class name (`task_name`).
    pub name: &'static str,
    /// The adapter, which also fixes the input kind and the local name.
    pub input: Input,
    /// The output kind.
    pub output: Kind,
    /// The static parameters drawn after adapting.
    pub params: ParamSpec,
    /// One line for the registry.
    pub summary: &'static str,
    /// The exact solver.
    pub compute: Compute,
    /// The prompt body after the adapter sentences.
    pub describe: Describe,
}

/// Writes an operator's prompt body with the right roles: computation text, printed values, and the final
/// sentence naming `task_N_out`.
pub(crate) struct Body<'a> {
    prompt: &'a mut Prompt,
    /// The task number `N`.
    pub n: usize,
    /// The adapted input's local name (`list_N`, `val_N`, `points_N`).
    pub x: String,
}

impl Body<'_> {
    /// Appends computation text.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.prompt.push(Role::Computation, text);
        self
    }

    /// Appends a printed value (a static parameter).
    pub fn value(&mut self, text: &str) -> &mut Self {
        self.prompt.push(Role::InputValue, text);
        self
    }

    /// Writes `Let <name> = <value>.` with the value marked as an input value.
    pub fn define(&mut self, name: &str, value: &str) -> &mut Self {
        self.text(&format!("Let {name} = ")).value(value).text(".\n")
    }

    /// The final sentence: `before` + `task_N_out` + `after` and a newline.
    pub fn finish(&mut self, before: &str, after: &str) {
        let out = format!("task_{}_out", self.n);
        self.prompt.push(Role::Computation, before);
        self.prompt.push(Role::OutputName, &out);
        self.prompt.push(Role::Computation, &format!("{after}\n"));
    }

    /// The op-local symbol `<base>_N` (every op-local name is suffixed: see docs/DEVIATIONS.md).
    pub fn sym(&self, base: &str) -> String {
        format!("{base}_{}", self.n)
    }
}

/// Python/sympy `Matrix([[…], […]])` repr of an integer matrix.
pub(crate) fn matrix_repr(rows: &[Vec<i64>]) -> String {
    let body: Vec<String> = rows.iter().map(|r| Value::ints(r).repr()).collect();
    format!("Matrix([{}])", body.join(", "))
}

/// The shared "arrange the list into a matrix" sentence.
pub(crate) fn reshape_sentence(b: &mut Body<'_>, matrix: &str, rows: usize, cols: usize) {
    let x = b.x.clone();
    let cells = rows * cols;
    b.text(&format!(
        "Arrange {x} into a {rows}x{cols} matrix {matrix}, filling it row by row (the first row left to right, then the \
         second row, and so on). If {x} has fewer than {cells} elements, fill the remaining cells with 0; if it has more, \
         ignore the elements after the first {cells}.\n"
    ));
}

/// The shared "read the matrix row by row into a list" ending.
pub(crate) fn flatten_finish(b: &mut Body<'_>, matrix: &str) {
    b.finish(&format!("Read the entries of {matrix} row by row, top row first and each row left to right, into a flat list, and call it "), ".");
}

/// A generic task over one operator spec.
pub struct MathTask {
    info: TaskInfo,
    op: &'static OpSpec,
}

impl MathTask {
    fn new(op: &'static OpSpec, task_id: u32) -> MathTask {
        MathTask {
            info: TaskInfo {
                key: format!("math.{}", op.name),
                family: Family::Math,
                task_id,
                name: op.name.to_string(),
                input_kinds: vec![op.input.kind()],
                output_kind: op.output,
                description: op.summary.to_string(),
            },
            op,
        }
    }

    /// The input as the operator reads it and the parameters drawn for it: every way of instantiating the task
    /// starts here, so all of them leave `rng` in the same place.
    fn draw(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<(Adapted, Params), TaskError> {
        if ctx.input.kind() != self.op.input.kind() {
            return Err(TaskError::UnsupportedKind(ctx.input.kind()));
        }
        let adapted = self.op.input.adapt(ctx.input)?;
        let params = self.op.params.draw(&adapted, rng);
        Ok((adapted, params))
    }

    /// The prompt block for drawn parameters.
    fn describe(&self, ctx: &TaskContext<'_>, adapted: &Adapted, params: &Params) -> Prompt {
        let mut prompt = Prompt::new();
        prompt.push(Role::Instruction, &format!("Task {}:\n", ctx.number));
        let local = self.op.input.local_name(ctx.number);
        self.op.input.describe(&mut prompt, &local, ctx.input_name);
        let mut body = Body { prompt: &mut prompt, n: ctx.number, x: local };
        (self.op.describe)(&mut body, adapted, params);
        prompt
    }
}

impl Task for MathTask {
    fn info(&self) -> &TaskInfo {
        &self.info
    }

    fn instantiate(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        let (adapted, params) = self.draw(ctx, rng)?;
        let output = (self.op.compute)(&adapted, &params).map_err(|e| TaskError::Compute(e.to_string()))?;
        let body = self.describe(ctx, &adapted, &params);
        Ok(TaskInstance { body, output, statics: Vec::new(), template_index: None, picture: None })
    }

    /// The operator's text without its solution.
    fn body(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<Prompt, TaskError> {
        let (adapted, params) = self.draw(ctx, rng)?;
        Ok(self.describe(ctx, &adapted, &params))
    }

    /// The solution without the operator's text.
    fn solve(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        let (adapted, params) = self.draw(ctx, rng)?;
        let output = (self.op.compute)(&adapted, &params).map_err(|e| TaskError::Compute(e.to_string()))?;
        Ok(TaskInstance { body: Prompt::new(), output, statics: Vec::new(), template_index: None, picture: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::filter::Filter;

    fn random_input(kind: Kind, rng: &mut InstanceRng) -> Value {
        match kind {
            Kind::Scalar => Value::int(rng.int_in(-100, 100)),
            Kind::List => Value::ints(&(0..10).map(|_| rng.int_in(-100, 100)).collect::<Vec<_>>()),
        }
    }

    #[test]
    fn task_ids_follow_the_reference_sort_order() {
        let mut sorted: Vec<&OpSpec> = OPS.to_vec();
        sorted.sort_by_key(|op| (op.input.kind().as_str(), op.output.as_str(), op.name));
        let names: Vec<_> = OPS.iter().map(|op| op.name).collect();
        assert_eq!(names, sorted.iter().map(|op| op.name).collect::<Vec<_>>());
        let tasks = all();
        assert_eq!(tasks.len(), 40);
        assert_eq!(tasks[7].info().key, "math.PolyRemainderTask");
        assert_eq!(tasks[7].info().task_id, 7);
        assert_eq!(tasks[36].info().name, "ScaledStirlingFirstKindTask");
    }

    #[test]
    fn every_operator_is_deterministic_typed_named_and_eventually_accepted() {
        for task in all() {
            let info = task.info();
            let mut accepted = 0;
            for seed in 0..50u64 {
                let mut input_rng = InstanceRng::for_instance(seed, &[u64::from(info.task_id)]);
                let number = 1 + (seed as usize % 12);
                let input_name = if seed % 2 == 0 { format!("task_{number}_input") } else { format!("task_{}_out", number + 30) };
                // The Baseline filter must accept within 100 fresh random inputs.
                let mut found = None;
                for attempt in 0..100u64 {
                    let input = random_input(info.primary_input_kind(), &mut input_rng);
                    let ctx = TaskContext { number, input_name: &input_name, input: &input, output_kind: None };
                    let mut rng = InstanceRng::for_instance(seed, &[7, attempt]);
                    let Ok(instance) = task.instantiate(&ctx, &mut rng) else { continue };
                    let mut again_rng = InstanceRng::for_instance(seed, &[7, attempt]);
                    assert_eq!(task.instantiate(&ctx, &mut again_rng).as_ref(), Ok(&instance), "{} not deterministic", info.name);
                    // The text alone and the solution alone are the instance's own, and leave the RNG where it left it.
                    let mut body_rng = InstanceRng::for_instance(seed, &[7, attempt]);
                    assert_eq!(task.body(&ctx, &mut body_rng).as_ref(), Ok(&instance.body), "{} body", info.name);
                    let mut solve_rng = InstanceRng::for_instance(seed, &[7, attempt]);
                    assert_eq!(task.solve(&ctx, &mut solve_rng).map(|s| s.output).as_ref(), Ok(&instance.output), "{} solve", info.name);
                    assert_eq!((body_rng.position(), solve_rng.position()), (rng.position(), rng.position()), "{} RNG", info.name);
                    assert_eq!(instance.output.kind(), info.output_kind, "{}", info.name);
                    assert_eq!(Value::from_json(&instance.output.to_json()).as_ref(), Ok(&instance.output), "{} JSON round trip", info.name);
                    let text = instance.body.text();
                    let out = format!("task_{number}_out");
                    assert!(text.starts_with(&format!("Task {number}:\n")), "{}: {text}", info.name);
                    assert!(text.contains(&input_name), "{}: {text}", info.name);
                    assert!(text.ends_with(&format!("{out}.\n")), "{}: {text}", info.name);
                    assert_eq!(text.matches(&out).count(), 1, "{}: {text}", info.name);
                    let named: Vec<_> = instance.body.pieces().filter(|(role, _)| *role == Role::OutputName).collect();
                    assert_eq!(named, vec![(Role::OutputName, out.as_str())], "{}", info.name);
                    if Filter::Baseline.accepts(&instance.output, &input) {
                        found = Some(instance);
                        break;
                    }
                }
                if found.is_some() {
                    accepted += 1;
                }
            }
            assert_eq!(accepted, 50, "{} was not accepted within 100 attempts for every seed", info.name);
        }
    }

    #[test]
    fn printed_parameters_are_input_values_and_match_the_draws() {
        let task = &all()[2]; // Kronecker: M2 printed as a sympy Matrix.
        let input = Value::ints(&[1, 2, 3, 4]);
        let ctx = TaskContext { number: 3, input_name: "task_2_out", input: &input, output_kind: None };
        let instance = task.instantiate(&ctx, &mut InstanceRng::from_seed(5)).unwrap();
        let values: Vec<_> = instance.body.pieces().filter(|(role, _)| *role == Role::InputValue).map(|(_, t)| t.to_string()).collect();
        assert_eq!(values.len(), 1);
        assert!(values[0].starts_with("Matrix([["), "{values:?}");
        let m2: serde_json::Value = serde_json::from_str(&values[0]["Matrix(".len()..values[0].len() - 1]).unwrap();
        assert_eq!(solve("KroneckerProductTask", &input, &serde_json::json!({ "M2": m2 })), Ok(instance.output));
    }

    #[test]
    fn extreme_raw_inputs_give_values_or_typed_errors() {
        use Number::{Float, Int};
        let scalars = [Int(i64::MIN), Int(i64::MAX), Int(0), Float(-0.5), Float(1e300), Float(-1e300), Float(f64::NAN), Float(f64::INFINITY)];
        let mut lists: Vec<Vec<Number>> = vec![vec![Int(0)], vec![Int(i64::MIN), Int(i64::MAX)], vec![Float(99.5); 3], vec![Float(f64::NAN)]];
        lists.extend([5, 7, 9, 17, 144, 1000].map(|n| (0..n).map(|i| Int(i * 37 - 500)).collect()));
        for task in all() {
            for (i, raw) in scalars.iter().map(|&x| Value::Scalar(x)).chain(lists.iter().cloned().map(Value::List)).enumerate() {
                let ctx = TaskContext { number: 2, input_name: "task_1_out", input: &raw, output_kind: None };
                match task.instantiate(&ctx, &mut InstanceRng::from_seed(i as u64)) {
                    Ok(instance) => assert_eq!(instance.output.kind(), task.info().output_kind),
                    Err(TaskError::UnsupportedKind(_) | TaskError::Adapt(_) | TaskError::Compute(_)) => {}
                    Err(other) => panic!("{}: unexpected error {other}", task.info().name),
                }
            }
        }
    }

    #[test]
    fn wrong_kinds_and_empty_lists_are_typed_errors() {
        let tasks = all();
        let input = Value::int(3);
        let ctx = TaskContext { number: 1, input_name: "task_1_input", input: &input, output_kind: None };
        assert_eq!(tasks[0].instantiate(&ctx, &mut InstanceRng::from_seed(0)), Err(TaskError::UnsupportedKind(Kind::Scalar)));
        let empty = Value::ints(&[]);
        let ctx = TaskContext { number: 1, input_name: "task_1_input", input: &empty, output_kind: None };
        assert_eq!(tasks[1].instantiate(&ctx, &mut InstanceRng::from_seed(0)), Err(TaskError::Adapt(AdaptError::EmptyList)));
    }
}
