//! `summary`: LLM summarisation, the compaction of OpenHands' condensers, ACON and the agent CLIs'
//! auto-compact. While the conversation after the task prompt is estimated under a threshold, the request is the
//! whole conversation; once it would exceed the threshold, older history (everything but the latest exchanges,
//! and the previous summary) is sent to the same endpoint in an auxiliary call, and its reply replaces that
//! history in every later request. The threshold counts what can be summarised, not the fixed prompt, so one
//! setting behaves alike on a 200-token baseline prompt and a 10,000-token chain. The summary call and its
//! tokens are recorded apart from the agent's turns.

use super::{exchanges, head, message_tokens, AuxiliaryRequest, ContextInput, ContextStrategy, ParamInfo, Plan, Strategy, StrategyInfo, StrategyRun};
use crate::engine::agent::chat::RequestKind;
use crate::engine::agent::prompts::{summary_message, summary_request, EMPTY_SUMMARY, SUMMARY_SYSTEM_PROMPT};
use crate::engine::agent::{Message, Role};
use crate::engine::grade::SampleSpec;
use serde_json::{json, Value};

/// `summary` in the list of strategies.
pub(super) static SUMMARY: Summary = Summary;

/// The `summary` strategy.
pub(super) struct Summary;

/// The summary threshold (shared with `mask+summary`).
pub(super) const TRIGGER: ParamInfo = ParamInfo {
    key: "trigger_tokens",
    default: 8_000,
    min: 50,
    max: 100_000_000,
    description: "summarise when the history after the task prompt is estimated above this many tokens",
};
/// Latest exchanges never folded (shared with `mask+summary`).
pub(super) const KEEP_EXCHANGES: ParamInfo =
    ParamInfo { key: "keep_exchanges", default: 4, min: 1, max: 1_000_000, description: "latest exchanges never folded into the summary" };
/// Completion limit of the summary call (shared with `mask+summary`).
pub(super) const SUMMARY_TOKENS: ParamInfo =
    ParamInfo { key: "summary_tokens", default: 1_024, min: 32, max: 1_000_000, description: "completion limit of the summary call" };

static INFO: StrategyInfo = StrategyInfo {
    name: "summary",
    description: "LLM summarisation: older history condensed by an extra call to the same endpoint once it grows too large",
    params: &[TRIGGER, KEEP_EXCHANGES, SUMMARY_TOKENS],
};

impl ContextStrategy for Summary {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, _spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(Summarised { limits: Limits::of(strategy), state: SummaryState::default() })
    }
}

/// A sample under `summary`: its thresholds and its summaries.
#[derive(Clone, Debug, PartialEq)]
struct Summarised {
    /// The thresholds.
    limits: Limits,
    /// The summaries so far.
    state: SummaryState,
}

impl StrategyRun for Summarised {
    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        self.state.plan(input, input.messages.to_vec(), self.limits)
    }

    fn on_auxiliary_reply(&mut self, input: &ContextInput<'_>, content: &str) {
        self.state.accept(input.messages, self.limits.keep_exchanges, content);
    }

    fn to_json(&self) -> Option<Value> {
        Some(self.state.to_json())
    }
}

/// The summary strategies' thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// History after the task prompt estimated above this triggers a summary.
    pub trigger_tokens: u64,
    /// Latest exchanges never folded.
    pub keep_exchanges: u64,
    /// Completion limit of the summary call.
    pub summary_tokens: u64,
}

impl Limits {
    /// The thresholds `strategy` (`summary` or `mask+summary`) was given.
    pub fn of(strategy: &Strategy) -> Limits {
        Limits { trigger_tokens: strategy.get(&TRIGGER), keep_exchanges: strategy.get(&KEEP_EXCHANGES), summary_tokens: strategy.get(&SUMMARY_TOKENS) }
    }
}

/// The current summary and how much of the transcript it replaces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryState {
    /// The latest summary, once one was made.
    pub summary: Option<String>,
    /// Transcript messages `2..covered` are replaced by the summary.
    pub covered: usize,
    /// Every summary made, with the transcript length it covered.
    pub history: Vec<(usize, String)>,
}

impl SummaryState {
    /// The request over `base` (the transcript, or its masked copy: same length and order).
    pub fn compose(&self, base: &[Message]) -> Vec<Message> {
        match &self.summary {
            Some(summary) if self.covered > 2 => {
                let mut out = head(base);
                out.push(Message::new(Role::User, summary_message(summary)).with_purpose("summary"));
                out.extend(base[self.covered.min(base.len())..].iter().cloned());
                out
            }
            _ => base.to_vec(),
        }
    }

    /// The request, or a summary call first when its history (everything after the task prompt, the current
    /// summary included) would exceed the threshold and there is history to fold.
    pub fn plan(&self, input: &ContextInput<'_>, base: Vec<Message>, limits: Limits) -> Plan {
        let request = self.compose(&base);
        let history = input.estimator.scale(request.iter().skip(2).map(message_tokens).sum());
        if history <= limits.trigger_tokens {
            return Plan::Send(request);
        }
        let cut = fold_cut(&base, limits.keep_exchanges);
        let from = self.covered.max(2);
        if cut <= from {
            return Plan::Send(request);
        }
        let history = render_history(&base[from..cut]);
        let messages = vec![
            Message::new(Role::System, SUMMARY_SYSTEM_PROMPT),
            Message::new(Role::User, summary_request(&base[1].content, self.summary.as_deref(), &history)),
        ];
        Plan::Auxiliary(AuxiliaryRequest { kind: RequestKind::Summary, messages, max_tokens: u32::try_from(limits.summary_tokens).unwrap_or(u32::MAX) })
    }

