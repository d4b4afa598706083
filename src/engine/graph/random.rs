//! Seeded random task graphs of any size, for benchmarks and as a starting point in the designer: task nodes
//! with declared kinds, wired directly or through `pick` and `pack` adapters, ending in the target.

use super::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::Family;
use crate::engine::value::Kind;

/// Why no random graph could be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RandomGraphError {
    #[error("a random graph needs at least one node")]
    Empty,
    #[error("the chosen families have no tasks")]
    NoTasks,
}

/// Reused sources are drawn from this many most recent task nodes of the needed kind, so dependencies stay local
/// and the graph is deep rather than a shallow fan.
const WINDOW: usize = 32;

/// A valid DAG of exactly `nodes` nodes, a pure function of its arguments. Tasks are added one by one, each
/// taking the output of an earlier task nobody consumes yet (sometimes an already consumed recent one), element 0
/// or 1 of a list (`pick`), two or three scalars packed into a list (`pack`), or now and then a fresh input. The
/// last few nodes gather every unconsumed output into the last node, the (unpinned) target, so every node feeds
/// it when the families have the kinds for that (math does). Every task node declares kinds some task of its family
/// has.
pub fn random_dag(nodes: usize, seed: u64, families: &[Family], registry: &Registry) -> Result<TaskGraph, RandomGraphError> {
    if nodes == 0 {
        return Err(RandomGraphError::Empty);
    }
    // (family, input, output) combinations some task has.
    let mut shapes: Vec<(Family, Kind, Kind)> = Vec::new();
    for &family in families {
        for input in [Kind::Scalar, Kind::List] {
            for output in [Kind::Scalar, Kind::List] {
                if !registry.matching(family, Some(input), Some(output)).is_empty() {
                    shapes.push((family, input, output));
                }
            }
        }
    }
    if shapes.is_empty() {
        return Err(RandomGraphError::NoTasks);
    }
    let mut b = Builder {
        graph: TaskGraph::new(),
        shapes,
        rng: InstanceRng::for_instance(seed, &[0x7261_6e64_6f6d]), // "random"
        by_output: [Vec::new(), Vec::new()],
        open: [Vec::new(), Vec::new()],
        consumed: Vec::new(),
    };
    b.graph.nodes.reserve(nodes);
    b.graph.edges.reserve(nodes + nodes / 4);
    // Grow while there is room to gather the open outputs afterwards.
    while nodes - b.graph.nodes.len() >= 2 * b.open_count(Kind::List) + 8 {
        b.grow();
    }
    while b.graph.nodes.len() < nodes {
        b.gather(nodes - b.graph.nodes.len());
    }
    b.graph.target = b.graph.nodes.last().map(|n| n.id.clone());
    Ok(b.graph)
}

fn slot(kind: Kind) -> usize {
    usize::from(kind == Kind::List)
}

struct Builder {
    graph: TaskGraph,
    shapes: Vec<(Family, Kind, Kind)>,
    rng: InstanceRng,
    /// Task nodes by output kind, in creation order.
    by_output: [Vec<usize>; 2],
    /// Task nodes nobody consumes yet, by output kind (consumed ones are dropped lazily).
    open: [Vec<usize>; 2],
    consumed: Vec<bool>,
}

impl Builder {
    fn has(&self, input: Kind, output: Option<Kind>) -> bool {
        self.shapes.iter().any(|s| s.1 == input && output.is_none_or(|o| s.2 == o))
    }

    fn open_count(&mut self, kind: Kind) -> usize {
        let consumed = &self.consumed;
        self.open[slot(kind)].retain(|&i| !consumed[i]);
        self.open[slot(kind)].len()
    }

