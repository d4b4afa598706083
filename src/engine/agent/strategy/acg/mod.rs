//! `acg`: the Adaptive Consistency Graph (after "Adaptive Consistency Graph for Long-Horizon Agents", Wang, Pneg
//! and Wang, sections 3.2–3.5 and appendices B.1–B.2; docs/CONTEXT_STRATEGIES.md maps each equation to the
//! function that implements it and says what is approximated).
//!
//! The record is a graph of evidence units, each linked to its source event (the turn's assistant message, the
//! tool call that produced an observation) and to the units of the same event. Requirements are exact
//! instruction spans of the prompt, one per expected output. Units are anchored to requirements only by
//! structured origin declarations: a calculator call lists the requirement ids it serves (ids that do not
//! resolve are rejected and the unit stays unassigned), an observation inherits its call's anchors, and a
//! labelled box is anchored to its label. Without a declaration, a call and its observation inherit the anchor of
//! their parent action, the turn, when that turn names exactly one open requirement (`inherit`). Nothing is
//! anchored by similarity. Output names and the values they carried are concepts linking units across events
//! (`anchors`, `concepts.rs`); a structural-entropy organizer clusters units (`clusters`, `organizer.rs`).
//!
//! Each request: seeds are retrieved by two ranked lists over the historical units, one for the current task
//! (the next open requirement's spans) and one for the latest event, scored lexically (BM25), merged round-robin
//! to 8 unique seeds, expanded one hop over the unit graph, over the concepts the current requirement, the latest
//! event and the seeds name, and by the seeds' local clusters; per requirement, the top 8 historical candidates
//! by BM25 against its spans plus the current event's anchored evidence form a block, headed by the exact
//! instruction spans for the current requirement (`spans`); blocks are rendered in order under the token cap,
//! a block added only if the whole view still fits. The request is the prompt followed by the view, then the
//! latest exchange in full (so every tool call keeps its result).

mod concepts;
mod organizer;

pub use concepts::{carries, names_in, ConceptLink, LinkKind, MIN_VALUE_CHARS};
pub use organizer::{organize, structural_entropy, WeightedGraph, ORGANIZER_LIMIT};

use super::bm25::{query_terms, Bm25};
use super::requirements::{requirements_of, Requirement};
use super::{head_with_view, CallEvent, ContextInput, ContextStrategy, ParamInfo, Plan, Strategy, StrategyInfo, StrategyRun, TurnEvent, DEFAULT_ACG_BUDGET};
use crate::engine::agent::prompts::ACG_VIEW_HEADER;
use crate::engine::agent::{Message, Role};
use crate::engine::grade::SampleSpec;
use serde_json::{json, Value};
use crate::engine::sort;

/// `acg` in the list of strategies.
pub(in crate::engine::agent::strategy) static ACG: Acg = Acg;

/// The `acg` strategy; its record is an [`AcgGraph`].
pub(in crate::engine::agent::strategy) struct Acg;

const BUDGET: ParamInfo = ParamInfo { key: "budget_tokens", default: DEFAULT_ACG_BUDGET, min: 100, max: 10_000_000, description: "token cap of the rendered view" };

/// An on/off switch of one `acg` mechanism (1, the paper's setting, or 0 for ablation).
const fn switch(key: &'static str, description: &'static str) -> ParamInfo {
    ParamInfo { key, default: 1, min: 0, max: 1, description }
}
const CLUSTERS: ParamInfo = switch("clusters", "1: add the seeds' local clusters from the structural-entropy organizer to the candidates; 0: off");
const ANCHORS: ParamInfo = switch("anchors", "1: output names and their values link evidence across events as concepts; 0: off");
const SPANS: ParamInfo = switch("spans", "1: head the current requirement's block with its exact instruction spans; 0: its id only");
const INHERIT: ParamInfo = switch("inherit", "1: a call without a declaration inherits its turn's unambiguous requirement; 0: it stays unassigned");

static INFO: StrategyInfo = StrategyInfo {
    name: "acg",
    description: "Adaptive Consistency Graph: requirement-anchored evidence units, BM25 retrieval with one-hop, concept and cluster expansion, a capped view + the latest exchange",
    params: &[BUDGET, CLUSTERS, ANCHORS, SPANS, INHERIT],
};

impl ContextStrategy for Acg {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(AcgGraph::with_options(spec, AcgOptions::of(strategy)))
    }
}

impl StrategyRun for AcgGraph {
    fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        AcgGraph::observe_turn(self, event);
    }

    fn observe_call(&mut self, event: &CallEvent<'_>) {
        AcgGraph::observe_call(self, event);
    }

    fn observe_repair(&mut self, turn: usize, message_index: usize, text: &str) {
        AcgGraph::observe_repair(self, turn, message_index, text);
    }

    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        Plan::Send(self.messages(self.cap(input), input))
    }

    fn to_json(&self) -> Option<Value> {
        Some(AcgGraph::to_json(self))
    }
}

