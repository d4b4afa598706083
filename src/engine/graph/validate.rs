//! Validation of custom task graphs: every problem is reported at once, each on its node, and a graph without
//! errors becomes a `ValidGraph` with a topological numbering and resolved kinds.

use std::collections::{HashMap, HashSet};

use super::{NodeId, NodeKind, TaskGraph};
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::Family;
use crate::engine::value::Kind;

/// The largest graph we accept (the engine is linear in graph size; this bounds a runaway request).
pub const MAX_NODES: usize = 200_000;

/// How bad an issue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Generation is impossible until fixed.
    Error,
    /// Allowed, but probably not what was meant.
    Warning,
}

/// One problem, located on a node when it belongs to one.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphIssue {
    pub node: Option<NodeId>,
    pub severity: Severity,
    pub message: String,
}

impl std::fmt::Display for GraphIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.node {
            Some(node) => write!(f, "{level}: node `{node}`: {}", self.message),
            None => write!(f, "{level}: graph: {}", self.message),
        }
    }
}

/// A graph that passed validation. Only `ValidGraph::new` makes one.
#[derive(Clone, Debug)]
pub struct ValidGraph {
    graph: TaskGraph,
    order: Vec<usize>,
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
    task_number: Vec<Option<usize>>,
    target: usize,
    kinds: Vec<ResolvedKinds>,
}

/// Kinds of a node after resolution (`None`: open, e.g. an unpinned target root without declared kinds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResolvedKinds {
    pub input: Option<Kind>,
    pub output: Option<Kind>,
}

impl ValidGraph {
    /// Validates `graph`; on any error returns every issue (errors and warnings).
    pub fn new(graph: TaskGraph, registry: &Registry) -> Result<ValidGraph, Vec<GraphIssue>> {
        let checked = check(&graph, registry);
        if checked.issues.iter().any(|i| i.severity == Severity::Error) {
            return Err(checked.issues);
        }
        let target = checked.target.expect("no errors means the target resolved");
        let order = checked.order.expect("no errors means the graph is acyclic");
        let mut task_number = vec![None; graph.nodes.len()];
        let mut next = 1;
        for &i in &order {
            if matches!(graph.nodes[i].kind, NodeKind::Task(_)) {
                task_number[i] = Some(next);
                next += 1;
            }
        }
        Ok(ValidGraph { graph, order, preds: checked.preds, succs: checked.succs, task_number, target, kinds: checked.kinds })
    }

    /// The underlying graph.
    pub fn graph(&self) -> &TaskGraph {
        &self.graph
    }

    /// Node indices in topological order (NetworkX's generation order: the prompt order).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Predecessors of a node (for `pack`, in slot order).
    pub fn preds(&self, node: usize) -> &[usize] {
        &self.preds[node]
    }

    /// Successors of a node, in edge order.
    pub fn succs(&self, node: usize) -> &[usize] {
        &self.succs[node]
    }

    /// The 1-based task number of a task node.
    pub fn task_number(&self, node: usize) -> Option<usize> {
        self.task_number[node]
    }

    /// The target node's index.
    pub fn target(&self) -> usize {
        self.target
    }

    /// Resolved kinds of a node.
    pub fn kinds(&self, node: usize) -> ResolvedKinds {
        self.kinds[node]
    }

    /// Number of task nodes.
    pub fn task_count(&self) -> usize {
        self.task_number.iter().flatten().count()
    }
}

/// Every issue of a graph (empty for a valid graph without warnings).
pub fn issues(graph: &TaskGraph, registry: &Registry) -> Vec<GraphIssue> {
    check(graph, registry).issues
}

impl TaskGraph {
    /// Every issue of the graph, for live validation in the designer.
    pub fn issues(&self, registry: &Registry) -> Vec<GraphIssue> {
        issues(self, registry)
    }
}

struct Checked {
    issues: Vec<GraphIssue>,
    order: Option<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
    target: Option<usize>,
    kinds: Vec<ResolvedKinds>,
}

