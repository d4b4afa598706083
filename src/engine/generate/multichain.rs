//! Multichain samples: flat segments and branch blocks. The last task before a block outputs a list whose first
//! B elements feed B scalar branches; the branch results are recombined into a 10-element list for the next
//! segment. Tasks are drawn per position (kind-matched, distinct while the family lasts), the target fixed at the
//! end; a position whose candidates all fail sends the shared backtracking search back to the position feeding it.

use std::collections::HashMap;
use std::rc::Rc;

use super::search::{search, Budget, Mode, Round, Stages};
use super::structure::{Structure, StructureItem};
use super::text::{conditions, expansion_paragraph, graph_preamble, join_owned, recombination_paragraph, recombine, static_lines};
use super::{random_input, run_stage, stage_filter, Branch, BranchBlock, Sample, SampleShape, Stage};
use crate::engine::prompt::Prompt;
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, Task, TaskInfo, TaskInstance};
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

/// Where a position's input comes from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// The first task: a fresh random input.
    Root,
    /// The previous position's output.
    Previous(usize),
    /// Element `index` of an expansion position's list (a branch input).
    Element { from: usize, index: usize },
    /// The recombined results of a block's branches (their last positions).
    Recombined(Vec<usize>),
}

/// The source of every position, in numbering order.
fn sources(places: &[(Family, Place)]) -> Vec<Source> {
    let mut out = Vec::with_capacity(places.len());
    let mut expansion = 0;
    let mut lasts: Vec<usize> = Vec::new();
    for (p, (_, place)) in places.iter().enumerate() {
        out.push(match *place {
            Place::Flat { .. } if p == 0 => Source::Root,
            Place::Flat { first_after_block: true, .. } => Source::Recombined(std::mem::take(&mut lasts)),
            Place::Flat { .. } => Source::Previous(p - 1),
            Place::Branch { branch, first: true, .. } => Source::Element { from: expansion, index: branch },
            Place::Branch { .. } => Source::Previous(p - 1),
        });
        match *place {
            Place::Flat { last_before_block: true, .. } => {
                expansion = p;
                lasts.clear();
            }
            Place::Branch { last: true, .. } => lasts.push(p),
            _ => {}
        }
    }
    out
}

/// One multichain sample, or `None` when this attempt failed (the reason is in `budget.stuck`).
pub fn multichain(structure: &Structure, registry: &Registry, target: &Rc<dyn Task>, mode: Mode, rng: &mut InstanceRng, derive: &dyn Fn(usize, u64) -> InstanceRng, budget: &mut Budget) -> Result<Option<Sample>, String> {
    let places = positions(structure);
    let mut stages = MultichainStages {
        sources: sources(&places),
        branch_counts: (0..places.len()).map(|_| 0).collect(),
        places,
        registry,
        target: target.clone(),
        counts: HashMap::from([(target.info().key.clone(), 1)]),
        repeats: mode == Mode::Repair,
    };
    let mut block = 0;
    for p in 0..stages.places.len() {
        if let Place::Flat { last_before_block: true, .. } = stages.places[p].1 {
            stages.branch_counts[p] = branch_count(structure, block);
            block += 1;
        }
    }
    let Some(made) = search(&mut stages, mode, rng, derive, budget) else { return Ok(None) };
    assemble(&stages.places, target, made).map(Some)
}

/// The positions as the search sees them, with how often each task is used so far (the target from the start).
struct MultichainStages<'a> {
    places: Vec<(Family, Place)>,
    sources: Vec<Source>,
    /// For an expansion position: how many branches its list feeds.
    branch_counts: Vec<usize>,
    registry: &'a Registry,
    target: Rc<dyn Task>,
    counts: HashMap<String, usize>,
    /// Repair searches may repeat a task once every fitting one is used (long structures outgrow a family).
    repeats: bool,
}

