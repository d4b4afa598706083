//! `arbigraph probe-server`: the probe (`engine::agent::probe`) behind a small OpenAI-compatible HTTP server
//! (`POST …/chat/completions`, `GET …/models`), one thread per connection, keep-alive. It knows the datasets it
//! is given and answers as a perfect solver with amnesia, so `arbigraph eval` against it measures exactly which
//! values each context strategy keeps in view. It answers CORS preflights and marks every reply readable from any
//! origin, so the app's page can run strategies against it too. All the logic is in the engine; this file only
//! speaks HTTP.

use arbigraph_studio::engine::agent::openai_wire::{parse_request, reply_json};
use arbigraph_studio::engine::agent::probe::{Probe, ProbeOptions};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Longest request head accepted, in bytes.
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted, in bytes.
const MAX_BODY: usize = 512 * 1024 * 1024;

/// Arguments of `arbigraph probe-server`.
#[derive(clap::Args)]
pub struct Args {
    /// The dataset(s) it answers for (reference layout or JSONL, one sample per line); repeatable.
    #[arg(long, required = true)]
    dataset: Vec<PathBuf>,
    /// Port to listen on (127.0.0.1 unless --host says otherwise).
    #[arg(long, default_value_t = 8099)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Noise turns between one task's answer and the next task's call (long reasoning, an irrelevant call).
    #[arg(long, default_value_t = 0)]
    noise: u32,
    /// Characters of filler reasoning per noise turn.
    #[arg(long, default_value_t = 1_200)]
    noise_chars: usize,
}

/// Runs the command (until killed).
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => super::files::fail(message),
    }
}

fn samples_of(path: &Path) -> Result<Vec<Value>, String> {
    let text = super::files::read_text(path)?;
    if let Ok(json) = serde_json::from_str::<Value>(&text) {
        return json.get("samples").and_then(Value::as_array).cloned().ok_or_else(|| format!("{}: no `samples` array", path.display()));
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: malformed JSON: {e}", path.display(), i + 1)))
        .collect()
}

fn run_inner(args: &Args) -> Result<(), String> {
    let mut samples = Vec::new();
    for path in &args.dataset {
        samples.extend(samples_of(path)?);
    }
    let options = ProbeOptions { noise_turns: args.noise, noise_chars: args.noise_chars };
    let probe = Arc::new(Probe::new(&samples, options).map_err(|e| e.to_string())?);
    let listener = TcpListener::bind((args.host.as_str(), args.port)).map_err(|e| format!("cannot listen on {}:{}: {e}", args.host, args.port))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("[probe-server] listening on http://{address}/v1 · {} samples · noise {} turns of {} characters", samples.len(), args.noise, args.noise_chars);
    let counter = Arc::new(AtomicU64::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let (probe, counter) = (Arc::clone(&probe), Arc::clone(&counter));
        std::thread::spawn(move || serve(stream, &probe, &counter));
    }
    Ok(())
}

/// Serves requests on one connection until the client closes it.
fn serve(stream: TcpStream, probe: &Probe, counter: &AtomicU64) {
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    loop {
        let (status, body, close, cors) = match read_request(&mut reader) {
            Ok(None) => return,
            Ok(Some(request)) => {
                let (status, body) = respond(&request, probe, counter);
                (status, body, request.close, cors_headers(&request))
            }
            Err(message) => (400, error_body(&message), true, cors_headers_for(None, None)),
        };
        let reason = match status {
            200 => "OK",
            204 => "No Content",
            404 => "Not Found",
            411 => "Length Required",
            413 => "Payload Too Large",
            _ => "Bad Request",
        };
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\n{cors}{}Content-Length: {}\r\nConnection: {}\r\n\r\n",
            if body.is_empty() { "" } else { "Content-Type: application/json\r\n" },
            body.len(),
            if close { "close" } else { "keep-alive" }
        );
        if writer.write_all(head.as_bytes()).and_then(|_| writer.write_all(body.as_bytes())).and_then(|_| writer.flush()).is_err() || close {
            return;
        }
    }
}

struct HttpRequest {
    method: String,
    path: String,
    body: String,
    close: bool,
    /// `Access-Control-Request-Headers` of a preflight: the headers the page wants to send.
    request_headers: Option<String>,
    /// `Access-Control-Request-Private-Network: true`: a public page asking to reach this local server.
    private_network: bool,
}

