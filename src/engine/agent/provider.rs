//! Hosted and local chat APIs as they really behave: one [`Profile`] per provider (where it lives, how the key
//! is sent, which wire it speaks, which sampling parameters it takes and under which name, its known completion
//! caps, the headers it needs and what a browser needs before it may call it), and [`RequestShape`], the
//! parameters one run sends, negotiated from the profile and from the endpoint's own refusals: a 400 that names
//! a parameter or a value the model does not take is answered by adapting the request once (rename the
//! completion limit, omit or clamp a sampling parameter, clamp the limit to the cap the error states), and the
//! adaptation holds for the rest of the run. Plain data and rules: no IO. `docs/PROVIDERS.md` gives each
//! behaviour and where it is documented.

use serde_json::{json, Value};

use super::chat::ChatRequest;

/// How the API key travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The key as the whole value of this header (`api-key` for Azure, `x-api-key` for Anthropic).
    Header(&'static str),
}

/// The JSON a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI's `/chat/completions`.
    ChatCompletions,
    /// Anthropic's `/messages`.
    Messages,
}

impl Wire {
    /// `chat` or `messages`, as flags and files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::ChatCompletions => "chat",
            Wire::Messages => "messages",
        }
    }

    /// The wire named `name` (`chat`, `chat-completions`, `messages`).
    pub fn parse(name: &str) -> Result<Wire, String> {
        match name.trim() {
            "chat" | "chat-completions" | "chat_completions" => Ok(Wire::ChatCompletions),
            "messages" => Ok(Wire::Messages),
            other => Err(format!("unknown wire `{other}`: use `chat` (chat completions) or `messages` (Anthropic's Messages API)")),
        }
    }

    /// The path after the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Wire::ChatCompletions => "/chat/completions",
            Wire::Messages => "/messages",
        }
    }
}

/// The name the completion limit goes under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitParam {
    /// `max_tokens` (the classic name; Anthropic's only one).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI's current name; its reasoning models take only this one).
    MaxCompletionTokens,
}

impl LimitParam {
    /// The JSON field name.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitParam::MaxTokens => "max_tokens",
            LimitParam::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// What a provider's models take, by model-name prefix (the longest matching prefix wins).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelRule {
    /// Model names starting with this (after any `vendor/` part) follow the rule.
    pub prefix: &'static str,
    /// Completion cap, when known.
    pub cap: Option<u32>,
    /// True for models that take only the default temperature and no `top_p` (OpenAI's reasoning family).
    pub default_sampling_only: bool,
    /// The completion limit's name for these models, when it differs from the profile's.
    pub limit: Option<LimitParam>,
}

const fn cap(prefix: &'static str, cap: u32) -> ModelRule {
    ModelRule { prefix, cap: Some(cap), default_sampling_only: false, limit: None }
}

const fn reasoning(prefix: &'static str, cap: u32) -> ModelRule {
    ModelRule { prefix, cap: Some(cap), default_sampling_only: true, limit: Some(LimitParam::MaxCompletionTokens) }
}

/// OpenAI's models, shared by the OpenAI and Azure profiles.
const OPENAI_MODELS: &[ModelRule] = &[
    cap("gpt-4o-mini", 16_384),
    cap("gpt-4o", 16_384),
    cap("gpt-4.1", 32_768),
    cap("gpt-4-turbo", 4_096),
    cap("gpt-3.5-turbo", 4_096),
    reasoning("gpt-5", 128_000),
    reasoning("o1-mini", 65_536),
    reasoning("o1", 100_000),
    reasoning("o3", 100_000),
    reasoning("o4", 100_000),
];

const ANTHROPIC_MODELS: &[ModelRule] = &[
    cap("claude-3-haiku", 4_096),
    cap("claude-3-opus", 4_096),
    cap("claude-3-5-haiku", 8_192),
    cap("claude-3-5-sonnet", 8_192),
    cap("claude-3-7-sonnet", 64_000),
    cap("claude-sonnet-4", 64_000),
    cap("claude-haiku-4", 64_000),
    cap("claude-opus-4", 32_000),
    cap("claude-opus-4-5", 64_000),
];

const DEEPSEEK_MODELS: &[ModelRule] = &[cap("deepseek-chat", 8_192), cap("deepseek-reasoner", 65_536)];

/// A chat API: where it lives and how it behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// The preset's and `--provider`'s name.
    pub key: &'static str,
    /// What the picker shows.
    pub label: &'static str,
    /// The base URL (placeholders in capitals where the user's own part goes).
    pub base_url: &'static str,
    /// A model to start from.
    pub model: &'static str,
    /// How the key is sent.
    pub auth: Auth,
    /// True when requests need a key.
    pub needs_key: bool,
    /// The wire it speaks unless told otherwise.
    pub wire: Wire,
    /// The wires it speaks.
    pub wires: &'static [Wire],
    /// The completion limit's name.
    pub limit: LimitParam,
    /// The temperatures it takes.
    pub temperature: (f64, f64),
    /// Whether to send `top_p` at all.
    pub top_p: bool,
    /// Rules by model.
    pub models: &'static [ModelRule],
    /// Headers every request carries.
    pub headers: &'static [(&'static str, &'static str)],
    /// Headers a request from a browser page also carries (the provider's opt-in to browser calls).
    pub browser_headers: &'static [(&'static str, &'static str)],
    /// Query parameters the URL must carry, with the value used when the user gives none (Azure's `api-version`).
    pub query: &'static [(&'static str, &'static str)],
    /// Whether prompt caching is asked for explicitly (Anthropic's `cache_control`); others cache by themselves.
    pub explicit_cache: bool,
    /// What a browser needs before it may call the API.
    pub browser: &'static str,
    /// Hosts (suffixes) that identify the provider in a base URL.
    pub hosts: &'static [&'static str],
    /// The local port its server listens on by default, for local servers.
    pub local_port: Option<u16>,
    /// The environment variable its key usually lives in (the CLI reads it when no other is named).
    pub key_env: &'static str,
}

