//! Validation of custom task graphs: every problem is reported at once, each on its node, and a graph without
//! errors becomes a `ValidGraph` with a topological numbering and resolved kinds.

use std::collections::HashMap;
use std::rc::Rc;

use super::structure::{cycles, duplicate_edges, generations, Adjacency, Fast, IdKey};
use super::{GraphFunctions, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, Task};
use crate::engine::value::Kind;
use crate::engine::sort;

/// The largest graph we accept (the engine is linear in graph size; this bounds a runaway request).
pub const MAX_NODES: usize = 2_000_000;

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
    preds: Adjacency,
    succs: Adjacency,
    task_number: Vec<Option<usize>>,
    target: usize,
    kinds: Vec<ResolvedKinds>,
    /// The graph's own Python functions, parsed.
    functions: GraphFunctions,
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
        // Warnings matter only when there are errors to report with them: a valid graph skips that pass.
        let checked = check(&graph, registry, false);
        if checked.issues.iter().any(|i| i.severity == Severity::Error) {
            return Err(check(&graph, registry, true).issues);
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
        Ok(ValidGraph { graph, order, preds: checked.preds, succs: checked.succs, task_number, target, kinds: checked.kinds, functions: checked.functions })
    }

    /// The graph's own Python functions (every one parsed: a graph with a broken one is not valid).
    pub fn functions(&self) -> &GraphFunctions {
        &self.functions
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
        self.preds.of(node)
    }

    /// Successors of a node, in edge order.
    pub fn succs(&self, node: usize) -> &[usize] {
        self.succs.of(node)
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
    check(graph, registry, true).issues
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
    preds: Adjacency,
    succs: Adjacency,
    target: Option<usize>,
    kinds: Vec<ResolvedKinds>,
    functions: GraphFunctions,
}

/// Issues in the order the rules find them: the graph's shape, ids, edges, the target, cycles, then node by node.
#[derive(Default)]
struct Report {
    issues: Vec<GraphIssue>,
}

impl Report {
    fn error(&mut self, node: Option<&NodeId>, message: String) {
        self.issues.push(GraphIssue { node: node.cloned(), severity: Severity::Error, message });
    }
}

type IdIndex<'g> = HashMap<IdKey<'g>, usize, Fast>;

/// The edges resolved to node indices, repeated edges collapsed, with each predecessor's pack slot.
struct Wiring {
    preds: Adjacency,
    succs: Adjacency,
    /// Node `i`'s incoming edges (indices into `slots`), in edge order; parallel to `preds.of(i)`.
    pred_edges: Adjacency,
    slots: Vec<Option<i64>>,
}

impl Wiring {
    /// The pack slots of node `i`'s incoming edges, in edge order.
    fn slots(&self, i: usize) -> impl Iterator<Item = Option<i64>> + '_ {
        self.pred_edges.of(i).iter().map(|&e| self.slots[e])
    }
}

fn check(graph: &TaskGraph, registry: &Registry, warnings: bool) -> Checked {
    let mut report = Report::default();
    check_shape(graph, &mut report);
    check_image_params(graph, warnings, &mut report);
    let index = index_ids(graph, &mut report);
    let wiring = wire(graph, &index, &mut report);
    let target = resolve_target(graph, &index, &mut report);
    drop(index);
    let order = order_or_cycles(graph, &wiring, &mut report);
    let functions = GraphFunctions::parse(&graph.functions);
    for problem in &functions.problems {
        report.error(None, problem.clone());
    }
    let kinds = check_nodes(graph, registry, &functions, &wiring, target, &mut report);
    if let (true, Some(t), Some(_)) = (warnings, target, &order) {
        warn_unreached(graph, &wiring, t, &mut report);
    }
    let Wiring { preds, succs, .. } = order_pack_inputs(graph, wiring);
    Checked { issues: report.issues, order, preds, succs, target, kinds, functions }
}

