//! Fuzzes the tool-call text fallbacks (`<tool_call>` JSON, Qwen's `<function=…>` XML and its truncated form),
//! argument normalisation and the calculator call: no panic; text with a parsed call is recognised as a tool
//! call attempt; normalising is idempotent and always gives an object.
#![no_main]

use arbigraph_studio::engine::agent::toolcalls::{execute, looks_like_tool_call, normalise_arguments, parse_text_calls, CALCULATOR};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn check_arguments(arguments: &Value) {
    let normal = normalise_arguments(arguments);
    assert!(normal.is_object(), "{normal}");
    assert_eq!(normalise_arguments(&normal), normal, "normalising is idempotent for {arguments}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let calls = parse_text_calls(text);
    if !calls.is_empty() {
        assert!(looks_like_tool_call(text), "{text:?} holds a call but does not look like one");
    }
    for call in calls.iter().take(8) {
        check_arguments(&call.arguments);
        assert!(!execute(&call.name, &call.arguments).is_empty());
    }
    // The text as raw arguments, as a model may send them.
    let raw = Value::String(text.to_string());
    check_arguments(&raw);
    assert!(!execute(CALCULATOR, &raw).is_empty());
});
