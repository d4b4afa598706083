//! Generation: a topology (or a custom graph), task families, samples per target and a seed in; samples with
//! prompts and exact ground truths out.
//!
//! A run is a pure function of its `GenerateConfig` and the registry: every sample draws from an RNG derived
//! from (seed, target index, sample index, attempt), so one sample can be regenerated alone (`generate_sample`)
//! and native and wasm builds give byte-identical files. Degenerate outputs are resampled a bounded number of times:
//! chains and multichains redraw the failing stage and back up stage by stage (`search`), the other topologies
//! resample the whole attempt.

mod baseline;
mod chain;
mod custom;
pub mod form;
mod multichain;
pub mod plan;
mod search;
mod structure;
mod text;

pub use structure::{parse_structure, Structure, StructureError, StructureItem};

use std::rc::Rc;
use std::sync::Arc;

use crate::engine::adapter::{LIST_LEN_MAX, SCALAR_MAX_MAG};
use crate::engine::filter::Filter;
use crate::engine::graph::ValidGraph;
use crate::engine::prompt::{Prompt, Role};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::image::Picture;
use crate::engine::tasks::{Family, StaticInput, Task, TaskContext, TaskInfo, TaskInstance};
use crate::engine::value::{Kind, Number, Value};
use search::{Budget, Mode};

/// The shape of the generated prompts.
#[derive(Clone, Debug)]
pub enum Topology {
    /// One task.
    Baseline,
    /// `distractors` independent tasks, then the target.
    Forgetting { distractors: usize },
    /// A linear chain of `length` tasks ending in the target.
    Chain { length: usize },
    /// Flat segments and branch blocks (`m,m,[m,m],[m,m],m,m`).
    Multichain(Structure),
    /// A user-drawn graph.
    Custom(Box<ValidGraph>),
}

/// The settings a topology is named with: what `Topology::parse` reads besides the name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyParams<'a> {
    /// Forgetting: independent tasks before the target.
    pub distractors: usize,
    /// Chain: tasks in the chain.
    pub length: usize,
    /// Multichain: the structure text; `None` (or blank) for the paper's `f,f,[f,f],[f,f],f,f`.
    pub structure: Option<&'a str>,
}

impl Topology {
    /// The topology named `name` (`baseline`, `forgetting`, `chain` or `multichain`; a custom graph is read
    /// and checked apart) with `params`, for targets of `family` (whose letter the default structure uses).
    /// The CLI, the Generate form and the designer's presets all name topologies through here.
    pub fn parse(name: &str, params: &TopologyParams, family: Family) -> Result<Topology, String> {
        Ok(match name {
            "baseline" => Topology::Baseline,
            "forgetting" => Topology::Forgetting { distractors: params.distractors },
            "chain" => Topology::Chain { length: params.length },
            "multichain" => {
                let text = match params.structure.map(str::trim).filter(|s| !s.is_empty()) {
                    Some(text) => text.to_string(),
                    None => paper_structure(family),
                };
                Topology::Multichain(parse_structure(&text).map_err(|e| format!("structure {text:?}: {e}"))?)
            }
            other => return Err(format!("unknown topology `{other}` (baseline, forgetting, chain, multichain or custom)")),
        })
    }

    /// The reference's name of the topology.
    pub fn name(&self) -> &'static str {
        match self {
            Topology::Baseline => "baseline",
            Topology::Forgetting { .. } => "forgetting",
            Topology::Chain { .. } => "chain",
            Topology::Multichain(_) => "multichain",
            Topology::Custom(_) => "custom",
        }
    }
}

/// The paper's multichain for targets of `family`: `f,f,[f,f],[f,f],f,f` in the family's letter.
pub fn paper_structure(family: Family) -> String {
    let f = &family.as_str()[..1];
    format!("{f},{f},[{f},{f}],[{f},{f}],{f},{f}")
}

