//! The OpenAI-compatible `/v1/chat/completions` JSON: the only place that knows its shape. Domain requests
//! and replies are mapped by hand, tolerating provider variations (arguments as a string or an object,
//! `reasoning_content` or `reasoning`, content as a string, `null` or a list of parts, missing `usage`).
//! Streamed replies (server-sent events of `chat.completion.chunk` deltas) are put together by
//! [`StreamAccumulator`], fed text as it arrives, so a driver can show tokens live and still get one `ChatReply`.

use super::prompts::{CALCULATOR_DESCRIPTION, EXPRESSIONS_DESCRIPTION, EXPRESSION_DESCRIPTION, REQUIREMENTS_DESCRIPTION};
use super::toolcalls::CALCULATOR;
use super::chat::RequestKind;
use super::provider::Sampling;
use super::{ChatReply, ChatRequest, Message, ReplyToolCall, Role, ToolArguments, ToolCall, Usage};
use serde_json::{json, Map, Value};

/// A reply body that is not a usable chat completion.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("malformed JSON in the reply body: {0}")]
    Json(String),
    #[error("the endpoint reported an error: {0}")]
    Api(String),
    #[error("the reply has no choices[0].message")]
    NoMessage,
    #[error("not a chat-completions request: {0}")]
    BadRequest(String),
}

/// The calculator tool as a chat-completions `tools` entry.
pub fn calculator_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": CALCULATOR,
            "description": CALCULATOR_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {
                    "expressions": {"type": "array", "items": {"type": "string"}, "description": EXPRESSIONS_DESCRIPTION},
                    "expression": {"type": "string", "description": EXPRESSION_DESCRIPTION},
                    "requirements": {"type": "array", "items": {"type": "string"}, "description": REQUIREMENTS_DESCRIPTION}
                },
                "required": ["expressions"]
            }
        }
    })
}

fn message_json(message: &Message) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), json!(message.role.as_str()));
    match message.role {
        Role::Assistant if !message.tool_calls.is_empty() => {
            m.insert("content".into(), if message.content.is_empty() { Value::Null } else { json!(message.content) });
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                .collect();
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        Role::Tool => {
            m.insert("content".into(), json!(message.content));
            if let Some(id) = &message.tool_call_id {
                m.insert("tool_call_id".into(), json!(id));
            }
            if let Some(name) = &message.name {
                m.insert("name".into(), json!(name));
            }
        }
        _ if !message.images.is_empty() => {
            // OpenAI-style content parts: the text, then each picture after its label.
            let mut parts = vec![json!({"type": "text", "text": message.content})];
            for image in &message.images {
                parts.push(json!({"type": "text", "text": image.label}));
                parts.push(json!({"type": "image_url", "image_url": {"url": image.url}}));
            }
            m.insert("content".into(), Value::Array(parts));
        }
        _ => {
            m.insert("content".into(), json!(message.content));
        }
    }
    Value::Object(m)
}

/// The request body for `model` with the request's own limit, temperature and `top_p` under their classic
/// names. Turns offer the calculator; auxiliary calls (summaries) offer no tools.
pub fn request_json(request: &ChatRequest, model: &str) -> Value {
    request_json_with(request, model, &Sampling::plain(request))
}

/// The request body for `model` sent with `sampling` (a provider's names and the run's adaptations: the limit
/// as `max_tokens` or `max_completion_tokens`, the temperature and `top_p` only when sent).
pub fn request_json_with(request: &ChatRequest, model: &str, sampling: &Sampling) -> Value {
    let mut body = json!({
        "model": model,
        "messages": request.messages.iter().map(message_json).collect::<Vec<_>>(),
    });
    body[sampling.limit.as_str()] = json!(sampling.max_tokens);
    if let Some(t) = sampling.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = sampling.top_p {
        body["top_p"] = json!(p);
    }
    if request.kind == RequestKind::Turn {
        body["tools"] = json!([calculator_tool()]);
        body["tool_choice"] = json!("auto");
    }
    body["stream"] = json!(false);
    body
}

