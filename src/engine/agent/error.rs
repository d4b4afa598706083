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

/// What a person should read of an error body: its first [`BODY_EXCERPT_CHARS`] characters, with an
/// ellipsis when cut. An HTML page (what a proxy, gateway or captive portal sends instead of the API's JSON)
/// is reduced to its title, or its text without tags, and said to be a page, so the reason is not lost in markup.
pub fn excerpt(text: &str) -> String {
    let (text, page) = match html_text(text) {
        Some(readable) => (readable, true),
        None => (text.to_string(), false),
    };
    let mut out: String = text.chars().take(BODY_EXCERPT_CHARS).collect();
    if text.chars().nth(BODY_EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    if page {
        out.push_str(" (an HTML page, not the API's error: a proxy or gateway may have answered)");
    }
    out
}

/// The readable text of an HTML page, or `None` when `body` is not one: the `<title>` when it has one, else the
/// text between tags with whitespace collapsed.
fn html_text(body: &str) -> Option<String> {
    let head = body.trim_start();
    let lower = head.get(..head.len().min(512))?.to_ascii_lowercase();
    let is_page = lower.starts_with('<') && ["<!doctype html", "<html", "<head", "<body", "<title", "<h1"].iter().any(|tag| lower.contains(tag));
    if !is_page {
        return None;
    }
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower_all = body.to_ascii_lowercase();
    if let Some(open) = lower_all.find("<title") {
        let start = body[open..].find('>').map(|i| open + i + 1);
        let end = lower_all[open..].find("</title>").map(|i| open + i);
        if let (Some(start), Some(end)) = (start, end) {
            let title = collapse(&body[start..end]);
            if !title.is_empty() {
                return Some(title);
            }
        }
    }
    let mut text = String::with_capacity(body.len());
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    Some(collapse(&text))
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
    fn an_html_page_is_reduced_to_its_title_or_its_text() {
        let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
        let said = AgentError::http(502, nginx).to_string();
        assert!(said.starts_with("HTTP 502: 502 Bad Gateway (an HTML page"), "{said}");
        assert!(!said.contains('<'), "{said}");
        let untitled = "<!DOCTYPE html><html><body><h1>Access denied</h1><p>Error code 1020</p></body></html>";
        assert!(AgentError::http(403, untitled).to_string().starts_with("HTTP 403: Access denied Error code 1020 (an HTML page"));
        // Text and JSON stay as they came.
        let envoy = "upstream connect error or disconnect/reset before headers. reset reason: connection termination";
        assert_eq!(AgentError::http(503, envoy).to_string(), format!("HTTP 503: {envoy}"));
        assert_eq!(AgentError::http(400, r#"{"error": "<b>"}"#).to_string(), r#"HTTP 400: {"error": "<b>"}"#);
        assert_eq!(AgentError::http(500, "<oops").to_string(), "HTTP 500: <oops");
    }

    #[test]
    fn gave_up_names_the_attempts_and_the_last_error() {
        let error = AgentError::GaveUp { attempts: 3, last: Box::new(AgentError::Timeout { after_ms: 500 }) };
        assert_eq!(error.to_string(), "gave up after 3 attempts: no reply within 500 ms");
    }
}