/// Everything a run depends on.
#[derive(Clone, Debug)]
pub struct GenerateConfig {
    pub topology: Topology,
    /// Families targets and other stages are drawn from (several = mixed).
    pub families: Vec<Family>,
    pub samples_per_target: u32,
    pub seed: u64,
    /// Whole attempts per sample (each resamples everything); chains and multichains then get as many repair
    /// searches, within a try budget (`search`).
    pub max_attempts: u32,
    /// Restricts targets to these task keys (empty: all eligible tasks).
    pub only_targets: Vec<String>,
}

impl GenerateConfig {
    /// Defaults of the reference: 16 samples per target, seed 0, 100 attempts.
    pub fn new(topology: Topology, families: Vec<Family>) -> GenerateConfig {
        GenerateConfig { topology, families, samples_per_target: 16, seed: 0, max_attempts: 100, only_targets: Vec::new() }
    }

    /// True when some stage of a sample may be an image task, so samples may carry pictures.
    pub fn may_draw_pictures(&self) -> bool {
        let image = |f: &Family| *f == Family::Image;
        self.families.iter().any(image)
            || match &self.topology {
                Topology::Multichain(structure) => structure.items.iter().any(|item| match item {
                    StructureItem::Flat(f) => image(f),
                    StructureItem::Branch(fs) => fs.iter().any(image),
                }),
                Topology::Custom(graph) => graph.graph().nodes().iter().any(|n| matches!(&n.kind, crate::engine::graph::NodeKind::Task(t) if t.family() == Some(Family::Image))),
                _ => false,
            }
    }
}

/// The most stages a chain or multichain may have. A chain sample is held whole while it is made (its prompt,
/// its blocks and a record per stage: about 8 KB per stage measured at 10,000 stages), so this bounds one sample
/// near 1.6 GB and 10 seconds; bigger workloads are custom graphs, whose samples are streamed.
pub const MAX_STAGES: usize = 200_000;

/// Why generation could not run or a sample could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GenerateError {
    #[error("no task of the selected families can be a target for this topology")]
    NoTargets,
    #[error("target index {index} is out of range (there are {count} targets)")]
    TargetOutOfRange { index: usize, count: usize },
    #[error("{task}: no acceptable sample {sample_idx} after {attempts} attempts (last problem: {last})")]
    Exhausted { task: String, sample_idx: u32, attempts: u32, last: String },
    /// A chain or multichain stage kept failing in every whole attempt and repair search.
    #[error("{task}: no acceptable sample {sample_idx} after {attempts} attempts and {tries} repair tries: stage {stage} ({stage_task}) kept failing: {reason}")]
    StageFailed { task: String, sample_idx: u32, stage: usize, stage_task: String, reason: String, tries: usize, attempts: u32 },
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A streamed sample could not be written.
    #[error("could not write the output: {0}")]
    Write(String),
}

/// One task stage of a sample, in prompt order.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub number: usize,
    pub info: TaskInfo,
    /// How the prompt names the stage's input (`task_1_input`, `task_2_out`).
    pub input_name: String,
    /// The raw value the stage received.
    pub input_value: Value,
    pub ground_truth: Value,
    pub statics: Vec<StaticInput>,
    pub template_index: Option<u32>,
    /// Custom graphs: the node this stage instantiates.
    pub node_id: Option<String>,
    /// Custom graphs: the node its input comes from (none for roots).
    pub input_node_id: Option<String>,
    /// Image tasks: the stage's picture.
    pub picture: Option<Arc<Picture>>,
}

impl Stage {
    /// `task_N_out`.
    pub fn output_name(&self) -> String {
        format!("task_{}_out", self.number)
    }
}

/// Multichain: one branch of a branch block.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    pub input_name: String,
    pub input_value: Number,
    /// Stage numbers of the branch, in order.
    pub stages: Vec<usize>,
}

/// Multichain: a split into scalar branches and their recombination.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchBlock {
    pub expansion_task_number: usize,
    pub branches: Vec<Branch>,
    pub next_input_name: String,
    pub prelim: Vec<Number>,
    pub recombined: Vec<Number>,
}

