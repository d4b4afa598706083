//! Multichain samples: flat segments and branch blocks. The last task before a block outputs a list whose first
//! B elements feed B scalar branches; the branch results are recombined into a 10-element list for the next
//! segment. Tasks are drawn per position (kind-matched, distinct), the target fixed at the end.

use std::collections::HashSet;
use std::rc::Rc;

use super::structure::{Structure, StructureItem};
use super::text::{conditions, expansion_paragraph, graph_preamble, recombination_paragraph, recombine, static_lines};
use super::{random_input, run_stage, stage_filter, Branch, BranchBlock, Sample, SampleShape, Stage};
use crate::engine::prompt::{join_blocks, Prompt};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, Task, TaskInfo};
use crate::engine::value::{Kind, Number, Value};

/// Where a position sits in the structure.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// A flat task; `first_after_block` takes the recombined list; `last_before_block` must output a list.
    Flat { first_after_block: bool, last_before_block: bool },
    /// A branch task of block `block`, branch `branch`.
    Branch { block: usize, branch: usize, first: bool, last: bool },
}

/// Positions in numbering order: each flat segment, then each block's branches one after another.
fn positions(structure: &Structure) -> Vec<(Family, Place)> {
    let items = &structure.items;
    let mut out = Vec::new();
    let mut block = 0;
    let mut k = 0;
    let mut after_block = false;
    while k < items.len() {
        match &items[k] {
            StructureItem::Flat(f) => {
                let last_before_block = matches!(items.get(k + 1), Some(StructureItem::Branch(_)));
                out.push((*f, Place::Flat { first_after_block: after_block, last_before_block }));
                after_block = false;
                k += 1;
            }
            StructureItem::Branch(_) => {
                let mut branch = 0;
                while let Some(StructureItem::Branch(tasks)) = items.get(k) {
                    for (i, f) in tasks.iter().enumerate() {
                        out.push((*f, Place::Branch { block, branch, first: i == 0, last: i + 1 == tasks.len() }));
                    }
                    branch += 1;
                    k += 1;
                }
                block += 1;
                after_block = true;
            }
        }
    }
    out
}

/// Checks that every position can be filled at all: a list-producing task before each block, list-taking tasks
/// after it, scalar tasks inside branches.
pub fn check_feasible(structure: &Structure, registry: &Registry) -> Result<(), String> {
    for (family, place) in positions(structure) {
        let (input, output, what) = match place {
            Place::Flat { last_before_block: true, .. } => (None, Some(Kind::List), "outputs a list (to split into branches)"),
            Place::Flat { first_after_block: true, .. } => (Some(Kind::List), None, "takes a list (the recombined branches)"),
            Place::Branch { first: true, .. } => (Some(Kind::Scalar), None, "takes a scalar (a branch input)"),
            Place::Branch { last: true, .. } => (None, Some(Kind::Scalar), "outputs a scalar (a branch result)"),
            _ => (None, None, ""),
        };
        if registry.matching(family, input, output).is_empty() {
            return Err(format!("this structure needs a {family} task that {what}, and there is none"));
        }
    }
    Ok(())
}

/// True if `target` can end this structure (it must take a list when it directly follows a block).
pub fn can_be_target(structure: &Structure, target: &TaskInfo, registry: &Registry) -> bool {
    let places = positions(structure);
    match places.last() {
        Some((_, Place::Flat { first_after_block: true, .. })) => target.accepts(Kind::List),
        Some(_) => places.len() == 1 || target.input_kinds.iter().any(|&k| !registry.matching(places[places.len() - 2].0, None, Some(k)).is_empty()),
        None => false,
    }
}

