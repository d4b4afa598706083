//! `acg-lite`: the first, simplified execution record (formerly `acg`): an append-only list of evidence units,
//! each attributed to the output it serves by a textual heuristic, sent as the original prompt, a view of the
//! record ordered by priority (current answers first) under a token budget, and the latest exchange in full.
//! Kept under its own name so results made with it stay comparable; the record is exported as `acg_record`.

use super::{head_with_view, message_tokens, CallEvent, ContextInput, ContextStrategy, ParamInfo, Plan, Strategy, StrategyInfo, StrategyRun, TurnEvent, DEFAULT_ACG_BUDGET};
use crate::engine::agent::prompts::ACG_HEADER;
use crate::engine::agent::{estimate_tokens, Message, Role};
use crate::engine::grade::collect::Answers;
use crate::engine::grade::SampleSpec;
use serde_json::{json, Value};

/// `acg-lite` in the list of strategies.
pub(super) static ACG_LITE: AcgLite = AcgLite;

/// The `acg-lite` strategy.
pub(super) struct AcgLite;

const BUDGET: ParamInfo =
    ParamInfo { key: "budget_tokens", default: DEFAULT_ACG_BUDGET, min: 100, max: 10_000_000, description: "token budget of view plus latest exchange" };

static INFO: StrategyInfo = StrategyInfo {
    name: "acg-lite",
    description: "prompt + a priority-ordered view of an append-only record (current answers first) + the latest exchange",
    params: &[BUDGET],
};

impl ContextStrategy for AcgLite {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(AcgLiteRun { budget_tokens: strategy.get(&BUDGET), record: AcgRecord::new(&spec.expected) })
    }
}

/// A sample under `acg-lite`: its budget and its record.
#[derive(Clone, Debug, PartialEq)]
pub struct AcgLiteRun {
    /// Token budget of view plus latest exchange.
    pub budget_tokens: u64,
    /// The execution record.
    pub record: AcgRecord,
}

impl StrategyRun for AcgLiteRun {
    fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        self.record.record_turn(event.turn, event.content, event.updated, event.answers);
    }

    fn observe_call(&mut self, event: &CallEvent<'_>) {
        self.record.record_call(event.turn, event.arguments, event.result, event.content, event.answers);
    }

    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        Plan::Send(messages(&self.record, self.budget_tokens, input))
    }

    fn to_json(&self) -> Option<Value> {
        Some(self.record.to_json())
    }

    /// Exported as before the registry, so files stay comparable.
    fn record_key(&self) -> &'static str {
        "acg_record"
    }
}

/// What an evidence unit records.
#[derive(Clone, Debug, PartialEq)]
pub enum Evidence {
    /// A calculator (or other tool) call and its result.
    ToolCall {
        /// The arguments as sent.
        arguments: String,
        /// The tool's result.
        result: String,
    },
    /// A collected answer.
    Answer {
        /// The collected value.
        value: String,
    },
    /// An assistant turn's text.
    Turn {
        /// The content (reasoning excluded).
        text: String,
    },
}

/// One unit of the execution record.
#[derive(Clone, Debug, PartialEq)]
pub struct EvidenceUnit {
    /// The turn it came from.
    pub turn: usize,
    /// The output name (requirement) it serves.
    pub requirement: String,
    /// What it records.
    pub evidence: Evidence,
}

/// The `acg` strategy's persistent record.
#[derive(Clone, Debug, PartialEq)]
pub struct AcgRecord {
    /// Requirements, in prompt order.
    pub requirements: Vec<String>,
    /// Every unit, in the order observed.
    pub units: Vec<EvidenceUnit>,
}

impl AcgRecord {
    /// An empty record over the expected outputs.
    pub fn new(requirements: &[String]) -> AcgRecord {
        AcgRecord { requirements: requirements.to_vec(), units: Vec::new() }
    }

