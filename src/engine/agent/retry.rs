//! The retry policy both drivers (the CLI and the browser) follow: which failures are worth another attempt,
//! how long to wait (exponential backoff with jitter, or the server's `Retry-After`, both capped), and when to
//! give up. Pure: the driver supplies the jitter and, for HTTP-date `Retry-After` values, the current time.

use super::error::AgentError;

/// How often and how patiently to retry one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per request, the first included (at least 1).
    pub max_attempts: u32,
    /// Delay before the second attempt, in milliseconds; doubled for each further attempt.
    pub base_delay_ms: u64,
    /// Longest delay, also the cap on a server's `Retry-After`.
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy { max_attempts: 6, base_delay_ms: 1_000, max_delay_ms: 60_000 }
    }
}

/// What to do after a failed attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetryDecision {
    /// Wait this long, then try again.
    Retry { delay_ms: u64 },
    /// Stop; the request failed for good with this error.
    GiveUp(AgentError),
}

/// True for failures that another attempt may cure: rate limits, server errors, timeouts, network errors and
/// malformed bodies (often a proxy's error page). Client errors (bad key, bad request) and cancellation are final.
pub fn is_retryable(error: &AgentError) -> bool {
    match error {
        AgentError::Http { status, .. } => matches!(status, 408 | 409 | 425 | 429 | 500..=599),
        AgentError::Malformed { .. } | AgentError::Network { .. } | AgentError::Timeout { .. } => true,
        AgentError::Cancelled | AgentError::Request { .. } | AgentError::GaveUp { .. } => false,
    }
}

impl RetryPolicy {
    /// The decision after attempt number `attempt` (1-based) failed with `error`. `retry_after_ms` is the server's
    /// `Retry-After` (see [`parse_retry_after`]); `jitter` is a uniform draw in [0, 1) from the driver.
    pub fn after_failure(&self, attempt: u32, error: AgentError, retry_after_ms: Option<u64>, jitter: f64) -> RetryDecision {
        if !is_retryable(&error) {
            return RetryDecision::GiveUp(error);
        }
        let max_attempts = self.max_attempts.max(1);
        if attempt >= max_attempts {
            return RetryDecision::GiveUp(AgentError::GaveUp { attempts: max_attempts, last: Box::new(error) });
        }
        RetryDecision::Retry { delay_ms: self.delay_ms(attempt, retry_after_ms, jitter) }
    }

    /// The wait after attempt `attempt` (1-based): the server's `Retry-After` when given, otherwise
    /// `base * 2^(attempt-1)` scaled into 50–100% by `jitter` ("equal jitter"); both capped at `max_delay_ms`.
    pub fn delay_ms(&self, attempt: u32, retry_after_ms: Option<u64>, jitter: f64) -> u64 {
        if let Some(wait) = retry_after_ms {
            return wait.min(self.max_delay_ms);
        }
        let step = self.base_delay_ms.saturating_mul(1u64 << attempt.saturating_sub(1).min(30)).min(self.max_delay_ms);
        let fraction = 0.5 + 0.5 * jitter.clamp(0.0, 1.0);
        (step as f64 * fraction).round() as u64
    }
}

/// Reads a `Retry-After` header: delay-seconds (`"120"`, also fractional) or an HTTP date
/// (`"Wed, 21 Oct 2015 07:28:00 GMT"`, which needs `now_unix_ms`). Dates in the past mean "now".
pub fn parse_retry_after(value: &str, now_unix_ms: Option<u64>) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
    }
    let at = http_date_unix_ms(value)?;
    Some(at.saturating_sub(now_unix_ms?))
}

/// How long a refusing server asks to be left alone, and which of its limits is spent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateWait {
    /// The wait, in milliseconds.
    pub ms: u64,
    /// What is being waited out, for a progress line: `requests limit`, `tokens limit`, `Retry-After`.
    pub limit: String,
}