/// Unique seeds retrieved per request.
pub const SEED_COUNT: usize = 8;
/// Historical candidates kept per requirement.
pub const CANDIDATES_PER_REQUIREMENT: usize = 8;
/// Longest excerpt of a turn's text, a call or an observation in the view, in characters (answers are whole).
pub const EXCERPT_CHARS: usize = 600;
/// Units a concept named by the current requirement or the latest event adds to the candidates (answers first,
/// then the newest).
pub const CONCEPT_FANOUT: usize = 4;
/// Units a concept named by a seed adds to the candidates.
pub const SEED_CONCEPT_FANOUT: usize = 1;
/// Units the seeds' local clusters add to the candidates, at most.
pub const CLUSTER_CANDIDATES: usize = 8;

/// The mechanisms of `acg`, each switchable for ablation (`acg:clusters=0`, …); the default is the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcgOptions {
    /// Token cap of the rendered view (B.1: 5,000).
    pub budget_tokens: u64,
    /// Add the seeds' local clusters from the structural-entropy organizer to the candidates (eq. 3.3, B.2).
    pub clusters: bool,
    /// Link units to output names and values as concepts and expand over them (3.2).
    pub anchors: bool,
    /// Head the current requirement's block with its exact instruction spans (3.4).
    pub spans: bool,
    /// Let an undeclared call inherit the anchor of an unambiguous parent action (3.4).
    pub inherit: bool,
}

impl AcgOptions {
    /// The options `strategy` (an `acg` choice) stands for.
    pub fn of(strategy: &Strategy) -> AcgOptions {
        AcgOptions {
            budget_tokens: strategy.get(&BUDGET),
            clusters: strategy.get(&CLUSTERS) != 0,
            anchors: strategy.get(&ANCHORS) != 0,
            spans: strategy.get(&SPANS) != 0,
            inherit: strategy.get(&INHERIT) != 0,
        }
    }
}

impl Default for AcgOptions {
    fn default() -> AcgOptions {
        AcgOptions { budget_tokens: super::DEFAULT_ACG_BUDGET, clusters: true, anchors: true, spans: true, inherit: true }
    }
}

/// What a unit records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// The text of an assistant turn.
    Turn,
    /// A tool call (name and arguments).
    Call,
    /// A tool result.
    Observation,
    /// A labelled box that answer collection accepted.
    Answer,
    /// A repair message of the harness.
    Repair,
}

impl UnitKind {
    /// The spelling in the exported record.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Turn => "turn",
            UnitKind::Call => "call",
            UnitKind::Observation => "observation",
            UnitKind::Answer => "answer",
            UnitKind::Repair => "repair",
        }
    }
}

/// One evidence unit.
#[derive(Clone, Debug, PartialEq)]
pub struct EvidenceUnit {
    /// Its id (position in the record).
    pub id: usize,
    /// What it records.
    pub kind: UnitKind,
    /// The turn it came from.
    pub turn: usize,
    /// The transcript message it came from (its source event).
    pub message_index: usize,
    /// The unit it derives from: a call for an observation, the turn for a call, an answer or a repair.
    pub parent: Option<usize>,
    /// Requirement ids it serves (structured declarations, box labels, or inherited from its parent action).
    pub anchors: Vec<String>,
    /// True when `anchors` came from the parent action rather than the unit's own declaration.
    pub inherited: bool,
    /// Declared ids that did not resolve.
    pub rejected: Vec<String>,
    /// Its text.
    pub text: String,
}

/// The `acg` record: requirements, units, links, and a lexical index over the units.
#[derive(Clone, Debug, PartialEq)]
pub struct AcgGraph {
    /// One per expected output, in expected order.
    pub requirements: Vec<Requirement>,
    /// Every unit, in the order observed.
    pub units: Vec<EvidenceUnit>,
    /// Undirected links between units.
    pub edges: Vec<(usize, usize)>,
    /// Links between concepts (output names) and units, each with its source (`anchors` only).
    pub concepts: Vec<ConceptLink>,
    /// Values the concepts were answered with: (concept, value).
    pub values: Vec<(String, String)>,
    /// The mechanisms in use.
    pub options: AcgOptions,
    /// Each unit's nearest unit by BM25 and the score (`clusters` only).
    nearest: Vec<Option<(usize, f64)>>,
    /// Each unit's distinct terms as a query.
    terms: Vec<Vec<String>>,
    /// Turn units whose text names exactly one open requirement, with that requirement (`inherit` only).
    action_anchors: Vec<(usize, String)>,
    index: Bm25,
}