/// Directed, not a multigraph, not empty, not past the size limit.
fn check_shape(graph: &TaskGraph, report: &mut Report) {
    let n = graph.nodes.len();
    if !graph.directed {
        report.error(None, "the graph must be directed (`directed: true`)".into());
    }
    if graph.multigraph {
        report.error(None, "multigraphs are not supported (`multigraph: false`)".into());
    }
    if n == 0 {
        report.error(None, "the graph has no nodes".into());
    }
    if n > MAX_NODES {
        report.error(None, format!("the graph has {n} nodes; at most {MAX_NODES} are supported"));
    }
}

/// The graph's picture parameters can be drawn; with `warnings`, a note when no node can use them.
fn check_image_params(graph: &TaskGraph, warnings: bool, report: &mut Report) {
    let Some(params) = &graph.image else { return };
    if let Err(e) = params.check() {
        report.error(None, format!("image parameters: {e}"));
    }
    let drawable = graph.nodes.iter().any(|n| matches!(&n.kind, NodeKind::Task(t) if t.family == "image" || t.family == "any"));
    if warnings && !drawable {
        report.issues.push(GraphIssue { node: None, severity: Severity::Warning, message: "image parameters are set, but no task of family image or any can use them".into() });
    }
}

/// Node ids to indices; a repeated id is an error on the node that repeats it.
fn index_ids<'g>(graph: &'g TaskGraph, report: &mut Report) -> IdIndex<'g> {
    let mut index: IdIndex = HashMap::with_capacity_and_hasher(graph.nodes.len(), Fast::default());
    for (i, node) in graph.nodes.iter().enumerate() {
        if index.insert(IdKey::new(&node.id), i).is_some() {
            report.error(Some(&node.id), "duplicate node id".into());
        }
    }
    index
}

/// Resolves the edges (duplicates collapse, as in a NetworkX DiGraph: the first one stays); an edge to an unknown
/// node is an error on the end that exists.
fn wire(graph: &TaskGraph, index: &IdIndex, report: &mut Report) -> Wiring {
    let n = graph.nodes.len();
    let mut resolved: Vec<(usize, usize)> = Vec::with_capacity(graph.edges.len());
    let mut resolved_slots: Vec<Option<i64>> = Vec::with_capacity(graph.edges.len());
    for edge in &graph.edges {
        match (index.get(&IdKey::new(&edge.source)), index.get(&IdKey::new(&edge.destination))) {
            (Some(&s), Some(&d)) => {
                resolved.push((s, d));
                resolved_slots.push(edge.slot);
            }
            (s, d) => {
                let missing = if s.is_none() { &edge.source } else { &edge.destination };
                let at = if s.is_some() { Some(&edge.source) } else if d.is_some() { Some(&edge.destination) } else { None };
                report.error(at, format!("edge {} -> {} refers to unknown node `{missing}`", edge.source, edge.destination));
            }
        }
    }
    let duplicate = duplicate_edges(n, &resolved);
    let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(resolved.len());
    let mut slots: Vec<Option<i64>> = Vec::with_capacity(resolved.len());
    for (e, &pair) in resolved.iter().enumerate() {
        if !duplicate[e] {
            pairs.push(pair);
            slots.push(resolved_slots[e]);
        }
    }
    drop((resolved, resolved_slots, duplicate));
    let succs = Adjacency::new(n, &pairs);
    let by_destination: Vec<(usize, usize)> = pairs.iter().enumerate().map(|(e, &(_, d))| (d, e)).collect();
    let pred_edges = Adjacency::new(n, &by_destination);
    drop(by_destination);
    let preds = Adjacency { offsets: pred_edges.offsets.clone(), items: pred_edges.items.iter().map(|&e| pairs[e].0).collect() };
    Wiring { preds, succs, pred_edges, slots }
}

/// The target node: named, existing, and a task.
fn resolve_target(graph: &TaskGraph, index: &IdIndex, report: &mut Report) -> Option<usize> {
    let Some(id) = &graph.target else {
        report.error(None, "no target node (`graph.target_node`)".into());
        return None;
    };
    match index.get(&IdKey::new(id)) {
        None => {
            report.error(None, format!("target node `{id}` does not exist"));
            None
        }
        Some(&i) if !matches!(graph.nodes[i].kind, NodeKind::Task(_)) => {
            report.error(Some(id), "the target must be a task node".into());
            None
        }
        Some(&i) => Some(i),
    }
}