const CHAT: &[Wire] = &[Wire::ChatCompletions];

const fn openai_compatible(key: &'static str, label: &'static str, base_url: &'static str, model: &'static str) -> Profile {
    Profile {
        key,
        label,
        base_url,
        model,
        auth: Auth::Bearer,
        needs_key: true,
        wire: Wire::ChatCompletions,
        wires: CHAT,
        limit: LimitParam::MaxTokens,
        temperature: (0.0, 2.0),
        top_p: true,
        models: &[],
        headers: &[],
        browser_headers: &[],
        query: &[],
        explicit_cache: false,
        browser: "answers requests from browser pages",
        hosts: &[],
        local_port: None,
        key_env: "",
    }
}

const fn local(key: &'static str, label: &'static str, base_url: &'static str, model: &'static str, port: u16, browser: &'static str) -> Profile {
    Profile { needs_key: false, browser, local_port: Some(port), ..openai_compatible(key, label, base_url, model) }
}

/// Every profile, in the picker's order; the last one, `compatible`, is any other OpenAI-compatible server.
pub const PROFILES: &[Profile] = &[
    Profile {
        limit: LimitParam::MaxCompletionTokens,
        models: OPENAI_MODELS,
        hosts: &["api.openai.com"],
        key_env: "OPENAI_API_KEY",
        ..openai_compatible("openai", "OpenAI", "https://api.openai.com/v1", "gpt-5-mini")
    },
    Profile {
        auth: Auth::Header("api-key"),
        models: OPENAI_MODELS,
        query: &[("api-version", "2024-10-21")],
        hosts: &[".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com"],
        browser: "answers requests from browser pages; the key goes in the `api-key` header, never in the URL",
        key_env: "AZURE_OPENAI_API_KEY",
        ..openai_compatible("azure", "Azure OpenAI", "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT", "gpt-4o-mini")
    },
    Profile {
        auth: Auth::Header("x-api-key"),
        wire: Wire::Messages,
        wires: &[Wire::Messages, Wire::ChatCompletions],
        temperature: (0.0, 1.0),
        top_p: false,
        models: ANTHROPIC_MODELS,
        headers: &[("anthropic-version", "2023-06-01")],
        browser_headers: &[("anthropic-dangerous-direct-browser-access", "true")],
        explicit_cache: true,
        browser: "refuses browser pages unless they send `anthropic-dangerous-direct-browser-access: true` (this page does)",
        hosts: &["api.anthropic.com"],
        key_env: "ANTHROPIC_API_KEY",
        ..openai_compatible("anthropic", "Anthropic", "https://api.anthropic.com/v1", "claude-haiku-4-5")
    },
    Profile {
        hosts: &["generativelanguage.googleapis.com"],
        key_env: "GEMINI_API_KEY",
        ..openai_compatible("gemini", "Google Gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash")
    },
    Profile { hosts: &["openrouter.ai"], key_env: "OPENROUTER_API_KEY",
        ..openai_compatible("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4o-mini") },
    Profile {
        hosts: &["api.together.xyz", "api.together.ai"],
        key_env: "TOGETHER_API_KEY",
        ..openai_compatible("together", "Together", "https://api.together.xyz/v1", "meta-llama/Llama-3.3-70B-Instruct-Turbo")
    },
    Profile {
        limit: LimitParam::MaxCompletionTokens,
        hosts: &["api.groq.com"],
        key_env: "GROQ_API_KEY",
        ..openai_compatible("groq", "Groq", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile")
    },
    Profile { models: DEEPSEEK_MODELS, hosts: &["api.deepseek.com"], key_env: "DEEPSEEK_API_KEY",
        ..openai_compatible("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat") },
    Profile {
        temperature: (0.0, 1.5),
        hosts: &["api.mistral.ai"],
        browser: "check that it answers browser pages; otherwise use `arbigraph eval`",
        key_env: "MISTRAL_API_KEY",
        ..openai_compatible("mistral", "Mistral", "https://api.mistral.ai/v1", "mistral-small-latest")
    },
    Profile { hosts: &["api.x.ai"], key_env: "XAI_API_KEY",
        ..openai_compatible("xai", "xAI", "https://api.x.ai/v1", "grok-4-fast") },
    local("vllm", "vLLM on this machine", "http://127.0.0.1:8000/v1", "served-model", 8000, "start it with --allowed-origins '[\"*\"]' so the page may call it"),
    local("sglang", "SGLang on this machine", "http://127.0.0.1:30000/v1", "default", 30000, "start it with --enable-cors so the page may call it"),
    local("ollama", "Ollama on this machine", "http://127.0.0.1:11434/v1", "qwen2.5:7b", 11434, "start it with OLLAMA_ORIGINS set to this page's origin (or *)"),
    local("llamacpp", "llama.cpp server on this machine", "http://127.0.0.1:8080/v1", "local", 8080, "the server must answer the browser's CORS preflight"),
    local("lmstudio", "LM Studio on this machine", "http://127.0.0.1:1234/v1", "local-model", 1234, "turn on \"Enable CORS\" in its server settings"),
    Profile { needs_key: false, browser: "must send CORS headers for the page to call it", ..openai_compatible("compatible", "Other OpenAI-compatible server", "http://127.0.0.1:8000/v1", "model") },
];

/// The profile named `key`, or a message listing the names.
pub fn profile(key: &str) -> Result<&'static Profile, String> {
    let key = key.trim();
    PROFILES.iter().find(|p| p.key.eq_ignore_ascii_case(key)).ok_or_else(|| {
        let names: Vec<&str> = PROFILES.iter().map(|p| p.key).collect();
        format!("unknown provider `{key}`: known providers are {}", names.join(", "))
    })
}

