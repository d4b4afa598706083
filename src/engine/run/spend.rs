//! A run's spend: prices per million tokens, the optional budgets in tokens or money, the tokens spent so far
//! (`Meter`), and the reason a spent budget gives for stopping. The estimate before a run starts is the app's
//! (`app::evaluate::estimate`); what the run actually spends, and when that must stop it, is here.

use serde::{Deserialize, Serialize};

use crate::engine::agent::{estimate_tokens, ChatReply};

/// Prices per million tokens, and the run's optional budgets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Spend {
    /// Price per million input tokens.
    pub price_in: f64,
    /// Price per million output tokens (reasoning tokens are output).
    pub price_out: f64,
    /// Price per million input tokens read from the provider's cache; `None`: the input price.
    pub price_cached_in: Option<f64>,
    /// Stop once this many tokens (input and output) are spent.
    pub budget_tokens: Option<u64>,
    /// Stop once this much money is spent (needs prices).
    pub budget_cost: Option<f64>,
}

impl Spend {
    /// The money `input` and `output` tokens cost, none of them cached.
    pub fn cost(&self, input: u64, output: u64) -> f64 {
        self.billed(&Tokens { input, cached_input: 0, output })
    }

    /// The money `tokens` cost as billed: cached input at the cached price, the rest of the input at the input
    /// price, output (reasoning included) at the output price.
    pub fn billed(&self, tokens: &Tokens) -> f64 {
        let cached = tokens.cached_input.min(tokens.input);
        let cached_price = self.price_cached_in.unwrap_or(self.price_in);
        ((tokens.input - cached) as f64 * self.price_in + cached as f64 * cached_price + tokens.output as f64 * self.price_out) / 1e6
    }

    /// True when prices were given.
    pub fn priced(&self) -> bool {
        self.price_in > 0.0 || self.price_out > 0.0
    }

    /// Why a run that has spent `input` and `output` tokens must stop, if it must.
    pub fn exhausted(&self, input: u64, output: u64) -> Option<String> {
        self.exhausted_by(&Tokens { input, cached_input: 0, output })
    }

    /// Why a run that has spent `tokens` must stop, if it must (the cost as billed).
    pub fn exhausted_by(&self, tokens: &Tokens) -> Option<String> {
        let (input, output) = (tokens.input, tokens.output);
        if let Some(budget) = self.budget_tokens.filter(|&b| input + output >= b) {
            return Some(format!("the token budget ({}) is spent: {} tokens used", grouped(budget), grouped(input + output)));
        }
        if let Some(budget) = self.budget_cost.filter(|&b| self.priced() && self.billed(tokens) >= b) {
            return Some(format!("the cost budget ({}) is spent: {} used", money(budget), money(self.billed(tokens))));
        }
        None
    }
}

/// Tokens spent, as billed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Prompt tokens, cached ones included.
    pub input: u64,
    /// Of those, the ones read from the provider's cache.
    pub cached_input: u64,
    /// Completion tokens, reasoning included.
    pub output: u64,
}

/// What a run has spent under its prices and budgets: every reply is counted as it arrives (its reported usage,
/// or an estimate from its text when the endpoint reports none).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Meter {
    /// The run's prices and budgets.
    pub spend: Spend,
    /// Tokens spent so far.
    pub tokens: Tokens,
    /// Of the output tokens, the reasoning tokens reported.
    pub reasoning: u64,
}

impl Meter {
    /// A meter at zero for a run with `spend`'s prices and budgets.
    pub fn new(spend: Spend) -> Meter {
        Meter { spend, ..Meter::default() }
    }

    /// Adds a reply's tokens (its reported usage, or an estimate from its text).
    pub fn count(&mut self, reply: &ChatReply) {
        let written = reply.usage.completion_tokens.unwrap_or_else(|| estimate_tokens(&reply.content) + estimate_tokens(&reply.reasoning));
        self.tokens.input += reply.usage.prompt_tokens.unwrap_or(0);
        self.tokens.cached_input += reply.usage.cached_prompt_tokens.unwrap_or(0);
        self.tokens.output += written;
        self.reasoning += reply.usage.reasoning_tokens.unwrap_or(0);
    }

    /// The money spent so far as billed, when the run has prices.
    pub fn cost(&self) -> Option<f64> {
        self.spend.priced().then(|| self.spend.billed(&self.tokens))
    }

    /// Why the run must stop now, if a budget is spent.
    pub fn exhausted(&self) -> Option<String> {
        self.spend.exhausted_by(&self.tokens)
    }
}

/// Money with two decimals (four under one cent).
pub fn money(value: f64) -> String {
    if value > 0.0 && value < 0.01 {
        format!("${value:.4}")
    } else {
        format!("${value:.2}")
    }
}

/// A whole number with thousands separators: `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