/// The topological order (generations, as NetworkX), or an error on every node of every cycle, naming the cycle.
fn order_or_cycles(graph: &TaskGraph, wiring: &Wiring, report: &mut Report) -> Option<Vec<usize>> {
    let order = generations(&wiring.preds, &wiring.succs);
    if order.len() == graph.nodes.len() {
        return Some(order);
    }
    for component in cycles(&wiring.succs) {
        let names: Vec<&str> = component.iter().map(|&i| graph.nodes[i].id.0.as_str()).collect();
        for &i in &component {
            report.error(Some(&graph.nodes[i].id), format!("is on a cycle ({})", names.join(" -> ")));
        }
    }
    None
}

/// The registry's answers, asked once per distinct question (a big graph asks the same few again and again).
struct RegistryMemo<'r> {
    registry: &'r Registry,
    functions: &'r GraphFunctions,
    pinned: HashMap<(Family, i64), Option<Rc<dyn Task>>>,
    fitting: HashMap<(Family, Option<Kind>, Option<Kind>), bool>,
}

impl RegistryMemo<'_> {
    fn pinned(&mut self, family: Family, task_id: i64) -> Option<Rc<dyn Task>> {
        let registry = self.registry;
        self.pinned.entry((family, task_id)).or_insert_with(|| u32::try_from(task_id).ok().and_then(|id| registry.by_task_id(family, id))).clone()
    }

    fn any_fits(&mut self, family: Family, input: Option<Kind>, output: Option<Kind>) -> bool {
        let registry = self.registry;
        *self.fitting.entry((family, input, output)).or_insert_with(|| !registry.matching(family, input, output).is_empty())
    }
}

/// What the per-node rules read about the whole graph.
struct NodeContext<'a> {
    graph: &'a TaskGraph,
    wiring: &'a Wiring,
    /// Every node's output kind, as far as it is known before kinds are resolved.
    output_kinds: Vec<Option<Kind>>,
}

/// The per-node rules (each node kind's own, then "adapters feed one task"), and every node's resolved kinds.
fn check_nodes(graph: &TaskGraph, registry: &Registry, functions: &GraphFunctions, wiring: &Wiring, target: Option<usize>, report: &mut Report) -> Vec<ResolvedKinds> {
    let mut memo = RegistryMemo { registry, functions, pinned: HashMap::new(), fitting: HashMap::new() };
    let output_kinds: Vec<Option<Kind>> = graph
        .nodes
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Task(task) => {
                if let Some((_, output)) = task.function.as_deref().and_then(|name| functions.kinds(name)) {
                    return Some(output);
                }
                let pinned = task.family().zip(task.task_id).and_then(|(f, id)| memo.pinned(f, id));
                pinned.map(|t| t.info().output_kind).or_else(|| task.output_kind())
            }
            NodeKind::Pick { .. } => Some(Kind::Scalar),
            NodeKind::Pack => Some(Kind::List),
            NodeKind::Unknown { .. } => None,
        })
        .collect();
    let cx = NodeContext { graph, wiring, output_kinds };
    let mut kinds = vec![ResolvedKinds::default(); graph.nodes.len()];
    for (i, node) in graph.nodes.iter().enumerate() {
        let id = Some(&node.id);
        match &node.kind {
            NodeKind::Unknown { kind, op } => match op {
                Some(op) if kind == "adapter" => report.error(id, format!("unknown adapter op `{op}` (expected `pick` or `pack`)")),
                None if kind == "adapter" => report.error(id, "adapter without `op` (expected `pick` or `pack`)".into()),
                _ => report.error(id, format!("unknown node kind `{kind}` (expected `task` or `adapter`)")),
            },
            NodeKind::Pick { index } => kinds[i] = check_pick(&cx, i, *index, report),
            NodeKind::Pack => kinds[i] = check_pack(&cx, i, report),
            NodeKind::Task(task) => kinds[i] = check_task(&cx, i, task, target == Some(i), &mut memo, report),
        }
        if matches!(node.kind, NodeKind::Pick { .. } | NodeKind::Pack) {
            check_adapter_feeds_a_task(&cx, i, report);
        }
    }
    kinds
}

