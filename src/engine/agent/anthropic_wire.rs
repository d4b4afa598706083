//! Anthropic's Messages API JSON (`POST /v1/messages`): the only place that knows its shape, the sibling of
//! `openai_wire`. Domain requests become a top-level `system` list and strictly alternating `user`/`assistant`
//! messages of content blocks (consecutive messages of one role merged, tool results as `tool_result` blocks in
//! a user message, tool-call ids made valid and unique), with optional prompt-caching breakpoints. Replies
//! (`text`, `thinking`, `redacted_thinking` and `tool_use` blocks; `stop_reason`; `usage` with its cache counts)
//! map back to a `ChatReply` whose prompt count includes the cached tokens. Streamed replies (`message_start`,
//! `content_block_*`, `message_delta`, `message_stop` events) are put together by [`MessagesStreamAccumulator`].

use super::chat::RequestKind;
use super::openai_wire::{self, SseLines, StreamDelta, WireError};
use super::{ChatReply, ChatRequest, ImagePart, Message, ReplyToolCall, Role, ToolArguments, ToolCall, Usage};
use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// Sent for an assistant message with neither text nor tool calls: the API refuses empty content.
const NO_REPLY: &str = "(no reply)";
/// Sent as the opening user message when the conversation would otherwise not start with one.
const CONVERSATION_START: &str = "(conversation start)";
/// The result sent for a tool call the conversation never answered: the API refuses an unanswered call.
const NO_RESULT: &str = "(no result)";
/// What a `redacted_thinking` block adds to the reasoning text (its content is encrypted).
const REDACTED_THINKING: &str = "[redacted thinking]";
/// The key under which tool-call arguments that are not a JSON object are sent, so nothing is lost.
const UNPARSED_ARGUMENTS: &str = "_unparsed";

/// The API's limit on `cache_control` breakpoints in one request.
const MAX_CACHE_BREAKPOINTS: usize = 4;

/// The calculator tool as a Messages `tools` entry: the chat-completions function's name, description and
/// parameter schema, under the names this API uses.
pub fn calculator_tool() -> Value {
    let tool = openai_wire::calculator_tool();
    let function = &tool["function"];
    json!({"name": function["name"], "description": function["description"], "input_schema": function["parameters"]})
}

/// The Messages request body for `model`. System messages go to the top-level `system` list; the rest become
/// alternating user/assistant messages that start with a user message. `temperature` and `top_p` are sent only
/// when given (some models refuse both at once). Turns offer the calculator; auxiliary calls (summaries) offer
/// no tools, unless the conversation holds tool blocks, which the API accepts only with tools defined: then the
/// calculator is listed with `tool_choice: none`. With `cache`, the last system block and the last block of the
/// last message carry an ephemeral `cache_control` breakpoint.
pub fn request_json(request: &ChatRequest, model: &str, max_tokens: u32, temperature: Option<f64>, top_p: Option<f64>, cache: bool) -> Value {
    let mut system: Vec<Value> =
        request.messages.iter().filter(|m| m.role == Role::System && !is_blank(&m.content)).map(|m| text_block(&m.content)).collect();
    let mut turns = Conversation::default().build(&request.messages);
    if cache {
        let mut breakpoints = 0;
        for block in [system.last_mut(), turns.last_mut().and_then(|t| t.blocks.last_mut())].into_iter().flatten() {
            if breakpoints < MAX_CACHE_BREAKPOINTS {
                block["cache_control"] = json!({"type": "ephemeral"});
                breakpoints += 1;
            }
        }
    }
    let has_tool_blocks = turns.iter().flat_map(|t| &t.blocks).any(|b| matches!(b["type"].as_str(), Some("tool_use" | "tool_result")));
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    let messages: Vec<Value> = turns.into_iter().map(|t| json!({"role": t.role, "content": t.blocks})).collect();
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = top_p {
        body.insert("top_p".into(), json!(p));
    }
    if request.kind == RequestKind::Turn {
        body.insert("tools".into(), json!([calculator_tool()]));
        body.insert("tool_choice".into(), json!({"type": "auto"}));
    } else if has_tool_blocks {
        body.insert("tools".into(), json!([calculator_tool()]));
        body.insert("tool_choice".into(), json!({"type": "none"}));
    }
    body.insert("stream".into(), json!(false));
    Value::Object(body)
}

/// The same request asking for a streamed reply (`stream: true`); the usage arrives in the stream's events.
pub fn request_json_streaming(request: &ChatRequest, model: &str, max_tokens: u32, temperature: Option<f64>, top_p: Option<f64>, cache: bool) -> Value {
    let mut body = request_json(request, model, max_tokens, temperature, top_p, cache);
    body["stream"] = json!(true);
    body
}

/// Parses a non-streamed Messages reply body. An error body (`{"type": "error", "error": {..}}`) is
/// [`WireError::Api`] with the error's message.
pub fn parse_reply(body: &str) -> Result<ChatReply, WireError> {
    let json: Value = serde_json::from_str(body).map_err(|e| WireError::Json(e.to_string()))?;
    if let Some(message) = error_message(&json) {
        return Err(WireError::Api(message));
    }
    let mut reply = ChatReply::default();
    match json.get("content") {
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => reply.content.push_str(str_field(block, "text")),
                    Some("thinking") => reply.reasoning.push_str(str_field(block, "thinking")),
                    Some("redacted_thinking") => reply.reasoning.push_str(REDACTED_THINKING),
                    Some("tool_use") => reply.tool_calls.push(ReplyToolCall {
                        id: str_field(block, "id").to_string(),
                        name: str_field(block, "name").to_string(),
                        arguments: ToolArguments::Json(block.get("input").filter(|i| !i.is_null()).cloned().unwrap_or_else(|| json!({}))),
                    }),
                    // Server tools, citations-only and future block types carry nothing the harness reads.
                    _ => {}
                }
            }
        }
        // Some compatible servers write the text as a plain string.
        Some(Value::String(text)) => reply.content.push_str(text),
        _ => return Err(WireError::Json("the reply has no `content` list of blocks".into())),
    }
    reply.finish_reason = json.get("stop_reason").and_then(Value::as_str).map(finish_reason_of);
    if let Some(u) = json.get("usage").filter(|u| u.is_object()) {
        reply.usage = usage_of(u);
    }
    Ok(reply)
}

