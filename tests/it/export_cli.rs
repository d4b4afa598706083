//! `arbigraph export` of a dataset to Inspect AI's JSONL, an lm-evaluation-harness task folder and a Hugging Face
//! dataset folder: each output's structure, its rows against the dataset, and (when the repository's Python
//! environment with inspect-ai exists, `target/python-venv`) Inspect's own `json_dataset` reading the JSONL.

use crate::support::{arbigraph, fixture, root, scratch};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn export(format: &str, output: &Path) -> Value {
    let dataset = fixture("inspect/chain.dataset.json");
    let (code, _, stderr) = arbigraph(&["export", dataset.to_str().unwrap(), "--format", format, "-o", output.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&std::fs::read_to_string(dataset).unwrap()).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// The top-level keys of a YAML text (lines starting with `key:` at column 0).
fn top_keys(yaml: &str) -> Vec<&str> {
    yaml.lines().filter(|l| !l.starts_with([' ', '#', '-']) && !l.is_empty()).filter_map(|l| l.split_once(':').map(|(k, _)| k)).collect()
}

#[test]
fn export_to_inspect_jsonl_carries_input_target_id_and_the_dataset_sample() {
    let dir = scratch("export-inspect");
    let output = dir.join("chain.jsonl");
    let dataset = export("inspect", &output);
    let rows = lines(&output);
    let samples = dataset["samples"].as_array().unwrap();
    assert_eq!(rows.len(), samples.len());
    for (index, (row, sample)) in rows.iter().zip(samples).enumerate() {
        let keys: Vec<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["input", "target", "id", "metadata"]);
        assert_eq!(&row["input"], &sample["prompt"]);
        assert_eq!(row["metadata"]["sample"], *sample, "the whole dataset sample travels, for our grader");
        assert_eq!(row["metadata"]["index"], index);
        assert_eq!(row["id"], format!("chain-{index}"));
        assert!(row["target"].as_str().unwrap().starts_with('[') && row["target"].as_str().unwrap().contains(", "), "a list written as answers are");
    }
    let python = root().join("target/python-venv/bin/python");
    let has_inspect = python.exists() && Command::new(&python).args(["-c", "import inspect_ai"]).status().is_ok_and(|s| s.success());
    if has_inspect {
        let script = "import sys\nfrom inspect_ai.dataset import json_dataset\nds = json_dataset(sys.argv[1])\nprint(len(ds), ds[0].id, ds[1].metadata['index'], ds[0].target)";
        let out = Command::new(&python).args(["-c", script, output.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let expected = format!("2 chain-0 1 {}\n", rows[0]["target"].as_str().unwrap());
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "Inspect reads every sample with its fields");
    } else {
        eprintln!("no target/python-venv with inspect-ai: Inspect's own reading of the JSONL is not checked here");
    }
}

#[test]
fn export_to_lm_eval_writes_a_task_yaml_with_the_keys_lm_eval_requires_and_its_data() {
    let dir = scratch("export-lm-eval");
    let output = dir.join("task");
    let dataset = export("lm-eval", &output);
    let yaml = std::fs::read_to_string(output.join("arbigraph_chain.yaml")).expect("the task YAML, named after the task");
    let keys = top_keys(&yaml);
    for key in ["task", "dataset_path", "dataset_kwargs", "doc_to_text", "doc_to_target", "output_type", "metric_list"] {
        assert!(keys.contains(&key), "`{key}` missing from {keys:?}");
    }
    assert!(yaml.contains("task: arbigraph_chain\n") && yaml.contains("dataset_path: json\n") && yaml.contains("output_type: generate_until\n"));
    assert!(yaml.contains("    test: data/test.jsonl\n"), "the data file the folder holds");
    assert!(yaml.contains("single-turn, no-tool variant"), "the YAML says which variant it is");
    let rows = lines(&output.join("data/test.jsonl"));
    assert_eq!(rows.len(), dataset["samples"].as_array().unwrap().len());
    // Every field the templates name is in every row.
    for field in ["prompt", "answer", "target_output"] {
        assert!(yaml.contains(&format!("{{{{{field}}}}}")), "the YAML reads `{field}`");
        assert!(rows.iter().all(|r| r[field].is_string()), "every row has `{field}`");
    }
    assert_eq!(rows[0]["target_output"], "task_4_out", "a 4-task chain answers under task_4_out");
}

#[test]
fn export_to_hugging_face_writes_the_data_and_a_card_describing_fields_topology_and_seed() {
    let dir = scratch("export-hf");
    let output = dir.join("hf");
    export("hf", &output);
    let card = std::fs::read_to_string(output.join("README.md")).expect("a dataset card");
    let front = card.strip_prefix("---\n").and_then(|rest| rest.split_once("\n---\n")).map(|(yaml, _)| yaml).expect("YAML metadata between --- lines");
    let keys = top_keys(front);
    for key in ["configs", "dataset_info", "arbigraph", "pretty_name", "license"] {
        assert!(keys.contains(&key), "`{key}` missing from {keys:?}");
    }
    assert!(front.contains("    path: data/test.jsonl\n") && front.contains("    num_examples: 2\n"));
    assert!(front.contains("arbigraph:\n  topology: chain\n") && front.contains("  seed: 0\n"), "{front}");
    let rows = lines(&output.join("data/test.jsonl"));
    let row_keys: Vec<&str> = rows[0].as_object().unwrap().keys().map(String::as_str).collect();
    let features = front.split_once("  features:\n").and_then(|(_, rest)| rest.split_once("  splits:\n")).map(|(f, _)| f).expect("the features");
    let described: Vec<&str> = features.lines().filter_map(|l| l.strip_prefix("  - name: ")).collect();
    assert_eq!(described, row_keys, "the card describes exactly the rows' fields, in order");
    assert!(rows.iter().all(|r| r["sample"].as_str().is_some_and(|s| serde_json::from_str::<Value>(s).is_ok())), "the sample as JSON text");
}

#[test]
fn export_refuses_a_file_without_samples_and_a_bad_name() {
    let dir = scratch("export-refused");
    let empty = dir.join("empty.json");
    std::fs::write(&empty, r#"{"summary": {}}"#).unwrap();
    let (code, _, stderr) = arbigraph(&["export", empty.to_str().unwrap(), "--format", "hf", "-o", dir.join("out").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("empty.json: no `samples` array"), "{stderr}");
    let dataset = fixture("inspect/chain.dataset.json");
    let (code, _, stderr) = arbigraph(&["export", dataset.to_str().unwrap(), "--format", "lm-eval", "--name", "a b", "-o", dir.join("out").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--name `a b`: use letters, digits"), "{stderr}");
}