impl AcgGraph {
    /// An empty record over the sample's requirements, with the paper's mechanisms.
    pub fn new(spec: &SampleSpec) -> AcgGraph {
        AcgGraph::with_options(spec, AcgOptions::default())
    }

    /// An empty record over the sample's requirements, with `options`.
    pub fn with_options(spec: &SampleSpec, options: AcgOptions) -> AcgGraph {
        AcgGraph {
            requirements: requirements_of(&spec.prompt, &spec.expected),
            units: Vec::new(),
            edges: Vec::new(),
            concepts: Vec::new(),
            values: Vec::new(),
            options,
            nearest: Vec::new(),
            terms: Vec::new(),
            action_anchors: Vec::new(),
            index: Bm25::new(),
        }
    }

    fn ids(&self) -> Vec<String> {
        self.requirements.iter().map(|r| r.id.clone()).collect()
    }

    /// Adds a unit (its `id` is assigned here), indexes it, links it to its parent, to the concepts it names or
    /// carries, and updates the nearest-neighbour table.
    fn add(&mut self, mut unit: EvidenceUnit) -> usize {
        let id = self.units.len();
        let indexed = self.index.add(&unit.text);
        debug_assert_eq!(indexed, id);
        if let Some(p) = unit.parent {
            self.edges.push((p, id));
        }
        unit.id = id;
        if self.options.anchors {
            for concept in names_in(&unit.text, &self.ids()) {
                self.concepts.push(ConceptLink { concept, unit: id, message_index: unit.message_index, kind: LinkKind::Name });
            }
            for (concept, value) in &self.values {
                if carries(&unit.text, value) {
                    self.concepts.push(ConceptLink { concept: concept.clone(), unit: id, message_index: unit.message_index, kind: LinkKind::Value });
                }
            }
        }
        self.terms.push(query_terms(&unit.text));
        self.units.push(unit);
        self.nearest.push(None);
        if self.options.clusters {
            self.update_nearest(id);
        }
        id
    }

    /// The new unit's nearest earlier unit, and the earlier units the new one is now nearest to. A score is
    /// taken when the later unit of the pair arrives.
    fn update_nearest(&mut self, id: usize) {
        let avg = self.index.average_length();
        let mut best: Option<(usize, f64)> = None;
        for other in 0..id {
            let s = self.index.score_terms(other, &self.terms[id], avg);
            if s > 0.0 && best.is_none_or(|(_, b)| s > b) {
                best = Some((other, s));
            }
            let back = self.index.score_terms(id, &self.terms[other], avg);
            if back > 0.0 && self.nearest[other].is_none_or(|(_, b)| back > b) {
                self.nearest[other] = Some((id, back));
            }
        }
        self.nearest[id] = best;
    }

    /// Records that concept `name` was answered with `value` and links every unit that carries it.
    fn learn_value(&mut self, name: &str, value: &str) {
        if !self.options.anchors || value.trim().chars().count() < MIN_VALUE_CHARS || self.values.iter().any(|(c, v)| c == name && v == value) {
            return;
        }
        self.values.push((name.to_string(), value.to_string()));
        for unit in &self.units {
            if carries(&unit.text, value) && !self.concepts.iter().any(|l| l.unit == unit.id && l.concept == name) {
                self.concepts.push(ConceptLink { concept: name.to_string(), unit: unit.id, message_index: unit.message_index, kind: LinkKind::Value });
            }
        }
    }

    fn unit(kind: UnitKind, turn: usize, message_index: usize, parent: Option<usize>, text: String) -> EvidenceUnit {
        EvidenceUnit { id: 0, kind, turn, message_index, parent, anchors: Vec::new(), inherited: false, rejected: Vec::new(), text }
    }

    fn turn_unit(&self, message_index: usize) -> Option<usize> {
        self.units.iter().rev().find(|u| u.kind == UnitKind::Turn && u.message_index == message_index).map(|u| u.id)
    }