/// A reply body as the API writes it: thinking, text and `tool_use` blocks, the stop reason and the usage,
/// with `input_tokens` excluding the cached and cache-written tokens (what [`parse_reply`] adds back).
pub fn reply_json(reply: &ChatReply, model: &str, id: &str) -> Value {
    let mut content = Vec::new();
    if !reply.reasoning.is_empty() {
        content.push(json!({"type": "thinking", "thinking": reply.reasoning, "signature": ""}));
    }
    if !reply.content.is_empty() {
        content.push(text_block(&reply.content));
    }
    for call in &reply.tool_calls {
        content.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input_of_arguments(&call.arguments)}));
    }
    json!({
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.finish_reason.as_deref().map(stop_reason_of),
        "stop_sequence": Value::Null,
        "usage": usage_json(&reply.usage),
    })
}

/// The domain finish reason for a Messages `stop_reason`: a natural end is `stop`, the token limit (or a full
/// context window) is `length`, which the harness treats as a cut-off, a tool call is `tool_calls`, a refusal
/// is `content_filter`; anything else is kept as it is.
pub fn finish_reason_of(stop_reason: &str) -> String {
    match stop_reason {
        "end_turn" | "stop_sequence" | "pause_turn" => "stop",
        "max_tokens" | "model_context_window_exceeded" => "length",
        "tool_use" => "tool_calls",
        "refusal" => "content_filter",
        other => other,
    }
    .to_string()
}

/// The Messages `stop_reason` for a domain finish reason (the inverse of [`finish_reason_of`]).
pub fn stop_reason_of(finish_reason: &str) -> String {
    match finish_reason {
        "stop" => "end_turn",
        "length" => "max_tokens",
        "tool_calls" => "tool_use",
        "content_filter" => "refusal",
        other => other,
    }
    .to_string()
}

/// A Messages `usage` object in domain terms. The API's `input_tokens` leaves out the tokens read from or
/// written to the prompt cache, so the domain prompt count is the sum of the three; the API reports no
/// separate reasoning count. Without `input_tokens` the prompt count is unknown.
pub fn usage_of(u: &Value) -> Usage {
    let number = |key: &str| u.get(key).and_then(Value::as_u64);
    let (input, read, written) = (number("input_tokens"), number("cache_read_input_tokens"), number("cache_creation_input_tokens"));
    Usage {
        prompt_tokens: input.map(|i| i + read.unwrap_or(0) + written.unwrap_or(0)),
        completion_tokens: number("output_tokens"),
        cached_prompt_tokens: read,
        cache_write_tokens: written,
        ..Usage::default()
    }
}

/// `usage` as the API writes it (what [`usage_of`] reads back): only the counts that are known.
pub fn usage_json(usage: &Usage) -> Value {
    let mut out = Map::new();
    if let Some(prompt) = usage.prompt_tokens {
        let cached = usage.cached_prompt_tokens.unwrap_or(0) + usage.cache_write_tokens.unwrap_or(0);
        out.insert("input_tokens".into(), json!(prompt.saturating_sub(cached)));
    }
    if let Some(n) = usage.cache_write_tokens {
        out.insert("cache_creation_input_tokens".into(), json!(n));
    }
    if let Some(n) = usage.cached_prompt_tokens {
        out.insert("cache_read_input_tokens".into(), json!(n));
    }
    if let Some(n) = usage.completion_tokens {
        out.insert("output_tokens".into(), json!(n));
    }
    Value::Object(out)
}

/// Puts a streamed Messages reply together from its server-sent events (`event: NAME` and `data: {json}`
/// lines ended by a blank line). Feed it text in any pieces with [`push`](Self::push), `\n` or `\r\n` line
/// ends alike; [`finish`](Self::finish) returns the whole reply. An `error` event ends the reply with
/// [`WireError::Api`]. A body that turns out not to be an event stream (a server that ignored `stream: true`,
/// or an error body) is parsed as a plain reply.
#[derive(Clone, Debug, Default)]
pub struct MessagesStreamAccumulator {
    /// The body cut into lines.
    lines: SseLines,
    /// The `event:` name of the event being read.
    event: Option<String>,
    /// `data:` lines of the event being read.
    data: Vec<String>,
    events: usize,
    content: String,
    reasoning: String,
    /// Content blocks by their `index`.
    blocks: Vec<StreamBlock>,
    finish_reason: Option<String>,
    input_tokens: Option<u64>,
    cache_read_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

impl MessagesStreamAccumulator {
    /// A fresh accumulator.
    pub fn new() -> MessagesStreamAccumulator {
        MessagesStreamAccumulator::default()
    }

    /// Events read so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Feeds the next piece of the body; returns what complete events added.
    pub fn push(&mut self, text: &str) -> Result<StreamDelta, WireError> {
        let mut delta = StreamDelta::default();
        for line in self.lines.push(text, self.events == 0) {
            self.line(&line, &mut delta)?;
        }
        Ok(delta)
    }

    /// Ends the stream and returns the reply. Tool-call arguments are the joined `partial_json` pieces (`{}`
    /// when there were none).
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
            .blocks
            .into_iter()
            .filter_map(|b| match b {
                StreamBlock::ToolUse { id, name, start_input, json } => {
                    let arguments = if !json.is_empty() {
                        json
                    } else if start_input.as_object().is_some_and(|o| !o.is_empty()) {
                        start_input.to_string()
                    } else {
                        "{}".to_string()
                    };
                    Some(ReplyToolCall { id, name, arguments: ToolArguments::Text(arguments) })
                }
                _ => None,
            })
            .collect();
        let usage = Usage {
            prompt_tokens: self.input_tokens.map(|i| i + self.cache_read_tokens.unwrap_or(0) + self.cache_write_tokens.unwrap_or(0)),
            completion_tokens: self.output_tokens,
            cached_prompt_tokens: self.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens,
            ..Usage::default()
        };
        Ok(ChatReply { content: self.content, reasoning: self.reasoning, tool_calls, finish_reason: self.finish_reason, usage, latency_ms: None })
    }

