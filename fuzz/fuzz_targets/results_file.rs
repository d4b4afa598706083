//! Fuzzes grading a whole results file (stored and replayed answers, strict and lenient verdicts, metrics and
//! run comparison): no panic on any JSON, and every sample is counted exactly once as graded, unfinished or
//! unreadable.
#![no_main]

use arbigraph_studio::engine::grade::metrics::{render_table, summarise};
use arbigraph_studio::engine::results::{aggregates, compare_runs, grade_results_file, GradeOptions};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<Value>(data) else { return };
    let total = json.get("samples").and_then(Value::as_array).map(Vec::len);
    let mut graded_files = Vec::new();
    for (replay, lenient) in [(false, false), (true, false), (false, true), (true, true)] {
        let Ok(graded) = grade_results_file(&json, GradeOptions { replay, lenient }) else {
            continue;
        };
        let total = total.expect("a graded file has a samples list");
        assert_eq!(graded.samples.len() + graded.unfinished + graded.unreadable.len(), total, "every sample counted once");
        assert!(graded.samples.windows(2).all(|w| w[0].index < w[1].index), "graded samples stay in file order");
        let metrics = summarise(&graded.outcomes());
        let _ = render_table(&metrics);
        graded_files.push(graded);
    }
    if let [first, .., last] = graded_files.as_slice() {
        let comparison = compare_runs(first, last);
        let _ = comparison;
    }
    if let Some(samples) = json.get("samples").and_then(Value::as_array) {
        let _ = aggregates(samples);
    }
});
