//! Custom-graph samples: a validated DAG compiled in topological order, with bounded, iterative backtracking
//! (a failing node sends the search back to the task that feeds it), so huge graphs work and no graph can make
//! the search blow up.
//!
//! The search keeps little per node: the chosen task, its output and statics, and where the attempt's RNG stood
//! when the task was instantiated. Task blocks are instantiated again from there when the prompt is written, so
//! a million-node prompt can be streamed without ever being held (`Compiled::write_prompt`);
//! `Compiled::into_sample` builds the usual in-memory sample.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

use super::text::{conditions, graph_preamble, join_owned, pick_line, recombination_paragraph, recombine, static_lines};
use super::{instantiate, random_input, run_stage, stage_filter, AdapterRecord, GenerateError, RootInput, Sample, SampleShape, SampleView, Stage};
use crate::engine::graph::{function_key, NodeKind, ValidGraph};
use crate::engine::prompt::Prompt;
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, StaticInput, Task, TaskContext, TaskError, TaskInfo, TaskInstance};
use crate::engine::value::{Kind, Number, Value};

/// Candidate tries per attempt: a few per task node, plus slack.
fn try_budget(task_nodes: usize) -> usize {
    task_nodes * 4 + 200
}

/// The target tasks: the pinned task, or every task of the target's family (for `any`, of the run's
/// families, family by family) compatible with its kinds.
pub fn targets(graph: &ValidGraph, run_families: &[Family], registry: &Registry) -> Result<Vec<Rc<dyn Task>>, GenerateError> {
    let t = graph.target();
    let NodeKind::Task(node) = &graph.graph().nodes()[t].kind else { return Err(GenerateError::NoTargets) };
    if let Some(name) = &node.function {
        return graph.functions().task(name).map(|task| vec![task]).ok_or(GenerateError::NoTargets);
    }
    let families = node.families(run_families).ok_or(GenerateError::NoTargets)?;
    if let (Some(task_id), [family]) = (node.task_id, families.as_slice()) {
        let task = u32::try_from(task_id).ok().and_then(|id| registry.by_task_id(*family, id)).ok_or(GenerateError::NoTargets)?;
        return Ok(vec![task]);
    }
    let kinds = graph.kinds(t);
    Ok(families.into_iter().flat_map(|f| registry.matching(f, kinds.input, node.output_kind())).collect())
}

/// One sample for `target` on `graph`; nodes of family `any` draw from `run_families`.
pub fn custom(graph: &ValidGraph, registry: &Registry, run_families: &[Family], target: &Rc<dyn Task>, rng: &mut InstanceRng) -> Result<Sample, String> {
    compile(graph, registry, run_families, target, rng, true)?.into_sample()
}

/// One task node as the search made it (16 bytes: a million-node search keeps a million of them).
#[derive(Clone, Copy)]
struct Made {
    /// Index into `Compiled::tasks`.
    task: u16,
    /// Where the attempt's RNG stood when the task was instantiated (see `InstanceRng::position`).
    position: u64,
}

/// A sample as the search leaves it: everything needed to write its prompt and records.
pub struct Compiled<'g> {
    graph: &'g ValidGraph,
    target: Rc<dyn Task>,
    pub(super) target_index: usize,
    pub(super) sample_idx: u32,
    /// The attempt's RNG as it was before the search: instances are replayed from it.
    origin: InstanceRng,
    /// Every task the candidate lists refer to.
    tasks: Vec<Rc<dyn Task>>,
    /// Task node indices, in topological order (a task node's position is its task number minus one).
    order: Vec<usize>,
    made: Vec<Made>,
    /// The stages and instances themselves, when the caller asked to keep them (else empty).
    kept: Vec<Option<(Stage, TaskInstance)>>,
    /// Statics of the positions that have any, by position.
    statics: Vec<(usize, Vec<StaticInput>)>,
    /// Outputs of task nodes (by node index).
    values: Vec<Option<Value>>,
    roots: Roots,
}

/// Fresh inputs of the root task nodes, sorted by node index (few nodes are roots).
struct Roots(Vec<(usize, Value)>);

impl Roots {
    fn get(&self, node: usize) -> Option<&Value> {
        self.0.binary_search_by_key(&node, |(i, _)| *i).ok().map(|at| &self.0[at].1)
    }
}

