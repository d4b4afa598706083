//! The registry's tasks as the inspector lists them: searchable by name, key and description, the ones
//! that fit the node's kinds first, each with its signature; and the display names of pinned tasks.

use std::collections::HashMap;

use crate::engine::graph::GraphFunctions;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::Family;
use crate::engine::value::Kind;
use crate::engine::sort;

/// One task the inspector offers for pinning.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskChoice {
    /// The reference's `task_id` (what the node stores).
    pub task_id: i64,
    pub key: String,
    pub name: String,
    pub description: String,
    /// `list → scalar` (accepted input kinds, then the output kind).
    pub signature: String,
    /// Accepts the node's input kind and produces its output kind (when declared).
    pub fits: bool,
}

/// The words of a search box: a task matches when every word appears (case-insensitive) in one of its fields.
pub struct Words(Vec<String>);

impl Words {
    pub fn of(query: &str) -> Words {
        Words(query.split_whitespace().map(str::to_lowercase).collect())
    }

    /// True when every word appears in one of `fields`.
    pub fn all_in(&self, fields: &[&str]) -> bool {
        let haystack = fields.join(" ").to_lowercase();
        self.0.iter().all(|w| haystack.contains(w))
    }
}

/// The tasks of `family` matching `query` (case-insensitive, every word must appear in the name, key or
/// description), those fitting `input`/`output` first, then by `task_id`.
pub fn choices(registry: &Registry, family: Family, query: &str, input: Option<Kind>, output: Option<Kind>) -> Vec<TaskChoice> {
    let words = Words::of(query);
    let mut out: Vec<TaskChoice> = registry
        .family(family)
        .iter()
        .map(|t| t.info())
        .filter(|info| words.all_in(&[&info.name, &info.key, &info.description]))
        .map(|info| TaskChoice {
            task_id: i64::from(info.task_id),
            key: info.key.clone(),
            name: info.name.clone(),
            description: info.description.clone(),
            signature: info.signature(),
            fits: input.is_none_or(|k| info.accepts(k)) && output.is_none_or(|k| info.output_kind == k),
        })
        .collect();
    sort::by_key(&mut out, |c| (!c.fits, c.task_id));
    out
}

/// One of the graph's own Python functions as the inspector offers it.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionChoice {
    pub name: String,
    /// `list | scalar → list`.
    pub signature: String,
    /// The accepted input kinds (list first) and the output kind, to set on the node that pins it.
    pub inputs: Vec<Kind>,
    pub output: Kind,
    /// Accepts the node's input kind and produces its output kind (when declared).
    pub fits: bool,
}

/// The graph's functions matching `query` (every word in the name), those fitting `input`/`output` first.
pub fn function_choices(functions: &GraphFunctions, query: &str, input: Option<Kind>, output: Option<Kind>) -> Vec<FunctionChoice> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut out: Vec<FunctionChoice> = functions
        .names()
        .filter(|name| words.iter().all(|w| name.to_lowercase().contains(w)))
        .filter_map(|name| {
            let (inputs, returns) = functions.kinds(name)?;
            let shown: Vec<&str> = inputs.iter().map(|k| k.as_str()).collect();
            Some(FunctionChoice {
                name: name.to_string(),
                signature: format!("{} → {}", shown.join(" | "), returns.as_str()),
                fits: input.is_none_or(|k| inputs.contains(&k)) && output.is_none_or(|k| k == returns),
                inputs,
                output: returns,
            })
        })
        .collect();
    sort::by_key(&mut out, |c| !c.fits);
    out
}

/// Display names of pinned tasks by (family, task_id), for drawing nodes.
pub type TaskNames = HashMap<(String, i64), String>;

/// Every task's display name by (family, task_id).
pub fn task_names(registry: &Registry) -> TaskNames {
    registry.iter().map(|t| ((t.info().family.as_str().to_string(), i64::from(t.info().task_id)), t.info().name.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tasks::registry::builtin;

    #[test]
    fn searching_narrows_by_every_word_and_fitting_tasks_come_first() {
        let registry = builtin();
        let all = choices(&registry, Family::Math, "", None, None);
        assert_eq!(all.len(), registry.family(Family::Math).len());
        assert!(all.iter().all(|c| c.fits));
        let conv = choices(&registry, Family::Math, "CONVOLUTION", None, None);
        assert_eq!(conv.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), vec!["ConvolutionTask"]);
        assert_eq!(conv[0].signature, "list → list");
        let scalar_in = choices(&registry, Family::Math, "", Some(Kind::Scalar), Some(Kind::Scalar));
        let first_misfit = scalar_in.iter().position(|c| !c.fits).unwrap();
        assert!(first_misfit > 0 && scalar_in[first_misfit..].iter().all(|c| !c.fits), "fitting tasks first");
        assert!(choices(&registry, Family::Gsm, "no such words here", None, None).is_empty());
    }

    #[test]
    fn every_task_has_a_display_name() {
        let registry = builtin();
        let names = task_names(&registry);
        assert_eq!(names.len(), registry.len());
        assert_eq!(names.get(&("math".to_string(), 0)).map(String::as_str), Some("ConvolutionTask"));
    }

    #[test]
    fn the_graphs_functions_are_offered_fitting_first() {
        let functions = GraphFunctions::parse(&[
            "def total(xs: List[int]) -> int:\n    return sum(xs)\n".to_string(),
            "def sorted_copy(xs: List[int]) -> List[int]:\n    return sorted(xs)\n".to_string(),
        ]);
        let all = function_choices(&functions, "", Some(Kind::List), Some(Kind::List));
        assert_eq!(all.iter().map(|c| (c.name.as_str(), c.fits)).collect::<Vec<_>>(), [("sorted_copy", true), ("total", false)]);
        assert_eq!(all[1].signature, "list → scalar");
        assert_eq!(function_choices(&functions, "TOT", None, None).len(), 1);
    }
}
