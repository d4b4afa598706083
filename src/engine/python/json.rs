//! JSON and Python values, both ways. `loads` reads JSON text the way Python's `json.loads` does: integers stay
//! exact ints at any size (up to Python's 4300-digit cap), other numbers become floats, objects dicts in their
//! order (a repeated key keeps its last value), containers nest at most `MAX_JSON_DEPTH` levels; the CLI's
//! batch tracer and the browser's Python box read arguments with it, so both read them identically.
//! `to_json_text` writes a result as `json.dumps` would; `from_json` converts an already parsed serde_json value.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use num_bigint::BigInt;

use super::value::dict::Dict;
use super::value::PyValue;

/// Why text could not be read as a JSON value.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Not JSON (serde_json's message, which locates the problem by line and column).
    #[error(transparent)]
    Syntax(#[from] serde_json::Error),
    /// Containers nested deeper than `MAX_JSON_DEPTH`.
    #[error("recursion limit exceeded at byte {byte}")]
    TooDeep { byte: usize },
    /// An integer literal with more digits than Python reads from text.
    #[error("an int literal of {digits} digits exceeds the limit of {INT_MAX_STR_DIGITS}")]
    IntTooLong { digits: usize },
    /// The reader met something other than what the grammar requires here.
    #[error("expected {what} at byte {byte}")]
    Expected { what: String, byte: usize },
    #[error("unexpected token at byte {byte}")]
    UnexpectedToken { byte: usize },
    #[error("bad string at byte {byte}")]
    BadString { byte: usize },
    #[error("bad number {literal}: {reason}")]
    BadNumber { literal: String, reason: String },
}

/// Reads JSON text as Python's `json.loads` does (`null` → None, arrays → lists, objects → dicts with string
/// keys), keeping integers exact past 64 bits.
pub fn loads(text: &str) -> Result<PyValue, JsonError> {
    // serde_json checks the syntax (skipping numbers unparsed, so ints of any length pass); the text is then
    // read with Python's own number rules.
    serde_json::from_str::<serde::de::IgnoredAny>(text)?;
    JsonScan { text, pos: 0, depth: 0 }.value()
}

/// The entries of a dict read from a JSON object, as keyword arguments in the object's order; `None` if the
/// value is not a dict.
pub fn keyword_arguments(value: &PyValue) -> Option<Vec<(String, PyValue)>> {
    let PyValue::Dict(map) = value else { return None };
    let pairs = map.borrow().pairs();
    Some(
        pairs
            .into_iter()
            .map(|(k, v)| match k {
                PyValue::Str(name) => (name.to_string(), v),
                other => (other.repr(), v),
            })
            .collect(),
    )
}

/// Python's default cap on the digits of an int read from text (`sys.get_int_max_str_digits()`).
pub const INT_MAX_STR_DIGITS: usize = 4300;

/// A cursor over JSON text whose syntax serde_json has already accepted. Integer literals become exact Python
/// ints at any size (up to Python's digit cap); other numbers floats.
struct JsonScan<'a> {
    text: &'a str,
    pos: usize,
    /// Containers open around the cursor.
    depth: usize,
}

/// Deepest nesting `loads` reads (serde_json's own limit; its syntax check skips values unlimited).
pub const MAX_JSON_DEPTH: usize = 128;

