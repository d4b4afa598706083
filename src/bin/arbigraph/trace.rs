//! `arbigraph trace`: runs Python functions with the built-in interpreter, one call (`--file f.py --call
//! 'name(a=[1, 2], k=3)'`, result printed as a Python literal) or a JSON-lines batch (`--batch cases.jsonl`,
//! one `{"result": ...}` or `{"error": "Class: message"}` line per input line, in order, the line's `id` echoed).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

use arbigraph_studio::engine::python::{self, Limits, Module, ParseError, PyValue, RunError};

/// Arguments of `arbigraph trace`.
#[derive(clap::Args)]
pub struct Args {
    /// Python source file holding the function to call.
    #[arg(long, requires = "call", conflicts_with = "batch")]
    file: Option<PathBuf>,
    /// The call to evaluate, e.g. `name(nums=[3, -1], k=2)` (any Python expression is accepted).
    #[arg(long, requires = "file")]
    call: Option<String>,
    /// JSON-lines file of `{"source": ..., "function": ..., "kwargs": {...}}` cases (`-` reads stdin).
    #[arg(long)]
    batch: Option<PathBuf>,
    /// Step budget per call.
    #[arg(long, default_value_t = Limits::default().max_steps)]
    steps: u64,
    /// Memory cap per call (container elements, big-int limbs, string bytes / 8).
    #[arg(long, default_value_t = Limits::default().max_memory)]
    memory: u64,
    /// Print timing (cases per second) to stderr.
    #[arg(long)]
    stats: bool,
}

/// Native stack of the worker thread: deep enough for Python's full recursion limit in any build.
const WORKER_STACK: usize = 256 << 20;

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let limits = Limits { max_steps: args.steps, max_memory: args.memory, max_stack_bytes: (WORKER_STACK / 2) as u64, ..Limits::default() };
    // The evaluator recurses on the native stack; a big worker stack lets Python's 1000 levels through.
    let worker = std::thread::Builder::new().stack_size(WORKER_STACK).spawn(move || match (&args.file, &args.call, &args.batch) {
        (Some(file), Some(call), None) => run_one(file, call, &limits),
        (None, None, Some(batch)) => run_batch(batch, &limits, args.stats),
        _ => super::files::fail("give either --file F --call 'name(...)' or --batch CASES.jsonl"),
    });
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => super::files::fail("the tracing worker thread failed"),
    }
}

fn run_one(file: &std::path::Path, call: &str, limits: &Limits) -> ExitCode {
    let source = match super::files::read_text(file) {
        Ok(s) => s,
        Err(e) => return super::files::fail(e),
    };
    // The call must be a single expression; it is evaluated inside the module, after its definitions.
    if let Err(e) = python::parser::parse_tree(call).and_then(|body| match body.as_slice() {
        [python::ast::Stmt { kind: python::ast::StmtKind::Expr(_), .. }] => Ok(()),
        _ => Err(ParseError::syntax(python::Pos::new(1, 1), "expected a single call expression")),
    }) {
        return super::files::fail(format!("--call: {e}"));
    }
    // Parse the file alone first so its errors carry the file's own positions.
    if let Err(e) = python::parse_module(&source) {
        return super::files::fail(format!("{}: {e}", file.display()));
    }
    let wrapped = format!("{source}\n\ndef __arbigraph_trace__():\n    return {call}\n");
    let module = match python::parse_module(&wrapped) {
        Ok(m) => m,
        Err(e) => return super::files::fail(format!("--call: {e}")),
    };
    match python::call(&module, "__arbigraph_trace__", &[], &[], limits) {
        Ok(v) => {
            println!("{}", v.repr());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}", e.summary());
            ExitCode::from(1)
        }
    }
}

fn run_batch(path: &std::path::Path, limits: &Limits, stats: bool) -> ExitCode {
    let started = Instant::now();
    let mut cache: HashMap<String, Rc<Result<Module, ParseError>>> = HashMap::new();
    let counts = match super::batch::run(path, "result", |line| trace_line(line, &mut cache, limits)) {
        Ok(counts) => counts,
        Err(code) => return code,
    };
    if stats {
        let secs = started.elapsed().as_secs_f64();
        eprintln!("{} cases ({} errors) in {secs:.3} s: {:.0} cases/s", counts.cases, counts.errors, counts.cases as f64 / secs.max(1e-9));
    }
    ExitCode::SUCCESS
}