/// The generic profile for OpenAI-compatible servers nobody named.
pub fn compatible() -> &'static Profile {
    PROFILES.last().expect("the table ends with `compatible`")
}

/// The host and port of a URL, lowercased (`None` for a URL without a scheme).
fn authority(url: &str) -> Option<(String, Option<u16>)> {
    let rest = url.trim().split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or(authority).to_ascii_lowercase();
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => Some((host.to_string(), port.parse().ok())),
        _ => Some((authority, None)),
    }
}

/// The profile a base URL belongs to: a provider's host, a local server's usual port, or `compatible`.
pub fn infer(base_url: &str) -> &'static Profile {
    let Some((host, port)) = authority(base_url) else { return compatible() };
    if let Some(found) = PROFILES.iter().find(|p| p.hosts.iter().any(|h| if h.starts_with('.') { host.ends_with(h) } else { host == *h })) {
        return found;
    }
    let local = matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]" | "0.0.0.0");
    match (local, port) {
        (true, Some(port)) => PROFILES.iter().find(|p| p.local_port == Some(port)).unwrap_or_else(compatible),
        _ => compatible(),
    }
}

impl Profile {
    /// The rule for `model` (the longest matching prefix; a `vendor/` part is ignored).
    pub fn rule(&self, model: &str) -> Option<&'static ModelRule> {
        let name = model.trim().rsplit('/').next().unwrap_or_default().to_ascii_lowercase();
        self.models.iter().filter(|r| name.starts_with(r.prefix)).max_by_key(|r| r.prefix.len())
    }

    /// Why `base_url` does not fit this profile, if it does not: a full request URL instead of a base, an Azure
    /// URL without its deployment, a placeholder left in.
    pub fn base_url_problem(&self, base_url: &str) -> Option<String> {
        let path = base_url.trim().split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        for wire in [Wire::ChatCompletions, Wire::Messages] {
            if path.ends_with(wire.path()) {
                let base = &path[..path.len() - wire.path().len()];
                return Some(format!("the base URL already ends in `{}`: give the part before it ({base}); the request path is added to it", wire.path()));
            }
        }
        if base_url.contains("RESOURCE") || base_url.contains("DEPLOYMENT") {
            return Some(format!("replace the capitalised placeholders of the base URL with your own names (the form is {})", self.base_url));
        }
        if self.key == "azure" {
            let after = path.split_once("/openai/deployments/").map(|(_, rest)| rest);
            if after.is_none_or(|rest| rest.is_empty() || rest.contains('/')) {
                return Some(format!(
                    "an Azure OpenAI base URL names its deployment: https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT (got {path})"
                ));
            }
        }
        None
    }

    /// The request URL for `wire`: the base, the wire's path, then the base's query with this profile's
    /// required parameters added where missing.
    pub fn request_url(&self, base_url: &str, wire: Wire) -> String {
        let base = base_url.trim();
        let (path, query) = match base.split_once('?') {
            Some((path, query)) => (path, query),
            None => (base, ""),
        };
        let path = path.trim_end_matches('/');
        let path = path.strip_suffix(wire.path()).unwrap_or(path);
        let mut pairs: Vec<String> = query.split('&').filter(|p| !p.is_empty()).map(str::to_string).collect();
        for (name, value) in self.query {
            if !pairs.iter().any(|p| p.split('=').next() == Some(*name)) {
                pairs.push(format!("{name}={value}"));
            }
        }
        let query = if pairs.is_empty() { String::new() } else { format!("?{}", pairs.join("&")) };
        format!("{path}{}{query}", wire.path())
    }

    /// `base_url` with this profile's required query parameters added where missing (Azure's `api-version`), as
    /// its requests carry them, so a run's record says which version answered; unchanged when none is missing.
    pub fn with_required_query(&self, base_url: &str) -> String {
        let base = base_url.trim();
        let (path, query) = base.split_once('?').unwrap_or((base, ""));
        let given = |name: &str| query.split('&').any(|p| p.split('=').next() == Some(name));
        let missing: Vec<String> = self.query.iter().filter(|(name, _)| !given(name)).map(|(name, value)| format!("{name}={value}")).collect();
        if missing.is_empty() {
            return base.to_string();
        }
        let pairs: Vec<String> = query.split('&').filter(|p| !p.is_empty()).map(str::to_string).chain(missing).collect();
        format!("{path}?{}", pairs.join("&"))
    }

    /// The `/models` URL (Azure lists deployments elsewhere; its check skips it).
    pub fn models_url(&self, base_url: &str) -> String {
        self.request_url(base_url, Wire::ChatCompletions).replacen("/chat/completions", "/models", 1)
    }
}

/// One change the run made to its requests, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Adaptation {
    /// The completion limit goes under another name.
    LimitRenamed(LimitParam),
    /// The temperature is not sent (the model takes only its default).
    TemperatureOmitted,
    /// The temperature is clamped into the range the provider takes.
    TemperatureClamped(f64),
    /// `top_p` is not sent.
    TopPOmitted,
    /// Completion limits are clamped to this cap.
    Capped(u32),
}

