//! Task families and the contract every task implements: a typed node that turns a raw incoming value into a
//! prompt block and an exact ground truth.
//!
//! Families: `math` (the reference's 40 operators), `gsm` (our own word-problem templates), `python`
//! (tracing functions run by our interpreter) and `image` (follow a path in a generated picture). Each family
//! exposes `all()`, an explicit list in `task_id` order; `registry::builtin()` gathers them and rejects
//! duplicate keys.

pub mod gsm;
pub mod image;
pub mod math;
pub mod pack;
pub mod python_trace;
pub mod registry;

use std::fmt;
use std::sync::Arc;

use super::adapter::AdaptError;
use super::prompt::Prompt;
use super::rng::InstanceRng;
use super::value::{Kind, Value};

/// A task family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Math,
    Gsm,
    Python,
    Image,
}

impl Family {
    /// The text families: what a "mixed" run draws from. Image tasks join a run only when asked for by name
    /// (a family list, a structure letter, a graph node), so mixed files stay text-only and unchanged.
    pub const ALL: [Family; 3] = [Family::Math, Family::Gsm, Family::Python];

    /// Every family, in the order lists show them.
    pub const EVERY: [Family; 4] = [Family::Math, Family::Gsm, Family::Python, Family::Image];

    /// The reference's spelling (`math`, `gsm`, `python`; ours: `image`).
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Math => "math",
            Family::Gsm => "gsm",
            Family::Python => "python",
            Family::Image => "image",
        }
    }

    /// Parses the reference's spellings, including the multichain short forms (`m`, `g`, `p`, `py`, `i`).
    pub fn parse(text: &str) -> Option<Family> {
        match text.trim().to_ascii_lowercase().as_str() {
            "m" | "math" => Some(Family::Math),
            "g" | "gsm" => Some(Family::Gsm),
            "p" | "py" | "python" => Some(Family::Python),
            "i" | "image" => Some(Family::Image),
            _ => None,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Typed metadata of a task.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskInfo {
    /// Stable id, `family.name` (`math.ConvolutionTask`); appears in our files, never renamed.
    pub key: String,
    pub family: Family,
    /// The reference's `task_id`: position in the family's sorted list.
    pub task_id: u32,
    /// The reference's `task_name` (`ConvolutionTask`, `GSM_0007.json`, a Python function name).
    pub name: String,
    /// Accepted input kinds, in preference order (never empty).
    pub input_kinds: Vec<Kind>,
    pub output_kind: Kind,
    /// One line for people browsing the registry.
    pub description: String,
}

impl TaskInfo {
    /// The kind the task takes when generated on its own (baseline, chain): the first accepted kind.
    pub fn primary_input_kind(&self) -> Kind {
        self.input_kinds[0]
    }

    /// True if the task accepts an input of `kind`.
    pub fn accepts(&self, kind: Kind) -> bool {
        self.input_kinds.contains(&kind)
    }

    /// Accepted input kinds, then the output kind: `list | scalar → scalar`.
    pub fn signature(&self) -> String {
        signature(&self.input_kinds, self.output_kind)
    }
}

/// A task's accepted input kinds, then its output kind, as the designer and the pack listings show them:
/// `list | scalar → scalar`.
pub fn signature(inputs: &[Kind], output: Kind) -> String {
    let inputs: Vec<&str> = inputs.iter().map(|k| k.as_str()).collect();
    format!("{} → {output}", inputs.join(" | "))
}

/// Where a task sits in a prompt and what it receives.
#[derive(Clone, Copy, Debug)]
pub struct TaskContext<'a> {
    /// The 1-based task number `N` (position in the prompt).
    pub number: usize,
    /// How the prompt names the incoming value (`task_1_input`, `task_3_out`, `task_5_input`).
    pub input_name: &'a str,
    /// The raw incoming value (before the task's adapter).
    pub input: &'a Value,
    /// Python only: force this output kind (multichain, custom DAG).
    pub output_kind: Option<Kind>,
}

/// A static value a task shows in the prompt's initial conditions (`task_N_<param>_static = <repr>`).
#[derive(Clone, Debug, PartialEq)]
pub struct StaticInput {
    /// The parameter's name in the source (`capacity`).
    pub param: String,
    pub value: Value,
}

/// One instantiated task.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskInstance {
    /// The block that starts with `Task N:` and ends by naming `task_N_out`.
    pub body: Prompt,
    /// The exact ground truth.
    pub output: Value,
    /// Values to list among the initial conditions (Python's non-chained parameters), in parameter order.
    pub statics: Vec<StaticInput>,
    /// GSM: the template index used (the reference records it on GSM stages).
    pub template_index: Option<u32>,
    /// Image tasks: the picture the block refers to ("the image for Task N").
    pub picture: Option<Arc<image::Picture>>,
}

/// Why a task could not be instantiated on a given input. The caller resamples.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TaskError {
    #[error(transparent)]
    Adapt(#[from] AdaptError),
    #[error("the task does not accept a {0} input")]
    UnsupportedKind(Kind),
    #[error("computation failed: {0}")]
    Compute(String),
    #[error("no acceptable instance after {attempts} attempts")]
    Exhausted { attempts: u32 },
}

/// The contract of a task.
pub trait Task {
    /// Metadata; `info().key` is unique in a registry.
    fn info(&self) -> &TaskInfo;

    /// Builds the prompt block and ground truth for one input. Pure given `rng`'s state.
    fn instantiate(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError>;

    /// Only the prompt block `instantiate` would build from the same `rng` state, for writers that already hold
    /// the output. Tasks whose output costs more than their text override it to skip the solving.
    fn body(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<Prompt, TaskError> {
        self.instantiate(ctx, rng).map(|instance| instance.body)
    }

    /// `instantiate` for searches that keep only the output and statics: the body may be left empty (tasks whose
    /// text costs as much as their output override it to skip the text). Advances `rng` exactly as
    /// `instantiate` does, and gives the same output, statics, template index and picture (a streamed dataset
    /// writes its stage records from it).
    fn solve(&self, ctx: &TaskContext<'_>, rng: &mut InstanceRng) -> Result<TaskInstance, TaskError> {
        self.instantiate(ctx, rng)
    }

    /// The length of every list the task outputs, when it never varies (a picture's path has a fixed number of
    /// nodes); `None` when it varies or the output is a scalar. Generation uses it to keep a task whose lists are
    /// always too short from splitting into a branch block.
    fn fixed_list_len(&self) -> Option<usize> {
        None
    }
}