/// A task's (family, input kind, output kind), as candidate lists are asked for.
type Shape = (Family, Option<Kind>, Option<Kind>);

/// Candidate lists, asked of the registry once per distinct (family, input, output) and shared as indices.
struct Candidates<'r> {
    registry: &'r Registry,
    tasks: Vec<Rc<dyn Task>>,
    index: HashMap<String, u16>,
    /// A few (family, input, output) lists, looked up for every node: a short list beats hashing.
    lists: Vec<(Shape, Vec<u16>)>,
    pinned: HashMap<(Family, i64), Option<u16>>,
}

impl Candidates<'_> {
    fn add(&mut self, task: Rc<dyn Task>) -> u16 {
        if let Some(&at) = self.index.get(&task.info().key) {
            return at;
        }
        let at = self.tasks.len() as u16;
        self.index.insert(task.info().key.clone(), at);
        self.tasks.push(task);
        at
    }

    /// `registry.matching(...)`, in its order.
    fn matching(&mut self, family: Family, input: Option<Kind>, output: Option<Kind>) -> &[u16] {
        let key = (family, input, output);
        let at = match self.lists.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                let list: Vec<u16> = self.registry.matching(family, input, output).into_iter().map(|t| self.add(t)).collect();
                self.lists.push((key, list));
                self.lists.len() - 1
            }
        };
        &self.lists[at].1
    }

    /// The graph's function `name`, as a task of this pool.
    fn function(&mut self, graph: &ValidGraph, name: &str) -> Option<u16> {
        if let Some(&at) = self.index.get(&function_key(name)) {
            return Some(at);
        }
        graph.functions().task(name).map(|task| self.add(task))
    }

    fn pinned(&mut self, family: Family, task_id: i64) -> Option<u16> {
        if let Some(&at) = self.pinned.get(&(family, task_id)) {
            return at;
        }
        let at = u32::try_from(task_id).ok().and_then(|id| self.registry.by_task_id(family, id)).map(|t| self.add(t));
        self.pinned.insert((family, task_id), at);
        at
    }
}