/// A pick takes exactly one list and a non-negative index.
fn check_pick(cx: &NodeContext, i: usize, index: i64, report: &mut Report) -> ResolvedKinds {
    let (graph, id, preds) = (cx.graph, Some(&cx.graph.nodes[i].id), cx.wiring.preds.of(i));
    if preds.len() != 1 {
        report.error(id, format!("a pick adapter needs exactly one input, found {}", preds.len()));
    } else if cx.output_kinds[preds[0]] == Some(Kind::Scalar) {
        report.error(id, format!("a pick adapter needs a list input, but `{}` outputs a scalar", graph.nodes[preds[0]].id));
    }
    if index < 0 {
        report.error(id, format!("pick index must be a non-negative integer, found {index}"));
    }
    ResolvedKinds { input: Some(Kind::List), output: Some(Kind::Scalar) }
}

/// A pack takes one or more scalars, on slots 0..k once each.
fn check_pack(cx: &NodeContext, i: usize, report: &mut Report) -> ResolvedKinds {
    let (graph, id, preds) = (cx.graph, Some(&cx.graph.nodes[i].id), cx.wiring.preds.of(i));
    if preds.is_empty() {
        report.error(id, "a pack adapter needs at least one input".into());
    }
    for &p in preds {
        if cx.output_kinds[p] == Some(Kind::List) {
            report.error(id, format!("a pack adapter takes scalar inputs, but `{}` outputs a list", graph.nodes[p].id));
        }
    }
    let mut got: Vec<Option<i64>> = cx.wiring.slots(i).collect();
    if got.iter().any(Option::is_none) {
        report.error(id, "every input edge of a pack adapter needs a `slot`".into());
    } else {
        sort::natural(&mut got);
        let expected: Vec<Option<i64>> = (0..got.len() as i64).map(Some).collect();
        if got != expected {
            let shown: Vec<String> = got.iter().flatten().map(|s| s.to_string()).collect();
            report.error(id, format!("pack slots must be exactly 0..{} once each, found [{}]", got.len().saturating_sub(1), shown.join(", ")));
        }
    }
    ResolvedKinds { input: Some(Kind::Scalar), output: Some(Kind::List) }
}

/// A task: a known family, declared kinds (optional on the target), at most one input of the declared kind, and
/// a pinned task that exists and fits, or some task of its family that fits.
fn check_task(cx: &NodeContext, i: usize, task: &TaskNode, is_target: bool, memo: &mut RegistryMemo, report: &mut Report) -> ResolvedKinds {
    let (graph, id, preds) = (cx.graph, Some(&cx.graph.nodes[i].id), cx.wiring.preds.of(i));
    let family = task.family();
    if family.is_none() && !task.is_any_family() {
        report.error(id, format!("unknown family `{}` (expected math, gsm, python, image or any)", task.family));
    }
    for (name, value) in [("input_kind", &task.input_kind), ("output_kind", &task.output_kind)] {
        if let Some(text) = value {
            if Kind::parse(text).is_none() {
                report.error(id, format!("{name} must be `scalar` or `list`, found `{text}`"));
            }
        } else if !is_target {
            report.error(id, format!("{name} is required on non-target task nodes"));
        }
    }
    if preds.len() > 1 {
        report.error(id, format!("a task takes at most one input, found {} (use a pack adapter to combine)", preds.len()));
    }
    let incoming = preds.first().and_then(|&p| cx.output_kinds[p]);
    if let (Some(declared), Some(incoming)) = (task.input_kind(), incoming) {
        if declared != incoming {
            report.error(id, format!("declared input_kind {declared}, but its input `{}` produces a {incoming}", graph.nodes[preds[0]].id));
        }
    }
    let input = incoming.or(task.input_kind());
    let output = task.output_kind();
    if task.is_any_family() {
        if let Some(task_id) = task.task_id {
            report.error(id, format!("task_id {task_id} is pinned, but the family is `any`: pin a task only with its family (math, gsm or python)"));
        } else if Family::ALL.iter().all(|&f| !memo.any_fits(f, input, output)) {
            let show = |k: Option<Kind>| k.map(|k| k.as_str()).unwrap_or("any");
            report.error(id, format!("no task of any family takes a {} input and outputs a {}", show(input), show(output)));
        }
    }
    if let Some(name) = &task.function {
        check_function(cx, i, task, name, input, output, memo, report);
    } else if let Some(family) = family {
        match task.task_id {
            Some(task_id) => match memo.pinned(family, task_id) {
                None => report.error(id, format!("unknown {family} task_id {task_id}")),
                Some(pinned) => {
                    let info = pinned.info();
                    if let Some(k) = input.filter(|k| !info.accepts(*k)) {
                        report.error(id, format!("{} does not accept a {k} input", info.name));
                    }
                    if let Some(k) = output.filter(|k| *k != info.output_kind) {
                        report.error(id, format!("declared output_kind {k}, but {} outputs a {}", info.name, info.output_kind));
                    }
                }
            },
            None => {
                if !memo.any_fits(family, input, output) {
                    let show = |k: Option<Kind>| k.map(|k| k.as_str()).unwrap_or("any");
                    report.error(id, format!("no {family} task takes a {} input and outputs a {}", show(input), show(output)));
                }
            }
        }
    }
    ResolvedKinds { input, output: cx.output_kinds[i] }
}

