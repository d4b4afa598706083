//! Chain samples: a linear chain of tasks, each consuming the previous output, ending in the target.
//!
//! The tasks are picked backwards (kind-matched, distinct while the pool lasts) and made in order by the shared
//! search. A single pass (the reference's attempt) gives up at the first degenerate stage. A repair search redraws
//! such a stage (the same task with fresh draws, then other tasks of the same input and output kinds) and only if
//! that keeps failing backs up to the stage before it, so chains of thousands of tasks generate, where resampling
//! the whole chain almost never succeeds.

use std::rc::Rc;

use super::search::{search, Budget, Mode, Round, Stages, Stuck};
use super::text::{chain_preamble, conditions, join_owned, static_lines};
use super::{random_input, run_stage, stage_filter, GenerateConfig, Sample, SampleShape, Stage};
use crate::engine::prompt::Prompt;
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Task, TaskInstance};
use crate::engine::value::{Kind, Value};

/// One chain sample of `length` tasks (the target last), or `None` when this attempt failed (the reason is in
/// `budget.stuck`).
#[allow(clippy::too_many_arguments)]
pub fn chain(config: &GenerateConfig, registry: &Registry, target: &Rc<dyn Task>, length: usize, mode: Mode, rng: &mut InstanceRng, derive: &dyn Fn(usize, u64) -> InstanceRng, budget: &mut Budget) -> Option<Sample> {
    let mut pool: Vec<Rc<dyn Task>> = config.families.iter().flat_map(|&f| registry.family(f)).collect();
    let target_at = match pool.iter().position(|t| t.info().key == target.info().key) {
        Some(at) => at,
        None => {
            pool.push(target.clone());
            pool.len() - 1
        }
    };
    let plan = match pick(&pool, target_at, length, rng) {
        Ok(plan) => plan,
        Err(stuck) => {
            budget.stuck.get_or_insert(stuck);
            return None;
        }
    };
    let mut counts = vec![0usize; pool.len()];
    for &t in &plan {
        counts[t] += 1;
    }
    let mut stages = ChainStages { pool, plan, counts };
    let made = search(&mut stages, mode, rng, derive, budget)?;
    Some(assemble(target, made))
}

/// Predecessors backwards, kind-matched, distinct while the pool lasts; returned in chain order as pool indices.
/// Each step draws uniformly from the pool's tasks (in pool order) that output the required kind and are not yet
/// used, or from all of them once every one is used; per-kind lists and unused counts keep a step cheap in very
/// long chains.
fn pick(pool: &[Rc<dyn Task>], target: usize, length: usize, rng: &mut InstanceRng) -> Result<Vec<usize>, Stuck> {
    let slot = |kind: Kind| usize::from(kind == Kind::List);
    let mut lists: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for (i, task) in pool.iter().enumerate() {
        lists[slot(task.info().output_kind)].push(i);
    }
    let mut used = vec![false; pool.len()];
    used[target] = true;
    let mut unused_left = [0, 1].map(|k| lists[k].iter().filter(|&&i| !used[i]).count());
    let mut picked: Vec<usize> = Vec::with_capacity(length);
    picked.push(target);
    let mut required: Kind = pool[target].info().primary_input_kind();
    let mut unused: Vec<usize> = Vec::new();
    for k in 1..length {
        let all = &lists[slot(required)];
        let candidates: &[usize] = if unused_left[slot(required)] > 0 {
            unused.clear();
            unused.extend(all.iter().copied().filter(|&i| !used[i]));
            &unused
        } else {
            all
        };
        let Some(&chosen) = rng.choose(candidates) else {
            let next = picked[picked.len() - 1];
            return Err(Stuck { stage: length - k - 1, task: pool[next].info().key.clone(), reason: format!("no task of the run's families outputs the {required} it takes") });
        };
        if !used[chosen] {
            used[chosen] = true;
            unused_left[slot(pool[chosen].info().output_kind)] -= 1;
        }
        required = pool[chosen].info().primary_input_kind();
        picked.push(chosen);
    }
    picked.reverse();
    Ok(picked)
}

/// The chain as the search sees it: the current plan (a pool index per stage) and how often each pool task
/// occurs in it.
struct ChainStages {
    pool: Vec<Rc<dyn Task>>,
    plan: Vec<usize>,
    counts: Vec<usize>,
}