/// Runs the search for one attempt. With `keep`, every stage and instance is kept for `into_sample`; without,
/// only what `write_prompt` needs to instantiate the blocks again.
pub(super) fn compile<'g>(graph: &'g ValidGraph, registry: &Registry, run_families: &[Family], target: &Rc<dyn Task>, rng: &mut InstanceRng, keep: bool) -> Result<Compiled<'g>, String> {
    let g = graph.graph();
    let n = g.nodes().len();
    let tasks: Vec<usize> = graph.order().iter().copied().filter(|&i| graph.task_number(i).is_some()).collect();
    let m = tasks.len();
    let mut position = vec![usize::MAX; n];
    for (j, &i) in tasks.iter().enumerate() {
        position[i] = j;
    }
    if registry.len() >= usize::from(u16::MAX) {
        return Err(format!("{} tasks are registered; custom graphs take at most {}", registry.len(), u16::MAX - 1));
    }
    let origin = rng.clone();

    // Root inputs, drawn in topological order.
    let mut roots: Vec<(usize, Value)> = Vec::new();
    for &i in &tasks {
        if graph.preds(i).is_empty() {
            let kind = graph.kinds(i).input.unwrap_or_else(|| target.info().primary_input_kind());
            roots.push((i, random_input(kind, rng)));
        }
    }
    roots.sort_by_key(|(i, _)| *i);
    let roots = Roots(roots);

    let mut pool = Candidates { registry, tasks: Vec::new(), index: HashMap::new(), lists: Vec::new(), pinned: HashMap::new() };
    let target_at = pool.add(target.clone());
    let mut values: Vec<Option<Value>> = vec![None; n];
    let mut made: Vec<Option<Made>> = vec![None; m];
    let mut kept: Vec<Option<(Stage, TaskInstance)>> = if keep { (0..m).map(|_| None).collect() } else { Vec::new() };
    let mut statics: Vec<(usize, Vec<StaticInput>)> = Vec::new();
    // Candidate lists of the positions visited so far, stacked in position order (a backtrack pops the lists
    // of the positions it undoes): `bounds[j]` is position j's range in `stack`.
    let mut stack: Vec<u16> = Vec::new();
    let mut bounds: Vec<Option<(u32, u32)>> = vec![None; m];
    let mut cursor = vec![0u32; m];
    let mut tries = 0usize;
    let budget = try_budget(m);
    let mut j = 0;
    let mut last = String::from("no candidates");
    while j < m {
        let i = tasks[j];
        let number = graph.task_number(i).expect("task nodes are numbered");
        let produced = {
            let input = match node_input(graph, i, number, &values, &roots) {
                Ok(input) => Some(input),
                Err(problem) => {
                    last = problem;
                    None
                }
            };
            if bounds[j].is_none() {
                let start = stack.len();
                match &g.nodes()[i].kind {
                    _ if i == graph.target() => stack.push(target_at),
                    NodeKind::Task(node) if node.function.is_some() => {
                        let name = node.function.as_deref().unwrap_or_default();
                        stack.push(pool.function(graph, name).ok_or_else(|| format!("no python function `{name}` in the graph"))?);
                    }
                    NodeKind::Task(node) => {
                        let families = node.families(run_families).ok_or("unknown family")?;
                        match (node.task_id, families.as_slice()) {
                            (Some(id), [family]) => stack.push(pool.pinned(*family, id).ok_or("unknown task id")?),
                            (Some(_), _) => return Err("a pinned task needs a concrete family".into()),
                            (None, _) => {
                                let kind = input.as_ref().map(|(v, _)| v.kind());
                                for family in families {
                                    stack.extend_from_slice(pool.matching(family, kind, node.output_kind()));
                                }
                                rng.shuffle(&mut stack[start..]);
                            }
                        }
                    }
                    _ => {}
                }
                bounds[j] = Some((start as u32, stack.len() as u32));
                cursor[j] = start as u32;
            }
            let mut produced = None;
            if let Some((value, name)) = &input {
                let (_, end) = bounds[j].expect("just filled");
                let required = match &g.nodes()[i].kind {
                    NodeKind::Task(node) => node.output_kind(),
                    _ => None,
                };
                while cursor[j] < end {
                    let at = stack[cursor[j] as usize];
                    let task = pool.tasks[usize::from(at)].clone();
                    cursor[j] += 1;
                    tries += 1;
                    if tries > budget {
                        return Err(format!("gave up after {budget} candidate tries (last problem: {last})"));
                    }
                    let at_position = u64::try_from(rng.position()).map_err(|_| "the random stream ran too far")?;
                    let filter = stage_filter(task.info().family);
                    let outcome = if keep {
                        run_stage(task.as_ref(), number, name, value, required, filter, rng).map(|(mut stage, instance)| {
                            stage.node_id = Some(g.nodes()[i].id.0.clone());
                            stage.input_node_id = graph.preds(i).first().map(|&p| g.nodes()[p].id.0.clone());
                            let output = instance.output.clone();
                            let statics = instance.statics.clone();
                            (output, statics, Some((stage, instance)))
                        })
                    } else {
                        instantiate(task.as_ref(), number, name, value, required, filter, false, rng).map(|instance| (instance.output, instance.statics, None))
                    };
                    match outcome {
                        Ok((output, own_statics, own_kept)) => {
                            produced = Some((output, Made { task: at, position: at_position }, own_statics, own_kept));
                            break;
                        }
                        Err(problem) => last = problem.to_string(),
                    }
                }
            }
            produced
        };
        if let Some((output, record, own_statics, own_kept)) = produced {
            values[i] = Some(output);
            made[j] = Some(record);
            if !own_statics.is_empty() {
                statics.push((j, own_statics));
            }
            if keep {
                kept[j] = own_kept;
            }
            j += 1;
            continue;
        }
        // Back to the latest task that feeds this node; everything after it is redone.
        let feeder = feeding_task(graph, i).map(|f| position[f]);
        let Some(back) = feeder else { return Err(last) };
        for k in back + 1..=j {
            bounds[k] = None;
            values[tasks[k]] = None;
            made[k] = None;
        }
        if let Some((_, end)) = bounds[back] {
            stack.truncate(end as usize);
        }
        statics.truncate(statics.partition_point(|(k, _)| *k < back));
        if keep {
            for slot in &mut kept[back..=j] {
                *slot = None;
            }
        }
        values[tasks[back]] = None;
        made[back] = None;
        j = back;
    }
    let made: Vec<Made> = made.into_iter().map(|m| m.ok_or("a task node was not compiled")).collect::<Result<_, _>>()?;
    Ok(Compiled { graph, target: target.clone(), target_index: 0, sample_idx: 0, origin, tasks: pool.tasks, order: tasks, made, kept, statics, values, roots })
}