/// The request body asking for a streamed reply: `stream: true`, with the usage sent in the last chunk.
pub fn request_json_streaming(request: &ChatRequest, model: &str, sampling: &Sampling) -> Value {
    let mut body = request_json_with(request, model, sampling);
    body["stream"] = json!(true);
    body["stream_options"] = json!({"include_usage": true});
    body
}

/// A request as a server reads it (the probe endpoint).
#[derive(Clone, Debug, PartialEq)]
pub struct WireRequest {
    /// The model name asked for.
    pub model: String,
    /// The messages, in domain terms.
    pub messages: Vec<Message>,
    /// The completion limit, when given.
    pub max_tokens: Option<u32>,
    /// Whether any tool was offered.
    pub tools: bool,
}

/// Parses a request body (what [`request_json`] writes, and what other clients send).
pub fn parse_request(body: &str) -> Result<WireRequest, WireError> {
    let json: Value = serde_json::from_str(body).map_err(|e| WireError::Json(e.to_string()))?;
    let items = json.get("messages").and_then(Value::as_array).ok_or_else(|| WireError::BadRequest("no `messages` list".into()))?;
    let mut messages = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let role = match item.get("role").and_then(Value::as_str) {
            Some("system" | "developer") => Role::System,
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("tool" | "function") => Role::Tool,
            other => return Err(WireError::BadRequest(format!("messages[{i}] has role {other:?}"))),
        };
        let mut message = Message::new(role, text_of(item.get("content")));
        if let Some(calls) = item.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                let function = call.get("function").unwrap_or(call);
                let arguments = match function.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(other) => other.to_string(),
                };
                message.tool_calls.push(ToolCall {
                    id: call.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
                    name: function.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                    arguments,
                });
            }
        }
        message.tool_call_id = item.get("tool_call_id").and_then(Value::as_str).map(str::to_string);
        message.name = item.get("name").and_then(Value::as_str).map(str::to_string);
        messages.push(message);
    }
    Ok(WireRequest {
        model: json.get("model").and_then(Value::as_str).unwrap_or("").to_string(),
        messages,
        max_tokens: json.get("max_tokens").or_else(|| json.get("max_completion_tokens")).and_then(Value::as_u64).map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
        tools: json.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty()),
    })
}

/// A reply body as a server writes it: one choice, its message, the finish reason and the usage.
pub fn reply_json(reply: &ChatReply, model: &str, id: &str) -> Value {
    let mut message = json!({"role": "assistant", "content": if reply.content.is_empty() && !reply.tool_calls.is_empty() { Value::Null } else { json!(reply.content) }});
    if !reply.reasoning.is_empty() {
        message["reasoning_content"] = json!(reply.reasoning);
    }
    if !reply.tool_calls.is_empty() {
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .map(|c| {
                let arguments = match &c.arguments {
                    ToolArguments::Text(t) => t.clone(),
                    ToolArguments::Json(v) => v.to_string(),
                };
                json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments}})
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
    let mut body = json!({
        "id": id,
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason.clone().unwrap_or_else(|| "stop".into())}],
    });
    if let Some(usage) = usage_json(&reply.usage) {
        body["usage"] = usage;
    }
    body
}

/// `usage` as OpenAI writes it, details included (what [`usage_of`] reads back); `None` without both counts.
pub fn usage_json(usage: &Usage) -> Option<Value> {
    let (p, c) = (usage.prompt_tokens?, usage.completion_tokens?);
    let mut out = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
    if usage.cached_prompt_tokens.is_some() || usage.cache_write_tokens.is_some() {
        let mut details = Map::new();
        if let Some(n) = usage.cached_prompt_tokens {
            details.insert("cached_tokens".into(), json!(n));
        }
        if let Some(n) = usage.cache_write_tokens {
            details.insert("cache_write_tokens".into(), json!(n));
        }
        out["prompt_tokens_details"] = Value::Object(details);
    }
    if let Some(n) = usage.reasoning_tokens {
        out["completion_tokens_details"] = json!({"reasoning_tokens": n});
    }
    Some(out)
}

