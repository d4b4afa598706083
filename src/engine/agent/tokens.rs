//! Token estimates when the endpoint has not said: characters per token. Strategies, the session and the
//! run's estimate all count this way; `strategy::TokenEstimator` scales it by what the endpoint reported.

/// Characters per token when nothing better is known.
pub const CHARS_PER_TOKEN: f64 = 4.0;

/// Rough token count of a text (characters / 4, rounded up).
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as f64 / CHARS_PER_TOKEN).ceil() as u64
}
