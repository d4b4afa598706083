//! Custom-graph samples: a validated DAG compiled in topological order, with bounded, iterative backtracking
//! (a failing node sends the search back to the task that feeds it), so 10,000-node graphs work and no graph
//! can make the search blow up.

use std::rc::Rc;

use super::text::{conditions, graph_preamble, pick_line, recombination_paragraph, recombine, static_lines};
use super::{random_input, run_stage, stage_filter, AdapterRecord, GenerateError, RootInput, Sample, SampleShape, Stage};
use crate::engine::graph::{NodeKind, ValidGraph};
use crate::engine::prompt::{join_blocks, Prompt};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, Task, TaskInstance};
use crate::engine::value::{Number, Value};

/// Candidate tries per attempt: a few per task node, plus slack.
fn try_budget(task_nodes: usize) -> usize {
    task_nodes * 4 + 200
}

/// The target tasks: the pinned task, or every task of the target's family (for `any`, of the run's
/// families, family by family) compatible with its kinds.
pub fn targets(graph: &ValidGraph, run_families: &[Family], registry: &Registry) -> Result<Vec<Rc<dyn Task>>, GenerateError> {
    let t = graph.target();
    let NodeKind::Task(node) = &graph.graph().nodes()[t].kind else { return Err(GenerateError::NoTargets) };
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
    let g = graph.graph();
    let tasks: Vec<usize> = graph.order().iter().copied().filter(|&i| graph.task_number(i).is_some()).collect();
    let m = tasks.len();
    let mut position = vec![usize::MAX; g.nodes().len()];
    for (j, &i) in tasks.iter().enumerate() {
        position[i] = j;
    }

    // Root inputs, drawn in topological order.
    let mut root_input: Vec<Option<Value>> = vec![None; g.nodes().len()];
    for &i in &tasks {
        if graph.preds(i).is_empty() {
            let kind = graph.kinds(i).input.unwrap_or_else(|| target.info().primary_input_kind());
            root_input[i] = Some(random_input(kind, rng));
        }
    }

    let mut values: Vec<Option<Value>> = vec![None; g.nodes().len()];
    let mut made: Vec<Option<(Stage, TaskInstance)>> = vec![None; m];
    let mut candidates: Vec<Option<Vec<Rc<dyn Task>>>> = vec![None; m];
    let mut cursor = vec![0usize; m];
    let mut tries = 0usize;
    let budget = try_budget(m);
    let mut j = 0;
    let mut last = String::from("no candidates");
    while j < m {
        let i = tasks[j];
        let number = graph.task_number(i).expect("task nodes are numbered");
        let input = match node_input(graph, i, number, &values, &root_input) {
            Ok(input) => Some(input),
            Err(problem) => {
                last = problem;
                None
            }
        };
        if candidates[j].is_none() {
            let list = match &g.nodes()[i].kind {
                _ if i == graph.target() => vec![target.clone()],
                NodeKind::Task(node) => {
                    let families = node.families(run_families).ok_or("unknown family")?;
                    match (node.task_id, families.as_slice()) {
                        (Some(id), [family]) => vec![u32::try_from(id).ok().and_then(|id| registry.by_task_id(*family, id)).ok_or("unknown task id")?],
                        (Some(_), _) => return Err("a pinned task needs a concrete family".into()),
                        (None, _) => {
                            let kind = input.as_ref().map(|(v, _, _)| v.kind());
                            let mut c: Vec<Rc<dyn Task>> = families.iter().flat_map(|&f| registry.matching(f, kind, node.output_kind())).collect();
                            rng.shuffle(&mut c);
                            c
                        }
                    }
                }
                _ => Vec::new(),
            };
            candidates[j] = Some(list);
            cursor[j] = 0;
        }
        let mut success = false;
        if let Some((value, name, source)) = &input {
            let list = candidates[j].as_ref().expect("just filled");
            while cursor[j] < list.len() {
                let task = list[cursor[j]].clone();
                cursor[j] += 1;
                tries += 1;
                if tries > budget {
                    return Err(format!("gave up after {budget} candidate tries (last problem: {last})"));
                }
                let required = match &g.nodes()[i].kind {
                    NodeKind::Task(node) => node.output_kind(),
                    _ => None,
                };
                match run_stage(task.as_ref(), number, name, value, required, stage_filter(task.info().family), rng) {
                    Ok((mut stage, instance)) => {
                        stage.node_id = Some(g.nodes()[i].id.0.clone());
                        stage.input_node_id = source.clone();
                        values[i] = Some(stage.ground_truth.clone());
                        made[j] = Some((stage, instance));
                        success = true;
                        break;
                    }
                    Err(problem) => last = problem,
                }
            }
        }
        if success {
            j += 1;
            continue;
        }
        // Back to the latest task that feeds this node; everything after it is redone.
        let feeder = feeding_task(graph, i).map(|f| position[f]);
        let Some(back) = feeder else { return Err(last) };
        for k in back + 1..=j {
            candidates[k] = None;
            values[tasks[k]] = None;
            made[k] = None;
        }
        values[tasks[back]] = None;
        made[back] = None;
        j = back;
    }

    // Records and prompt, in topological order.
    let mut parts: Vec<Prompt> = Vec::new();
    let mut adapters = Vec::new();
    let mut roots = Vec::new();
    let mut lines = Vec::new();
    let mut stages = Vec::with_capacity(m);
    let mut made = made.into_iter();
    for &i in graph.order() {
        match &g.nodes()[i].kind {
            NodeKind::Task(_) => {
                let (stage, instance) = made.next().flatten().ok_or("a task node was not compiled")?;
                if let Some(value) = &root_input[i] {
                    lines.push((stage.input_name.clone(), value.clone()));
                    roots.push(RootInput { node_id: g.nodes()[i].id.0.clone(), input_name: stage.input_name.clone(), value: value.clone() });
                }
                lines.extend(static_lines(stage.number, &stage.statics));
                parts.push(instance.body);
                stages.push(stage);
            }
            NodeKind::Pick { index } => {
                let source = graph.preds(i)[0];
                let consumer = graph.succs(i)[0];
                let name = format!("task_{}_input", graph.task_number(consumer).unwrap_or(0));
                let source_name = output_name(graph, source);
                parts.push(pick_line(&name, &source_name, *index));
                adapters.push(AdapterRecord {
                    node_id: g.nodes()[i].id.0.clone(),
                    op: "pick".into(),
                    input_node_ids: vec![g.nodes()[source].id.0.clone()],
                    input_names: vec![source_name],
                    output_name: name,
                    value: adapter_value(graph, i, &values)?,
                });
            }
            NodeKind::Pack => {
                let consumer = graph.succs(i)[0];
                let name = format!("task_{}_input", graph.task_number(consumer).unwrap_or(0));
                let sources: Vec<String> = graph.preds(i).iter().map(|&p| output_name(graph, p)).collect();
                parts.push(recombination_paragraph(&name, &sources, false));
                adapters.push(AdapterRecord {
                    node_id: g.nodes()[i].id.0.clone(),
                    op: "pack".into(),
                    input_node_ids: graph.preds(i).iter().map(|&p| g.nodes()[p].id.0.clone()).collect(),
                    input_names: sources,
                    output_name: name,
                    value: adapter_value(graph, i, &values)?,
                });
            }
            NodeKind::Unknown { .. } => {}
        }
    }
    let mut all = vec![graph_preamble(), conditions("Static Inputs:", &lines)];
    all.extend(parts);
    let target_stage = stages.iter().find(|s| s.node_id.as_deref() == Some(g.nodes()[graph.target()].id.0.as_str())).ok_or("target not compiled")?.clone();
    let first = stages.first().ok_or("no task nodes")?;
    Ok(Sample {
        target_index: 0,
        sample_idx: 0,
        target: target.info().clone(),
        chain_input: roots.first().map(|r| r.value.clone()).unwrap_or_else(|| first.input_value.clone()),
        prompt: join_blocks(&all),
        ground_truth: target_stage.ground_truth.clone(),
        target_output_name: target_stage.output_name(),
        stages,
        shape: SampleShape::Custom { target_node: g.nodes()[graph.target()].id.0.clone(), roots, adapters },
    })
}

/// `task_J_out` for a task node (adapters have no output name of their own).
fn output_name(graph: &ValidGraph, node: usize) -> String {
    format!("task_{}_out", graph.task_number(node).unwrap_or(0))
}

/// The value, name and source node of a task node's input.
fn node_input(graph: &ValidGraph, node: usize, number: usize, values: &[Option<Value>], roots: &[Option<Value>]) -> Result<(Value, String, Option<String>), String> {
    let g = graph.graph();
    match graph.preds(node).first() {
        None => Ok((roots[node].clone().ok_or("a root without an input")?, format!("task_{number}_input"), None)),
        Some(&p) => {
            let source = Some(g.nodes()[p].id.0.clone());
            match g.nodes()[p].kind {
                NodeKind::Task(_) => Ok((values[p].clone().ok_or("a predecessor was not computed")?, output_name(graph, p), source)),
                _ => Ok((adapter_value(graph, p, values)?, format!("task_{number}_input"), source)),
            }
        }
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