impl Compiled<'_> {
    /// Calls `make` with position `j`'s task, context and RNG exactly as the search instantiated it; returns
    /// what it made and the input's name.
    fn again<T>(&self, j: usize, make: impl FnOnce(&dyn Task, &TaskContext<'_>, &mut InstanceRng) -> Result<T, TaskError>) -> Result<(T, String), String> {
        let made = &self.made[j];
        let i = self.order[j];
        let number = j + 1;
        let (value, name) = node_input(self.graph, i, number, &self.values, &self.roots)?;
        let task = &self.tasks[usize::from(made.task)];
        let output_kind = match &self.graph.graph().nodes()[i].kind {
            NodeKind::Task(node) => node.output_kind(),
            _ => None,
        };
        let mut rng = self.origin.clone();
        rng.seek(u128::from(made.position));
        let ctx = TaskContext { number, input_name: &name, input: &value, output_kind };
        let made = make(task.as_ref(), &ctx, &mut rng).map_err(|e| format!("{}: {e} (when instantiated again)", task.info().key))?;
        Ok((made, name))
    }

    /// Position `j`'s instance, made again by `make` (`Task::instantiate`, or `Task::solve` when its text is not
    /// needed: both advance the RNG alike). The search already filtered the output, so this only checks that it
    /// is the same.
    fn replay(&self, j: usize, make: impl FnOnce(&dyn Task, &TaskContext<'_>, &mut InstanceRng) -> Result<TaskInstance, TaskError>) -> Result<(TaskInstance, String), String> {
        let (instance, name) = self.again(j, make)?;
        if Some(&instance.output) != self.values[self.order[j]].as_ref() {
            return Err(format!("{}: instantiated again with a different output", self.tasks[usize::from(self.made[j].task)].info().key));
        }
        Ok((instance, name))
    }

    /// The stage and instance of position `j`, instantiated again exactly as the search made it.
    fn stage(&self, j: usize) -> Result<(Stage, TaskInstance), String> {
        let (instance, input_name) = self.replay(j, |task, ctx, rng| task.instantiate(ctx, rng))?;
        Ok((self.stage_of(j, &instance, input_name)?, instance))
    }

    /// The stage record of position `j`, solved again without its text.
    fn record(&self, j: usize) -> Result<Stage, String> {
        let (instance, input_name) = self.replay(j, |task, ctx, rng| task.solve(ctx, rng))?;
        self.stage_of(j, &instance, input_name)
    }

    /// Position `j`'s stage record from its instance.
    fn stage_of(&self, j: usize, instance: &TaskInstance, input_name: String) -> Result<Stage, String> {
        let i = self.order[j];
        let g = self.graph.graph();
        let (input_value, _) = node_input(self.graph, i, j + 1, &self.values, &self.roots)?;
        let task = &self.tasks[usize::from(self.made[j].task)];
        Ok(Stage {
            number: j + 1,
            info: task.info().clone(),
            input_name,
            input_value: input_value.into_owned(),
            ground_truth: instance.output.clone(),
            statics: instance.statics.clone(),
            template_index: instance.template_index,
            node_id: Some(g.nodes()[i].id.0.clone()),
            input_node_id: self.graph.preds(i).first().map(|&p| g.nodes()[p].id.0.clone()),
            picture: instance.picture.clone(),
        })
    }

    /// The prompt block of position `j`: only its text is made again (the search already holds the output).
    fn body(&self, j: usize) -> Result<Cow<'_, Prompt>, String> {
        match self.kept.get(j) {
            Some(Some(kept)) => Ok(Cow::Borrowed(&kept.1.body)),
            _ => Ok(Cow::Owned(self.again(j, |task, ctx, rng| task.body(ctx, rng))?.0)),
        }
    }

    /// The `Static Inputs:` lines: each root's input, then each task's statics, in topological order.
    fn static_lines(&self) -> Vec<(String, Value)> {
        let mut lines = Vec::new();
        let mut statics = self.statics.iter().peekable();
        for (j, &i) in self.order.iter().enumerate() {
            if let Some(value) = self.roots.get(i) {
                lines.push((format!("task_{}_input", j + 1), value.clone()));
            }
            if let Some((_, own)) = statics.next_if(|(k, _)| *k == j) {
                lines.extend(static_lines(j + 1, own));
            }
        }
        lines
    }

    /// The record of adapter node `i` (`None` for a task node).
    fn adapter_record(&self, i: usize) -> Result<Option<AdapterRecord>, String> {
        let graph = self.graph;
        let g = graph.graph();
        let (op, sources) = match &g.nodes()[i].kind {
            NodeKind::Pick { .. } => ("pick", &graph.preds(i)[..1]),
            NodeKind::Pack => ("pack", graph.preds(i)),
            _ => return Ok(None),
        };
        let consumer = graph.succs(i)[0];
        Ok(Some(AdapterRecord {
            node_id: g.nodes()[i].id.0.clone(),
            op: op.into(),
            input_node_ids: sources.iter().map(|&p| g.nodes()[p].id.0.clone()).collect(),
            input_names: sources.iter().map(|&p| output_name(graph, p)).collect(),
            output_name: format!("task_{}_input", graph.task_number(consumer).unwrap_or(0)),
            value: adapter_value(graph, i, &self.values)?,
        }))
    }

    /// The prompt block and record of adapter node `i`.
    fn adapter_block(&self, i: usize) -> Result<Option<(Prompt, AdapterRecord)>, String> {
        let Some(record) = self.adapter_record(i)? else { return Ok(None) };
        let block = match &self.graph.graph().nodes()[i].kind {
            NodeKind::Pick { index } => pick_line(&record.output_name, &record.input_names[0], *index),
            _ => recombination_paragraph(&record.output_name, &record.input_names, false),
        };
        Ok(Some((block, record)))
    }

    /// A failure to make again what the search made, as a streamed writer reports it.
    fn problem(&self, reason: String) -> GenerateError {
        GenerateError::Write(format!("{}: sample {}: {reason}", self.target.info().key, self.sample_idx))
    }

    /// The in-memory sample.
    pub fn into_sample(mut self) -> Result<Sample, String> {
        let graph = self.graph;
        let g = graph.graph();
        let mut parts: Vec<Prompt> = Vec::with_capacity(g.nodes().len() + 2);
        parts.push(graph_preamble());
        parts.push(conditions("Static Inputs:", &self.static_lines()));
        let mut adapters = Vec::new();
        let mut roots = Vec::new();
        let mut stages = Vec::with_capacity(self.order.len());
        for &i in graph.order() {
            match &g.nodes()[i].kind {
                NodeKind::Task(_) => {
                    let j = stages.len();
                    let (stage, instance) = match self.kept.get_mut(j).and_then(Option::take) {
                        Some(kept) => kept,
                        None => self.stage(j)?,
                    };
                    if let Some(value) = self.roots.get(i) {
                        roots.push(RootInput { node_id: g.nodes()[i].id.0.clone(), input_name: stage.input_name.clone(), value: value.clone() });
                    }
                    parts.push(instance.body);
                    stages.push(stage);
                }
                _ => {
                    if let Some((block, record)) = self.adapter_block(i)? {
                        parts.push(block);
                        adapters.push(record);
                    }
                }
            }
        }
        let target_node = g.nodes()[graph.target()].id.0.as_str();
        let target_stage = stages.iter().find(|s| s.node_id.as_deref() == Some(target_node)).ok_or("target not compiled")?.clone();
        let first = stages.first().ok_or("no task nodes")?;
        Ok(Sample {
            target_index: self.target_index,
            sample_idx: self.sample_idx,
            target: self.target.info().clone(),
            chain_input: roots.first().map(|r| r.value.clone()).unwrap_or_else(|| first.input_value.clone()),
            prompt: join_owned(parts),
            ground_truth: target_stage.ground_truth.clone(),
            target_output_name: target_stage.output_name(),
            stages,
            shape: SampleShape::Custom { target_node: target_node.to_string(), roots, adapters },
        })
    }

    fn target_value(&self) -> &Value {
        self.values[self.graph.target()].as_ref().expect("every task node was compiled")
    }
}

