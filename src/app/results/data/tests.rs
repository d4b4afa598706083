//! Tests of opening a results file: the same file, grades and rows as reading it whole, slice by slice, and
//! every malformed file refused with its place, checked against serde_json on generated and edited files.

use super::*;
use proptest::prelude::*;
use serde_json::json;

const REFERENCE: [&str; 2] = [
    include_str!("../../../../tests/fixtures/reference/results_gsm_baseline.sample.json"),
    include_str!("../../../../tests/fixtures/reference/results_math_multichain.sample.json"),
];

/// A results file of our layout: `count` samples, every third one wrong, the fifth unfinished, two epochs.
fn ours(count: usize) -> String {
    let samples: Vec<Value> = (0..count)
        .map(|i| {
            let finished = i != 4;
            json!({
                "task_id": 1, "task_name": "AddTask", "sample_idx": i / 2, "epoch": i % 2,
                "ground_truth": 7, "correct": i % 3 != 0,
                "agent_status": if finished { "success" } else { "in_progress" },
                "agent_turns": 1, "token_length": 10 + i,
                "task_answers": {"task_1_out": {"answer": if i % 3 != 0 { "7" } else { "6" }, "turn": 0}},
                "chain": {"distractors": [], "target": {"task_number": 1, "task_name": "AddTask", "input_name": "task_1_input", "ground_truth": 7}},
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"summary": {"model": "m", "generation_params": {}}, "samples": samples, "after": [1, 2]})).unwrap()
}

/// What the page worked out before: the whole file parsed at once, graded and listed.
fn at_once(text: &str) -> (Value, GradedFile, Vec<SampleRow>) {
    let json: Value = serde_json::from_str(text).unwrap();
    let graded = grade_results_file(&json, GradeOptions::default()).unwrap();
    let rows = crate::app::results::transcript::sample_rows(&json);
    (json, graded, rows)
}

fn assert_same(opened: &ResultsData, text: &str) {
    let (json, graded, rows) = at_once(text);
    assert_eq!(opened.json(), &json);
    assert_eq!(opened.graded().file.as_ref().unwrap(), &graded);
    assert_eq!(opened.graded().rows, rows);
    assert_eq!(opened.graded().metrics, crate::engine::grade::metrics::summarise(&graded.outcomes()));
    assert_eq!(opened.graded().metrics.overall.total, graded.samples.len());
}

#[test]
fn an_opened_file_is_the_file_parsed_graded_and_listed_at_once() {
    for text in REFERENCE.iter().map(|t| t.to_string()).chain([ours(40)]) {
        let opened = Opening::new("f.json", text.clone()).finish().unwrap();
        assert_same(&opened, &text);
        assert!(!opened.graded().rows.is_empty());
    }
}

#[test]
fn members_keep_their_order_around_the_samples() {
    let opened = Opening::new("f.json", ours(3)).finish().unwrap();
    let keys: Vec<&str> = opened.json().as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["summary", "samples", "after"]);
}

#[test]
fn a_slice_stops_when_asked_and_the_slices_add_up_to_the_whole() {
    let text = ours(100);
    let mut opening = Opening::new("f.json", text.clone());
    let mut progress = Vec::new();
    let opened = loop {
        // Stop at the first check of every slice: 16 samples a slice.
        match opening.step(&mut || false) {
            Step::Working { done, total } => progress.push((done, total)),
            Step::Opened(data) => break data,
            Step::Failed(e) => panic!("{e}"),
        }
    };
    assert_same(&opened, &text);
    // The scan, then 7 slices of parsing (6 × 16 + 4) and 7 of grading; the figures' slice ends the opening.
    assert_eq!(progress.len(), 1 + 7 + 7, "{progress:?}");
    assert_eq!(progress.last(), Some(&(200, 200)));
    assert!(progress.windows(2).all(|w| w[0].0 <= w[1].0), "{progress:?}");
    assert!(progress.iter().all(|&(done, total)| total == 200 && done <= total));
    assert_eq!(progress[1], (16, 200));
}

#[test]
fn epochs_give_each_row_its_consistency() {
    let opened = Opening::new("f.json", ours(6)).finish().unwrap();
    let consistency: Vec<_> = opened.graded().rows.iter().map(|r| r.consistency).collect();
    // Instances 0..3 hold samples (0, 1), (2, 3), (4, 5); 0 and 3 are wrong, 4 is unfinished.
    assert_eq!(consistency, [Some((0, 1, 2)), Some((1, 1, 2)), Some((0, 1, 2)), Some((1, 1, 2)), Some((0, 1, 1)), Some((1, 1, 1))]);
}

#[test]
fn bad_files_are_refused_with_their_name_and_where() {
    let refused = |text: &str| Opening::new("bad.json", text.to_string()).finish().unwrap_err();
    let malformed = refused("{\"summary\": {},\n  \"samples\": [ {\"a\": 1}, {\"a\": } ]}");
    assert!(malformed.starts_with("bad.json: malformed JSON at line 2, column"), "{malformed}");
    assert!(refused("[1, 2]").contains("a JSON object"), "{}", refused("[1, 2]"));
    assert_eq!(refused("{\"samples\": 3}"), "bad.json: not a results file: no `samples` list");
    assert_eq!(refused("{\"summary\": {}}"), "bad.json: not a results file: no `samples` list");
    assert!(refused("{\"samples\": []} x").contains("line 1, column 17"), "{}", refused("{\"samples\": []} x"));
    let dataset = refused(&json!({"summary": {}, "samples": [{"task_id": 1, "prompt": "p"}]}).to_string());
    assert!(dataset.starts_with("bad.json: this is a dataset file"), "{dataset}");
    assert!(refused("").contains("line 1"));
}

