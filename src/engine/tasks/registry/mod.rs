//! The task registry: every family's explicit list, gathered in one place, with duplicate keys rejected, plus the
//! tasks of any packs the user brings; and the choice of which of them a run draws from (`FamilyChoice`).
//!
//! A pack's tasks join their family beside ours. A run names families (`python`) or sources
//! (`python.ours`, `python.ref`): a bare family draws from its pack when one is loaded (the pack stands in for
//! our tasks of that family, so bringing the paper's functions gives the paper's family) and from ours
//! otherwise; `python.ours` and `python.ref` pick one source, and naming both draws from both.
//!
//! `described()` is the same registry without the generators: each task known by its `TaskInfo` only, read from
//! `registry/table.rs`, which a test writes from `builtin()` (so the two cannot drift apart). The browser page
//! validates graphs and lists tasks with it and leaves generation to its Web Worker, so the page's module does
//! not carry the task families' code and data.

mod table;

use std::collections::HashMap;
use std::rc::Rc;

use super::image::ImageParams;
use super::pack::{Pack, PackKind};
use super::{Family, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
use crate::engine::rng::InstanceRng;
use crate::engine::value::Kind;

/// All tasks known to a run (built-ins plus, in the app, user-supplied Python functions).
#[derive(Clone, Default)]
pub struct Registry {
    tasks: Vec<Rc<dyn Task>>,
    by_key: HashMap<String, usize>,
    /// The pack each task came from (`None` for ours), parallel to `tasks`.
    packs: Vec<Option<PackKind>>,
    /// Each family's tasks in `task_id` order (registration order among equal ids), kept as tasks are added:
    /// generation asks for a family's tasks for every sample it makes.
    families: Vec<(Family, Vec<Rc<dyn Task>>)>,
}

/// A registry could not take a task.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("duplicate task key `{0}`")]
    DuplicateKey(String),
}

impl Registry {
    /// Adds a task of ours; keys must be unique.
    pub fn add(&mut self, task: Rc<dyn Task>) -> Result<(), RegistryError> {
        self.add_from(task, None)
    }

    /// Adds every task of a pack; keys must be unique (two packs of one kind collide).
    pub fn add_pack(&mut self, pack: &Pack) -> Result<(), RegistryError> {
        pack.tasks().into_iter().try_for_each(|task| self.add_from(task, Some(pack.kind)))
    }

    /// Adds a pack's task known by its description only (the page lists and validates a pack's tasks this way;
    /// its worker holds the tasks themselves).
    pub fn add_described(&mut self, info: TaskInfo, pack: PackKind) -> Result<(), RegistryError> {
        self.add_from(Rc::new(Described(info)), Some(pack))
    }

    fn add_from(&mut self, task: Rc<dyn Task>, pack: Option<PackKind>) -> Result<(), RegistryError> {
        let key = task.info().key.clone();
        if self.by_key.contains_key(&key) {
            return Err(RegistryError::DuplicateKey(key));
        }
        self.by_key.insert(key, self.tasks.len());
        let info = task.info();
        let (family, id) = (info.family, info.task_id);
        let at = match self.families.iter().position(|(f, _)| *f == family) {
            Some(at) => at,
            None => {
                self.families.push((family, Vec::new()));
                self.families.len() - 1
            }
        };
        let list = &mut self.families[at].1;
        list.insert(list.partition_point(|t| t.info().task_id <= id), task.clone());
        self.tasks.push(task);
        self.packs.push(pack);
        Ok(())
    }

    /// The pack a task came from; `None` for ours (or an unknown key).
    pub fn pack_of(&self, key: &str) -> Option<PackKind> {
        self.by_key.get(key).and_then(|&i| self.packs[i])
    }

    /// True when some pack's tasks joined `family`.
    pub fn has_pack_for(&self, family: Family) -> bool {
        self.packs.iter().flatten().any(|p| p.family() == family)
    }