/// A `usage` object: the counts, with the details that decide what a call costs wherever a provider puts them
/// (OpenAI and most others: `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`;
/// DeepSeek: `prompt_cache_hit_tokens`; some servers: `reasoning_tokens` at the top level).
pub fn usage_of(u: &Value) -> Usage {
    let number = |path: &[&str]| {
        let mut at = u;
        for key in path {
            at = at.get(key)?;
        }
        at.as_u64()
    };
    Usage {
        prompt_tokens: number(&["prompt_tokens"]),
        completion_tokens: number(&["completion_tokens"]),
        cached_prompt_tokens: number(&["prompt_tokens_details", "cached_tokens"]).or_else(|| number(&["prompt_cache_hit_tokens"])),
        cache_write_tokens: number(&["prompt_tokens_details", "cache_write_tokens"]),
        reasoning_tokens: number(&["completion_tokens_details", "reasoning_tokens"]).or_else(|| number(&["reasoning_tokens"])),
    }
}

fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str).or(p.as_str())).collect::<Vec<_>>().join(""),
        _ => String::new(),
    }
}

/// Parses a reply body.
pub fn parse_reply(body: &str) -> Result<ChatReply, WireError> {
    let json: Value = serde_json::from_str(body).map_err(|e| WireError::Json(e.to_string()))?;
    if let Some(error) = json.get("error").filter(|e| !e.is_null()) {
        let message = error.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| error.to_string());
        return Err(WireError::Api(message));
    }
    let choice = json.get("choices").and_then(|c| c.get(0)).ok_or(WireError::NoMessage)?;
    let message = choice.get("message").filter(|m| m.is_object()).ok_or(WireError::NoMessage)?;
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for call in calls {
            let function = call.get("function").unwrap_or(call);
            let name = function.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => ToolArguments::Text(s.clone()),
                Some(Value::Null) | None => ToolArguments::Text(String::new()),
                Some(other) => ToolArguments::Json(other.clone()),
            };
            let id = call.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            tool_calls.push(ReplyToolCall { id, name, arguments });
        }
    }
    // Some servers still use the legacy single `function_call`.
    if let Some(call) = message.get("function_call").filter(|c| c.is_object()) {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let arguments = match call.get("arguments") {
            Some(Value::String(s)) => ToolArguments::Text(s.clone()),
            Some(other) => ToolArguments::Json(other.clone()),
            None => ToolArguments::Text(String::new()),
        };
        tool_calls.push(ReplyToolCall { id: String::new(), name, arguments });
    }
    let reasoning = {
        let r = text_of(message.get("reasoning_content"));
        if r.is_empty() {
            text_of(message.get("reasoning"))
        } else {
            r
        }
    };
    let usage = json.get("usage").filter(|u| u.is_object()).map(usage_of);
    Ok(ChatReply {
        content: text_of(message.get("content")),
        reasoning,
        tool_calls,
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
        usage: usage.unwrap_or_default(),
        latency_ms: None,
    })
}

/// A server-sent-event body cut into whole lines as its pieces arrive (`\n` or `\r\n` ends alike), keeping the
/// start of the body while no event has been seen, in case it is no event stream at all (a server that ignored
/// `stream: true`). Both wires' accumulators read through it.
#[derive(Clone, Debug, Default)]
pub(super) struct SseLines {
    /// Text not yet ended by a newline.
    pending: String,
    /// The body as pushed while `keep_raw` was asked, up to 16 MiB.
    raw: String,
}

impl SseLines {
    /// Adds a piece (kept whole too while `keep_raw`) and returns the lines it completed, without their ends.
    pub(super) fn push(&mut self, text: &str, keep_raw: bool) -> Vec<String> {
        if keep_raw && self.raw.len() < 16 * 1024 * 1024 {
            self.raw.push_str(text);
        }
        self.pending.push_str(text);
        let mut lines = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            lines.push(line.trim_end_matches(['\n', '\r']).to_string());
        }
        lines
    }

    /// The last line, when the body did not end with a newline.
    pub(super) fn rest(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        (!rest.is_empty()).then(|| rest.trim_end_matches('\r').to_string())
    }

    /// The body kept while no event had been seen.
    pub(super) fn raw(&self) -> &str {
        &self.raw
    }
}

