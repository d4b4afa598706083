//! The Design page's Python box, as work the Web Worker does: run a pasted function on JSON arguments under the
//! interpreter's limits, or try it as a tracing task on a few seeded inputs. The page only parses the source
//! (for its signature and errors); running it needs the interpreter's evaluator, which only the worker's module
//! carries.

use crate::engine::python::{self, Limits};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::python_trace::{SourceError, TraceOptions, UserFunction};
use crate::engine::tasks::TaskContext;
use crate::engine::value::{Kind, Number, Value};

use super::roles_of;

/// Inputs a tracing try draws before it gives up.
const TRIES: usize = 50;

/// A pasted function tried as a tracing task: the input it was given, its output, and the task's prompt block.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Traced {
    /// `task_1_input = … → task_1_out = …`.
    pub line: String,
    /// The prompt block's text.
    pub prompt: String,
    /// Its roles, run-length encoded (`jobs::roles_of`).
    pub roles: Vec<(String, u32)>,
}

fn source_errors(errors: &[SourceError]) -> String {
    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
}

/// Calls the function `source` defines with `args` (a JSON object of parameter names to values) and prints
/// the result as JSON; every problem (syntax, arguments, a budget) is the message.
pub fn run(source: &str, args: &str) -> Result<String, String> {
    let module = python::parse_module(source).map_err(|e| e.to_string())?;
    let function = UserFunction::from_source(source).map_err(|e| source_errors(&e))?;
    // The same reader as `arbigraph trace --batch`: ints past 64 bits arrive exact, as in Python.
    let json = python::json::loads(args).map_err(|e| format!("arguments: malformed JSON: {e}"))?;
    let kwargs = python::json::keyword_arguments(&json).ok_or("arguments: expected a JSON object of parameter names to values")?;
    let value = python::call(&module, &function.signature().name, &[], &kwargs, &Limits::default()).map_err(|e| e.to_string())?;
    python::to_json_text(&value)
}

/// Makes the function a tracing task and instantiates it on seeded random inputs of its first input kind until
/// one works (at most `TRIES`); the last failure is the message when none does.
pub fn trace(source: &str) -> Result<Traced, String> {
    let function = UserFunction::from_source(source).map_err(|e| source_errors(&e))?;
    let kind = function.input_kinds().first().copied().unwrap_or(Kind::List);
    let task = function.into_task("user.pasted", 0, TraceOptions::default());
    let mut rng = InstanceRng::from_seed(0);
    let mut last = String::from("no attempt");
    for _ in 0..TRIES {
        let input = match kind {
            Kind::Scalar => Value::int(rng.int_in(-100, 100)),
            Kind::List => Value::List((0..10).map(|_| Number::Int(rng.int_in(-100, 100))).collect()),
        };
        let ctx = TaskContext { number: 1, input_name: "task_1_input", input: &input, output_kind: None };
        match task.instantiate(&ctx, &mut rng) {
            Ok(instance) => {
                return Ok(Traced {
                    line: format!("task_1_input = {}   →   task_1_out = {}", input.repr(), instance.output.repr()),
                    prompt: instance.body.text().to_string(),
                    roles: roles_of(&instance.body),
                })
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEAKS: &str = "def running_peak_gaps(nums: List[int]) -> List[int]:\n    best = nums[0]\n    out = []\n    for x in nums:\n        if x > best:\n            best = x\n        out.append(best - x)\n    return out\n";

    #[test]
    fn a_function_runs_on_json_arguments_and_its_problems_are_messages() {
        assert_eq!(run(PEAKS, r#"{"nums": [3, 1, 4, 1, 5, 9, 2, 6]}"#).unwrap(), "[0, 2, 0, 3, 0, 0, 7, 3]");
        assert_eq!(run(PEAKS, r#"{"nums": [1, "#).unwrap_err().split(':').take(2).collect::<Vec<_>>(), ["arguments", " malformed JSON"]);
        assert_eq!(run(PEAKS, "[1]").unwrap_err(), "arguments: expected a JSON object of parameter names to values");
        let looping = "def spin(n: int) -> int:\n    while True:\n        n += 1\n    return n\n";
        assert!(run(looping, r#"{"n": 1}"#).unwrap_err().contains("step"), "a runaway loop ends in the step budget");
        let deep = "def deep(n: int) -> int:\n    return deep(n + 1) + 1\n";
        assert!(run(deep, r#"{"n": 1}"#).unwrap_err().contains("RecursionError"), "endless recursion ends in RecursionError within the run's stack budget");
    }

    #[test]
    fn a_traced_try_gives_its_input_output_and_a_prompt_whose_roles_cover_it() {
        let traced = trace(PEAKS).unwrap();
        let (input, output) = traced.line.split_once("   →   ").unwrap();
        assert!(input.starts_with("task_1_input = ["), "{input}");
        assert!(output.starts_with("task_1_out = ["), "{output}");
        assert!(traced.prompt.contains("out.append(best - x)"), "the function's body is in the block: {}", traced.prompt);
        assert_eq!(traced.roles.iter().map(|(_, n)| *n as usize).sum::<usize>(), traced.prompt.chars().count());
        assert!(trace("def f(:\n").is_err());
    }
}
