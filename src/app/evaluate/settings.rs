//! The Evaluate page's run settings beyond the basics (its endpoint presets are the engine's provider profiles,
//! `agent::provider::PROFILES`): sampling temperature, the turn
//! limit and the completion limit of repair turns (kept with the run, so a resumed run asks the same), and
//! extra request headers (secrets like the key: in memory only, never stored). Checked here, drawn by the page.

use serde::{Deserialize, Serialize};

use crate::app::evaluate::estimate::Spend;
use crate::engine::agent::endpoint::parse_header;
use crate::engine::agent::{AgentConfig, Secret};

/// Settings kept with a run. Fields a stored run lacks take their defaults, so runs stored before them resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunSettings {
    /// Sampling temperature, 0 to 2.
    pub temperature: f64,
    /// Turn limit per sample (`None`: the topology's default, at most 60 in the browser).
    pub max_turns: Option<usize>,
    /// Completion limit of a repair turn (`None`: twice a normal turn's).
    pub repair_max_tokens: Option<u32>,
    /// Samples running at once, 1 to 32.
    pub concurrency: usize,
    /// Seconds one request may take before it is aborted and retried (`None`: ten minutes).
    pub timeout_secs: Option<u64>,
    /// Attempts per sample, 1 to 20 (mean accuracy and pass^k over them).
    pub epochs: usize,
    /// Prices and budgets.
    pub spend: Spend,
    /// Ask for streamed replies (server-sent events) and show each reply's text as it arrives.
    pub stream: bool,
}

impl Default for RunSettings {
    fn default() -> RunSettings {
        RunSettings { temperature: 0.0, max_turns: None, repair_max_tokens: None, concurrency: 1, timeout_secs: None, epochs: 1, spend: Spend::default(), stream: false }
    }
}

/// Turn limits the page accepts.
pub const TURN_RANGE: (usize, usize) = (1, 2000);
/// Request timeouts the page accepts, in seconds.
pub const TIMEOUT_RANGE: (usize, usize) = (1, 3600);
/// The request timeout when none is set.
pub const DEFAULT_TIMEOUT_SECS: u64 = 600;
/// Epochs the page accepts.
pub const EPOCHS_RANGE: (usize, usize) = (1, 20);
/// Concurrencies the page accepts.
pub const CONCURRENCY_RANGE: (usize, usize) = (1, 32);
/// Repair completion limits the page accepts.
pub const REPAIR_TOKENS_RANGE: (u32, u32) = (16, 1_000_000);

impl RunSettings {
    /// `config` with these settings applied (after the run's own limits).
    pub fn apply(&self, config: &mut AgentConfig) {
        config.temperature = self.temperature;
        if let Some(turns) = self.max_turns {
            config.max_turns = turns;
        }
        if let Some(tokens) = self.repair_max_tokens {
            config.repair_max_tokens = tokens;
        }
    }

    /// The settings with the temperature typed, or why not.
    pub fn with_temperature(&self, text: &str) -> Result<RunSettings, String> {
        let value: f64 = text.trim().parse().map_err(|_| "temperature must be a number".to_string())?;
        if !(0.0..=2.0).contains(&value) {
            return Err(format!("temperature must be between 0 and 2, got {value}"));
        }
        Ok(RunSettings { temperature: value, ..self.clone() })
    }

    /// The settings with the turn limit typed (empty: the topology's default), or why not.
    pub fn with_max_turns(&self, text: &str) -> Result<RunSettings, String> {
        let max_turns = optional(text, "turn limit", TURN_RANGE.0, TURN_RANGE.1)?;
        Ok(RunSettings { max_turns, ..self.clone() })
    }

    /// The settings with the concurrency typed, or why not.
    pub fn with_concurrency(&self, text: &str) -> Result<RunSettings, String> {
        let concurrency = optional(text, "concurrency", CONCURRENCY_RANGE.0, CONCURRENCY_RANGE.1)?.unwrap_or(1);
        Ok(RunSettings { concurrency, ..self.clone() })
    }

    /// The settings with the epochs typed (empty: one attempt), or why not.
    pub fn with_epochs(&self, text: &str) -> Result<RunSettings, String> {
        let epochs = optional(text, "epochs", EPOCHS_RANGE.0, EPOCHS_RANGE.1)?.unwrap_or(1);
        Ok(RunSettings { epochs, ..self.clone() })
    }

    /// The settings with the request timeout typed in seconds (empty: ten minutes), or why not.
    pub fn with_timeout(&self, text: &str) -> Result<RunSettings, String> {
        let secs = optional(text, "request timeout", TIMEOUT_RANGE.0, TIMEOUT_RANGE.1)?;
        Ok(RunSettings { timeout_secs: secs.map(|s| s as u64), ..self.clone() })
    }

