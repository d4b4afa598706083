//! Fuzzes the calculator tool's evaluator (exact Python arithmetic with caps): no panic and no hang on any
//! expression, results stay within the digit cap, and every finite result prints as Python's `str()` to text
//! that evaluates back to the same value.
#![no_main]

use arbigraph_studio::engine::calculator::{evaluate, evaluate_to_string, Num, MAX_RESULT_DIGITS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let result = evaluate(text);
    let shown = evaluate_to_string(text);
    match &result {
        Ok(value) => {
            let printed = value.to_python_str();
            assert_eq!(shown, printed);
            if let Num::Int(i) = value {
                let digits = i.magnitude().to_string().len() as u64;
                assert!(digits <= (MAX_RESULT_DIGITS + 1).max(text.len() as u64), "{digits} digits from {text:?}");
            }
            let finite = match value {
                Num::Float(x) => x.is_finite(),
                Num::Int(_) => true,
            };
            if finite {
                let again = evaluate(&printed).unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not evaluate: {e}"));
                match (&again, value) {
                    (Num::Float(a), Num::Float(b)) => assert!(a == b && a.is_sign_negative() == b.is_sign_negative(), "{printed:?} from {text:?}"),
                    _ => assert_eq!(&again, value, "{printed:?} from {text:?}"),
                }
            }
        }
        Err(e) => assert_eq!(shown, format!("Error: {e}")),
    }
});