impl SampleView for Compiled<'_> {
    fn target(&self) -> &TaskInfo {
        self.target.info()
    }

    fn sample_idx(&self) -> u32 {
        self.sample_idx
    }

    fn ground_truth(&self) -> &Value {
        self.target_value()
    }

    fn target_output_name(&self) -> String {
        output_name(self.graph, self.graph.target())
    }

    /// Writes the prompt piece by piece, as `join_blocks` would join its blocks.
    fn write_prompt(&self, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let problem = |reason: String| self.problem(reason);
        let graph = self.graph;
        let g = graph.graph();
        let mut first = true;
        let mut block = |text: &str, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>| -> Result<(), GenerateError> {
            if !first {
                out("\n\n")?;
            }
            first = false;
            out(text.trim_end())
        };
        block(graph_preamble().text(), out)?;
        block(conditions("Static Inputs:", &self.static_lines()).text(), out)?;
        let mut j = 0;
        for &i in graph.order() {
            match &g.nodes()[i].kind {
                NodeKind::Task(_) => {
                    let body = self.body(j).map_err(problem)?;
                    block(body.text(), out)?;
                    j += 1;
                }
                _ => {
                    if let Some((text, _)) = self.adapter_block(i).map_err(problem)? {
                        block(text.text(), out)?;
                    }
                }
            }
        }
        out("\n")
    }

    fn for_each_stage_output(&self, each: &mut dyn FnMut(&str, &Value) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let mut name = String::new();
        for (j, &i) in self.order.iter().enumerate() {
            let value = self.values[i].as_ref().expect("every task node was compiled");
            name.clear();
            let _ = write!(name, "task_{}_out", j + 1);
            each(&name, value)?;
        }
        Ok(())
    }

    fn held(&self) -> Option<&Sample> {
        None
    }

    /// As `into_sample` chooses it: the first root in topological order, else the first task's input.
    fn chain_input(&self) -> Result<Value, GenerateError> {
        if let Some(value) = self.order.iter().find_map(|&i| self.roots.get(i)) {
            return Ok(value.clone());
        }
        let &first = self.order.first().ok_or_else(|| self.problem("no task nodes".into()))?;
        node_input(self.graph, first, 1, &self.values, &self.roots).map(|(value, _)| value.into_owned()).map_err(|reason| self.problem(reason))
    }

    fn target_node(&self) -> Option<&str> {
        Some(&self.graph.graph().nodes()[self.graph.target()].id.0)
    }

    fn for_each_stage(&self, each: &mut dyn FnMut(&Stage) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        for j in 0..self.order.len() {
            match self.kept.get(j) {
                Some(Some((stage, _))) => each(stage)?,
                _ => each(&self.record(j).map_err(|reason| self.problem(reason))?)?,
            }
        }
        Ok(())
    }

    fn for_each_root(&self, each: &mut dyn FnMut(&RootInput) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let g = self.graph.graph();
        for (j, &i) in self.order.iter().enumerate() {
            if let Some(value) = self.roots.get(i) {
                // A root's input is named after its own task (`node_input`).
                each(&RootInput { node_id: g.nodes()[i].id.0.clone(), input_name: format!("task_{}_input", j + 1), value: value.clone() })?;
            }
        }
        Ok(())
    }

    fn for_each_adapter(&self, each: &mut dyn FnMut(&AdapterRecord) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        for &i in self.graph.order() {
            if let Some(record) = self.adapter_record(i).map_err(|reason| self.problem(reason))? {
                each(&record)?;
            }
        }
        Ok(())
    }
}