/// Where an adaptation came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The provider's profile said so before any request.
    Profile,
    /// The endpoint refused a request and said why.
    Endpoint,
}

/// An adaptation with its reason, as the run shows and the results file keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// What changed.
    pub adaptation: Adaptation,
    /// Where it came from.
    pub source: Source,
    /// Why, in a sentence (the endpoint's words, cut short, for `Source::Endpoint`).
    pub why: String,
}

impl Note {
    /// One line: what the requests now do, and why.
    pub fn sentence(&self) -> String {
        let what = match &self.adaptation {
            Adaptation::LimitRenamed(name) => format!("requests sent with {}", name.as_str()),
            Adaptation::TemperatureOmitted => "temperature omitted".to_string(),
            Adaptation::TemperatureClamped(t) => format!("temperature clamped to {t}"),
            Adaptation::TopPOmitted => "top_p omitted".to_string(),
            Adaptation::Capped(n) => format!("completion limit clamped to {n}"),
        };
        format!("{what}: {}", self.why)
    }

    fn to_json(&self) -> Value {
        let (kind, value) = match &self.adaptation {
            Adaptation::LimitRenamed(name) => ("limit_renamed", json!(name.as_str())),
            Adaptation::TemperatureOmitted => ("temperature_omitted", Value::Null),
            Adaptation::TemperatureClamped(t) => ("temperature_clamped", json!(t)),
            Adaptation::TopPOmitted => ("top_p_omitted", Value::Null),
            Adaptation::Capped(n) => ("capped", json!(n)),
        };
        let source = match self.source {
            Source::Profile => "profile",
            Source::Endpoint => "endpoint",
        };
        json!({"kind": kind, "value": value, "source": source, "why": self.why, "sentence": self.sentence()})
    }

    fn from_json(value: &Value) -> Option<Note> {
        let adaptation = match value.get("kind")?.as_str()? {
            "limit_renamed" => Adaptation::LimitRenamed(match value.get("value")?.as_str()? {
                "max_tokens" => LimitParam::MaxTokens,
                "max_completion_tokens" => LimitParam::MaxCompletionTokens,
                _ => return None,
            }),
            "temperature_omitted" => Adaptation::TemperatureOmitted,
            "temperature_clamped" => Adaptation::TemperatureClamped(value.get("value")?.as_f64()?),
            "top_p_omitted" => Adaptation::TopPOmitted,
            "capped" => Adaptation::Capped(u32::try_from(value.get("value")?.as_u64()?).ok()?),
            _ => return None,
        };
        let source = if value.get("source").and_then(Value::as_str) == Some("profile") { Source::Profile } else { Source::Endpoint };
        Some(Note { adaptation, source, why: value.get("why").and_then(Value::as_str).unwrap_or_default().to_string() })
    }
}

/// The sampling part of one request, after the profile and the adaptations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    /// The completion limit's name.
    pub limit: LimitParam,
    /// The completion limit.
    pub max_tokens: u32,
    /// The temperature, when sent.
    pub temperature: Option<f64>,
    /// `top_p`, when sent.
    pub top_p: Option<f64>,
}

impl Sampling {
    /// What a request asks for with nothing adapted: `max_tokens`, its temperature and its `top_p`.
    pub fn plain(request: &ChatRequest) -> Sampling {
        Sampling { limit: LimitParam::MaxTokens, max_tokens: request.max_tokens, temperature: Some(request.temperature), top_p: Some(request.top_p) }
    }
}

/// How many times one request may be adapted and sent again before its refusal stands.
pub const MAX_ADAPTATIONS_PER_REQUEST: usize = 4;

/// The parameters a run sends: the profile's rules for the model, then every adaptation the endpoint asked
/// for. Shared by all the run's samples (a refusal learnt once holds for them all) and kept with the run, so a
/// resumed run starts where it left off.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestShape {
    /// The provider.
    pub profile: &'static Profile,
    /// The wire the run speaks.
    pub wire: Wire,
    limit: LimitParam,
    omit_temperature: bool,
    temperature_range: (f64, f64),
    omit_top_p: bool,
    cap: Option<u32>,
    notes: Vec<Note>,
}

impl RequestShape {
    /// The shape for `model` on `profile` speaking `wire`, with the profile's rules as notes.
    pub fn new(profile: &'static Profile, wire: Wire, model: &str) -> RequestShape {
        let rule = profile.rule(model);
        let limit = if wire == Wire::Messages { LimitParam::MaxTokens } else { rule.and_then(|r| r.limit).unwrap_or(profile.limit) };
        let mut shape = RequestShape {
            profile,
            wire,
            limit,
            omit_temperature: rule.is_some_and(|r| r.default_sampling_only),
            temperature_range: profile.temperature,
            omit_top_p: !profile.top_p || rule.is_some_and(|r| r.default_sampling_only),
            cap: rule.and_then(|r| r.cap),
            notes: Vec::new(),
        };
        let model = model.trim();
        if shape.limit != LimitParam::MaxTokens {
            shape.note(Adaptation::LimitRenamed(shape.limit), Source::Profile, format!("{} takes the completion limit under this name", profile.label));
        }
        if rule.is_some_and(|r| r.default_sampling_only) {
            shape.note(Adaptation::TemperatureOmitted, Source::Profile, format!("{model} takes only the default temperature (1)"));
            shape.note(Adaptation::TopPOmitted, Source::Profile, format!("{model} takes no top_p"));
        } else if !profile.top_p {
            shape.note(Adaptation::TopPOmitted, Source::Profile, format!("{} takes temperature or top_p, not both", profile.label));
        }
        if let Some(cap) = shape.cap {
            shape.note(Adaptation::Capped(cap), Source::Profile, format!("{model} writes at most {cap} tokens a reply"));
        }
        shape
    }

