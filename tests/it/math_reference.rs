//! Reproduces every math ground truth stored in the reference sample files with `math::solve`: the raw input of
//! each stage (the chain input, the previous stage's ground truth, or a multichain branch / recombined input) plus
//! the static parameters printed in that stage's prompt (`seq2_N`, `M2_N = Matrix(...)`, `poly_2_N = <expr>`).
//!
//! The samples are the reference release's data, vendored unchanged under `tests/fixtures/reference/`.

use std::collections::HashMap;

use arbigraph_studio::engine::tasks::math;
use arbigraph_studio::engine::value::Value;
use serde_json::{json, Value as Json};

/// One math stage to check: which task, its number in the prompt, its raw input and stored ground truth.
struct Stage {
    task_name: String,
    number: u64,
    raw_input: Json,
    ground_truth: Json,
}

/// The block of task `number`: from its `Task N:` header to the next blank line.
fn task_block(prompt: &str, number: u64) -> &str {
    let header = format!("Task {number}:\n");
    let start = prompt.find(&header).unwrap_or_else(|| panic!("no `{header}` in the prompt"));
    let rest = &prompt[start..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// The text after `<name> = ` up to the end of its line, without a final period.
fn printed_value<'a>(block: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name} = ");
    let start = block.find(&key)? + key.len();
    let line = &block[start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    Some(line.trim_end().trim_end_matches('.'))
}

/// `x**10 - 2*x**9 + … - 4` → coefficients by degree.
fn parse_poly(expr: &str) -> HashMap<u32, i64> {
    let mut terms = HashMap::new();
    let normalized = expr.replace(" - ", " + -");
    for term in normalized.split(" + ") {
        let term = term.trim();
        let (sign, body) = match term.strip_prefix('-') {
            Some(body) => (-1, body),
            None => (1, term),
        };
        let (coeff, power) = match body.split_once('*') {
            Some((c, rest)) if !c.starts_with('x') => (c.parse::<i64>().expect("coefficient"), rest),
            _ => (1, body),
        };
        let degree = if power == "x" {
            1
        } else if let Some(k) = power.strip_prefix("x**") {
            k.parse().expect("exponent")
        } else {
            // A constant term: `power` is the whole number.
            terms.insert(0, sign * power.parse::<i64>().expect("constant"));
            continue;
        };
        terms.insert(degree, sign * coeff);
    }
    terms
}

/// The static parameters task `number` printed, in `solve`'s format.
fn printed_params(prompt: &str, task_name: &str, number: u64) -> Json {
    let block = task_block(prompt, number);
    match task_name {
        "ConvolutionTask" => {
            let text = printed_value(block, &format!("seq2_{number}")).expect("seq2 printed");
            json!({ "seq2": serde_json::from_str::<Json>(text).expect("seq2 is a list") })
        }
        "KroneckerProductTask" | "MatrixMulTask" => {
            let text = printed_value(block, &format!("M2_{number}")).expect("M2 printed");
            let inner = text.strip_prefix("Matrix(").and_then(|t| t.strip_suffix(')')).expect("Matrix(...)");
            json!({ "M2": serde_json::from_str::<Json>(inner).expect("rows") })
        }
        "PolyRemainderTask" => {
            let expr = printed_value(block, &format!("poly_2_{number}")).expect("divisor printed");
            let terms = parse_poly(expr);
            let degree = *terms.keys().max().expect("non-empty divisor");
            assert_eq!(terms.get(&degree), Some(&1), "the divisor is monic: {expr}");
            let seq2: Vec<i64> = (0..degree).rev().map(|k| terms.get(&k).copied().unwrap_or(0)).collect();
            json!({ "seq2": seq2 })
        }
        "InterpolateEvalTask" => {
            let x0 = ["x0_", "x_"]
                .iter()
                .find_map(|base| printed_value(block, &format!("{base}{number}")))
                .or_else(|| printed_value(block, "x0"))
                .expect("evaluation point printed");
            json!({ "x0": x0.parse::<i64>().expect("integer point") })
        }
        _ => json!({}),
    }
}

/// The raw value a stage received, from its input name.
fn resolve_input(name: &str, chain_input: &Json, outputs: &HashMap<String, Json>, named_inputs: &HashMap<String, Json>) -> Json {
    if name == "task_1_input" {
        return chain_input.clone();
    }
    outputs.get(name).or_else(|| named_inputs.get(name)).cloned().unwrap_or_else(|| panic!("cannot resolve input `{name}`"))
}

/// Stages of a sequence of stage records with `task_number`, `task_name`, `input_name`, `ground_truth`.
fn linked_stages(records: &[&Json], chain_input: &Json, named_inputs: &HashMap<String, Json>) -> Vec<Stage> {
    let mut outputs = HashMap::new();
    let mut stages = Vec::new();
    for record in records {
        let number = record["task_number"].as_u64().expect("task_number");
        let input_name = record["input_name"].as_str().expect("input_name");
        let raw_input = resolve_input(input_name, chain_input, &outputs, named_inputs);
        outputs.insert(format!("task_{number}_out"), record["ground_truth"].clone());
        if record.get("family").is_none_or(|f| f == "math") {
            stages.push(Stage {
                task_name: record["task_name"].as_str().expect("task_name").to_string(),
                number,
                raw_input,
                ground_truth: record["ground_truth"].clone(),
            });
        }
    }
    stages
}

fn stages_of(file: &str, sample: &Json) -> Vec<Stage> {
    let chain_input = &sample["chain_input"];
    if let Some(chain) = sample.get("chain") {
        let mut records: Vec<&Json> = chain["distractors"].as_array().expect("distractors").iter().collect();
        records.push(&chain["target"]);
        return linked_stages(&records, chain_input, &HashMap::new());
    }
    if let Some(multi) = sample.get("multi_chain") {
        let mut named = HashMap::new();
        for block in multi["branch_blocks"].as_array().expect("branch_blocks") {
            named.insert(block["next_input_name"].as_str().expect("next_input_name").to_string(), block["next_input_value"].clone());
            for branch in block["branches"].as_array().expect("branches") {
                named.insert(branch["input_name"].as_str().expect("input_name").to_string(), branch["input_value"].clone());
            }
        }
        let records: Vec<&Json> = multi["stages"].as_array().expect("stages").iter().collect();
        return linked_stages(&records, chain_input, &named);
    }
    let number = sample.get("forgetting").map_or(1, |f| f["target_task_number"].as_u64().expect("target_task_number"));
    assert!(file.contains("baseline") || file.contains("forgetting"), "unexpected layout in {file}");
    vec![Stage {
        task_name: sample["task_name"].as_str().expect("task_name").to_string(),
        number,
        raw_input: chain_input.clone(),
        ground_truth: sample["ground_truth"].clone(),
    }]
}

#[test]
fn solve_reproduces_every_math_ground_truth_in_the_reference_samples() {
    let files = ["math_baseline.sample.json", "math_chain.sample.json", "math_forgetting.sample.json", "results_math_multichain.sample.json"];
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in files {
        let path = crate::support::reference(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let data: Json = serde_json::from_str(&text).expect("sample file is JSON");
        for (index, sample) in data["samples"].as_array().expect("samples").iter().enumerate() {
            let prompt = sample["prompt"].as_str().expect("prompt");
            for stage in stages_of(file, sample) {
                let params = printed_params(prompt, &stage.task_name, stage.number);
                let raw = Value::from_json(&stage.raw_input).expect("raw input is a value");
                let got = math::solve(&stage.task_name, &raw, &params).map(|v| v.to_json());
                if got.as_ref() != Ok(&stage.ground_truth) {
                    failures.push(format!("{file}[{index}] task {} {}: got {got:?}, stored {}", stage.number, stage.task_name, stage.ground_truth));
                }
                checked += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} stages differ:\n{}", failures.len(), failures.join("\n"));
    // 3 baseline + 3 chains × 4 + 2 forgetting targets + 2 multichains × 8.
    assert_eq!(checked, 3 + 12 + 2 + 16);
}

#[test]
fn forgetting_distractors_accept_their_printed_parameters() {
    // Distractor blocks store no ground truth, but their printed parameters must fit our shapes for the stored
    // input (e.g. MatrixMul's M2 is cols x rows of the raw-length shape).
    let path = crate::support::reference("math_forgetting.sample.json");
    let data: Json = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    let mut checked = 0;
    for sample in data["samples"].as_array().expect("samples") {
        let prompt = sample["prompt"].as_str().expect("prompt");
        for distractor in sample["forgetting"]["distractors"].as_array().expect("distractors") {
            let name = distractor["task_name"].as_str().expect("task_name");
            let number = distractor["task_number"].as_u64().expect("task_number");
            let params = printed_params(prompt, name, number);
            let raw = Value::from_json(&distractor["chain_input"]).expect("raw input");
            let result = math::solve(name, &raw, &params);
            assert!(result.is_ok(), "{name} (task {number}): {result:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

#[test]
fn the_divisor_parser_reads_sympy_expressions() {
    let terms = parse_poly("x**10 + 4*x**9 - 2*x**7 - x + 5");
    let expected: HashMap<u32, i64> = [(10, 1), (9, 4), (7, -2), (1, -1), (0, 5)].into_iter().collect();
    assert_eq!(terms, expected);
}
