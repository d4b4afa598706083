//! Why a chat call failed, typed so that drivers and the retry policy can decide without reading strings.
//! No variant ever carries an API key: bodies are excerpts of what the server sent back.

/// Longest body excerpt kept in an error, in characters.
pub const BODY_EXCERPT_CHARS: usize = 200;

/// A chat call that failed (one attempt, or for good after retries).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The server answered with a non-success status.
    #[error("HTTP {status}: {body_excerpt}")]
    Http { status: u16, body_excerpt: String },
    /// A success status with a body that is not a usable chat completion.
    #[error("malformed reply: {reason}")]
    Malformed { reason: String },
    /// The request never got an answer (refused, reset, DNS, CORS in a browser).
    #[error("network error: {message}")]
    Network { message: String },
    /// No answer within the per-request timeout.
    #[error("no reply within {after_ms} ms")]
    Timeout { after_ms: u64 },
    /// The user stopped the run; the sample is left unfinished, not failed.
    #[error("cancelled by the user")]
    Cancelled,
    /// The request could not be built or sent at all.
    #[error("cannot send the request: {reason}")]
    Request { reason: String },
    /// Every attempt the retry policy allowed failed; `last` is the final attempt's error.
    #[error("gave up after {attempts} attempts: {last}")]
    GaveUp { attempts: u32, last: Box<AgentError> },
}

impl AgentError {
    /// An HTTP error with the body cut to [`BODY_EXCERPT_CHARS`].
    pub fn http(status: u16, body: &str) -> AgentError {
        AgentError::Http { status, body_excerpt: excerpt(body) }
    }
}

/// The first [`BODY_EXCERPT_CHARS`] characters of `text`, with an ellipsis when cut.
pub fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(BODY_EXCERPT_CHARS).collect();
    if text.chars().nth(BODY_EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_keep_only_an_excerpt_of_the_body() {
        let long = "x".repeat(1000);
        let AgentError::Http { body_excerpt, .. } = AgentError::http(500, &long) else { unreachable!("http() makes Http") };
        assert_eq!(body_excerpt.chars().count(), BODY_EXCERPT_CHARS + 1);
        assert!(body_excerpt.ends_with('…'));
        assert_eq!(AgentError::http(404, "nope").to_string(), "HTTP 404: nope");
    }

    #[test]
    fn gave_up_names_the_attempts_and_the_last_error() {
        let error = AgentError::GaveUp { attempts: 3, last: Box::new(AgentError::Timeout { after_ms: 500 }) };
        assert_eq!(error.to_string(), "gave up after 3 attempts: no reply within 500 ms");
    }
}