/// A task pinning one of the graph's functions: a python task, no task_id beside it, a function the graph has,
/// and kinds it fits.
#[allow(clippy::too_many_arguments)]
fn check_function(cx: &NodeContext, i: usize, task: &TaskNode, name: &str, input: Option<Kind>, output: Option<Kind>, memo: &mut RegistryMemo, report: &mut Report) {
    let id = Some(&cx.graph.nodes[i].id);
    if task.family() != Some(Family::Python) {
        report.error(id, format!("pins the python function `{name}`, but its family is `{}`: a function is a python task", task.family));
    }
    if let Some(task_id) = task.task_id {
        report.error(id, format!("pins both task_id {task_id} and the function `{name}`: pin one"));
    }
    let Some((inputs, returns)) = memo.functions.kinds(name) else {
        let known: Vec<&str> = memo.functions.names().collect();
        let hint = if known.is_empty() { "the graph has none".to_string() } else { format!("the graph has {}", known.join(", ")) };
        report.error(id, format!("no python function `{name}` in graph.python_functions ({hint})"));
        return;
    };
    if let Some(k) = input.filter(|k| !inputs.contains(k)) {
        report.error(id, format!("`{name}` does not accept a {k} input"));
    }
    if let Some(k) = output.filter(|k| *k != returns) {
        report.error(id, format!("declared output_kind {k}, but `{name}` returns a {returns}"));
    }
}

/// An adapter feeds exactly one task node.
fn check_adapter_feeds_a_task(cx: &NodeContext, i: usize, report: &mut Report) {
    let (graph, id) = (cx.graph, Some(&cx.graph.nodes[i].id));
    match cx.wiring.succs.of(i) {
        [s] if matches!(graph.nodes[*s].kind, NodeKind::Task(_)) => {}
        [s] => report.error(id, format!("an adapter must feed a task node, but feeds `{}`", graph.nodes[*s].id)),
        other => report.error(id, format!("an adapter must have exactly one successor, found {}", other.len())),
    }
}

/// A warning on every node that cannot influence the target `t`.
fn warn_unreached(graph: &TaskGraph, wiring: &Wiring, t: usize, report: &mut Report) {
    let mut feeds = vec![false; graph.nodes.len()];
    let mut stack = vec![t];
    feeds[t] = true;
    while let Some(i) = stack.pop() {
        for &p in wiring.preds.of(i) {
            if !feeds[p] {
                feeds[p] = true;
                stack.push(p);
            }
        }
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        if !feeds[i] {
            report.issues.push(GraphIssue {
                node: Some(node.id.clone()),
                severity: Severity::Warning,
                message: "does not feed the target (it is still generated and shown as a distractor)".into(),
            });
        }
    }
}

