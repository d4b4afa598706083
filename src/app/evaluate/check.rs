//! The endpoint check's interpreter: what each probe (the CORS preflight with `/models`, a plain chat call, a
//! call offering the calculator tool) found, turned into one line each with its fix. The browser runs the
//! probes; this decides which failure means what: a request refused by CORS while the server answers a
//! no-CORS request (Ollama's `OLLAMA_ORIGINS`, vLLM's `--allowed-origins`, a provider that forbids browser
//! calls), a bad key, a wrong base URL, a model that answers without calling a tool, a model that refuses or
//! cannot read a picture (image tasks need a vision model).

use crate::engine::agent::error::excerpt;
use crate::engine::agent::{ImagePart, Profile};
use crate::engine::dataset::data_url;
use crate::engine::tasks::image::draw::{Drawing, Mark};
use crate::engine::tasks::image::font;

/// The probes, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// `GET /models` with the request headers: passes the CORS preflight or not.
    Models,
    /// A chat call without tools.
    Chat,
    /// A chat call offering the calculator, asked to use it.
    ToolCall,
    /// A chat call with a small picture of a number, asked to read it.
    Image,
    /// What the run will change in its requests to suit the provider and model (known rules and refusals met).
    Parameters,
}

impl Probe {
    /// The line's label.
    pub fn label(self) -> &'static str {
        match self {
            Probe::Models => "CORS and /models",
            Probe::Chat => "chat call",
            Probe::ToolCall => "tool call",
            Probe::Image => "image input",
            Probe::Parameters => "request parameters",
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
    /// The picture was accepted, but the reply did not contain the number drawn in it.
    ImageMisread(String),
}

/// The number the image probe draws.
pub const PROBE_NUMBER: u32 = 47;

/// The image probe's picture size in pixels.
const PROBE_SIZE: (u32, u32) = (160, 112);

/// The image probe's PNG as `probe_png` draws it, kept beside this file (a test checks they agree), so the page
/// sends it without carrying the rasteriser.
const PROBE_PNG: &[u8] = include_bytes!("check_probe.png");

/// The image probe's picture: `PROBE_NUMBER` drawn large on a 160x112 canvas in the image tasks' own digit
/// strokes, as a PNG data URL.
pub fn probe_picture() -> ImagePart {
    ImagePart { url: data_url(PROBE_PNG), width: PROBE_SIZE.0, height: PROBE_SIZE.1, label: "Image 1:".into() }
}

/// Draws the image probe's PNG (what `check_probe.png` holds).
pub fn probe_png() -> Result<Vec<u8>, String> {
    let (width, height) = PROBE_SIZE;
    let scale = 110.0 / font::text_width(PROBE_NUMBER.to_string().len());
    let marks = font::number_strokes(PROBE_NUMBER, width as f32 / 2.0, height as f32 / 2.0, scale)
        .into_iter()
        .map(|points| Mark::Polyline { points, width: 7.0 })
        .collect();
    Drawing { width, height, marks }.to_png().map_err(|e| e.to_string())
}

/// What the image probe's reply text means: the number read, or a misreading.
pub fn read_image_reply(text: &str) -> Seen {
    let wanted = PROBE_NUMBER.to_string();
    let numbers: Vec<&str> = text.split(|c: char| !c.is_ascii_digit()).filter(|t| !t.is_empty()).collect();
    if numbers.contains(&wanted.as_str()) {
        Seen::Ok(format!("the model accepted a picture and read the number {wanted} in it"))
    } else {
        Seen::ImageMisread(short(text))
    }
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
    /// Items the message introduces, one sentence each (the parameters line's adaptations).
    pub details: Vec<String>,
}

impl CheckLine {
    /// A line without details.
    pub fn new(probe: Probe, ok: bool, message: String) -> CheckLine {
        CheckLine { probe, ok, message, details: Vec::new() }
    }
}

/// The report line of `probe` that saw `seen` on an endpoint of `profile`: a CORS refusal names what that
/// provider needs, where it is known.
pub fn explain_for(profile: &Profile, probe: Probe, seen: &Seen) -> CheckLine {
    if *seen == Seen::CorsRefused && profile.key != "compatible" {
        let mut message = format!("the server answered, but the browser refused its reply (no CORS headers for this page). {}: {}.", profile.label, profile.browser);
        if !profile.browser_headers.is_empty() {
            message.push_str(" This page sends that header: check the base URL and the key (some refusals come without CORS headers).");
        }
        message.push_str(" Otherwise use `arbigraph eval` from the command line, or a local proxy that adds the headers.");
        return CheckLine::new(probe, false, message);
    }
    explain(probe, seen)
}

/// The parameters line: what the run will do differently from what was asked, one detail per adaptation (or
/// that nothing changes).
pub fn parameters_line(planned: &[String]) -> CheckLine {
    if planned.is_empty() {
        return CheckLine::new(Probe::Parameters, true, "requests go as set: nothing needs adapting for this provider and model".into());
    }
    CheckLine { probe: Probe::Parameters, ok: true, message: "the run will adapt its requests:".into(), details: planned.to_vec() }
}

/// The report line of `probe` that saw `seen`.
pub fn explain(probe: Probe, seen: &Seen) -> CheckLine {
    let (ok, message) = match seen {
        Seen::Ok(detail) => (true, detail.clone()),
        Seen::CorsRefused => (false, "the server answered, but its reply lacks the CORS headers that let this page read it, so the browser refused it. \
Ollama: start it with `OLLAMA_ORIGINS=*` (or this page's origin). vLLM: start it with `--allowed-origins '[\"*\"]'`. \
llama.cpp server and LM Studio: enable CORS in their settings. Anthropic: choose its preset, which sends the \
`anthropic-dangerous-direct-browser-access: true` header it asks of browser pages. A hosted provider that forbids calls from browsers cannot be used from this page: \
use `arbigraph eval` from the command line, or a local proxy that adds the headers.".to_string()),
        Seen::Unreachable(reason) => (false, format!("no answer from the server ({reason}): check the base URL, that the server is running, and that it listens on the address given.")),
        Seen::Http(400 | 413 | 415 | 422, body) if probe == Probe::Image => (false, format!("the endpoint refused a message with a picture ({}): the model probably does not accept images. \
Image tasks need a vision model (for example a -vl or vision variant); text tasks are unaffected.", short(body))),
        Seen::Http(401 | 403, body) => (false, format!("refused by the server ({}): check the API key{}.", short(body), if probe == Probe::Models { " (some servers also refuse /models; the chat call below decides)" } else { "" })),
        Seen::Http(404, body) => (false, format!("not found ({}): the base URL should end where `/chat/completions` and `/models` follow, usually in `/v1`.", short(body))),
        Seen::Http(status, body) => (false, format!("HTTP {status}: {}", short(body))),
        Seen::Malformed(reason) => (false, format!("the reply is not an OpenAI-compatible chat completion: {reason}")),
        Seen::ImageMisread(reply) => (false, format!("the model took the picture but did not read the number {PROBE_NUMBER} drawn in it (it answered: {reply}): \
it may ignore images, so image tasks will fail with it; pick a vision model for them.")),
        Seen::NoToolCall => (false, "the model answered without calling the calculator it was offered: it may lack tool (function) calling. \
Pick a model with tool support (Ollama lists them as `tools`; vLLM needs --enable-auto-tool-choice and a --tool-call-parser for the model).".to_string()),
    };
    CheckLine::new(probe, ok, message)
}

/// A body cut to one short line for a report (an HTML page reduced to its title first).
fn short(body: &str) -> String {
    let body = excerpt(body);
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
        for needle in ["CORS", "OLLAMA_ORIGINS", "--allowed-origins", "anthropic-dangerous-direct-browser-access", "forbids calls from browsers"] {
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

    #[test]
    fn the_image_probe_draws_its_number_as_a_png_and_reads_the_reply() {
        let drawn = probe_png().expect("a small picture renders");
        let stored = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app/evaluate/check_probe.png");
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&stored, &drawn).unwrap();
        }
        assert!(drawn == PROBE_PNG, "the stored probe picture is the drawn one (UPDATE_EXPECT=1 cargo test --lib evaluate::check rewrites it)");
        let part = probe_picture();
        assert_eq!((part.width, part.height), (160, 112));
        use base64::Engine as _;
        let b64 = part.url.strip_prefix("data:image/png;base64,").expect("a PNG data URL");
        let png = base64::engine::general_purpose::STANDARD.decode(b64).expect("base64");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Width and height in the IHDR chunk.
        assert_eq!((u32::from_be_bytes(png[16..20].try_into().unwrap()), u32::from_be_bytes(png[20..24].try_into().unwrap())), (160, 112));
        assert!(read_image_reply("The number is 47.").is_ok_seen());
        assert!(read_image_reply("47").is_ok_seen());
        assert_eq!(read_image_reply("I see 147"), Seen::ImageMisread("I see 147".into()));
        let misread = explain(Probe::Image, &read_image_reply("a cat"));
        assert!(!misread.ok && misread.message.contains("vision model") && misread.message.contains("a cat"));
        let refused = explain(Probe::Image, &Seen::Http(400, "{\"error\": \"image input is not supported\"}".into()));
        assert!(!refused.ok && refused.message.contains("does not accept images"), "{}", refused.message);
        assert!(explain(Probe::Chat, &Seen::Http(400, "bad".into())).message.starts_with("HTTP 400"), "other probes keep the plain message");
    }

