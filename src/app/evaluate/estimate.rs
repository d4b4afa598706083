//! What a run will cost before it starts, and the budget that stops it. The estimate is deliberately simple and
//! says so: each sample takes about two turns per task (a calculator call, then the answer) plus one; every turn
//! resends the whole conversation so far (the `full` strategy, the upper bound of the others) and writes about
//! `COMPLETION_PER_TURN` tokens. Prices are per million input and output tokens, typed by the user. A budget in
//! tokens or in money stops a run cleanly (`engine::run`): no new request once it is spent, the samples cut short
//! stay resumable.

use serde_json::Value;

use crate::engine::agent::estimate_tokens;
/// The run's prices and budgets, what it spent and how money is written are the engine run's (`engine::run::spend`).
pub use crate::engine::run::spend::{grouped, money, Spend, Tokens};
use crate::engine::grade::SampleSpec;
use crate::engine::dataset::SampleRecord;

/// Tokens a turn is assumed to write (capped by the run's max tokens).
pub const COMPLETION_PER_TURN: u64 = 300;
/// Tokens a tool result adds to the conversation.
const TOOL_RESULT: u64 = 30;
/// The request's fixed overhead (system prompt framing, tool schema).
const OVERHEAD: u64 = 150;

/// The estimate of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Samples counted.
    pub samples: usize,
    /// Mean turns per sample assumed.
    pub turns_per_sample: f64,
    /// Prompt tokens over every request.
    pub input_tokens: u64,
    /// Completion tokens over every request.
    pub output_tokens: u64,
    /// Of the prompt tokens, those a provider that caches prompts reads from its cache: every request's
    /// resent prefix once it is past [`CACHE_MIN_TOKENS`].
    pub cached_input_tokens: u64,
}

/// The shortest prompt prefix providers cache (OpenAI and Anthropic: 1,024 tokens).
pub const CACHE_MIN_TOKENS: u64 = 1024;

/// The estimate for `samples` with `system_prompt` and a completion limit of `max_tokens` per turn. Samples that
/// cannot be read count as one task.
pub fn estimate(samples: &[Value], system_prompt: &str, max_tokens: u32) -> Estimate {
    let completion = COMPLETION_PER_TURN.min(u64::from(max_tokens.max(1)));
    let base = OVERHEAD + estimate_tokens(system_prompt);
    let mut out = Estimate { samples: samples.len(), ..Estimate::default() };
    let mut turns_total = 0u64;
    for (index, sample) in samples.iter().enumerate() {
        let record = SampleRecord::parse(sample);
        let prompt = record.prompt.as_deref().unwrap_or("");
        let tasks = SampleSpec::from_record(&record, index).map(|s| s.nodes.len().max(s.expected.len())).unwrap_or(1).max(1) as u64;
        let turns = 2 * tasks + 1;
        let first = base + estimate_tokens(prompt);
        // Turn t resends the first request and t earlier turns with their tool results.
        out.input_tokens += turns * first + (completion + TOOL_RESULT) * turns * (turns - 1) / 2;
        out.output_tokens += turns * completion;
        // Turn t's prefix is turn t-1's whole prompt.
        let prefixes = (1..turns).map(|t| first + (completion + TOOL_RESULT) * (t - 1)).filter(|&p| p >= CACHE_MIN_TOKENS);
        out.cached_input_tokens += prefixes.sum::<u64>();
        turns_total += turns;
    }
    out.turns_per_sample = if samples.is_empty() { 0.0 } else { turns_total as f64 / samples.len() as f64 };
    out
}

