//! `arbigraph grade --replay` on the reference's stored results reproduces every stored verdict and answer set.

use std::path::PathBuf;
use std::process::Command;

use crate::support::{arbigraph_binary, reference_files};

fn results_files() -> Vec<PathBuf> {
    reference_files(|name| name.starts_with("results_") && name.ends_with(".sample.json"))
}

#[test]
fn replay_reproduces_every_stored_verdict_and_answer_set() {
    let files = results_files();
    assert!(!files.is_empty(), "no reference results files found");
    let mut checked = 0;
    for file in files {
        let stored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let samples = stored["samples"].as_array().unwrap();
        let out = Command::new(arbigraph_binary()).arg("grade").arg(&file).arg("--replay").arg("--per-sample").output().unwrap();
        assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
        let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), samples.len(), "{}", file.display());
        for (line, sample) in lines.iter().zip(samples) {
            let index = line["index"].as_u64().unwrap() as usize;
            assert_eq!(line["correct"], samples[index]["correct"], "{} sample {index}", file.display());
            assert_eq!(line["task_answers"], sample["task_answers"], "{} sample {index}", file.display());
            checked += 1;
        }
        // The table names the overall accuracy the reference stored in its summary.
        let table = Command::new(arbigraph_binary()).arg("grade").arg(&file).arg("--replay").output().unwrap();
        let text = String::from_utf8(table.stdout).unwrap();
        let correct = samples.iter().filter(|s| s["correct"] == true).count();
        assert!(text.contains(&format!("{correct}/{}", samples.len())), "{text}");
    }
    assert!(checked >= 4);
}

#[test]
fn regrading_without_replay_uses_the_stored_answers_and_agrees() {
    for file in results_files() {
        let out = Command::new(arbigraph_binary()).arg("grade").arg(&file).arg("--per-sample").output().unwrap();
        assert!(out.status.success());
        let stored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let line: serde_json::Value = serde_json::from_str(line).unwrap();
            let index = line["index"].as_u64().unwrap() as usize;
            assert_eq!(line["correct"], stored["samples"][index]["correct"]);
        }
    }
}

#[test]
fn every_reference_dataset_sample_declares_the_last_prompt_name_as_its_target() {
    use arbigraph_studio::engine::grade::SampleSpec;
    let mut checked = 0;
    for path in reference_files(|name| name.ends_with(".sample.json")) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (i, sample) in file["samples"].as_array().unwrap().iter().enumerate() {
            let spec = SampleSpec::from_json(sample, i).unwrap();
            assert_eq!(Some(&spec.target), spec.expected.last(), "{name} sample {i}");
            let target = spec.nodes.iter().find(|n| n.name == spec.target).unwrap();
            assert_eq!(target.truth, arbigraph_studio::engine::literal::Literal::from_json(&sample["ground_truth"]));
            if name.contains("chain") && !name.contains("multichain") {
                let names: Vec<&str> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
                assert_eq!(names, ["task_1_out", "task_2_out", "task_3_out", "task_4_out"], "{name} sample {i}");
                assert_eq!(spec.nodes[3].predecessors, ["task_3_out"]);
            }
            if name.contains("multichain") {
                assert_eq!(spec.nodes.len(), 8);
                // Branch inputs come from the expansion output; the recombined input from both branch ends.
                assert_eq!(spec.nodes[2].predecessors, ["task_2_out"]);
                assert_eq!(spec.nodes[6].predecessors, ["task_4_out", "task_6_out"]);
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}
