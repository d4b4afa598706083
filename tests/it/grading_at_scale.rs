//! Grading at scale: replaying answer collection, grading and computing the metrics of 10,000 chain samples
//! through the results module gives every verdict, per-node status and first break right.
//! (How long it takes is a benchmark figure: `arbigraph bench --grading`.)

use arbigraph_studio::engine::grade::metrics::{render_table, summarise};
use arbigraph_studio::engine::results::{grade_results_file, GradeOptions};
use serde_json::{json, Value};

/// A chain sample whose node 2 is wrong for every third sample and whose target is wrong for every fourth.
pub fn sample(i: usize) -> Value {
    let truths: Vec<i64> = (1..=4).map(|k| (i as i64 * 13 + k * 7) % 1000).collect();
    let list_truth: Vec<i64> = (0..10).map(|j| (i as i64 + j) % 97).collect();
    let mut prompt = String::from("Solve all tasks below. Box every answer, e.g. \\boxed{task_1_out = ...}.\n\nInitial Conditions:\ntask_1_input = 5\n\n");
    for k in 1..=5 {
        prompt.push_str(&format!("Task {k}:\nLet val_{k} come from the previous output. Compute something and call it task_{k}_out.\n\n"));
    }
    let wrong_target = i.is_multiple_of(4);
    let wrong_node = i.is_multiple_of(3);
    let mut turns = serde_json::Map::new();
    turns.insert("0".into(), json!(format!("Thinking about task 1 ... \\boxed{{task_1_out = {}}}\n<tool_call>\n<function=calculator>\n<parameter=expressions>\n[\"1 + 1\"]\n</parameter>\n</function>\n</tool_call>", truths[0])));
    turns.insert(
        "1".into(),
        json!(format!(
            "Now \\boxed{{task_2_out = {}}} and \\boxed{{task_3_out = {}}} and \\boxed{{task_4_out = {}}}",
            truths[1] + wrong_node as i64,
            truths[2],
            truths[3]
        )),
    );
    let target: Vec<i64> = list_truth.iter().map(|v| v + (wrong_target as i64)).collect();
    turns.insert("2".into(), json!(format!("Finally \\boxed{{task_5_out = {target:?}}}.")));
    let stages: Vec<Value> = (1..=4)
        .map(|k| json!({"task_number": k, "input_name": if k == 1 { "task_1_input".to_string() } else { format!("task_{}_out", k - 1) }, "ground_truth": truths[k - 1]}))
        .collect();
    json!({
        "task_id": i % 40, "task_name": format!("Task{}", i % 40), "sample_idx": i / 40,
        "prompt": prompt, "ground_truth": list_truth,
        "chain": {"target_task_number": 5, "distractors": stages,
                  "target": {"task_number": 5, "input_name": "task_4_out", "ground_truth": list_truth}},
        "turn_outputs": turns, "agent_status": "success", "token_length": 1000, "agent_turns": 3, "agent_tool_calls": 1
    })
}

#[test]
fn ten_thousand_samples_are_graded_with_metrics_and_every_verdict_is_right() {
    let file = json!({"summary": {"generation_params": {}}, "samples": (0..10_000).map(sample).collect::<Vec<_>>()});
    let graded = grade_results_file(&file, GradeOptions { replay: true, lenient: false }).expect("a results file");
    assert_eq!((graded.unfinished, graded.unreadable.len()), (0, 0));
    let metrics = summarise(&graded.outcomes());
    let table = render_table(&metrics);

    let expected_correct = (0..10_000).filter(|i| i % 4 != 0).count();
    assert_eq!(metrics.overall.correct, expected_correct);
    assert_eq!(metrics.overall.total, 10_000);
    assert_eq!(metrics.nodes["task_2_out"].correct, (0..10_000).filter(|i| i % 3 != 0).count());
    assert_eq!(metrics.nodes["task_1_out"].correct, 10_000);
    assert_eq!(metrics.first_breaks["task_2_out"], (0..10_000).filter(|i| i % 3 == 0).count());
    // The target's direct predecessor (node 4) is always right, so every wrong target is a first break too.
    assert_eq!(metrics.first_breaks.get("task_5_out").copied().unwrap_or(0), (0..10_000).filter(|i| i % 4 == 0).count());
    assert_eq!(metrics.by_task.len(), 40);
    assert!(table.contains("chain × math"));
}