impl Spend {
    /// The spend with a number typed into one of its fields (`price_in`, `price_out`, `budget_tokens`,
    /// `budget_cost`; empty clears a budget or sets a price to 0), or why not.
    pub fn with(&self, field: &str, text: &str) -> Result<Spend, String> {
        let text = text.trim();
        let number = || -> Result<Option<f64>, String> {
            if text.is_empty() {
                return Ok(None);
            }
            let value: f64 = text.parse().map_err(|_| format!("{} must be a number", label(field)))?;
            if !value.is_finite() || value < 0.0 {
                return Err(format!("{} cannot be negative", label(field)));
            }
            Ok(Some(value))
        };
        let mut next = *self;
        match field {
            "price_in" => next.price_in = number()?.unwrap_or(0.0),
            "price_out" => next.price_out = number()?.unwrap_or(0.0),
            "price_cached_in" => next.price_cached_in = number()?,
            "budget_tokens" => next.budget_tokens = number()?.map(|v| v.round() as u64).filter(|&v| v > 0),
            "budget_cost" => next.budget_cost = number()?.filter(|&v| v > 0.0),
            _ => return Err(format!("no setting named {field}")),
        }
        Ok(next)
    }
}

fn label(field: &str) -> &'static str {
    match field {
        "price_in" => "the input price",
        "price_out" => "the output price",
        "price_cached_in" => "the cached input price",
        "budget_tokens" => "the token budget",
        _ => "the cost budget",
    }
}