/// Reads the wait a rate-limited reply asks for from its headers (`header` looks one up by lowercase name):
/// `retry-after-ms`, then `Retry-After` (seconds or an HTTP date), then the reset of the spent limit among
/// `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens` (durations such as `1s`, `6m0s`, `120ms`) and
/// Anthropic's `anthropic-ratelimit-*-reset` (RFC 3339 times, which need `now_unix_ms`). The limit named is the
/// one whose `…-remaining-…` header is 0, when a header says so.
pub fn wait_from_headers(header: &dyn Fn(&str) -> Option<String>, now_unix_ms: Option<u64>) -> Option<RateWait> {
    let spent = |kind: &str| {
        [format!("x-ratelimit-remaining-{kind}"), format!("anthropic-ratelimit-{kind}-remaining")]
            .iter()
            .any(|name| header(name).and_then(|v| v.trim().parse::<f64>().ok()) == Some(0.0))
    };
    let reset = |kind: &str| {
        header(&format!("x-ratelimit-reset-{kind}"))
            .and_then(|v| parse_duration_ms(&v))
            .or_else(|| header(&format!("anthropic-ratelimit-{kind}-reset")).and_then(|v| Some(rfc3339_unix_ms(&v)?.saturating_sub(now_unix_ms?))))
    };
    let kinds = ["requests", "tokens", "input-tokens", "output-tokens"];
    let spent_kinds: Vec<&str> = kinds.iter().copied().filter(|k| spent(k)).collect();
    let limit = match spent_kinds.as_slice() {
        [] => None,
        [one] => Some(format!("{} limit", one.replace('-', " "))),
        _ => Some("requests and tokens limits".to_string()),
    };
    let explicit = header("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok().filter(|ms| ms.is_finite() && *ms >= 0.0).map(|ms| ms.round() as u64))
        .or_else(|| header("retry-after").and_then(|v| parse_retry_after(&v, now_unix_ms)));
    if let Some(ms) = explicit {
        return Some(RateWait { ms, limit: limit.unwrap_or_else(|| "Retry-After".to_string()) });
    }
    let candidates: Vec<&str> = if spent_kinds.is_empty() { kinds.to_vec() } else { spent_kinds };
    let ms = candidates.iter().filter_map(|k| reset(k)).max()?;
    Some(RateWait { ms, limit: limit.unwrap_or_else(|| "rate limit".to_string()) })
}

/// Milliseconds in a Go-style duration as OpenAI's reset headers send them: `1s`, `6m0s`, `120ms`, `1h2m3.5s`,
/// `0.5s`; a bare number is seconds.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(seconds) = text.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
    }
    let mut total = 0.0;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).filter(|&n| n > 0)?;
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit] {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1_000.0,
            "ms" => 1.0,
            "us" | "µs" => 0.001,
            "ns" => 0.000_001,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit..];
    }
    Some(total.round() as u64)
}

/// Milliseconds since the epoch of an RFC 3339 time in UTC (`2026-12-03T18:00:05Z`, fractions allowed).
fn rfc3339_unix_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', 't', ' '])?;
    let time = time.strip_suffix(['Z', 'z']).or_else(|| time.strip_suffix("+00:00"))?;
    let ymd: Vec<i64> = date.split('-').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [year, month, day] = ymd.as_slice() else { return None };
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let parts: Vec<i64> = hms.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = parts.as_slice() else { return None };
    let millis: u64 = format!("{:0<3}", &fraction.chars().take(3).collect::<String>()).parse().unwrap_or(0);
    let secs = unix_seconds(*year, *month, *day, *h, *m, *s)?;
    Some(secs * 1000 + millis)
}

/// Milliseconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date_unix_ms(text: &str) -> Option<u64> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, day, month, year, time, zone] = parts.as_slice() else { return None };
    if *zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else { return None };
    unix_seconds(year, month, day, *h, *m, *s).map(|s| s * 1000)
}

