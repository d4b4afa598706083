//! Tool calls: the text fallbacks for models that write tool markup into their content (the reference's forms
//! `<tool_call>{json}</tool_call>`, Qwen's `<function=…><parameter=…>` XML and its truncated variant),
//! argument normalisation, execution of the calculator, and the "looks like a tool call" test of the repairs.

use crate::engine::calculator::evaluate_to_string;
use serde_json::{json, Map, Value};

/// The only tool.
pub const CALCULATOR: &str = "calculator";

/// Most expressions evaluated in one call; the rest get an error string.
pub const MAX_EXPRESSIONS_PER_CALL: usize = 200;

/// A tool call as found in a reply, before normalisation.
#[derive(Clone, Debug, PartialEq)]
pub struct RawCall {
    /// The function name.
    pub name: String,
    /// The arguments: a JSON value, or a string that may hold JSON.
    pub arguments: Value,
}

/// Parses tool calls out of assistant text, all forms in the reference's order.
pub fn parse_text_calls(text: &str) -> Vec<RawCall> {
    let mut calls = Vec::new();
    // 1. <tool_call> JSON payloads.
    let mut rest = text;
    while let Some(start) = rest.find("<tool_call>") {
        let body_start = start + "<tool_call>".len();
        let Some(len) = rest[body_start..].find("</tool_call>") else { break };
        let payload = rest[body_start..body_start + len].trim();
        if let Ok(value) = serde_json::from_str::<Value>(payload) {
            collect_json_calls(&value, &mut calls);
        }
        rest = &rest[body_start + len + "</tool_call>".len()..];
    }
    // 2. Closed <function=NAME> … </function> blocks, and 3. a truncated trailing one.
    let mut rest = text;
    while let Some(start) = rest.find("<function=") {
        let name_start = start + "<function=".len();
        let Some(name_len) = rest[name_start..].find('>') else { break };
        let name = rest[name_start..name_start + name_len].trim().to_string();
        let body_start = name_start + name_len + 1;
        match rest[body_start..].find("</function>") {
            Some(len) => {
                calls.push(RawCall { name, arguments: Value::Object(xml_parameters(&rest[body_start..body_start + len])) });
                rest = &rest[body_start + len + "</function>".len()..];
            }
            None => {
                let parameters = xml_parameters(&rest[body_start..]);
                if !parameters.is_empty() {
                    calls.push(RawCall { name, arguments: Value::Object(parameters) });
                }
                break;
            }
        }
    }
    calls
}

fn collect_json_calls(value: &Value, calls: &mut Vec<RawCall>) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| collect_json_calls(item, calls)),
        Value::Object(map) => {
            for key in ["function", "function_call"] {
                if let Some(inner @ Value::Object(_)) = map.get(key) {
                    collect_json_calls(inner, calls);
                    return;
                }
            }
            if let Some(name) = map.get("name").and_then(Value::as_str) {
                calls.push(RawCall { name: name.to_string(), arguments: map.get("arguments").cloned().unwrap_or(Value::Object(Map::new())) });
            }
        }
        _ => {}
    }
}

/// Every complete `<parameter=KEY>VALUE</parameter>`, values JSON-decoded when possible.
fn xml_parameters(body: &str) -> Map<String, Value> {
    let mut parameters = Map::new();
    let mut rest = body;
    while let Some(start) = rest.find("<parameter=") {
        let key_start = start + "<parameter=".len();
        let Some(key_len) = rest[key_start..].find('>') else { break };
        let key = rest[key_start..key_start + key_len].trim().to_string();
        let value_start = key_start + key_len + 1;
        let Some(value_len) = rest[value_start..].find("</parameter>") else { break };
        let raw = rest[value_start..value_start + value_len].trim();
        let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
        parameters.insert(key, value);
        rest = &rest[value_start + value_len + "</parameter>".len()..];
    }
    parameters
}