    /// The shape `profile` and `model` give, with the adaptations a results file or run record kept (see
    /// [`notes_json`](Self::notes_json)) applied again.
    pub fn resumed(profile: &'static Profile, wire: Wire, model: &str, kept: Option<&Value>) -> RequestShape {
        let mut shape = RequestShape::new(profile, wire, model);
        for note in kept.and_then(Value::as_array).into_iter().flatten().filter_map(Note::from_json) {
            if note.source == Source::Endpoint {
                shape.apply(note.adaptation.clone());
                shape.notes.push(note);
            }
        }
        shape
    }

    fn note(&mut self, adaptation: Adaptation, source: Source, why: String) {
        self.notes.push(Note { adaptation, source, why });
    }

    fn apply(&mut self, adaptation: Adaptation) {
        match adaptation {
            Adaptation::LimitRenamed(name) => self.limit = name,
            Adaptation::TemperatureOmitted => self.omit_temperature = true,
            Adaptation::TemperatureClamped(t) => self.temperature_range = (self.temperature_range.0.min(t), t),
            Adaptation::TopPOmitted => self.omit_top_p = true,
            Adaptation::Capped(n) => self.cap = Some(self.cap.map_or(n, |c| c.min(n))),
        }
    }

    /// Every adaptation so far, oldest first.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The adaptations as the results file keeps them.
    pub fn notes_json(&self) -> Value {
        Value::Array(self.notes.iter().map(Note::to_json).collect())
    }

    /// What `request` is sent with.
    pub fn sampling(&self, request: &ChatRequest) -> Sampling {
        let temperature = (!self.omit_temperature).then(|| request.temperature.clamp(self.temperature_range.0, self.temperature_range.1));
        Sampling {
            limit: self.limit,
            max_tokens: self.cap.map_or(request.max_tokens, |cap| request.max_tokens.min(cap)),
            temperature,
            top_p: (!self.omit_top_p).then_some(request.top_p),
        }
    }

    /// What a run at `temperature` will do differently from what was asked, before any request: the
    /// profile's notes, and a temperature outside the provider's range.
    pub fn planned(&self, temperature: f64, repair_max_tokens: u32) -> Vec<String> {
        let mut out: Vec<String> = self.notes.iter().map(Note::sentence).collect();
        let (low, high) = self.temperature_range;
        if !self.omit_temperature && !(low..=high).contains(&temperature) {
            out.push(format!("temperature clamped to {}: {} takes {low} to {high}", temperature.clamp(low, high), self.profile.label));
        }
        if let Some(cap) = self.cap.filter(|&c| c < repair_max_tokens) {
            out.push(format!("repair turns ask for {cap} tokens instead of {repair_max_tokens}"));
        }
        out
    }

    /// Adapts to a refusal: when `status` and `body` say that a parameter or a value is not taken, changes the
    /// shape and returns the note (the request is then sent again); `None` when the refusal is about anything
    /// else or was already adapted to.
    pub fn adapt(&mut self, status: u16, body: &str) -> Option<Note> {
        match self.respond(status, body) {
            Resend::Adapted(note) => Some(note),
            Resend::AlreadyAdapted | Resend::Stands => None,
        }
    }

    /// What to do about a refusal: adapt and send again, send again because the shape already says what the
    /// refusal asks (another of the run's requests met the same refusal first: the refused request was built
    /// before), or let it stand (it is about something else).
    pub fn respond(&mut self, status: u16, body: &str) -> Resend {
        if !matches!(status, 400 | 422) {
            return Resend::Stands;
        }
        let refusal = Refusal::read(body);
        let Some(adaptation) = adaptation_for(&refusal) else { return Resend::Stands };
        if self.in_effect(&adaptation) {
            return Resend::AlreadyAdapted;
        }
        self.apply(adaptation.clone());
        let why = format!("the endpoint said: {}", short(&refusal.message, 160));
        self.note(adaptation, Source::Endpoint, why);
        Resend::Adapted(self.notes.last().cloned().expect("a note was just added"))
    }

    /// True when the shape already does what `adaptation` asks.
    fn in_effect(&self, adaptation: &Adaptation) -> bool {
        match *adaptation {
            Adaptation::LimitRenamed(name) => self.limit == name,
            Adaptation::TemperatureOmitted => self.omit_temperature,
            Adaptation::TemperatureClamped(t) => self.omit_temperature || self.temperature_range.1 <= t,
            Adaptation::TopPOmitted => self.omit_top_p,
            Adaptation::Capped(n) => self.cap.is_some_and(|c| c <= n),
        }
    }
}

/// What a refused request calls for (see [`RequestShape::respond`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Resend {
    /// The shape changed as the note says; send the request again.
    Adapted(Note),
    /// The shape already does what the refusal asks; send the request again as it now says.
    AlreadyAdapted,
    /// The refusal is about something else: it ends the request.
    Stands,
}

