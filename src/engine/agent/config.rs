//! Loop settings: turn and token limits, repair budgets, the context strategy and the system prompt, with the
//! release's per-topology defaults.

use super::strategy::Strategy;
use super::prompts;

/// Repair budgets: initial calculator call, missing final answers, cut-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Repairs demanding the first calculator call.
    pub initial_tool: u32,
    /// Repairs asking for missing boxed answers.
    pub final_answer: u32,
    /// Continuations after a cut-off.
    pub cutoff: u32,
}

/// Loop settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentConfig {
    /// Turn limit.
    pub max_turns: usize,
    /// Completion limit of a normal turn.
    pub max_tokens: u32,
    /// Completion limit of a repair turn.
    pub repair_max_tokens: u32,
    /// Context window; `None` disables the pre-check.
    pub max_model_len: Option<u64>,
    /// Sampling temperature.
    pub temperature: f64,
    /// Nucleus sampling.
    pub top_p: f64,
    /// Demand a calculator call before accepting answers.
    pub require_initial_calculator_call: bool,
    /// Repair budgets.
    pub budgets: Budgets,
    /// Which messages each request carries.
    pub strategy: Strategy,
    /// The system prompt.
    pub system_prompt: String,
    /// Also compute the lenient verdict.
    pub lenient: bool,
}

impl AgentConfig {
    /// The release defaults for a topology (`baseline`, `forgetting`, `chain`; anything else, `multichain` and
    /// `custom` among them, gets the largest budgets).
    pub fn for_topology(topology: &str) -> AgentConfig {
        let (budget, turns, window) = match topology {
            "baseline" => (3, 200, 262_144),
            "forgetting" | "chain" => (12, 1200, 262_144),
            _ => (24, 2000, 524_288),
        };
        AgentConfig {
            max_turns: turns,
            max_tokens: 16_384,
            repair_max_tokens: 32_768,
            max_model_len: Some(window),
            temperature: 0.0,
            top_p: 0.95,
            require_initial_calculator_call: true,
            budgets: Budgets { initial_tool: 5, final_answer: budget, cutoff: budget },
            strategy: Strategy::default(),
            system_prompt: prompts::SYSTEM_PROMPT.to_string(),
            lenient: false,
        }
    }
}