/// Normalises arguments into an object with `expressions` (list) and/or `expression` (string).
pub fn normalise_arguments(arguments: &Value) -> Value {
    let value = match arguments {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(decoded @ (Value::Object(_) | Value::Array(_))) => decoded,
            _ => return json!({"expression": text}),
        },
        other => other.clone(),
    };
    let mut map = match value {
        Value::Object(map) => map,
        Value::Array(items) => return json!({"expressions": items}),
        Value::Null => Map::new(),
        other => return json!({"expression": scalar_text(&other)}),
    };
    // A lone {"arguments": …} is unwrapped; nested arguments are merged in.
    if let Some(inner) = map.remove("arguments") {
        if let Value::Object(inner) = normalise_arguments(&inner) {
            for (k, v) in inner {
                map.entry(k).or_insert(v);
            }
        }
    }
    if let Some(expressions) = map.get("expressions").cloned() {
        let list = match expressions {
            Value::String(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(items)) => Value::Array(items),
                Ok(Value::String(s)) => json!([s]),
                _ => json!([text]),
            },
            Value::Array(items) => Value::Array(items),
            Value::Null => Value::Null,
            other => json!([scalar_text(&other)]),
        };
        if list.is_null() {
            map.remove("expressions");
        } else {
            map.insert("expressions".into(), list);
        }
    }
    if let Some(expression) = map.get("expression").cloned() {
        map.insert("expression".into(), Value::String(scalar_text(&expression)));
    }
    Value::Object(map)
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Runs one call and returns the tool message's content.
pub fn execute(name: &str, arguments: &Value) -> String {
    if name != CALCULATOR {
        return format!("Error: there is no tool named `{name}`; the only tool is `{CALCULATOR}`");
    }
    let normal = normalise_arguments(arguments);
    if let Some(Value::Array(items)) = normal.get("expressions") {
        let results: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                _ if i >= MAX_EXPRESSIONS_PER_CALL => format!("Error: at most {MAX_EXPRESSIONS_PER_CALL} expressions per call"),
                Value::String(expression) => evaluate_to_string(expression),
                other => format!("Error: each expression must be a string, got {other}"),
            })
            .collect();
        return json!({"results": results}).to_string();
    }
    if let Some(Value::String(expression)) = normal.get("expression") {
        return evaluate_to_string(expression);
    }
    "Error: could not read the arguments; pass `expressions`, a list of arithmetic expressions as strings".to_string()
}

/// What running one call gave: the tool message's content and the call's origin declarations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallOutcome {
    /// The tool message's content.
    pub result: String,
    /// Declared requirement ids that name an expected output.
    pub anchors: Vec<String>,
    /// Declared requirement ids that do not (rejected: the call stays unassigned to them).
    pub rejected: Vec<String>,
}