    fn line(&mut self, line: &str, delta: &mut StreamDelta) -> Result<(), WireError> {
        if line.is_empty() {
            return self.dispatch(delta);
        }
        if let Some(rest) = line.strip_prefix("data:") {
            self.data.push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
        } else if let Some(rest) = line.strip_prefix("event:") {
            self.event = Some(rest.trim().to_string());
        }
        // `id:`, `retry:` and `:` comments carry nothing a reply needs.
        Ok(())
    }

    fn dispatch(&mut self, delta: &mut StreamDelta) -> Result<(), WireError> {
        let name = self.event.take();
        if self.data.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.data).join("\n");
        self.events += 1;
        let event: Value = serde_json::from_str(&data).map_err(|e| WireError::Json(format!("in a streamed event: {e}")))?;
        // The `type` inside the data is authoritative; the `event:` name stands in when it is missing.
        let kind = event.get("type").and_then(Value::as_str).map(str::to_string).or(name).unwrap_or_default();
        // Some compatible servers send a bare `{"error": {..}}` object instead of an `error` event.
        let bare_error = event.get("type").is_none() && error_message(&event).is_some();
        match kind.as_str() {
            _ if bare_error => return Err(WireError::Api(error_message(&event).unwrap_or_default())),
            "error" => return Err(WireError::Api(error_message(&event).unwrap_or_else(|| event.to_string()))),
            "message_start" => {
                if let Some(u) = event.get("message").and_then(|m| m.get("usage")).filter(|u| u.is_object()) {
                    self.read_usage(u);
                }
            }
            "content_block_start" => {
                let Some(index) = self.block_index(&event) else { return Ok(()) };
                let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        self.blocks[index] = StreamBlock::Text;
                        self.add_content(str_field(&block, "text"), delta);
                    }
                    Some("thinking") => {
                        self.blocks[index] = StreamBlock::Thinking;
                        self.add_reasoning(str_field(&block, "thinking"), delta);
                    }
                    Some("redacted_thinking") => {
                        self.blocks[index] = StreamBlock::Thinking;
                        self.add_reasoning(REDACTED_THINKING, delta);
                    }
                    Some("tool_use") => {
                        self.blocks[index] = StreamBlock::ToolUse {
                            id: str_field(&block, "id").to_string(),
                            name: str_field(&block, "name").to_string(),
                            start_input: block.get("input").cloned().unwrap_or(Value::Null),
                            json: String::new(),
                        };
                    }
                    _ => self.blocks[index] = StreamBlock::Other,
                }
            }
            "content_block_delta" => {
                let Some(index) = self.block_index(&event) else { return Ok(()) };
                let d = event.get("delta").cloned().unwrap_or(Value::Null);
                match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => self.add_content(str_field(&d, "text"), delta),
                    Some("thinking_delta") => self.add_reasoning(str_field(&d, "thinking"), delta),
                    Some("input_json_delta") => {
                        let piece = str_field(&d, "partial_json");
                        // A delta without its start still belongs to a call.
                        if !matches!(self.blocks[index], StreamBlock::ToolUse { .. }) {
                            self.blocks[index] = StreamBlock::ToolUse { id: String::new(), name: String::new(), start_input: Value::Null, json: String::new() };
                        }
                        if let StreamBlock::ToolUse { json, .. } = &mut self.blocks[index] {
                            json.push_str(piece);
                        }
                        delta.tool_text.push_str(piece);
                    }
                    // `signature_delta` authenticates thinking for a later request; this harness never sends
                    // thinking back. `citations_delta` and future kinds carry no text of their own.
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event.get("delta").and_then(|d| d.get("stop_reason")).and_then(Value::as_str) {
                    self.finish_reason = Some(finish_reason_of(reason));
                }
                if let Some(u) = event.get("usage").filter(|u| u.is_object()) {
                    self.read_usage(u);
                }
            }
            // `content_block_stop`, `message_stop`, `ping` and future events change nothing here.
            _ => {}
        }
        Ok(())
    }

    /// Takes the counts `u` gives; the API's counts are cumulative, so a later one replaces an earlier one.
    fn read_usage(&mut self, u: &Value) {
        let number = |key: &str| u.get(key).and_then(Value::as_u64);
        if let Some(n) = number("input_tokens") {
            self.input_tokens = Some(n);
        }
        if let Some(n) = number("cache_read_input_tokens") {
            self.cache_read_tokens = Some(n);
        }
        if let Some(n) = number("cache_creation_input_tokens") {
            self.cache_write_tokens = Some(n);
        }
        if let Some(n) = number("output_tokens") {
            self.output_tokens = Some(n);
        }
    }

    /// The event's block index, with a slot ready for it; `None` for an absurd index.
    fn block_index(&mut self, event: &Value) -> Option<usize> {
        let index = usize::try_from(event.get("index").and_then(Value::as_u64).unwrap_or(0)).ok().filter(|i| *i <= 1024)?;
        if self.blocks.len() <= index {
            self.blocks.resize(index + 1, StreamBlock::Other);
        }
        Some(index)
    }

    fn add_content(&mut self, text: &str, delta: &mut StreamDelta) {
        self.content.push_str(text);
        delta.content.push_str(text);
    }

    fn add_reasoning(&mut self, text: &str, delta: &mut StreamDelta) {
        self.reasoning.push_str(text);
        delta.reasoning.push_str(text);
    }
}

/// A content block being streamed.
#[derive(Clone, Debug, PartialEq)]
enum StreamBlock {
    Text,
    Thinking,
    ToolUse { id: String, name: String, start_input: Value, json: String },
    Other,
}

/// One message on the wire: a role and its content blocks, never empty.
struct Turn {
    role: &'static str,
    blocks: Vec<Value>,
}

/// A tool call of the latest assistant message, waiting for its result.
struct OpenCall {
    /// The id in the transcript (possibly empty or unusable).
    original: String,
    /// The id sent.
    wire: String,
    answered: bool,
}