    /// Takes the summary call's reply: it now stands for everything before the kept exchanges.
    pub fn accept(&mut self, base: &[Message], keep_exchanges: u64, content: &str) {
        let cut = fold_cut(base, keep_exchanges);
        if cut <= self.covered.max(2) {
            return;
        }
        let text = content.trim();
        let text = if text.is_empty() { EMPTY_SUMMARY.to_string() } else { text.to_string() };
        self.covered = cut;
        self.history.push((cut, text.clone()));
        self.summary = Some(text);
    }

    /// The record as JSON: the summaries in order, each with the transcript length it covered.
    pub fn to_json(&self) -> Value {
        json!({
            "covered": self.covered,
            "summaries": self.history.iter().map(|(covered, text)| json!({"covered": covered, "text": text})).collect::<Vec<_>>()
        })
    }
}

/// Where the kept exchanges begin: the start of the `keep`-th last exchange (2 when there are not more).
fn fold_cut(messages: &[Message], keep: u64) -> usize {
    let all = exchanges(messages);
    let keep = usize::try_from(keep).unwrap_or(usize::MAX).max(1);
    match all.len().checked_sub(keep) {
        Some(i) if i > 0 => all[i].start,
        _ => messages.len().min(2),
    }
}

/// Messages as plain text for the summariser: who wrote what, calls with their arguments, results.
pub fn render_history(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        let who = match (m.role, m.purpose.as_deref()) {
            (Role::Assistant, _) => "assistant",
            (Role::Tool, _) => "tool result",
            (Role::User, Some("summary")) => "earlier summary",
            (Role::User, _) => "harness",
            (Role::System, _) => "system",
        };
        if !m.content.trim().is_empty() {
            out.push_str(&format!("[{who}] {}\n", m.content.trim()));
        }
        for call in &m.tool_calls {
            out.push_str(&format!("[assistant calls {}] {}\n", call.name, call.arguments));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{testing, TokenEstimator};
    use super::*;
    use crate::engine::grade::collect::Answers;

    fn limits(trigger_tokens: u64) -> Limits {
        Limits { trigger_tokens, keep_exchanges: 2, summary_tokens: 100 }
    }

    fn long_transcript() -> Vec<Message> {
        let mut transcript = testing::start("the task");
        for turn in 0..6 {
            testing::exchange(&mut transcript, turn, &format!("turn {turn} \\boxed{{task_{}_out = {turn}}}", turn + 1), &[&"7".repeat(200)]);
        }
        transcript
    }

    #[test]
    fn under_the_threshold_the_whole_conversation_is_sent() {
        let transcript = long_transcript();
        let spec = testing::spec("the task");
        let answers = Answers::new();
        let state = SummaryState::default();
        assert_eq!(state.plan(&testing::input(&transcript, &spec, &answers), transcript.clone(), limits(100_000)), Plan::Send(transcript));
    }

    #[test]
    fn over_the_threshold_older_history_is_summarised_then_replaced() {
        let transcript = long_transcript();
        let spec = testing::spec("the task");
        let answers = Answers::new();
        let input = testing::input(&transcript, &spec, &answers);
        let mut state = SummaryState::default();
        let Plan::Auxiliary(call) = state.plan(&input, transcript.clone(), limits(300)) else { panic!("a summary call is due") };
        assert_eq!(call.kind, RequestKind::Summary);
        assert_eq!(call.max_tokens, 100);
        let asked = &call.messages[1].content;
        assert!(asked.contains("turn 0") && asked.contains("turn 3"), "{asked}");
        assert!(!asked.contains("turn 4 "), "the kept exchanges are not folded: {asked}");
        state.accept(&transcript, 2, "task_1_out = 0 ... task_4_out = 3");
        let Plan::Send(sent) = state.plan(&input, transcript.clone(), limits(300)) else { panic!("no second summary call for the same history") };
        assert_eq!(sent[2].purpose.as_deref(), Some("summary"));
        assert!(sent[2].content.contains("task_4_out = 3"));
        assert_eq!(sent[3].content, transcript[transcript.len() - 4].content, "the last two exchanges follow whole");
        assert_eq!(sent.len(), 3 + 4);
        testing::assert_well_formed(&sent, &transcript);
        assert!(TokenEstimator::default().request(&sent) < TokenEstimator::default().request(&transcript));
    }

    #[test]
    fn a_second_summary_folds_the_previous_one_and_an_empty_reply_is_marked() {
        let mut transcript = long_transcript();
        let spec = testing::spec("the task");
        let answers = Answers::new();
        let mut state = SummaryState::default();
        state.accept(&transcript, 2, "first summary");
        for turn in 6..9 {
            testing::exchange(&mut transcript, turn, &format!("turn {turn}"), &[&"7".repeat(200)]);
        }
        let input = testing::input(&transcript, &spec, &answers);
        let Plan::Auxiliary(call) = state.plan(&input, transcript.clone(), limits(300)) else { panic!("history grew past the threshold") };
        assert!(call.messages[1].content.contains("first summary"));
        assert!(!call.messages[1].content.contains("turn 0 "), "already summarised turns are not sent again");
        state.accept(&transcript, 2, "  ");
        assert_eq!(state.summary.as_deref(), Some(EMPTY_SUMMARY));
        assert_eq!(state.history.len(), 2);
        assert_eq!(state.to_json()["summaries"][0]["text"], "first summary");
    }
}
