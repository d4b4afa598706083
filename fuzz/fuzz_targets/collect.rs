//! Fuzzes boxed-answer collection (expected outputs, tool-payload masking, `\boxed{}` scanning, labels and value
//! cleaning): no panic, and what is collected is labelled as expected, trimmed, never a placeholder, and
//! survives the results file's `task_answers` JSON unchanged.
#![no_main]

use arbigraph_studio::engine::grade::collect::{
    boxed_contents, clean_value, expected_outputs, last_boxed_content, mask_tool_payloads, split_label, Answers,
};
use arbigraph_studio::engine::grade::extract_value;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut expected = expected_outputs(text);
    assert!(!expected.is_empty());
    for name in &expected {
        assert!(name == "final_answer" || (name.starts_with("task_") && name.ends_with("_out")), "{name:?}");
    }
    // Answers written by a model usually name the outputs of the prompt; add the first few anyway.
    for n in 1..=3 {
        let name = format!("task_{n}_out");
        if !expected.contains(&name) {
            expected.push(name);
        }
    }

    let masked = mask_tool_payloads(text);
    assert_eq!(masked.chars().count(), text.chars().count(), "masking keeps every character's place");
    assert_eq!(masked.lines().count(), text.lines().count(), "masking keeps every line");

    for body in boxed_contents(text) {
        let depth = body.bytes().try_fold(0i64, |d, b| match b {
            b'{' => Some(d + 1),
            b'}' if d == 0 => None,
            b'}' => Some(d - 1),
            _ => Some(d),
        });
        assert_eq!(depth, Some(0), "a box body has balanced braces: {body:?}");
        if let Some((label, value)) = split_label(body) {
            assert!(label.starts_with("task_") && label.ends_with("_out"), "{label:?}");
            assert!(!value.is_empty() && value.trim() == value, "{value:?}");
        }
        if let Some(clean) = clean_value(body) {
            assert!(!clean.is_empty());
        }
    }
    if let Some(last) = last_boxed_content(text) {
        assert!(text.contains(&format!("\\boxed{{{last}}}")));
    }
    let _ = extract_value(text);

    let mut answers = Answers::new();
    let updated = answers.collect(text, 3, &expected);
    for name in &updated {
        assert!(expected.contains(name), "{name:?} was not expected");
    }
    for (name, answer) in answers.iter() {
        assert!(expected.iter().any(|e| e == name));
        assert!(!answer.answer.is_empty() && answer.answer.trim() == answer.answer, "{:?}", answer.answer);
        assert_eq!(answer.turn, 3);
    }
    assert_eq!(Answers::from_json(&answers.to_json()), answers, "task_answers JSON round trip");
});