/// One batch line: the result's JSON text, or `Class: message`.
fn trace_line(line: &str, cache: &mut HashMap<String, Rc<Result<Module, ParseError>>>, limits: &Limits) -> Result<String, String> {
    // Read as Python's json.loads does, so integer literals past 64 bits stay exact ints.
    let case = python::json::loads(line).map_err(|e| format!("MalformedInput: {e}"))?;
    let PyValue::Dict(case) = case else { return Err("MalformedInput: a case must be a JSON object".into()) };
    let case = case.borrow();
    let field = |name: &str| PyValue::str(name).hash_key().ok().and_then(|hk| case.get(&hk).cloned());
    let text = |name: &str| match field(name) {
        Some(PyValue::Str(s)) => Ok(s),
        _ => Err(format!("MalformedInput: missing string field \"{name}\"")),
    };
    let source = text("source")?;
    let function = text("function")?;
    let kwargs: Vec<(String, PyValue)> = match field("kwargs") {
        None | Some(PyValue::None) => Vec::new(),
        Some(value) => python::json::keyword_arguments(&value).ok_or("MalformedInput: \"kwargs\" must be an object")?,
    };
    let (source, function) = (&*source, &*function);
    let module = cache.entry(source.to_string()).or_insert_with(|| Rc::new(python::parse_module(source))).clone();
    let module = match &*module {
        Ok(m) => m,
        Err(e @ ParseError::Syntax { .. }) => return Err(format!("SyntaxError: {e}")),
        Err(e @ ParseError::UnsupportedFeature { .. }) => return Err(format!("UnsupportedFeature: {e}")),
    };
    match python::call(module, function, &[], &kwargs, limits) {
        Ok(v) => python::to_json_text(&v),
        Err(e @ RunError::Exception(_)) | Err(e @ RunError::StepBudgetExceeded { .. }) | Err(e @ RunError::MemoryExceeded { .. }) => {
            Err(e.summary())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expected: &str) {
        let mut cache = HashMap::new();
        let got = match trace_line(line, &mut cache, &Limits::default()) {
            Ok(r) => format!("result {r}"),
            Err(e) => format!("error {e}"),
        };
        assert_eq!(got, expected, "{line}");
    }

    #[test]
    fn batch_lines_give_results_or_classed_errors() {
        let src = r#""def f(a: List[int], k: int) -> int:\n    return max(a) // k\n""#;
        check(&format!(r#"{{"source": {src}, "function": "f", "kwargs": {{"a": [3, -7], "k": -2}}}}"#), "result -2");
        check(
            &format!(r#"{{"source": {src}, "function": "f", "kwargs": {{"a": [], "k": 1}}}}"#),
            "error ValueError: max() arg is an empty sequence",
        );
        check(&format!(r#"{{"source": {src}, "function": "g", "kwargs": {{}}}}"#), "error NameError: name 'g' is not defined");
        check(r#"{"source": "def f():\n    return (1, [2, None])\n", "function": "f"}"#, "result [1, [2, null]]");
        check(
            r#"{"source": "def f():\n    while True:\n        pass\n", "function": "f"}"#,
            "error StepBudgetExceeded: more than 5000000 steps (at line 3)",
        );
        check(
            r#"{"source": "class A: pass", "function": "f"}"#,
            "error UnsupportedFeature: unsupported feature at line 1, column 1: class definitions",
        );
        check("not json", "error MalformedInput: expected ident at line 1 column 2");
        check(r#"{"function": "f"}"#, "error MalformedInput: missing string field \"source\"");
    }

    #[test]
    fn integer_kwargs_past_64_bits_arrive_as_exact_ints() {
        // Expected values from python3 (3.11): exec the source, call f(**json.loads(kwargs)), print json.dumps:
        // [-100000000000000000001, 18446744073709551616, 18446744073709551617, 1e+20, "1e+20"]
        let src = r#""def f(n, xs, d, x):\n    return [n - 1, xs[0] * 2, d['k'][0] + 1, x, str(x)]\n""#;
        check(
            &format!(
                r#"{{"source": {src}, "function": "f", "kwargs": {{"n": -100000000000000000000, "xs": [9223372036854775808], "d": {{"k": [18446744073709551616]}}, "x": 1e20}}}}"#
            ),
            r#"result [-100000000000000000001, 18446744073709551616, 18446744073709551617, 1e+20, "1e+20"]"#,
        );
        // json.loads('{"n": 1, "n": 100000000000000000000}') keeps the last value.
        check(
            r#"{"source": "def f(n):\n    return n\n", "function": "f", "kwargs": {"n": 1, "n": 100000000000000000000}}"#,
            "result 100000000000000000000",
        );
        // Past f64's range too: python3 -c 'import json; print(json.loads("7" * 400) % 1000)' prints 777.
        check(
            &format!(r#"{{"source": "def f(n):\n    return n % 1000\n", "function": "f", "kwargs": {{"n": {}}}}}"#, "7".repeat(400)),
            "result 777",
        );
        check(
            &format!(r#"{{"source": "def f(n):\n    return 1\n", "function": "f", "kwargs": {{"n": {}{}}}}}"#, "[".repeat(200), "]".repeat(200)),
            "error MalformedInput: recursion limit exceeded at byte 199",
        );
        check(
            &format!(r#"{{"source": "def f(n):\n    return n\n", "function": "f", "kwargs": {{"n": {}}}}}"#, "9".repeat(4301)),
            "error MalformedInput: an int literal of 4301 digits exceeds the limit of 4300",
        );
    }
}
