//! `mask+summary`: the hybrid "The Complexity Trap" (2025) found cheapest: observation masking on every
//! request, and summarisation of the masked history when even the masked history would exceed the threshold.

use super::summary::{Limits, SummaryState};
use super::{mask, ContextInput, Plan};

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
