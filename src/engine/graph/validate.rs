//! Validation of custom task graphs: every problem is reported at once, each on its node, and a graph without
//! errors becomes a `ValidGraph` with a topological numbering and resolved kinds.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::{NodeId, NodeKind, TaskGraph};
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::{Family, Task};
use crate::engine::value::Kind;

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
}

/// Neighbour lists in two allocations: node `i`'s neighbours are `items[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, Default)]
struct Adjacency {
    offsets: Vec<usize>,
    items: Vec<usize>,
}

impl Adjacency {
    /// Lists for `n` nodes from (node, neighbour) pairs, each list in pair order.
    fn new(n: usize, pairs: &[(usize, usize)]) -> Adjacency {
        let mut offsets = vec![0usize; n + 1];
        for &(node, _) in pairs {
            offsets[node + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut items = vec![0usize; pairs.len()];
        for &(node, neighbour) in pairs {
            items[next[node]] = neighbour;
            next[node] += 1;
        }
        Adjacency { offsets, items }
    }

    fn of(&self, node: usize) -> &[usize] {
        &self.items[self.offsets[node]..self.offsets[node + 1]]
    }

    fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
}

/// Marks every edge (in `pairs`, in edge order) that repeats an earlier edge between the same two nodes, by
/// scanning each node's outgoing edges (short lists, read in order) rather than hashing every pair.
fn duplicate_edges(n: usize, pairs: &[(usize, usize)]) -> Vec<bool> {
    let by_source: Vec<(usize, usize)> = pairs.iter().enumerate().map(|(e, &(s, _))| (s, e)).collect();
    let outgoing = Adjacency::new(n, &by_source);
    let mut duplicate = vec![false; pairs.len()];
    let mut seen: HashSet<usize, Fast> = HashSet::default();
    for node in 0..n {
        let edges = outgoing.of(node);
        if edges.len() <= 16 {
            for (k, &e) in edges.iter().enumerate() {
                duplicate[e] = edges[..k].iter().any(|&f| pairs[f].1 == pairs[e].1);
            }
        } else {
            seen.clear();
            for &e in edges {
                duplicate[e] = !seen.insert(pairs[e].1);
            }
        }
    }
    duplicate
}

/// A node id as a hash key: short ids are compared inline (no pointer to follow into the graph, which costs
/// cache misses in a million-node graph), longer ones by reference.
#[derive(PartialEq, Eq, Hash)]
enum IdKey<'a> {
    Short(u8, [u8; 22]),
    Long(&'a str),
}

impl<'a> IdKey<'a> {
    fn new(id: &'a NodeId) -> IdKey<'a> {
        let bytes = id.0.as_bytes();
        if bytes.len() <= 22 {
            let mut inline = [0u8; 22];
            inline[..bytes.len()].copy_from_slice(bytes);
            IdKey::Short(bytes.len() as u8, inline)
        } else {
            IdKey::Long(&id.0)
        }
    }
}

/// A fast hasher for node ids and edge pairs, hashed a million times in big graphs (SipHash's resistance to
/// crafted keys buys nothing for a file the user loads themselves).
#[derive(Default)]
struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits (which pick the bucket) depending on the inputs' low bytes only, the
        // same `t` or `a` of every id: mix the high bits down (SplitMix64's finaliser).
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

type Fast = std::hash::BuildHasherDefault<FastHasher>;

fn check(graph: &TaskGraph, registry: &Registry, warnings: bool) -> Checked {
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
    let mut index: HashMap<IdKey, usize, Fast> = HashMap::with_capacity_and_hasher(n, Fast::default());
    for (i, node) in graph.nodes.iter().enumerate() {
        if index.insert(IdKey::new(&node.id), i).is_some() {
            error(Some(&node.id), "duplicate node id".into());
        }
    }

    // Edges (duplicates collapse, as in a NetworkX DiGraph: the first one stays).
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
                error(at, format!("edge {} -> {} refers to unknown node `{missing}`", edge.source, edge.destination));
            }
        }
    }
    let duplicate = duplicate_edges(n, &resolved);
    let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(resolved.len());
    let mut pair_slots: Vec<Option<i64>> = Vec::with_capacity(resolved.len());
    for (e, &pair) in resolved.iter().enumerate() {
        if !duplicate[e] {
            pairs.push(pair);
            pair_slots.push(resolved_slots[e]);
        }
    }
    drop((resolved, resolved_slots, duplicate));
    let succs = Adjacency::new(n, &pairs);
    // Predecessors with their edge slots, in edge order.
    let by_destination: Vec<(usize, usize)> = pairs.iter().enumerate().map(|(e, &(_, d))| (d, e)).collect();
    let pred_edges = Adjacency::new(n, &by_destination);
    drop(by_destination);
    let mut preds = Adjacency { offsets: pred_edges.offsets.clone(), items: pred_edges.items.iter().map(|&e| pairs[e].0).collect() };
    let slots = |i: usize| pred_edges.of(i).iter().map(|&e| pair_slots[e]);

