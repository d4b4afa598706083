//! `mask`: observation masking ("The Complexity Trap", 2025). Every message is sent, but only the latest M
//! tool results verbatim; older tool results are replaced by a short placeholder that keeps their call id, so
//! each call still has its result message. The model's own text, its calls and the repairs stay intact.

use super::{ContextInput, ContextStrategy, ParamInfo, Plan, Strategy, StrategyInfo, StrategyRun};
use crate::engine::agent::prompts::MASK_PLACEHOLDER;
use crate::engine::agent::{Message, Role};
use crate::engine::grade::SampleSpec;

/// `mask` in the list of strategies.
pub(super) static MASK: Mask = Mask;

/// The `mask` strategy.
pub(super) struct Mask;

/// Tool results kept verbatim (shared with `mask+summary`).
pub(super) const KEEP: ParamInfo = ParamInfo { key: "keep", default: 10, min: 0, max: 1_000_000, description: "latest tool results kept verbatim" };

static INFO: StrategyInfo =
    StrategyInfo { name: "mask", description: "observation masking: everything, but only the latest tool results verbatim", params: &[KEEP] };

impl ContextStrategy for Mask {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, strategy: &Strategy, _spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(Masked { keep: strategy.get(&KEEP) })
    }
}

/// A sample under `mask`: no record, only the parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Masked {
    /// Tool results kept verbatim.
    keep: u64,
}

impl StrategyRun for Masked {
    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        Plan::Send(messages(input.messages, self.keep))
    }
}

/// The transcript with all but the latest `keep` tool results replaced by the placeholder (same length and
/// order, so indices into the transcript stay valid).
pub fn messages(transcript: &[Message], keep: u64) -> Vec<Message> {
    let tools = transcript.iter().filter(|m| m.role == Role::Tool).count();
    let masked = tools.saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
    let mut seen = 0;
    transcript
        .iter()
        .map(|m| {
            if m.role != Role::Tool {
                return m.clone();
            }
            seen += 1;
            if seen > masked {
                return m.clone();
            }
            let mut placeholder = m.clone();
            placeholder.content = MASK_PLACEHOLDER.to_string();
            placeholder
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::engine::agent::strategy::estimate_request_tokens;

    #[test]
    fn only_the_latest_tool_results_stay_verbatim() {
        let mut transcript = testing::start("p");
        for turn in 0..4 {
            testing::exchange(&mut transcript, turn, &format!("turn {turn}"), &[&"9".repeat(400), &"8".repeat(400)]);
        }
        let sent = messages(&transcript, 3);
        assert_eq!(sent.len(), transcript.len());
        let results: Vec<&str> = sent.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
        assert_eq!(results.iter().filter(|c| **c == MASK_PLACEHOLDER).count(), 5);
        assert!(results[5..].iter().all(|c| c.len() == 400));
        assert!(sent.iter().filter(|m| m.role == Role::Assistant).all(|m| m.content.starts_with("turn")), "the model's text is kept");
        assert!(estimate_request_tokens(&sent) < estimate_request_tokens(&transcript));
        testing::assert_well_formed(&sent, &transcript);
    }

    #[test]
    fn keeping_zero_masks_every_result_and_a_large_keep_masks_none() {
        let mut transcript = testing::start("p");
        testing::exchange(&mut transcript, 0, "a", &["r0", "r1"]);
        assert!(messages(&transcript, 0).iter().filter(|m| m.role == Role::Tool).all(|m| m.content == MASK_PLACEHOLDER));
        assert_eq!(messages(&transcript, 10), transcript);
    }
}