/// Custom graphs: one adapter node's evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterRecord {
    pub node_id: String,
    pub op: String,
    pub input_node_ids: Vec<String>,
    pub input_names: Vec<String>,
    pub output_name: String,
    pub value: Value,
}

/// Custom graphs: a root input shown among the static inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct RootInput {
    pub node_id: String,
    pub input_name: String,
    pub value: Value,
}

/// Topology-specific parts of a sample.
#[derive(Clone, Debug, PartialEq)]
pub enum SampleShape {
    Baseline,
    Forgetting,
    Chain,
    Multichain { blocks: Vec<BranchBlock> },
    Custom { target_node: String, roots: Vec<RootInput>, adapters: Vec<AdapterRecord> },
}

/// One generated sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Position of the target in the run's target list.
    pub target_index: usize,
    pub sample_idx: u32,
    /// The target task.
    pub target: TaskInfo,
    /// The first stage's raw input (baseline: the target's).
    pub chain_input: Value,
    pub prompt: Prompt,
    pub ground_truth: Value,
    /// The graded output name.
    pub target_output_name: String,
    /// Every task stage, in prompt order (the target included).
    pub stages: Vec<Stage>,
    pub shape: SampleShape,
}

impl Sample {
    /// The sample's pictures in attachment order (Image 1 first), each with its stage's task number.
    pub fn pictures(&self) -> Vec<(usize, &Arc<Picture>)> {
        let mut out: Vec<(usize, &Arc<Picture>)> = self.stages.iter().filter_map(|s| s.picture.as_ref().map(|p| (s.number, p))).collect();
        out.sort_by_key(|&(number, _)| number);
        out
    }
}

