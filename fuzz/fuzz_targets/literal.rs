//! Fuzzes the Python-literal parser the grader reads answers with: no panic on any text, and every parsed
//! literal that has a printed form prints back to text that parses to the same literal.
#![no_main]

use arbigraph_studio::engine::grade::{grade_value, matches_truth};
use arbigraph_studio::engine::literal::{parse_literal, Literal};
use libfuzzer_sys::fuzz_target;

/// Python source for `literal`, or `None` when it has none we can write (non-finite floats, dicts, sets,
/// strings whose raw body cannot be quoted again).
fn print(literal: &Literal, out: &mut String) -> Option<()> {
    match literal {
        Literal::Int(i) => out.push_str(&i.to_string()),
        Literal::Float(x) if x.is_finite() => out.push_str(&format!("{x:?}")),
        Literal::Float(_) | Literal::Other => return None,
        Literal::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Literal::None => out.push_str("None"),
        Literal::Str(body) => {
            let trailing = body.bytes().rev().take_while(|&b| b == b'\\').count();
            let quote = ['\'', '"'].into_iter().find(|q| !body.contains(*q))?;
            if body.contains(['\n', '\r']) || trailing % 2 == 1 {
                return None;
            }
            out.push(quote);
            out.push_str(body);
            out.push(quote);
        }
        Literal::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print(item, out)?;
            }
            out.push(']');
        }
        Literal::Tuple(items) => {
            out.push('(');
            print_items(items, out)?;
            out.push(')');
        }
    }
    Some(())
}

fn print_items(items: &[Literal], out: &mut String) -> Option<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print(item, out)?;
    }
    if items.len() == 1 {
        out.push(',');
    }
    Some(())
}

/// The top level writes a non-empty tuple bare (`1, 2`), as it may have been read, so that printing never
/// adds a nesting level the parser's depth limit would count.
fn print_top(literal: &Literal) -> Option<String> {
    let mut out = String::new();
    match literal {
        Literal::Tuple(items) if !items.is_empty() => print_items(items, &mut out)?,
        other => print(other, &mut out)?,
    }
    Some(out)
}

/// What no ground truth can hold, and so equals nothing when graded: a float that is not finite (`inf - inf` is
/// NaN, as in the reference) or a dict, set or complex number.
fn never_a_truth(literal: &Literal) -> bool {
    match literal {
        Literal::Float(x) => !x.is_finite(),
        Literal::Other => true,
        Literal::List(items) | Literal::Tuple(items) => items.iter().any(never_a_truth),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(literal) = parse_literal(text) else { return };
    if let Some(printed) = print_top(&literal) {
        let again = parse_literal(&printed).unwrap_or_else(|e| panic!("{printed:?} (printed from {text:?}) does not parse: {e}"));
        assert_eq!(again, literal, "{printed:?} printed from {text:?}");
    }
    // A value is graded equal to itself whenever it is a possible truth.
    if !never_a_truth(&literal) && matches!(literal, Literal::Int(_) | Literal::Float(_) | Literal::List(_)) {
        assert!(matches_truth(&literal, &literal), "{text:?} does not match itself");
        assert!(grade_value(text, &literal), "{text:?} is not graded equal to itself");
    }
});