/// Seconds since the epoch of a civil date and time (proleptic Gregorian, after Howard Hinnant's
/// `days_from_civil`); `None` for fields out of range or a time before 1970. Years end at 9999, as the
/// four-digit years of RFC 3339 and HTTP dates do: a reply's year in the quadrillions overflowed the sum.
fn unix_seconds(year: i64, month: i64, day: i64, h: i64, m: i64, s: i64) -> Option<u64> {
    if !(1970..=9999).contains(&year) || !(1..=12).contains(&month) || !(1..=31).contains(&day) || !(0..24).contains(&h) || !(0..60).contains(&m) || !(0..61).contains(&s) {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + m * 60 + s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy { max_attempts: 4, base_delay_ms: 1000, max_delay_ms: 10_000 }
    }

    #[test]
    fn rate_limits_server_errors_and_network_failures_are_retried() {
        for error in [
            AgentError::http(429, ""),
            AgentError::http(503, ""),
            AgentError::Network { message: "reset".into() },
            AgentError::Timeout { after_ms: 5 },
            AgentError::Malformed { reason: "html".into() },
        ] {
            assert!(is_retryable(&error), "{error}");
        }
        for error in [AgentError::http(401, "bad key"), AgentError::http(400, ""), AgentError::Cancelled] {
            assert!(!is_retryable(&error), "{error}");
            assert_eq!(policy().after_failure(1, error.clone(), None, 0.0), RetryDecision::GiveUp(error));
        }
    }

    #[test]
    fn delays_double_with_jitter_and_stay_under_the_cap() {
        let p = policy();
        assert_eq!(p.delay_ms(1, None, 0.0), 500);
        assert_eq!(p.delay_ms(1, None, 1.0), 1000);
        assert_eq!(p.delay_ms(3, None, 1.0), 4000);
        assert_eq!(p.delay_ms(10, None, 1.0), 10_000);
        assert_eq!(p.delay_ms(40, None, 0.5), 7_500);
        assert_eq!(p.delay_ms(1, Some(3_000), 0.0), 3_000, "Retry-After wins over backoff");
        assert_eq!(p.delay_ms(1, Some(99_000), 0.0), 10_000, "Retry-After is capped");
    }

    #[test]
    fn the_last_attempt_gives_up_with_the_final_error() {
        let p = policy();
        assert_eq!(p.after_failure(3, AgentError::http(500, "x"), None, 1.0), RetryDecision::Retry { delay_ms: 4000 });
        let RetryDecision::GiveUp(error) = p.after_failure(4, AgentError::http(500, "x"), None, 1.0) else { panic!("must give up") };
        assert_eq!(error.to_string(), "gave up after 4 attempts: HTTP 500: x");
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        assert_eq!(parse_retry_after(" 2 ", None), Some(2000));
        assert_eq!(parse_retry_after("0.5", None), Some(500));
        assert_eq!(parse_retry_after("-1", None), None);
        assert_eq!(parse_retry_after("soon", Some(0)), None);
        // 1994-11-06T08:49:37Z is 784111777 seconds after the epoch.
        let date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(parse_retry_after(date, Some(784_111_777_000 - 1500)), Some(1500));
        assert_eq!(parse_retry_after(date, Some(784_111_777_000 + 9)), Some(0));
        assert_eq!(parse_retry_after(date, None), None);
    }

    fn headers<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn reset_durations_are_read_as_openai_sends_them() {
        for (text, ms) in [("1s", 1_000), ("6m0s", 360_000), ("120ms", 120), ("1h2m3.5s", 3_723_500), ("0.5s", 500), ("20", 20_000), ("7.66s", 7_660)] {
            assert_eq!(parse_duration_ms(text), Some(ms), "{text}");
        }
        for bad in ["", "s", "1x", "-1s", "1.2.3s"] {
            assert_eq!(parse_duration_ms(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn rate_limit_headers_say_how_long_and_which_limit() {
        let now = 1_796_323_200_000; // 2026-12-03T18:40:00Z
        let wait = |pairs: &[(&str, &str)]| wait_from_headers(&headers(pairs), Some(now));
        assert_eq!(wait(&[("retry-after-ms", "1500"), ("retry-after", "9")]), Some(RateWait { ms: 1500, limit: "Retry-After".into() }), "milliseconds first");
        assert_eq!(wait(&[("retry-after", "2")]).map(|w| w.ms), Some(2000));
        assert_eq!(
            wait(&[("x-ratelimit-remaining-requests", "0"), ("x-ratelimit-reset-requests", "1s"), ("x-ratelimit-remaining-tokens", "5000"), ("x-ratelimit-reset-tokens", "6m0s")]),
            Some(RateWait { ms: 1000, limit: "requests limit".into() }),
            "the spent limit's reset, not the other's"
        );
        assert_eq!(
            wait(&[("x-ratelimit-remaining-tokens", "0"), ("x-ratelimit-reset-tokens", "120ms"), ("retry-after", "1")]),
            Some(RateWait { ms: 1000, limit: "tokens limit".into() }),
            "Retry-After decides the wait; the headers name the limit"
        );
        assert_eq!(wait(&[("x-ratelimit-reset-requests", "2s"), ("x-ratelimit-reset-tokens", "500ms")]).map(|w| w.ms), Some(2000), "none spent: the longer");
        assert_eq!(
            wait(&[("anthropic-ratelimit-output-tokens-remaining", "0"), ("anthropic-ratelimit-output-tokens-reset", "2026-12-03T18:40:03Z")]),
            Some(RateWait { ms: 3000, limit: "output tokens limit".into() })
        );
        assert_eq!(wait(&[]), None);
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        // A year past four digits (the fuzzer's find) is no date, not an overflow.
        let far = [("anthropic-ratelimit-tokens-remaining", "0"), ("anthropic-ratelimit-tokens-reset", "2055555555555555526-02-03T18:40:03Z")];
        assert_eq!(wait(&far), None);
        assert_eq!(rfc3339_unix_ms("9999-12-31T23:59:59.999Z"), Some(253_402_300_799_999));
        assert_eq!(rfc3339_unix_ms("1969-12-31T23:59:59Z"), None);
        assert_eq!(http_date_unix_ms("Sun, 06 Nov 99999999999999 08:49:37 GMT"), None);
    }
}