/// One multichain sample.
pub fn multichain(structure: &Structure, registry: &Registry, target: &Rc<dyn Task>, rng: &mut InstanceRng) -> Result<Sample, String> {
    let places = positions(structure);
    let n = places.len();
    let mut used: HashSet<String> = HashSet::from([target.info().key.clone()]);
    let mut stages: Vec<Stage> = Vec::with_capacity(n);
    let mut parts: Vec<Prompt> = Vec::new();
    let mut blocks: Vec<BranchBlock> = Vec::new();
    let mut chain_input: Option<Value> = None;
    let mut flat_value: Option<Value> = None; // The value flowing along flat segments.
    let mut expansion: Option<(usize, Vec<Number>)> = None; // (task number, list) of the open block.
    let mut branch_value: Option<Value> = None;
    let mut branch_results: Vec<Number> = Vec::new();
    let mut branch_records: Vec<Branch> = Vec::new();

    for (p, &(family, place)) in places.iter().enumerate() {
        let number = p + 1;
        let is_target = p + 1 == n;
        // The incoming value and its name.
        let (input_name, incoming): (String, Option<Value>) = match place {
            Place::Flat { first_after_block: true, .. } => {
                let block = blocks.last().ok_or("a post-block segment without a block")?;
                (block.next_input_name.clone(), Some(Value::List(block.recombined.clone())))
            }
            Place::Flat { .. } if p == 0 => ("task_1_input".into(), None),
            Place::Flat { .. } => (format!("task_{}_out", number - 1), flat_value.clone()),
            Place::Branch { branch, first: true, .. } => {
                let (_, list) = expansion.as_ref().ok_or("a branch without an expansion")?;
                let x = *list.get(branch).ok_or_else(|| format!("the expansion list has {} elements, too few for branch {branch}", list.len()))?;
                (format!("task_{number}_input"), Some(Value::Scalar(x)))
            }
            Place::Branch { .. } => (format!("task_{}_out", number - 1), branch_value.clone()),
        };
        // Output constraint.
        let next_target_kinds: Option<&[Kind]> = if p + 2 == n { Some(&target.info().input_kinds) } else { None };
        let required_out: Option<Kind> = match place {
            Place::Flat { last_before_block: true, .. } => Some(Kind::List),
            Place::Branch { last: true, .. } => Some(Kind::Scalar),
            _ => None,
        };
        let candidates: Vec<Rc<dyn Task>> = if is_target {
            vec![target.clone()]
        } else {
            let mut c: Vec<Rc<dyn Task>> = registry
                .matching(family, incoming.as_ref().map(Value::kind), required_out)
                .into_iter()
                .filter(|t| !used.contains(&t.info().key))
                .filter(|t| next_target_kinds.is_none_or(|ks| ks.contains(&t.info().output_kind)))
                .collect();
            rng.shuffle(&mut c);
            c
        };
        let mut made = None;
        let mut last = format!("no {family} candidate for position {number}");
        for task in candidates {
            let input = match &incoming {
                Some(v) => v.clone(),
                None => random_input(task.info().primary_input_kind(), rng),
            };
            if !task.info().accepts(input.kind()) {
                last = format!("{} does not accept a {} input", task.info().key, input.kind());
                continue;
            }
            match run_stage(task.as_ref(), number, &input_name, &input, required_out, stage_filter(task.info().family), rng) {
                Ok(done) => {
                    if p == 0 {
                        chain_input = Some(input);
                    }
                    made = Some(done);
                    break;
                }
                Err(problem) => last = problem,
            }
        }
        let (stage, instance) = made.ok_or(last)?;
        used.insert(stage.info.key.clone());
        parts.push(instance.body);
        let output = stage.ground_truth.clone();
        match place {
            Place::Flat { last_before_block, .. } => {
                flat_value = Some(output.clone());
                if last_before_block {
                    let Value::List(items) = &output else { return Err("expansion output is not a list".into()) };
                    let count = branch_count(structure, blocks.len());
                    if items.len() < count {
                        return Err(format!("the expansion list has {} elements, {count} branches need inputs", items.len()));
                    }
                    let inputs: Vec<String> = branch_starts(&places, blocks.len(), p).into_iter().map(|s| format!("task_{s}_input")).collect();
                    parts.push(expansion_paragraph(&stage.output_name(), &inputs));
                    expansion = Some((number, items.clone()));
                    branch_records.clear();
                    branch_results.clear();
                }
            }
            Place::Branch { block, first, last, .. } => {
                if first {
                    let Some(Value::Scalar(x)) = &incoming else { return Err("a branch input must be a scalar".into()) };
                    branch_records.push(Branch { input_name: input_name.clone(), input_value: *x, stages: Vec::new() });
                }
                if let Some(record) = branch_records.last_mut() {
                    record.stages.push(number);
                }
                branch_value = Some(output.clone());
                if last {
                    let Value::Scalar(x) = output else { return Err("a branch output must be a scalar".into()) };
                    branch_results.push(x);
                    let closes_block = !matches!(places.get(p + 1), Some((_, Place::Branch { block: b, .. })) if *b == block);
                    if closes_block {
                        let next_number = number + 1;
                        let next_input_name = format!("task_{next_number}_input");
                        let names: Vec<String> = branch_records.iter().map(|b| format!("task_{}_out", b.stages.last().copied().unwrap_or(0))).collect();
                        parts.push(recombination_paragraph(&next_input_name, &names, true));
                        let (expansion_task_number, _) = expansion.take().ok_or("a block without an expansion")?;
                        blocks.push(BranchBlock {
                            expansion_task_number,
                            branches: std::mem::take(&mut branch_records),
                            next_input_name,
                            prelim: branch_results.clone(),
                            recombined: recombine(&branch_results),
                        });
                        branch_results.clear();
                    }
                }
            }
        }
        stages.push(stage);
    }

    let chain_input = chain_input.ok_or("no first stage")?;
    let mut lines = vec![("task_1_input".to_string(), chain_input.clone())];
    for stage in &stages {
        lines.extend(static_lines(stage.number, &stage.statics));
    }
    let mut all = vec![graph_preamble(), conditions("Initial Conditions:", &lines)];
    all.extend(parts);
    let last = stages.last().ok_or("empty structure")?.clone();
    Ok(Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input,
        prompt: join_blocks(&all),
        ground_truth: last.ground_truth.clone(),
        target_output_name: last.output_name(),
        stages,
        shape: SampleShape::Multichain { blocks },
    })
}

/// Number of branches in block `block`.
fn branch_count(structure: &Structure, block: usize) -> usize {
    let mut seen = 0;
    let mut k = 0;
    let items = &structure.items;
    while k < items.len() {
        if matches!(items[k], StructureItem::Branch(_)) {
            let start = k;
            while k < items.len() && matches!(items[k], StructureItem::Branch(_)) {
                k += 1;
            }
            if seen == block {
                return k - start;
            }
            seen += 1;
        } else {
            k += 1;
        }
    }
    0
}

/// Task numbers of the first task of each branch of the block that follows position `p`.
fn branch_starts(places: &[(Family, Place)], block: usize, p: usize) -> Vec<usize> {
    places
        .iter()
        .enumerate()
        .skip(p + 1)
        .filter(|(_, (_, place))| matches!(place, Place::Branch { block: b, first: true, .. } if *b == block))
        .map(|(i, _)| i + 1)
        .collect()
}