impl JsonScan<'_> {
    fn skip_ws(&mut self) {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() && matches!(bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.text.as_bytes().get(self.pos).copied()
    }

    fn expect(&mut self, byte: u8) -> Result<(), JsonError> {
        match self.peek() {
            Some(b) if b == byte => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(JsonError::Expected { what: format!("'{}'", byte as char), byte: self.pos }),
        }
    }

    /// Walks the object starting here: `each` is called with every key and must consume the value after it.
    fn object(&mut self, mut each: impl FnMut(&mut Self, String) -> Result<(), JsonError>) -> Result<(), JsonError> {
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            each(self, key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(JsonError::Expected { what: "',' or '}'".into(), byte: self.pos }),
            }
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.skip_ws();
        let start = self.pos;
        let bytes = self.text.as_bytes();
        if bytes.get(start) != Some(&b'"') {
            return Err(JsonError::Expected { what: "a string".into(), byte: start });
        }
        let mut i = start + 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        let end = (i + 1).min(bytes.len());
        self.pos = end;
        let literal = self.text.get(start..end).ok_or(JsonError::BadString { byte: start })?;
        Ok(serde_json::from_str(literal)?)
    }

    fn number(&mut self) -> Result<PyValue, JsonError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() && matches!(bytes[self.pos], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
            self.pos += 1;
        }
        let literal = &self.text[start..self.pos];
        if literal.contains(['.', 'e', 'E']) {
            return literal.parse::<f64>().map(PyValue::Float).map_err(|e| JsonError::BadNumber { literal: literal.into(), reason: e.to_string() });
        }
        let digits = literal.trim_start_matches('-').len();
        if digits > INT_MAX_STR_DIGITS {
            return Err(JsonError::IntTooLong { digits });
        }
        literal
            .parse::<BigInt>()
            .map(PyValue::from_bigint)
            .map_err(|e| JsonError::BadNumber { literal: literal.into(), reason: e.to_string() })
    }

    fn word(&mut self, word: &str, value: PyValue) -> Result<PyValue, JsonError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(JsonError::UnexpectedToken { byte: self.pos })
        }
    }

    /// The JSON value starting here as Python (`null` → None, arrays → lists, objects → dicts with string keys).
    fn value(&mut self) -> Result<PyValue, JsonError> {
        if self.depth >= MAX_JSON_DEPTH {
            return Err(JsonError::TooDeep { byte: self.pos });
        }
        self.depth += 1;
        let value = self.value_here();
        self.depth -= 1;
        value
    }

    fn value_here(&mut self) -> Result<PyValue, JsonError> {
        match self.peek() {
            Some(b'"') => self.string().map(|s| PyValue::str(&s)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.word("true", PyValue::Bool(true)),
            Some(b'f') => self.word("false", PyValue::Bool(false)),
            Some(b'n') => self.word("null", PyValue::None),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(PyValue::list(items));
                }
                loop {
                    items.push(self.value()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(PyValue::list(items));
                        }
                        _ => return Err(JsonError::Expected { what: "',' or ']'".into(), byte: self.pos }),
                    }
                }
            }
            Some(b'{') => {
                let mut dict = Dict::new();
                self.object(|scan, key| {
                    let value = scan.value()?;
                    let key = PyValue::str(&key);
                    if let Ok(hk) = key.hash_key() {
                        dict.insert(hk, key, value);
                    }
                    Ok(())
                })?;
                Ok(PyValue::Dict(Rc::new(RefCell::new(dict))))
            }
            _ => Err(JsonError::Expected { what: "a value".into(), byte: self.pos }),
        }
    }
}

