//! JSONL batch plumbing shared by `solve --batch` and `trace --batch`: exactly one output line per input line, in
//! order; a line's extra fields are ignored and its `id` field, when present, is echoed first in the output line;
//! a malformed line gives an error line, never a crash; `-` reads standard input.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

/// What one line came to: the success value as JSON text under `key`, or an error message.
pub type LineResult = Result<String, String>;

/// The `id` of a case line, when it is a JSON object that has one (any JSON value, echoed as is).
pub fn line_id(line: &str) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<Value>,
    }
    serde_json::from_str::<IdOnly>(line).ok().and_then(|c| c.id)
}

/// The output line for a case: `{"id": …, "<key>": <value>}` or `{"id": …, "error": "…"}` (`id` only if given).
pub fn output_line(id: Option<&Value>, key: &str, result: &LineResult) -> String {
    let id = id.map(|id| format!("\"id\": {id}, ")).unwrap_or_default();
    match result {
        Ok(value) => format!("{{{id}\"{key}\": {value}}}"),
        Err(message) => format!("{{{id}\"error\": {}}}", Value::String(message.clone())),
    }
}

/// Summary counts of a batch run.
pub struct BatchStats {
    /// Lines read.
    pub cases: usize,
    /// Lines that gave an error.
    pub errors: usize,
}

/// Reads `path` line by line, answers each with `answer` and writes one output line per case to stdout.
pub fn run(path: &Path, key: &str, mut answer: impl FnMut(&str) -> LineResult) -> Result<BatchStats, ExitCode> {
    let reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(file) => Box::new(std::io::BufReader::new(file)),
            Err(e) => return Err(super::files::fail(format!("cannot read {}: {e}", path.display()))),
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut stats = BatchStats { cases: 0, errors: 0 };
    for (number, line) in reader.split(b'\n').enumerate() {
        let bytes = match line {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = out.flush();
                return Err(super::files::fail(format!("cannot read {}: {e}", path.display())));
            }
        };
        stats.cases += 1;
        let (id, result) = match String::from_utf8(bytes) {
            Ok(text) => {
                let text = text.trim_end_matches('\r');
                (line_id(text), answer(text))
            }
            Err(_) => (None, Err(format!("line {} is not valid UTF-8", number + 1))),
        };
        if result.is_err() {
            stats.errors += 1;
        }
        if writeln!(out, "{}", output_line(id.as_ref(), key, &result)).is_err() {
            return Err(super::files::fail("cannot write to standard output"));
        }
    }
    if out.flush().is_err() {
        return Err(super::files::fail("cannot write to standard output"));
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_echoed_and_extra_fields_ignored() {
        assert_eq!(line_id(r#"{"id": "case-7", "task": "T", "extra": [1]}"#), Some(Value::String("case-7".into())));
        assert_eq!(line_id(r#"{"id": 3}"#), Some(Value::from(3)));
        assert_eq!(line_id(r#"{"task": "T"}"#), None);
        assert_eq!(line_id("not json"), None);
        assert_eq!(output_line(Some(&Value::from(3)), "output", &Ok("[1, 2]".into())), r#"{"id": 3, "output": [1, 2]}"#);
        assert_eq!(output_line(None, "result", &Err("bad \"x\"".into())), r#"{"error": "bad \"x\""}"#);
        let line: Value = serde_json::from_str(&output_line(Some(&Value::from("a")), "result", &Ok("{\"k\": 1}".into()))).unwrap();
        assert_eq!(line, serde_json::json!({"id": "a", "result": {"k": 1}}));
    }
}