impl Stages for ChainStages {
    type Candidate = usize;
    type Made = (Stage, TaskInstance);

    fn len(&self) -> usize {
        self.plan.len()
    }

    /// The planned task; when it fails, the planned task again (fresh draws), then the other tasks with the same
    /// input and output kinds in random order, those not yet in the chain first. The target is never replaced.
    fn candidates(&mut self, j: usize, _made: &[Option<Self::Made>], round: Round, rng: &mut InstanceRng) -> Vec<usize> {
        let planned = self.plan[j];
        if round != Round::Again || j + 1 == self.plan.len() {
            return vec![planned];
        }
        let info = self.pool[planned].info();
        let same_kinds = |&i: &usize| {
            let other = self.pool[i].info();
            i != planned && other.primary_input_kind() == info.primary_input_kind() && other.output_kind == info.output_kind
        };
        let mut others: Vec<usize> = (0..self.pool.len()).filter(same_kinds).filter(|&i| self.counts[i] == 0).collect();
        if others.is_empty() {
            others = (0..self.pool.len()).filter(same_kinds).collect();
        }
        rng.shuffle(&mut others);
        let mut list = Vec::with_capacity(others.len() + 1);
        list.push(planned);
        list.extend(others);
        list
    }

    fn run(&mut self, j: usize, &candidate: &usize, made: &[Option<Self::Made>], rng: &mut InstanceRng) -> Result<Self::Made, String> {
        let task = &self.pool[candidate];
        let number = j + 1;
        let (input_name, input) = match j.checked_sub(1) {
            None => ("task_1_input".to_string(), random_input(task.info().primary_input_kind(), rng)),
            Some(p) => {
                let (previous, _) = made[p].as_ref().ok_or("the previous stage was not made")?;
                (previous.output_name(), previous.ground_truth.clone())
            }
        };
        let made = run_stage(task.as_ref(), number, &input_name, &input, None, stage_filter(task.info().family), rng).map_err(|p| p.reason)?;
        let planned = self.plan[j];
        if candidate != planned {
            self.counts[planned] -= 1;
            self.counts[candidate] += 1;
            self.plan[j] = candidate;
        }
        Ok(made)
    }

    fn feeder(&self, j: usize) -> Option<usize> {
        j.checked_sub(1)
    }

    fn name(&self, &candidate: &usize) -> String {
        self.pool[candidate].info().key.clone()
    }

    fn slot(&self, j: usize) -> String {
        self.name(&self.plan[j])
    }
}

