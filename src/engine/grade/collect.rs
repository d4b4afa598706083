//! Answer collection from assistant texts (the reference's expected outputs and answer rules): masking of tool payloads,
//! labelled `\boxed{task_N_out = …}` answers, value cleaning, placeholders, and "last answer wins".

/// The name used when a prompt names no `task_N_out` at all.
pub const FALLBACK_OUTPUT: &str = "final_answer";

/// Scans a prompt for `task_<n>_out` tokens (not preceded by a letter, digit or underscore, `n` without a
/// leading zero) and returns them once each, in first-occurrence order; `["final_answer"]` when there is none.
pub fn expected_outputs(prompt: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let bytes = prompt.as_bytes();
    let mut from = 0;
    while let Some(offset) = prompt[from..].find("task_") {
        let at = from + offset;
        from = at + 5;
        if at > 0 && is_word_byte(bytes[at - 1]) {
            continue;
        }
        if let Some(len) = label_len(&bytes[at..], false) {
            let name = &prompt[at..at + len];
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    if names.is_empty() {
        names.push(FALLBACK_OUTPUT.to_string());
    }
    names
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Length of a `task_<n>_out` label at the start of `bytes` (`n` ≥ 1 without leading zero).
fn label_len(bytes: &[u8], ignore_case: bool) -> Option<usize> {
    let eq = |i: usize, lit: &[u8]| {
        bytes.get(i..i + lit.len()).is_some_and(|s| if ignore_case { s.eq_ignore_ascii_case(lit) } else { s == lit })
    };
    if !eq(0, b"task_") {
        return None;
    }
    let mut i = 5;
    match bytes.get(i) {
        Some(b'1'..=b'9') => i += 1,
        _ => return None,
    }
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    eq(i, b"_out").then_some(i + 4)
}

/// Replaces every closed `<tool_call>…</tool_call>` and `<function=…>…</function>` span with spaces (newlines
/// kept), so boxes inside calculator arguments are never collected.
pub fn mask_tool_payloads(text: &str) -> String {
    let once = mask_spans(text, "<tool_call>", "</tool_call>");
    mask_spans(&once, "<function=", "</function>")
}

fn mask_spans(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let after_open = start + open.len();
        let Some(end) = rest[after_open..].find(close) else { break };
        let end = after_open + end + close.len();
        out.push_str(&rest[..start]);
        out.extend(rest[start..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

const BOX: &str = "\\boxed{";

/// End (exclusive, the closing brace's index) of the box body starting at `body_start`, by brace counting.
fn box_end(text: &str, body_start: usize) -> Option<usize> {
    let mut depth = 1usize;
    for (i, b) in text.as_bytes()[body_start..].iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(body_start + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every complete `\boxed{…}` body in text order (brace counting; unterminated boxes are skipped).
pub fn boxed_contents(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find(BOX) {
        let body = from + offset + BOX.len();
        match box_end(text, body) {
            Some(end) => {
                found.push(&text[body..end]);
                from = end + 1;
            }
            None => from = body,
        }
    }
    found
}

/// The body of the last complete `\boxed{…}`; when the last opening is unterminated the earlier ones are tried.
pub fn last_boxed_content(text: &str) -> Option<&str> {
    let mut search_end = text.len();
    while let Some(start) = text[..search_end].rfind(BOX) {
        let body = start + BOX.len();
        if let Some(end) = box_end(text, body) {
            return Some(&text[body..end]);
        }
        search_end = start;
    }
    None
}

/// Splits a box body of the form `[\text{]task_<n>_out[}] (=|:|is) value` into the lower-cased label and the
/// stripped value; `None` if the body does not have that shape or the value is empty.
pub fn split_label(content: &str) -> Option<(String, &str)> {
    let text = content.trim();
    let mut i = 0;
    let bytes = text.as_bytes();
    let has_text = bytes.len() >= 6 && bytes[..6].eq_ignore_ascii_case(b"\\text{");
    if has_text {
        i = 6;
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
    }
    let len = label_len(&bytes[i..], true)?;
    let label = text[i..i + len].to_ascii_lowercase();
    i += len;
    let skip_ws = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    i = skip_ws(i);
    if bytes.get(i) == Some(&b'}') {
        i = skip_ws(i + 1);
    }
    match bytes.get(i) {
        Some(b'=' | b':') => i += 1,
        Some(b'i' | b'I') if bytes.get(i + 1).is_some_and(|b| b.eq_ignore_ascii_case(&b's')) => {
            let before_ws = i > 0 && bytes[i - 1].is_ascii_whitespace();
            let after = bytes.get(i + 2);
            if !before_ws || !after.is_some_and(u8::is_ascii_whitespace) {
                return None;
            }
            i += 2;
        }
        _ => return None,
    }
    let value = text[i..].trim();
    (!value.is_empty()).then_some((label, value))
}

/// Cleans a collected value: drops an "answer is"/"result:" phrase, one pair of backticks, `$…$` or `\(…\)`,
/// and trailing `; , .`; returns `None` for placeholders (`...`, `unknown`, `pending`, a bare identifier …).
pub fn clean_value(raw: &str) -> Option<String> {
    let mut value = strip_answer_phrase(raw.trim()).trim();
    for (open, close) in [("`", "`"), ("$", "$"), ("\\(", "\\)")] {
        if value.len() >= open.len() + close.len() {
            if let Some(inner) = value.strip_prefix(open).and_then(|v| v.strip_suffix(close)) {
                value = inner.trim();
                break;
            }
        }
    }
    let value = value.trim_end_matches([';', ',', '.', ' ', '\t', '\n', '\r']).trim();
    if is_placeholder(value) {
        None
    } else {
        Some(value.to_string())
    }
}

fn strip_answer_phrase(value: &str) -> &str {
    let lower = value.to_ascii_lowercase();
    let mut i = 0;
    for article in ["the ", "final "] {
        if lower[i..].starts_with(article) {
            i += article.len();
            while lower.as_bytes().get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
        }
    }
    let Some(word) = ["answer", "result", "output"].into_iter().find(|w| lower[i..].starts_with(w)) else {
        return value;
    };
    let mut j = i + word.len();
    if lower.as_bytes().get(j).is_some_and(|b| is_word_byte(*b)) {
        return value;
    }
    while lower.as_bytes().get(j).is_some_and(u8::is_ascii_whitespace) {
        j += 1;
    }
    if lower[j..].starts_with("is") && !lower.as_bytes().get(j + 2).is_some_and(|b| is_word_byte(*b)) {
        j += 2;
    } else if lower[j..].starts_with([':', '=']) {
        j += 1;
    } else {
        return value;
    }
    &value[j..]
}

fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if matches!(lower.as_str(), "" | "..." | "…" | "unknown" | "pending" | "not calculated" | "not yet") {
        return true;
    }
    let bytes = value.as_bytes();
    let identifier = bytes.first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_') && bytes.iter().all(|b| is_word_byte(*b));
    identifier && !matches!(lower.as_str(), "true" | "false" | "none")
}

/// One collected answer: the cleaned value and the turn it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectedAnswer {
    /// The cleaned value text.
    pub answer: String,
    /// The 0-based turn index of its latest occurrence.
    pub turn: usize,
}

/// The labelled answers of one trajectory, one per expected name, in order of first collection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answers {
    entries: Vec<(String, CollectedAnswer)>,
}

impl Answers {
    /// An empty set.
    pub fn new() -> Answers {
        Answers::default()
    }

    /// Collects every labelled box of `text` (tool payloads masked) whose label is expected; later boxes replace
    /// earlier ones. Returns the names updated, in text order.
    pub fn collect(&mut self, text: &str, turn: usize, expected: &[String]) -> Vec<String> {
        let masked = mask_tool_payloads(text);
        let mut updated = Vec::new();
        for content in boxed_contents(&masked) {
            let Some((label, raw)) = split_label(content) else { continue };
            if !expected.contains(&label) {
                continue;
            }
            let Some(answer) = clean_value(raw) else { continue };
            self.set(&label, CollectedAnswer { answer, turn });
            updated.push(label);
        }
        updated
    }

    /// Sets (or replaces) the answer for `name`.
    pub fn set(&mut self, name: &str, answer: CollectedAnswer) {
        match self.entries.iter_mut().find(|(n, _)| n == name) {
            Some((_, slot)) => *slot = answer,
            None => self.entries.push((name.to_string(), answer)),
        }
    }

    /// The answer for `name`, if collected.
    pub fn get(&self, name: &str) -> Option<&CollectedAnswer> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }

    /// All answers in order of first collection.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &CollectedAnswer)> {
        self.entries.iter().map(|(n, a)| (n.as_str(), a))
    }

    /// Number of names with an answer.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was collected.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The expected names that have no answer yet, in expected order.
    pub fn missing<'a>(&self, expected: &'a [String]) -> Vec<&'a str> {
        expected.iter().filter(|e| self.get(e).is_none()).map(String::as_str).collect()
    }

    /// The reference's `task_answers` JSON object `{name: {"answer": …, "turn": …}}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for (name, a) in &self.entries {
            map.insert(name.clone(), serde_json::json!({"answer": a.answer, "turn": a.turn}));
        }
        serde_json::Value::Object(map)
    }

    /// Reads a stored `task_answers` object; malformed entries are skipped.
    pub fn from_json(json: &serde_json::Value) -> Answers {
        let mut answers = Answers::new();
        if let Some(map) = json.as_object() {
            for (name, entry) in map {
                let answer = entry.get("answer").and_then(|a| a.as_str().map(str::to_string).or_else(|| (!a.is_null()).then(|| a.to_string())));
                let turn = entry.get("turn").and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
                if let Some(answer) = answer {
                    answers.set(name, CollectedAnswer { answer, turn });
                }
            }
        }
        answers
    }
}