/// Puts every pack's inputs in slot order (when its slots are all present).
fn order_pack_inputs(graph: &TaskGraph, mut wiring: Wiring) -> Wiring {
    for i in 0..graph.nodes.len() {
        if matches!(graph.nodes[i].kind, NodeKind::Pack) && wiring.slots(i).all(|s| s.is_some()) {
            let mut paired: Vec<(i64, usize)> = wiring.slots(i).flatten().zip(wiring.preds.of(i).iter().copied()).collect();
            sort::natural(&mut paired);
            let range = wiring.preds.offsets[i]..wiring.preds.offsets[i + 1];
            for (place, (_, p)) in wiring.preds.items[range].iter_mut().zip(paired) {
                *place = p;
            }
        }
    }
    wiring
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(text: &str) -> TaskGraph {
        crate::engine::graph::from_json_str(text).expect("well-formed")
    }

    #[test]
    fn repeated_edges_collapse_to_the_first_and_long_ids_resolve() {
        let registry = crate::engine::tasks::registry::builtin();
        let long = "a_node_id_well_over_twenty_two_bytes";
        let text = format!(
            r#"{{"graph": {{"target_node": "t"}}, "nodes": [
                {{"id": "{long}", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}},
                {{"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}},
                {{"id": "k", "kind": "adapter", "op": "pack"}},
                {{"id": "t", "kind": "task", "family": "math", "input_kind": "list"}}],
              "edges": [{{"source": "b", "destination": "k", "slot": 1}}, {{"source": "{long}", "destination": "k", "slot": 0}},
                        {{"source": "{long}", "destination": "k", "slot": 5}}, {{"source": "k", "destination": "t"}}, {{"source": "k", "destination": "t"}}]}}"#
        );
        let valid = ValidGraph::new(graph(&text), &registry).expect("valid once repeats collapse");
        assert_eq!(valid.preds(2), &[0, 1], "pack inputs in slot order, the repeated edge dropped");
        assert_eq!(valid.succs(2), &[3]);
        assert_eq!(valid.order(), &[0, 1, 2, 3]);
    }

    #[test]
    fn a_graph_with_errors_reports_its_warnings_too() {
        let registry = crate::engine::tasks::registry::builtin();
        let text = r#"{"graph": {"target_node": "t"}, "nodes": [
            {"id": "x", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
            {"id": "t", "kind": "task", "family": "algebra"}], "edges": []}"#;
        let issues = ValidGraph::new(graph(text), &registry).unwrap_err();
        assert_eq!(issues, graph(text).issues(&registry));
        assert!(issues.iter().any(|i| i.severity == Severity::Warning && i.node == Some(NodeId("x".into()))), "{issues:?}");
        assert!(issues.iter().any(|i| i.severity == Severity::Error && i.message.contains("unknown family")));
    }

    #[test]
    fn picture_parameters_must_be_drawable_and_usable() {
        let registry = crate::engine::tasks::registry::builtin();
        let text = |params: &str, family: &str| {
            format!(
                r#"{{"graph": {{"target_node": "p", "image_params": {params}}}, "nodes": [
                    {{"id": "p", "kind": "task", "family": "{family}", "input_kind": "scalar", "output_kind": "list"}}], "edges": []}}"#
            )
        };
        assert!(ValidGraph::new(graph(&text(r#"{"num_paths": 4}"#, "image")), &registry).is_ok());
        let issues = ValidGraph::new(graph(&text(r#"{"num_paths": 16, "height": 300}"#, "image")), &registry).unwrap_err();
        assert!(issues.iter().any(|i| i.severity == Severity::Error && i.node.is_none() && i.message == "image parameters: 16 paths do not fit in a height of 300 pixels"), "{issues:?}");
        let issues = graph(&text(r#"{"num_paths": 4}"#, "math")).issues(&registry);
        assert!(issues.iter().any(|i| i.severity == Severity::Warning && i.message.contains("no task of family image")), "{issues:?}");
    }
}