/// The sample from its made stages: initial conditions (the chain input, then every stage's statics), then the
/// task blocks in order.
fn assemble(target: &Rc<dyn Task>, made: Vec<(Stage, TaskInstance)>) -> Sample {
    let mut stages = Vec::with_capacity(made.len());
    let mut bodies: Vec<Prompt> = Vec::with_capacity(made.len() + 2);
    let chain_input: Value = made.first().map(|(s, _)| s.input_value.clone()).expect("a chain has at least one stage");
    let mut lines = vec![("task_1_input".to_string(), chain_input.clone())];
    for (stage, instance) in made {
        lines.extend(static_lines(stage.number, &stage.statics));
        bodies.push(instance.body);
        stages.push(stage);
    }
    let mut blocks = vec![chain_preamble(), conditions("Initial Conditions:", &lines)];
    blocks.extend(bodies);
    let last = stages.last().expect("a chain has at least one stage");
    Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input,
        prompt: join_owned(blocks),
        ground_truth: last.ground_truth.clone(),
        target_output_name: last.output_name(),
        stages,
        shape: SampleShape::Chain,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{generate, generate_sample, GenerateConfig, GenerateError, Topology};
    use crate::engine::prompt::{Prompt, Role};
    use crate::engine::rng::InstanceRng;
    use crate::engine::tasks::registry::{builtin, Registry};
    use crate::engine::tasks::{Family, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
    use crate::engine::value::{Kind, Value};
    use std::rc::Rc;

    fn chain_config(family: Family, length: usize, target: &str, samples: u32) -> GenerateConfig {
        let mut config = GenerateConfig::new(Topology::Chain { length }, vec![family]);
        config.samples_per_target = samples;
        config.seed = 5;
        config.only_targets = vec![target.to_string()];
        config
    }

    fn check_long_chain(config: &GenerateConfig, length: usize) {
        let registry = builtin();
        let all = generate(config, &registry, &mut |_, _| {}).expect("a long chain generates");
        assert_eq!(all.len(), 2);
        for sample in &all {
            assert_eq!(sample.stages.len(), length);
            assert_eq!(sample.target_output_name, format!("task_{length}_out"));
            for pair in sample.stages.windows(2) {
                assert_eq!(pair[1].input_value, pair[0].ground_truth);
            }
        }
        let alone = generate_sample(config, &registry, 0, 1).expect("one sample regenerates");
        assert_eq!(alone, all[1]);
    }

    #[test]
    fn a_thousand_task_math_chain_generates_and_regenerates_alone() {
        check_long_chain(&chain_config(Family::Math, 1000, "math.ConvolutionTask", 2), 1000);
    }

    #[test]
    fn a_python_chain_of_256_tasks_generates_and_regenerates_alone() {
        let registry = builtin();
        let target = registry.family(Family::Python)[0].info().key.clone();
        check_long_chain(&chain_config(Family::Python, 256, &target, 2), 256);
    }

    #[test]
    fn python_chains_whose_lists_collapse_are_made_by_fresh_repair_attempts() {
        // Samples that one repair attempt with the whole budget could not make (the lists of these chains
        // collapse into degenerate short lists after a few dozen stages).
        let registry = builtin();
        let mut config = GenerateConfig::new(Topology::Chain { length: 64 }, vec![Family::Python]);
        config.samples_per_target = 1;
        let targets = super::super::targets(&config, &registry).expect("targets");
        for (index, key) in [(4, "python.004_visible_towers"), (7, "python.007_widest_ramp_total"), (11, "python.011_tallest_skyline")] {
            assert_eq!(targets[index].info().key, key);
            let sample = generate_sample(&config, &registry, index, 0).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(sample.stages.len(), 64);
        }
    }

    /// A scalar task whose output is always 0, which every chain filter rejects.
    struct AlwaysZero(TaskInfo);

    impl Task for AlwaysZero {
        fn info(&self) -> &TaskInfo {
            &self.0
        }

        fn instantiate(&self, ctx: &TaskContext<'_>, _rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
            let mut body = Prompt::new();
            body.push(Role::Computation, &format!("Task {}:\nMultiply {} by 0.\n", ctx.number, ctx.input_name));
            Ok(TaskInstance { body, output: Value::int(0), statics: Vec::new(), template_index: None, picture: None })
        }
    }

    #[test]
    fn a_target_that_always_degenerates_fails_with_its_stage_key_and_reason() {
        let mut registry = Registry::default();
        for task in builtin().family(Family::Math) {
            registry.add(task).expect("unique keys");
        }
        let info = TaskInfo {
            key: "math.AlwaysZeroTask".into(),
            family: Family::Math,
            task_id: 999,
            name: "AlwaysZeroTask".into(),
            input_kinds: vec![Kind::Scalar],
            output_kind: Kind::Scalar,
            description: "always 0".into(),
        };
        registry.add(Rc::new(AlwaysZero(info))).expect("unique key");
        let mut config = chain_config(Family::Math, 6, "math.AlwaysZeroTask", 1);
        config.max_attempts = 5;
        let err = generate(&config, &registry, &mut |_, _| {}).unwrap_err();
        let GenerateError::StageFailed { task, stage, stage_task, reason, tries, attempts, .. } = &err else { panic!("a stage failure: {err}") };
        assert_eq!((task.as_str(), *stage, stage_task.as_str()), ("math.AlwaysZeroTask", 6, "math.AlwaysZeroTask"));
        assert_eq!(reason, "degenerate output 0");
        assert!(*tries <= super::super::search::try_budget(6), "{tries}");
        assert!(*attempts > 5, "whole attempts, then repair searches: {attempts}");
        let message = err.to_string();
        assert!(message.contains("stage 6 (math.AlwaysZeroTask)") && message.contains("degenerate output 0"), "{message}");
        assert_eq!(message, message.to_lowercase().replace("alwayszerotask", "AlwaysZeroTask"), "lowercase apart from the key");
    }
}