/// The adaptation a refusal asks for, whatever the shape does now.
fn adaptation_for(refusal: &Refusal) -> Option<Adaptation> {
    let message = refusal.message.to_ascii_lowercase();
    let param = refusal.param.as_deref().unwrap_or_default();
    let about = |name: &str| {
        param == name || message.contains(&format!("'{name}'")) || message.contains(&format!("`{name}`")) || message.starts_with(&format!("{name}:")) || message.contains(&format!("\"{name}\""))
    };
    let unsupported = refusal.code.as_deref().is_some_and(|c| c.starts_with("unsupported"))
        || message.contains("not supported")
        || message.contains("unsupported")
        || message.contains("does not support")
        || message.contains("only the default");
    // A cap first: "… at most N completion tokens", "… > N, which is the maximum …", "… range of max_tokens is [1, N]".
    if let Some(cap) = stated_cap(&message).filter(|&c| c > 0) {
        return Some(Adaptation::Capped(cap));
    }
    if about("max_tokens") && message.contains("max_completion_tokens") {
        return Some(Adaptation::LimitRenamed(LimitParam::MaxCompletionTokens));
    }
    let names_only_the_new_name = param == "max_completion_tokens" || (message.contains("max_completion_tokens") && !message.contains("max_tokens"));
    let not_taken = unsupported || message.contains("unrecognized") || message.contains("not permitted") || message.contains("unknown");
    if names_only_the_new_name && not_taken {
        return Some(Adaptation::LimitRenamed(LimitParam::MaxTokens));
    }
    if about("top_p") && (unsupported || message.contains("cannot both") || message.contains("cannot be used")) {
        return Some(Adaptation::TopPOmitted);
    }
    if about("temperature") {
        if let Some(high) = stated_range_top(&message) {
            return Some(Adaptation::TemperatureClamped(high));
        }
        if unsupported {
            return Some(Adaptation::TemperatureOmitted);
        }
    }
    None
}

/// An error body, read in any provider's layout: OpenAI's `{"error": {message, param, code}}`, Anthropic's
/// `{"type": "error", "error": {type, message}}`, vLLM's `{"object": "error", message}`, or plain text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refusal {
    /// The message.
    pub message: String,
    /// The parameter it names, when the body says.
    pub param: Option<String>,
    /// The error code, when given.
    pub code: Option<String>,
}

impl Refusal {
    /// Reads `body`; a body that is not JSON is the message itself.
    pub fn read(body: &str) -> Refusal {
        let Ok(json) = serde_json::from_str::<Value>(body) else {
            return Refusal { message: body.trim().to_string(), ..Refusal::default() };
        };
        let error = match json.get("error") {
            Some(Value::Array(list)) => list.first().unwrap_or(&json),
            Some(inner) if inner.is_object() => inner,
            _ => &json,
        };
        let text = |v: Option<&Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let message = text(error.get("message")).or_else(|| text(json.get("message"))).or_else(|| text(json.get("detail"))).unwrap_or_else(|| body.trim().to_string());
        Refusal { message, param: text(error.get("param")), code: text(error.get("code")) }
    }
}

/// The cap an error message states, in any of the wordings providers use.
fn stated_cap(message: &str) -> Option<u32> {
    // OpenAI: "… supports at most 16384 completion tokens, whereas you provided 32768."
    if let Some(at) = message.find("at most ") {
        if message[at..].contains("completion tokens") || message[at..].contains("output tokens") {
            return leading_number(&message[at + "at most ".len()..]);
        }
    }
    // Anthropic: "max_tokens: 32768 > 8192, which is the maximum allowed number of output tokens for …"
    if message.contains("maximum allowed") {
        if let Some(at) = message.find(" > ") {
            return leading_number(&message[at + 3..]);
        }
    }
    // DeepSeek: "… the valid range of max_tokens is [1, 8192]"; Groq: "… must be less than or equal to `8192` …"
    if message.contains("max_tokens") || message.contains("max_completion_tokens") {
        if let Some(at) = message.find("less than or equal to ") {
            return leading_number(message[at + "less than or equal to ".len()..].trim_start_matches(['`', '\'']));
        }
        if let Some(at) = message.find("range of max_tokens is [") {
            let rest = &message[at + "range of max_tokens is [".len()..];
            return rest.split_once(',').and_then(|(_, high)| leading_number(high.trim_start()));
        }
    }
    // vLLM: "… maximum context length is 32768 tokens and your request has 200 input tokens …"
    if let (Some(at), Some(input)) = (message.find("maximum context length is "), message.find("your request has ")) {
        let context = leading_number(&message[at + "maximum context length is ".len()..])?;
        let used = leading_number(&message[input + "your request has ".len()..])?;
        return context.checked_sub(used).filter(|&room| room > 0);
    }
    None
}

/// The top of a range a message states: "temperature: range: 0..1", "between 0 and 1", "[0, 1.5]".
fn stated_range_top(message: &str) -> Option<f64> {
    let number = |text: &str| -> Option<f64> {
        let end = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
        text[..end].trim_end_matches('.').parse().ok()
    };
    if let Some(at) = message.find("..") {
        return number(&message[at + 2..]);
    }
    if let Some(at) = message.find(" and ").filter(|_| message.contains("between")) {
        return number(&message[at + 5..]);
    }
    None
}

