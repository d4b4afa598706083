//! `recent-answers`, test only: the proof that a strategy is one file and one line in [`super::all`]. Each
//! request carries the prompt with the latest `keep` answers the model gave (newest last), then the latest
//! exchange in full (so every tool call keeps its result); older work is dropped. Its record is the order in
//! which outputs were last answered. The tests below find it in the registry, the CLI's help and the
//! Evaluate page's choices, parse and print it, and run a sample with it through the session.

use super::{head_with_view, ContextInput, ContextStrategy, ParamInfo, Plan, Strategy, StrategyInfo, StrategyRun, TurnEvent};
use crate::engine::agent::Role;
use crate::engine::grade::SampleSpec;
use serde_json::{json, Value};

/// `recent-answers` in the list of strategies.
pub(super) static RECENT_ANSWERS: RecentAnswers = RecentAnswers;

/// The `recent-answers` strategy.
pub(super) struct RecentAnswers;

const KEEP: ParamInfo = ParamInfo { key: "keep", default: 3, min: 1, max: 1_000, description: "latest answers shown with the prompt" };

static INFO: StrategyInfo =
    StrategyInfo { name: "recent-answers", description: "the prompt with the latest answers given, and the latest exchange", params: &[KEEP] };

impl ContextStrategy for RecentAnswers {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, _spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(Recent { keep: strategy.get(&KEEP), answered: Vec::new() })
    }
}

/// A sample under `recent-answers`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Recent {
    /// Answers shown.
    keep: u64,
    /// Output names, in the order of their latest answer (the newest last).
    answered: Vec<String>,
}

impl StrategyRun for Recent {
    fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        for name in event.updated {
            self.answered.retain(|n| n != name);
            self.answered.push(name.clone());
        }
    }

    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        let Some(last_assistant) = input.messages.iter().rposition(|m| m.role == Role::Assistant) else {
            return Plan::Send(input.messages.to_vec());
        };
        let shown = self.answered.len().saturating_sub(usize::try_from(self.keep).unwrap_or(usize::MAX));
        let mut view = String::from("Your latest answers:");
        for name in &self.answered[shown..] {
            if let Some(answer) = input.answers.get(name) {
                view.push_str(&format!("\n- {name} = {}", answer.answer));
            }
        }
        let mut out = head_with_view(input.messages, &view);
        out.extend(input.messages[last_assistant..].iter().cloned());
        Plan::Send(out)
    }

    fn to_json(&self) -> Option<Value> {
        Some(json!({"answered": self.answered}))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{help, registry, testing, StrategyState};
    use super::*;
    use crate::engine::agent::{AgentConfig, AgentInput, AgentSession, ChatReply, ReplyToolCall, Status, Step, ToolArguments};

    #[test]
    fn the_one_line_in_the_list_puts_it_in_the_registry_and_the_cli_help() {
        let entry = registry().into_iter().find(|s| s.name == "recent-answers").expect("listed in the registry");
        assert_eq!(entry.params, &[KEEP]);
        assert!(help().contains("\n  recent-answers (keep=3): the prompt with the latest answers given"), "{}", help());
    }

    #[test]
    fn it_parses_and_prints_back_through_the_registry_checks() {
        let strategy = Strategy::parse("recent-answers:keep=2").expect("registered");
        assert_eq!(strategy.to_string(), "recent-answers:keep=2");
        assert_eq!(Strategy::parse(&strategy.to_string()), Ok(strategy.clone()));
        assert_eq!(strategy.params_json(), json!({"keep": 2}));
        assert!(Strategy::parse("recent-answers:keep=0").is_err(), "below its minimum");
    }

    #[test]
    fn a_request_carries_only_the_latest_answers_and_the_latest_exchange() {
        let spec = testing::spec("Task 1: task_1_out. Task 2: task_2_out. Task 3: task_3_out.");
        let mut messages = testing::start(&spec.prompt);
        let mut answers = crate::engine::grade::collect::Answers::new();
        let mut state = StrategyState::new(&Strategy::parse("recent-answers:keep=2").expect("registered"), &spec);
        for turn in 0..3 {
            let content = format!("\\boxed{{task_{}_out = {}}}", turn + 1, 10 + turn);
            let updated = answers.collect(&content, turn, &spec.expected);
            state.observe_turn(&TurnEvent { turn, message_index: messages.len(), content: &content, updated: &updated, answers: &answers });
            testing::exchange(&mut messages, turn, &content, &["1"]);
        }
        let Plan::Send(sent) = state.plan(&testing::input(&messages, &spec, &answers)) else { panic!("no auxiliary call") };
        assert!(sent[1].content.ends_with("Your latest answers:\n- task_2_out = 11\n- task_3_out = 12"), "{}", sent[1].content);
        assert_eq!(sent.len(), 4, "system, prompt with the view, the latest call and its result");
        testing::assert_well_formed(&sent, &messages);
        assert_eq!(state.to_json(), Some(json!({"answered": ["task_1_out", "task_2_out", "task_3_out"]})));
    }

    #[test]
    fn a_session_runs_a_sample_with_it() {
        let input = AgentInput::from_sample(&json!({"prompt": "Define task_1_input = 5.\nTask 1:\nMultiply task_1_input by 3 and call it task_1_out.\n", "ground_truth": 15}), 0).expect("a valid sample");
        let mut config = AgentConfig::for_topology("baseline");
        config.strategy = Strategy::parse("recent-answers").expect("registered");
        let call = ChatReply {
            tool_calls: vec![ReplyToolCall { id: "c".into(), name: "calculator".into(), arguments: ToolArguments::Text("{\"expressions\": [\"5 * 3\"]}".into()) }],
            finish_reason: Some("tool_calls".into()),
            ..ChatReply::default()
        };
        let answer = ChatReply { content: "\\boxed{task_1_out = 15}".into(), finish_reason: Some("stop".into()), ..ChatReply::default() };
        let (mut session, mut step) = AgentSession::start(&input, &config);
        let mut replies = vec![call, answer].into_iter();
        let mut sent = Vec::new();
        let record = loop {
            step = match step {
                Step::Send(request) | Step::Auxiliary(request) => {
                    sent.push(request.messages.len());
                    session.on_reply(replies.next().expect("a reply per request"))
                }
                Step::Finished(record) => break record,
            };
        };
        assert_eq!(record.status, Status::Success);
        assert!(record.grade.correct);
        assert_eq!(sent, vec![2, 4], "the prompt, then the prompt with the view and the latest call with its result");
        assert_eq!(record.strategy.name(), "recent-answers");
        assert_eq!(record.strategy_state.to_json(), Some(json!({"answered": ["task_1_out"]})));
    }
}