    /// The requirement a piece of assistant text is working on: the last expected name (or `Task N`) it mentions,
    /// else the first one still open, else the last requirement.
    pub fn attribute(&self, text: &str, answers: &Answers) -> String {
        let mut best: Option<(usize, &String)> = None;
        for name in &self.requirements {
            let number = name.trim_start_matches("task_").trim_end_matches("_out");
            for needle in [name.clone(), format!("Task {number}")] {
                if let Some(at) = text.rfind(&needle) {
                    if best.is_none_or(|(b, _)| at > b) {
                        best = Some((at, name));
                    }
                }
            }
        }
        if let Some((_, name)) = best {
            return name.clone();
        }
        self.requirements
            .iter()
            .find(|r| answers.get(r).is_none())
            .or(self.requirements.last())
            .cloned()
            .unwrap_or_default()
    }

    /// Records an assistant turn and the answers it updated.
    pub fn record_turn(&mut self, turn: usize, content: &str, updated: &[String], answers: &Answers) {
        let requirement = self.attribute(content, answers);
        self.units.push(EvidenceUnit { turn, requirement, evidence: Evidence::Turn { text: content.to_string() } });
        for name in updated {
            if let Some(answer) = answers.get(name) {
                self.units.push(EvidenceUnit { turn, requirement: name.clone(), evidence: Evidence::Answer { value: answer.answer.clone() } });
            }
        }
    }

    /// Records one tool call and its result.
    pub fn record_call(&mut self, turn: usize, arguments: &str, result: &str, content: &str, answers: &Answers) {
        let requirement = self.attribute(content, answers);
        self.units.push(EvidenceUnit { turn, requirement, evidence: Evidence::ToolCall { arguments: arguments.to_string(), result: result.to_string() } });
    }

    /// The record as JSON (exported under `acg_record`).
    pub fn to_json(&self) -> Value {
        let units: Vec<Value> = self
            .units
            .iter()
            .map(|u| {
                let mut v = match &u.evidence {
                    Evidence::ToolCall { arguments, result } => json!({"kind": "tool_call", "arguments": arguments, "result": result}),
                    Evidence::Answer { value } => json!({"kind": "answer", "value": value}),
                    Evidence::Turn { text } => json!({"kind": "turn", "text": text}),
                };
                v["turn"] = json!(u.turn);
                v["requirement"] = json!(u.requirement);
                v
            })
            .collect();
        json!({"requirements": self.requirements, "units": units})
    }

    /// Renders the requirement-centred view: current answers first, then recent evidence of open requirements,
    /// then of answered ones, most recent first, until `budget` tokens; units from `skip_turn` are left out
    /// (that turn is sent in full).
    pub fn render(&self, answers: &Answers, budget: u64, skip_turn: Option<usize>) -> String {
        let mut out = String::from(ACG_HEADER);
        out.push_str("\nCurrent answers:\n");
        for name in &self.requirements {
            match answers.get(name) {
                Some(a) => out.push_str(&format!("- {name} = {} (turn {})\n", a.answer, a.turn)),
                None => out.push_str(&format!("- {name}: not answered yet\n")),
            }
        }
        let mut used = estimate_tokens(&out);
        let open: Vec<&String> = self.requirements.iter().filter(|r| answers.get(r).is_none()).collect();
        let answered: Vec<&String> = self.requirements.iter().filter(|r| answers.get(r).is_some()).collect();
        for (title, group) in [("Recent work on open outputs (newest first):", open), ("Earlier work on answered outputs (newest first):", answered)] {
            let mut lines = Vec::new();
            for unit in self.units.iter().rev() {
                if Some(unit.turn) == skip_turn || !group.contains(&&unit.requirement) {
                    continue;
                }
                let line = match &unit.evidence {
                    Evidence::ToolCall { arguments, result } => format!("- [{}] turn {}: calculator {} -> {}\n", unit.requirement, unit.turn, arguments, result),
                    Evidence::Turn { text } => {
                        let excerpt = tail_chars(text, 600);
                        if excerpt.trim().is_empty() {
                            continue;
                        }
                        format!("- [{}] turn {} you wrote: …{}\n", unit.requirement, unit.turn, excerpt.replace('\n', " "))
                    }
                    Evidence::Answer { .. } => continue,
                };
                let title_cost = if lines.is_empty() { estimate_tokens(title) + 1 } else { 0 };
                let cost = estimate_tokens(&line) + title_cost;
                if used + cost > budget {
                    break;
                }
                used += cost;
                lines.push(line);
            }
            if !lines.is_empty() {
                out.push_str(title);
                out.push('\n');
                lines.iter().for_each(|l| out.push_str(l));
            }
        }
        out
    }
}

