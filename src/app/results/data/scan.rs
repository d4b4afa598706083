//! The outline of a JSON object found without building it: where each top-level member's key and value lie,
//! and, for a value that is a list, where each of its items lies. The scan reads the text a slice at a time and
//! checks only the brackets of the two outer levels; every key, value and item is parsed by serde_json
//! afterwards, which checks the rest, so a text the scan accepts parses to what serde_json makes of the whole.

use std::ops::Range;

/// One top-level member: its key (the quoted string) and value, and the items of a list value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub key: Range<usize>,
    pub value: Range<usize>,
    pub items: Option<Vec<Range<usize>>>,
}

/// A scan under way.
#[derive(Debug, Default)]
pub struct Scan {
    at: usize,
    depth: usize,
    /// The opening brackets of the two outer levels.
    open: [u8; 2],
    in_string: bool,
    escaped: bool,
    member_start: usize,
    colon: Option<usize>,
    items: Option<Vec<Range<usize>>>,
    item_start: usize,
    /// Just after the `]` that closed the member's list.
    items_end: usize,
    members: Vec<Member>,
    /// Just after the object's closing brace, once read.
    end: Option<usize>,
}

impl Scan {
    /// Reads up to `budget` more bytes of `text` (always the same text): `Ok(None)` while some remain, the
    /// members once the object is read, or what is wrong and where.
    pub fn step(&mut self, text: &str, budget: usize) -> Result<Option<Vec<Member>>, String> {
        let bytes = text.as_bytes();
        let stop = self.at.saturating_add(budget).min(bytes.len());
        while self.at < stop {
            let i = self.at;
            self.at += 1;
            if let Some(end) = self.end {
                if !bytes[i].is_ascii_whitespace() {
                    return Err(located(text, i, &format!("trailing characters after the object that ends at byte {end}")));
                }
                continue;
            }
            if self.in_string {
                // Jump to the next quote or backslash.
                if self.escaped {
                    self.escaped = false;
                    continue;
                }
                match bytes[i..stop].iter().position(|&b| b == b'"' || b == b'\\') {
                    Some(k) => {
                        self.at = i + k + 1;
                        match bytes[i + k] {
                            b'"' => self.in_string = false,
                            _ => self.escaped = true,
                        }
                    }
                    None => self.at = stop,
                }
                continue;
            }
            if self.depth == 0 && bytes[i] != b'{' {
                if bytes[i].is_ascii_whitespace() {
                    continue;
                }
                return Err(located(text, i, "a results file is a JSON object, this is not one"));
            }
            match bytes[i] {
                b'"' => self.in_string = true,
                open @ (b'{' | b'[') => {
                    if self.depth < 2 {
                        self.open[self.depth] = open;
                    }
                    self.depth += 1;
                    match self.depth {
                        1 => self.member_start = i + 1,
                        2 if open == b'[' && self.colon.is_some() && text[self.colon.map_or(0, |c| c + 1)..i].trim().is_empty() => {
                            self.items = Some(Vec::new());
                            self.item_start = i + 1;
                        }
                        _ => {}
                    }
                }
                close @ (b'}' | b']') => {
                    if self.depth <= 2 {
                        let want = if self.open[self.depth - 1] == b'{' { b'}' } else { b']' };
                        if close != want {
                            return Err(located(text, i, &format!("expected `{}`, found `{}`", want as char, close as char)));
                        }
                    }
                    if self.depth == 2 && self.items.is_some() {
                        self.item(text, i, true)?;
                        self.items_end = i + 1;
                    }
                    if self.depth == 1 {
                        self.member(text, i, true)?;
                        self.end = Some(i + 1);
                    }
                    self.depth -= 1;
                }
                b':' if self.depth == 1 && self.colon.is_none() => self.colon = Some(i),
                b',' if self.depth == 1 => {
                    self.member(text, i, false)?;
                    self.member_start = i + 1;
                }
                b',' if self.depth == 2 && self.items.is_some() => {
                    self.item(text, i, false)?;
                    self.item_start = i + 1;
                }
                _ => {}
            }
        }
        if self.at < bytes.len() {
            return Ok(None);
        }
        match self.end {
            Some(_) => Ok(Some(std::mem::take(&mut self.members))),
            None => Err(located(text, bytes.len(), "the file ends before its object does")),
        }
    }

    /// Ends the member before position `i` (a `,` or, with `last`, the closing `}`).
    fn member(&mut self, text: &str, i: usize, last: bool) -> Result<(), String> {
        let items = self.items.take();
        let Some(colon) = self.colon.take() else {
            // Only `{}` (or `{ }`) may hold no member.
            if last && self.members.is_empty() && text[self.member_start..i].trim().is_empty() {
                return Ok(());
            }
            return Err(located(text, i, "expected a member `\"key\": value`"));
        };
        let value = trimmed(text, colon + 1..i);
        // A list read item by item is never parsed whole, so nothing may follow it.
        if items.is_some() && value.end != self.items_end {
            return Err(located(text, self.items_end, "expected `,` or `}` after the list"));
        }
        self.members.push(Member { key: trimmed(text, self.member_start..colon), value, items });
        Ok(())
    }

    /// Ends the list item before position `i` (a `,` or, with `last`, the closing `]`).
    fn item(&mut self, text: &str, i: usize, last: bool) -> Result<(), String> {
        let range = trimmed(text, self.item_start..i);
        let items = self.items.as_mut().expect("items are being read");
        if range.is_empty() {
            // Only `[]` (or `[ ]`) may hold no item.
            if last && items.is_empty() {
                return Ok(());
            }
            return Err(located(text, i, "expected a value"));
        }
        items.push(range);
        Ok(())
    }
}

/// `range` of `text` without its surrounding whitespace.
fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
    let part = &text[range.clone()];
    let start = range.start + (part.len() - part.trim_start().len());
    start..(start + part.trim().len()).max(start)
}

/// Line and column (1-based, the column in bytes, as serde_json counts) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    (line, column)
}

/// `malformed JSON at line L, column C: what`, for byte `offset` of `text`.
pub fn located(text: &str, offset: usize, what: &str) -> String {
    let (line, column) = line_column(text, offset);
    format!("malformed JSON at line {line}, column {column}: {what}")
}

/// serde_json's error in the part of `text` that starts at byte `start`, located in the whole text.
pub fn relocated(text: &str, start: usize, e: &serde_json::Error) -> String {
    let (line, column) = line_column(text, start);
    let (line, column) = if e.line() <= 1 { (line, column + e.column().saturating_sub(1)) } else { (line + e.line() - 1, e.column()) };
    // serde_json ends its message with its own (part-relative) position; keep only what it says.
    let message = e.to_string();
    let what = message.rsplit_once(" at line ").map_or(message.as_str(), |(what, _)| what);
    format!("malformed JSON at line {line}, column {column}: {what}")
}