/// What writers need of a sample, whether it is held whole (`Sample`) or, for custom graphs streamed by
/// `generate_each`, compiled with its prompt written on demand.
pub trait SampleView {
    fn target(&self) -> &TaskInfo;
    fn sample_idx(&self) -> u32;
    fn ground_truth(&self) -> &Value;
    fn target_output_name(&self) -> String;
    /// Writes the prompt text, piece by piece, in order.
    fn write_prompt(&self, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// Calls `each(output name, ground truth)` for every stage, in prompt order.
    fn for_each_stage_output(&self, each: &mut dyn FnMut(&str, &Value) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// The sample itself when it is held whole; `None` for a compiled custom-graph sample, whose records come
    /// from the methods below.
    fn held(&self) -> Option<&Sample>;
    /// The first stage's raw input (custom graphs: the first root's).
    fn chain_input(&self) -> Result<Value, GenerateError>;
    /// Custom graphs: the target's node id (`None` for the other topologies).
    fn target_node(&self) -> Option<&str>;
    /// Calls `each` with every stage record, in prompt order. A compiled sample makes each record again and
    /// drops it after the call, so a million-stage sample never holds its records.
    fn for_each_stage(&self, each: &mut dyn FnMut(&Stage) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// Custom graphs: every root input, in topological order (none for the other topologies).
    fn for_each_root(&self, each: &mut dyn FnMut(&RootInput) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
    /// Custom graphs: every adapter's record, in topological order (none for the other topologies).
    fn for_each_adapter(&self, each: &mut dyn FnMut(&AdapterRecord) -> Result<(), GenerateError>) -> Result<(), GenerateError>;
}

impl SampleView for Sample {
    fn target(&self) -> &TaskInfo {
        &self.target
    }

    fn sample_idx(&self) -> u32 {
        self.sample_idx
    }

    fn ground_truth(&self) -> &Value {
        &self.ground_truth
    }

    fn target_output_name(&self) -> String {
        self.target_output_name.clone()
    }

    /// In pieces of at most 64 KiB, so that a writer escaping them never needs a copy of a long prompt.
    fn write_prompt(&self, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        let mut rest = self.prompt.text();
        while !rest.is_empty() {
            let mut cut = rest.len().min(1 << 16);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, tail) = rest.split_at(cut);
            out(piece)?;
            rest = tail;
        }
        Ok(())
    }

    fn for_each_stage_output(&self, each: &mut dyn FnMut(&str, &Value) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        for stage in &self.stages {
            each(&stage.output_name(), &stage.ground_truth)?;
        }
        Ok(())
    }

    fn held(&self) -> Option<&Sample> {
        Some(self)
    }

    fn chain_input(&self) -> Result<Value, GenerateError> {
        Ok(self.chain_input.clone())
    }

    fn target_node(&self) -> Option<&str> {
        match &self.shape {
            SampleShape::Custom { target_node, .. } => Some(target_node),
            _ => None,
        }
    }

    fn for_each_stage(&self, each: &mut dyn FnMut(&Stage) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        self.stages.iter().try_for_each(each)
    }

    fn for_each_root(&self, each: &mut dyn FnMut(&RootInput) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        match &self.shape {
            SampleShape::Custom { roots, .. } => roots.iter().try_for_each(each),
            _ => Ok(()),
        }
    }

    fn for_each_adapter(&self, each: &mut dyn FnMut(&AdapterRecord) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
        match &self.shape {
            SampleShape::Custom { adapters, .. } => adapters.iter().try_for_each(each),
            _ => Ok(()),
        }
    }
}

/// The targets of a run, in order.
pub fn targets(config: &GenerateConfig, registry: &Registry) -> Result<Vec<Rc<dyn Task>>, GenerateError> {
    let mut out: Vec<Rc<dyn Task>> = match &config.topology {
        Topology::Custom(graph) => custom::targets(graph, &config.families, registry)?,
        Topology::Multichain(structure) => multichain::split_targets(structure, registry).map_err(|e| GenerateError::Config(format!("this structure cannot be filled: {e}")))?.0,
        _ => config.families.iter().flat_map(|&f| registry.family(f)).collect(),
    };
    if !config.only_targets.is_empty() {
        out.retain(|t| wanted(config, t.info()));
    }
    if out.is_empty() {
        // Only skipped targets were asked for: say why the first of them cannot be one.
        if let Some((key, reason)) = skipped_targets(config, registry).into_iter().next() {
            return Err(GenerateError::Config(format!("{key} cannot be a target here: {reason}")));
        }
        return Err(GenerateError::NoTargets);
    }
    Ok(out)
}

/// The tasks the topology rules out as targets before any search, each with a one-line reason, in registry
/// order: for a multichain, the final family's tasks that cannot take what reaches the end (after a branch
/// block, the recombined list). Only the tasks `only_targets` names, when it names any. Empty for the other
/// topologies, and when the configuration cannot run at all (`targets` reports that).
pub fn skipped_targets(config: &GenerateConfig, registry: &Registry) -> Vec<(String, String)> {
    let Topology::Multichain(structure) = &config.topology else { return Vec::new() };
    let Ok((_, misfits)) = multichain::split_targets(structure, registry) else { return Vec::new() };
    misfits
        .into_iter()
        .filter(|(task, _)| config.only_targets.is_empty() || wanted(config, task.info()))
        .map(|(task, reason)| (task.info().key.clone(), reason))
        .collect()
}

/// True if `only_targets` names the task (by key or name).
fn wanted(config: &GenerateConfig, info: &TaskInfo) -> bool {
    config.only_targets.iter().any(|k| k == &info.key || k == &info.name)
}

/// Generates every sample of a run, calling `progress(done, total)` after each.
pub fn generate(config: &GenerateConfig, registry: &Registry, progress: &mut dyn FnMut(usize, usize)) -> Result<Vec<Sample>, GenerateError> {
    check_config(config)?;
    let targets = targets(config, registry)?;
    let total = targets.len() * config.samples_per_target as usize;
    let mut samples = Vec::with_capacity(total);
    for (target_index, target) in targets.iter().enumerate() {
        for sample_idx in 0..config.samples_per_target {
            samples.push(generate_for(config, registry, target_index, target, sample_idx)?);
            progress(samples.len(), total);
        }
    }
    Ok(samples)
}

/// Generates every sample of a run and hands each to `each` as soon as it is made, so a run never holds more
/// than one sample. Custom-graph samples are handed over compiled (their prompt is written on demand, see
/// `SampleView::write_prompt`), so even a million-node sample stays small. Returns the number of samples.
pub fn generate_each(config: &GenerateConfig, registry: &Registry, progress: &mut dyn FnMut(usize, usize), each: &mut dyn FnMut(&dyn SampleView) -> Result<(), GenerateError>) -> Result<usize, GenerateError> {
    check_config(config)?;
    let targets = targets(config, registry)?;
    let total = targets.len() * config.samples_per_target as usize;
    for slot in 0..total {
        with_slot(config, registry, &targets, slot, each)?;
        progress(slot + 1, total);
    }
    Ok(total)
}

/// Makes the sample at `slot` of a run whose targets are `targets` (target `slot / samples_per_target`, sample
/// `slot % samples_per_target`: the order `generate_each` hands them over in) and hands it to `each`. A slot is a
/// pure function of the configuration and its number, so slots can be made apart (the CLI makes them on
/// several threads) and still add up to the same run.
pub fn with_slot(config: &GenerateConfig, registry: &Registry, targets: &[Rc<dyn Task>], slot: usize, each: &mut dyn FnMut(&dyn SampleView) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
    let per_target = config.samples_per_target.max(1) as usize;
    let target_index = slot / per_target;
    let target = targets.get(target_index).ok_or(GenerateError::TargetOutOfRange { index: target_index, count: targets.len() })?;
    let sample_idx = (slot % per_target) as u32;
    match &config.topology {
        Topology::Custom(graph) => each(&compile_for(config, graph, registry, target_index, target, sample_idx)?),
        _ => each(&generate_for(config, registry, target_index, target, sample_idx)?),
    }
}

/// Regenerates one sample alone; identical to the same sample of a full run.
pub fn generate_sample(config: &GenerateConfig, registry: &Registry, target_index: usize, sample_idx: u32) -> Result<Sample, GenerateError> {
    check_config(config)?;
    let targets = targets(config, registry)?;
    let target = targets.get(target_index).ok_or(GenerateError::TargetOutOfRange { index: target_index, count: targets.len() })?;
    generate_for(config, registry, target_index, target, sample_idx)
}

/// Refuses settings no run can have (no family, zero samples or attempts, sizes past the limits), as every
/// generation entry point does before it makes anything.
pub fn check_config(config: &GenerateConfig) -> Result<(), GenerateError> {
    if config.families.is_empty() {
        return Err(GenerateError::Config("choose at least one family".into()));
    }
    if config.samples_per_target == 0 {
        return Err(GenerateError::Config("samples per target must be at least 1".into()));
    }
    if config.max_attempts == 0 {
        return Err(GenerateError::Config("max attempts must be at least 1".into()));
    }
    match &config.topology {
        Topology::Chain { length } if *length == 0 || *length > MAX_STAGES => {
            Err(GenerateError::Config(format!("chain length must be between 1 and {MAX_STAGES}, got {length}")))
        }
        Topology::Multichain(structure) if structure.task_count() > MAX_STAGES => {
            Err(GenerateError::Config(format!("a multichain may have at most {MAX_STAGES} tasks, got {}", structure.task_count())))
        }
        Topology::Forgetting { distractors } if *distractors > 1000 => {
            Err(GenerateError::Config(format!("at most 1000 distractors are supported, got {distractors}")))
        }
        _ => Ok(()),
    }
}

fn generate_for(config: &GenerateConfig, registry: &Registry, target_index: usize, target: &Rc<dyn Task>, sample_idx: u32) -> Result<Sample, GenerateError> {
    let stage_count = match &config.topology {
        Topology::Chain { length } => *length,
        Topology::Multichain(structure) => structure.task_count(),
        _ => 0,
    };
    let mut budget = Budget::new(search::try_budget(stage_count));
    let mut last = String::from("no attempt made");
    // Whole attempts, as the reference makes them; then, for chains and multichains whose attempts all failed
    // (long ones), repair searches numbered after them, each with a share of the sample's try budget.
    let repairs = if stage_count > 0 { config.max_attempts } else { 0 };
    // A multichain that asks a family for more tasks than it has cannot be made without repeats, which only
    // repair searches allow: its whole attempts would all fail, so they are skipped (the repairs keep their
    // numbers, hence their draws).
    let first = match &config.topology {
        Topology::Multichain(structure) if !multichain::distinct_tasks_suffice(structure, registry) => config.max_attempts,
        _ => 0,
    };
    let mut attempts = 0;
    for attempt in first..config.max_attempts.saturating_add(repairs) {
        let mode = if attempt < config.max_attempts { Mode::Single } else { Mode::Repair };
        if mode == Mode::Repair {
            if budget.spent() {
                break;
            }
            budget.start_attempt(search::attempt_budget(stage_count));
        }
        attempts = attempt + 1;
        let coordinates = [target_index as u64, sample_idx as u64, u64::from(attempt)];
        let mut rng = InstanceRng::for_instance(config.seed, &coordinates);
        let derive = |stage: usize, serial: u64| InstanceRng::for_instance(config.seed, &[coordinates[0], coordinates[1], coordinates[2], stage as u64, serial]);
        let made = match &config.topology {
            Topology::Baseline => baseline::baseline(target, &mut rng).map(Some),
            Topology::Forgetting { distractors } => baseline::forgetting(config, registry, target, *distractors, &mut rng).map(Some),
            Topology::Chain { length } => Ok(chain::chain(config, registry, target, *length, mode, &mut rng, &derive, &mut budget)),
            Topology::Multichain(structure) => multichain::multichain(structure, registry, target, mode, &mut rng, &derive, &mut budget),
            Topology::Custom(graph) => custom::custom(graph, registry, &config.families, target, &mut rng).map(Some),
        };
        match made {
            Ok(Some(mut sample)) => {
                sample.target_index = target_index;
                sample.sample_idx = sample_idx;
                image_note(&mut sample);
                return Ok(sample);
            }
            Ok(None) => {}
            Err(problem) => last = problem,
        }
    }
    match budget.stuck {
        Some(stuck) => Err(GenerateError::StageFailed {
            task: target.info().key.clone(),
            sample_idx,
            stage: stuck.stage + 1,
            stage_task: stuck.task,
            reason: stuck.reason,
            tries: budget.used,
            attempts,
        }),
        None => Err(GenerateError::Exhausted { task: target.info().key.clone(), sample_idx, attempts, last }),
    }
}

/// A custom-graph sample compiled without its task blocks (`generate_for` makes the same sample in full).
fn compile_for<'g>(config: &GenerateConfig, graph: &'g ValidGraph, registry: &Registry, target_index: usize, target: &Rc<dyn Task>, sample_idx: u32) -> Result<custom::Compiled<'g>, GenerateError> {
    let mut last = String::from("no attempt made");
    for attempt in 0..config.max_attempts {
        let mut rng = InstanceRng::for_instance(config.seed, &[target_index as u64, sample_idx as u64, u64::from(attempt)]);
        match custom::compile(graph, registry, &config.families, target, &mut rng, false) {
            Ok(mut compiled) => {
                compiled.target_index = target_index;
                compiled.sample_idx = sample_idx;
                return Ok(compiled);
            }
            Err(problem) => last = problem,
        }
    }
    Err(GenerateError::Exhausted { task: target.info().key.clone(), sample_idx, attempts: config.max_attempts, last })
}

/// Ends a prompt that has pictures with the key from attachment order to tasks ("Image 1 is the image for
/// Task 3"); prompts without pictures are left exactly as they were.
fn image_note(sample: &mut Sample) {
    let tasks: Vec<usize> = sample.pictures().iter().map(|&(number, _)| number).collect();
    if tasks.is_empty() {
        return;
    }
    let count = if tasks.len() == 1 { "1 image".to_string() } else { format!("{} images", tasks.len()) };
    let key: Vec<String> = tasks.iter().enumerate().map(|(i, n)| format!("Image {} is the image for Task {n}", i + 1)).collect();
    sample.prompt.push(Role::Instruction, &format!("\nThis prompt comes with {count}, attached after this text in order: {}.\n", key.join("; ")));
}

/// A fresh raw input of `kind`: an int in [-100, 100], or 10 of them.
fn random_input(kind: Kind, rng: &mut InstanceRng) -> Value {
    match kind {
        Kind::Scalar => Value::int(rng.int_in(-SCALAR_MAX_MAG, SCALAR_MAX_MAG)),
        Kind::List => Value::List((0..LIST_LEN_MAX).map(|_| Number::Int(rng.int_in(-SCALAR_MAX_MAG, SCALAR_MAX_MAG))).collect()),
    }
}

/// The filter for a stage of `family` outside baseline.
fn stage_filter(family: Family) -> Filter {
    match family {
        Family::Gsm => Filter::Gsm,
        // A path's numbers are a reading of the picture, not a computation: no output is degenerate.
        Family::Image => Filter::None,
        _ => Filter::Unusable,
    }
}

/// Why a stage could not be made: the task tried and what went wrong.
#[derive(Clone, Debug, PartialEq)]
struct StageProblem {
    task: String,
    reason: String,
}

impl std::fmt::Display for StageProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.task, self.reason)
    }
}