/// A tool call being streamed: its pieces arrive by `index`.
#[derive(Clone, Debug, Default, PartialEq)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// What one batch of streamed text added to the reply, for a live view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamDelta {
    /// Content text added.
    pub content: String,
    /// Reasoning text added.
    pub reasoning: String,
    /// Tool-call argument text added (any call).
    pub tool_text: String,
}

impl StreamDelta {
    /// True when nothing was added.
    pub fn is_empty(&self) -> bool {
        self.content.is_empty() && self.reasoning.is_empty() && self.tool_text.is_empty()
    }
}

/// Puts a streamed chat completion together from its server-sent events (`data: {chunk}` blocks ended by a blank
/// line, `data: [DONE]` at the end). Feed it text in any pieces with [`push`](Self::push); [`finish`](Self::finish)
/// returns the whole reply. A body that turns out not to be an event stream (a server that ignored `stream: true`)
/// is parsed as a plain completion.
#[derive(Clone, Debug, Default)]
pub struct StreamAccumulator {
    /// The body cut into lines.
    lines: SseLines,
    /// `data:` lines of the event being read.
    data: Vec<String>,
    events: usize,
    done: bool,
    content: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Usage,
}

impl StreamAccumulator {
    /// A fresh accumulator.
    pub fn new() -> StreamAccumulator {
        StreamAccumulator::default()
    }

    /// Events read so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Feeds the next piece of the body; returns what complete events added. An event that carries an error
    /// object ends the reply with that error.
    pub fn push(&mut self, text: &str) -> Result<StreamDelta, WireError> {
        let mut delta = StreamDelta::default();
        for line in self.lines.push(text, self.events == 0) {
            self.line(&line, &mut delta)?;
        }
        Ok(delta)
    }

    fn line(&mut self, line: &str, delta: &mut StreamDelta) -> Result<(), WireError> {
        if line.is_empty() {
            return self.dispatch(delta);
        }
        if let Some(rest) = line.strip_prefix("data:") {
            self.data.push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
        }
        // `event:`, `id:`, `retry:` and `:` comments carry nothing a chat completion needs.
        Ok(())
    }

    fn dispatch(&mut self, delta: &mut StreamDelta) -> Result<(), WireError> {
        if self.data.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.data).join("\n");
        self.events += 1;
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(&data).map_err(|e| WireError::Json(format!("in a streamed chunk: {e}")))?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let message = error.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| error.to_string());
            return Err(WireError::Api(message));
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = usage_of(u);
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else { return Ok(()) };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
        // Some servers send the whole message in the last chunk instead of deltas.
        let Some(d) = choice.get("delta").or_else(|| choice.get("message")) else { return Ok(()) };
        let content = text_of(d.get("content"));
        let reasoning = {
            let r = text_of(d.get("reasoning_content"));
            if r.is_empty() {
                text_of(d.get("reasoning"))
            } else {
                r
            }
        };
        self.content.push_str(&content);
        self.reasoning.push_str(&reasoning);
        delta.content.push_str(&content);
        delta.reasoning.push_str(&reasoning);
        for (k, call) in d.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let index = call.get("index").and_then(Value::as_u64).map(|i| i as usize).unwrap_or(k);
            if index > 1024 {
                continue;
            }
            if self.calls.len() <= index {
                self.calls.resize(index + 1, PartialCall::default());
            }
            let slot = &mut self.calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                slot.id = id.to_string();
            }
            let function = call.get("function").unwrap_or(call);
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                slot.name.push_str(name);
            }
            match function.get("arguments") {
                Some(Value::String(piece)) => {
                    slot.arguments.push_str(piece);
                    delta.tool_text.push_str(piece);
                }
                Some(Value::Null) | None => {}
                Some(other) => slot.arguments.push_str(&other.to_string()),
            }
        }
        Ok(())
    }

    /// Ends the stream and returns the reply. A body with no event at all is read as a plain completion.
    pub fn finish(mut self) -> Result<ChatReply, WireError> {
        let mut ignored = StreamDelta::default();
        if let Some(rest) = self.lines.rest() {
            self.line(&rest, &mut ignored)?;
        }
        self.dispatch(&mut ignored)?;
        if self.events == 0 {
            return parse_reply(self.lines.raw());
        }
        let tool_calls = self
            .calls
            .into_iter()
            .filter(|c| !c.name.is_empty() || !c.arguments.is_empty())
            .map(|c| ReplyToolCall { id: c.id, name: c.name, arguments: ToolArguments::Text(c.arguments) })
            .collect();
        Ok(ChatReply { content: self.content, reasoning: self.reasoning, tool_calls, finish_reason: self.finish_reason, usage: self.usage, latency_ms: None })
    }
}

