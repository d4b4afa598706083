//! The OpenAI-compatible `/v1/chat/completions` JSON: the only place that knows its shape. Domain requests
//! and replies are mapped by hand, tolerating provider variations (arguments as a string or an object,
//! `reasoning_content` or `reasoning`, content as a string, `null` or a list of parts, missing `usage`).

use super::prompts::{CALCULATOR_DESCRIPTION, EXPRESSIONS_DESCRIPTION, EXPRESSION_DESCRIPTION, REQUIREMENTS_DESCRIPTION};
use super::toolcalls::CALCULATOR;
use super::chat::RequestKind;
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

/// The request body for `model`. Turns offer the calculator; auxiliary calls (summaries) offer no tools.
pub fn request_json(request: &ChatRequest, model: &str) -> Value {
    let mut body = json!({
        "model": model,
        "messages": request.messages.iter().map(message_json).collect::<Vec<_>>(),
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "top_p": request.top_p,
    });
    if request.kind == RequestKind::Turn {
        body["tools"] = json!([calculator_tool()]);
        body["tool_choice"] = json!("auto");
    }
    body["stream"] = json!(false);
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
    if let (Some(p), Some(c)) = (reply.usage.prompt_tokens, reply.usage.completion_tokens) {
        body["usage"] = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
    }
    body
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
    let usage = json.get("usage").map(|u| Usage {
        prompt_tokens: u.get("prompt_tokens").and_then(Value::as_u64),
        completion_tokens: u.get("completion_tokens").and_then(Value::as_u64),
    });
    Ok(ChatReply {
        content: text_of(message.get("content")),
        reasoning,
        tool_calls,
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
        usage: usage.unwrap_or_default(),
        latency_ms: None,
    })
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
            usage: Usage { prompt_tokens: Some(10), completion_tokens: Some(3) },
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
        assert_eq!(reply.usage, Usage { prompt_tokens: Some(12), completion_tokens: Some(7) });
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

}
