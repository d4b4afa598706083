//! `full`: every request carries the whole conversation, as the reference harness does; the request grows with
//! every turn until the context-length pre-check stops the sample.

use super::{ContextInput, ContextStrategy, Plan, Strategy, StrategyInfo, StrategyRun};
use crate::engine::agent::Message;
use crate::engine::grade::SampleSpec;

/// `full` in the list of strategies.
pub(super) static FULL: Full = Full;

/// The `full` strategy: no parameters, no record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Full;

static INFO: StrategyInfo = StrategyInfo { name: "full", description: "the whole conversation every turn (the reference harness)", params: &[] };

impl ContextStrategy for Full {
    fn info(&self) -> &'static StrategyInfo {
        &INFO
    }

    fn start(&self, _strategy: &Strategy, _spec: &SampleSpec) -> Box<dyn StrategyRun> {
        Box::new(Full)
    }
}

impl StrategyRun for Full {
    fn plan(&self, input: &ContextInput<'_>) -> Plan {
        Plan::Send(messages(input))
    }
}

/// The whole transcript.
pub fn messages(input: &ContextInput<'_>) -> Vec<Message> {
    input.messages.to_vec()
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::engine::grade::collect::Answers;

    #[test]
    fn everything_is_sent_unchanged() {
        let mut transcript = testing::start("p");
        for turn in 0..5 {
            testing::exchange(&mut transcript, turn, "work", &["1", "2"]);
        }
        let spec = testing::spec("p");
        let answers = Answers::new();
        let sent = messages(&testing::input(&transcript, &spec, &answers));
        assert_eq!(sent, transcript);
        testing::assert_well_formed(&sent, &transcript);
    }
}
