//! The reference's JSON layout: two-space indentation, with every list that holds no list or object on one line
//! (`[1, 2, 3]`).

use serde_json::Value as Json;

/// Pretty-prints like `json.dumps(indent=2)` followed by the reference's one-line collapse of flat lists.
pub fn to_pretty_string(json: &Json) -> String {
    let mut out = String::new();
    write(json, 0, &mut out);
    out
}

fn write(json: &Json, depth: usize, out: &mut String) {
    match json {
        Json::Array(items) if items.is_empty() => out.push_str("[]"),
        Json::Array(items) if items.iter().all(|i| !matches!(i, Json::Array(_) | Json::Object(_))) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&item.to_string());
            }
            out.push(']');
        }
        Json::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(depth + 1, out);
                write(item, depth + 1, out);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(depth, out);
            out.push(']');
        }
        Json::Object(map) if map.is_empty() => out.push_str("{}"),
        Json::Object(map) => {
            out.push_str("{\n");
            for (i, (key, value)) in map.iter().enumerate() {
                indent(depth + 1, out);
                out.push_str(&Json::String(key.clone()).to_string());
                out.push_str(": ");
                write(value, depth + 1, out);
                if i + 1 < map.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(depth, out);
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_lists_stay_on_one_line() {
        let json = serde_json::json!({"a": [1, 2, 3], "b": [[1], {"c": []}], "d": "x"});
        expect_test::expect![[r#"
            {
              "a": [1, 2, 3],
              "b": [
                [1],
                {
                  "c": []
                }
              ],
              "d": "x"
            }"#]]
        .assert_eq(&to_pretty_string(&json));
    }

    #[test]
    fn output_parses_back_to_the_same_value() {
        let json = serde_json::json!({"s": [{"p": "line\nbreak \"q\"", "g": [-1, 2.5]}], "n": null});
        assert_eq!(serde_json::from_str::<Json>(&to_pretty_string(&json)).unwrap(), json);
    }
}
