//! Fuzzes the word-problem expression language (parser and exact evaluator): no panic on any text, evaluation
//! is deterministic, and no value grows past the evaluator's size cap.
#![no_main]

use arbigraph_studio::engine::tasks::gsm::expr::parse;
use arbigraph_studio::engine::tasks::gsm::rational::Rational;
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 8] = ["a", "b", "c", "d", "e", "f", "g", "h"];
/// The evaluator refuses results past 4,096 bits; `round(x, 18)` may add the bits of 10^18 on top.
const BITS_BOUND: u64 = 4096 + 128;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let resolve = |name: &str| NAMES.iter().position(|n| *n == name);
    let Ok(expr) = parse(text, &resolve) else { return };
    let env = vec![
        Some(Rational::int(3)),
        Some(Rational::int(-7)),
        Some(Rational::int(0)),
        Rational::parse_decimal("2.5"),
        None,
        Some(Rational::int(i64::MAX)),
        Some(Rational::int(i64::MIN)),
        Rational::parse_decimal("0.001"),
    ];
    let first = expr.eval(&env);
    assert_eq!(expr.eval(&env), first, "evaluation is deterministic for {text:?}");
    if let Ok(value) = &first {
        let bits = value.to_rational().bits();
        assert!(bits <= BITS_BOUND, "{text:?} gave a value of {bits} bits");
    }
    assert_eq!(expr.holds(&env), first.is_ok_and(|v| v.truthy()));
});