    /// The registry a run with `choice` draws from: per family, the sources it names, else the family's pack
    /// when one is loaded, else ours. Keys, order and task ids are kept.
    pub fn view(&self, choice: &FamilyChoice) -> Registry {
        let mut out = Registry::default();
        for (task, pack) in self.tasks.iter().zip(&self.packs) {
            let family = task.info().family;
            let named: Vec<Source> = choice.sources.iter().filter(|(f, _)| *f == family).map(|(_, s)| *s).collect();
            let source = pack.map_or(Source::Ours, Source::Pack);
            let keep = if !named.is_empty() { named.contains(&source) } else if self.has_pack_for(family) { pack.is_some() } else { true };
            if keep {
                // Keys were unique here, so they stay unique in a subset.
                let _ = out.add_from(task.clone(), *pack);
            }
        }
        out
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
        self.families.iter().find(|(f, _)| *f == family).map(|(_, tasks)| tasks.clone()).unwrap_or_default()
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

/// Where a family's tasks come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The tasks this project ships.
    Ours,
    /// A pack the user brought.
    Pack(PackKind),
}

/// The families a run draws from and, for families named with a source (`python.ref`), which source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamilyChoice {
    /// The families, in the order named, without repeats.
    pub families: Vec<Family>,
    /// Sources named explicitly, per family.
    pub sources: Vec<(Family, Source)>,
}