    /// One growth step: a pick, a pack, a task on an earlier output, or a task on a fresh input.
    fn grow(&mut self) {
        let roll = self.rng.index(100);
        let open_lists = self.open_count(Kind::List);
        let open_scalars = self.open_count(Kind::Scalar);
        let lists = self.by_output[1].len();
        let scalars = self.by_output[0].len();
        if roll < 12 && lists > 0 && self.has(Kind::Scalar, None) {
            let source = self.source(Kind::List, roll < 2);
            let index = self.rng.index(2) as i64;
            let pick = self.add(NodeKind::Pick { index });
            self.connect(source, pick, None);
            let task = self.task(Kind::Scalar, None);
            self.connect(pick, task, None);
        } else if roll < 24 && scalars >= 3 && self.has(Kind::List, None) {
            let count = 2 + self.rng.index(2);
            let mut sources: Vec<usize> = Vec::with_capacity(count);
            while sources.len() < count {
                let source = self.source(Kind::Scalar, sources.len() >= open_scalars);
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
            self.pack_into_task(&sources, None);
        } else if roll >= 28 && lists + scalars > 0 {
            let open = open_lists + open_scalars;
            let kind = if open > 0 {
                if self.rng.index(open) < open_lists { Kind::List } else { Kind::Scalar }
            } else if self.rng.index(lists + scalars) < lists {
                Kind::List
            } else {
                Kind::Scalar
            };
            if self.has(kind, None) {
                let source = self.source(kind, roll >= 90);
                let task = self.task(kind, None);
                self.connect(source, task, None);
            } else {
                self.root();
            }
        } else {
            self.root();
        }
    }

    /// One step of the ending, with `room` nodes left: lists become scalars, scalars are packed into the target's
    /// input; spare room becomes tasks along the way. Without the kinds for that, the ending leaves strays.
    fn gather(&mut self, room: usize) {
        let open_lists = self.open_count(Kind::List);
        let open_scalars = self.open_count(Kind::Scalar);
        if open_lists + open_scalars == 0 {
            self.root();
        } else if open_lists > 0 && (self.has(Kind::List, Some(Kind::Scalar)) || room < 2 || !self.has(Kind::Scalar, None)) {
            let source = self.source(Kind::List, false);
            let output = if self.has(Kind::List, Some(Kind::Scalar)) { Some(Kind::Scalar) } else { None };
            let task = self.task(Kind::List, output);
            self.connect(source, task, None);
        } else if open_lists > 0 {
            let source = self.source(Kind::List, false);
            let pick = self.add(NodeKind::Pick { index: 0 });
            self.connect(source, pick, None);
            let output = if self.has(Kind::Scalar, Some(Kind::Scalar)) { Some(Kind::Scalar) } else { None };
            let task = self.task(Kind::Scalar, output);
            self.connect(pick, task, None);
        } else if open_scalars >= 2 && room == 2 && self.has(Kind::List, None) {
            let sources = self.open[0].clone();
            self.pack_into_task(&sources, None);
        } else {
            let source = self.source(Kind::Scalar, false);
            let keep_scalar = room > 1 && self.has(Kind::Scalar, Some(Kind::Scalar));
            let task = self.task(Kind::Scalar, if keep_scalar { Some(Kind::Scalar) } else { None });
            self.connect(source, task, None);
        }
    }

    fn add(&mut self, kind: NodeKind) -> usize {
        let i = self.graph.nodes.len();
        let prefix = if matches!(kind, NodeKind::Task(_)) { "t" } else { "a" };
        self.graph.nodes.push(Node { id: NodeId(format!("{prefix}{i}")), kind, position: None });
        self.consumed.push(false);
        i
    }

    /// A task node taking `input`, with an output kind its family offers for that input (`output` if given).
    fn task(&mut self, input: Kind, output: Option<Kind>) -> usize {
        let fitting: Vec<(Family, Kind, Kind)> = self.shapes.iter().copied().filter(|s| s.1 == input && output.is_none_or(|o| s.2 == o)).collect();
        let (family, _, output) = fitting[self.rng.index(fitting.len())];
        let node = TaskNode { family: family.as_str().to_string(), task_id: None, input_kind: Some(input.as_str().to_string()), output_kind: Some(output.as_str().to_string()), function: None };
        let i = self.add(NodeKind::Task(node));
        self.by_output[slot(output)].push(i);
        self.open[slot(output)].push(i);
        i
    }

    /// A task on a fresh input.
    fn root(&mut self) {
        let input = self.shapes[self.rng.index(self.shapes.len())].1;
        self.task(input, None);
    }

    /// A pack of `sources` feeding a new list-input task.
    fn pack_into_task(&mut self, sources: &[usize], output: Option<Kind>) {
        let pack = self.add(NodeKind::Pack);
        for (slot, &source) in sources.iter().enumerate() {
            self.connect(source, pack, Some(slot as i64));
        }
        let task = self.task(Kind::List, output);
        self.connect(pack, task, None);
    }

    /// A task node with output `kind`: a random unconsumed one, or (when there is none, or `reuse`) any of the
    /// last `WINDOW`.
    fn source(&mut self, kind: Kind, reuse: bool) -> usize {
        let open = self.open_count(kind);
        if open > 0 && !reuse {
            return self.open[slot(kind)][self.rng.index(open)];
        }
        let all = &self.by_output[slot(kind)];
        let from = all.len().saturating_sub(WINDOW);
        all[from + self.rng.index(all.len() - from)]
    }

    fn connect(&mut self, from: usize, to: usize, slot: Option<i64>) {
        self.consumed[from] = true;
        let edge = Edge { source: self.graph.nodes[from].id.clone(), destination: self.graph.nodes[to].id.clone(), slot };
        self.graph.edges.push(edge);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{Severity, ValidGraph};
    use crate::engine::tasks::registry::builtin;

    #[test]
    fn random_dags_are_valid_exactly_sized_and_seeded() {
        let registry = builtin();
        for (n, families) in [(1, vec![Family::Math]), (2, vec![Family::Math]), (500, vec![Family::Math]), (300, vec![Family::Math, Family::Gsm, Family::Python])] {
            let graph = random_dag(n, 7, &families, &registry).expect("a graph");
            assert_eq!(graph.nodes.len(), n);
            let issues = graph.issues(&registry);
            assert!(issues.iter().all(|i| i.severity == Severity::Warning), "{n}: {:?}", issues.iter().find(|i| i.severity == Severity::Error));
            let valid = ValidGraph::new(graph.clone(), &registry).expect("valid");
            assert_eq!(valid.target(), n - 1);
            assert_eq!(random_dag(n, 7, &families, &registry).expect("a graph"), graph, "same seed, same graph");
        }
        assert_ne!(random_dag(200, 1, &[Family::Math], &registry), random_dag(200, 2, &[Family::Math], &registry));
    }

    #[test]
    fn random_dags_mix_direct_edges_picks_and_packs_and_every_node_feeds_the_target() {
        let registry = builtin();
        let graph = random_dag(3000, 11, &[Family::Math], &registry).expect("a graph");
        let picks = graph.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Pick { .. })).count();
        let packs = graph.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Pack)).count();
        let roots = graph.nodes.len() - graph.edges.iter().map(|e| &e.destination).collect::<std::collections::HashSet<_>>().len();
        assert!(picks > 100 && packs > 100 && roots > 10, "picks {picks}, packs {packs}, roots {roots}");
        assert_eq!(graph.issues(&registry), Vec::new(), "every node feeds the target");
    }

    #[test]
    fn random_dags_refuse_empty_requests() {
        let registry = builtin();
        assert_eq!(random_dag(0, 1, &[Family::Math], &registry), Err(RandomGraphError::Empty));
        assert_eq!(random_dag(5, 1, &[], &registry), Err(RandomGraphError::NoTasks));
    }
}