    // Target.
    let target = match &graph.target {
        None => {
            error(None, "no target node (`graph.target_node`)".into());
            None
        }
        Some(id) => match index.get(&IdKey::new(id)) {
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
    drop(index);

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

    // Registry answers, asked once per distinct question (a big graph asks the same few again and again).
    let mut pinned_tasks: HashMap<(Family, i64), Option<Rc<dyn Task>>> = HashMap::new();
    let mut pinned = |family: Family, task_id: i64| -> Option<Rc<dyn Task>> {
        pinned_tasks.entry((family, task_id)).or_insert_with(|| u32::try_from(task_id).ok().and_then(|id| registry.by_task_id(family, id))).clone()
    };
    let mut fitting: HashMap<(Family, Option<Kind>, Option<Kind>), bool> = HashMap::new();
    let mut any_fits = |family: Family, input: Option<Kind>, output: Option<Kind>| -> bool {
        *fitting.entry((family, input, output)).or_insert_with(|| !registry.matching(family, input, output).is_empty())
    };

    // Output kinds, then per-node rules.
    let output_kinds: Vec<Option<Kind>> = graph
        .nodes
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Task(task) => {
                let pinned = task.family().zip(task.task_id).and_then(|(f, id)| pinned(f, id));
                pinned.map(|t| t.info().output_kind).or_else(|| task.output_kind())
            }
            NodeKind::Pick { .. } => Some(Kind::Scalar),
            NodeKind::Pack => Some(Kind::List),
            NodeKind::Unknown { .. } => None,
        })
        .collect();
    let output_kind = |i: usize| output_kinds[i];
    let mut kinds = vec![ResolvedKinds::default(); n];
    for (i, node) in graph.nodes.iter().enumerate() {
        let id = Some(&node.id);
        let is_target = target == Some(i);
        let node_preds = preds.of(i);
        match &node.kind {
            NodeKind::Unknown { kind, op } => match op {
                Some(op) if kind == "adapter" => error(id, format!("unknown adapter op `{op}` (expected `pick` or `pack`)")),
                None if kind == "adapter" => error(id, "adapter without `op` (expected `pick` or `pack`)".into()),
                _ => error(id, format!("unknown node kind `{kind}` (expected `task` or `adapter`)")),
            },
            NodeKind::Pick { index } => {
                if node_preds.len() != 1 {
                    error(id, format!("a pick adapter needs exactly one input, found {}", node_preds.len()));
                } else if output_kind(node_preds[0]) == Some(Kind::Scalar) {
                    error(id, format!("a pick adapter needs a list input, but `{}` outputs a scalar", graph.nodes[node_preds[0]].id));
                }
                if *index < 0 {
                    error(id, format!("pick index must be a non-negative integer, found {index}"));
                }
                kinds[i] = ResolvedKinds { input: Some(Kind::List), output: Some(Kind::Scalar) };
            }
            NodeKind::Pack => {
                if node_preds.is_empty() {
                    error(id, "a pack adapter needs at least one input".into());
                }
                for &p in node_preds {
                    if output_kind(p) == Some(Kind::List) {
                        error(id, format!("a pack adapter takes scalar inputs, but `{}` outputs a list", graph.nodes[p].id));
                    }
                }
                let mut got: Vec<Option<i64>> = slots(i).collect();
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
                if node_preds.len() > 1 {
                    error(id, format!("a task takes at most one input, found {} (use a pack adapter to combine)", node_preds.len()));
                }
                let incoming = node_preds.first().and_then(|&p| output_kind(p));
                if let (Some(declared), Some(incoming)) = (task.input_kind(), incoming) {
                    if declared != incoming {
                        error(id, format!("declared input_kind {declared}, but its input `{}` produces a {incoming}", graph.nodes[node_preds[0]].id));
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
                        Some(task_id) => match pinned(family, task_id) {
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
                            if !any_fits(family, input, output) {
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
            match succs.of(i) {
                [s] if matches!(graph.nodes[*s].kind, NodeKind::Task(_)) => {}
                [s] => error(id, format!("an adapter must feed a task node, but feeds `{}`", graph.nodes[*s].id)),
                other => error(id, format!("an adapter must have exactly one successor, found {}", other.len())),
            }
        }
    }

    // Warnings: nodes that cannot influence the target.
    if let (true, Some(t), Some(_)) = (warnings, target, &order) {
        let mut feeds = vec![false; n];
        let mut stack = vec![t];
        feeds[t] = true;
        while let Some(i) = stack.pop() {
            for &p in preds.of(i) {
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
        if matches!(graph.nodes[i].kind, NodeKind::Pack) && slots(i).all(|s| s.is_some()) {
            let mut paired: Vec<(i64, usize)> = slots(i).flatten().zip(preds.of(i).iter().copied()).collect();
            paired.sort();
            let range = preds.offsets[i]..preds.offsets[i + 1];
            for (place, (_, p)) in preds.items[range].iter_mut().zip(paired) {
                *place = p;
            }
        }
    }

    Checked { issues, order, preds, succs, target, kinds }
}

/// NetworkX's `topological_sort`: generations of in-degree-0 nodes, each in order, children in edge order.
fn generations(preds: &Adjacency, succs: &Adjacency) -> Vec<usize> {
    let n = preds.len();
    let mut indegree: Vec<usize> = (0..n).map(|i| preds.of(i).len()).collect();
    let mut current: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut next = Vec::new();
    while !current.is_empty() {
        for &node in &current {
            for &child in succs.of(node) {
                indegree[child] -= 1;
                if indegree[child] == 0 {
                    next.push(child);
                }
            }
        }
        order.extend_from_slice(&current);
        std::mem::swap(&mut current, &mut next);
        next.clear();
    }
    order
}

/// Strongly connected components that contain a cycle (iterative Tarjan via petgraph).
fn cycles(succs: &Adjacency) -> Vec<Vec<usize>> {
    let n = succs.len();
    let mut g = petgraph::graph::DiGraph::<(), ()>::with_capacity(n, 0);
    let nodes: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
    for s in 0..n {
        for &d in succs.of(s) {
            g.add_edge(nodes[s], nodes[d], ());
        }
    }
    let mut out: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1 || succs.of(c[0].index()).contains(&c[0].index()))
        .map(|c| {
            let mut c: Vec<usize> = c.into_iter().map(|n| n.index()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn the_fast_hasher_spreads_similar_ids_over_buckets() {
        // Ids that differ only in their digits must not pile into a few buckets (hashbrown picks buckets with
        // the low bits).
        let fast = Fast::default();
        let buckets: HashSet<u64> = (0..10_000).map(|i| fast.hash_one(NodeId(format!("t{i}"))) & 0xfff).collect();
        assert!(buckets.len() > 3_500, "{} of 4096 buckets used", buckets.len());
        let pairs: HashSet<u64> = (0..10_000usize).map(|i| fast.hash_one((i, i + 1)) & 0xfff).collect();
        assert!(pairs.len() > 3_500, "{} of 4096 buckets used", pairs.len());
    }

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
}