/// Reads a JSON value as Python (`null` → None, arrays → lists, objects → dicts with string keys).
pub fn from_json(j: &serde_json::Value) -> PyValue {
    match j {
        serde_json::Value::Null => PyValue::None,
        serde_json::Value::Bool(b) => PyValue::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                PyValue::Int(i)
            } else if let Some(u) = n.as_u64() {
                PyValue::from_i128(u as i128)
            } else {
                PyValue::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => PyValue::str(s),
        serde_json::Value::Array(items) => PyValue::list(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => {
            let mut d = Dict::new();
            for (k, v) in map {
                let key = PyValue::str(k);
                if let Ok(hk) = key.hash_key() {
                    d.insert(hk, key, from_json(v));
                }
            }
            PyValue::Dict(Rc::new(RefCell::new(d)))
        }
    }
}

/// JSON text of a result as Python's `json.dumps` would write it (ints exact at any size, tuples and sets as
/// arrays, dict keys as strings); functions and other objects are an error.
pub fn to_json_text(v: &PyValue) -> Result<String, String> {
    let mut out = String::new();
    write_json(v, &mut out, 0)?;
    Ok(out)
}

fn write_json(v: &PyValue, out: &mut String, depth: u32) -> Result<(), String> {
    if depth > 200 {
        return Err("ValueError: Circular reference detected".into());
    }
    let seq = |items: &[PyValue], out: &mut String| -> Result<(), String> {
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_json(item, out, depth + 1)?;
        }
        out.push(']');
        Ok(())
    };
    match v {
        PyValue::None => out.push_str("null"),
        PyValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        PyValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        PyValue::Big(b) => {
            let _ = write!(out, "{b}");
        }
        PyValue::Float(f) => out.push_str(&if f.is_nan() {
            "NaN".to_string()
        } else if f.is_infinite() {
            if *f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
        } else {
            crate::engine::value::python_float_repr(*f)
        }),
        PyValue::Str(s) => out.push_str(&serde_json::Value::String(s.to_string()).to_string()),
        PyValue::List(l) => {
            let items = l.borrow().clone();
            seq(&items, out)?;
        }
        PyValue::Tuple(t) => seq(t, out)?,
        PyValue::Set(s) => {
            let items = s.borrow().items();
            seq(&items, out)?;
        }
        PyValue::Dict(d) => {
            out.push('{');
            for (i, (k, val)) in d.borrow().pairs().iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let key = match k {
                    PyValue::Str(s) => s.to_string(),
                    PyValue::None => "null".into(),
                    PyValue::Bool(b) => if *b { "true" } else { "false" }.into(),
                    PyValue::Int(_) | PyValue::Big(_) | PyValue::Float(_) => k.repr(),
                    other => return Err(format!("TypeError: keys must be str, int, float, bool or None, not {}", other.type_name())),
                };
                out.push_str(&serde_json::Value::String(key).to_string());
                out.push_str(": ");
                write_json(val, out, depth + 1)?;
            }
            out.push('}');
        }
        other => return Err(format!("TypeError: Object of type {} is not JSON serializable", other.type_name())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `repr` of what `loads` reads, or the error's message.
    fn read(text: &str) -> String {
        match loads(text) {
            Ok(v) => v.repr(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn integers_stay_exact_past_64_bits_and_other_numbers_become_floats() {
        // python3 -c 'import json; print(json.loads("[-100000000000000000000, 9223372036854775808, 1e20, 1.5, -0, 7E0]"))'
        assert_eq!(
            read("[-100000000000000000000, 9223372036854775808, 1e20, 1.5, -0, 7E0]"),
            "[-100000000000000000000, 9223372036854775808, 1e+20, 1.5, 0, 7.0]"
        );
        assert_eq!(read(&"7".repeat(400)).len(), 400);
    }

    #[test]
    fn objects_keep_their_order_and_a_repeated_key_its_last_value() {
        // python3 -c 'import json; print(json.loads("{\"b\": 1, \"a\": [true, null, \"x\\u00e9\"], \"b\": 2}"))'
        assert_eq!(read(r#"{"b": 1, "a": [true, null, "x\u00e9"], "b": 2}"#), "{'b': 2, 'a': [True, None, 'x\u{e9}']}");
    }

    #[test]
    fn deep_nesting_long_ints_and_malformed_text_are_refused() {
        assert_eq!(read(&format!("{}{}", "[".repeat(MAX_JSON_DEPTH), "]".repeat(MAX_JSON_DEPTH))).len(), 2 * MAX_JSON_DEPTH);
        let too_deep = MAX_JSON_DEPTH + 1;
        assert_eq!(read(&format!("{}{}", "[".repeat(too_deep), "]".repeat(too_deep))), "error: recursion limit exceeded at byte 128");
        assert_eq!(read(&"9".repeat(4301)), "error: an int literal of 4301 digits exceeds the limit of 4300");
        assert_eq!(read(&format!("-{}", "9".repeat(4300))).len(), 4301);
        assert_eq!(read(r#"{"a": }"#), "error: expected value at line 1 column 7");
        assert_eq!(read("[1] 2"), "error: trailing characters at line 1 column 5");
    }

    #[test]
    fn an_object_gives_keyword_arguments_and_anything_else_none() {
        let kwargs = loads(r#"{"n": 1, "xs": [2]}"#).ok().and_then(|v| keyword_arguments(&v));
        let kwargs: Option<Vec<(String, String)>> = kwargs.map(|kw| kw.into_iter().map(|(k, v)| (k, v.repr())).collect());
        assert_eq!(kwargs, Some(vec![("n".into(), "1".into()), ("xs".into(), "[2]".into())]));
        assert!(loads("[1]").ok().and_then(|v| keyword_arguments(&v)).is_none());
    }

    #[test]
    fn results_write_as_json_dumps_would() {
        let v = PyValue::list(vec![PyValue::tuple(vec![PyValue::from_i128(1 << 70), PyValue::None]), PyValue::str("a\"b")]);
        assert_eq!(to_json_text(&v), Ok("[[1180591620717411303424, null], \"a\\\"b\"]".to_string()));
        let read_back = loads("[-100000000000000000001, 1e+20, {\"k\": [true]}]").map(|v| to_json_text(&v));
        assert_eq!(read_back.ok(), Some(Ok("[-100000000000000000001, 1e+20, {\"k\": [true]}]".to_string())));
    }
}
