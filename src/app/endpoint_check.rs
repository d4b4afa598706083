//! The endpoint check's interpreter: what each probe (the CORS preflight with `/models`, a plain chat call, a
//! call offering the calculator tool) found, turned into one line each with its fix. The browser runs the
//! probes; this decides which failure means what: a request refused by CORS while the server answers a
//! no-CORS request (Ollama's `OLLAMA_ORIGINS`, vLLM's `--allowed-origins`, a provider that forbids browser
//! calls), a bad key, a wrong base URL, a model that answers without calling a tool.

/// The probes, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// `GET /models` with the request headers: passes the CORS preflight or not.
    Models,
    /// A chat call without tools.
    Chat,
    /// A chat call offering the calculator, asked to use it.
    ToolCall,
}

impl Probe {
    /// The line's label.
    pub fn label(self) -> &'static str {
        match self {
            Probe::Models => "CORS and /models",
            Probe::Chat => "chat call",
            Probe::ToolCall => "tool call",
        }
    }
}

/// What a probe saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// It worked; the detail says what came back.
    Ok(String),
    /// The server answered with this status and body.
    Http(u16, String),
    /// fetch failed, yet a no-CORS request reached the server: the browser refused the reply (CORS).
    CorsRefused,
    /// fetch failed and the server could not be reached at all.
    Unreachable(String),
    /// A reply came back but could not be read.
    Malformed(String),
    /// The reply had no tool call although the calculator was offered and asked for.
    NoToolCall,
}

/// One line of the check's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine {
    /// Which probe.
    pub probe: Probe,
    /// Passed or not.
    pub ok: bool,
    /// What happened and, on failure, how to fix it.
    pub message: String,
}

/// The report line of `probe` that saw `seen`.
pub fn explain(probe: Probe, seen: &Seen) -> CheckLine {
    let (ok, message) = match seen {
        Seen::Ok(detail) => (true, detail.clone()),
        Seen::CorsRefused => (false, "the server answered, but its reply lacks the CORS headers that let this page read it, so the browser refused it. \
Ollama: start it with OLLAMA_ORIGINS=* (or this page's origin). vLLM: start it with --allowed-origins '[\"*\"]'. \
llama.cpp server and LM Studio: enable CORS in their settings. A hosted provider that forbids calls from browsers cannot be used from this page: \
use `arbigraph eval` from the command line, or a local proxy that adds the headers.".to_string()),
        Seen::Unreachable(reason) => (false, format!("no answer from the server ({reason}): check the base URL, that the server is running, and that it listens on the address given.")),
        Seen::Http(401 | 403, body) => (false, format!("refused by the server ({}): check the API key{}.", short(body), if probe == Probe::Models { " (some servers also refuse /models; the chat call below decides)" } else { "" })),
        Seen::Http(404, body) => (false, format!("not found ({}): the base URL should end where `/chat/completions` and `/models` follow, usually in `/v1`.", short(body))),
        Seen::Http(status, body) => (false, format!("HTTP {status}: {}", short(body))),
        Seen::Malformed(reason) => (false, format!("the reply is not an OpenAI-compatible chat completion: {reason}")),
        Seen::NoToolCall => (false, "the model answered without calling the calculator it was offered: it may lack tool (function) calling. \
Pick a model with tool support (Ollama lists them as `tools`; vLLM needs --enable-auto-tool-choice and a --tool-call-parser for the model).".to_string()),
    };
    CheckLine { probe, ok, message }
}

/// A body cut to one short line for a report.
fn short(body: &str) -> String {
    let line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 160 {
        format!("{}…", line.chars().take(160).collect::<String>())
    } else if line.is_empty() {
        "empty body".into()
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cors_refusal_names_cors_and_the_fixes_of_the_common_servers() {
        let line = explain(Probe::Models, &Seen::CorsRefused);
        assert!(!line.ok);
        for needle in ["CORS", "OLLAMA_ORIGINS", "--allowed-origins", "forbids calls from browsers"] {
            assert!(line.message.contains(needle), "{needle} in {}", line.message);
        }
        assert_eq!(line.probe.label(), "CORS and /models");
    }

    #[test]
    fn each_failure_says_what_to_check() {
        assert!(explain(Probe::Chat, &Seen::Http(401, "{\"error\": \"bad key\"}".into())).message.contains("API key"));
        assert!(explain(Probe::Models, &Seen::Http(404, String::new())).message.contains("/v1"));
        assert!(explain(Probe::Chat, &Seen::Unreachable("Failed to fetch".into())).message.contains("server is running"));
        let tools = explain(Probe::ToolCall, &Seen::NoToolCall);
        assert!(!tools.ok && tools.message.contains("tool"));
        let long = explain(Probe::Chat, &Seen::Http(500, "x ".repeat(500)));
        assert!(long.message.chars().count() < 200 && long.message.ends_with('…'), "{}", long.message);
        let fine = explain(Probe::ToolCall, &Seen::Ok("the model called the calculator".into()));
        assert!(fine.ok && fine.message.contains("calculator"));
    }
}
