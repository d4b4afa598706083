//! `window`: a sliding window. Each request carries the system prompt, the task prompt and the last N
//! exchanges (an assistant message with its tool results or the repair that followed it), whole; anything
//! older is dropped. Cheap and predictable, and forgetful by construction: a value produced more than N
//! exchanges ago is visible only if it was repeated since.

use super::{exchanges, head, ContextInput, ContextStrategy, ParamInfo, Plan, Strategy, StrategyInfo, StrategyRun};
use crate::engine::agent::Message;
use crate::engine::grade::SampleSpec;

/// `window` in the list of strategies.
pub(super) static WINDOW: Window = Window;

/// The `window` strategy.
pub(super) struct Window;

const EXCHANGES: ParamInfo = ParamInfo { key: "exchanges", default: 8, min: 1, max: 1_000_000, description: "exchanges kept after the prompt" };

static INFO: StrategyInfo = StrategyInfo { name: "window", description: "sliding window: the prompt plus the last exchanges", params: &[EXCHANGES] };

impl ContextStrategy for Window {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, _spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(Windowed { exchanges: strategy.get(&EXCHANGES) })
    }
}

/// A sample under `window`: no record, only the parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Windowed {
    /// Exchanges kept.
    exchanges: u64,
}

impl StrategyRun for Windowed {
    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        Plan::Send(messages(input.messages, self.exchanges))
    }
}

/// The head and the last `keep` exchanges.
pub fn messages(transcript: &[Message], keep: u64) -> Vec<Message> {
    let all = exchanges(transcript);
    let keep = usize::try_from(keep).unwrap_or(usize::MAX).max(1);
    let mut out = head(transcript);
    if let Some(first) = all.len().checked_sub(keep).and_then(|i| all.get(i)).or(all.first()) {
        out.extend(transcript[first.start..].iter().cloned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::engine::agent::Role;

    #[test]
    fn only_the_last_exchanges_follow_the_prompt() {
        let mut transcript = testing::start("p");
        for turn in 0..6 {
            testing::exchange(&mut transcript, turn, &format!("turn {turn}"), &["r"; 2]);
        }
        let sent = messages(&transcript, 2);
        assert_eq!(sent.len(), 2 + 2 * 3);
        assert_eq!(sent[2].content, "turn 4");
        assert!(!sent.iter().any(|m| m.content == "turn 3"), "older exchanges are dropped");
        testing::assert_well_formed(&sent, &transcript);
    }

    #[test]
    fn a_short_conversation_is_sent_whole_and_a_repair_stays_with_its_exchange() {
        let mut transcript = testing::start("p");
        testing::exchange(&mut transcript, 0, "a", &["r"]);
        transcript.push(Message::new(Role::Assistant, "b"));
        transcript.push(Message::new(Role::User, "repair").with_purpose("repair:final_answer"));
        assert_eq!(messages(&transcript, 8), transcript);
        let last = messages(&transcript, 1);
        assert_eq!(last.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(), vec!["sys", "p", "b", "repair"]);
        assert_eq!(messages(&transcript[..2], 1), transcript[..2].to_vec());
    }
}