impl FamilyChoice {
    /// Reads a comma-separated list of `math`, `gsm`, `python`, `image`, `mixed` (math, gsm and python) and
    /// sources (`python.ours`, `python.ref`, `gsm.ours`, `gsm.symbolic`); a pack source must be in `registry`.
    pub fn parse(text: &str, registry: &Registry) -> Result<FamilyChoice, String> {
        let mut choice = FamilyChoice::default();
        for item in text.split(',').map(str::trim) {
            let (family_text, source_text) = item.split_once('.').map_or((item, None), |(f, s)| (f, Some(s)));
            let named = match family_text.to_ascii_lowercase().as_str() {
                "mixed" if source_text.is_none() => Family::ALL.to_vec(),
                other => vec![Family::parse(other).ok_or_else(|| format!("unknown family `{item}` (math, gsm, python, image, mixed, or a source such as python.ours or python.ref)"))?],
            };
            if let Some(source_text) = source_text {
                let family = named[0];
                let source = match source_text.to_ascii_lowercase().as_str() {
                    "ours" => Source::Ours,
                    other => {
                        let kind = PackKind::ALL.into_iter().find(|k| k.family() == family && k.source() == other).ok_or_else(|| {
                            let known: Vec<String> = PackKind::ALL.iter().filter(|k| k.family() == family).map(|k| k.prefix()).collect();
                            format!("unknown source `{item}` ({}.ours{})", family, known.iter().map(|k| format!(" or {k}")).collect::<String>())
                        })?;
                        if !registry.packs.contains(&Some(kind)) {
                            return Err(format!("`{item}` names a pack that is not loaded (a {family} pack must be brought first)"));
                        }
                        Source::Pack(kind)
                    }
                };
                if !choice.sources.contains(&(family, source)) {
                    choice.sources.push((family, source));
                }
            }
            for family in named {
                if !choice.families.contains(&family) {
                    choice.families.push(family);
                }
            }
        }
        Ok(choice)
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

/// The built-in tasks by their descriptions alone (`registry/table.rs`): enough to validate graphs, list and
/// pick tasks; instantiating one is refused with a message naming it. The same keys, ids, names, kinds and
/// descriptions as `builtin()`, in the same order (a test compares them).
pub fn described() -> Registry {
    let mut registry = Registry::default();
    for t in table::TASKS {
        let info = TaskInfo {
            key: t.key.to_string(),
            family: t.family,
            task_id: t.task_id,
            name: t.name.to_string(),
            input_kinds: t.inputs.to_vec(),
            output_kind: t.output,
            description: t.description.to_string(),
        };
        registry.add(Rc::new(Described(info))).expect("the table's keys are unique");
    }
    registry
}

/// One row of `registry/table.rs`.
struct Row {
    key: &'static str,
    family: Family,
    task_id: u32,
    name: &'static str,
    inputs: &'static [Kind],
    output: Kind,
    description: &'static str,
}

/// A task known by its description only.
struct Described(TaskInfo);

impl Task for Described {
    fn info(&self) -> &TaskInfo {
        &self.0
    }

    fn instantiate(&self, _: &TaskContext<'_>, _: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        Err(TaskError::Compute(format!("`{}` is only described here: instances are made where the built-in registry is loaded", self.0.key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_familys_tasks_are_in_task_id_order_and_ties_in_the_order_added() {
        let mut registry = builtin();
        // A pack's task that shares its id with one of ours comes after it, as a stable sort puts it.
        let mut info = registry.family(Family::Python)[3].info().clone();
        info.key = "python_ref_tie".into();
        registry.add_described(info, PackKind::PythonRef).unwrap();
        let keys = |tasks: &[Rc<dyn Task>]| tasks.iter().map(|t| t.info().key.clone()).collect::<Vec<_>>();
        for family in Family::EVERY {
            let mut expected: Vec<Rc<dyn Task>> = registry.iter().filter(|t| t.info().family == family).cloned().collect();
            expected.sort_by_key(|t| t.info().task_id);
            assert!(!expected.is_empty(), "{family:?}");
            assert_eq!(keys(&registry.family(family)), keys(&expected), "{family:?}");
        }
        assert_eq!(registry.family(Family::Python)[4].info().key, "python_ref_tie");
        let view = registry.view(&FamilyChoice::default());
        assert_eq!(keys(&view.family(Family::Math)), keys(&registry.family(Family::Math)));
    }

    /// The source of `registry/table.rs` for `registry`.
    fn table_source(registry: &Registry) -> String {
        let mut out = String::from(
            "//! The built-in tasks' descriptions, one row per task in registration order: written by the test\n\
             //! `the_table_is_the_builtin_registry` from `builtin()` (`UPDATE_EXPECT=1 cargo test --lib registry`), never by hand.\n\n\
             use super::Row;\nuse crate::engine::tasks::Family::*;\nuse crate::engine::value::Kind::*;\n\n\
             pub(super) const TASKS: &[Row] = &[\n",
        );
        for task in registry.iter() {
            let i = task.info();
            let inputs: Vec<String> = i.input_kinds.iter().map(|k| format!("{k:?}")).collect();
            out.push_str(&format!(
                "    Row {{ key: {:?}, family: {:?}, task_id: {}, name: {:?}, inputs: &[{}], output: {:?}, description: {:?} }},\n",
                i.key,
                i.family,
                i.task_id,
                i.name,
                inputs.join(", "),
                i.output_kind,
                i.description
            ));
        }
        out.push_str("];\n");
        out
    }

    #[test]
    fn the_table_is_the_builtin_registry() {
        expect_test::expect_file!["table.rs"].assert_eq(&table_source(&builtin()));
    }

    #[test]
    fn the_described_registry_lists_what_the_builtin_one_does_and_refuses_to_generate() {
        let (built, described) = (builtin(), described());
        assert_eq!(built.len(), described.len());
        for (b, d) in built.iter().zip(described.iter()) {
            assert_eq!(b.info(), d.info());
        }
        let conv = described.get("math.ConvolutionTask").expect("the convolution task is described");
        let input = crate::engine::value::Value::List(vec![]);
        let ctx = TaskContext { number: 1, input_name: "task_1_input", input: &input, output_kind: None };
        let err = conv.instantiate(&ctx, &mut InstanceRng::from_seed(0)).unwrap_err();
        assert_eq!(err.to_string(), "computation failed: `math.ConvolutionTask` is only described here: instances are made where the built-in registry is loaded");
    }
}