    /// Records an assistant turn and the answers it set (each anchored to its label).
    pub fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        let turn = self.add(Self::unit(UnitKind::Turn, event.turn, event.message_index, None, event.content.to_string()));
        if self.options.inherit {
            let open: Vec<String> = names_in(event.content, &self.ids()).into_iter().filter(|n| event.answers.get(n).is_none()).collect();
            if let [only] = open.as_slice() {
                self.action_anchors.push((turn, only.clone()));
            }
        }
        for name in event.updated {
            if let Some(answer) = event.answers.get(name) {
                let text = format!("{name} = {}", answer.answer);
                self.add(EvidenceUnit { anchors: vec![name.clone()], ..Self::unit(UnitKind::Answer, event.turn, event.message_index, Some(turn), text) });
                self.learn_value(name, &answer.answer);
            }
        }
    }

    /// Records a tool call and its observation; the observation inherits the call's anchors. A call that
    /// declares nothing inherits the anchor of its turn when the turn names exactly one open requirement; a call
    /// whose declarations were all rejected stays unassigned.
    pub fn observe_call(&mut self, event: &CallEvent<'_>) {
        let parent = self.turn_unit(event.assistant_index);
        let text = format!("{} {}", event.name, event.arguments);
        let (anchors, inherited) = match (event.anchors.is_empty() && event.rejected.is_empty(), parent) {
            (true, Some(turn)) if self.options.inherit => match self.action_anchors.iter().find(|(t, _)| *t == turn) {
                Some((_, id)) => (vec![id.clone()], true),
                None => (Vec::new(), false),
            },
            _ => (event.anchors.to_vec(), false),
        };
        let call = self.add(EvidenceUnit {
            anchors: anchors.clone(),
            inherited,
            rejected: event.rejected.to_vec(),
            ..Self::unit(UnitKind::Call, event.turn, event.assistant_index, parent, text)
        });
        let observation = Self::unit(UnitKind::Observation, event.turn, event.result_index, Some(call), event.result.to_string());
        self.add(EvidenceUnit { anchors, inherited, ..observation });
    }

    /// Records a repair message (unassigned, linked to the turn it answers).
    pub fn observe_repair(&mut self, turn: usize, message_index: usize, text: &str) {
        let parent = message_index.checked_sub(1).and_then(|i| self.turn_unit(i));
        self.add(Self::unit(UnitKind::Repair, turn, message_index, parent, text.to_string()));
    }

    fn neighbours(&self, id: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges.iter().filter_map(move |&(a, b)| if a == id { Some(b) } else if b == id { Some(a) } else { None })
    }

    /// Seeds for the two queries over `historical` units: round-robin over the two ranked lists to `SEED_COUNT`
    /// unique units with a positive score.
    pub fn seeds(&self, task_query: &str, event_query: &str, historical: &[usize]) -> Vec<usize> {
        let by_task = self.index.rank(task_query, historical.iter().copied());
        let by_event = self.index.rank(event_query, historical.iter().copied());
        let mut seeds = Vec::new();
        let (mut a, mut b) = (by_task.iter(), by_event.iter());
        loop {
            let mut progressed = false;
            for list in [&mut a, &mut b] {
                if seeds.len() >= SEED_COUNT {
                    return seeds;
                }
                for (id, _) in list.by_ref() {
                    if !seeds.contains(id) {
                        seeds.push(*id);
                        progressed = true;
                        break;
                    }
                }
            }
            if !progressed {
                return seeds;
            }
        }
    }

    /// The view over the transcript up to `current_start` (the latest exchange begins there).
    pub fn render(&self, budget_tokens: u64, input: &ContextInput<'_>, current_start: usize) -> String {
        let current_req = self.requirements.iter().position(|r| input.answers.get(&r.id).is_none()).unwrap_or(self.requirements.len().saturating_sub(1));
        let historical: Vec<usize> = self.units.iter().filter(|u| u.message_index < current_start).map(|u| u.id).collect();
        let current: Vec<usize> = self.units.iter().filter(|u| u.message_index >= current_start).map(|u| u.id).collect();
        let task_query = self.requirements.get(current_req).map(|r| r.text.as_str()).unwrap_or("");
        let event_query: String = input.messages[current_start.min(input.messages.len())..]
            .iter()
            .flat_map(|m| std::iter::once(m.content.clone()).chain(m.tool_calls.iter().map(|c| c.arguments.clone())))
            .collect::<Vec<_>>()
            .join("\n");
        let seeds = self.seeds(task_query, &event_query, &historical);
        // The pool (eq. 3.3): seeds in retrieval order, their one-hop neighbours, the units of the concepts the
        // task, the latest event and the seeds name, and the seeds' local clusters (historical units only).
        let is_historical = |id: usize| self.units[id].message_index < current_start;
        let mut pool: Vec<usize> = seeds.clone();
        let push = |pool: &mut Vec<usize>, id: usize| {
            if !pool.contains(&id) && is_historical(id) {
                pool.push(id);
            }
        };
        for seed in &seeds {
            for n in self.neighbours(*seed) {
                push(&mut pool, n);
            }
        }
        if self.options.anchors {
            for (concepts, fanout) in [(self.concepts_named(&[task_query, event_query.as_str()]), CONCEPT_FANOUT), (self.concepts_of(&seeds), SEED_CONCEPT_FANOUT)] {
                for concept in concepts {
                    for id in self.concept_units(&concept, current_start).into_iter().take(fanout) {
                        push(&mut pool, id);
                    }
                }
            }
        }
        if self.options.clusters {
            for id in self.local_cluster(&seeds, current_start).into_iter().take(CLUSTER_CANDIDATES) {
                push(&mut pool, id);
            }
        }
        // One block per requirement with candidates or anchored current evidence (eq. 3.4: the top candidates by
        // BM25 against the requirement's spans).
        let avg = self.index.average_length();
        let mut blocks: Vec<(usize, String, Vec<usize>)> = Vec::new();
        for (r_index, requirement) in self.requirements.iter().enumerate() {
            let terms = query_terms(&requirement.text);
            let mut qualified: Vec<(usize, usize)> = pool.iter().copied().enumerate().filter(|(_, id)| self.units[*id].anchors.contains(&requirement.id)).collect();
            let best = qualified.first().map(|(at, _)| *at).unwrap_or(usize::MAX);
            let score = |id: usize| self.index.score_terms(id, &terms, avg);
            sort::by(&mut qualified, |(pa, a), (pb, b)| score(*b).total_cmp(&score(*a)).then(pa.cmp(pb)));
            let mut ids: Vec<usize> = qualified.into_iter().map(|(_, id)| id).take(CANDIDATES_PER_REQUIREMENT).collect();
            ids.extend(current.iter().copied().filter(|id| self.units[*id].anchors.contains(&requirement.id)));
            if ids.is_empty() {
                continue;
            }
            sort::natural(&mut ids);
            ids.dedup();
            let status = if input.answers.get(&requirement.id).is_some() { "answered" } else { "open" };
            let rank = if r_index == current_req { 0 } else { best.saturating_add(1) };
            let title = if self.options.spans && r_index == current_req {
                let quoted: Vec<String> = requirement.text.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("> {l}")).collect();
                format!("[{}] ({status}), requested as:\n{}", requirement.id, quoted.join("\n"))
            } else {
                format!("[{}] ({status})", requirement.id)
            };
            blocks.push((rank, title, ids));
        }
        // Unassigned units are not shown (eq. 3.4: the view holds only (requirement, unit, occurrence) triples whose
        // attribution resolves); they still seed retrieval and lead to qualified units through links.
        sort::by_key(&mut blocks, |(rank, _, _)| *rank);
        let mut view = String::from(ACG_VIEW_HEADER);
        view.push('\n');
        let mut used = input.estimator.text(&view);
        for (_, title, ids) in blocks {
            let mut block = format!("{title}\n");
            for id in ids {
                block.push_str(&self.line(&self.units[id], current_start));
            }
            let cost = input.estimator.text(&block);
            if used + cost <= budget_tokens {
                used += cost;
                view.push_str(&block);
            }
        }
        view
    }

    /// Expected names mentioned by any of `texts`, in requirement order.
    fn concepts_named(&self, texts: &[&str]) -> Vec<String> {
        let ids = self.ids();
        let mut out: Vec<String> = Vec::new();
        for text in texts {
            for name in names_in(text, &ids) {
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }

    /// Concepts the `units` are linked to, in first-seen order.
    fn concepts_of(&self, units: &[usize]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for id in units {
            for link in self.concepts.iter().filter(|l| l.unit == *id) {
                if !out.contains(&link.concept) {
                    out.push(link.concept.clone());
                }
            }
        }
        out
    }

    /// Historical units linked to `concept`: answers first, then the newest.
    fn concept_units(&self, concept: &str, current_start: usize) -> Vec<usize> {
        let mut ids: Vec<usize> = self.concepts.iter().filter(|l| l.concept == concept && l.message_index < current_start).map(|l| l.unit).collect();
        sort::natural(&mut ids);
        ids.dedup();
        sort::by_key(&mut ids, |id| (self.units[*id].kind != UnitKind::Answer, std::cmp::Reverse(*id)));
        ids
    }

    /// The source event a unit belongs to: its message, or for an observation its call's message.
    fn source(&self, id: usize) -> usize {
        let unit = &self.units[id];
        match (unit.kind, unit.parent) {
            (UnitKind::Observation, Some(call)) => self.units[call].message_index,
            _ => unit.message_index,
        }
    }

    /// `LocalCluster(S_t)`: the historical units that the structural-entropy organizer puts in a cluster with a
    /// seed, organising the seeds' components (breadth-first, at most `ORGANIZER_LIMIT` units) of the weighted
    /// graph of mutual nearest neighbours and shared sources. Seeds first, then by id.
    pub fn local_cluster(&self, seeds: &[usize], current_start: usize) -> Vec<usize> {
        let historical = |id: usize| self.units[id].message_index < current_start;
        // Adjacency of the organizer's graph, restricted to historical units.
        let mutual = |a: usize| self.nearest[a].map(|(b, _)| b).filter(|b| self.nearest[*b].map(|(c, _)| c) == Some(a));
        let by_source = |id: usize| -> Vec<usize> {
            let s = self.source(id);
            self.units.iter().filter(|u| u.id != id && historical(u.id) && self.source(u.id) == s).map(|u| u.id).collect()
        };
        let mut members: Vec<usize> = Vec::new();
        let mut queue: std::collections::VecDeque<usize> = seeds.iter().copied().filter(|s| historical(*s)).collect();
        while let Some(id) = queue.pop_front() {
            if members.contains(&id) || members.len() >= ORGANIZER_LIMIT {
                continue;
            }
            members.push(id);
            queue.extend(mutual(id).filter(|m| historical(*m)));
            queue.extend(by_source(id));
        }
        let position = |id: usize| members.iter().position(|m| *m == id);
        let mut graph = WeightedGraph::new(members.len());
        for (i, &id) in members.iter().enumerate() {
            if let Some(j) = mutual(id).and_then(position) {
                if i < j {
                    graph.add(i, j, 1.0);
                }
            }
        }
        let mut sources: Vec<usize> = members.iter().map(|id| self.source(*id)).collect();
        sort::natural(&mut sources);
        sources.dedup();
        for s in sources {
            let group: Vec<usize> = (0..members.len()).filter(|i| self.source(members[*i]) == s).collect();
            if group.len() > 1 {
                let w = 1.0 / (group.len() - 1) as f64;
                for (k, &a) in group.iter().enumerate() {
                    for &b in &group[k + 1..] {
                        graph.add(a, b, w);
                    }
                }
            }
        }
        let clusters = organize(&graph);
        let seed_clusters: Vec<usize> = seeds.iter().filter_map(|s| position(*s)).map(|i| clusters[i]).collect();
        let mut out: Vec<usize> = (0..members.len()).filter(|i| seed_clusters.contains(&clusters[*i])).map(|i| members[i]).filter(|id| !seeds.contains(id)).collect();
        sort::natural(&mut out);
        out
    }

    fn line(&self, unit: &EvidenceUnit, current_start: usize) -> String {
        let when = if unit.message_index >= current_start { "latest turn".to_string() } else { format!("turn {}", unit.turn) };
        let text = match unit.kind {
            UnitKind::Answer => unit.text.clone(),
            UnitKind::Turn => tail(&unit.text, EXCERPT_CHARS),
            _ => head(&unit.text, EXCERPT_CHARS),
        };
        let text = text.replace('\n', " ");
        match unit.kind {
            UnitKind::Turn => format!("- {when}, you wrote: {text}\n"),
            UnitKind::Call => format!("- {when}, you called {text}\n"),
            UnitKind::Observation => format!("- {when}, the tool returned: {text}\n"),
            UnitKind::Answer => format!("- {when}, you answered: {text}\n"),
            UnitKind::Repair => format!("- {when}, the harness asked: {text}\n"),
        }
    }

    /// The view's token cap for the next request: the configured cap, further reduced when less context is left
    /// (B.1): the room the model's context leaves for the prompt, less what the request carries besides the view
    /// (system prompt, task prompt and the latest exchange, measured with an empty view).
    pub fn cap(&self, input: &ContextInput<'_>) -> u64 {
        let Some(room) = input.room else { return self.options.budget_tokens };
        let without_view = input.estimator.request(&self.messages(0, input));
        self.options.budget_tokens.min(room.saturating_sub(without_view))
    }

    /// The messages of the next request: prompt + view, then the latest exchange in full.
    pub fn messages(&self, budget_tokens: u64, input: &ContextInput<'_>) -> Vec<Message> {
        let Some(last_assistant) = input.messages.iter().rposition(|m| m.role == Role::Assistant) else {
            return input.messages.to_vec();
        };
        let view = self.render(budget_tokens, input, last_assistant);
        let mut out = head_with_view(input.messages, &view);
        out.extend(input.messages[last_assistant..].iter().cloned());
        out
    }

    /// The record as JSON (exported under `strategy_record`).
    pub fn to_json(&self) -> Value {
        json!({
            "requirements": self.requirements.iter().map(|r| json!({"id": r.id, "spans": r.spans.iter().map(|s| [s.start, s.end]).collect::<Vec<_>>()})).collect::<Vec<_>>(),
            "units": self.units.iter().map(|u| json!({
                "id": u.id, "kind": u.kind.as_str(), "turn": u.turn, "message_index": u.message_index, "parent": u.parent,
                "anchors": u.anchors, "inherited": u.inherited, "rejected": u.rejected, "text": u.text
            })).collect::<Vec<_>>(),
            "edges": self.edges.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>(),
            "concepts": self.concepts.iter().map(|l| json!({"concept": l.concept, "unit": l.unit, "message_index": l.message_index, "kind": l.kind.as_str()})).collect::<Vec<_>>(),
            "options": {"budget_tokens": self.options.budget_tokens, "clusters": self.options.clusters, "anchors": self.options.anchors, "spans": self.options.spans, "inherit": self.options.inherit}
        })
    }
}

fn head(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    format!("{}…", text.chars().take(n).collect::<String>())
}

fn tail(text: &str, n: usize) -> String {
    let count = text.chars().count();
    if count <= n {
        return text.to_string();
    }
    format!("…{}", text.chars().skip(count - n).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::super::{testing, TokenEstimator};
    use super::*;
    use crate::engine::grade::collect::{Answers, CollectedAnswer};

    const PROMPT: &str = "Solve all tasks.\n\nTask 1:\nCompute task_1_out from 5.\n\nTask 2:\nLet x be task_1_out. Call it task_2_out.\n\nTask 3:\nLet y be task_2_out. Call it task_3_out.\n";

    /// A run where turn t works on task t+1: a declared call, its result, then the box.
    fn run(tasks: usize, filler: usize) -> (AcgGraph, Vec<Message>, Answers, SampleSpec) {
        let spec = testing::spec(PROMPT);
        let mut graph = AcgGraph::new(&spec);
        let mut messages = testing::start(PROMPT);
        let mut answers = Answers::new();
        for t in 0..tasks {
            let name = format!("task_{}_out", t + 1);
            let content = format!("\\boxed{{{name} = {}}} {}", 10 + t, "words ".repeat(filler));
            let index = messages.len();
            let updated = answers.collect(&content, t, &spec.expected);
            graph.observe_turn(&TurnEvent { turn: t, message_index: index, content: &content, updated: &updated, answers: &answers });
            testing::exchange(&mut messages, t, &content, &["42"]);
            let anchors = vec![name.clone()];
            graph.observe_call(&CallEvent {
                turn: t,
                assistant_index: index,
                result_index: index + 1,
                name: "calculator",
                arguments: &messages[index].tool_calls[0].arguments.clone(),
                result: "42",
                anchors: &anchors,
                rejected: &[],
                content: &content,
                answers: &answers,
            });
        }
        (graph, messages, answers, spec)
    }

    #[test]
    fn units_link_to_their_events_and_observations_inherit_anchors() {
        let (graph, _, _, _) = run(2, 0);
        let kinds: Vec<&str> = graph.units.iter().map(|u| u.kind.as_str()).collect();
        assert_eq!(kinds, vec!["turn", "answer", "call", "observation", "turn", "answer", "call", "observation"]);
        assert_eq!(graph.units[3].anchors, vec!["task_1_out".to_string()]);
        assert_eq!(graph.units[3].parent, Some(2));
        assert_eq!(graph.units[2].parent, Some(0));
        assert_eq!(graph.units[3].message_index, 3);
        assert!(graph.edges.contains(&(2, 3)) && graph.edges.contains(&(0, 1)));
        assert!(graph.units[0].anchors.is_empty(), "turn text is never anchored by similarity");
        let json = graph.to_json();
        assert_eq!(json["units"].as_array().map(Vec::len), Some(8));
        assert_eq!(json["requirements"][1]["id"], "task_2_out");
    }

    #[test]
    fn the_next_tasks_inputs_are_retrieved_through_its_instruction_span() {
        let (graph, messages, answers, spec) = run(2, 0);
        let input = testing::input(&messages, &spec, &answers);
        let sent = graph.messages(5_000, &input);
        let view = &sent[1].content;
        assert!(view.contains(ACG_VIEW_HEADER));
        // Turn 1 (task 2's box) is the latest exchange, sent whole; its anchored evidence is also the current
        // event's block, and task 1's evidence is retrieved from history.
        assert!(view.contains("[task_2_out] (answered)"), "{view}");
        assert!(view.contains("you answered: task_1_out = 10"), "{view}");
        assert_eq!(sent[2..], messages[4..], "the latest exchange follows whole");
        testing::assert_well_formed(&sent, &messages);
    }

    #[test]
    fn blocks_are_added_whole_and_the_cap_is_never_exceeded() {
        let (graph, messages, answers, spec) = run(3, 300);
        let input = testing::input(&messages, &spec, &answers);
        for budget in [100, 400, 800, 5_000] {
            let view = graph.render(budget, &input, 8);
            assert!(TokenEstimator::default().text(&view) <= budget.max(TokenEstimator::default().text(ACG_VIEW_HEADER) + 1), "{budget}: {view}");
            for block in view.split("\n[").skip(1) {
                let lines = block.lines().count();
                assert!(lines >= 2, "a block is never empty or cut: {block}");
            }
        }
        let tiny = graph.render(60, &input, 8);
        let large = graph.render(5_000, &input, 8);
        assert!(tiny.len() < large.len(), "a cap below one block leaves the header only: {tiny}");
    }

    #[test]
    fn the_cap_shrinks_to_the_room_the_context_leaves_and_the_request_then_fits() {
        let (graph, messages, answers, spec) = run(6, 300);
        let open = testing::input(&messages, &spec, &answers);
        assert_eq!(graph.cap(&open), graph.options.budget_tokens, "no context length known: the configured cap");
        let full_request = TokenEstimator::default().request(&graph.messages(graph.cap(&open), &open));
        let without_view = TokenEstimator::default().request(&graph.messages(0, &open));
        let view = full_request - without_view;
        assert!(view > 60, "a view worth cutting: {full_request} vs {without_view}");
        // A context that leaves room for only half of the view.
        let room = without_view + view / 2;
        let tight = ContextInput { room: Some(room), ..open };
        let cap = graph.cap(&tight);
        assert_eq!(cap, view / 2);
        let sent = TokenEstimator::default().request(&graph.messages(cap, &tight));
        assert!(sent <= room, "the request fits the room: {sent} > {room}");
        assert!(sent < full_request);
        // A roomy context changes nothing; one with no room left leaves the header only.
        assert_eq!(graph.cap(&ContextInput { room: Some(10_000_000), ..open }), graph.options.budget_tokens);
        assert_eq!(graph.cap(&ContextInput { room: Some(without_view / 2), ..open }), 0);
    }

    #[test]
    fn seeds_alternate_between_the_two_lists_up_to_eight_unique_units() {
        let spec = testing::spec(PROMPT);
        let mut graph = AcgGraph::new(&spec);
        let answers = Answers::new();
        for t in 0..20 {
            let text = if t % 2 == 0 { format!("alpha {t}") } else { format!("beta {t}") };
            graph.observe_turn(&TurnEvent { turn: t, message_index: 2 + t, content: &text, updated: &[], answers: &answers });
        }
        let all: Vec<usize> = (0..20).collect();
        let seeds = graph.seeds("alpha", "beta", &all);
        assert_eq!(seeds.len(), SEED_COUNT);
        let alphas = seeds.iter().filter(|id| graph.units[**id].text.starts_with("alpha")).count();
        assert_eq!(alphas, 4, "round-robin takes from both lists: {seeds:?}");
        assert!(graph.seeds("gamma", "delta", &all).is_empty(), "no positive score, no seed");
        assert_eq!(graph.seeds("alpha", "alpha", &all).len(), SEED_COUNT, "duplicates are skipped, not counted");
    }

    #[test]
    fn unassigned_units_stay_unassigned_and_answered_requirements_say_so() {
        let (mut graph, messages, mut answers, spec) = run(1, 0);
        graph.observe_call(&CallEvent {
            turn: 0,
            assistant_index: 2,
            result_index: 3,
            name: "calculator",
            arguments: "{\"expressions\": [\"task_1_out + 1\"], \"requirements\": [\"task_9_out\"]}",
            result: "11",
            anchors: &[],
            rejected: &["task_9_out".to_string()],
            content: "",
            answers: &answers,
        });
        assert!(graph.units.last().is_some_and(|u| u.anchors.is_empty()));
        assert_eq!(graph.units[graph.units.len() - 2].rejected, vec!["task_9_out".to_string()]);
        answers.set("task_1_out", CollectedAnswer { answer: "10".into(), turn: 0 });
        let view = graph.render(5_000, &testing::input(&messages, &spec, &answers), messages.len());
        assert!(view.contains("[task_1_out] (answered)"), "{view}");
    }

    #[test]
    fn concepts_link_names_across_events_and_can_be_switched_off() {
        let (graph, _, _, spec) = run(3, 0);
        let answer = graph.units.iter().find(|u| u.kind == UnitKind::Answer && u.text.starts_with("task_1_out")).map(|u| u.id);
        assert!(graph.concepts.iter().any(|l| l.concept == "task_1_out" && Some(l.unit) == answer && l.kind == LinkKind::Name));
        assert!(graph.concepts.iter().all(|l| l.message_index == graph.units[l.unit].message_index), "each link records its source");
        let off = AcgGraph::with_options(&spec, AcgOptions { anchors: false, ..AcgOptions::default() });
        assert!(off.concepts.is_empty());
    }

    #[test]
    fn local_clusters_are_deterministic_and_historical() {
        let (graph, messages, _, _) = run(3, 50);
        let seeds = vec![0];
        let cluster = graph.local_cluster(&seeds, messages.len());
        assert_eq!(cluster, graph.local_cluster(&seeds, messages.len()), "same record, same cluster");
        assert!(!cluster.contains(&0), "seeds are not repeated");
        assert!(graph.local_cluster(&seeds, 0).is_empty(), "nothing is historical before the first message");
    }
}
