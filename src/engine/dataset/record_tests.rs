//! Tests of `record`: every layout read against the vendored reference samples and hand-made records.

use super::*;
use serde_json::json;

fn reference(name: &str) -> Json {
    let text = match name {
        "results_math_multichain.sample.json" => include_str!("../../../tests/fixtures/reference/results_math_multichain.sample.json"),
        "math_chain.sample.json" => include_str!("../../../tests/fixtures/reference/math_chain.sample.json"),
        "math_forgetting.sample.json" => include_str!("../../../tests/fixtures/reference/math_forgetting.sample.json"),
        other => panic!("no vendored sample {other}"),
    };
    let file: Json = serde_json::from_str(text).unwrap();
    match file.get("samples") {
        Some(samples) => samples[0].clone(),
        None => file,
    }
}

#[test]
fn a_reference_multichain_wires_branches_through_picks_and_a_pack() {
    let record = SampleRecord::parse(&reference("results_math_multichain.sample.json"));
    assert_eq!(record.topology, Topology::Multichain);
    let numbers: Vec<u64> = record.stages.iter().filter_map(|s| s.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(record.target_output_name().as_deref(), Some("task_8_out"));
    // task_3 and task_5 take elements 0 and 1 of task_2's list; task_7 packs the branches' ends, 4 and 6.
    let picks: Vec<(&str, &AdapterOp)> = record.adapters.iter().map(|a| (a.name.as_str(), &a.op)).collect();
    assert_eq!(picks[..2], [("task_3_input", &AdapterOp::Pick { index: 0 }), ("task_5_input", &AdapterOp::Pick { index: 1 })]);
    assert_eq!(record.task_predecessors("task_3"), ["task_2"]);
    assert_eq!(record.task_predecessors("task_7"), ["task_4", "task_6"]);
    assert_eq!(record.task_predecessors("task_8"), ["task_7"]);
    assert!(record.task_predecessors("task_1").is_empty());
}

#[test]
fn a_reference_chain_is_wired_in_order_with_its_target_last() {
    let record = SampleRecord::parse(&reference("math_chain.sample.json"));
    assert_eq!(record.topology, Topology::Chain);
    let last = record.stages.last().unwrap();
    assert_eq!(last.label, record.task_name);
    assert_eq!(last.truth, record.truth);
    for pair in record.stages.windows(2) {
        assert_eq!(record.task_predecessors(&pair[1].id), [pair[0].id.clone()]);
    }
}

#[test]
fn a_chain_stage_reads_the_output_its_input_names_even_without_its_stage() {
    let record = SampleRecord::parse(&json!({"prompt": "p", "ground_truth": 1, "chain": {"target": {"task_number": 7, "input_name": "task_1_out"}}}));
    assert_eq!(record.task_predecessors("task_7"), ["task_1"]);
    assert_eq!(record.output_of("task_1").as_deref(), Some("task_1_out"));
}

#[test]
fn a_reference_forgetting_record_gets_its_target_from_the_sample_itself() {
    let sample = reference("math_forgetting.sample.json");
    let record = SampleRecord::parse(&sample);
    let n = sample["forgetting"]["target_task_number"].as_u64().unwrap();
    assert_eq!(record.stages.len() as u64, n);
    let target = record.stages.last().unwrap();
    assert_eq!((target.number, &target.truth), (Some(n), &Some(sample["ground_truth"].clone())));
    assert!(record.wires.is_empty(), "forgetting tasks are independent");
    assert!(record.stages[..record.stages.len() - 1].iter().all(|s| s.truth.is_none()), "the reference stores no distractor truths");
}

#[test]
fn custom_adapters_are_walked_to_the_tasks_behind_them() {
    let sample = json!({"task_name": "C", "target_node": "c", "ground_truth": 3, "prompt": "Define t_in = task_1_out[2].\n",
        "custom_dag": {"stages": [
            {"task_number": 2, "node_id": "c", "input_node_id": "k", "ground_truth": 3},
            {"task_number": 1, "node_id": "a", "input_node_id": null, "ground_truth": [1, 2, 3]},
            {"task_number": 3, "node_id": "b", "input_node_id": null, "ground_truth": 4}],
          "adapters": [{"node_id": "p", "op": "pick", "input_node_ids": ["a"], "output_name": "t_in"},
                       {"node_id": "k", "op": "pack", "input_node_ids": ["p", "b"], "output_name": "u"},
                       {"node_id": "z", "op": "rotate", "input_node_ids": ["b"], "output_name": "v"}]}});
    let record = SampleRecord::parse(&sample);
    assert_eq!(record.stages.last().unwrap().id, "c", "the target is moved last");
    assert_eq!(record.adapters.iter().map(|a| a.op.clone()).collect::<Vec<_>>(), [AdapterOp::Pick { index: 2 }, AdapterOp::Pack, AdapterOp::Other("rotate".into())]);
    assert_eq!(record.task_predecessors("c"), ["a", "b"]);
    assert!(record.wires.contains(&Wire { from: "b".into(), to: "k".into(), slot: Some(1) }));
}

#[test]
fn a_cycle_in_a_hand_made_record_ends_the_walk() {
    let sample = json!({"prompt": "p", "ground_truth": 1, "custom_dag": {
        "stages": [{"task_number": 1, "node_id": "a", "input_node_id": "x", "ground_truth": 1}],
        "adapters": [{"node_id": "x", "op": "pack", "input_node_ids": ["y"]}, {"node_id": "y", "op": "pack", "input_node_ids": ["x"]}]}});
    assert!(SampleRecord::parse(&sample).task_predecessors("a").is_empty());
}

#[test]
fn jsonl_lines_read_their_metadata() {
    let line = json!({"id": "chain/math.X/0", "prompt": "p", "answer": 4, "metadata": {"topology": "chain", "family": "math", "seed": 9,
        "task_name": "X", "sample_idx": 2, "stage_ground_truths": {"task_1_out": 1, "task_2_out": 4}}});
    let record = SampleRecord::parse(&line);
    assert!(record.jsonl);
    assert_eq!((record.topology, record.seed, record.sample_idx), (Topology::Chain, Some(9), Some(2)));
    assert_eq!((record.truth.clone(), record.target_family.as_deref()), (Some(json!(4)), Some("math")));
    assert_eq!(record.task_predecessors("task_2"), ["task_1"]);
    assert_eq!(record.stages[1].label.as_deref(), Some("X"));
    assert_eq!(record.stages[0].label, None);
}

#[test]
fn a_baseline_is_one_stage_and_an_empty_object_reads_without_error() {
    let record = SampleRecord::parse(&json!({"task_name": "GSM_0001.json", "ground_truth": 12.5, "prompt": "p", "sample_idx": 4}));
    assert_eq!(record.topology, Topology::Baseline);
    assert_eq!(record.stages.len(), 1);
    assert_eq!(record.target_output_name().as_deref(), Some("task_1_out"));
    let empty = SampleRecord::parse(&json!({}));
    assert_eq!((empty.prompt, empty.truth, empty.stages.len()), (None, None, 1));
}

#[test]
fn pictures_come_from_entries_or_the_prompt_parts() {
    let url = "data:image/png;base64,AAAA";
    let line = json!({"prompt": [{"type": "text", "text": "t"}, {"type": "image_url", "image_url": {"url": url}}],
        "metadata": {"topology": "baseline", "images": [{"task_number": 1, "ground_truth": [3],
            "metadata": {"width": 40, "height": 30, "selected_path": {"polyline": [[1, 2], [3, 4]]}}}]}});
    let record = SampleRecord::parse(&line);
    let picture = &record.pictures[0];
    assert_eq!((picture.image_index, picture.task_number, picture.data_url.as_deref()), (1, 1, Some(url)));
    assert_eq!((picture.width, picture.height, picture.path.clone()), (Some(40.0), Some(30.0), vec![(1.0, 2.0), (3.0, 4.0)]));
    let filed = SampleRecord::parse(&json!({"images": [{"image_index": 2, "file": "p.png"}]}));
    assert_eq!((filed.pictures[0].data_url.clone(), filed.pictures[0].file.as_deref(), filed.pictures[0].width), (None, Some("p.png"), None));
}
