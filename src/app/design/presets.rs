//! Presets: editable graphs to start from. The paper's topologies as custom graphs (baseline, forgetting
//! with k distractors, a chain of n, a multichain from the structure language), a seeded random DAG with a
//! family mix, and the paper's four evaluation layouts. Each preset lists its parameters (the page shows one
//! input per parameter, named by it) and builds a positioned `TaskGraph`.

use std::collections::{BTreeMap, BTreeSet};

use super::tidy::with_positions;
use crate::engine::generate::{parse_structure, StructureItem};
use crate::engine::graph::{Edge, Node, NodeId, NodeKind, TaskGraph, TaskNode};
use crate::engine::rng::InstanceRng;

/// A preset's parameter: its input's name, a label and the default value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    pub name: &'static str,
    pub label: &'static str,
    pub default: &'static str,
    /// The allowed values for a choice (empty: free text or a number).
    pub choices: &'static [&'static str],
}

/// A preset as the picker lists it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub key: &'static str,
    pub label: &'static str,
    pub params: &'static [Param],
}

const FAMILIES: &[&str] = &["math", "gsm", "python", "any"];
const FAMILY: Param = Param { name: "family", label: "family", default: "math", choices: FAMILIES };

/// Every preset, in the picker's order.
pub const PRESETS: &[Preset] = &[
    Preset { key: "baseline", label: "Baseline (one task)", params: &[FAMILY] },
    Preset { key: "forgetting", label: "Forgetting (k distractors)", params: &[Param { name: "k", label: "distractors k", default: "3", choices: &[] }, FAMILY] },
    Preset { key: "chain", label: "Chain of n", params: &[Param { name: "n", label: "length n", default: "4", choices: &[] }, FAMILY] },
    Preset { key: "multichain", label: "Multichain (structure)", params: &[Param { name: "structure", label: "structure", default: "m,m,[m,m],[m,m],m,m", choices: &[] }] },
    Preset {
        key: "random",
        label: "Random DAG",
        params: &[
            Param { name: "n", label: "tasks n", default: "12", choices: &[] },
            Param { name: "seed", label: "seed", default: "1", choices: &[] },
            Param { name: "mix", label: "family mix", default: "math,gsm,python", choices: &[] },
            Param { name: "distractors", label: "distractor share", default: "0.1", choices: &[] },
        ],
    },
    Preset {
        key: "paper",
        label: "Paper evaluation layout",
        params: &[Param { name: "layout", label: "layout", default: "chain", choices: &["baseline", "forgetting", "chain", "multichain"] }, Param { name: "family", label: "family", default: "math", choices: &["math", "gsm", "python"] }],
    },
];

/// Largest n accepted by the sized presets (the designer's own limit is far above what a person would build).
pub const MAX_PRESET_NODES: usize = 5_000;

/// Why a preset could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PresetError {
    #[error("unknown preset `{0}`")]
    Unknown(String),
    #[error("{name}: {message}")]
    BadParam { name: &'static str, message: String },
}

/// The preset with `key`.
pub fn preset(key: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.key == key)
}

/// Builds preset `key` with `values` (missing values take their defaults).
pub fn build(key: &str, values: &BTreeMap<String, String>) -> Result<TaskGraph, PresetError> {
    let spec = preset(key).ok_or_else(|| PresetError::Unknown(key.to_string()))?;
    let get = |name: &'static str| -> String {
        values.get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).unwrap_or_else(|| spec.params.iter().find(|p| p.name == name).map(|p| p.default.to_string()).unwrap_or_default())
    };
    let graph = match key {
        "baseline" => forgetting(&family(&get("family"))?, 0),
        "forgetting" => forgetting(&family(&get("family"))?, count("k", &get("k"), 0)?),
        "chain" => chain(&family(&get("family"))?, count("n", &get("n"), 1)?),
        "multichain" => multichain(&get("structure"))?,
        "random" => random_dag(count("n", &get("n"), 1)?, get("seed").parse().map_err(|_| bad("seed", "expected a whole number"))?, &mix(&get("mix"))?, share(&get("distractors"))?),
        "paper" => {
            let f = family(&get("family"))?;
            match get("layout").as_str() {
                "baseline" => forgetting(&f, 0),
                "forgetting" => forgetting(&f, 3),
                "chain" => chain(&f, 4),
                "multichain" => {
                    let s = &f[..1];
                    multichain(&format!("{s},{s},[{s},{s}],[{s},{s}],{s},{s}"))?
                }
                other => return Err(bad("layout", &format!("unknown layout `{other}` (baseline, forgetting, chain or multichain)"))),
            }
        }
        other => return Err(PresetError::Unknown(other.to_string())),
    };
    with_positions(graph).map_err(|e| bad("layout", &e.to_string()))
}