fn leading_number(text: &str) -> Option<u32> {
    let digits: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == ',').filter(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn short(text: &str, chars: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::agent::{Message, RequestKind, Role};

    fn request(max_tokens: u32, temperature: f64) -> ChatRequest {
        ChatRequest { messages: vec![Message::new(Role::User, "u")], max_tokens, temperature, top_p: 0.95, repair: false, turn: 0, kind: RequestKind::Turn }
    }

    // OpenAI's published refusals for its reasoning models and its completion caps, word for word.
    const MAX_TOKENS_REFUSED: &str = r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
    const TEMPERATURE_REFUSED: &str = r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#;
    const CAP_REFUSED: &str = r#"{"error": {"message": "max_tokens is too large: 32768. This model supports at most 16384 completion tokens, whereas you provided 32768.", "type": "invalid_request_error", "param": "max_tokens", "code": null}}"#;

    #[test]
    fn every_profile_has_a_unique_name_a_url_and_a_wire_it_speaks() {
        for p in PROFILES {
            assert_eq!(profile(p.key).unwrap().key, p.key);
            assert!(p.base_url.starts_with("http") && p.wires.contains(&p.wire), "{p:?}");
            assert!(p.temperature.0 <= p.temperature.1);
        }
        let error = profile("anthropik").unwrap_err();
        assert!(error.contains("unknown provider `anthropik`") && error.contains("anthropic"), "{error}");
    }

    #[test]
    fn base_urls_name_their_provider() {
        assert_eq!(infer("https://api.openai.com/v1").key, "openai");
        assert_eq!(infer("https://myres.openai.azure.com/openai/deployments/chat?api-version=2024-10-21").key, "azure");
        assert_eq!(infer("https://api.anthropic.com/v1/").key, "anthropic");
        assert_eq!(infer("https://generativelanguage.googleapis.com/v1beta/openai").key, "gemini");
        assert_eq!(infer("http://localhost:11434/v1").key, "ollama");
        assert_eq!(infer("http://127.0.0.1:1234/v1").key, "lmstudio");
        assert_eq!(infer("http://127.0.0.1:5555/v1").key, "compatible");
        assert_eq!(infer("not a url").key, "compatible");
    }

    #[test]
    fn the_reasoning_family_is_asked_as_it_wants_from_the_first_request() {
        let openai = profile("openai").unwrap();
        let shape = RequestShape::new(openai, Wire::ChatCompletions, "gpt-5-mini");
        let sent = shape.sampling(&request(32_768, 0.0));
        assert_eq!(sent, Sampling { limit: LimitParam::MaxCompletionTokens, max_tokens: 32_768, temperature: None, top_p: None });
        let classic = RequestShape::new(openai, Wire::ChatCompletions, "gpt-4o-mini");
        let sent = classic.sampling(&request(32_768, 0.0));
        assert_eq!((sent.max_tokens, sent.temperature), (16_384, Some(0.0)), "the repair limit is clamped to the model's cap");
        assert!(classic.planned(0.0, 32_768).iter().any(|l| l.contains("16384 tokens instead of 32768")));
        let anthropic = RequestShape::new(profile("anthropic").unwrap(), Wire::Messages, "claude-3-5-haiku-latest");
        let sent = anthropic.sampling(&request(16_384, 1.5));
        assert_eq!(sent, Sampling { limit: LimitParam::MaxTokens, max_tokens: 8_192, temperature: Some(1.0), top_p: None });
        assert!(anthropic.planned(1.5, 16_384).iter().any(|l| l.contains("temperature clamped to 1")));
    }

    #[test]
    fn refusals_of_an_unknown_model_are_negotiated_once_each() {
        // A gpt-5 model behind a generic OpenAI-compatible URL: nothing is known before the first refusal.
        let mut shape = RequestShape::new(compatible(), Wire::ChatCompletions, "gpt-5-mini");
        assert!(shape.notes().is_empty());
        let note = shape.adapt(400, MAX_TOKENS_REFUSED).expect("renamed");
        assert_eq!(note.adaptation, Adaptation::LimitRenamed(LimitParam::MaxCompletionTokens));
        assert!(note.sentence().starts_with("requests sent with max_completion_tokens: the endpoint said: Unsupported parameter"), "{}", note.sentence());
        assert_eq!(shape.adapt(400, MAX_TOKENS_REFUSED), None, "the same refusal again adapts nothing new");
        assert_eq!(shape.respond(400, MAX_TOKENS_REFUSED), Resend::AlreadyAdapted, "it is sent again as the shape now says");
        assert_eq!(shape.adapt(400, TEMPERATURE_REFUSED).map(|n| n.adaptation), Some(Adaptation::TemperatureOmitted));
        let top_p = r#"{"error": {"message": "Unsupported parameter: 'top_p' is not supported with this model.", "type": "invalid_request_error", "param": "top_p", "code": "unsupported_parameter"}}"#;
        assert_eq!(shape.adapt(400, top_p).map(|n| n.adaptation), Some(Adaptation::TopPOmitted));
        let sent = shape.sampling(&request(100, 0.0));
        assert_eq!((sent.limit, sent.temperature, sent.top_p), (LimitParam::MaxCompletionTokens, None, None));
        assert_eq!(shape.respond(401, MAX_TOKENS_REFUSED), Resend::Stands, "only a 400 or 422 is a refusal of parameters");
        assert_eq!(shape.respond(400, r#"{"error": {"message": "Invalid 'messages[1].content': string too long."}}"#), Resend::Stands, "about anything else");
    }

    #[test]
    fn stated_caps_clamp_the_limit_and_only_ever_lower_it() {
        let mut shape = RequestShape::new(compatible(), Wire::ChatCompletions, "some-model");
        assert_eq!(shape.adapt(400, CAP_REFUSED).map(|n| n.adaptation), Some(Adaptation::Capped(16_384)));
        assert_eq!(shape.sampling(&request(32_768, 0.0)).max_tokens, 16_384);
        assert_eq!(shape.sampling(&request(100, 0.0)).max_tokens, 100, "a smaller limit is kept");
        assert_eq!(shape.adapt(400, CAP_REFUSED), None, "no new adaptation");
        assert_eq!(shape.respond(400, CAP_REFUSED), Resend::AlreadyAdapted, "a request built before the cap was learnt goes again");
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 16384 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022"}}"#;
        assert_eq!(shape.adapt(400, anthropic).map(|n| n.adaptation), Some(Adaptation::Capped(8_192)));
        let deepseek = r#"{"error":{"message":"Invalid max_tokens value, the valid range of max_tokens is [1, 8192]","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#;
        let groq = r#"{"error":{"message":"`max_tokens` must be less than or equal to `4096`, the maximum value for `max_tokens` is less than the `context_window` for this model","type":"invalid_request_error"}}"#;
        let vllm = r#"{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 4096 tokens and your request has 296 input tokens (8192 > 4096 - 296).","type":"BadRequestError","param":null,"code":400}"#;
        for (body, cap) in [(deepseek, 8_192), (groq, 4_096), (vllm, 3_800)] {
            let mut fresh = RequestShape::new(compatible(), Wire::ChatCompletions, "m");
            assert_eq!(fresh.adapt(400, body).map(|n| n.adaptation), Some(Adaptation::Capped(cap)), "{body}");
        }
    }

    #[test]
    fn anthropic_temperature_and_top_p_refusals_are_met() {
        let mut shape = RequestShape::new(compatible(), Wire::ChatCompletions, "claude-sonnet-4-5");
        let range = r#"{"type":"error","error":{"type":"invalid_request_error","message":"temperature: range: 0..1"}}"#;
        assert_eq!(shape.adapt(400, range).map(|n| n.adaptation), Some(Adaptation::TemperatureClamped(1.0)));
        assert_eq!(shape.sampling(&request(10, 1.7)).temperature, Some(1.0));
        let both = r#"{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` and `top_p` cannot both be specified for this model. Please use only one."}}"#;
        assert_eq!(shape.adapt(400, both).map(|n| n.adaptation), Some(Adaptation::TopPOmitted));
        assert_eq!(shape.respond(400, range), Resend::AlreadyAdapted);
        assert_eq!(shape.sampling(&request(10, 0.0)).top_p, None);
    }

    #[test]
    fn adaptations_survive_a_resume_and_bodies_of_any_shape_are_read() {
        let mut shape = RequestShape::new(compatible(), Wire::ChatCompletions, "gpt-5-mini");
        shape.adapt(400, MAX_TOKENS_REFUSED).unwrap();
        shape.adapt(400, CAP_REFUSED).unwrap();
        let kept = shape.notes_json();
        let resumed = RequestShape::resumed(compatible(), Wire::ChatCompletions, "gpt-5-mini", Some(&kept));
        assert_eq!(resumed, shape);
        assert_eq!(kept[0]["sentence"], shape.notes()[0].sentence());
        assert_eq!(Refusal::read("<html>502 Bad Gateway</html>").message, "<html>502 Bad Gateway</html>");
        assert_eq!(Refusal::read(r#"{"detail": "Not Found"}"#).message, "Not Found");
        assert_eq!(Refusal::read(r#"[{"error": {"message": "x"}}]"#).message, r#"[{"error": {"message": "x"}}]"#);
        assert_eq!(Refusal::read(r#"{"error": [{"message": "gemini says", "code": 400}]}"#).message, "gemini says");
        let mut plain = RequestShape::new(compatible(), Wire::ChatCompletions, "m");
        assert_eq!(plain.adapt(400, "not json at all"), None, "a body that is not JSON and names nothing stands");
    }

    #[test]
    fn request_urls_keep_required_query_parameters_after_the_path() {
        let azure = profile("azure").unwrap();
        let base = "https://res.openai.azure.com/openai/deployments/chat";
        assert_eq!(azure.request_url(base, Wire::ChatCompletions), "https://res.openai.azure.com/openai/deployments/chat/chat/completions?api-version=2024-10-21");
        assert_eq!(
            azure.request_url(&format!("{base}/?api-version=2025-01-01-preview"), Wire::ChatCompletions),
            "https://res.openai.azure.com/openai/deployments/chat/chat/completions?api-version=2025-01-01-preview"
        );
        assert_eq!(profile("anthropic").unwrap().request_url("https://api.anthropic.com/v1/", Wire::Messages), "https://api.anthropic.com/v1/messages");
        assert_eq!(compatible().models_url("http://h/v1"), "http://h/v1/models");
        assert_eq!(azure.with_required_query(base), format!("{base}?api-version=2024-10-21"), "the version requests use is recorded");
        assert_eq!(azure.with_required_query(&format!("{base}?api-version=2025-01-01-preview")), format!("{base}?api-version=2025-01-01-preview"));
        assert_eq!(compatible().with_required_query("http://h/v1/"), "http://h/v1/", "nothing required, nothing changed");
        assert!(azure.base_url_problem("https://res.openai.azure.com/openai").unwrap().contains("names its deployment"));
        assert!(azure.base_url_problem(azure.base_url).unwrap().contains("placeholders"));
        assert_eq!(azure.base_url_problem(base), None);
        let full = compatible().base_url_problem("http://h/v1/chat/completions").unwrap();
        assert!(full.contains("already ends in `/chat/completions`") && full.contains("(http://h/v1)"), "{full}");
        assert!(profile("anthropic").unwrap().base_url_problem("https://api.anthropic.com/v1/messages").unwrap().contains("`/messages`"));
    }
}
