//! Where a run sends its requests: base URL, model, the API key and extra headers. The key and header values are
//! [`Secret`]s: their `Debug` and `Display` print a placeholder, and they have no `Serialize`, so a key cannot
//! reach a log line, a results file or a storage record by accident.

use std::fmt;

/// A value that must never be printed or stored: an API key, an authorisation header.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when no value was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "Secret(empty)" } else { "Secret(***)" })
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// An OpenAI-compatible chat endpoint.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Endpoint {
    /// Base URL up to the API version (`https://api.example.com/v1`); a full `/chat/completions` URL also works.
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when not empty.
    pub api_key: Secret,
    /// Extra request headers (e.g. a provider's browser-access header), values kept secret.
    pub headers: Vec<(String, Secret)>,
}

impl Endpoint {
    /// The chat-completions URL.
    pub fn chat_url(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        }
    }

    /// Why requests cannot go to the base URL, if they cannot: it must be an `http://` or `https://` URL with
    /// no user name or password in it (a browser refuses to send to such a URL, and the secret would travel
    /// into the run's records). The message never repeats the credentials.
    pub fn base_url_problem(&self) -> Option<String> {
        let base = self.base_url.trim();
        if base.is_empty() {
            return Some("the base URL is empty: enter the endpoint, e.g. https://api.example.com/v1".into());
        }
        let lower = base.to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://")) else {
            return Some("the base URL must start with http:// or https://".into());
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if authority.contains('@') {
            return Some("the base URL carries a user name or password (`user:…@host`): remove it and put the key in the API key field (a browser will not send a request to such a URL)".into());
        }
        if authority.is_empty() {
            return Some("the base URL names no host".into());
        }
        None
    }

    /// The `/models` URL (the endpoint check lists models there).
    pub fn models_url(&self) -> String {
        let chat = self.chat_url();
        format!("{}/models", chat.trim_end_matches("/chat/completions"))
    }

    /// Every header a request carries: content type, authorisation (when a key is set) and the extra headers.
    /// The values are exposed here because this is what the driver sends; never log the result.
    pub fn request_headers(&self) -> Vec<(String, String)> {
        let mut out = vec![("Content-Type".to_string(), "application/json".to_string())];
        out.extend(self.authorization().map(|value| ("Authorization".to_string(), value)));
        out.extend(self.headers.iter().map(|(name, value)| (name.clone(), value.expose().to_string())));
        out
    }

    /// The `Authorization` header value, when a key is set.
    pub fn authorization(&self) -> Option<String> {
        (!self.api_key.is_empty()).then(|| format!("Bearer {}", self.api_key.expose()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print_their_value() {
        let endpoint = Endpoint {
            base_url: "http://h/v1".into(),
            model: "m".into(),
            api_key: Secret::new("sk-very-secret"),
            headers: vec![("x-api-key".into(), Secret::new("hdr-secret"))],
        };
        let shown = format!("{endpoint:?} {} {}", endpoint.api_key, endpoint.headers[0].1);
        assert!(!shown.contains("sk-very-secret") && !shown.contains("hdr-secret"), "{shown}");
        assert!(shown.contains("Secret(***)"));
        assert_eq!(endpoint.authorization().as_deref(), Some("Bearer sk-very-secret"));
        let headers = endpoint.request_headers();
        assert_eq!(headers.len(), 3);
        assert_eq!(headers[2], ("x-api-key".to_string(), "hdr-secret".to_string()));
    }

    #[test]
    fn urls_are_derived_from_the_base() {
        let mut endpoint = Endpoint { base_url: "http://h:1/v1/".into(), ..Endpoint::default() };
        assert_eq!(endpoint.chat_url(), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint.models_url(), "http://h:1/v1/models");
        endpoint.base_url = "http://h:1/v1/chat/completions".into();
        assert_eq!(endpoint.chat_url(), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint.authorization(), None);
    }

    #[test]
    fn base_urls_with_credentials_or_without_a_scheme_are_refused_without_echoing_the_secret() {
        let problem = |url: &str| Endpoint { base_url: url.into(), ..Endpoint::default() }.base_url_problem();
        assert_eq!(problem(" https://api.example.com/v1 "), None);
        assert_eq!(problem("http://127.0.0.1:8080/v1/chat/completions"), None);
        assert_eq!(problem("http://h/v1?user=a@b"), None, "an @ after the host is not a credential");
        for url in ["https://user:hunter2@api.example.com/v1", "HTTP://hunter2@h/v1", "https://:hunter2@h"] {
            let message = problem(url).expect("refused");
            assert!(message.contains("user name or password") && !message.contains("hunter2"), "{message}");
        }
        assert!(problem("").unwrap().contains("empty"));
        assert!(problem("api.example.com/v1").unwrap().contains("http:// or https://"));
        assert!(problem("javascript:alert(1)").unwrap().contains("http:// or https://"));
        assert!(problem("https:///v1").unwrap().contains("no host"));
    }
}
