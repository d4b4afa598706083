//! The task registry: every family's explicit list, gathered in one place, with duplicate keys rejected.

use std::collections::HashMap;
use std::rc::Rc;

use super::image::ImageParams;
use super::{Family, Task};
use crate::engine::value::Kind;

/// All tasks known to a run (built-ins plus, in the app, user-supplied Python functions).
#[derive(Clone, Default)]
pub struct Registry {
    tasks: Vec<Rc<dyn Task>>,
    by_key: HashMap<String, usize>,
}

/// A registry could not take a task.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("duplicate task key `{0}`")]
    DuplicateKey(String),
}

impl Registry {
    /// Adds a task; keys must be unique.
    pub fn add(&mut self, task: Rc<dyn Task>) -> Result<(), RegistryError> {
        let key = task.info().key.clone();
        if self.by_key.contains_key(&key) {
            return Err(RegistryError::DuplicateKey(key));
        }
        self.by_key.insert(key, self.tasks.len());
        self.tasks.push(task);
        Ok(())
    }

    /// Every task, in registration order (family by family, `task_id` order within a family).
    pub fn iter(&self) -> impl Iterator<Item = &Rc<dyn Task>> {
        self.tasks.iter()
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when no task is registered.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Looks a task up by key.
    pub fn get(&self, key: &str) -> Option<&Rc<dyn Task>> {
        self.by_key.get(key).map(|&i| &self.tasks[i])
    }

    /// The tasks of one family, in `task_id` order.
    pub fn family(&self, family: Family) -> Vec<Rc<dyn Task>> {
        let mut tasks: Vec<_> = self.tasks.iter().filter(|t| t.info().family == family).cloned().collect();
        tasks.sort_by_key(|t| t.info().task_id);
        tasks
    }

    /// A family's task by the reference's `task_id`.
    pub fn by_task_id(&self, family: Family, task_id: u32) -> Option<Rc<dyn Task>> {
        self.tasks.iter().find(|t| t.info().family == family && t.info().task_id == task_id).cloned()
    }

    /// A family's task by the reference's `task_name` (first match; Python names can repeat).
    pub fn by_name(&self, family: Family, name: &str) -> Option<Rc<dyn Task>> {
        self.tasks.iter().find(|t| t.info().family == family && t.info().name == name).cloned()
    }

    /// Tasks of `family` accepting `input` and producing `output` (either may be left open).
    pub fn matching(&self, family: Family, input: Option<Kind>, output: Option<Kind>) -> Vec<Rc<dyn Task>> {
        self.family(family)
            .into_iter()
            .filter(|t| input.is_none_or(|k| t.info().accepts(k)) && output.is_none_or(|k| t.info().output_kind == k))
            .collect()
    }
}

/// The built-in tasks of every family, image tasks with the reference's parameters.
pub fn builtin() -> Registry {
    builtin_with(ImageParams::default())
}

/// The built-in tasks of every family, image tasks drawing pictures with `image` (checked by the caller).
pub fn builtin_with(image: ImageParams) -> Registry {
    let mut registry = Registry::default();
    let families = [super::math::all(), super::gsm::all(), super::python_trace::all(), super::image::all_with(image)];
    for task in families.into_iter().flatten() {
        // Built-in keys are unique by construction; tests/it/tasks.rs builds this registry and would fail first.
        registry.add(task).expect("built-in task keys are unique");
    }
    registry
}