/// The text the grader sees: `\boxed{<target> = <answer>}` when the target was collected, else the raw last turn.
pub fn grading_text(answers: &Answers, target: &str, last_turn_text: &str) -> String {
    match answers.get(target) {
        Some(a) => format!("\\boxed{{{target} = {}}}", a.answer),
        None => last_turn_text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn expected_outputs_are_deduplicated_in_first_occurrence_order() {
        let prompt = "Example \\boxed{task_1_out = ...}.\nTask 2: use task_1_out to get task_2_out.\nTask 1: gives task_1_out. task_10_out";
        assert_eq!(expected_outputs(prompt), names(&["task_1_out", "task_2_out", "task_10_out"]));
    }

    #[test]
    fn expected_outputs_skip_prefixed_names_and_leading_zeros() {
        let prompt = "mat_task_2_out poly_task_3_out task_02_out xtask_4_out 7task_5_out task_6_out";
        assert_eq!(expected_outputs(prompt), names(&["task_6_out"]));
        assert_eq!(expected_outputs("no names here"), names(&["final_answer"]));
    }

    #[test]
    fn masking_blanks_tool_payloads_but_keeps_length_and_newlines() {
        let text = "a <tool_call>\n\\boxed{task_1_out = 1}\n</tool_call> b <function=calculator>x</function> c";
        let masked = mask_tool_payloads(text);
        assert_eq!(masked.chars().count(), text.chars().count());
        assert!(!masked.contains("boxed"));
        assert_eq!(masked.matches('\n').count(), 2);
        assert!(masked.starts_with("a ") && masked.ends_with(" c"));
        // An unclosed payload is not masked.
        assert_eq!(mask_tool_payloads("<tool_call> \\boxed{1}"), "<tool_call> \\boxed{1}");
    }

    #[test]
    fn boxes_are_found_with_brace_counting() {
        assert_eq!(boxed_contents("\\boxed{a{b}c} and \\boxed{d} \\boxed{open"), vec!["a{b}c", "d"]);
        assert_eq!(last_boxed_content("\\boxed{1} \\boxed{2} \\boxed{unterminated"), Some("2"));
        assert_eq!(last_boxed_content("nothing"), None);
        assert_eq!(last_boxed_content("\\boxed{\\frac{1}{2}}"), Some("\\frac{1}{2}"));
    }

    #[test]
    fn labels_accept_text_wrappers_colons_and_is() {
        for (content, expected) in [
            ("task_1_out = 42", Some(("task_1_out", "42"))),
            ("\\text{task_1_out} = 42", Some(("task_1_out", "42"))),
            ("task_1_out: 42", Some(("task_1_out", "42"))),
            ("task_1_out is 42", Some(("task_1_out", "42"))),
            ("TASK_1_OUT = 42", Some(("task_1_out", "42"))),
            (" task_12_out =  [1, 2] ", Some(("task_12_out", "[1, 2]"))),
            ("task_07_out = 42", None),
            ("x = 42", None),
            ("42", None),
            ("task_1_out = ", None),
            ("task_1_outis 42", None),
        ] {
            let got = split_label(content);
            assert_eq!(got.as_ref().map(|(l, v)| (l.as_str(), *v)), expected, "{content:?}");
        }
    }

    #[test]
    fn values_are_cleaned_and_placeholders_rejected() {
        for (raw, expected) in [
            ("42", Some("42")),
            ("$42$", Some("42")),
            ("`[1, 2]`", Some("[1, 2]")),
            ("\\(7\\)", Some("7")),
            ("42.", Some("42")),
            ("42;,", Some("42")),
            ("the answer is 5", Some("5")),
            ("Result: 5", Some("5")),
            ("output = 3", Some("3")),
            ("True", Some("True")),
            ("...", None),
            ("unknown", None),
            ("Pending", None),
            ("not yet", None),
            ("not calculated", None),
            ("list_3", None),
            ("", None),
        ] {
            assert_eq!(clean_value(raw).as_deref(), expected, "{raw:?}");
        }
    }

    #[test]
    fn later_boxes_replace_earlier_ones_across_turns() {
        let expected = names(&["task_1_out", "task_2_out"]);
        let mut answers = Answers::new();
        answers.collect("\\boxed{task_1_out = 1} \\boxed{task_1_out = 2}", 0, &expected);
        assert_eq!(answers.get("task_1_out"), Some(&CollectedAnswer { answer: "2".into(), turn: 0 }));
        answers.collect("fix: \\boxed{task_1_out = 3} and \\boxed{task_2_out = 9}", 2, &expected);
        assert_eq!(answers.get("task_1_out"), Some(&CollectedAnswer { answer: "3".into(), turn: 2 }));
        assert_eq!(answers.missing(&expected), Vec::<&str>::new());
    }

    #[test]
    fn unlabelled_unexpected_and_outside_labels_are_ignored() {
        let expected = names(&["task_1_out"]);
        let mut answers = Answers::new();
        answers.collect("task_1_out = \\boxed{42} \\boxed{42} \\boxed{task_3_out = 5}", 0, &expected);
        assert!(answers.is_empty());
        assert_eq!(answers.missing(&expected), vec!["task_1_out"]);
    }

    #[test]
    fn boxes_inside_tool_payloads_are_ignored_but_reasoning_boxes_count() {
        let expected = names(&["task_1_out"]);
        let mut answers = Answers::new();
        let text = "draft \\boxed{task_1_out = 7}</think>\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"\\\\boxed{task_1_out = 9}\"}}</tool_call>";
        answers.collect(text, 0, &expected);
        assert_eq!(answers.get("task_1_out").map(|a| a.answer.as_str()), Some("7"));
    }

    #[test]
    fn nested_braces_stay_inside_the_collected_value() {
        let expected = names(&["task_1_out"]);
        let mut answers = Answers::new();
        answers.collect("\\boxed{task_1_out = \\frac{1}{2}} and \\boxed{\\text{task_1_out} = {3}}", 4, &expected);
        assert_eq!(answers.get("task_1_out"), Some(&CollectedAnswer { answer: "{3}".into(), turn: 4 }));
        answers.collect("\\boxed{task_1_out = \\frac{1}{2}}", 5, &expected);
        assert_eq!(answers.get("task_1_out").map(|a| a.answer.as_str()), Some("\\frac{1}{2}"));
    }

    #[test]
    fn grading_text_synthesises_a_box_or_falls_back_to_the_raw_turn() {
        let mut answers = Answers::new();
        answers.set("task_2_out", CollectedAnswer { answer: "[1, 2]".into(), turn: 3 });
        assert_eq!(grading_text(&answers, "task_2_out", "raw"), "\\boxed{task_2_out = [1, 2]}");
        assert_eq!(grading_text(&answers, "task_3_out", "raw \\boxed{5}"), "raw \\boxed{5}");
    }
}