impl MultichainStages<'_> {
    /// The input name and value of position `p` (`None` for the first task: drawn per candidate).
    fn input(&self, p: usize, made: &[Option<(Stage, TaskInstance)>]) -> Result<(String, Option<Value>), String> {
        let number = p + 1;
        let output = |q: usize| made[q].as_ref().map(|(s, _)| &s.ground_truth).ok_or("an earlier position was not made");
        Ok(match &self.sources[p] {
            Source::Root => ("task_1_input".into(), None),
            Source::Previous(q) => (format!("task_{}_out", q + 1), Some(output(*q)?.clone())),
            Source::Element { from, index } => {
                let Value::List(items) = output(*from)? else { return Err("the expansion output is not a list".into()) };
                let x = *items.get(*index).ok_or_else(|| format!("the expansion list has {} elements, too few for branch {index}", items.len()))?;
                (format!("task_{number}_input"), Some(Value::Scalar(x)))
            }
            Source::Recombined(lasts) => {
                let mut parts = Vec::with_capacity(lasts.len());
                for &q in lasts {
                    let Value::Scalar(x) = output(q)? else { return Err("a branch output must be a scalar".into()) };
                    parts.push(*x);
                }
                (format!("task_{number}_input"), Some(Value::List(recombine(&parts))))
            }
        })
    }

    fn required_output(&self, p: usize) -> Option<Kind> {
        match self.places[p].1 {
            Place::Flat { last_before_block: true, .. } => Some(Kind::List),
            Place::Branch { last: true, .. } => Some(Kind::Scalar),
            _ => None,
        }
    }
}

impl Stages for MultichainStages<'_> {
    type Candidate = Rc<dyn Task>;
    type Made = (Stage, TaskInstance);

    fn len(&self) -> usize {
        self.places.len()
    }

    /// The family's tasks that take the incoming kind and give the required one, not yet used (in a repair search:
    /// any, once every fitting task is used), in random order; the target alone at the end. A position whose list
    /// ran out is not redrawn: the search backs up to the position that feeds it.
    fn candidates(&mut self, p: usize, made: &[Option<Self::Made>], round: Round, rng: &mut InstanceRng) -> Vec<Rc<dyn Task>> {
        let n = self.places.len();
        if p + 1 == n {
            return if round == Round::Again { Vec::new() } else { vec![self.target.clone()] };
        }
        if round == Round::Again {
            return Vec::new();
        }
        let incoming = match self.input(p, made) {
            Ok((_, value)) => value.map(|v| v.kind()),
            Err(_) => return Vec::new(),
        };
        let next_target_kinds: Option<&[Kind]> = if p + 2 == n { Some(&self.target.info().input_kinds) } else { None };
        let fitting: Vec<Rc<dyn Task>> = self
            .registry
            .matching(self.places[p].0, incoming, self.required_output(p))
            .into_iter()
            .filter(|t| next_target_kinds.is_none_or(|ks| ks.contains(&t.info().output_kind)))
            .collect();
        let unused: Vec<Rc<dyn Task>> = fitting.iter().filter(|t| self.counts.get(&t.info().key).is_none_or(|&c| c == 0)).cloned().collect();
        let mut list = if unused.is_empty() && self.repeats { fitting } else { unused };
        rng.shuffle(&mut list);
        list
    }

    fn run(&mut self, p: usize, task: &Rc<dyn Task>, made: &[Option<Self::Made>], rng: &mut InstanceRng) -> Result<Self::Made, String> {
        let (input_name, incoming) = self.input(p, made)?;
        let input = match incoming {
            Some(v) => v,
            None => random_input(task.info().primary_input_kind(), rng),
        };
        if !task.info().accepts(input.kind()) {
            return Err(format!("does not accept a {} input", input.kind()));
        }
        let done = run_stage(task.as_ref(), p + 1, &input_name, &input, self.required_output(p), stage_filter(task.info().family), rng).map_err(|e| e.reason)?;
        let count = self.branch_counts[p];
        if count > 0 {
            let len = match &done.0.ground_truth {
                Value::List(items) => items.len(),
                Value::Scalar(_) => 0,
            };
            if len < count {
                return Err(format!("the expansion list has {len} elements, {count} branches need inputs"));
            }
        }
        *self.counts.entry(task.info().key.clone()).or_default() += 1;
        Ok(done)
    }

    fn forget(&mut self, _p: usize, made: &Self::Made) {
        if let Some(c) = self.counts.get_mut(&made.0.info.key) {
            *c = c.saturating_sub(1);
        }
    }

    fn feeder(&self, p: usize) -> Option<usize> {
        match &self.sources[p] {
            Source::Root => None,
            Source::Previous(q) | Source::Element { from: q, .. } => Some(*q),
            Source::Recombined(lasts) => lasts.iter().copied().max(),
        }
    }

    fn name(&self, task: &Rc<dyn Task>) -> String {
        task.info().key.clone()
    }

    fn slot(&self, p: usize) -> String {
        if p + 1 == self.places.len() {
            self.target.info().key.clone()
        } else {
            format!("a {} task", self.places[p].0)
        }
    }
}