/// `task_J_out` for a task node (adapters have no output name of their own).
fn output_name(graph: &ValidGraph, node: usize) -> String {
    format!("task_{}_out", graph.task_number(node).unwrap_or(0))
}

/// The value and name of a task node's input (borrowed when it is a task's output).
fn node_input<'v>(graph: &ValidGraph, node: usize, number: usize, values: &'v [Option<Value>], roots: &'v Roots) -> Result<(Cow<'v, Value>, String), String> {
    let g = graph.graph();
    match graph.preds(node).first() {
        None => Ok((Cow::Borrowed(roots.get(node).ok_or("a root without an input")?), format!("task_{number}_input"))),
        Some(&p) => match g.nodes()[p].kind {
            NodeKind::Task(_) => Ok((Cow::Borrowed(values[p].as_ref().ok_or("a predecessor was not computed")?), output_name(graph, p))),
            _ => Ok((Cow::Owned(adapter_value(graph, p, values)?), format!("task_{number}_input"))),
        },
    }
}

/// Evaluates a pick or pack adapter from its inputs' values.
fn adapter_value(graph: &ValidGraph, node: usize, values: &[Option<Value>]) -> Result<Value, String> {
    let g = graph.graph();
    match &g.nodes()[node].kind {
        NodeKind::Pick { index } => {
            let p = graph.preds(node)[0];
            match values[p].as_ref().ok_or("pick input not computed")? {
                Value::List(items) => usize::try_from(*index)
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|x| Value::Scalar(*x))
                    .ok_or_else(|| format!("pick index {index} is out of range for a list of {} elements from `{}`", items.len(), g.nodes()[p].id)),
                Value::Scalar(_) => Err("pick input is a scalar".into()),
            }
        }
        NodeKind::Pack => {
            let mut parts: Vec<Number> = Vec::new();
            for &p in graph.preds(node) {
                match values[p].as_ref().ok_or("pack input not computed")? {
                    Value::Scalar(x) => parts.push(*x),
                    Value::List(_) => return Err("pack input is a list".into()),
                }
            }
            Ok(Value::List(recombine(&parts)))
        }
        _ => Err("not an adapter".into()),
    }
}

