//! The Python functions a graph brings with it (`graph.python_functions`): each source parsed once, named by
//! its first `def`, and made into a tracing task that task nodes pin by that name (`"function": "name"`).

use std::rc::Rc;

use crate::engine::tasks::python_trace::{TraceOptions, UserFunction};
use crate::engine::tasks::Task;
use crate::engine::value::Kind;

/// Task ids of graph functions start here, far from the built-in pool's.
pub const FUNCTION_TASK_IDS: u32 = 100_000;

/// The registry key of the graph function `name`'s task.
pub fn function_key(name: &str) -> String {
    format!("python.graph.{name}")
}

/// A graph's functions, parsed, and the problems of those that could not be.
#[derive(Clone, Debug, Default)]
pub struct GraphFunctions {
    functions: Vec<(String, UserFunction)>,
    /// One message per source that cannot be used (located in its source), in file order.
    pub problems: Vec<String>,
}

impl GraphFunctions {
    /// Parses every source; a source that does not parse, or repeats an earlier function's name, is a problem.
    pub fn parse(sources: &[String]) -> GraphFunctions {
        let mut out = GraphFunctions::default();
        for (i, source) in sources.iter().enumerate() {
            match UserFunction::from_source(source) {
                Ok(function) => {
                    let name = function.signature().name.clone();
                    if out.get(&name).is_some() {
                        out.problems.push(format!("python function {}: `{name}` is already defined by an earlier function", i + 1));
                    } else {
                        out.functions.push((name, function));
                    }
                }
                Err(errors) => {
                    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                    out.problems.push(format!("python function {}: {}", i + 1, shown.join("; ")));
                }
            }
        }
        out
    }

    /// The function named `name`.
    pub fn get(&self, name: &str) -> Option<&UserFunction> {
        self.functions.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }

    /// The kinds a node pinning `name` has: the inputs it accepts and its output.
    pub fn kinds(&self, name: &str) -> Option<(Vec<Kind>, Kind)> {
        self.get(name).map(|f| (f.input_kinds(), f.output_kind()))
    }

    /// The tracing task of function `name` (key `python.graph.<name>`).
    pub fn task(&self, name: &str) -> Option<Rc<dyn Task>> {
        let at = self.functions.iter().position(|(n, _)| n == name)?;
        let function = self.functions[at].1.clone();
        Some(function.into_task(&function_key(name), FUNCTION_TASK_IDS + at as u32, TraceOptions::default()))
    }

    /// The functions' names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.functions.iter().map(|(n, _)| n.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_become_named_tasks_and_bad_ones_are_reported_where_they_fail() {
        let sources = [
            "def running_max(xs: List[int]) -> List[int]:\n    out = []\n    best = xs[0]\n    for x in xs:\n        best = max(best, x)\n        out.append(best)\n    return out\n".to_string(),
            "def broken(x: int) -> int:\n    return x +\n".to_string(),
            "def running_max(y: int) -> int:\n    return y\n".to_string(),
        ];
        let parsed = GraphFunctions::parse(&sources);
        assert_eq!(parsed.names().collect::<Vec<_>>(), ["running_max"]);
        assert_eq!(parsed.kinds("running_max"), Some((vec![Kind::List], Kind::List)));
        assert_eq!(parsed.problems.len(), 2, "{:?}", parsed.problems);
        assert!(parsed.problems[0].starts_with("python function 2: line 2, column"), "{:?}", parsed.problems);
        assert_eq!(parsed.problems[1], "python function 3: `running_max` is already defined by an earlier function");
        let task = parsed.task("running_max").expect("a task");
        assert_eq!((task.info().key.as_str(), task.info().task_id), ("python.graph.running_max", FUNCTION_TASK_IDS));
        assert!(parsed.task("missing").is_none());
    }
}