/// Builds the alternating messages, pairing tool results with their calls.
#[derive(Default)]
struct Conversation {
    turns: Vec<Turn>,
    open: Vec<OpenCall>,
    used_ids: HashSet<String>,
    assistants: usize,
}

impl Conversation {
    fn build(mut self, messages: &[Message]) -> Vec<Turn> {
        for message in messages {
            match message.role {
                Role::System => {}
                Role::User => {
                    self.close_calls();
                    if !is_blank(&message.content) {
                        self.push("user", text_block(&message.content));
                    }
                    for image in &message.images {
                        self.push_image(image);
                    }
                }
                Role::Assistant => self.push_assistant(message),
                Role::Tool => self.push_tool_result(message),
            }
        }
        self.close_calls();
        if self.turns.first().is_none_or(|t| t.role != "user") {
            self.turns.insert(0, Turn { role: "user", blocks: vec![text_block(CONVERSATION_START)] });
        }
        self.turns
    }

    /// Appends `block` to the last message when it has `role`, or starts a new message.
    fn push(&mut self, role: &'static str, block: Value) {
        match self.turns.last_mut() {
            Some(turn) if turn.role == role => turn.blocks.push(block),
            _ => self.turns.push(Turn { role, blocks: vec![block] }),
        }
    }

    fn push_image(&mut self, image: &ImagePart) {
        if !is_blank(&image.label) {
            self.push("user", text_block(&image.label));
        }
        self.push("user", image_block(&image.url));
    }

    fn push_assistant(&mut self, message: &Message) {
        self.close_calls();
        let mut blocks = Vec::new();
        if !is_blank(&message.content) {
            blocks.push(text_block(&message.content));
        }
        for (k, call) in message.tool_calls.iter().enumerate() {
            let wire = self.wire_id(&call.id, k);
            blocks.push(json!({"type": "tool_use", "id": wire, "name": call.name, "input": input_of(call)}));
            self.open.push(OpenCall { original: call.id.clone(), wire, answered: false });
        }
        if blocks.is_empty() {
            blocks.push(text_block(NO_REPLY));
        }
        for block in blocks {
            self.push("assistant", block);
        }
        self.assistants += 1;
    }

    /// A tool message answers the open call with its id, or else the first unanswered one; with none left it
    /// is sent as text, since a result without its call is refused.
    fn push_tool_result(&mut self, message: &Message) {
        let id = message.tool_call_id.as_deref().unwrap_or("");
        let slot = self
            .open
            .iter()
            .position(|c| !c.answered && !id.is_empty() && c.original == id)
            .or_else(|| self.open.iter().position(|c| !c.answered));
        match slot {
            Some(i) => {
                self.open[i].answered = true;
                let block = tool_result_block(&self.open[i].wire, &message.content);
                self.push("user", block);
            }
            None => self.push("user", text_block(&format!("Tool result:\n{}", message.content))),
        }
    }

    /// Gives every call of the latest assistant message a result before anything else is said.
    fn close_calls(&mut self) {
        for call in std::mem::take(&mut self.open) {
            if !call.answered {
                self.push("user", tool_result_block(&call.wire, NO_RESULT));
            }
        }
    }

    /// The transcript's id when the API accepts it (letters, digits, `_` and `-`) and it is not taken yet;
    /// otherwise `toolu_<assistant message>_<call>`, made unique.
    fn wire_id(&mut self, original: &str, k: usize) -> String {
        let usable = !original.is_empty() && original.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let id = if usable && !self.used_ids.contains(original) {
            original.to_string()
        } else {
            let base = format!("toolu_{}_{k}", self.assistants);
            let mut id = base.clone();
            let mut n = 1;
            while self.used_ids.contains(&id) {
                id = format!("{base}_{n}");
                n += 1;
            }
            id
        };
        self.used_ids.insert(id.clone());
        id
    }
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn tool_result_block(id: &str, content: &str) -> Value {
    if is_blank(content) {
        json!({"type": "tool_result", "tool_use_id": id})
    } else {
        json!({"type": "tool_result", "tool_use_id": id, "content": content})
    }
}

/// A base64 `data:` URL as an inline image with its media type; any other URL by reference.
fn image_block(url: &str) -> Value {
    let inline = url.strip_prefix("data:").and_then(|rest| rest.split_once(',')).and_then(|(meta, data)| {
        let media_type = meta.strip_suffix(";base64")?;
        (!media_type.is_empty()).then(|| json!({"type": "base64", "media_type": media_type, "data": data}))
    });
    json!({"type": "image", "source": inline.unwrap_or_else(|| json!({"type": "url", "url": url}))})
}

/// A call's arguments as the `input` object; text that is not an object is kept under [`UNPARSED_ARGUMENTS`].
fn input_of(call: &ToolCall) -> Value {
    if is_blank(&call.arguments) {
        return json!({});
    }
    match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => json!({UNPARSED_ARGUMENTS: call.arguments}),
    }
}

fn input_of_arguments(arguments: &ToolArguments) -> Value {
    match arguments {
        ToolArguments::Json(value @ Value::Object(_)) => value.clone(),
        ToolArguments::Json(other) => json!({UNPARSED_ARGUMENTS: other.to_string()}),
        ToolArguments::Text(text) => input_of(&ToolCall { id: String::new(), name: String::new(), arguments: text.clone() }),
    }
}