/// The latest (in topological order) task node that feeds `node`, directly or through one adapter.
fn feeding_task(graph: &ValidGraph, node: usize) -> Option<usize> {
    let g = graph.graph();
    let mut feeders: Vec<usize> = Vec::new();
    for &p in graph.preds(node) {
        match g.nodes()[p].kind {
            NodeKind::Task(_) => feeders.push(p),
            _ => feeders.extend(graph.preds(p).iter().copied().filter(|&q| matches!(g.nodes()[q].kind, NodeKind::Task(_)))),
        }
    }
    feeders.into_iter().max_by_key(|&f| graph.task_number(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::from_json_str;
    use crate::engine::tasks::registry::builtin;

    /// A list task picked at index 8 (lists shorter than 9 send the search back to it), feeding Python tasks
    /// (statics) through a pack, so kept and replayed samples differ in every way they could.
    const GRAPH: &str = r#"{"graph": {"target_node": "t"}, "nodes": [
        {"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"},
        {"id": "p", "kind": "adapter", "op": "pick", "index": 8},
        {"id": "a", "kind": "task", "family": "python", "input_kind": "scalar", "output_kind": "scalar"},
        {"id": "b", "kind": "task", "family": "python", "input_kind": "list", "output_kind": "scalar"},
        {"id": "k", "kind": "adapter", "op": "pack"},
        {"id": "t", "kind": "task", "family": "math", "input_kind": "list"}],
      "edges": [{"source": "s", "destination": "p"}, {"source": "p", "destination": "a"}, {"source": "s", "destination": "b"},
                {"source": "a", "destination": "k", "slot": 0}, {"source": "b", "destination": "k", "slot": 1}, {"source": "k", "destination": "t"}]}"#;

    #[test]
    fn replayed_blocks_equal_the_blocks_the_search_made() {
        let registry = builtin();
        let graph = from_json_str(GRAPH).expect("well-formed");
        let valid = ValidGraph::new(graph, &registry).expect("valid");
        let target = targets(&valid, &Family::ALL, &registry).expect("targets")[0].clone();
        let mut compared = 0;
        let mut with_statics = 0;
        for seed in 0..12 {
            let mut rng = InstanceRng::from_seed(seed);
            let Ok(kept) = compile(&valid, &registry, &Family::ALL, &target, &mut rng.clone(), true) else { continue };
            let lean = compile(&valid, &registry, &Family::ALL, &target, &mut rng, false).expect("the same search succeeds");
            with_statics += usize::from(!lean.statics.is_empty());
            let mut streamed = String::new();
            lean.write_prompt(&mut |piece| {
                streamed.push_str(piece);
                Ok(())
            })
            .expect("writes");
            let mut outputs = Vec::new();
            lean.for_each_stage_output(&mut |name, value| {
                outputs.push((name.to_string(), value.clone()));
                Ok(())
            })
            .expect("lists outputs");
            let replayed = lean.into_sample().expect("a sample");
            let sample = kept.into_sample().expect("a sample");
            assert_eq!(streamed, sample.prompt.text());
            assert_eq!(replayed, sample, "seed {seed}");
            assert_eq!(outputs, sample.stages.iter().map(|s| (s.output_name(), s.ground_truth.clone())).collect::<Vec<_>>());
            compared += 1;
        }
        assert!(compared >= 6, "only {compared} seeds compiled");
        assert!(with_statics > 0, "some python task had statics");
    }

    #[test]
    fn a_graphs_own_python_function_is_traced_where_its_node_pins_it() {
        let registry = builtin();
        let source = "def doubled(xs: List[int]) -> List[int]:\n    out = []\n    for x in xs:\n        out.append(2 * x)\n    return out\n";
        let text = format!(
            r#"{{"graph": {{"target_node": "t", "python_functions": [{}]}}, "nodes": [
                {{"id": "s", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "list"}},
                {{"id": "d", "kind": "task", "family": "python", "function": "doubled", "input_kind": "list", "output_kind": "list"}},
                {{"id": "t", "kind": "task", "family": "math", "input_kind": "list"}}],
              "edges": [{{"source": "s", "destination": "d"}}, {{"source": "d", "destination": "t"}}]}}"#,
            serde_json::to_string(source).unwrap()
        );
        let valid = ValidGraph::new(from_json_str(&text).expect("well-formed"), &registry).expect("valid");
        let target = targets(&valid, &[Family::Math], &registry).expect("targets")[0].clone();
        let mut made = 0;
        for seed in 0..8 {
            let Ok(sample) = custom(&valid, &registry, &[Family::Math], &target, &mut InstanceRng::from_seed(seed)) else { continue };
            let stage = sample.stages.iter().find(|s| s.node_id.as_deref() == Some("d")).expect("the function's stage");
            assert_eq!(stage.info.key, "python.graph.doubled");
            let (Value::List(input), Value::List(output)) = (&stage.input_value, &stage.ground_truth) else { panic!("lists") };
            // Before the call the chained list is cut to its first 10 elements, each reduced to the remainder of
            // its absolute value by 100 with its sign, as for every traced function.
            let expected: Vec<Number> = input.iter().take(10).map(|v| match v {
                Number::Int(n) => Number::Int(2 * n.signum() * (n.abs() % 100)),
                other => panic!("{other:?}"),
            }).collect();
            assert_eq!(output, &expected, "traced by the interpreter: every element doubled");
            assert!(sample.prompt.text().contains("out.append(2 * x)"), "the prompt shows the function (renamed for its task)");
            made += 1;
        }
        assert!(made >= 4, "only {made} seeds made a sample");
        // A pinned function that the graph lacks, or with kinds it does not have, is refused with the reason.
        for (from, to, message) in [
            (r#""function": "doubled""#, r#""function": "tripled""#, "no python function `tripled` in graph.python_functions (the graph has doubled)"),
            (r#""function": "doubled", "input_kind": "list", "output_kind": "list""#, r#""function": "doubled", "input_kind": "list", "output_kind": "scalar""#, "declared output_kind scalar, but `doubled` returns a list"),
        ] {
            let broken = text.replace(from, to);
            assert_ne!(broken, text);
            let issues = ValidGraph::new(from_json_str(&broken).expect("well-formed"), &registry).unwrap_err();
            assert!(issues.iter().any(|i| i.node.as_ref().is_some_and(|n| n.0 == "d") && i.message == message), "{issues:?}");
        }
    }
}
