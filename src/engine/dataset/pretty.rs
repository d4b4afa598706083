//! The reference's JSON layout: two-space indentation, with every list that holds no list or object on one line
//! (`[1, 2, 3]`).

use serde_json::Value as Json;

use crate::engine::generate::GenerateError;
use crate::engine::graph::{write_json_escaped, write_json_string};

/// Pretty-prints like `json.dumps(indent=2)` followed by the reference's one-line collapse of flat lists.
pub fn to_pretty_string(json: &Json) -> String {
    let mut out = String::new();
    write(json, 0, &mut out);
    out
}

/// The same layout written as it goes: containers are opened and closed one at a time, and what goes into them
/// is either a small tree (written by `write`) or text pieces. Text gathers in a buffer that is handed to `out`
/// once it passes 64 KiB, so a file of any size is written with one buffer.
///
/// A list opened here is laid out one item a line, so only lists that hold objects or lists are opened; a list
/// of scalars is written whole (its one-line layout depends on every item).
pub(crate) struct PrettyWriter<'o> {
    text: String,
    out: &'o mut dyn FnMut(&str) -> Result<(), GenerateError>,
    /// Items or members written so far in each open container, outermost first.
    open: Vec<usize>,
}

impl<'o> PrettyWriter<'o> {
    /// A writer handing its text to `out`.
    pub(crate) fn new(out: &'o mut dyn FnMut(&str) -> Result<(), GenerateError>) -> PrettyWriter<'o> {
        PrettyWriter { text: String::with_capacity(1 << 17), out, open: Vec::new() }
    }

    /// A writer that carries on inside containers already opened elsewhere: `open` holds each one's count of items
    /// or members so far, outermost first (how a piece of a file is written apart from the rest).
    pub(crate) fn within(out: &'o mut dyn FnMut(&str) -> Result<(), GenerateError>, open: Vec<usize>) -> PrettyWriter<'o> {
        PrettyWriter { text: String::with_capacity(1 << 12), out, open }
    }

    /// Opens an object (`{`) or a list (`[`) where a value is due.
    pub(crate) fn begin(&mut self, opener: char) {
        self.text.push(opener);
        self.open.push(0);
    }

    /// Closes the innermost container with `closer` (`}` or `]`).
    pub(crate) fn end(&mut self, closer: char) {
        let count = self.open.pop().expect("a container is open");
        close(count, closer, self.open.len(), &mut self.text);
    }

    /// Starts the next item of the innermost (list) container.
    pub(crate) fn item(&mut self) {
        let depth = self.open.len() - 1;
        let count = self.open.last_mut().expect("a container is open");
        next(*count, depth, &mut self.text);
        *count += 1;
    }

    /// Starts the next member of the innermost (object) container: its key, ready for the value.
    pub(crate) fn key(&mut self, key: &str) {
        self.item();
        push_key(key, &mut self.text);
    }

    /// A whole value where one is due.
    pub(crate) fn json(&mut self, json: &Json) {
        write(json, self.open.len(), &mut self.text);
    }

    /// Raw text where a value (or a piece of one) is due.
    pub(crate) fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// A string's escaped inside, without quotes (a piece of a string written in pieces).
    pub(crate) fn push_escaped(&mut self, piece: &str) {
        write_json_escaped(&mut self.text, piece).expect("a string takes every piece");
    }

    /// A whole string, quoted and escaped.
    pub(crate) fn push_string(&mut self, text: &str) {
        write_json_string(&mut self.text, text).expect("a string takes every piece");
    }

    /// Hands the text to `out` if the buffer has passed 64 KiB.
    pub(crate) fn spill(&mut self) -> Result<(), GenerateError> {
        if self.text.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    /// Hands all the text written so far to `out`.
    pub(crate) fn flush(&mut self) -> Result<(), GenerateError> {
        if !self.text.is_empty() {
            (self.out)(&self.text)?;
            self.text.clear();
        }
        Ok(())
    }
}

/// Writes `json` as the value of a container at `depth - 1` (the top level is depth 0).
fn write(json: &Json, depth: usize, out: &mut String) {
    match json {
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
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                next(i, depth, out);
                write(item, depth + 1, out);
            }
            close(items.len(), ']', depth, out);
        }
        Json::Object(map) => {
            out.push('{');
            for (i, (key, value)) in map.iter().enumerate() {
                next(i, depth, out);
                push_key(key, out);
                write(value, depth + 1, out);
            }
            close(map.len(), '}', depth, out);
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Before the item numbered `i` of a multi-line container at `depth`: the previous item's comma, a line break and
/// the item's indentation.
fn next(i: usize, depth: usize, out: &mut String) {
    out.push_str(if i == 0 { "\n" } else { ",\n" });
    indent(depth + 1, out);
}

/// The end of a container at `depth` that holds `count` items: on a line of its own, or `[]`/`{}` when empty.
fn close(count: usize, closer: char, depth: usize, out: &mut String) {
    if count > 0 {
        out.push('\n');
        indent(depth, out);
    }
    out.push(closer);
}

fn push_key(key: &str, out: &mut String) {
    write_json_string(out, key).expect("a string takes every piece");
    out.push_str(": ");
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
