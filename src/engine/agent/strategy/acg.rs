//! `acg`: the Adaptive Consistency Graph (after "Adaptive Consistency Graph for Long-Horizon Agents",
//! sections 3.2–3.5 and appendix B.1, as summarised in the project's issue 14; see docs/CONTEXT_STRATEGIES.md
//! for what is exact and what is approximated).
//!
//! The record is a graph of evidence units, each linked to its source event (the turn's assistant message, the
//! tool call that produced an observation) and to the units of the same event. Requirements are exact
//! instruction spans of the prompt, one per expected output. Units are anchored to requirements only by
//! structured origin declarations: a calculator call lists the requirement ids it serves (ids that do not
//! resolve are rejected and the unit stays unassigned), an observation inherits its call's anchors, and a
//! labelled box is anchored to its label. Nothing is anchored by similarity.
//!
//! Each request: seeds are retrieved by two ranked lists over the historical units, one for the current task
//! (the next open requirement's spans) and one for the latest event, scored lexically (BM25), merged round-robin
//! to 8 unique seeds and expanded one hop over the unit graph; per requirement, the top 8 historical candidates
//! plus the current event's anchored evidence form a block; blocks are rendered in order under the token cap,
//! a block added only if the whole view still fits. The request is the prompt followed by the view, then the
//! latest exchange in full (so every tool call keeps its result).

use super::bm25::Bm25;
use super::requirements::{requirements_of, Requirement};
use super::{head_with_view, CallEvent, ContextInput, TurnEvent};
use crate::engine::agent::prompts::ACG_VIEW_HEADER;
use crate::engine::agent::{Message, Role};
use crate::engine::grade::SampleSpec;
use serde_json::{json, Value};

/// Unique seeds retrieved per request.
pub const SEED_COUNT: usize = 8;
/// Historical candidates kept per requirement.
pub const CANDIDATES_PER_REQUIREMENT: usize = 8;
/// Longest excerpt of a turn's text, a call or an observation in the view, in characters (answers are whole).
pub const EXCERPT_CHARS: usize = 600;

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
    /// Requirement ids it serves (structured declarations only).
    pub anchors: Vec<String>,
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
    index: Bm25,
}

impl AcgGraph {
    /// An empty record over the sample's requirements.
    pub fn new(spec: &SampleSpec) -> AcgGraph {
        AcgGraph { requirements: requirements_of(&spec.prompt, &spec.expected), units: Vec::new(), edges: Vec::new(), index: Bm25::new() }
    }

    /// Adds a unit (its `id` is assigned here), indexes it and links it to its parent.
    fn add(&mut self, mut unit: EvidenceUnit) -> usize {
        let id = self.units.len();
        let indexed = self.index.add(&unit.text);
        debug_assert_eq!(indexed, id);
        if let Some(p) = unit.parent {
            self.edges.push((p, id));
        }
        unit.id = id;
        self.units.push(unit);
        id
    }

    fn unit(kind: UnitKind, turn: usize, message_index: usize, parent: Option<usize>, text: String) -> EvidenceUnit {
        EvidenceUnit { id: 0, kind, turn, message_index, parent, anchors: Vec::new(), rejected: Vec::new(), text }
    }

    fn turn_unit(&self, message_index: usize) -> Option<usize> {
        self.units.iter().rev().find(|u| u.kind == UnitKind::Turn && u.message_index == message_index).map(|u| u.id)
    }

    /// Records an assistant turn and the answers it set (each anchored to its label).
    pub fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        let turn = self.add(Self::unit(UnitKind::Turn, event.turn, event.message_index, None, event.content.to_string()));
        for name in event.updated {
            if let Some(answer) = event.answers.get(name) {
                let text = format!("{name} = {}", answer.answer);
                self.add(EvidenceUnit { anchors: vec![name.clone()], ..Self::unit(UnitKind::Answer, event.turn, event.message_index, Some(turn), text) });
            }
        }
    }

    /// Records a tool call and its observation; the observation inherits the call's anchors.
    pub fn observe_call(&mut self, event: &CallEvent<'_>) {
        let parent = self.turn_unit(event.assistant_index);
        let text = format!("{} {}", event.name, event.arguments);
        let call = self.add(EvidenceUnit {
            anchors: event.anchors.to_vec(),
            rejected: event.rejected.to_vec(),
            ..Self::unit(UnitKind::Call, event.turn, event.assistant_index, parent, text)
        });
        let observation = Self::unit(UnitKind::Observation, event.turn, event.result_index, Some(call), event.result.to_string());
        self.add(EvidenceUnit { anchors: event.anchors.to_vec(), ..observation });
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
        // The pool: seeds in retrieval order, then their one-hop neighbours (historical only).
        let mut pool: Vec<usize> = seeds.clone();
        for seed in &seeds {
            for n in self.neighbours(*seed) {
                if !pool.contains(&n) && historical.contains(&n) {
                    pool.push(n);
                }
            }
        }
        // One block per requirement with candidates or anchored current evidence; the unassigned last.
        let mut blocks: Vec<(usize, String, Vec<usize>)> = Vec::new();
        for (r_index, requirement) in self.requirements.iter().enumerate() {
            let mut ids: Vec<usize> =
                pool.iter().copied().filter(|id| self.units[*id].anchors.contains(&requirement.id)).take(CANDIDATES_PER_REQUIREMENT).collect();
            let best = ids.iter().filter_map(|id| pool.iter().position(|p| p == id)).min().unwrap_or(usize::MAX);
            ids.extend(current.iter().copied().filter(|id| self.units[*id].anchors.contains(&requirement.id)));
            if ids.is_empty() {
                continue;
            }
            ids.sort_unstable();
            ids.dedup();
            let status = if input.answers.get(&requirement.id).is_some() { "answered" } else { "open" };
            let rank = if r_index == current_req { 0 } else { best.saturating_add(1) };
            blocks.push((rank, format!("[{}] ({status})", requirement.id), ids));
        }
        let mut unassigned: Vec<usize> = pool.iter().copied().filter(|id| self.units[*id].anchors.is_empty()).take(CANDIDATES_PER_REQUIREMENT).collect();
        unassigned.sort_unstable();
        if !unassigned.is_empty() {
            blocks.push((usize::MAX, "[not assigned to a requested result]".to_string(), unassigned));
        }
        blocks.sort_by_key(|(rank, _, _)| *rank);
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
                "anchors": u.anchors, "rejected": u.rejected, "text": u.text
            })).collect::<Vec<_>>(),
            "edges": self.edges.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>()
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
        let small = graph.render(400, &input, 8);
        let large = graph.render(5_000, &input, 8);
        assert!(small.len() < large.len());
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
}