/// The estimate as the page shows it.
pub fn estimate_line(estimate: &Estimate, spend: &Spend) -> String {
    let mut line = format!(
        "about {} input and {} output tokens over {} samples (about {:.0} turns each)",
        grouped(estimate.input_tokens),
        grouped(estimate.output_tokens),
        estimate.samples,
        estimate.turns_per_sample
    );
    if spend.priced() {
        let tokens = Tokens { input: estimate.input_tokens, cached_input: estimate.cached_input_tokens, output: estimate.output_tokens };
        match spend.price_cached_in {
            Some(_) => line.push_str(&format!(
                ", about {} at the prices given with {} of the input read from the provider's cache ({} without caching)",
                money(spend.billed(&tokens)),
                grouped(estimate.cached_input_tokens),
                money(spend.cost(estimate.input_tokens, estimate.output_tokens))
            )),
            None => line.push_str(&format!(", about {} at the prices given", money(spend.cost(estimate.input_tokens, estimate.output_tokens)))),
        }
    }
    line.push_str(". A rough guide: a model that thinks at length or repairs often uses more.");
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn turns_grow_with_tasks_and_every_turn_resends_the_conversation() {
        let sample = json!({"prompt": "x".repeat(400), "ground_truth": 7});
        let e = estimate(std::slice::from_ref(&sample), "", 4096);
        // One task: three turns; the first request is 150 + 100 tokens, each later one 330 more.
        assert_eq!(e.turns_per_sample, 3.0);
        assert_eq!(e.input_tokens, 3 * 250 + 330 * 3);
        assert_eq!(e.output_tokens, 900);
        let capped = estimate(&[sample], "", 100);
        assert_eq!(capped.output_tokens, 300, "a small max tokens caps each turn");
        assert_eq!(estimate(&[], "", 100), Estimate::default());
    }

    #[test]
    fn budgets_stop_a_run_when_spent_and_costs_need_prices() {
        let spend = Spend { price_in: 3.0, price_out: 15.0, budget_tokens: Some(10_000), budget_cost: None, price_cached_in: None };
        assert!((spend.cost(1_000_000, 100_000) - 4.5).abs() < 1e-9);
        assert_eq!(spend.exhausted(5_000, 4_999), None);
        assert_eq!(spend.exhausted(9_000, 1_000).unwrap(), "the token budget (10,000) is spent: 10,000 tokens used");
        let by_cost = Spend { budget_cost: Some(0.5), budget_tokens: None, ..spend };
        assert_eq!(by_cost.exhausted(100_000, 10_000), None, "$0.45 spent");
        assert!(by_cost.exhausted(150_000, 10_000).unwrap().contains("cost budget ($0.50) is spent: $0.60 used"));
        assert_eq!(Spend { price_in: 0.0, price_out: 0.0, ..by_cost }.exhausted(10_000_000, 0), None, "no prices: no cost");
    }

    #[test]
    fn fields_are_checked_and_empty_clears_a_budget() {
        let spend = Spend::default().with("price_in", "2.5").unwrap().with("budget_tokens", "20000").unwrap();
        assert_eq!((spend.price_in, spend.budget_tokens), (2.5, Some(20_000)));
        assert_eq!(spend.with("budget_tokens", " ").unwrap().budget_tokens, None);
        assert_eq!(spend.with("price_out", "-1"), Err("the output price cannot be negative".into()));
        assert_eq!(spend.with("budget_cost", "lots"), Err("the cost budget must be a number".into()));
    }

    #[test]
    fn the_line_gives_tokens_and_a_cost_only_with_prices() {
        let e = Estimate { samples: 2, turns_per_sample: 3.0, input_tokens: 12_345, output_tokens: 1_800, cached_input_tokens: 0 };
        let plain = estimate_line(&e, &Spend::default());
        assert!(plain.starts_with("about 12,345 input and 1,800 output tokens over 2 samples (about 3 turns each)."), "{plain}");
        let priced = estimate_line(&e, &Spend { price_in: 1.0, price_out: 2.0, ..Spend::default() });
        assert!(priced.contains("about $0.02 at the prices given"), "{priced}");
        assert_eq!(money(0.004), "$0.0040");
    }

    #[test]
    fn cached_input_and_reasoning_are_priced_as_billed() {
        // OpenAI's published gpt-5-mini prices per million tokens: $0.25 input, $0.025 cached input, $2.00 output.
        let gpt5_mini = Spend { price_in: 0.25, price_out: 2.0, price_cached_in: Some(0.025), ..Spend::default() };
        // 1M prompt tokens of which 800k cached, 100k completion tokens of which 60k reasoning (billed as output).
        let tokens = Tokens { input: 1_000_000, cached_input: 800_000, output: 100_000 };
        assert!((gpt5_mini.billed(&tokens) - (0.05 + 0.02 + 0.2)).abs() < 1e-9, "{}", gpt5_mini.billed(&tokens));
        assert!((gpt5_mini.cost(1_000_000, 100_000) - 0.45).abs() < 1e-9, "uncached: every input token at the input price");
        // Anthropic's Claude Haiku 4.5: $1 input, $0.10 cache reads, $5 output.
        let haiku = Spend { price_in: 1.0, price_out: 5.0, price_cached_in: Some(0.1), budget_cost: Some(0.5), ..Spend::default() };
        let spent = Tokens { input: 400_000, cached_input: 300_000, output: 60_000 };
        assert_eq!(haiku.exhausted_by(&spent), None, "$0.43 as billed; $0.70 had the cache been ignored");
        assert!(haiku.exhausted(400_000, 60_000).is_some());
        assert_eq!(Spend::default().with("price_cached_in", "0.025").unwrap().price_cached_in, Some(0.025));
        assert_eq!(Spend::default().with("price_cached_in", "").unwrap().price_cached_in, None, "empty: the input price");
    }

    #[test]
    fn long_conversations_are_estimated_mostly_cached() {
        let sample = json!({"prompt": "x".repeat(8_000), "ground_truth": 7});
        let e = estimate(&[sample], "", 4096);
        // Three turns of a 2,150-token first request: turns 1 and 2 resend 2,150 and 2,480 tokens from the cache.
        assert_eq!(e.cached_input_tokens, 2_150 + 2_480);
        let short = estimate(&[json!({"prompt": "x", "ground_truth": 1})], "", 4096);
        assert_eq!(short.cached_input_tokens, 0, "prefixes under 1,024 tokens are not cached");
        let spend = Spend { price_in: 1.0, price_out: 1.0, price_cached_in: Some(0.1), ..Spend::default() };
        assert!(estimate_line(&e, &spend).contains("4,630 of the input read from the provider's cache"), "{}", estimate_line(&e, &spend));
    }
}
