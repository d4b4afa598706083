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

/// Positions in numbering order: each flat segment, then each block's branches one after another; with each
/// position's family, place and (0-based) structure item.
fn positions(structure: &Structure) -> Vec<(Family, Place, usize)> {
    let items = &structure.items;
    let mut out = Vec::new();
    let mut block = 0;
    let mut k = 0;
    let mut after_block = false;
    while k < items.len() {
        match &items[k] {
            StructureItem::Flat(f) => {
                let last_before_block = matches!(items.get(k + 1), Some(StructureItem::Branch(_)));
                out.push((*f, Place::Flat { first_after_block: after_block, last_before_block }, k));
                after_block = false;
                k += 1;
            }
            StructureItem::Branch(_) => {
                let mut branch = 0;
                while let Some(StructureItem::Branch(tasks)) = items.get(k) {
                    for (i, f) in tasks.iter().enumerate() {
                        out.push((*f, Place::Branch { block, branch, first: i == 0, last: i + 1 == tasks.len() }, k));
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

/// Splits the final family's tasks into those that can end `structure` and those that cannot, each of the
/// latter with why (its input kinds against what reaches the end: after a block, the recombined list).
///
/// Fails, before any search, when some position cannot be filled at all (a list-producing task before each
/// block, scalar tasks inside branches, list-taking tasks after them, and matching kinds in between), naming the
/// first such position.
pub fn split_targets(structure: &Structure, registry: &Registry) -> Result<(Vec<Rc<dyn Task>>, Vec<(Rc<dyn Task>, String)>), String> {
    let plan = KindPlan::new(structure, registry);
    let reach = plan.reach()?;
    let mut fit = Vec::new();
    let mut misfit = Vec::new();
    for task in registry.family(structure.last_family()) {
        match plan.target_misfit(&reach, task.info()) {
            None => fit.push(task),
            Some(reason) => misfit.push((task, reason)),
        }
    }
    Ok((fit, misfit))
}

/// True when a single pass (which never repeats a task) can fill the structure at all: no family is asked for
/// more tasks than it has. Otherwise only repair searches, which may repeat a task, can make a sample.
pub fn distinct_tasks_suffice(structure: &Structure, registry: &Registry) -> bool {
    let mut wanted: HashMap<Family, usize> = HashMap::new();
    for (family, _, _) in positions(structure) {
        *wanted.entry(family).or_default() += 1;
    }
    wanted.into_iter().all(|(family, count)| count <= registry.family(family).len())
}

/// True unless `task`'s lists always have fewer than `branches` elements (a list split into branches needs one
/// per branch).
fn long_enough(task: &dyn Task, branches: usize) -> bool {
    branches == 0 || task.fixed_list_len().is_none_or(|len| len >= branches)
}

/// A set of value kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Kinds {
    scalar: bool,
    list: bool,
}

impl Kinds {
    const NONE: Kinds = Kinds { scalar: false, list: false };
    const ALL: Kinds = Kinds { scalar: true, list: true };

    fn one(kind: Kind) -> Kinds {
        Kinds { scalar: kind == Kind::Scalar, list: kind == Kind::List }
    }

    fn of(kinds: &[Kind]) -> Kinds {
        kinds.iter().fold(Kinds::NONE, |set, &k| set.or(Kinds::one(k)))
    }

    fn has(self, kind: Kind) -> bool {
        match kind {
            Kind::Scalar => self.scalar,
            Kind::List => self.list,
        }
    }

    fn or(self, other: Kinds) -> Kinds {
        Kinds { scalar: self.scalar || other.scalar, list: self.list || other.list }
    }

    fn and(self, other: Kinds) -> Kinds {
        Kinds { scalar: self.scalar && other.scalar, list: self.list && other.list }
    }

    fn is_empty(self) -> bool {
        self == Kinds::NONE
    }
}

impl std::fmt::Display for Kinds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (self.scalar, self.list) {
            (true, true) => "a scalar or a list",
            (true, false) => "a scalar",
            (false, true) => "a list",
            (false, false) => "nothing",
        })
    }
}

/// Which (input kind, output kind) pairs a set of tasks offers.
#[derive(Clone, Copy, Debug, Default)]
struct Offers {
    /// Outputs of the tasks that take a scalar, and of those that take a list.
    from_scalar: Kinds,
    from_list: Kinds,
}

impl Offers {
    fn of<'a>(infos: impl IntoIterator<Item = &'a TaskInfo>) -> Offers {
        let mut offers = Offers::default();
        for info in infos {
            let out = Kinds::one(info.output_kind);
            if info.accepts(Kind::Scalar) {
                offers.from_scalar = offers.from_scalar.or(out);
            }
            if info.accepts(Kind::List) {
                offers.from_list = offers.from_list.or(out);
            }
        }
        offers
    }

    /// The kinds some task taking a kind of `inputs` gives.
    fn outputs(self, inputs: Kinds) -> Kinds {
        let scalar = if inputs.scalar { self.from_scalar } else { Kinds::NONE };
        let list = if inputs.list { self.from_list } else { Kinds::NONE };
        scalar.or(list)
    }

    /// The kinds some task giving a kind of `outputs` takes.
    fn inputs(self, outputs: Kinds) -> Kinds {
        Kinds { scalar: !self.from_scalar.and(outputs).is_empty(), list: !self.from_list.and(outputs).is_empty() }
    }

    /// True if some task takes a kind of `inputs`.
    fn takes(self, inputs: Kinds) -> bool {
        !self.outputs(inputs).is_empty()
    }
}

/// A structure's positions and what their families offer, for the kind reasoning done before any search.
struct KindPlan {
    places: Vec<(Family, Place)>,
    /// 0-based structure item of each position.
    items: Vec<usize>,
    sources: Vec<Source>,
    /// For an expansion position: how many branches its list feeds (0 elsewhere).
    branch_counts: Vec<usize>,
    /// What each position's candidates offer, by (family, branches fed).
    offers: HashMap<(Family, usize), Offers>,
    /// What each family offers when list lengths are not asked about.
    unbounded: HashMap<Family, Offers>,
}

impl KindPlan {
    fn new(structure: &Structure, registry: &Registry) -> KindPlan {
        let (places, items): (Vec<_>, Vec<_>) = positions(structure).into_iter().map(|(f, place, item)| ((f, place), item)).unzip();
        let sources = sources(&places);
        let mut branch_counts = vec![0; places.len()];
        for source in &sources {
            if let Source::Element { from, .. } = source {
                branch_counts[*from] += 1;
            }
        }
        let mut offers = HashMap::new();
        let mut unbounded = HashMap::new();
        for (p, (family, _)) in places.iter().enumerate() {
            let need = branch_counts[p];
            if offers.contains_key(&(*family, need)) {
                continue;
            }
            let tasks = registry.family(*family);
            offers.insert((*family, need), Offers::of(tasks.iter().filter(|t| long_enough(t.as_ref(), need)).map(|t| t.info())));
            unbounded.entry(*family).or_insert_with(|| Offers::of(tasks.iter().map(|t| t.info())));
        }
        KindPlan { places, items, sources, branch_counts, offers, unbounded }
    }

    fn offers(&self, p: usize) -> Offers {
        self.offers.get(&(self.places[p].0, self.branch_counts[p])).copied().unwrap_or_default()
    }

    /// The kinds that can reach position `p`, given what the earlier positions can output (`out`).
    fn incoming(&self, p: usize, out: &[Kinds]) -> Kinds {
        match &self.sources[p] {
            Source::Root => Kinds::ALL,
            Source::Previous(q) => out[*q],
            Source::Element { from, .. } => if out[*from].list { Kinds::one(Kind::Scalar) } else { Kinds::NONE },
            Source::Recombined(lasts) => if lasts.iter().all(|&q| out[q].scalar) { Kinds::one(Kind::List) } else { Kinds::NONE },
        }
    }

    /// What feeds position `p`, for reasons.
    fn incoming_origin(&self, p: usize) -> String {
        match &self.sources[p] {
            Source::Root => "a fresh input".into(),
            Source::Previous(q) => format!("the output of task {}", q + 1),
            Source::Element { .. } => "an element of the list split into branches".into(),
            Source::Recombined(_) => "the branches recombined into a list".into(),
        }
    }

    /// Where position `p` sits, e.g. `task 4 (structure item 3: task 1 of branch 2 in block 1)`.
    fn locate(&self, p: usize) -> String {
        let item = self.items[p] + 1;
        match self.places[p].1 {
            Place::Flat { .. } if p + 1 == self.places.len() => format!("task {} (structure item {item}, the target)", p + 1),
            Place::Flat { .. } => format!("task {} (structure item {item})", p + 1),
            Place::Branch { block, branch, .. } => {
                let first = self.places.iter().position(|(_, place)| matches!(place, Place::Branch { block: b, branch: r, .. } if *b == block && *r == branch)).unwrap_or(p);
                format!("task {} (structure item {item}: task {} of branch {} in block {})", p + 1, p - first + 1, branch + 1, block + 1)
            }
        }
    }

    /// The output kinds of every position before the target on some kind-correct filling of the positions
    /// before it (forward reachability); or the first position nothing fits, located, with why. The target's
    /// position is checked too: some task of its family must take what reaches it.
    fn reach(&self) -> Result<Vec<Kinds>, String> {
        let n = self.places.len();
        let mut out = vec![Kinds::NONE; n];
        for p in 0..n {
            let family = self.places[p].0;
            let incoming = self.incoming(p, &out);
            let offers = self.offers(p);
            let unbounded = self.unbounded.get(&family).copied().unwrap_or_default();
            if !unbounded.takes(incoming) {
                return Err(format!("{}: no {family} task takes {incoming} ({})", self.locate(p), self.incoming_origin(p)));
            }
            let (required, purpose) = match self.places[p].1 {
                Place::Flat { last_before_block: true, .. } => (Kinds::one(Kind::List), format!(" (to split into {} branches)", self.branch_counts[p])),
                Place::Branch { last: true, .. } => (Kinds::one(Kind::Scalar), " (a branch result)".to_string()),
                _ => (Kinds::ALL, String::new()),
            };
            out[p] = offers.outputs(incoming).and(required);
            if out[p].is_empty() {
                let taken = unbounded.inputs(Kinds::ALL).and(incoming);
                let branches = self.branch_counts[p];
                let any_length = unbounded.outputs(incoming).and(required);
                if branches > 0 && !any_length.is_empty() {
                    return Err(format!("{}: no {family} task that takes {taken} outputs a list of at least {branches} elements{purpose}", self.locate(p)));
                }
                return Err(format!("{}: no {family} task that takes {taken} outputs {required}{purpose}", self.locate(p)));
            }
        }
        Ok(out)
    }

    /// Why `target` cannot end the structure, or `None` when it can (`reach` from `Self::reach`).
    fn target_misfit(&self, reach: &[Kinds], target: &TaskInfo) -> Option<String> {
        let last = self.places.len().checked_sub(1)?;
        let incoming = self.incoming(last, reach);
        let takes = Kinds::of(&target.input_kinds);
        if !takes.and(incoming).is_empty() {
            return None;
        }
        Some(match &self.sources[last] {
            Source::Recombined(_) => format!("it takes {takes}, and the branch block before it recombines into {incoming}"),
            Source::Previous(q) => format!("it takes {takes}, and task {} before it can only output {incoming}", q + 1),
            Source::Root | Source::Element { .. } => format!("it takes {takes}, and only {incoming} can reach it"),
        })
    }

    /// For every position, the output kinds that still let the rest of the structure be filled and end in
    /// `target` (backward viability). The search offers a position only tasks with such outputs, so it never
    /// walks into a position no task fits.
    fn viable_outputs(&self, target: &TaskInfo) -> Vec<Kinds> {
        let n = self.places.len();
        // What each position may take and still let the rest be filled; the target takes what it accepts.
        let mut takes = vec![Kinds::NONE; n];
        let mut viable = vec![Kinds::ALL; n];
        let Some(last) = n.checked_sub(1) else { return viable };
        takes[last] = Kinds::of(&target.input_kinds);
        // Every consumer comes after what it consumes, so one backward sweep sees all of them.
        let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, source) in self.sources.iter().enumerate() {
            match source {
                Source::Root => {}
                Source::Previous(q) | Source::Element { from: q, .. } => consumers[*q].push(c),
                Source::Recombined(lasts) => lasts.iter().for_each(|&q| consumers[q].push(c)),
            }
        }
        for p in (0..last).rev() {
            let mut ok = Kinds::ALL;
            for &c in &consumers[p] {
                let passes = match self.sources[c] {
                    Source::Element { .. } => if takes[c].scalar { Kinds::one(Kind::List) } else { Kinds::NONE },
                    Source::Recombined(_) => if takes[c].list { Kinds::one(Kind::Scalar) } else { Kinds::NONE },
                    _ => takes[c],
                };
                ok = ok.and(passes);
            }
            viable[p] = ok;
            takes[p] = self.offers(p).inputs(ok);
        }
        viable
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
    let plan = KindPlan::new(structure, registry);
    let viable = plan.viable_outputs(target.info());
    let KindPlan { places, sources, branch_counts, .. } = plan;
    let mut stages = MultichainStages {
        sources,
        branch_counts,
        viable,
        places,
        registry,
        target: target.clone(),
        counts: HashMap::from([(target.info().key.clone(), 1)]),
        repeats: mode == Mode::Repair,
    };
    let Some(made) = search(&mut stages, mode, rng, derive, budget) else { return Ok(None) };
    assemble(&stages.places, target, made).map(Some)
}

/// The positions as the search sees them, with how often each task is used so far (the target from the start).
struct MultichainStages<'a> {
    places: Vec<(Family, Place)>,
    sources: Vec<Source>,
    /// For an expansion position: how many branches its list feeds.
    branch_counts: Vec<usize>,
    /// The output kinds each position may give and still let the rest be filled (`KindPlan::viable_outputs`).
    viable: Vec<Kinds>,
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

    /// The family's tasks that take the incoming kind and give a kind the rest of the structure can use (the
    /// required one before a block and at a branch's end), not yet used (in a repair search: any, once every
    /// fitting task is used), in random order; the target alone at the end. A position whose list ran out is not
    /// redrawn: the search backs up to the position that feeds it.
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
        let (viable, branches) = (self.viable[p], self.branch_counts[p]);
        let fitting: Vec<Rc<dyn Task>> = self
            .registry
            .matching(self.places[p].0, incoming, None)
            .into_iter()
            .filter(|t| viable.has(t.info().output_kind) && long_enough(t.as_ref(), branches))
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
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::super::text::recombine;
    use super::super::{generate, generate_sample, parse_structure, skipped_targets, targets, GenerateConfig, GenerateError, Sample, SampleShape, Topology};
    use crate::engine::tasks::image::{ImageParams, Numbering};
    use crate::engine::tasks::math::{self, SolveError};
    use crate::engine::tasks::registry::{builtin, builtin_with, Registry};
    use crate::engine::tasks::Family;
    use crate::engine::value::{Kind, Value};

    /// Built-in tasks with small pictures: image stages cost a fraction of the default's drawing time in debug
    /// builds, and structures do not depend on the picture's size.
    fn small_pictures() -> Registry {
        builtin_with(small_picture_params())
    }

    fn small_picture_params() -> ImageParams {
        let params = ImageParams { num_paths: 4, nodes_per_path: 4, width: 800, height: 600, perturbation: 40, ..ImageParams::default() };
        assert_eq!(params.check(), Ok(()));
        params
    }

    fn multichain_config(text: &str, samples_per_target: u32) -> GenerateConfig {
        let structure = parse_structure(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut config = GenerateConfig::new(Topology::Multichain(structure), vec![Family::Math]);
        config.samples_per_target = samples_per_target;
        config.seed = 5;
        config
    }

    /// Checks a multichain sample's wiring: every branch starts from its element of the expansion list, every
    /// post-block task reads the recombination of the branch results, and the last stage is the target. Math
    /// stages without drawn parameters are recomputed with the operator; returns how many were.
    fn check_wiring(sample: &Sample) -> usize {
        let SampleShape::Multichain { blocks } = &sample.shape else { panic!("multichain shape") };
        let stage = |number: usize| &sample.stages[number - 1];
        for block in blocks {
            let Value::List(expansion) = &stage(block.expansion_task_number).ground_truth else { panic!("the expansion is a list") };
            let mut results = Vec::new();
            for (i, branch) in block.branches.iter().enumerate() {
                assert_eq!(branch.input_value, expansion[i], "branch {i} takes element {i}");
                let Value::Scalar(x) = stage(*branch.stages.last().expect("a branch has tasks")).ground_truth else { panic!("a branch result is a scalar") };
                results.push(x);
            }
            assert_eq!(block.prelim, results);
            assert_eq!(block.recombined, recombine(&results));
            let next = sample.stages.iter().find(|s| s.input_name == block.next_input_name).expect("a task after the block");
            assert_eq!(next.input_value, Value::List(block.recombined.clone()), "task {} reads the recombined list", next.number);
        }
        let last = sample.stages.last().expect("stages");
        assert_eq!(last.info.key, sample.target.key);
        assert_eq!((&sample.ground_truth, sample.target_output_name.as_str()), (&last.ground_truth, last.output_name().as_str()));
        let mut recomputed = 0;
        for stage in sample.stages.iter().filter(|s| s.info.family == Family::Math) {
            match math::solve(&stage.info.name, &stage.input_value, &serde_json::Value::Null) {
                Ok(value) => {
                    assert_eq!(value, stage.ground_truth, "task {} ({}) recomputed", stage.number, stage.info.key);
                    recomputed += 1;
                }
                // Parameters drawn for the stage are only in its prompt.
                Err(SolveError::MissingParam { .. }) => {}
                Err(e) => panic!("task {} ({}): {e}", stage.number, stage.info.key),
            }
        }
        recomputed
    }

    /// Generates one sample per target of `text`; checks the targets are exactly the final family's tasks that
    /// take a list (the recombined value), the others skipped with the reason, and every sample's wiring.
    fn check_ends_after_a_block(text: &str, registry: &Registry) {
        let config = multichain_config(text, 1);
        let fit: Vec<String> = targets(&config, registry).unwrap_or_else(|e| panic!("{text}: {e}")).iter().map(|t| t.info().key.clone()).collect();
        let skipped = skipped_targets(&config, registry);
        let family = registry.family(Family::Math);
        let takes_list: Vec<String> = family.iter().filter(|t| t.info().accepts(Kind::List)).map(|t| t.info().key.clone()).collect();
        let others: Vec<String> = family.iter().filter(|t| !t.info().accepts(Kind::List)).map(|t| t.info().key.clone()).collect();
        assert_eq!(fit, takes_list, "{text}: the targets are the tasks that take the recombined list");
        assert_eq!(skipped.iter().map(|(key, _)| key.clone()).collect::<Vec<_>>(), others, "{text}: every other task is named");
        assert!(!fit.is_empty() && !others.is_empty());
        for (key, reason) in &skipped {
            assert_eq!(reason, "it takes a scalar, and the branch block before it recombines into a list", "{key}");
        }
        let samples = generate(&config, registry, &mut |_, _| {}).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(samples.iter().map(|s| s.target.key.clone()).collect::<Vec<_>>(), fit, "{text}: one sample per target");
        let recomputed: usize = samples.iter().map(check_wiring).sum();
        assert!(recomputed >= samples.len(), "{text}: {recomputed} stages recomputed");
    }

    #[test]
    fn a_target_right_after_a_block_is_drawn_from_the_tasks_taking_the_recombined_list() {
        let registry = builtin();
        for text in ["m,[m,m],[m,m],m", "m,m,[m,m],[m,m],m", "m,[m],[m],m", "m,[m,m],[m,m,m],m"] {
            check_ends_after_a_block(text, &registry);
        }
    }

    #[test]
    fn an_image_task_can_split_into_the_block_before_the_target() {
        let registry = small_pictures();
        for text in ["m,i,[m,m],[m,m],m", "m,m,i,[m,m],[m,m],m", "m,i,[m],[m],m", "m,i,[m,m],[m,m,m],m"] {
            check_ends_after_a_block(text, &registry);
        }
    }

    #[test]
    fn structures_no_task_can_fill_are_refused_at_the_position_before_any_search() {
        let registry = small_pictures();
        for (text, needle) in [
            // A path of the small pictures has 4 numbers.
            ("i,[m],[m],[m],[m],[m],m", "task 1 (structure item 1): no image task that takes a scalar outputs a list of at least 5 elements (to split into 5 branches)"),
            ("g,g,[g,g],[g,g],g", "task 2 (structure item 2): no gsm task that takes a scalar outputs a list (to split into 2 branches)"),
            ("m,[m,m],[m,m],i", "task 6 (structure item 4, the target): no image task takes a list (the branches recombined into a list)"),
            ("m,[m,i],[m],m", "task 3 (structure item 2: task 2 of branch 1 in block 1): no image task that takes a scalar outputs a scalar (a branch result)"),
            ("m,i,i,[m],[m],m", "task 3 (structure item 3): no image task takes a list (the output of task 2)"),
        ] {
            let config = multichain_config(text, 1);
            match targets(&config, &registry) {
                Err(GenerateError::Config(message)) => assert_eq!(message, format!("this structure cannot be filled: {needle}"), "{text}"),
                other => panic!("{text}: {:?}", other.map(|t| t.len())),
            }
            assert!(skipped_targets(&config, &registry).is_empty());
        }
    }

    #[test]
    fn asking_only_for_a_skipped_target_says_why_it_cannot_be_one() {
        let registry = builtin();
        let mut config = multichain_config("m,[m,m],[m,m],m", 1);
        let (skipped, _) = skipped_targets(&config, &registry).into_iter().next().expect("some task takes a scalar");
        config.only_targets = vec![skipped.clone()];
        assert_eq!(skipped_targets(&config, &registry).len(), 1);
        let error = targets(&config, &registry).err().map(|e| e.to_string());
        assert_eq!(error, Some(format!("invalid configuration: {skipped} cannot be a target here: it takes a scalar, and the branch block before it recombines into a list")));
    }

    #[test]
    fn a_target_after_a_flat_task_is_skipped_when_nothing_before_it_gives_its_kind() {
        // An image task outputs only lists, so a target right after it must take a list.
        let registry = small_pictures();
        let config = multichain_config("m,[m,m],[m,m],m,i,m", 1);
        let skipped = skipped_targets(&config, &registry);
        assert!(!skipped.is_empty());
        for (key, reason) in &skipped {
            assert!(!registry.by_name(Family::Math, key.trim_start_matches("math.")).expect("a math task").info().accepts(Kind::List));
            assert_eq!(reason, "it takes a scalar, and task 7 before it can only output a list", "{key}");
        }
    }

    #[test]
    fn whole_attempts_are_skipped_only_when_a_family_has_too_few_tasks() {
        let registry = small_pictures();
        let twice = parse_structure("m,[i,m],[i,m],m").expect("valid");
        assert!(!super::distinct_tasks_suffice(&twice, &registry), "one image task, two image positions");
        assert!(super::distinct_tasks_suffice(&parse_structure("m,i,[m,m],[m,m],m").expect("valid"), &registry));
        let mut config = GenerateConfig::new(Topology::Multichain(twice), vec![Family::Math]);
        config.samples_per_target = 1;
        config.only_targets = vec![targets(&config, &registry).expect("targets")[0].info().key.clone()];
        let samples = generate(&config, &registry, &mut |_, _| {}).expect("repairs may repeat the image task");
        assert_eq!(samples[0].pictures().len(), 2);
        check_wiring(&samples[0]);
    }

    /// One element of a drawn structure: a flat task or a block of branches (family letters).
    #[derive(Clone, Debug)]
    enum Element {
        Flat(char),
        Block(Vec<Vec<char>>),
    }

    /// The structure's text, e.g. `m,[m,p],[i],g` for a flat task, a block of two branches and a flat task.
    fn structure_text(elements: &[Element]) -> String {
        let letters = |tasks: &[char]| tasks.iter().map(char::to_string).collect::<Vec<_>>().join(",");
        let parts: Vec<String> = elements
            .iter()
            .map(|element| match element {
                Element::Flat(family) => family.to_string(),
                Element::Block(branches) => branches.iter().map(|b| format!("[{}]", letters(b))).collect::<Vec<_>>().join(","),
            })
            .collect();
        parts.join(",")
    }

    /// A flat task or a block of 1 to 3 branches of 1 to 3 tasks, over the families m, g, p, i.
    fn element() -> impl Strategy<Value = Element> {
        prop_oneof![family().prop_map(Element::Flat), prop::collection::vec(prop::collection::vec(family(), 1..=3), 1..=3).prop_map(Element::Block)]
    }

    /// A family letter; image tasks (scalar in, list out) are rarer, since most places refuse them.
    fn family() -> impl Strategy<Value = char> {
        prop::sample::select(vec!['m', 'm', 'm', 'p', 'p', 'g', 'g', 'i'])
    }

    /// 2 to 8 elements: mostly a block framed by flat tasks with more elements around it (as the grammar
    /// wants), sometimes anything.
    fn elements() -> impl Strategy<Value = Vec<Element>> {
        let block = prop::collection::vec(prop::collection::vec(family(), 1..=3), 2..=3).prop_map(Element::Block);
        let around = || prop::collection::vec(element(), 0..=2);
        let framed = (family(), around(), block, around(), family()).prop_map(|(first, before, block, after, last)| {
            let mut all = vec![Element::Flat(first)];
            all.extend(before);
            all.push(block);
            all.extend(after);
            all.push(Element::Flat(last));
            all
        });
        prop_oneof![4 => framed, 1 => prop::collection::vec(element(), 2..=8)]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        /// Any structure the grammar can spell either generates a sample for a target that fits, or is refused
        /// before any search with a reason; it never fails after searching.
        #[test]
        fn every_structure_generates_or_is_refused_up_front(elements in elements(), pick in any::<prop::sample::Index>()) {
            SMALL_PICTURES.with(|registry| every_structure_generates_or_is_refused(registry, &elements, pick))?;
        }
    }

    thread_local! {
        /// Built once: building a registry parses the Python pool. Shuffled numbering: with sequential numbers a
        /// path reads as a run, on which a few list targets (inversions, permutation order, convex hull) are
        /// always degenerate, a property of values the kind analysis does not see.
        static SMALL_PICTURES: Registry = builtin_with(ImageParams { numbering: Numbering::Shuffled, ..small_picture_params() });
    }

    fn every_structure_generates_or_is_refused(registry: &Registry, elements: &[Element], pick: prop::sample::Index) -> Result<(), TestCaseError> {
        // Known limit, not of kinds: a picture's fixed-length, run-like lists leave some targets right after an
        // image task degenerate on every draw (inversions, some Python traces); those fail after searching.
        let image_feeds_target = matches!(elements.iter().rev().nth(1), Some(Element::Flat('i')));
        prop_assume!(!image_feeds_target);
        let text = structure_text(elements);
        let structure = match parse_structure(&text) {
            Ok(structure) => structure,
            Err(refused) => {
                prop_assert!(!refused.to_string().is_empty());
                return Ok(());
            }
        };
        let mut config = GenerateConfig::new(Topology::Multichain(structure.clone()), vec![Family::Math]);
        config.samples_per_target = 1;
        let fit = match targets(&config, registry) {
            Ok(fit) => fit,
            Err(GenerateError::Config(reason)) => {
                prop_assert!(reason.starts_with("this structure cannot be filled: task "), "{}: {}", text, reason);
                return Ok(());
            }
            Err(other) => return Err(TestCaseError::fail(format!("{text}: refused without a reason: {other}"))),
        };
        let skipped = skipped_targets(&config, registry);
        let named: BTreeSet<String> = fit.iter().map(|t| t.info().key.clone()).chain(skipped.iter().map(|(k, _)| k.clone())).collect();
        prop_assert_eq!(named.len(), fit.len() + skipped.len(), "{}: a task both fits and is skipped", text);
        prop_assert_eq!(named.len(), registry.family(structure.last_family()).len(), "{}: every task is a target or named", text);
        let target = fit[pick.index(fit.len())].info().key.clone();
        config.only_targets = vec![target.clone()];
        let made = generate(&config, registry, &mut |_, _| {});
        match made {
            Ok(samples) => {
                prop_assert_eq!(samples.len(), 1);
                prop_assert_eq!(&samples[0].target.key, &target);
                check_wiring(&samples[0]);
                Ok(())
            }
            Err(e) => Err(TestCaseError::fail(format!("{text} for {target}: failed after searching: {e}"))),
        }
    }

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