/// The requirement ids a call declares in its optional `requirements` argument (a list of names, one name, or a
/// JSON list in a string), in order, without duplicates.
pub fn declared_requirements(arguments: &Value) -> Vec<String> {
    let normal = normalise_arguments(arguments);
    let items: Vec<Value> = match normal.get("requirements") {
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => items,
            _ => text.split(',').map(|s| Value::String(s.trim().to_string())).collect(),
        },
        _ => Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let name = scalar_text(&item).trim().to_string();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Runs one call and resolves its declared requirement ids against the expected outputs. Ids that do not
/// resolve are reported back in the result (`rejected_requirements`) and anchor nothing.
pub fn run_call(name: &str, arguments: &Value, expected: &[String]) -> CallOutcome {
    let mut result = execute(name, arguments);
    if name != CALCULATOR {
        return CallOutcome { result, anchors: Vec::new(), rejected: Vec::new() };
    }
    let (anchors, rejected): (Vec<String>, Vec<String>) = declared_requirements(arguments).into_iter().partition(|id| expected.contains(id));
    if !rejected.is_empty() {
        result = match serde_json::from_str::<Value>(&result) {
            Ok(Value::Object(mut map)) => {
                map.insert("rejected_requirements".into(), json!(rejected));
                Value::Object(map).to_string()
            }
            _ => format!("{result}\n(rejected requirement ids, not requested results: {})", rejected.join(", ")),
        };
    }
    CallOutcome { result, anchors, rejected }
}

/// True when the text seems to attempt a tool call (markup or JSON call fragments), ignoring case and spaces.
pub fn looks_like_tool_call(text: &str) -> bool {
    let squashed: String = text.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect();
    ["<tool_call", "</tool_call", "<function=", "</function>", "<parameter=", "</parameter>", "\"function_call\":", "\"arguments\":", "\"name\":\"calculator\""]
        .iter()
        .any(|marker| squashed.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_tool_call_payloads_in_every_shape_are_parsed() {
        let text = r#"a <tool_call>{"name": "calculator", "arguments": {"expressions": ["1+1"]}}</tool_call>
            <tool_call>{"function": {"name": "calculator", "arguments": "{\"expression\": \"2*3\"}"}}</tool_call>
            <tool_call>[{"function_call": {"name": "other", "arguments": {}}}]</tool_call>
            <tool_call>not json</tool_call>"#;
        let calls = parse_text_calls(text);
        assert_eq!(calls.len(), 3);
        assert_eq!(execute(&calls[0].name, &calls[0].arguments), r#"{"results":["2"]}"#);
        assert_eq!(execute(&calls[1].name, &calls[1].arguments), "6");
        assert_eq!(calls[2].name, "other");
    }

    #[test]
    fn qwen_xml_calls_are_parsed_once_even_inside_tool_call_tags() {
        let text = "<tool_call>\n<function=calculator>\n<parameter=expressions>\n[\"17 * 43 + 5\", \"100 // 7\"]\n</parameter>\n</function>\n</tool_call>";
        let calls = parse_text_calls(text);
        assert_eq!(calls.len(), 1);
        assert_eq!(execute(&calls[0].name, &calls[0].arguments), r#"{"results":["736","14"]}"#);
    }

    #[test]
    fn a_truncated_xml_call_still_counts_when_a_parameter_closed() {
        let calls = parse_text_calls("<function=calculator><parameter=expression>3 ** 2</parameter> and then the reply was cut");
        assert_eq!(calls.len(), 1);
        assert_eq!(execute(&calls[0].name, &calls[0].arguments), "9");
        assert!(parse_text_calls("<function=calculator><parameter=expression>3 ** 2").is_empty());
    }

    #[test]
    fn arguments_are_normalised_like_the_reference() {
        for (raw, expected) in [
            (json!({"arguments": {"expressions": ["1"]}}), json!({"expressions": ["1"]})),
            (json!({"expressions": "[\"1\", \"2\"]"}), json!({"expressions": ["1", "2"]})),
            (json!({"expressions": "1 + 2"}), json!({"expressions": ["1 + 2"]})),
            (json!(["1", "2"]), json!({"expressions": ["1", "2"]})),
            (json!("3 * 4"), json!({"expression": "3 * 4"})),
            (json!("{\"expression\": 5}"), json!({"expression": "5"})),
            (json!({"expression": 7}), json!({"expression": "7"})),
        ] {
            assert_eq!(normalise_arguments(&raw), expected, "{raw}");
        }
    }

    #[test]
    fn bad_arguments_and_unknown_tools_give_error_results_not_panics() {
        assert!(execute("calculator", &json!({})).starts_with("Error: could not read the arguments"));
        assert_eq!(execute("search", &json!({})), "Error: there is no tool named `search`; the only tool is `calculator`");
        assert_eq!(execute("calculator", &json!({"expressions": [1, "2"]})), r#"{"results":["Error: each expression must be a string, got 1","2"]}"#);
        assert!(execute("calculator", &json!("{\"expressions\": [\"1+")).starts_with("Error: unsupported syntax"));
    }

    #[test]
    fn declared_requirements_resolve_against_the_expected_outputs_or_are_rejected() {
        let expected = vec!["task_1_out".to_string(), "task_2_out".to_string()];
        let ok = run_call("calculator", &json!({"expressions": ["1+1"], "requirements": ["task_2_out", "task_2_out"]}), &expected);
        assert_eq!((ok.result.as_str(), ok.anchors.clone(), ok.rejected.len()), (r#"{"results":["2"]}"#, vec!["task_2_out".to_string()], 0));
        let bad = run_call("calculator", &json!({"expressions": ["1+1"], "requirements": "[\"task_9_out\", \"task_1_out\"]"}), &expected);
        assert_eq!(bad.anchors, vec!["task_1_out".to_string()]);
        assert_eq!(bad.rejected, vec!["task_9_out".to_string()]);
        assert_eq!(bad.result, r#"{"results":["2"],"rejected_requirements":["task_9_out"]}"#);
        let legacy = run_call("calculator", &json!({"expression": "3*3", "requirements": "task_5_out"}), &expected);
        assert!(legacy.result.starts_with("9\n(rejected requirement ids"), "{}", legacy.result);
        let plain = run_call("calculator", &json!(["2*2"]), &expected);
        assert_eq!((plain.result.as_str(), plain.anchors.len()), (r#"{"results":["4"]}"#, 0), "the reference's argument shapes still work");
    }

    #[test]
    fn tool_call_lookalikes_are_detected_regardless_of_case_and_spacing() {
        assert!(looks_like_tool_call("I will call < TOOL_CALL >"));
        assert!(looks_like_tool_call("{\"name\" : \"Calculator\"}"));
        assert!(looks_like_tool_call("\"arguments\" : {"));
        assert!(!looks_like_tool_call("The answer is \\boxed{task_1_out = 4}"));
    }
}