/// The message of an error body (`{"type": "error", "error": {"message": ..}}`), if `json` is one.
fn error_message(json: &Value) -> Option<String> {
    let error = json.get("error").filter(|e| !e.is_null())?;
    Some(error.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| error.to_string()))
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The API refuses text blocks without a visible character.
fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn request(messages: Vec<Message>, kind: RequestKind) -> ChatRequest {
        ChatRequest { messages, max_tokens: 100, temperature: 0.0, top_p: 1.0, repair: false, turn: 0, kind }
    }

    fn assistant(content: &str, calls: &[(&str, &str)]) -> Message {
        let mut message = Message::new(Role::Assistant, content);
        for (id, arguments) in calls {
            message.tool_calls.push(ToolCall { id: id.to_string(), name: "calculator".into(), arguments: arguments.to_string() });
        }
        message
    }

    fn tool(id: Option<&str>, content: &str) -> Message {
        let mut message = Message::new(Role::Tool, content);
        message.tool_call_id = id.map(str::to_string);
        message.name = Some("calculator".into());
        message
    }

    /// One line per wire message: its role, then each block in short form.
    fn outline(body: &Value) -> String {
        let mut out = String::new();
        for message in body["messages"].as_array().expect("a messages list") {
            let blocks: Vec<String> = message["content"]
                .as_array()
                .expect("content blocks")
                .iter()
                .map(|b| {
                    let cached = if b.get("cache_control").is_some() { " [cache]" } else { "" };
                    let shown = match b["type"].as_str().unwrap_or("?") {
                        "text" => format!("text {:?}", b["text"].as_str().unwrap_or("")),
                        "tool_use" => format!("tool_use {} {}", b["id"].as_str().unwrap_or(""), b["input"]),
                        "tool_result" => format!("tool_result {} {:?}", b["tool_use_id"].as_str().unwrap_or(""), b["content"].as_str().unwrap_or("")),
                        "image" => format!("image {}", b["source"]["type"].as_str().unwrap_or("")),
                        other => other.to_string(),
                    };
                    format!("{shown}{cached}")
                })
                .collect();
            out.push_str(&format!("{}: {}\n", message["role"].as_str().unwrap_or("?"), blocks.join(" | ")));
        }
        out
    }

    #[track_caller]
    fn check(messages: Vec<Message>, expect: Expect) {
        let body = request_json(&request(messages, RequestKind::Turn), "claude-test", 1024, None, None, false);
        expect.assert_eq(&outline(&body));
    }

    fn count_cache_breakpoints(value: &Value) -> usize {
        match value {
            Value::Object(map) => usize::from(map.contains_key("cache_control")) + map.values().map(count_cache_breakpoints).sum::<usize>(),
            Value::Array(items) => items.iter().map(count_cache_breakpoints).sum(),
            _ => 0,
        }
    }

    #[test]
    fn system_messages_become_top_level_text_blocks_in_order() {
        let messages = vec![Message::new(Role::System, "You are exact."), Message::new(Role::System, "Use the calculator."), Message::new(Role::User, "2+2?")];
        let body = request_json(&request(messages, RequestKind::Turn), "claude-test", 1024, None, None, false);
        assert_eq!(body["system"], json!([{"type": "text", "text": "You are exact."}, {"type": "text", "text": "Use the calculator."}]));
        assert!(body["messages"].as_array().unwrap().iter().all(|m| m["role"] != "system"));
        assert_eq!(outline(&body), "user: text \"2+2?\"\n");
        let no_system = request_json(&request(vec![Message::new(Role::User, "u")], RequestKind::Turn), "m", 10, None, None, false);
        assert!(no_system.get("system").is_none(), "no empty system list");
    }

    #[test]
    fn tool_results_and_a_repair_message_merge_into_one_user_message() {
        check(
            vec![
                Message::new(Role::System, "s"),
                Message::new(Role::User, "Compute."),
                assistant("Let me compute.", &[("toolu_a", r#"{"expressions": ["1+1"]}"#), ("toolu_b", r#"{"expressions": ["2*3"]}"#)]),
                tool(Some("toolu_a"), "2"),
                tool(Some("toolu_b"), "6"),
                Message::new(Role::User, "Give the final answers.").with_purpose("repair:final_answer"),
                assistant("Done: 2 and 6.", &[]),
                Message::new(Role::User, "One more thing."),
                Message::new(Role::User, "And another."),
            ],
            expect![[r#"
                user: text "Compute."
                assistant: text "Let me compute." | tool_use toolu_a {"expressions":["1+1"]} | tool_use toolu_b {"expressions":["2*3"]}
                user: tool_result toolu_a "2" | tool_result toolu_b "6" | text "Give the final answers."
                assistant: text "Done: 2 and 6."
                user: text "One more thing." | text "And another."
            "#]],
        );
    }

    #[test]
    fn empty_or_unusable_call_ids_are_synthesised_and_paired_with_their_results() {
        check(
            vec![
                Message::new(Role::User, "u"),
                assistant("", &[("", r#"{"expression": "1"}"#), ("", r#"{"expression": "2"}"#)]),
                tool(None, "1"),
                tool(Some(""), "2"),
                assistant("", &[("", r#"{"expression": "3"}"#), ("functions.calculator:0", r#"{"expression": "4"}"#)]),
                tool(Some("functions.calculator:0"), "4"),
                tool(None, "3"),
                assistant("", &[("same", "{}"), ("same", "{}")]),
                tool(Some("same"), "a"),
                tool(Some("same"), "b"),
            ],
            expect![[r#"
                user: text "u"
                assistant: tool_use toolu_0_0 {"expression":"1"} | tool_use toolu_0_1 {"expression":"2"}
                user: tool_result toolu_0_0 "1" | tool_result toolu_0_1 "2"
                assistant: tool_use toolu_1_0 {"expression":"3"} | tool_use toolu_1_1 {"expression":"4"}
                user: tool_result toolu_1_1 "4" | tool_result toolu_1_0 "3"
                assistant: tool_use same {} | tool_use toolu_2_1 {}
                user: tool_result same "a" | tool_result toolu_2_1 "b"
            "#]],
        );
    }

    #[test]
    fn calls_without_results_and_results_without_calls_still_make_a_valid_request() {
        check(
            vec![
                assistant("Hello.", &[("c1", "{}")]),
                Message::new(Role::User, "Go on."),
                tool(Some("c9"), "stray"),
                assistant("", &[]),
            ],
            expect![[r#"
                user: text "(conversation start)"
                assistant: text "Hello." | tool_use c1 {}
                user: tool_result c1 "(no result)" | text "Go on." | text "Tool result:\nstray"
                assistant: text "(no reply)"
            "#]],
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_are_kept_and_reasoning_is_never_sent() {
        let mut thinking = assistant("", &[("a", "[1, 2]"), ("b", "not json"), ("c", "  ")]);
        thinking.reasoning = Some("secret chain of thought".into());
        let body = request_json(&request(vec![Message::new(Role::User, "u"), thinking], RequestKind::Turn), "m", 10, None, None, false);
        let blocks = &body["messages"][1]["content"];
        assert_eq!(blocks[0]["input"], json!({"_unparsed": "[1, 2]"}));
        assert_eq!(blocks[1]["input"], json!({"_unparsed": "not json"}));
        assert_eq!(blocks[2]["input"], json!({}));
        assert!(!body.to_string().contains("secret chain of thought"));
    }

    #[test]
    fn pictures_follow_the_text_as_labelled_base64_or_url_image_blocks() {
        let mut user = Message::new(Role::User, "Follow the path.");
        user.images.push(ImagePart { url: "data:image/png;base64,iVBORw0KGgo=".into(), width: 2000, height: 1400, label: "Image 1 (Task 1):".into() });
        user.images.push(ImagePart { url: "https://example.com/braid.jpg".into(), width: 800, height: 600, label: "Image 2 (Task 2):".into() });
        let body = request_json(&request(vec![Message::new(Role::System, "s"), user], RequestKind::Turn), "m", 10, None, None, false);
        assert_eq!(
            body["messages"][0]["content"],
            json!([
                {"type": "text", "text": "Follow the path."},
                {"type": "text", "text": "Image 1 (Task 1):"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                {"type": "text", "text": "Image 2 (Task 2):"},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/braid.jpg"}}
            ])
        );
    }

    #[test]
    fn caching_marks_the_last_system_block_and_the_last_block_of_the_last_message() {
        let messages = vec![
            Message::new(Role::System, "s1"),
            Message::new(Role::System, "s2"),
            Message::new(Role::User, "u"),
            assistant("", &[("c1", "{}"), ("c2", "{}")]),
            tool(Some("c1"), "1"),
            tool(Some("c2"), "2"),
        ];
        let cached = request_json(&request(messages.clone(), RequestKind::Turn), "m", 10, None, None, true);
        assert_eq!(cached["system"][1]["cache_control"], json!({"type": "ephemeral"}));
        assert!(cached["system"][0].get("cache_control").is_none());
        expect![[r#"
            user: text "u"
            assistant: tool_use c1 {} | tool_use c2 {}
            user: tool_result c1 "1" | tool_result c2 "2" [cache]
        "#]]
        .assert_eq(&outline(&cached));
        assert_eq!(count_cache_breakpoints(&cached), 2);
        assert!(count_cache_breakpoints(&cached) <= MAX_CACHE_BREAKPOINTS);
        let plain = request_json(&request(messages, RequestKind::Turn), "m", 10, None, None, false);
        assert_eq!(count_cache_breakpoints(&plain), 0);
    }

    #[test]
    fn sampling_fields_are_sent_only_when_given_and_max_tokens_always() {
        let r = request(vec![Message::new(Role::User, "u")], RequestKind::Turn);
        let bare = request_json(&r, "claude-test", 4096, None, None, false);
        assert_eq!((bare["model"].clone(), bare["max_tokens"].clone(), bare["stream"].clone()), (json!("claude-test"), json!(4096), json!(false)));
        assert!(bare.get("temperature").is_none() && bare.get("top_p").is_none());
        let both = request_json(&r, "claude-test", 4096, Some(0.0), Some(0.95), false);
        assert_eq!((both["temperature"].clone(), both["top_p"].clone()), (json!(0.0), json!(0.95)));
        let streaming = request_json_streaming(&r, "claude-test", 4096, Some(0.5), None, false);
        assert_eq!((streaming["stream"].clone(), streaming["temperature"].clone()), (json!(true), json!(0.5)));
        assert!(streaming.get("top_p").is_none());
    }

    #[test]
    fn turns_offer_the_calculator_and_summaries_only_name_it_when_the_history_has_tool_blocks() {
        let turn = request_json(&request(vec![Message::new(Role::User, "u")], RequestKind::Turn), "m", 10, None, None, false);
        assert_eq!(turn["tools"], json!([calculator_tool()]));
        assert_eq!(turn["tool_choice"], json!({"type": "auto"}));
        let plain_summary = request_json(&request(vec![Message::new(Role::User, "Summarise: ...")], RequestKind::Summary), "m", 10, None, None, false);
        assert!(plain_summary.get("tools").is_none() && plain_summary.get("tool_choice").is_none());
        let history = vec![Message::new(Role::User, "u"), assistant("", &[("c1", "{}")]), tool(Some("c1"), "1"), Message::new(Role::User, "Summarise the above.")];
        let summary = request_json(&request(history, RequestKind::Summary), "m", 10, None, None, false);
        assert_eq!(summary["tools"], json!([calculator_tool()]), "the API refuses tool blocks without tools");
        assert_eq!(summary["tool_choice"], json!({"type": "none"}));
    }

    #[test]
    fn the_calculator_tool_carries_the_chat_completions_schema() {
        let tool = calculator_tool();
        let function = openai_wire::calculator_tool()["function"].clone();
        assert_eq!(tool["name"], function["name"]);
        assert_eq!(tool["description"], function["description"]);
        assert_eq!(tool["input_schema"], function["parameters"]);
        assert_eq!(tool["input_schema"]["required"], json!(["expressions"]));
        assert_eq!(tool.as_object().map(Map::len), Some(3));
    }

    fn full_reply() -> ChatReply {
        ChatReply {
            content: "I will compute both.".into(),
            reasoning: "The task needs 2*3 and 7-1.".into(),
            tool_calls: vec![
                ReplyToolCall { id: "toolu_01A".into(), name: "calculator".into(), arguments: ToolArguments::Json(json!({"expressions": ["2*3"]})) },
                ReplyToolCall { id: "toolu_01B".into(), name: "calculator".into(), arguments: ToolArguments::Json(json!({"expressions": ["7-1"], "requirements": ["r1"]})) },
            ],
            finish_reason: Some("tool_calls".into()),
            usage: Usage { prompt_tokens: Some(2100), completion_tokens: Some(85), cached_prompt_tokens: Some(1800), cache_write_tokens: Some(250), ..Usage::default() },
            latency_ms: None,
        }
    }

    #[test]
    fn replies_written_by_a_server_parse_back() {
        let reply = full_reply();
        let body = reply_json(&reply, "claude-test", "msg_01");
        assert_eq!(body["usage"], json!({"input_tokens": 50, "cache_creation_input_tokens": 250, "cache_read_input_tokens": 1800, "output_tokens": 85}));
        assert_eq!(body["stop_reason"], "tool_use");
        assert_eq!(parse_reply(&body.to_string()).unwrap(), reply);
        let bare = ChatReply { content: "42".into(), finish_reason: Some("stop".into()), ..ChatReply::default() };
        assert_eq!(parse_reply(&reply_json(&bare, "m", "msg_02").to_string()).unwrap(), bare);
        let open = ChatReply { content: "x".into(), ..ChatReply::default() };
        assert_eq!(parse_reply(&reply_json(&open, "m", "msg_03").to_string()).unwrap(), open, "no stop reason stays none");
    }

    #[test]
    fn a_published_reply_with_thinking_text_and_tool_use_is_read() {
        let body = r#"{
          "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
          "type": "message",
          "role": "assistant",
          "model": "claude-sonnet-4-5",
          "content": [
            {"type": "thinking", "thinking": "I need 17*23.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
            {"type": "text", "text": "Let me use the calculator."},
            {"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "calculator", "input": {"expressions": ["17*23"]}}
          ],
          "stop_reason": "tool_use",
          "stop_sequence": null,
          "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1536, "output_tokens": 94,
                    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}, "service_tier": "standard"}
        }"#;
        let reply = parse_reply(body).unwrap();
        assert_eq!(reply.reasoning, "I need 17*23.[redacted thinking]");
        assert_eq!(reply.content, "Let me use the calculator.");
        assert_eq!(
            reply.tool_calls,
            vec![ReplyToolCall { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(), name: "calculator".into(), arguments: ToolArguments::Json(json!({"expressions": ["17*23"]})) }]
        );
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            reply.usage,
            Usage { prompt_tokens: Some(12 + 1536), completion_tokens: Some(94), cached_prompt_tokens: Some(1536), cache_write_tokens: Some(0), ..Usage::default() }
        );
    }

    #[test]
    fn stop_reasons_map_to_the_finish_reasons_the_harness_reads() {
        let table = [
            ("end_turn", "stop"),
            ("stop_sequence", "stop"),
            ("pause_turn", "stop"),
            ("max_tokens", "length"),
            ("model_context_window_exceeded", "length"),
            ("tool_use", "tool_calls"),
            ("refusal", "content_filter"),
            ("something_new", "something_new"),
        ];
        for (stop, finish) in table {
            let body = json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}], "stop_reason": stop, "usage": {"input_tokens": 1, "output_tokens": 1}});
            assert_eq!(parse_reply(&body.to_string()).unwrap().finish_reason.as_deref(), Some(finish), "{stop}");
        }
        for finish in ["stop", "length", "tool_calls", "content_filter", "something_new"] {
            assert_eq!(finish_reason_of(&stop_reason_of(finish)), finish);
        }
    }

    #[test]
    fn usage_counts_cached_and_cache_written_tokens_in_the_prompt_total() {
        let cases = [
            (json!({"input_tokens": 25, "output_tokens": 7}), Usage { prompt_tokens: Some(25), completion_tokens: Some(7), ..Usage::default() }),
            (
                json!({"input_tokens": 3, "cache_creation_input_tokens": 287, "cache_read_input_tokens": 30433, "output_tokens": 67}),
                Usage { prompt_tokens: Some(3 + 287 + 30433), completion_tokens: Some(67), cached_prompt_tokens: Some(30433), cache_write_tokens: Some(287), ..Usage::default() },
            ),
            (json!({"output_tokens": 5}), Usage { completion_tokens: Some(5), ..Usage::default() }),
        ];
        for (wire, domain) in cases {
            assert_eq!(usage_of(&wire), domain, "{wire}");
            assert_eq!(usage_of(&usage_json(&domain)), domain, "{wire} round trip");
            assert_eq!(usage_of(&wire).reasoning_tokens, None);
        }
    }

    #[test]
    fn error_bodies_and_malformed_bodies_are_typed_errors() {
        let overloaded = r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}"#;
        assert_eq!(parse_reply(overloaded), Err(WireError::Api("Overloaded".into())));
        let invalid = r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate between \"user\" and \"assistant\""}}"#;
        assert_eq!(parse_reply(invalid), Err(WireError::Api("messages: roles must alternate between \"user\" and \"assistant\"".into())));
        assert!(matches!(parse_reply("{not json"), Err(WireError::Json(_))));
        assert!(matches!(parse_reply(r#"{"type": "message", "role": "assistant"}"#), Err(WireError::Json(_))));
    }

    /// Writes `reply` as the event stream the API sends, each text cut into pieces of `piece_chars` characters.
    fn reply_stream(reply: &ChatReply, model: &str, id: &str, piece_chars: usize, line_end: &str) -> String {
        let mut out = String::new();
        let mut event = |name: &str, data: Value| out.push_str(&format!("event: {name}{line_end}data: {data}{line_end}{line_end}"));
        let pieces = |text: &str| -> Vec<String> {
            let chars: Vec<char> = text.chars().collect();
            chars.chunks(piece_chars.max(1)).map(|c| c.iter().collect()).collect()
        };
        let mut start_usage = usage_json(&reply.usage);
        start_usage["output_tokens"] = json!(1);
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant", "model": model, "content": [],
                   "stop_reason": null, "stop_sequence": null, "usage": start_usage}}),
        );
        event("ping", json!({"type": "ping"}));
        let mut index = 0;
        if !reply.reasoning.is_empty() {
            event("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}}));
            for piece in pieces(&reply.reasoning) {
                event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": piece}}));
            }
            event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}}));
            event("content_block_stop", json!({"type": "content_block_stop", "index": index}));
            index += 1;
        }
        if !reply.content.is_empty() {
            event("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}));
            for piece in pieces(&reply.content) {
                event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}));
            }
            event("content_block_stop", json!({"type": "content_block_stop", "index": index}));
            index += 1;
        }
        for call in &reply.tool_calls {
            let arguments = match &call.arguments {
                ToolArguments::Text(t) => t.clone(),
                ToolArguments::Json(v) => v.to_string(),
            };
            event("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}}));
            for piece in pieces(&arguments) {
                event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}));
            }
            event("content_block_stop", json!({"type": "content_block_stop", "index": index}));
            index += 1;
        }
        let stop_reason = reply.finish_reason.as_deref().map(stop_reason_of);
        let output = reply.usage.completion_tokens.map_or(json!({}), |n| json!({"output_tokens": n}));
        event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": output}));
        event("message_stop", json!({"type": "message_stop"}));
        out
    }

    fn streamed(body: &str, cut: usize) -> (ChatReply, StreamDelta) {
        let mut acc = MessagesStreamAccumulator::new();
        let mut live = StreamDelta::default();
        let chars: Vec<char> = body.chars().collect();
        for piece in chars.chunks(cut) {
            let delta = acc.push(&piece.iter().collect::<String>()).unwrap();
            live.content.push_str(&delta.content);
            live.reasoning.push_str(&delta.reasoning);
            live.tool_text.push_str(&delta.tool_text);
        }
        (acc.finish().unwrap(), live)
    }

    #[test]
    fn streamed_replies_are_put_together_whatever_the_piece_size_and_line_ends() {
        let mut reply = full_reply();
        reply.content = "Let me compute: ünïcode € 🧮".into();
        for call in &mut reply.tool_calls {
            if let ToolArguments::Json(v) = &call.arguments {
                call.arguments = ToolArguments::Text(v.to_string());
            }
        }
        for line_end in ["\n", "\r\n"] {
            let body = reply_stream(&reply, "claude-test", "msg_s1", 3, line_end);
            for cut in [1, 2, 7, 64, 100_000] {
                let (got, live) = streamed(&body, cut);
                assert_eq!(got, reply, "pieces of {cut} characters, {line_end:?} line ends");
                assert_eq!((live.content, live.reasoning), (reply.content.clone(), reply.reasoning.clone()), "the live deltas add up");
                assert_eq!(live.tool_text, r#"{"expressions":["2*3"]}{"expressions":["7-1"],"requirements":["r1"]}"#);
            }
        }
    }

    #[test]
    fn a_published_tool_use_stream_is_read() {
        let body = concat!(
            "event: message_start\n",
            "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_014p7gG3wDgGV9EUtLvnow3U\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":1024,\"output_tokens\":2},\"content\":[],\"stop_reason\":null}}\n\n",
            "event: content_block_start\n",
            "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: ping\n",
            "data: {\"type\": \"ping\"}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay, let me check.\"}}\n\n",
            "event: content_block_stop\n",
            "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: content_block_start\n",
            "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"calculator\",\"input\":{}}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"expressions\\\": [\\\"17\"}}\n\n",
            "event: content_block_delta\n",
            "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"*23\\\"]}\"}}\n\n",
            "event: content_block_stop\n",
            "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
            "event: content_block_start\n",
            "data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"calculator\",\"input\":{}}}\n\n",
            "event: content_block_stop\n",
            "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
            "event: message_delta\n",
            "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n",
            "event: message_stop\n",
            "data: {\"type\":\"message_stop\"}\n\n",
        );
        let (reply, _) = streamed(body, 100_000);
        assert_eq!(reply.content, "Okay, let me check.");
        assert_eq!(
            reply.tool_calls,
            vec![
                ReplyToolCall { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(), name: "calculator".into(), arguments: ToolArguments::Text("{\"expressions\": [\"17*23\"]}".into()) },
                ReplyToolCall { id: "toolu_02".into(), name: "calculator".into(), arguments: ToolArguments::Text("{}".into()) },
            ]
        );
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            reply.usage,
            Usage { prompt_tokens: Some(472 + 1024), completion_tokens: Some(89), cached_prompt_tokens: Some(1024), cache_write_tokens: Some(0), ..Usage::default() }
        );
    }

    #[test]
    fn cumulative_counts_in_message_delta_replace_the_first_ones() {
        let body = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"abc\"}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":100,\"output_tokens\":4096}}\n\n",
        );
        let (reply, live) = streamed(body, 5);
        assert_eq!((reply.reasoning.as_str(), live.reasoning.as_str()), (REDACTED_THINKING, REDACTED_THINKING));
        assert_eq!(reply.finish_reason.as_deref(), Some("length"));
        assert_eq!(reply.usage, Usage { prompt_tokens: Some(112), completion_tokens: Some(4096), cached_prompt_tokens: Some(100), ..Usage::default() });
    }

    #[test]
    fn error_events_plain_bodies_and_broken_events_are_handled() {
        let mut failing = MessagesStreamAccumulator::new();
        failing.push("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n").unwrap();
        assert_eq!(
            failing.push("event: error\r\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\r\n\r\n"),
            Err(WireError::Api("Overloaded".into()))
        );
        let mut plain = MessagesStreamAccumulator::new();
        let body = reply_json(&full_reply(), "claude-test", "msg_p").to_string();
        let (head, tail) = body.split_at(body.len() / 2);
        plain.push(head).unwrap();
        plain.push(tail).unwrap();
        assert_eq!(plain.events(), 0);
        assert_eq!(plain.finish().unwrap(), full_reply(), "a server that ignored stream: true");
        let mut error_body = MessagesStreamAccumulator::new();
        error_body.push("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"}}").unwrap();
        assert_eq!(error_body.finish(), Err(WireError::Api("Number of request tokens has exceeded your per-minute rate limit".into())));
        let mut bare = MessagesStreamAccumulator::new();
        assert_eq!(bare.push("data: {\"error\": {\"message\": \"upstream timeout\"}}\n\n"), Err(WireError::Api("upstream timeout".into())));
        let mut broken = MessagesStreamAccumulator::new();
        assert!(matches!(broken.push("event: content_block_delta\ndata: {not json\n\n"), Err(WireError::Json(_))));
        let mut unterminated = MessagesStreamAccumulator::new();
        unterminated.push("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tail\"}}").unwrap();
        assert_eq!(unterminated.finish().unwrap().content, "tail", "the last event needs no blank line");
    }
}