fn bad(name: &'static str, message: &str) -> PresetError {
    PresetError::BadParam { name, message: message.to_string() }
}

fn family(text: &str) -> Result<String, PresetError> {
    let lower = text.to_ascii_lowercase();
    FAMILIES.iter().find(|f| **f == lower).map(|f| f.to_string()).ok_or_else(|| bad("family", &format!("unknown family `{text}` (math, gsm, python or any)")))
}

fn count(name: &'static str, text: &str, min: usize) -> Result<usize, PresetError> {
    let n: usize = text.parse().map_err(|_| bad(name, &format!("expected a whole number, found `{text}`")))?;
    if n < min || n > MAX_PRESET_NODES {
        return Err(bad(name, &format!("must be between {min} and {MAX_PRESET_NODES}, found {n}")));
    }
    Ok(n)
}

/// A share between 0 and 1 (`0.1`, or `10%`).
fn share(text: &str) -> Result<f64, PresetError> {
    let (number, scale) = match text.strip_suffix('%') {
        Some(percent) => (percent.trim(), 100.0),
        None => (text, 1.0),
    };
    let value = number.parse::<f64>().map(|v| v / scale).map_err(|_| bad("distractors", &format!("expected a share such as 0.1 or 10%, found `{text}`")))?;
    if !(0.0..=1.0).contains(&value) {
        return Err(bad("distractors", &format!("must be between 0 and 1 (0% and 100%), found `{text}`")));
    }
    Ok(value)
}

fn mix(text: &str) -> Result<Vec<String>, PresetError> {
    let families: Result<Vec<String>, PresetError> = text.split([',', ' ']).filter(|s| !s.is_empty()).map(|s| family(s).map_err(|_| bad("mix", &format!("unknown family `{s}` in the mix")))).collect();
    let families = families?;
    if families.is_empty() {
        return Err(bad("mix", "name at least one family (e.g. math,gsm)"));
    }
    Ok(families)
}

/// Builds graphs node by node with ids `task_N`, `pick_N`, `pack_N`.
#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    tasks: usize,
    picks: usize,
    packs: usize,
}

impl Builder {
    fn task(&mut self, family: &str, input: Option<&str>, output: Option<&str>) -> NodeId {
        self.tasks += 1;
        let task = TaskNode { family: family.to_string(), task_id: None, input_kind: input.map(str::to_string), output_kind: output.map(str::to_string), function: None };
        self.push(format!("task_{}", self.tasks), NodeKind::Task(task))
    }

    fn pick(&mut self, index: i64) -> NodeId {
        self.picks += 1;
        self.push(format!("pick_{}", self.picks), NodeKind::Pick { index })
    }

    fn pack(&mut self) -> NodeId {
        self.packs += 1;
        self.push(format!("pack_{}", self.packs), NodeKind::Pack)
    }

    fn push(&mut self, id: String, kind: NodeKind) -> NodeId {
        let id = NodeId(id);
        self.nodes.push(Node { id: id.clone(), kind, position: None });
        id
    }

    fn edge(&mut self, from: &NodeId, to: &NodeId, slot: Option<i64>) {
        self.edges.push(Edge { source: from.clone(), destination: to.clone(), slot });
    }

    fn finish(self, target: NodeId) -> TaskGraph {
        TaskGraph::from_parts(self.nodes, self.edges, Some(target))
    }
}

/// `k` independent distractor tasks, then the target (open kinds: every task of the family is a target).
fn forgetting(family: &str, k: usize) -> TaskGraph {
    let mut b = Builder::default();
    for _ in 0..k {
        b.task(family, Some("scalar"), Some("scalar"));
    }
    let target = b.task(family, None, None);
    b.finish(target)
}

/// `n` tasks in a line, scalar to scalar; the last, the target, takes a scalar and outputs anything.
fn chain(family: &str, n: usize) -> TaskGraph {
    let mut b = Builder::default();
    let mut previous: Option<NodeId> = None;
    for i in 0..n {
        let last = i + 1 == n;
        let id = b.task(family, Some("scalar"), if last { None } else { Some("scalar") });
        if let Some(p) = &previous {
            b.edge(p, &id, None);
        }
        previous = Some(id);
    }
    let target = previous.unwrap_or_else(|| b.task(family, None, None));
    b.finish(target)
}

