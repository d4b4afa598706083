//! Where a run sends its requests: base URL, model, the API key and extra headers. The key and header values are
//! [`Secret`]s: their `Debug` and `Display` print a placeholder, and they have no `Serialize`, so a key cannot
//! reach a log line, a results file or a storage record by accident.

use std::fmt;

use super::provider::{compatible, infer, profile, Auth, Profile, RequestShape, Wire};

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

/// A chat endpoint: a provider's API or any OpenAI-compatible server.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Endpoint {
    /// Base URL up to the API version (`https://api.example.com/v1`; Azure: up to the deployment, optionally with
    /// `?api-version=…`). The request path is added to it.
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// Sent as the profile says (`Authorization: Bearer …`, `api-key`, `x-api-key`) when not empty.
    pub api_key: Secret,
    /// Extra request headers (e.g. a gateway's own header), values kept secret.
    pub headers: Vec<(String, Secret)>,
    /// The provider's profile name (`provider::PROFILES`); empty: inferred from the base URL.
    pub provider: String,
    /// The wire to speak; `None`: the profile's.
    pub wire: Option<Wire>,
}

impl Endpoint {
    /// The provider's profile: the one named, else the one the base URL belongs to.
    pub fn profile(&self) -> &'static Profile {
        if self.provider.trim().is_empty() {
            infer(&self.base_url)
        } else {
            profile(&self.provider).unwrap_or_else(|_| compatible())
        }
    }

    /// The wire requests speak.
    pub fn wire(&self) -> Wire {
        self.wire.unwrap_or(self.profile().wire)
    }

    /// The request URL (`…/chat/completions` or `…/messages`, with the profile's required query parameters).
    pub fn chat_url(&self) -> String {
        self.profile().request_url(&self.base_url, self.wire())
    }

    /// The parameters this endpoint's requests start with (the profile's rules for the model).
    pub fn shape(&self) -> RequestShape {
        RequestShape::new(self.profile(), self.wire(), &self.model)
    }

    /// Why requests cannot go to this endpoint, if they cannot: an unknown provider, a wire it does not speak, a
    /// base URL that is not an `http://` or `https://` URL, carries a user name or password (a browser refuses to
    /// send to such a URL, and the secret would travel into the run's records), is a full request URL, or lacks
    /// what its profile needs (an Azure deployment). The message never repeats the credentials.
    pub fn base_url_problem(&self) -> Option<String> {
        if !self.provider.trim().is_empty() {
            if let Err(message) = profile(&self.provider) {
                return Some(message);
            }
        }
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
        let profile = self.profile();
        if !profile.wires.contains(&self.wire()) {
            return Some(format!("{} does not speak the {} wire", profile.label, self.wire().as_str()));
        }
        profile.base_url_problem(base)
    }

    /// The `/models` URL (the endpoint check lists models there).
    pub fn models_url(&self) -> String {
        self.profile().models_url(&self.base_url)
    }

    /// Every header a request carries: content type, the key as the profile sends it, the profile's own headers
    /// (with its browser opt-in when `browser`), then the extra headers. The values are exposed here because this
    /// is what the driver sends; never log the result.
    pub fn request_headers(&self, browser: bool) -> Vec<(String, String)> {
        let profile = self.profile();
        let mut out = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !self.api_key.is_empty() {
            out.push(match profile.auth {
                Auth::Bearer => ("Authorization".to_string(), format!("Bearer {}", self.api_key.expose())),
                Auth::Header(name) => (name.to_string(), self.api_key.expose().to_string()),
            });
        }
        let own = profile.headers.iter().chain(if browser { profile.browser_headers } else { &[] });
        for (name, value) in own {
            if !self.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                out.push((name.to_string(), value.to_string()));
            }
        }
        out.extend(self.headers.iter().map(|(name, value)| (name.clone(), value.expose().to_string())));
        out
    }

    /// The `Authorization` header value, when a key is set and the profile sends it as a bearer token.
    pub fn authorization(&self) -> Option<String> {
        (!self.api_key.is_empty() && self.profile().auth == Auth::Bearer).then(|| format!("Bearer {}", self.api_key.expose()))
    }
}