/// Instantiates one task and applies `filter` and the required output kind. Without `with_body` the
/// instance's body may be empty (`Task::solve`).
fn instantiate(task: &dyn Task, number: usize, input_name: &str, input: &Value, output_kind: Option<Kind>, filter: Filter, with_body: bool, rng: &mut InstanceRng) -> Result<TaskInstance, StageProblem> {
    let problem = |reason: String| StageProblem { task: task.info().key.clone(), reason };
    let ctx = TaskContext { number, input_name, input, output_kind };
    let made = if with_body { task.instantiate(&ctx, rng) } else { task.solve(&ctx, rng) };
    let instance = made.map_err(|e| problem(e.to_string()))?;
    if !filter.accepts(&instance.output, input) {
        return Err(problem(format!("degenerate output {}", short_repr(&instance.output))));
    }
    if let Some(kind) = output_kind {
        if instance.output.kind() != kind {
            return Err(problem(format!("produced a {} where a {kind} was needed", instance.output.kind())));
        }
    }
    Ok(instance)
}

/// Instantiates one stage and applies `filter`; returns the stage record and its prompt block.
fn run_stage(task: &dyn Task, number: usize, input_name: &str, input: &Value, output_kind: Option<Kind>, filter: Filter, rng: &mut InstanceRng) -> Result<(Stage, TaskInstance), StageProblem> {
    let instance = instantiate(task, number, input_name, input, output_kind, filter, true, rng)?;
    let stage = Stage {
        number,
        info: task.info().clone(),
        input_name: input_name.to_string(),
        input_value: input.clone(),
        ground_truth: instance.output.clone(),
        statics: instance.statics.clone(),
        template_index: instance.template_index,
        node_id: None,
        input_node_id: None,
        picture: instance.picture.clone(),
    };
    Ok((stage, instance))
}

fn short_repr(value: &Value) -> String {
    let text = value.repr();
    if text.len() > 60 {
        format!("{}…", &text[..60])
    } else {
        text
    }
}
