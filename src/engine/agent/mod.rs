//! The agent harness, sans IO: the calculator tool and (next) the conversation state machine of spec §7.

pub mod calculator;