fn tail_chars(text: &str, n: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(n)).collect()
}

/// The messages of the next request: prompt + view, then the latest exchange (the last assistant message and
/// everything after it) in full; before the first assistant turn, the transcript as it is.
pub fn messages(record: &AcgRecord, budget_tokens: u64, input: &ContextInput<'_>) -> Vec<Message> {
    let messages = input.messages;
    let Some(last_assistant) = messages.iter().rposition(|m| m.role == Role::Assistant) else {
        return messages.to_vec();
    };
    let tail = &messages[last_assistant..];
    let tail_tokens: u64 = tail.iter().map(message_tokens).sum();
    let last_turn = record.units.iter().map(|u| u.turn).max();
    let view = record.render(input.answers, budget_tokens.saturating_sub(tail_tokens), last_turn);
    let mut out = head_with_view(messages, &view);
    out.extend(tail.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::engine::grade::collect::CollectedAnswer;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn evidence_is_attributed_to_the_last_mentioned_requirement() {
        let record = AcgRecord::new(&names(&["task_1_out", "task_2_out"]));
        let answers = Answers::new();
        assert_eq!(record.attribute("Now Task 2 needs task_1_out... so for Task 2", &answers), "task_2_out");
        assert_eq!(record.attribute("no mention", &answers), "task_1_out");
    }

    #[test]
    fn the_view_lists_answers_first_and_respects_the_budget() {
        let mut record = AcgRecord::new(&names(&["task_1_out", "task_2_out"]));
        let mut answers = Answers::new();
        answers.set("task_1_out", CollectedAnswer { answer: "5".into(), turn: 0 });
        for turn in 0..100 {
            record.record_call(turn, "{\"expressions\": [\"1 + 1\"]}", "{\"results\": [\"2\"]}", "working on Task 2", &answers);
        }
        let view = record.render(&answers, 300, None);
        assert!(view.starts_with(ACG_HEADER));
        assert!(view.contains("- task_1_out = 5 (turn 0)"));
        assert!(view.contains("- task_2_out: not answered yet"));
        assert!(estimate_tokens(&view) <= 300, "{}", estimate_tokens(&view));
        // Newest evidence first.
        assert!(view.contains("turn 99:"));
        assert!(!view.contains("turn 0: calculator"));
        assert_eq!(record.units.len(), 100, "the record itself is never trimmed");
    }

    #[test]
    fn requests_carry_prompt_view_and_latest_exchange_only() {
        let mut record = AcgRecord::new(&names(&["task_1_out"]));
        let answers = Answers::new();
        record.record_call(0, "{}", "r0", "", &answers);
        record.record_call(1, "{}", "r1", "", &answers);
        let mut messages = testing::start("prompt");
        testing::exchange(&mut messages, 0, "assistant 0", &["r0"]);
        testing::exchange(&mut messages, 1, "assistant 1", &["r1"]);
        let spec = testing::spec("prompt");
        let out = super::messages(&record, 5000, &testing::input(&messages, &spec, &answers));
        assert_eq!(out.len(), 4);
        assert!(out[1].content.starts_with("prompt\n\n"));
        assert!(out[1].content.contains("r0"));
        assert_eq!(out[2].content, "assistant 1");
        testing::assert_well_formed(&out, &messages);
    }
}
