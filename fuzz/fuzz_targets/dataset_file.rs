//! Fuzzes the dataset-file readers: `inspect` (what a file holds and its schema problems), the topology and
//! family inference, and `SampleSpec::from_json` (what grading reads from a sample): no panic on any JSON, and
//! the counts and specs they return are consistent.
#![no_main]

use arbigraph_studio::engine::dataset::inspect;
use arbigraph_studio::engine::dataset::shape::{family_of, topology_of};
use arbigraph_studio::engine::grade::collect::Answers;
use arbigraph_studio::engine::grade::{grade_answers, SampleSpec};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<Value>(data) else { return };
    let inspection = inspect(&json);
    let samples = json.get("samples").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    assert_eq!(inspection.num_samples, samples.len());
    assert!(inspection.families.values().sum::<usize>() <= samples.len());
    assert!(inspection.num_targets <= samples.len());
    assert!(inspection.correct.unwrap_or(0) <= samples.len());
    for (index, sample) in samples.iter().enumerate().take(64) {
        let _ = topology_of(sample);
        let _ = family_of(sample, &inspection.mode);
        let Ok(spec) = SampleSpec::from_json(sample, index) else { continue };
        assert!(!spec.expected.is_empty());
        assert!(spec.nodes.iter().any(|n| n.name == spec.target), "the target has a truth");
        for lenient in [false, true] {
            let grade = grade_answers(&spec, &Answers::new(), spec.prompt.as_str(), lenient);
            let _ = grade;
        }
    }
});