/// A multichain: flat tasks in line; before a branch block a task outputs a list, pick adapters hand one
/// element to each branch, the branches run scalar to scalar, and a pack adapter recombines their results
/// into the list the next flat task takes.
fn multichain(structure: &str) -> Result<TaskGraph, PresetError> {
    let parsed = parse_structure(structure).map_err(|e| bad("structure", &e.to_string()))?;
    let items = &parsed.items;
    let mut b = Builder::default();
    let mut previous: Option<NodeId> = None;
    let mut pack: Option<NodeId> = None;
    let mut i = 0;
    while i < items.len() {
        match &items[i] {
            StructureItem::Flat(f) => {
                let before_block = matches!(items.get(i + 1), Some(StructureItem::Branch(_)));
                let last = i + 1 == items.len();
                let input = if pack.is_some() { "list" } else { "scalar" };
                let output = if before_block { Some("list") } else if last { None } else { Some("scalar") };
                let id = b.task(f.as_str(), Some(input), output);
                if let Some(k) = pack.take() {
                    b.edge(&k, &id, None);
                } else if let Some(p) = &previous {
                    b.edge(p, &id, None);
                }
                previous = Some(id);
                i += 1;
            }
            StructureItem::Branch(_) => {
                let expansion = previous.clone().ok_or_else(|| bad("structure", "a branch block needs a task before it"))?;
                let k = b.pack();
                let mut slot = 0;
                while let Some(StructureItem::Branch(branch)) = items.get(i) {
                    let p = b.pick(slot);
                    b.edge(&expansion, &p, None);
                    let mut from = p;
                    for f in branch {
                        let t = b.task(f.as_str(), Some("scalar"), Some("scalar"));
                        b.edge(&from, &t, None);
                        from = t;
                    }
                    b.edge(&from, &k, Some(slot));
                    slot += 1;
                    i += 1;
                }
                pack = Some(k);
            }
        }
    }
    let target = previous.ok_or_else(|| bad("structure", "the structure has no tasks"))?;
    Ok(b.finish(target))
}

