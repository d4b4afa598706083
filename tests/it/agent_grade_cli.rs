//! `arbigraph grade` options: the lenient verdict reported separately, and the paired comparison of two runs.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

use crate::support::arbigraph_binary;

fn results(answers: &[&str]) -> Value {
    let samples: Vec<Value> = answers
        .iter()
        .enumerate()
        .map(|(i, answer)| {
            json!({"task_id": i, "task_name": "T", "sample_idx": 0, "prompt": "Task 1: task_1_out", "ground_truth": 32,
                   "turn_outputs": {"0": format!("\\boxed{{task_1_out = {answer}}}")}, "agent_status": "success",
                   "token_length": 10, "agent_turns": 1, "agent_tool_calls": 1})
        })
        .collect();
    json!({"summary": {"mode": "agent"}, "samples": samples})
}

fn write(name: &str, value: &Value) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("grade-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, value.to_string()).unwrap();
    path
}

#[test]
fn lenient_verdicts_are_reported_separately_from_the_reference_score() {
    let path = write("lenient.json", &results(&["32", "2^{5}", "\\frac{64}{2}", "31"]));
    let out = Command::new(arbigraph_binary()).arg("grade").arg(&path).args(["--replay", "--lenient", "--per-sample"]).output().unwrap();
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let strict: Vec<bool> = lines.iter().map(|l| l["correct"].as_bool().unwrap()).collect();
    let lenient: Vec<bool> = lines.iter().map(|l| l["lenient_correct"].as_bool().unwrap()).collect();
    assert_eq!(strict, vec![true, false, false, false]);
    assert_eq!(lenient, vec![true, true, true, false]);
    let table = String::from_utf8(out.stderr).unwrap();
    assert!(table.contains("overall") && table.contains("1/4"), "{table}");
    assert!(table.contains("lenient (not comparable)") && table.contains("3/4"), "{table}");
}

#[test]
fn the_paired_comparison_matches_samples_and_reports_mcnemar() {
    let a = write("a.json", &results(&["32", "32", "32", "31", "32", "32", "32", "32", "32", "32"]));
    let b = write("b.json", &results(&["31", "31", "31", "31", "31", "31", "31", "31", "31", "32"]));
    let out = Command::new(arbigraph_binary()).arg("grade").arg(&a).arg("--compare").arg(&b).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // 9 vs 1 correct: 8 discordant pairs all favouring A; p = 2 / 2^8.
    assert!(text.contains("matched by task_id, task_name, sample_idx"), "{text}");
    assert!(text.contains("n 10  both 1  only this 8  only other 0  difference +0.8000  McNemar exact p 0.0078"), "{text}");
}

#[test]
fn the_figures_are_written_as_csv_on_request() {
    let path = write("csv.json", &results(&["32", "31", "32", "32"]));
    let csv = path.with_extension("csv");
    let out = Command::new(arbigraph_binary()).arg("grade").arg(&path).arg("--csv").arg(&csv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "scope,topology,family,task,correct,total,accuracy,ci_low,ci_high");
    assert!(lines[1].starts_with("overall,,,,3,4,0.7500,"), "{text}");
    assert!(lines.iter().any(|l| l.starts_with("target task,") && l.contains(",T,3,4,")), "{text}");
    let stdout = Command::new(arbigraph_binary()).arg("grade").arg(&path).args(["--csv", "-"]).output().unwrap();
    assert!(String::from_utf8(stdout.stdout).unwrap().ends_with(&text), "`-` prints the same CSV after the table");
}
