//! Custom task graphs: the model behind the designer and `--topology custom`, read from and written to the
//! reference's NetworkX node-link JSON, edited through one function, and validated with every problem located.
//!
//! A graph has task nodes (a family, optionally a pinned `task_id`, declared kinds) and adapter nodes (`pick`
//! takes element `index` of a list; `pack` recombines several scalars into a 10-element list). `validate` turns a
//! `TaskGraph` into a `ValidGraph` (topological numbering, resolved kinds) or into the full list of issues.

mod edit;
mod functions;
mod node_link;
mod random;
mod structure;
mod validate;

pub use edit::{EditError, GraphEdit, Revert};
pub use functions::{function_key, GraphFunctions, FUNCTION_TASK_IDS};
pub use node_link::{from_json, from_json_reader, from_json_str, to_json, write_json, write_json_escaped, write_json_string, ParseGraphError};
pub use random::{random_dag, RandomGraphError};
pub use validate::{GraphIssue, Severity, ValidGraph};

use crate::engine::tasks::image::ImageParams;
use crate::engine::tasks::Family;
use crate::engine::value::Kind;

/// A node id as written in the file (`task_1`, `adapter_3`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub String);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a node is. Fields keep what the file said, even when invalid, so validation can report it.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Task(TaskNode),
    /// Takes element `index` of its list input.
    Pick { index: i64 },
    /// Packs its scalar inputs (ordered by edge `slot`) into a 10-element list.
    Pack,
    /// An adapter whose `op` is not `pick` or `pack`, or a node whose `kind` is unknown.
    Unknown { kind: String, op: Option<String> },
}

/// The family name of a task node whose task may come from any of the run's families.
pub const ANY_FAMILY: &str = "any";

/// A task node.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TaskNode {
    /// The family as written (`math`, `gsm`, `python`, or `any`: one of the run's families); validated later.
    pub family: String,
    /// Pins one task of the family.
    pub task_id: Option<i64>,
    /// Declared kinds as written (`scalar`, `list`); required for non-target nodes.
    pub input_kind: Option<String>,
    pub output_kind: Option<String>,
    /// Pins one of the graph's own Python functions by name (family `python`; see `TaskGraph::python_functions`).
    pub function: Option<String>,
}

impl TaskNode {
    /// The family, if valid and concrete (`None` for `any`).
    pub fn family(&self) -> Option<Family> {
        Family::EVERY.into_iter().find(|f| f.as_str() == self.family)
    }

    /// True for a node whose task may come from any of the run's families.
    pub fn is_any_family(&self) -> bool {
        self.family == ANY_FAMILY
    }

    /// The families this node draws its task from in a run of `run_families`: its own family, or for `any`
    /// the run's; `None` for an unknown family.
    pub fn families(&self, run_families: &[Family]) -> Option<Vec<Family>> {
        match self.family() {
            Some(f) => Some(vec![f]),
            None if self.is_any_family() => Some(run_families.to_vec()),
            None => None,
        }
    }

    /// The declared input kind, if present and valid.
    pub fn input_kind(&self) -> Option<Kind> {
        self.input_kind.as_deref().and_then(Kind::parse)
    }

    /// The declared output kind, if present and valid.
    pub fn output_kind(&self) -> Option<Kind> {
        self.output_kind.as_deref().and_then(Kind::parse)
    }
}

/// A node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: NodeId,
    pub kind: NodeKind,
    /// Designer position, kept in our files (`x`, `y`), ignored by the reference.
    pub position: Option<(f64, f64)>,
}

/// A directed edge; `slot` orders the inputs of a `pack` adapter.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub source: NodeId,
    pub destination: NodeId,
    pub slot: Option<i64>,
}

/// A task graph as drawn or loaded: possibly invalid.
///
/// The fields are private: a graph is made by the parsers and builders of this module and changed only
/// through [`TaskGraph::apply`], so every change passes the same checks and the designer can undo it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TaskGraph {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// The graded node.
    target: Option<NodeId>,
    /// The file's `directed` flag (must be true).
    directed: bool,
    /// The file's `multigraph` flag (must be false).
    multigraph: bool,
    /// How the pictures of this graph's image tasks are drawn (`graph.image_params` in the file); `None` keeps
    /// the run's parameters.
    image: Option<ImageParams>,
    /// Python functions that come with the graph (`graph.python_functions`: their sources), which task nodes
    /// pin by name; each is named by its first `def`.
    functions: Vec<String>,
}

impl TaskGraph {
    /// An empty, directed graph.
    pub fn new() -> TaskGraph {
        TaskGraph { directed: true, ..TaskGraph::default() }
    }

    /// A directed graph of the given nodes and edges, unchecked (like a parsed file: validation reports its
    /// problems). For builders that make whole graphs at once, where one `apply` per node would be quadratic.
    pub fn from_parts(nodes: Vec<Node>, edges: Vec<Edge>, target: Option<NodeId>) -> TaskGraph {
        TaskGraph { nodes, edges, target, directed: true, multigraph: false, image: None, functions: Vec::new() }
    }

    /// The nodes, in file order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The edges, in file order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The graded node, if one is set.
    pub fn target(&self) -> Option<&NodeId> {
        self.target.as_ref()
    }

    /// The graph's own picture parameters for its image tasks, if it sets them.
    pub fn image_params(&self) -> Option<&ImageParams> {
        self.image.as_ref()
    }

    /// The sources of the graph's own Python functions, in file order.
    pub fn python_functions(&self) -> &[String] {
        &self.functions
    }

    /// The file's `directed` flag (validation requires true).
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// The file's `multigraph` flag (validation requires false).
    pub fn is_multigraph(&self) -> bool {
        self.multigraph
    }

    /// The node with `id`.
    pub fn node(&self, id: &NodeId) -> Option<&Node> {
        self.nodes.iter().find(|n| &n.id == id)
    }

    /// Index of the node with `id`.
    pub fn index_of(&self, id: &NodeId) -> Option<usize> {
        self.nodes.iter().position(|n| &n.id == id)
    }

    /// A fresh id with the given prefix (`task_7`).
    pub fn fresh_id(&self, prefix: &str) -> NodeId {
        let mut n = self.nodes.len() + 1;
        loop {
            let id = NodeId(format!("{prefix}_{n}"));
            if self.node(&id).is_none() {
                return id;
            }
            n += 1;
        }
    }
}