/// One extra request header typed as `Name: value`, or why not: the key has its own field (the profile puts it in
/// the right header) and the content type is always JSON, so `Authorization` and `Content-Type` are refused; the
/// value becomes a [`Secret`].
pub fn parse_header(line: &str) -> Result<(String, Secret), String> {
    let (name, value) = line.split_once(':').ok_or_else(|| "expected `Name: value`".to_string())?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err("a header name is letters, digits and - (no spaces)".into());
    }
    if name.eq_ignore_ascii_case("authorization") {
        return Err("put the key in the API key field, not here".into());
    }
    if name.eq_ignore_ascii_case("content-type") {
        return Err("the content type is always application/json".into());
    }
    let value = value.trim();
    if value.chars().any(char::is_control) {
        return Err("a header value cannot hold control characters".into());
    }
    Ok((name.to_string(), Secret::new(value)))
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
            ..Endpoint::default()
        };
        let shown = format!("{endpoint:?} {} {}", endpoint.api_key, endpoint.headers[0].1);
        assert!(!shown.contains("sk-very-secret") && !shown.contains("hdr-secret"), "{shown}");
        assert!(shown.contains("Secret(***)"));
        assert_eq!(endpoint.authorization().as_deref(), Some("Bearer sk-very-secret"));
        let headers = endpoint.request_headers(false);
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
        assert!(endpoint.base_url_problem().unwrap().contains("already ends in `/chat/completions`"), "a full request URL is refused with what to type");
        assert_eq!(endpoint.authorization(), None);
    }

    #[test]
    fn base_urls_with_credentials_or_without_a_scheme_are_refused_without_echoing_the_secret() {
        let problem = |url: &str| Endpoint { base_url: url.into(), ..Endpoint::default() }.base_url_problem();
        assert_eq!(problem(" https://api.example.com/v1 "), None);
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

    #[test]
    fn each_provider_gets_its_key_and_headers_where_it_wants_them() {
        let with = |provider: &str, base: &str| Endpoint { base_url: base.into(), model: "m".into(), api_key: Secret::new("k"), provider: provider.into(), ..Endpoint::default() };
        let names = |e: &Endpoint, browser: bool| e.request_headers(browser).into_iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>();
        let anthropic = with("", "https://api.anthropic.com/v1");
        assert_eq!(anthropic.profile().key, "anthropic");
        assert_eq!(anthropic.chat_url(), "https://api.anthropic.com/v1/messages");
        assert_eq!(names(&anthropic, false), ["Content-Type=application/json", "x-api-key=k", "anthropic-version=2023-06-01"]);
        assert!(names(&anthropic, true).contains(&"anthropic-dangerous-direct-browser-access=true".to_string()), "the browser opt-in from a page");
        let compat = Endpoint { wire: Some(Wire::ChatCompletions), ..anthropic.clone() };
        assert_eq!(compat.chat_url(), "https://api.anthropic.com/v1/chat/completions");
        let azure = with("azure", "https://res.openai.azure.com/openai/deployments/chat");
        assert_eq!(names(&azure, true), ["Content-Type=application/json", "api-key=k"]);
        assert!(azure.chat_url().ends_with("/deployments/chat/chat/completions?api-version=2024-10-21") && !azure.chat_url().contains("k&"));
        assert_eq!(azure.authorization(), None);
        let unknown = with("anthropik", "https://api.anthropic.com/v1");
        assert!(unknown.base_url_problem().unwrap().contains("unknown provider `anthropik`"));
        let wrong_wire = Endpoint { wire: Some(Wire::Messages), ..with("openai", "https://api.openai.com/v1") };
        assert_eq!(wrong_wire.base_url_problem().as_deref(), Some("OpenAI does not speak the messages wire"));
        let overridden = Endpoint { headers: vec![("anthropic-version".into(), Secret::new("2099-01-01"))], ..anthropic };
        assert_eq!(names(&overridden, false).iter().filter(|h| h.starts_with("anthropic-version")).collect::<Vec<_>>(), ["anthropic-version=2099-01-01"], "a header typed replaces the profile's");
    }
}