/// CORS headers for `request`, so the app's page (served from anywhere) can use the probe endpoint: any origin,
/// and on a preflight the methods, the headers asked for (an `Authorization` header is never covered by `*`,
/// so they are echoed) and private-network access.
fn cors_headers(request: &HttpRequest) -> String {
    let preflight = request.method == "OPTIONS";
    cors_headers_for(preflight.then(|| request.request_headers.clone().unwrap_or_else(|| "*".into())), Some(preflight && request.private_network))
}

fn cors_headers_for(preflight_headers: Option<String>, private_network: Option<bool>) -> String {
    let mut out = String::from("Access-Control-Allow-Origin: *\r\n");
    match preflight_headers {
        Some(headers) => {
            out.push_str("Access-Control-Allow-Methods: GET, POST, OPTIONS\r\n");
            out.push_str(&format!("Access-Control-Allow-Headers: {headers}\r\nAccess-Control-Max-Age: 600\r\n"));
            if private_network == Some(true) {
                out.push_str("Access-Control-Allow-Private-Network: true\r\n");
            }
        }
        None => out.push_str("Access-Control-Expose-Headers: retry-after, x-request-id\r\n"),
    }
    out
}

/// Reads one request; `None` when the connection closed cleanly before one began.
fn read_request(reader: &mut BufReader<TcpStream>) -> Result<Option<HttpRequest>, String> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if n == 0 {
            return if head.is_empty() { Ok(None) } else { Err("the connection closed inside a request head".into()) };
        }
        if line == "\r\n" || line == "\n" {
            if head.is_empty() {
                continue;
            }
            break;
        }
        head.push_str(&line);
        if head.len() > MAX_HEAD {
            return Err("request head too large".into());
        }
    }
    let mut lines = head.lines();
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_string();
    let path = first.next().unwrap_or("").to_string();
    let mut length = 0usize;
    let mut close = false;
    let (mut request_headers, mut private_network) = (None, false);
    for line in lines {
        let Some((name, value)) = line.split_once(':') else { continue };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "content-length" => length = value.parse().map_err(|_| format!("bad Content-Length {value:?}"))?,
            "connection" => close = value.eq_ignore_ascii_case("close"),
            "access-control-request-headers" => request_headers = Some(value.to_string()),
            "access-control-request-private-network" => private_network = value.eq_ignore_ascii_case("true"),
            "transfer-encoding" if !value.eq_ignore_ascii_case("identity") => return Err("chunked request bodies are not supported; send Content-Length".into()),
            _ => {}
        }
    }
    if length > MAX_BODY {
        return Err(format!("request body of {length} bytes is larger than {MAX_BODY}"));
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).map_err(|e| format!("reading the body: {e}"))?;
    let body = String::from_utf8(body).map_err(|_| "the body is not UTF-8".to_string())?;
    Ok(Some(HttpRequest { method, path, body, close, request_headers, private_network }))
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message, "type": "invalid_request_error"}}).to_string()
}

fn respond(request: &HttpRequest, probe: &Probe, counter: &AtomicU64) -> (u16, String) {
    let path = request.path.split('?').next().unwrap_or("");
    match (request.method.as_str(), path) {
        ("OPTIONS", _) => (204, String::new()),
        ("POST", p) if p.ends_with("/chat/completions") => {
            let parsed = match parse_request(&request.body) {
                Ok(parsed) => parsed,
                Err(e) => return (400, error_body(&e.to_string())),
            };
            match probe.respond(&parsed.messages, parsed.tools, parsed.max_tokens) {
                Ok(reply) => {
                    let id = format!("probe-{}", counter.fetch_add(1, Ordering::Relaxed));
                    let model = if parsed.model.is_empty() { "probe".to_string() } else { parsed.model };
                    (200, reply_json(&reply, &model, &id).to_string())
                }
                Err(e) => (400, error_body(&e.to_string())),
            }
        }
        ("GET", p) if p.ends_with("/models") => (200, json!({"object": "list", "data": [{"id": "probe", "object": "model", "owned_by": "arbigraph"}]}).to_string()),
        _ => (404, error_body(&format!("no route for {} {}", request.method, request.path))),
    }
}