/// Writes `reply` as the event stream a server would send, cut into pieces of `piece_chars` characters of
/// content (the probe and test servers stream with it; the tests check that the accumulator gets it back).
pub fn reply_stream(reply: &ChatReply, model: &str, id: &str, piece_chars: usize) -> String {
    let mut out = String::new();
    let mut event = |delta: Value, finish: Option<&str>| {
        let chunk = json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        out.push_str(&format!("data: {chunk}\n\n"));
    };
    event(json!({"role": "assistant"}), None);
    let pieces = |text: &str| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        chars.chunks(piece_chars.max(1)).map(|c| c.iter().collect()).collect()
    };
    for piece in pieces(&reply.reasoning) {
        event(json!({"reasoning_content": piece}), None);
    }
    for piece in pieces(&reply.content) {
        event(json!({"content": piece}), None);
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        let arguments = match &call.arguments {
            ToolArguments::Text(t) => t.clone(),
            ToolArguments::Json(v) => v.to_string(),
        };
        event(json!({"tool_calls": [{"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}]}), None);
        for piece in pieces(&arguments) {
            event(json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}), None);
        }
    }
    event(json!({}), Some(reply.finish_reason.as_deref().unwrap_or("stop")));
    if let Some(usage) = usage_json(&reply.usage) {
        let chunk = json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [], "usage": usage});
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::agent::ToolCall;

    #[test]
    fn requests_carry_tools_roles_and_call_ids() {
        let mut assistant = Message::new(Role::Assistant, "");
        assistant.tool_calls.push(ToolCall { id: "c1".into(), name: "calculator".into(), arguments: "{\"expressions\":[\"1+1\"]}".into() });
        let mut tool = Message::new(Role::Tool, "{\"results\":[\"2\"]}");
        tool.tool_call_id = Some("c1".into());
        tool.name = Some("calculator".into());
        let request = ChatRequest {
            messages: vec![Message::new(Role::System, "s"), Message::new(Role::User, "u"), assistant, tool],
            max_tokens: 100,
            temperature: 0.0,
            top_p: 0.95,
            repair: false,
            turn: 1,
            kind: RequestKind::Turn,
        };
        let body = request_json(&request, "m");
        assert_eq!(body["model"], "m");
        assert_eq!(body["tools"][0]["function"]["name"], "calculator");
        assert_eq!(body["messages"][2]["content"], Value::Null);
        assert_eq!(body["messages"][2]["tool_calls"][0]["function"]["arguments"], "{\"expressions\":[\"1+1\"]}");
        assert_eq!(body["messages"][3]["tool_call_id"], "c1");
        assert_eq!(body["messages"][3]["role"], "tool");
        assert_eq!(body["tools"][0]["function"]["parameters"]["properties"]["requirements"]["type"], "array");
        let parsed = parse_request(&body.to_string()).unwrap();
        assert_eq!(parsed.messages, request.messages, "a server reads back what the client wrote");
        assert!(parsed.tools);
        assert_eq!((parsed.model.as_str(), parsed.max_tokens), ("m", Some(100)));
        let summary = ChatRequest { kind: RequestKind::Summary, ..request };
        let body = request_json(&summary, "m");
        assert!(body.get("tools").is_none() && body.get("tool_choice").is_none(), "auxiliary calls offer no tools");
        assert!(!parse_request(&body.to_string()).unwrap().tools);
    }

    #[test]
    fn replies_written_by_a_server_parse_back() {
        let reply = ChatReply {
            content: "".into(),
            tool_calls: vec![ReplyToolCall { id: "c".into(), name: "calculator".into(), arguments: ToolArguments::Text("{\"expressions\":[\"1\"]}".into()) }],
            finish_reason: Some("tool_calls".into()),
            usage: Usage { prompt_tokens: Some(10), completion_tokens: Some(3), ..Usage::default() },
            ..ChatReply::default()
        };
        let parsed = parse_reply(&reply_json(&reply, "m", "id-1").to_string()).unwrap();
        assert_eq!(parsed, reply);
        assert!(matches!(parse_request(r#"{"messages": [{"role": "robot", "content": "x"}]}"#), Err(WireError::BadRequest(_))));
        assert!(matches!(parse_request(r#"{"model": "m"}"#), Err(WireError::BadRequest(_))));
    }

    #[test]
    fn replies_with_string_or_object_arguments_and_reasoning_are_read() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"think",
            "tool_calls":[{"id":"a","type":"function","function":{"name":"calculator","arguments":"{\"expressions\": [\"2*3\"]}"}},
                          {"id":"b","type":"function","function":{"name":"calculator","arguments":{"expression":"1"}}}]},
            "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":7}}"#;
        let reply = parse_reply(body).unwrap();
        assert_eq!(reply.reasoning, "think");
        assert_eq!(reply.content, "");
        assert_eq!(reply.tool_calls[0].arguments, ToolArguments::Text("{\"expressions\": [\"2*3\"]}".into()));
        assert_eq!(reply.tool_calls[1].arguments, ToolArguments::Json(json!({"expression": "1"})));
        assert_eq!(reply.usage, Usage { prompt_tokens: Some(12), completion_tokens: Some(7), ..Usage::default() });
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn malformed_bodies_and_error_objects_are_typed_errors() {
        assert!(matches!(parse_reply("{not json"), Err(WireError::Json(_))));
        assert_eq!(parse_reply(r#"{"error":{"message":"overloaded"}}"#), Err(WireError::Api("overloaded".into())));
        assert_eq!(parse_reply(r#"{"choices":[]}"#), Err(WireError::NoMessage));
        let parts = parse_reply(r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#).unwrap();
        assert_eq!(parts.content, "ab");
        assert_eq!(parts.usage, Usage::default());
    }

    fn streamed(reply: &ChatReply, cut: usize) -> ChatReply {
        let body = reply_stream(reply, "m", "s-1", 3);
        let mut acc = StreamAccumulator::new();
        let mut live = String::new();
        let chars: Vec<char> = body.chars().collect();
        for piece in chars.chunks(cut) {
            live.push_str(&acc.push(&piece.iter().collect::<String>()).unwrap().content);
        }
        assert_eq!(live, reply.content, "the live deltas add up to the content");
        acc.finish().unwrap()
    }

    #[test]
    fn streamed_replies_are_put_together_whatever_the_piece_size() {
        let reply = ChatReply {
            content: "Let me compute: ünïcode €".into(),
            reasoning: "thinking first".into(),
            tool_calls: vec![
                ReplyToolCall { id: "a".into(), name: "calculator".into(), arguments: ToolArguments::Text("{\"expressions\": [\"2*3\"]}".into()) },
                ReplyToolCall { id: "b".into(), name: "calculator".into(), arguments: ToolArguments::Text("{\"expression\": \"1\"}".into()) },
            ],
            finish_reason: Some("tool_calls".into()),
            usage: Usage { prompt_tokens: Some(40), completion_tokens: Some(9), ..Usage::default() },
            latency_ms: None,
        };
        for cut in [1, 2, 7, 64, 100_000] {
            assert_eq!(streamed(&reply, cut), reply, "pieces of {cut} characters");
        }
        let request = ChatRequest { messages: vec![Message::new(Role::User, "u")], max_tokens: 5, temperature: 0.0, top_p: 1.0, repair: false, turn: 0, kind: RequestKind::Turn };
        let body = request_json_streaming(&request, "m", &Sampling::plain(&request));
        assert_eq!((body["stream"].clone(), body["stream_options"]["include_usage"].clone()), (json!(true), json!(true)));
    }

    #[test]
    fn streams_with_crlf_comments_errors_or_no_events_are_handled() {
        let mut acc = StreamAccumulator::new();
        acc.push(": keep-alive\r\n\r\nevent: message\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\r\n\r\n").unwrap();
        acc.push("data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]").unwrap();
        let reply = acc.finish().unwrap();
        assert_eq!((reply.content.as_str(), reply.finish_reason.as_deref(), reply.usage), ("hi", Some("length"), Usage::default()));
        let mut failing = StreamAccumulator::new();
        assert_eq!(failing.push("data: {\"error\": {\"message\": \"overloaded\"}}\n\n"), Err(WireError::Api("overloaded".into())));
        let mut plain = StreamAccumulator::new();
        plain.push("{\"choices\":[{\"message\":{\"content\":\"plain\"},\"finish_reason\":\"stop\"}]}").unwrap();
        assert_eq!(plain.finish().unwrap().content, "plain", "a server that ignored stream: true");
        let mut broken = StreamAccumulator::new();
        assert!(matches!(broken.push("data: {not json\n\n"), Err(WireError::Json(_))));
    }

    #[test]
    fn pictures_go_as_content_parts_after_the_prompt_text() {
        let mut user = Message::new(Role::User, "Follow the path.");
        user.images.push(crate::engine::agent::ImagePart { url: "data:image/png;base64,AAAA".into(), width: 2000, height: 1400, label: "Image 1 (Task 1):".into() });
        let request = ChatRequest {
            messages: vec![Message::new(Role::System, "s"), user],
            max_tokens: 100,
            temperature: 0.0,
            top_p: 1.0,
            repair: false,
            turn: 0,
            kind: crate::engine::agent::RequestKind::Turn,
        };
        let body = request_json(&request, "m");
        assert_eq!(
            body["messages"][1]["content"],
            json!([{"type": "text", "text": "Follow the path."}, {"type": "text", "text": "Image 1 (Task 1):"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}])
        );
        assert_eq!(body["messages"][0]["content"], "s", "messages without pictures keep plain content");
    }


    #[test]
    fn sampling_decides_the_limit_name_and_which_parameters_go() {
        use crate::engine::agent::provider::LimitParam;
        let request = ChatRequest { messages: vec![Message::new(Role::User, "u")], max_tokens: 300, temperature: 0.0, top_p: 0.95, repair: false, turn: 0, kind: RequestKind::Turn };
        let plain = request_json(&request, "m");
        assert_eq!((plain["max_tokens"].clone(), plain["temperature"].clone(), plain["top_p"].clone()), (json!(300), json!(0.0), json!(0.95)));
        let reasoning = Sampling { limit: LimitParam::MaxCompletionTokens, max_tokens: 200, temperature: None, top_p: None };
        let body = request_json_with(&request, "gpt-5-mini", &reasoning);
        assert_eq!(body["max_completion_tokens"], json!(200));
        for absent in ["max_tokens", "temperature", "top_p"] {
            assert!(body.get(absent).is_none(), "{absent} is not sent");
        }
        assert_eq!(parse_request(&body.to_string()).unwrap().max_tokens, Some(200), "a server reads either name");
    }

    #[test]
    fn cached_and_reasoning_tokens_are_read_wherever_providers_put_them() {
        let openai = r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,
            "prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":256,"audio_tokens":0}}}"#;
        let usage = parse_reply(openai).unwrap().usage;
        assert_eq!((usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens, usage.reasoning_tokens), (Some(2006), Some(1920), Some(300), Some(256)));
        let deepseek = r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":100,"completion_tokens":5,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}"#;
        assert_eq!(parse_reply(deepseek).unwrap().usage.cached_prompt_tokens, Some(64));
        let reply = ChatReply { content: "x".into(), usage: usage_of(&serde_json::from_str::<Value>(openai).unwrap()["usage"]), ..ChatReply::default() };
        assert_eq!(parse_reply(&reply_json(&reply, "m", "i").to_string()).unwrap().usage, reply.usage, "stored replies keep the details");
        assert_eq!(streamed(&reply, 5).usage, reply.usage, "and so do streamed ones");
    }
}
