//! Fuzzes the chat-completions reply parser and what the harness does with a reply: no panic on any body; the
//! content is the message's content; each structured tool call's arguments normalise idempotently and run.
#![no_main]

use arbigraph_studio::engine::agent::openai_wire::parse_reply;
use arbigraph_studio::engine::agent::toolcalls::{execute, normalise_arguments, parse_text_calls};
use arbigraph_studio::engine::agent::ToolArguments;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else { return };
    let Ok(reply) = parse_reply(body) else { return };
    let json: Value = serde_json::from_str(body).expect("a parsed reply is JSON");
    let message = &json["choices"][0]["message"];
    if let Some(content) = message.get("content").and_then(Value::as_str) {
        assert_eq!(reply.content, content);
    }
    let structured = message.get("tool_calls").and_then(Value::as_array).map(Vec::len).unwrap_or(0);
    assert!(reply.tool_calls.len() >= structured, "every structured tool call is kept");
    for call in reply.tool_calls.iter().take(8) {
        let arguments = match &call.arguments {
            ToolArguments::Text(text) => Value::String(text.clone()),
            ToolArguments::Json(value) => value.clone(),
        };
        let normal = normalise_arguments(&arguments);
        assert!(normal.is_object(), "{normal}");
        assert_eq!(normalise_arguments(&normal), normal, "normalising is idempotent for {arguments}");
        assert!(!execute(&call.name, &arguments).is_empty());
    }
    for call in parse_text_calls(&reply.content).iter().take(8) {
        let _ = execute(&call.name, &call.arguments);
    }
});
