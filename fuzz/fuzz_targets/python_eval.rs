//! Fuzzes the Python evaluator under its limits: every function of a module that parses is called with small
//! arguments under `Limits::small()`; no panic, no hang past the step budget, no memory past the cap. Results
//! that `json.dumps` can write read back with `json.loads` to the same text. The same source also goes through
//! the tracing task (`UserFunction`), whose prompt code must parse.
#![no_main]

use arbigraph_studio::engine::prompt::fenced_code;
use arbigraph_studio::engine::python::ast::StmtKind;
use arbigraph_studio::engine::python::json::{loads, JsonError};
use arbigraph_studio::engine::python::{call, parse_module, to_json_text, FunctionSig, Limits, PyValue};
use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::python_trace::{TraceOptions, UserFunction};
use arbigraph_studio::engine::tasks::TaskContext;
use arbigraph_studio::engine::value::{Kind, Value};
use libfuzzer_sys::fuzz_target;

fn seed_of(src: &str) -> i64 {
    src.bytes().fold(17i64, |h, b| h.wrapping_mul(31).wrapping_add(b as i64))
}

/// A result that `json.dumps` writes reads back with `json.loads`, and from there writes and reads to the same
/// text (one step first: a dict with both `1` and `"1"` as keys is written with a repeated key, as Python does).
/// Strict JSON has no `Infinity`/`NaN`, and the reader stops at serde_json's depth of 128: those are skipped.
fn check_json_round_trip(result: &PyValue, src: &str) {
    let Ok(text) = to_json_text(result) else { return };
    let back = match loads(&text) {
        Ok(back) => back,
        Err(JsonError::TooDeep { .. }) => return,
        Err(_) if text.contains("Infinity") || text.contains("NaN") => return,
        Err(e) => panic!("json.dumps wrote {text:?}, which json.loads refuses: {e}\nfrom {src:?}"),
    };
    let Ok(normal) = to_json_text(&back) else { panic!("{text:?} read back is not writable, from {src:?}") };
    let again = loads(&normal).unwrap_or_else(|e| panic!("{normal:?} does not read back: {e}\nfrom {src:?}"));
    assert_eq!(to_json_text(&again).as_deref(), Ok(normal.as_str()), "JSON round trip of a result from {src:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(module) = parse_module(src) else { return };
    let seed = seed_of(src);
    let sigs: Vec<FunctionSig> = module
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::FunctionDef(def) => Some(FunctionSig::of(def)),
            _ => None,
        })
        .collect();
    for sig in sigs.iter().take(4) {
        let kwargs: Vec<(String, PyValue)> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let base = seed.wrapping_mul(31).wrapping_add(i as i64 * 17).rem_euclid(100);
                let value = match p.kind {
                    Kind::List => PyValue::list((0..6).map(|k| PyValue::Int((base * (k + 3)) % 101 - 50)).collect()),
                    Kind::Scalar => PyValue::Int(base - 50),
                };
                (p.name.clone(), value)
            })
            .collect();
        if let Ok(result) = call(&module, &sig.name, &[], &kwargs, &Limits::small()) {
            check_json_round_trip(&result, src);
        }
    }
    if let Ok(function) = UserFunction::from_source(src) {
        let task = function.into_task("python.fuzz", 0, TraceOptions { attempts: 2, limits: Limits::small() });
        let inputs = [Value::ints(&[3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5]), Value::int(seed.rem_euclid(200) - 100)];
        for input in &inputs {
            let ctx = TaskContext { number: 2, input_name: "task_1_out", input, output_kind: None };
            if let Ok(instance) = task.instantiate(&ctx, &mut InstanceRng::from_seed(seed as u64)) {
                let text = instance.body.text().to_string();
                let code = fenced_code(&text, "python").unwrap_or_else(|| panic!("no closed code block in {text:?}"));
                assert!(parse_module(code).is_ok(), "prompt code does not parse:\n{code}\nfrom {src:?}");
            }
        }
    }
});
