//! `mask+summary`: the hybrid "The Complexity Trap" (2025) found cheapest: observation masking on every
//! request, and summarisation of the masked history when even the masked history would exceed the threshold.

use super::mask::{self, KEEP};
use super::summary::{Limits, SummaryState, KEEP_EXCHANGES, SUMMARY_TOKENS, TRIGGER};
use super::{ContextInput, ContextStrategy, Plan, Strategy, StrategyInfo, StrategyRun};
use crate::engine::grade::SampleSpec;
use serde_json::Value;

/// `mask+summary` in the list of strategies.
pub(super) static MASK_SUMMARY: MaskSummary = MaskSummary;

/// The `mask+summary` strategy.
pub(super) struct MaskSummary;

static INFO: StrategyInfo = StrategyInfo {
    name: "mask+summary",
    description: "observation masking, then summarisation when the masked history still grows too large",
    params: &[KEEP, TRIGGER, KEEP_EXCHANGES, SUMMARY_TOKENS],
};

impl ContextStrategy for MaskSummary {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, _spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(MaskedSummary { keep: strategy.get(&KEEP), limits: Limits::of(strategy), state: SummaryState::default() })
    }
}

/// A sample under `mask+summary`: its parameters and its summaries (made over masked history).
#[derive(Clone, Debug, PartialEq)]
struct MaskedSummary {
    /// Tool results kept verbatim.
    keep: u64,
    /// The summary thresholds.
    limits: Limits,
    /// The summaries so far.
    state: SummaryState,
}

impl StrategyRun for MaskedSummary {
    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        plan(&self.state, input, self.keep, self.limits)
    }

    fn on_auxiliary_reply(&mut self, input: &ContextInput<'_>, content: &str) {
        self.state.accept(&mask::messages(input.messages, self.keep), self.limits.keep_exchanges, content);
    }

    fn to_json(&self) -> Option<Value> {
        Some(self.state.to_json())
    }
}

/// The masked request, or a summary call over masked history first.
pub fn plan(state: &SummaryState, input: &ContextInput<'_>, keep: u64, limits: Limits) -> Plan {
    state.plan(input, mask::messages(input.messages, keep), limits)
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::engine::agent::prompts::MASK_PLACEHOLDER;
    use crate::engine::agent::Role;
    use crate::engine::grade::collect::Answers;

    #[test]
    fn masking_comes_first_and_the_summary_only_when_masking_is_not_enough() {
        let mut transcript = testing::start("p");
        for turn in 0..5 {
            testing::exchange(&mut transcript, turn, &format!("turn {turn}"), &[&"5".repeat(800)]);
        }
        let spec = testing::spec("p");
        let answers = Answers::new();
        let input = testing::input(&transcript, &spec, &answers);
        let limits = |trigger_tokens| Limits { trigger_tokens, keep_exchanges: 1, summary_tokens: 64 };
        let Plan::Send(sent) = plan(&SummaryState::default(), &input, 1, limits(1_000)) else { panic!("masked request fits") };
        assert_eq!(sent.iter().filter(|m| m.role == Role::Tool && m.content == MASK_PLACEHOLDER).count(), 4);
        testing::assert_well_formed(&sent, &transcript);
        let Plan::Auxiliary(call) = plan(&SummaryState::default(), &input, 1, limits(250)) else { panic!("masked request still too large") };
        assert!(call.messages[1].content.contains(MASK_PLACEHOLDER), "the summariser sees the masked history");
        assert!(!call.messages[1].content.contains(&"5".repeat(800)));
    }
}
