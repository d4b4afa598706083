//! The registry's tasks as the inspector lists them: searchable by name, key and description, the ones
//! that fit the node's kinds first, each with its signature; and the display names of pinned tasks.

use std::collections::HashMap;

use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, TaskInfo};
use crate::engine::value::Kind;

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

/// The signature of a task: accepted input kinds → output kind.
pub fn signature(info: &TaskInfo) -> String {
    let inputs: Vec<&str> = info.input_kinds.iter().map(|k| k.as_str()).collect();
    format!("{} → {}", inputs.join(" | "), info.output_kind.as_str())
}

/// The tasks of `family` matching `query` (case-insensitive, every word must appear in the name, key or
/// description), those fitting `input`/`output` first, then by `task_id`.
pub fn choices(registry: &Registry, family: Family, query: &str, input: Option<Kind>, output: Option<Kind>) -> Vec<TaskChoice> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut out: Vec<TaskChoice> = registry
        .family(family)
        .iter()
        .map(|t| t.info())
        .filter(|info| {
            let haystack = format!("{} {} {}", info.name, info.key, info.description).to_lowercase();
            words.iter().all(|w| haystack.contains(w))
        })
        .map(|info| TaskChoice {
            task_id: i64::from(info.task_id),
            key: info.key.clone(),
            name: info.name.clone(),
            description: info.description.clone(),
            signature: signature(info),
            fits: input.is_none_or(|k| info.accepts(k)) && output.is_none_or(|k| info.output_kind == k),
        })
        .collect();
    out.sort_by_key(|c| (!c.fits, c.task_id));
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
}
