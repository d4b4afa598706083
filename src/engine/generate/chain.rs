//! Chain samples: a linear chain of tasks, each consuming the previous output, ending in the target.

use std::collections::HashSet;
use std::rc::Rc;

use super::text::{chain_preamble, conditions, static_lines};
use super::{random_input, run_stage, stage_filter, GenerateConfig, Sample, SampleShape};
use crate::engine::prompt::join_blocks;
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::Task;
use crate::engine::value::Kind;

/// One chain sample of `length` tasks (the target last).
pub fn chain(config: &GenerateConfig, registry: &Registry, target: &Rc<dyn Task>, length: usize, rng: &mut InstanceRng) -> Result<Sample, String> {
    let pool: Vec<Rc<dyn Task>> = config.families.iter().flat_map(|&f| registry.family(f)).collect();
    // Predecessors backwards, kind-matched, distinct while the pool lasts.
    let mut picked: Vec<Rc<dyn Task>> = vec![target.clone()];
    let mut used: HashSet<&str> = HashSet::from([target.info().key.as_str()]);
    let mut required: Kind = target.info().primary_input_kind();
    for _ in 1..length {
        let unused: Vec<&Rc<dyn Task>> = pool
            .iter()
            .filter(|t| t.info().output_kind == required && !used.contains(t.info().key.as_str()))
            .collect();
        let candidates: Vec<&Rc<dyn Task>> =
            if unused.is_empty() { pool.iter().filter(|t| t.info().output_kind == required).collect() } else { unused };
        let chosen = rng.choose(&candidates).ok_or_else(|| format!("no task outputs a {required}"))?;
        required = chosen.info().primary_input_kind();
        used.insert(chosen.info().key.as_str());
        picked.push((*chosen).clone());
    }
    picked.reverse();

    let chain_input = random_input(picked[0].info().primary_input_kind(), rng);
    let mut stages = Vec::with_capacity(length);
    let mut bodies = Vec::with_capacity(length);
    let mut value = chain_input.clone();
    for (k, task) in picked.iter().enumerate() {
        let number = k + 1;
        let input_name = if number == 1 { "task_1_input".to_string() } else { format!("task_{}_out", number - 1) };
        let (stage, instance) = run_stage(task.as_ref(), number, &input_name, &value, None, stage_filter(task.info().family), rng)?;
        value = stage.ground_truth.clone();
        stages.push(stage);
        bodies.push(instance.body);
    }
    let mut lines = vec![("task_1_input".to_string(), chain_input.clone())];
    for stage in &stages {
        lines.extend(static_lines(stage.number, &stage.statics));
    }
    let mut blocks = vec![chain_preamble(), conditions("Initial Conditions:", &lines)];
    blocks.extend(bodies);
    let last = stages.last().expect("length is at least 1").clone();
    Ok(Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input,
        prompt: join_blocks(&blocks),
        ground_truth: last.ground_truth.clone(),
        target_output_name: last.output_name(),
        stages,
        shape: SampleShape::Chain,
    })
}
