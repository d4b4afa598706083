//! The running run's progress line: done of total, the running accuracy with its Wilson 95% interval, requests
//! and retries sent, tokens in and out (and their cost), time spent and an estimate of the time left (the mean time per finished sample so far); and
//! whether the run is paused or the endpoint is rate-limiting it.

use crate::app::evaluate::estimate::money;
use crate::engine::run::spend::grouped;
use crate::engine::grade::metrics::wilson_interval;

/// What the page knows of a run while it goes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Live {
    /// Samples with a result.
    pub done: usize,
    /// Samples in the run.
    pub total: usize,
    /// Correct samples among those done.
    pub correct: usize,
    /// Requests sent (every attempt).
    pub requests: usize,
    /// Attempts that failed and were retried.
    pub retries: usize,
    /// Milliseconds since this visit started (or resumed) the run.
    pub elapsed_ms: f64,
    /// Samples done during this visit (a resumed run's earlier samples do not count towards the speed).
    pub done_here: usize,
    /// The user paused the run.
    pub paused: bool,
    /// A retry after a 429 is waiting.
    pub rate_limited: bool,
    /// The endpoint's limit being waited out, when its headers said ("requests limit", "tokens limit", …).
    pub rate_limit: Option<String>,
    /// Prompt tokens sent so far.
    pub tokens_in: u64,
    /// Of the prompt tokens, those the provider read from its cache.
    pub tokens_cached: u64,
    /// Completion tokens received so far.
    pub tokens_out: u64,
    /// Of the completion tokens, the reasoning tokens reported.
    pub tokens_reasoning: u64,
    /// Money spent so far, when the run has prices.
    pub cost: Option<f64>,
}

fn duration(ms: f64) -> String {
    let s = (ms / 1000.0).round() as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {} s", s / 60, s % 60)
    }
}

/// The line shown above the rows.
pub fn progress_line(live: &Live) -> String {
    let mut parts = vec![format!("{} of {} done", live.done, live.total)];
    if live.done > 0 {
        let (lo, hi) = wilson_interval(live.correct, live.done);
        parts.push(format!("accuracy {:.1}% [{:.1}, {:.1}] ({}/{})", 100.0 * live.correct as f64 / live.done as f64, lo * 100.0, hi * 100.0, live.correct, live.done));
    }
    parts.push(format!("{} request{}", live.requests, if live.requests == 1 { "" } else { "s" }));
    parts.push(format!("{} retr{}", live.retries, if live.retries == 1 { "y" } else { "ies" }));
    if live.tokens_in + live.tokens_out > 0 {
        let mut tokens = format!("{} tokens in", grouped(live.tokens_in));
        if live.tokens_cached > 0 {
            tokens.push_str(&format!(" ({} cached)", grouped(live.tokens_cached)));
        }
        tokens.push_str(&format!(", {} out", grouped(live.tokens_out)));
        if live.tokens_reasoning > 0 {
            tokens.push_str(&format!(" ({} reasoning)", grouped(live.tokens_reasoning)));
        }
        if let Some(cost) = live.cost {
            tokens.push_str(&format!(" ({})", money(cost)));
        }
        parts.push(tokens);
    }
    parts.push(format!("{} elapsed", duration(live.elapsed_ms)));
    let left = live.total.saturating_sub(live.done);
    if live.done_here > 0 && left > 0 {
        parts.push(format!("about {} left", duration(live.elapsed_ms / live.done_here as f64 * left as f64)));
    }
    if live.paused {
        parts.push("paused: requests in flight finish, no new one is sent until you resume".into());
    } else if live.rate_limited {
        parts.push(match &live.rate_limit {
            Some(limit) => format!("the endpoint is rate-limiting (429): waiting out its {limit} before retrying"),
            None => "the endpoint is rate-limiting (429): waiting as it asks before retrying".into(),
        });
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_gives_accuracy_with_its_interval_and_the_time_left() {
        let live = Live { done: 2, total: 3, correct: 2, requests: 5, retries: 1, elapsed_ms: 10_000.0, done_here: 2, ..Live::default() };
        let line = progress_line(&live);
        assert!(line.starts_with("2 of 3 done · accuracy 100.0% [34.2, 100.0] (2/2)"), "{line}");
        assert!(line.contains("5 requests · 1 retry · 10 s elapsed · about 5 s left"), "{line}");
        let spent = progress_line(&Live { tokens_in: 12_000, tokens_out: 800, cost: Some(0.05), ..live.clone() });
        assert!(spent.contains("1 retry · 12,000 tokens in, 800 out ($0.05) · 10 s"), "{spent}");
        let billed = progress_line(&Live { tokens_in: 12_000, tokens_cached: 9_000, tokens_out: 800, tokens_reasoning: 512, ..live });
        assert!(billed.contains("12,000 tokens in (9,000 cached), 800 out (512 reasoning)"), "{billed}");
    }

    #[test]
    fn before_any_result_there_is_no_accuracy_and_no_estimate() {
        let line = progress_line(&Live { total: 4, requests: 1, elapsed_ms: 61_000.0, ..Live::default() });
        assert_eq!(line, "0 of 4 done · 1 request · 0 retries · 1 min 1 s elapsed");
    }

    #[test]
    fn a_pause_and_a_rate_limit_are_said_and_a_pause_wins() {
        let base = Live { total: 4, ..Live::default() };
        assert!(progress_line(&Live { rate_limited: true, ..base.clone() }).ends_with("the endpoint is rate-limiting (429): waiting as it asks before retrying"));
        let named = progress_line(&Live { rate_limited: true, rate_limit: Some("tokens limit".into()), ..base.clone() });
        assert!(named.ends_with("waiting out its tokens limit before retrying"), "{named}");
        let both = progress_line(&Live { rate_limited: true, paused: true, ..base });
        assert!(both.contains("paused") && !both.contains("429"), "{both}");
    }
}