    #[test]
    fn a_provider_s_own_needs_replace_the_generic_cors_advice_and_adaptations_are_listed() {
        use crate::engine::agent::provider::{compatible, profile};
        let anthropic = explain_for(profile("anthropic").unwrap(), Probe::Models, &Seen::CorsRefused);
        assert!(anthropic.message.contains("anthropic-dangerous-direct-browser-access") && !anthropic.message.contains("OLLAMA_ORIGINS"), "{}", anthropic.message);
        let ollama = explain_for(profile("ollama").unwrap(), Probe::Models, &Seen::CorsRefused);
        assert!(ollama.message.contains("OLLAMA_ORIGINS"), "{}", ollama.message);
        assert_eq!(explain_for(compatible(), Probe::Models, &Seen::CorsRefused), explain(Probe::Models, &Seen::CorsRefused));
        let planned = parameters_line(&["requests sent with max_completion_tokens: OpenAI takes it".into(), "temperature omitted: gpt-5-mini takes only 1".into()]);
        assert!(planned.ok && planned.message == "the run will adapt its requests:", "{}", planned.message);
        assert_eq!(planned.details.len(), 2);
        assert!(planned.details[0].contains("max_completion_tokens") && planned.details[1].starts_with("temperature omitted"));
        assert!(parameters_line(&[]).message.contains("nothing needs adapting"));
    }

    impl Seen {
        fn is_ok_seen(&self) -> bool {
            matches!(self, Seen::Ok(_))
        }
    }
}