    /// Milliseconds one request may take.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS) * 1000
    }

    /// The settings with the repair completion limit typed (empty: twice a normal turn's), or why not.
    pub fn with_repair_max_tokens(&self, text: &str) -> Result<RunSettings, String> {
        let tokens = optional(text, "repair max tokens", REPAIR_TOKENS_RANGE.0 as usize, REPAIR_TOKENS_RANGE.1 as usize)?;
        Ok(RunSettings { repair_max_tokens: tokens.map(|t| t as u32), ..self.clone() })
    }
}

fn optional(text: &str, name: &str, min: usize, max: usize) -> Result<Option<usize>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let value: usize = text.parse().map_err(|_| format!("{name} must be a whole number"))?;
    if value < min || value > max {
        return Err(format!("{name} must be between {min} and {max}, got {value}"));
    }
    Ok(Some(value))
}

/// Extra request headers typed one per line as `Name: value` (blank lines skipped). The key has its own field
/// and the content type is the page's, so `Authorization` and `Content-Type` are refused here; values are
/// secrets. Errors name the line.
pub fn parse_headers(text: &str) -> Result<Vec<(String, Secret)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        out.push(parse_header(line).map_err(|message| format!("extra headers, line {}: {message}", i + 1))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_field_by_field_and_applied_to_the_configuration() {
        let s = RunSettings::default();
        assert_eq!(s.with_temperature(" 0.7 ").map(|s| s.temperature), Ok(0.7));
        assert_eq!(s.with_temperature("3"), Err("temperature must be between 0 and 2, got 3".into()));
        assert!(s.with_temperature("warm").is_err());
        assert_eq!(s.with_max_turns("40").map(|s| s.max_turns), Ok(Some(40)));
        assert_eq!(s.with_max_turns(" ").map(|s| s.max_turns), Ok(None), "empty: the default");
        assert_eq!(s.with_max_turns("0"), Err("turn limit must be between 1 and 2000, got 0".into()));
        assert_eq!(s.with_repair_max_tokens("4096").map(|s| s.repair_max_tokens), Ok(Some(4096)));
        let mut config = AgentConfig::for_topology("chain");
        assert_eq!(s.with_concurrency("8").map(|s| s.concurrency), Ok(8));
        assert_eq!(s.with_concurrency("").map(|s| s.concurrency), Ok(1), "empty: one at a time");
        assert_eq!(s.with_concurrency("33"), Err("concurrency must be between 1 and 32, got 33".into()));
        assert_eq!(s.with_timeout("5").map(|s| s.timeout_ms()), Ok(5000));
        assert_eq!(s.timeout_ms(), 600_000, "ten minutes unless set");
        assert!(s.with_timeout("0").unwrap_err().contains("between 1 and 3600"));
        assert_eq!(s.with_epochs("3").map(|s| s.epochs), Ok(3));
        assert!(s.with_epochs("21").unwrap_err().contains("between 1 and 20"));
        let set = RunSettings { temperature: 0.5, max_turns: Some(12), repair_max_tokens: Some(999), concurrency: 4, timeout_secs: None, epochs: 1, spend: Spend::default(), stream: false };
        assert_eq!(parse_headers("x-a: 1\nAuthorization: k").unwrap_err(), "extra headers, line 2: put the key in the API key field, not here");
        set.apply(&mut config);
        assert_eq!((config.temperature, config.max_turns, config.repair_max_tokens), (0.5, 12, 999));
        let old: RunSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(old, RunSettings::default(), "a stored run without settings resumes with the defaults");
    }

    #[test]
    fn headers_are_read_line_by_line_and_the_reserved_ones_refused_with_their_line() {
        let headers = parse_headers("x-api-key: abc\n\n  anthropic-dangerous-direct-browser-access : true \n").unwrap();
        assert_eq!(headers.iter().map(|(n, v)| (n.as_str(), v.expose())).collect::<Vec<_>>(), [("x-api-key", "abc"), ("anthropic-dangerous-direct-browser-access", "true")]);
        assert_eq!(parse_headers("x: 1\nno colon"), Err("extra headers, line 2: expected `Name: value`".into()));
        assert!(parse_headers("Authorization: Bearer k").unwrap_err().contains("API key field"));
        assert!(parse_headers("content-type: text/plain").unwrap_err().contains("application/json"));
        assert!(parse_headers("bad name: v").unwrap_err().contains("line 1"));
        assert!(parse_headers("x: a\u{7}b").unwrap_err().contains("control characters"));
        assert_eq!(parse_headers("").map(|h| h.len()), Ok(0));
    }
}