fn check(graph: &TaskGraph, registry: &Registry) -> Checked {
    let n = graph.nodes.len();
    let mut issues = Vec::new();
    let mut error = |node: Option<&NodeId>, message: String| issues.push(GraphIssue { node: node.cloned(), severity: Severity::Error, message });

    if !graph.directed {
        error(None, "the graph must be directed (`directed: true`)".into());
    }
    if graph.multigraph {
        error(None, "multigraphs are not supported (`multigraph: false`)".into());
    }
    if n == 0 {
        error(None, "the graph has no nodes".into());
    }
    if n > MAX_NODES {
        error(None, format!("the graph has {n} nodes; at most {MAX_NODES} are supported"));
    }

    // Ids.
    let mut index: HashMap<&NodeId, usize> = HashMap::with_capacity(n);
    for (i, node) in graph.nodes.iter().enumerate() {
        if index.insert(&node.id, i).is_some() {
            error(Some(&node.id), "duplicate node id".into());
        }
    }

    // Edges (duplicates collapse, as in a NetworkX DiGraph).
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut slots: Vec<Vec<Option<i64>>> = vec![Vec::new(); n];
    let mut seen = HashSet::new();
    for edge in &graph.edges {
        match (index.get(&edge.source), index.get(&edge.destination)) {
            (Some(&s), Some(&d)) => {
                if seen.insert((s, d)) {
                    succs[s].push(d);
                    preds[d].push(s);
                    slots[d].push(edge.slot);
                }
            }
            (s, d) => {
                let missing = if s.is_none() { &edge.source } else { &edge.destination };
                let at = if s.is_some() { Some(&edge.source) } else if d.is_some() { Some(&edge.destination) } else { None };
                error(at, format!("edge {} -> {} refers to unknown node `{missing}`", edge.source, edge.destination));
            }
        }
    }

    // Target.
    let target = match &graph.target {
        None => {
            error(None, "no target node (`graph.target_node`)".into());
            None
        }
        Some(id) => match index.get(id) {
            None => {
                error(None, format!("target node `{id}` does not exist"));
                None
            }
            Some(&i) if !matches!(graph.nodes[i].kind, NodeKind::Task(_)) => {
                error(Some(id), "the target must be a task node".into());
                None
            }
            Some(&i) => Some(i),
        },
    };

    // Topological order (generations, as NetworkX) and cycles.
    let order = generations(&preds, &succs);
    let order = if order.len() == n {
        Some(order)
    } else {
        for component in cycles(&succs) {
            let names: Vec<&str> = component.iter().map(|&i| graph.nodes[i].id.0.as_str()).collect();
            for &i in &component {
                error(Some(&graph.nodes[i].id), format!("is on a cycle ({})", names.join(" -> ")));
            }
        }
        None
    };

    // Output kinds, then per-node rules.
    let output_kind = |i: usize| -> Option<Kind> {
        match &graph.nodes[i].kind {
            NodeKind::Task(task) => {
                let pinned = task.family().zip(task.task_id).and_then(|(f, id)| u32::try_from(id).ok().and_then(|id| registry.by_task_id(f, id)));
                pinned.map(|t| t.info().output_kind).or_else(|| task.output_kind())
            }
            NodeKind::Pick { .. } => Some(Kind::Scalar),
            NodeKind::Pack => Some(Kind::List),
            NodeKind::Unknown { .. } => None,
        }
    };
    let mut kinds = vec![ResolvedKinds::default(); n];
    for (i, node) in graph.nodes.iter().enumerate() {
        let id = Some(&node.id);
        let is_target = target == Some(i);
        match &node.kind {
            NodeKind::Unknown { kind, op } => match op {
                Some(op) if kind == "adapter" => error(id, format!("unknown adapter op `{op}` (expected `pick` or `pack`)")),
                None if kind == "adapter" => error(id, "adapter without `op` (expected `pick` or `pack`)".into()),
                _ => error(id, format!("unknown node kind `{kind}` (expected `task` or `adapter`)")),
            },
            NodeKind::Pick { index } => {
                if preds[i].len() != 1 {
                    error(id, format!("a pick adapter needs exactly one input, found {}", preds[i].len()));
                } else if output_kind(preds[i][0]) == Some(Kind::Scalar) {
                    error(id, format!("a pick adapter needs a list input, but `{}` outputs a scalar", graph.nodes[preds[i][0]].id));
                }
                if *index < 0 {
                    error(id, format!("pick index must be a non-negative integer, found {index}"));
                }
                kinds[i] = ResolvedKinds { input: Some(Kind::List), output: Some(Kind::Scalar) };
            }
            NodeKind::Pack => {
                if preds[i].is_empty() {
                    error(id, "a pack adapter needs at least one input".into());
                }
                for &p in &preds[i] {
                    if output_kind(p) == Some(Kind::List) {
                        error(id, format!("a pack adapter takes scalar inputs, but `{}` outputs a list", graph.nodes[p].id));
                    }
                }
                let mut got: Vec<Option<i64>> = slots[i].clone();
                if got.iter().any(Option::is_none) {
                    error(id, "every input edge of a pack adapter needs a `slot`".into());
                } else {
                    got.sort();
                    let expected: Vec<Option<i64>> = (0..got.len() as i64).map(Some).collect();
                    if got != expected {
                        let shown: Vec<String> = got.iter().flatten().map(|s| s.to_string()).collect();
                        error(id, format!("pack slots must be exactly 0..{} once each, found [{}]", got.len().saturating_sub(1), shown.join(", ")));
                    }
                }
                kinds[i] = ResolvedKinds { input: Some(Kind::Scalar), output: Some(Kind::List) };
            }
            NodeKind::Task(task) => {
                let family = task.family();
                if family.is_none() && !task.is_any_family() {
                    error(id, format!("unknown family `{}` (expected math, gsm, python, image or any)", task.family));
                }
                for (name, value) in [("input_kind", &task.input_kind), ("output_kind", &task.output_kind)] {
                    if let Some(text) = value {
                        if Kind::parse(text).is_none() {
                            error(id, format!("{name} must be `scalar` or `list`, found `{text}`"));
                        }
                    } else if !is_target {
                        error(id, format!("{name} is required on non-target task nodes"));
                    }
                }
                if preds[i].len() > 1 {
                    error(id, format!("a task takes at most one input, found {} (use a pack adapter to combine)", preds[i].len()));
                }
                let incoming = preds[i].first().and_then(|&p| output_kind(p));
                if let (Some(declared), Some(incoming)) = (task.input_kind(), incoming) {
                    if declared != incoming {
                        error(id, format!("declared input_kind {declared}, but its input `{}` produces a {incoming}", graph.nodes[preds[i][0]].id));
                    }
                }
                let input = incoming.or(task.input_kind());
                let output = task.output_kind();
                if task.is_any_family() {
                    if let Some(task_id) = task.task_id {
                        error(id, format!("task_id {task_id} is pinned, but the family is `any`: pin a task only with its family (math, gsm or python)"));
                    } else if Family::ALL.iter().all(|&f| registry.matching(f, input, output).is_empty()) {
                        let show = |k: Option<Kind>| k.map(|k| k.as_str()).unwrap_or("any");
                        error(id, format!("no task of any family takes a {} input and outputs a {}", show(input), show(output)));
                    }
                }
                if let Some(family) = family {
                    match task.task_id {
                        Some(task_id) => match u32::try_from(task_id).ok().and_then(|t| registry.by_task_id(family, t)) {
                            None => error(id, format!("unknown {family} task_id {task_id}")),
                            Some(pinned) => {
                                let info = pinned.info();
                                if let Some(k) = input.filter(|k| !info.accepts(*k)) {
                                    error(id, format!("{} does not accept a {k} input", info.name));
                                }
                                if let Some(k) = output.filter(|k| *k != info.output_kind) {
                                    error(id, format!("declared output_kind {k}, but {} outputs a {}", info.name, info.output_kind));
                                }
                            }
                        },
                        None => {
                            if registry.matching(family, input, output).is_empty() {
                                let show = |k: Option<Kind>| k.map(|k| k.as_str()).unwrap_or("any");
                                error(id, format!("no {family} task takes a {} input and outputs a {}", show(input), show(output)));
                            }
                        }
                    }
                }
                kinds[i] = ResolvedKinds { input, output: output_kind(i) };
            }
        }
        // Adapters feed exactly one task.
        if matches!(node.kind, NodeKind::Pick { .. } | NodeKind::Pack) {
            match succs[i].as_slice() {
                [s] if matches!(graph.nodes[*s].kind, NodeKind::Task(_)) => {}
                [s] => error(id, format!("an adapter must feed a task node, but feeds `{}`", graph.nodes[*s].id)),
                other => error(id, format!("an adapter must have exactly one successor, found {}", other.len())),
            }
        }
    }

    // Warnings: nodes that cannot influence the target.
    if let (Some(t), Some(_)) = (target, &order) {
        let mut feeds = vec![false; n];
        let mut stack = vec![t];
        feeds[t] = true;
        while let Some(i) = stack.pop() {
            for &p in &preds[i] {
                if !feeds[p] {
                    feeds[p] = true;
                    stack.push(p);
                }
            }
        }
        for (i, node) in graph.nodes.iter().enumerate() {
            if !feeds[i] {
                issues.push(GraphIssue {
                    node: Some(node.id.clone()),
                    severity: Severity::Warning,
                    message: "does not feed the target (it is still generated and shown as a distractor)".into(),
                });
            }
        }
    }

    // Pack inputs in slot order.
    for i in 0..n {
        if matches!(graph.nodes[i].kind, NodeKind::Pack) && slots[i].iter().all(Option::is_some) {
            let mut paired: Vec<(i64, usize)> = slots[i].iter().flatten().copied().zip(preds[i].iter().copied()).collect();
            paired.sort();
            preds[i] = paired.into_iter().map(|(_, p)| p).collect();
        }
    }

    Checked { issues, order, preds, succs, target, kinds }
}

/// NetworkX's `topological_sort`: generations of in-degree-0 nodes, each in order, children in edge order.
fn generations(preds: &[Vec<usize>], succs: &[Vec<usize>]) -> Vec<usize> {
    let mut indegree: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut current: Vec<usize> = (0..preds.len()).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(preds.len());
    while !current.is_empty() {
        let mut next = Vec::new();
        for &node in &current {
            for &child in &succs[node] {
                indegree[child] -= 1;
                if indegree[child] == 0 {
                    next.push(child);
                }
            }
        }
        order.extend_from_slice(&current);
        current = next;
    }
    order
}

/// Strongly connected components that contain a cycle (iterative Tarjan via petgraph).
fn cycles(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut g = petgraph::graph::DiGraph::<(), ()>::with_capacity(succs.len(), 0);
    let nodes: Vec<_> = (0..succs.len()).map(|_| g.add_node(())).collect();
    for (s, targets) in succs.iter().enumerate() {
        for &d in targets {
            g.add_edge(nodes[s], nodes[d], ());
        }
    }
    let mut out: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1 || succs[c[0].index()].contains(&c[0].index()))
        .map(|c| {
            let mut c: Vec<usize> = c.into_iter().map(|n| n.index()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}