/// A seeded random DAG of `n` tasks whose target depends on all but a `share` of them. The target and the
/// tasks it depends on (the main tasks) each take one earlier main task's output, or (one time in three) two
/// earlier outputs packed into a list, or (one time in eight) start fresh; a main output no main task has taken
/// yet is taken first often enough that, by the target, every main task feeds it. The distractors (`share`
/// of the tasks, rounded, spread at random among the others) take an earlier task's output or start fresh,
/// and feed nothing but other distractors. Families are drawn from `mix` (repeat a family to weigh it). Every
/// task outputs a scalar; the last is the target.
fn random_dag(n: usize, seed: u64, mix: &[String], share: f64) -> TaskGraph {
    let mut rng = InstanceRng::from_seed(seed);
    let mut b = Builder::default();
    let distractors = ((share * n as f64).round() as usize).min(n.saturating_sub(1));
    let distractor: BTreeSet<usize> = rng.sample_indices(n.saturating_sub(1), distractors).into_iter().collect();
    let mut tasks: Vec<NodeId> = Vec::with_capacity(n);
    let mut mains: Vec<NodeId> = Vec::new();
    // Main outputs no main task has taken yet, oldest first.
    let mut open: Vec<NodeId> = Vec::new();
    let mut mains_left = n - distractors;
    for i in 0..n {
        let family = &mix[rng.index(mix.len())];
        let last = i + 1 == n;
        let output = if last { None } else { Some("scalar") };
        if distractor.contains(&i) {
            let id = b.task(family, Some("scalar"), output);
            if i > 0 && rng.index(8) != 0 {
                let source = tasks[i - 1 - rng.index(i.min(8))].clone();
                b.edge(&source, &id, None);
            }
            tasks.push(id);
            continue;
        }
        // After this task, the main tasks still to come besides the target; each can close one open output
        // net (a pack of two), and the target takes up to two.
        mains_left -= 1;
        let later = mains_left.saturating_sub(1);
        let feasible = |open_after: usize| last || open_after <= later + 2;
        let wish = if mains.is_empty() || (!last && rng.index(8) == 0) { 0 } else if mains.len() >= 2 && rng.index(3) == 0 { 2 } else { 1 };
        // Taking an open output when there is one keeps the count level; taking another adds to it.
        let single_takes_open = !open.is_empty() && (rng.index(2) == 0 || !feasible(open.len() + 1));
        let single_after = if single_takes_open { open.len() } else { open.len() + 1 };
        let choice = match wish {
            0 if feasible(open.len() + 1) => 0,
            0 | 1 if mains.is_empty() => 0,
            0 | 1 if feasible(single_after) && (!last || open.len() <= 1) => 1,
            _ if mains.len() >= 2 => 2,
            _ => 1,
        };
        let id = match choice {
            0 => b.task(family, Some("scalar"), output),
            1 => {
                let source = if single_takes_open || last { open.remove(0) } else { mains[mains.len() - 1 - rng.index(mains.len().min(8))].clone() };
                open.retain(|o| o != &source);
                let id = b.task(family, Some("scalar"), output);
                b.edge(&source, &id, None);
                id
            }
            _ => {
                let mut sources: Vec<NodeId> = open.drain(..open.len().min(2)).collect();
                while sources.len() < 2 {
                    let pick = mains[mains.len() - 1 - rng.index(mains.len().min(8))].clone();
                    if !sources.contains(&pick) {
                        sources.push(pick);
                    }
                }
                open.retain(|o| !sources.contains(o));
                let k = b.pack();
                for (slot, source) in sources.iter().enumerate() {
                    b.edge(source, &k, Some(slot as i64));
                }
                let id = b.task(family, Some("list"), output);
                b.edge(&k, &id, None);
                id
            }
        };
        tasks.push(id.clone());
        mains.push(id.clone());
        if !last {
            open.push(id);
        }
    }
    let target = tasks.last().cloned().unwrap_or_else(|| b.task(&mix[0], None, None));
    b.finish(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::{Severity, ValidGraph};
    use crate::engine::tasks::registry::builtin;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn errors(graph: &TaskGraph) -> Vec<String> {
        graph.issues(&builtin()).into_iter().filter(|i| i.severity == Severity::Error).map(|i| i.to_string()).collect()
    }

    /// Parameter values by name.
    type Values = &'static [(&'static str, &'static str)];

    /// (preset, parameters, tasks, adapters expected)
    const CASES: &[(&str, Values, usize, usize)] = &[
        ("baseline", &[], 1, 0),
        ("forgetting", &[("k", "5")], 6, 0),
        ("chain", &[("n", "7"), ("family", "python")], 7, 0),
        ("chain", &[("n", "1")], 1, 0),
        ("chain", &[("family", "any")], 4, 0),
        ("multichain", &[], 8, 3),
        ("multichain", &[("structure", "p,p,[p,p,p],[p],[p],g")], 8, 4),
        ("random", &[("n", "40"), ("seed", "3")], 40, 0),
        ("paper", &[("layout", "baseline")], 1, 0),
        ("paper", &[("layout", "forgetting"), ("family", "gsm")], 4, 0),
        ("paper", &[("layout", "chain")], 4, 0),
        ("paper", &[("layout", "multichain"), ("family", "python")], 8, 3),
    ];

    #[test]
    fn every_preset_builds_a_valid_positioned_graph_of_the_asked_size() {
        for (key, params, tasks, adapters) in CASES {
            let graph = build(key, &values(params)).unwrap_or_else(|e| panic!("{key}: {e}"));
            let n_tasks = graph.nodes().iter().filter(|n| matches!(n.kind, NodeKind::Task(_))).count();
            assert_eq!(n_tasks, *tasks, "{key} {params:?}");
            if *key != "random" {
                assert_eq!(graph.nodes().len() - n_tasks, *adapters, "{key} {params:?}");
            }
            assert!(graph.nodes().iter().all(|n| n.position.is_some()), "{key}: every node placed");
            assert_eq!(errors(&graph), Vec::<String>::new(), "{key} {params:?}");
            assert!(ValidGraph::new(graph, &builtin()).is_ok(), "{key} {params:?}");
        }
    }

    #[test]
    fn random_dags_are_seeded_and_mix_their_families() {
        let a = build("random", &values(&[("n", "60"), ("seed", "9")])).unwrap();
        assert_eq!(a, build("random", &values(&[("n", "60"), ("seed", "9")])).unwrap(), "same seed, same graph");
        assert_ne!(a, build("random", &values(&[("n", "60"), ("seed", "10")])).unwrap());
        let families: std::collections::BTreeSet<String> = a.nodes().iter().filter_map(|n| match &n.kind { NodeKind::Task(t) => Some(t.family.clone()), _ => None }).collect();
        assert_eq!(families.len(), 3, "{families:?}");
        assert!(a.nodes().iter().any(|n| matches!(n.kind, NodeKind::Pack)), "some tasks take two inputs through a pack");
        let only_math = build("random", &values(&[("n", "30"), ("mix", "math")])).unwrap();
        assert!(only_math.nodes().iter().all(|n| !matches!(&n.kind, NodeKind::Task(t) if t.family != "math")));
    }

    /// How many of the graph's nodes the target depends on (itself included), and how many nodes there are.
    fn feeding_the_target(graph: &TaskGraph) -> (usize, usize) {
        let target = graph.target().expect("a target").clone();
        let mut seen = BTreeSet::from([target.clone()]);
        let mut stack = vec![target];
        while let Some(id) = stack.pop() {
            for e in graph.edges().iter().filter(|e| e.destination == id) {
                if seen.insert(e.source.clone()) {
                    stack.push(e.source.clone());
                }
            }
        }
        (seen.len(), graph.nodes().len())
    }

    #[test]
    fn the_random_dags_target_depends_on_all_but_the_distractor_share() {
        let mut worst: f64 = 1.0;
        for n in [2, 3, 12, 50, 200] {
            for seed in 0..20 {
                let graph = build("random", &values(&[("n", &n.to_string()), ("seed", &seed.to_string())])).unwrap();
                let (feeding, total) = feeding_the_target(&graph);
                let share = feeding as f64 / total as f64;
                worst = worst.min(share);
                assert!(share >= 0.8, "n {n} seed {seed}: the target depends on {feeding} of {total} nodes");
                assert_eq!(errors(&graph), Vec::<String>::new(), "n {n} seed {seed}");
            }
        }
        // The default share of distractors, 0.1, leaves the rest all feeding the target.
        let (feeding, total) = feeding_the_target(&build("random", &values(&[("n", "50")])).unwrap());
        let tasks_feeding = feeding - build("random", &values(&[("n", "50")])).unwrap().nodes().iter().filter(|n| matches!(n.kind, NodeKind::Pack)).count();
        assert_eq!(tasks_feeding, 45, "50 tasks, 5 distractors: the target and the 44 others feed it ({feeding} of {total} nodes)");
        assert!(worst >= 0.8, "{worst}");
        // The share is a parameter: more distractors, fewer nodes feeding; none, every node.
        for (share, tasks) in [("0", 50), ("0.5", 25), ("50%", 25), ("1", 1)] {
            let graph = build("random", &values(&[("n", "50"), ("seed", "4"), ("distractors", share)])).unwrap();
            let packs = graph.nodes().iter().filter(|n| matches!(n.kind, NodeKind::Pack)).count();
            let (feeding, total) = feeding_the_target(&graph);
            assert_eq!(feeding - packs, tasks, "share {share}: {feeding} of {total} nodes feed the target");
            assert_eq!(errors(&graph), Vec::<String>::new(), "share {share}");
        }
    }

    #[test]
    fn bad_parameters_are_named_in_the_error() {
        let cases: &[(&str, Values, &str)] = &[
            ("chain", &[("n", "0")], "n: must be between 1"),
            ("chain", &[("n", "lots")], "n: expected a whole number"),
            ("forgetting", &[("family", "poetry")], "family: unknown family `poetry`"),
            ("multichain", &[("structure", "m,[m,m]")], "structure:"),
            ("random", &[("mix", "math,verse")], "mix: unknown family `verse`"),
            ("random", &[("seed", "-1")], "seed: expected a whole number"),
            ("random", &[("distractors", "half")], "distractors: expected a share such as 0.1"),
            ("random", &[("distractors", "1.5")], "distractors: must be between 0 and 1"),
            ("random", &[("distractors", "-5%")], "distractors: must be between 0 and 1"),
            ("paper", &[("layout", "ring")], "layout: unknown layout `ring`"),
        ];
        for (key, params, message) in cases {
            let error = build(key, &values(params)).unwrap_err().to_string();
            assert!(error.starts_with(message), "{key} {params:?}: {error}");
        }
        assert_eq!(build("nope", &BTreeMap::new()), Err(PresetError::Unknown("nope".into())));
    }

    #[test]
    fn every_listed_parameter_has_a_default_that_builds() {
        for preset in PRESETS {
            assert!(build(preset.key, &BTreeMap::new()).is_ok(), "{}", preset.key);
            for p in preset.params {
                assert!(p.choices.is_empty() || p.choices.contains(&p.default), "{}.{}", preset.key, p.name);
            }
        }
    }
}