#[test]
fn a_file_made_by_a_run_is_graded_once_on_first_use() {
    let text = ours(10);
    let data = ResultsData::new(serde_json::from_str(&text).unwrap());
    let first: *const Graded = data.graded();
    assert_same(&data, &text);
    assert!(std::ptr::eq(first, data.graded()));
    assert_eq!(data.into_json(), at_once(&text).0);
}

/// JSON values whose strings hold the characters the scan must see past: quotes, backslashes, brackets,
/// commas, colons, newlines and non-ASCII text.
fn values() -> impl Strategy<Value = Value> {
    let text = || proptest::string::string_regex("[a-z\"\\\\{}\\[\\],:\n é😀]{0,12}").unwrap();
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((text(), inner), 0..5).prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A results-shaped file around generated values, written compactly or pretty.
fn files() -> impl Strategy<Value = String> {
    (values(), proptest::collection::vec(values(), 0..6), values(), any::<bool>()).prop_map(|(summary, items, after, pretty)| {
        let samples: Vec<Value> = items.into_iter().map(|v| json!({"agent_status": "in_progress", "data": v})).collect();
        let file = json!({"summary": summary, "samples": samples, "after": after});
        if pretty { serde_json::to_string_pretty(&file).unwrap() } else { file.to_string() }
    })
}

/// What serde_json makes of `text` as a results file: the file, or no file.
fn whole(text: &str) -> Option<Value> {
    let json: Value = serde_json::from_str(text).ok()?;
    results_samples(&json).ok()?;
    Some(json)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn an_opened_file_is_what_serde_json_reads(text in files()) {
        let opened = Opening::new("f.json", text.clone()).finish();
        prop_assert_eq!(opened.map(ResultsData::into_json).ok(), whole(&text));
    }

    #[test]
    fn an_edited_file_opens_exactly_when_serde_json_reads_it(text in files(), at in any::<proptest::sample::Index>(), edit in 0..10usize) {
        // Delete one character, or put one of the characters the scan watches at a random place.
        let mut chars: Vec<char> = text.chars().collect();
        let at = at.index(chars.len() + 1);
        match edit {
            0 if at < chars.len() => { chars.remove(at); }
            _ => chars.insert(at, ['{', '}', '[', ']', ',', ':', '"', '\\', 'x', ' '][edit]),
        }
        let text: String = chars.into_iter().collect();
        let opened = Opening::new("f.json", text.clone()).finish();
        match (opened, whole(&text)) {
            (Ok(data), Some(json)) => prop_assert_eq!(data.into_json(), json),
            (Err(_), None) => {}
            (Ok(_), None) => prop_assert!(false, "opened a file serde_json refuses: {text}"),
            (Err(e), Some(_)) => prop_assert!(false, "refused a file serde_json reads ({e}): {text}"),
        }
    }
}

#[test]
fn errors_inside_a_sample_are_located_in_the_whole_file() {
    let text = "{\"summary\": {},\n \"samples\": [\n  {\"agent_status\": \"success\"},\n  {\"agent_status\": tru}\n]}";
    let e = Opening::new("run.json", text.to_string()).finish().unwrap_err();
    // `tru` starts at line 4, column 20 of the file; serde_json stops after reading it.
    assert!(e.starts_with("run.json: malformed JSON at line 4, column 2"), "{e}");
    assert!(!e.contains(" at line 1"), "serde_json's own, part-relative position is dropped: {e}");
    let e = Opening::new("run.json", "{\"samples\": [1, 2}".to_string()).finish().unwrap_err();
    assert_eq!(e, "run.json: malformed JSON at line 1, column 18: expected `]`, found `}`");
    let e = Opening::new("run.json", "{\"samples\": [1,]}".to_string()).finish().unwrap_err();
    assert_eq!(e, "run.json: malformed JSON at line 1, column 16: expected a value");
    let e = Opening::new("run.json", "{\"samples\": [], \"a\" 1}".to_string()).finish().unwrap_err();
    assert_eq!(e, "run.json: malformed JSON at line 1, column 22: expected a member `\"key\": value`");
    let e = Opening::new("run.json", "{\"samples\": [\"a]\"".to_string()).finish().unwrap_err();
    assert_eq!(e, "run.json: malformed JSON at line 1, column 18: the file ends before its object does");
}

#[test]
fn a_large_file_is_scanned_a_slice_at_a_time() {
    // About 3 MB: the scan stops at each megabyte it is told to stop at.
    let text = ours(6000);
    assert!(text.len() > 2 * SCAN_BYTES, "{}", text.len());
    let mut opening = Opening::new("f.json", text.clone());
    let mut scanning = 0;
    while let Step::Working { total: 0, .. } = opening.step(&mut || false) {
        scanning += 1;
    }
    assert_eq!(scanning, text.len() / SCAN_BYTES, "one slice per megabyte, the last one ending the scan");
}
