//! The optional lenient verdict: accepts common LaTeX and typographic spellings of a correct number
//! (`2^{5}`, `\frac{64}{2}`, `1,234`, `\[1, 2, 3\]`, `$42$`, `2**5`). Always reported separately from the
//! reference-compatible verdict; never used for the headline score.

use super::collect::{last_boxed_content, split_label};
use crate::engine::literal::{parse_literal, Literal};
use super::matches_truth;
use crate::engine::calculator::{evaluate, Num};

/// Lenient verdict of a whole text (last box, label stripped) against a truth.
pub fn grade_text_lenient(text: &str, truth: &Literal) -> bool {
    let Some(content) = last_boxed_content(text) else { return false };
    let content = content.trim();
    let value = split_label(content).map(|(_, v)| v).unwrap_or(content);
    grade_value_lenient(value, truth)
}

/// Lenient verdict of one value.
pub fn grade_value_lenient(value: &str, truth: &Literal) -> bool {
    let normal = normalise(value);
    if let Ok(parsed) = parse_literal(&normal) {
        if matches_truth(&parsed, truth) {
            return true;
        }
    }
    match truth {
        Literal::List(_) => {
            let trimmed = normal.trim();
            let inner = trimmed
                .strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .or_else(|| trimmed.strip_prefix('(').and_then(|t| t.strip_suffix(')')))
                .unwrap_or(trimmed);
            let items: Option<Vec<Literal>> = inner.split(',').filter(|s| !s.trim().is_empty()).map(evaluated).collect();
            items.is_some_and(|items| matches_truth(&Literal::List(items), truth))
        }
        _ => {
            let scalar = if looks_like_thousands(&normal) { normal.replace(',', "") } else { normal.clone() };
            evaluated(&scalar).is_some_and(|v| matches_truth(&v, truth))
        }
    }
}

fn evaluated(expression: &str) -> Option<Literal> {
    match evaluate(expression.trim()).ok()? {
        Num::Int(i) => Some(Literal::Int(i)),
        Num::Float(x) => Some(Literal::Float(x)),
    }
}

/// `1,234` or `-12,345,678`: groups of three digits after the first comma.
fn looks_like_thousands(text: &str) -> bool {
    let t = text.trim().trim_start_matches('-');
    let mut groups = t.split(',');
    let first_ok = groups.next().is_some_and(|g| (1..=3).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_digit()));
    let rest: Vec<&str> = groups.collect();
    first_ok && !rest.is_empty() && rest.iter().all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
}

/// Rewrites LaTeX math into Python arithmetic.
fn normalise(value: &str) -> String {
    let mut text = value.trim().to_string();
    for (from, to) in [
        ("\\left", ""),
        ("\\right", ""),
        ("\\[", "["),
        ("\\]", "]"),
        ("\\(", ""),
        ("\\)", ""),
        ("$", ""),
        ("\\cdot", "*"),
        ("\\times", "*"),
        ("\\dfrac", "\\frac"),
        ("\\tfrac", "\\frac"),
        ("\\,", ""),
        ("\\!", ""),
        ("−", "-"),
    ] {
        text = text.replace(from, to);
    }
    text = replace_frac(&text);
    text = text.replace("^{", "**(").replace('^', "**");
    // Remaining braces were LaTeX groups.
    text = text.replace('{', "(").replace('}', ")");
    text.trim().trim_end_matches('.').to_string()
}

/// `\frac{a}{b}` → `((a)/(b))`, innermost first, with a bound on rewrites.
fn replace_frac(text: &str) -> String {
    let mut text = text.to_string();
    for _ in 0..50 {
        let Some(start) = text.rfind("\\frac{") else { break };
        let a_start = start + 6;
        let Some(a_end) = group_end(&text, a_start) else { break };
        if text.as_bytes().get(a_end + 1) != Some(&b'{') {
            break;
        }
        let b_start = a_end + 2;
        let Some(b_end) = group_end(&text, b_start) else { break };
        let replacement = format!("(({})/({}))", &text[a_start..a_end], &text[b_start..b_end]);
        text.replace_range(start..=b_end, &replacement);
    }
    text
}

fn group_end(text: &str, from: usize) -> Option<usize> {
    let mut depth = 1;
    for (i, b) in text.as_bytes().get(from..)?.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(value: &str, truth: serde_json::Value, expected: bool) {
        assert_eq!(grade_value_lenient(value, &Literal::from_json(&truth)), expected, "{value:?} vs {truth}");
    }

    #[test]
    fn latex_spellings_of_the_right_number_are_accepted() {
        check("2^{5}", json!(32), true);
        check("2**5", json!(32), true);
        check("\\frac{64}{2}", json!(32), true);
        check("1,234", json!(1234), true);
        check("$42$", json!(42), true);
        check("\\[1, 2, 3\\]", json!([1, 2, 3]), true);
        check("\\left[1, 2^{2}\\right]", json!([1, 4]), true);
    }

    #[test]
    fn lenient_mode_still_rejects_wrong_values() {
        check("2^{5}", json!(31), false);
        check("1,234", json!(1), false);
        check("[1, 2]", json!([1, 2, 3]), false);
        check("42.5", json!(42), false);
        check("x", json!(42), false);
    }
}