/// The sample from its made positions: task blocks in numbering order, an expansion paragraph after each
/// expansion task, a recombination paragraph after each block, and the block records.
fn assemble(places: &[(Family, Place)], target: &Rc<dyn Task>, made: Vec<(Stage, TaskInstance)>) -> Result<Sample, String> {
    let n = places.len();
    let chain_input = made.first().map(|(s, _)| s.input_value.clone()).ok_or("empty structure")?;
    let mut stages: Vec<Stage> = Vec::with_capacity(n);
    let mut parts: Vec<Prompt> = Vec::with_capacity(n + 4);
    let mut blocks: Vec<BranchBlock> = Vec::new();
    let mut expansion: Option<usize> = None; // Task number of the open block's expansion.
    let mut branch_results: Vec<Number> = Vec::new();
    let mut branch_records: Vec<Branch> = Vec::new();
    for (p, (stage, instance)) in made.into_iter().enumerate() {
        let number = p + 1;
        parts.push(instance.body);
        match places[p].1 {
            Place::Flat { last_before_block, .. } => {
                if last_before_block {
                    let inputs: Vec<String> = branch_starts(places, blocks.len(), p).into_iter().map(|s| format!("task_{s}_input")).collect();
                    parts.push(expansion_paragraph(&stage.output_name(), &inputs));
                    expansion = Some(number);
                    branch_records.clear();
                    branch_results.clear();
                }
            }
            Place::Branch { block, first, last, .. } => {
                if first {
                    let Value::Scalar(x) = &stage.input_value else { return Err("a branch input must be a scalar".into()) };
                    branch_records.push(Branch { input_name: stage.input_name.clone(), input_value: *x, stages: Vec::new() });
                }
                if let Some(record) = branch_records.last_mut() {
                    record.stages.push(number);
                }
                if last {
                    let Value::Scalar(x) = stage.ground_truth else { return Err("a branch output must be a scalar".into()) };
                    branch_results.push(x);
                    let closes_block = !matches!(places.get(p + 1), Some((_, Place::Branch { block: b, .. })) if *b == block);
                    if closes_block {
                        let next_input_name = format!("task_{}_input", number + 1);
                        let names: Vec<String> = branch_records.iter().map(|b| format!("task_{}_out", b.stages.last().copied().unwrap_or(0))).collect();
                        parts.push(recombination_paragraph(&next_input_name, &names, true));
                        let expansion_task_number = expansion.take().ok_or("a block without an expansion")?;
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
    let mut lines = vec![("task_1_input".to_string(), chain_input.clone())];
    for stage in &stages {
        lines.extend(static_lines(stage.number, &stage.statics));
    }
    let mut all = vec![graph_preamble(), conditions("Initial Conditions:", &lines)];
    all.extend(parts);
    let last = stages.last().ok_or("empty structure")?;
    Ok(Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input,
        prompt: join_owned(all),
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

#[cfg(test)]
mod tests {
    use super::super::{generate, generate_sample, parse_structure, GenerateConfig, SampleShape, Topology};
    use crate::engine::tasks::registry::builtin;
    use crate::engine::tasks::Family;
    use crate::engine::value::Value;

    #[test]
    fn a_multichain_of_200_tasks_generates_wired_and_regenerates_alone() {
        let registry = builtin();
        let text = format!("{}m,m", "m,m,[m,m],[m,m],".repeat(33));
        let structure = parse_structure(&text).expect("valid structure");
        assert_eq!(structure.task_count(), 200);
        let mut config = GenerateConfig::new(Topology::Multichain(structure), vec![Family::Math]);
        config.samples_per_target = 2;
        config.seed = 3;
        let target = crate::engine::generate::targets(&config, &registry).expect("targets")[0].info().key.clone();
        config.only_targets = vec![target];
        let all = generate(&config, &registry, &mut |_, _| {}).expect("the long multichain generates");
        for sample in &all {
            assert_eq!(sample.stages.len(), 200);
            let SampleShape::Multichain { blocks } = &sample.shape else { panic!("multichain shape") };
            assert_eq!(blocks.len(), 33);
            for block in blocks {
                let Value::List(expansion) = &sample.stages[block.expansion_task_number - 1].ground_truth else { panic!("expansion is a list") };
                for (i, branch) in block.branches.iter().enumerate() {
                    assert_eq!(branch.input_value, expansion[i]);
                }
                let next = sample.stages.iter().find(|s| s.input_name == block.next_input_name).expect("post-block stage");
                assert_eq!(next.input_value, Value::List(block.recombined.clone()));
            }
        }
        assert_eq!(generate_sample(&config, &registry, 0, 1).expect("regenerates"), all[1]);
    }
}
