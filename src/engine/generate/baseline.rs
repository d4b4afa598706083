//! Baseline (one task) and forgetting (independent distractors, then the target) samples.

use std::rc::Rc;

use super::text::{define_lines, forgetting_preamble, static_lines};
use super::{random_input, run_stage, GenerateConfig, Sample, SampleShape, Stage};
use crate::engine::filter::Filter;
use crate::engine::prompt::{join_blocks, Prompt};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, Task, TaskInstance};

/// One baseline sample: `Define task_1_input = …` (and Python statics), then the task block.
pub fn baseline(target: &Rc<dyn Task>, rng: &mut InstanceRng) -> Result<Sample, String> {
    let (stage, block) = standalone(target.as_ref(), 1, rng)?;
    let prompt = join_blocks(&[block]);
    Ok(Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input: stage.input_value.clone(),
        prompt,
        ground_truth: stage.ground_truth.clone(),
        target_output_name: stage.output_name(),
        stages: vec![stage],
        shape: SampleShape::Baseline,
    })
}

/// One forgetting sample: `distractors` tasks of other names, each independent, then the target.
pub fn forgetting(config: &GenerateConfig, registry: &Registry, target: &Rc<dyn Task>, distractors: usize, rng: &mut InstanceRng) -> Result<Sample, String> {
    // Distinct tasks, none with the target's name, from the run's families.
    let mut pool: Vec<Rc<dyn Task>> = config
        .families
        .iter()
        .flat_map(|&f| registry.family(f))
        .filter(|t| t.info().name != target.info().name && t.info().key != target.info().key)
        .collect();
    let mut names: Vec<String> = Vec::new();
    pool.retain(|t| {
        let fresh = !names.contains(&t.info().name);
        if fresh {
            names.push(t.info().name.clone());
        }
        fresh
    });
    if pool.len() < distractors {
        return Err(format!("only {} distinct distractor tasks available, {distractors} needed", pool.len()));
    }
    let chosen: Vec<Rc<dyn Task>> = rng.sample_indices(pool.len(), distractors).into_iter().map(|i| pool[i].clone()).collect();
    let mut stages = Vec::with_capacity(distractors + 1);
    let mut blocks = vec![forgetting_preamble()];
    for (k, task) in chosen.iter().chain(std::iter::once(target)).enumerate() {
        let (stage, block) = standalone(task.as_ref(), k + 1, rng)?;
        stages.push(stage);
        blocks.push(block);
    }
    let target_stage = stages.last().expect("the target is always a stage").clone();
    Ok(Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input: target_stage.input_value.clone(),
        prompt: join_blocks(&blocks),
        ground_truth: target_stage.ground_truth.clone(),
        target_output_name: target_stage.output_name(),
        stages,
        shape: SampleShape::Forgetting,
    })
}

/// A task on a fresh input with its own `Define` lines, under the baseline filter (none for word problems, as in
/// the reference, nor for image tasks, whose answers are readings). Retries the input a bounded number of times.
fn standalone(task: &dyn Task, number: usize, rng: &mut InstanceRng) -> Result<(Stage, Prompt), String> {
    let filter = if matches!(task.info().family, Family::Gsm | Family::Image) { Filter::None } else { Filter::Baseline };
    let input_name = format!("task_{number}_input");
    let mut last = String::new();
    for _ in 0..STANDALONE_TRIES {
        let input = random_input(task.info().primary_input_kind(), rng);
        match run_stage(task, number, &input_name, &input, None, filter, rng) {
            Ok((stage, TaskInstance { body, .. })) => {
                let mut block = Prompt::new();
                let mut defines = vec![(input_name.clone(), input.clone())];
                defines.extend(static_lines(number, &stage.statics));
                define_lines(&mut block, &defines);
                block.append(&body);
                return Ok((stage, block));
            }
            Err(problem) => last = problem.to_string(),
        }
    }
    Err(last)
}

/// Inputs tried per task before the whole attempt is abandoned (PolyRemainder's filter keeps about 1 in 10).
const STANDALONE_TRIES: usize = 200;
