//! The browser driver of the agent loop: each `ChatRequest` becomes a fetch POST to an OpenAI-compatible
//! `/chat/completions`, with retries (429 honouring `Retry-After`, 5xx, network errors; capped exponential
//! backoff with jitter). The API key is sent as a header and nowhere else.

use crate::engine::agent::openai_wire::{parse_reply, request_json};
use crate::engine::agent::{AgentError, ChatReply, ChatRequest};

/// Where and how to call.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    /// Base URL up to `/v1` (`https://api.example.com/v1`).
    pub base_url: String,
    pub model: String,
    /// Kept in memory only; never stored or exported.
    pub api_key: String,
    /// Attempts per request (first try included).
    pub max_attempts: u32,
}

/// Sleeps without blocking the tab.
pub async fn sleep_ms(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Sends one request with retries; the error never contains the key.
pub async fn send(endpoint: &Endpoint, request: &ChatRequest) -> Result<ChatReply, AgentError> {
    let url = format!("{}/chat/completions", endpoint.base_url.trim_end_matches('/'));
    let body = request_json(request, &endpoint.model);
    let mut last = String::new();
    for attempt in 0..endpoint.max_attempts.max(1) {
        let started = js_sys::Date::now();
        let mut builder = gloo_net::http::Request::post(&url);
        if !endpoint.api_key.is_empty() {
            builder = builder.header("Authorization", &format!("Bearer {}", endpoint.api_key));
        }
        let sent = match builder.json(&body) {
            Ok(req) => req.send().await,
            Err(e) => return Err(AgentError { message: format!("cannot encode the request: {e}") }),
        };
        let retry_after = match sent {
            Ok(response) => {
                let status = response.status();
                let text = response.text().await.unwrap_or_default();
                if (200..300).contains(&status) {
                    match parse_reply(&text) {
                        Ok(mut reply) => {
                            reply.latency_ms = Some((js_sys::Date::now() - started) as u64);
                            return Ok(reply);
                        }
                        Err(e) => {
                            last = format!("malformed reply: {e}");
                            None
                        }
                    }
                } else {
                    let excerpt: String = text.chars().take(200).collect();
                    last = format!("HTTP {status}: {excerpt}");
                    if status != 429 && status < 500 {
                        return Err(AgentError { message: last });
                    }
                    response.headers().get("retry-after").and_then(|v| v.trim().parse::<f64>().ok())
                }
            }
            Err(e) => {
                last = format!("network error: {e}");
                None
            }
        };
        if attempt + 1 < endpoint.max_attempts {
            let backoff = 500.0 * 2f64.powi(attempt as i32);
            let jitter = js_sys::Math::random() * 250.0;
            let wait = retry_after.map(|s| s * 1000.0).unwrap_or(backoff + jitter).min(30_000.0);
            sleep_ms(wait as u32).await;
        }
    }
    Err(AgentError { message: format!("gave up after {} attempts: {last}", endpoint.max_attempts) })
}
