//! Generation: a topology (or a custom graph), task families, samples per target and a seed in; samples with
//! prompts and exact ground truths out.
//!
//! A run is a pure function of its `GenerateConfig` and the registry: every sample draws from an RNG derived
//! from (seed, target index, sample index, attempt), so one sample can be regenerated alone (`generate_sample`)
//! and native and wasm builds give byte-identical files. Degenerate outputs are resampled a bounded number of times.

mod baseline;
mod chain;
mod custom;
mod multichain;
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

impl Topology {
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

/// Everything a run depends on.
#[derive(Clone, Debug)]
pub struct GenerateConfig {
    pub topology: Topology,
    /// Families targets and other stages are drawn from (several = mixed).
    pub families: Vec<Family>,
    pub samples_per_target: u32,
    pub seed: u64,
    /// Attempts per sample before giving up on it (each attempt resamples everything).
    pub max_attempts: u32,
    /// Restricts targets to these task keys (empty: all eligible tasks).
    pub only_targets: Vec<String>,
}

impl GenerateConfig {
    /// Defaults of the reference: 16 samples per target, seed 0, 100 attempts.
    pub fn new(topology: Topology, families: Vec<Family>) -> GenerateConfig {
        GenerateConfig { topology, families, samples_per_target: 16, seed: 0, max_attempts: 100, only_targets: Vec::new() }
    }
}

/// The largest chain or prompt we generate.
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
    #[error("invalid configuration: {0}")]
    Config(String),
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

/// The targets of a run, in order.
pub fn targets(config: &GenerateConfig, registry: &Registry) -> Result<Vec<Rc<dyn Task>>, GenerateError> {
    let mut out: Vec<Rc<dyn Task>> = match &config.topology {
        Topology::Custom(graph) => custom::targets(graph, &config.families, registry)?,
        Topology::Multichain(structure) => {
            multichain::check_feasible(structure, registry).map_err(GenerateError::Config)?;
            let family = structure.last_family();
            registry.family(family).into_iter().filter(|t| multichain::can_be_target(structure, t.info(), registry)).collect()
        }
        _ => config.families.iter().flat_map(|&f| registry.family(f)).collect(),
    };
    if !config.only_targets.is_empty() {
        out.retain(|t| config.only_targets.iter().any(|k| k == &t.info().key || k == &t.info().name));
    }
    if out.is_empty() {
        return Err(GenerateError::NoTargets);
    }
    Ok(out)
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

/// Regenerates one sample alone; identical to the same sample of a full run.
pub fn generate_sample(config: &GenerateConfig, registry: &Registry, target_index: usize, sample_idx: u32) -> Result<Sample, GenerateError> {
    check_config(config)?;
    let targets = targets(config, registry)?;
    let target = targets.get(target_index).ok_or(GenerateError::TargetOutOfRange { index: target_index, count: targets.len() })?;
    generate_for(config, registry, target_index, target, sample_idx)
}

fn check_config(config: &GenerateConfig) -> Result<(), GenerateError> {
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
        Topology::Forgetting { distractors } if *distractors > 1000 => {
            Err(GenerateError::Config(format!("at most 1000 distractors are supported, got {distractors}")))
        }
        _ => Ok(()),
    }
}

fn generate_for(config: &GenerateConfig, registry: &Registry, target_index: usize, target: &Rc<dyn Task>, sample_idx: u32) -> Result<Sample, GenerateError> {
    let mut last = String::from("no attempt made");
    for attempt in 0..config.max_attempts {
        let mut rng = InstanceRng::for_instance(config.seed, &[target_index as u64, sample_idx as u64, attempt as u64]);
        let made = match &config.topology {
            Topology::Baseline => baseline::baseline(target, &mut rng),
            Topology::Forgetting { distractors } => baseline::forgetting(config, registry, target, *distractors, &mut rng),
            Topology::Chain { length } => chain::chain(config, registry, target, *length, &mut rng),
            Topology::Multichain(structure) => multichain::multichain(structure, registry, target, &mut rng),
            Topology::Custom(graph) => custom::custom(graph, registry, &config.families, target, &mut rng),
        };
        match made {
            Ok(mut sample) => {
                sample.target_index = target_index;
                sample.sample_idx = sample_idx;
                image_note(&mut sample);
                return Ok(sample);
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

/// Instantiates one stage and applies `filter`; returns the stage record and its prompt block. A problem is
/// returned as text for the attempt log.
fn run_stage(task: &dyn Task, number: usize, input_name: &str, input: &Value, output_kind: Option<Kind>, filter: Filter, rng: &mut InstanceRng) -> Result<(Stage, TaskInstance), String> {
    let ctx = TaskContext { number, input_name, input, output_kind };
    let instance = task.instantiate(&ctx, rng).map_err(|e| format!("{}: {e}", task.info().key))?;
    if !filter.accepts(&instance.output, input) {
        return Err(format!("{}: degenerate output {}", task.info().key, short_repr(&instance.output)));
    }
    if let Some(kind) = output_kind {
        if instance.output.kind() != kind {
            return Err(format!("{}: produced a {} where a {kind} was needed", task.info().key, instance.output.kind()));
        }
    }
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
