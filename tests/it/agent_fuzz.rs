//! No input makes the text-handling parts of the harness panic: literal parsing, the calculator, answer
//! collection, tool-call parsing and the wire parser, fed with random mixes of the tokens they care about.

use arbigraph_studio::engine::calculator::evaluate_to_string;
use arbigraph_studio::engine::agent::openai_wire::parse_reply;
use arbigraph_studio::engine::agent::toolcalls::{execute, looks_like_tool_call, normalise_arguments, parse_text_calls};
use arbigraph_studio::engine::grade::collect::{clean_value, expected_outputs, mask_tool_payloads, Answers};
use arbigraph_studio::engine::grade::lenient::grade_value_lenient;
use arbigraph_studio::engine::literal::{parse_literal, Literal};
use arbigraph_studio::engine::grade::{extract_value, grade_text};

const PIECES: &[&str] = &[
    "\\boxed{", "}", "{", "task_1_out", "task_02_out", "TASK_3_OUT", " = ", ":", " is ", "\\text{", "[", "]", "(", ")", ",", "1", "0x", "e",
    "-", "+", "**", "//", "/", "%", "*", ".", "_", "9", "é", "→", "'", "\"", "\\", "<tool_call>", "</tool_call>", "<function=calculator>",
    "</function>", "<parameter=expressions>", "</parameter>", "{\"name\": \"calculator\", \"arguments\": ", "\n", " ", "$", "`", "j", "True",
    "the answer is ", "\\frac{", "^{", "999999999999", "1e308",
];

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }
}

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Lcg(42);
    let expected = vec!["task_1_out".to_string(), "task_3_out".to_string()];
    let truth = Literal::from_json(&serde_json::json!([1, 2, 3]));
    let (mut literals, mut results, mut boxes) = (0, 0, 0);
    for _ in 0..20_000 {
        let len = rng.next() % 24;
        let soup: String = (0..len).map(|_| PIECES[rng.next() % PIECES.len()]).collect();
        // Every other text is a labelled box around the soup, to reach the collection paths too.
        let text = if rng.next().is_multiple_of(2) { format!("\\boxed{{task_1_out = {soup}}}") } else { soup };
        literals += parse_literal(&text).is_ok() as usize;
        results += !evaluate_to_string(&text).starts_with("Error") as usize;
        let _ = expected_outputs(&text);
        let _ = mask_tool_payloads(&text);
        let _ = clean_value(&text);
        let _ = extract_value(&text);
        let _ = grade_text(&text, &truth);
        let _ = grade_value_lenient(&text, &truth);
        let mut answers = Answers::new();
        boxes += answers.collect(&text, 0, &expected).len();
        for call in parse_text_calls(&text) {
            let _ = execute(&call.name, &call.arguments);
        }
        let _ = normalise_arguments(&serde_json::Value::String(text.clone()));
        let _ = execute("calculator", &serde_json::Value::String(text.clone()));
        let _ = looks_like_tool_call(&text);
        let _ = parse_reply(&text);
    }
    // The soup reaches the interesting paths, not only the error exits.
    assert!(literals > 20 && results > 20 && boxes > 100, "{literals} {results} {boxes}");
}
