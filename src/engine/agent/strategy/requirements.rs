//! Requirements as exact instruction spans of the prompt, one per expected output, and the dependencies between
//! them. A prompt line belongs to the task whose `Task N:` section holds it, except a line that defines an
//! input (`task_M_input …`), which belongs to task M wherever it stands (multichain adapters and recombinations
//! sit in the previous task's section). Lines before the first section that define nothing (the preamble) belong
//! to no requirement. Dependencies come from the dataset's stage records when it has them, else from the
//! `task_M_out` names a requirement's spans mention.

use crate::engine::grade::SampleSpec;
use std::ops::Range;

/// One requirement: an expected output and the prompt text that asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The output name, e.g. `task_3_out` (also its id in origin declarations).
    pub id: String,
    /// Byte ranges of the prompt, in order, each a run of whole lines.
    pub spans: Vec<Range<usize>>,
    /// The spans' text, joined by newlines.
    pub text: String,
}

/// `task_<n>_<suffix>` names in `line` (`n` ≥ 1, not part of a longer word on the left).
fn numbered_names(line: &str, suffix: &str) -> Vec<u64> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(offset) = line[from..].find("task_") {
        let at = from + offset;
        from = at + 5;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let digits: String = line[at + 5..].chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || digits.starts_with('0') || !line[at + 5 + digits.len()..].starts_with(suffix) {
            continue;
        }
        if let Ok(n) = digits.parse::<u64>() {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// The task number of a `Task N:` section header line.
fn header_number(line: &str) -> Option<u64> {
    let rest = line.trim_start().strip_prefix("Task ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || !rest[digits.len()..].starts_with(':') {
        return None;
    }
    digits.parse().ok()
}

fn task_number(name: &str) -> Option<u64> {
    name.strip_prefix("task_")?.strip_suffix("_out")?.parse().ok()
}

/// The requirements of `prompt`, one per expected name, in expected order.
pub fn requirements_of(prompt: &str, expected: &[String]) -> Vec<Requirement> {
    // Lines with their byte ranges (newline excluded).
    let mut lines: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for (i, c) in prompt.char_indices() {
        if c == '\n' {
            lines.push(start..i);
            start = i + 1;
        }
    }
    if start < prompt.len() {
        lines.push(start..prompt.len());
    }
    let has_headers = lines.iter().any(|l| header_number(&prompt[l.clone()]).is_some());
    // Owners of each line: task numbers.
    let mut section: Option<u64> = None;
    let owners: Vec<Vec<u64>> = lines
        .iter()
        .map(|l| {
            let line = &prompt[l.clone()];
            if let Some(n) = header_number(line) {
                section = Some(n);
            }
            let inputs = numbered_names(line, "_input");
            if !inputs.is_empty() {
                return inputs;
            }
            if has_headers {
                return section.into_iter().collect();
            }
            numbered_names(line, "_out")
        })
        .collect();
    expected
        .iter()
        .map(|id| {
            let number = task_number(id);
            let mut spans: Vec<Range<usize>> = Vec::new();
            for (line, owner) in lines.iter().zip(&owners) {
                if number.is_none_or(|n| !owner.contains(&n)) || line.is_empty() {
                    continue;
                }
                match spans.last_mut() {
                    // Extend the run over the newline (and any blank lines) between owned lines of one section.
                    Some(last) if prompt[last.end..line.start].trim().is_empty() => last.end = line.end,
                    _ => spans.push(line.clone()),
                }
            }
            if spans.is_empty() {
                spans.push(0..prompt.len());
            }
            let text = spans.iter().map(|r| &prompt[r.clone()]).collect::<Vec<_>>().join("\n");
            Requirement { id: id.clone(), spans, text }
        })
        .collect()
}

/// Each expected name with the expected names it reads (direct predecessors), in expected order: the stage
/// records' predecessors when the sample has them for that name, else the outputs its spans mention.
pub fn dependencies(spec: &SampleSpec, requirements: &[Requirement]) -> Vec<(String, Vec<String>)> {
    requirements
        .iter()
        .map(|r| {
            let recorded = spec.nodes.iter().find(|n| n.name == r.id).map(|n| n.predecessors.clone()).unwrap_or_default();
            let mut preds: Vec<String> = if recorded.is_empty() {
                let own = task_number(&r.id);
                r.text
                    .lines()
                    .flat_map(|line| numbered_names(line, "_out"))
                    .filter(|n| Some(*n) != own)
                    .map(|n| format!("task_{n}_out"))
                    .collect()
            } else {
                recorded
            };
            let mut unique: Vec<String> = Vec::new();
            for p in preds.drain(..) {
                if spec.expected.contains(&p) && p != r.id && !unique.contains(&p) {
                    unique.push(p);
                }
            }
            (r.id.clone(), unique)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MULTICHAIN: &str = "Solve all tasks below. Put every answer in its own box.\n\nInitial Conditions:\ntask_1_input = -47\n\n\
Task 1:\nLet val_1 be task_1_input.\nCall that sequence task_1_out.\n\n\
Task 2:\nLet list_2 be task_1_out.\nCall it task_2_out.\n\nUse the first 2 elements of task_2_out as inputs to the following tasks.\n\
Define task_3_input = task_2_out[0].\nDefine task_5_input = task_2_out[1].\n\n\
Task 3:\nLet val_3 be task_3_input.\nCall it task_3_out.\n\n\
Task 5:\nLet val_5 be task_5_input.\nCall it task_5_out.\n\n\
Define task_7_input_prelim = [task_3_out, task_5_out].\ntask_7_input = [task_3_out, task_5_out, task_3_out * 2 + 1].\n\n\
Task 7:\nLet list_7 be task_7_input.\nCall this list task_7_out.\n";

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_requirement_is_its_section_plus_the_lines_that_define_its_input() {
        let expected = names(&["task_1_out", "task_2_out", "task_3_out", "task_5_out", "task_7_out"]);
        let reqs = requirements_of(MULTICHAIN, &expected);
        assert_eq!(reqs.len(), 5);
        assert_eq!(reqs[0].text, "task_1_input = -47\n\nTask 1:\nLet val_1 be task_1_input.\nCall that sequence task_1_out.");
        assert!(reqs[1].text.contains("Use the first 2 elements") && !reqs[1].text.contains("Define task_3_input"), "{}", reqs[1].text);
        assert!(reqs[2].text.starts_with("Define task_3_input = task_2_out[0]."), "{}", reqs[2].text);
        assert!(!reqs[3].text.contains("task_7_input"), "the recombination belongs to task 7: {}", reqs[3].text);
        assert!(reqs[4].text.starts_with("Define task_7_input_prelim"), "{}", reqs[4].text);
        for r in &reqs {
            for span in &r.spans {
                assert!(r.text.contains(&MULTICHAIN[span.clone()]), "spans are exact prompt text");
            }
        }
        assert!(!reqs.iter().any(|r| r.text.contains("Solve all tasks")), "the preamble belongs to no requirement");
    }

    #[test]
    fn dependencies_come_from_stage_records_or_else_from_the_spans() {
        let expected = names(&["task_1_out", "task_2_out", "task_3_out", "task_5_out", "task_7_out"]);
        let reqs = requirements_of(MULTICHAIN, &expected);
        let spec = SampleSpec::from_json(&json!({"prompt": MULTICHAIN, "ground_truth": 1}), 0).unwrap();
        let deps = dependencies(&spec, &reqs);
        let preds = |name: &str| deps.iter().find(|(n, _)| n == name).map(|(_, p)| p.clone()).unwrap();
        assert_eq!(preds("task_1_out"), Vec::<String>::new());
        assert_eq!(preds("task_3_out"), names(&["task_2_out"]));
        assert_eq!(preds("task_5_out"), names(&["task_2_out"]));
        assert_eq!(preds("task_7_out"), names(&["task_3_out", "task_5_out"]));
        let with_records = json!({"prompt": MULTICHAIN, "ground_truth": 1,
            "chain": {"target": {"task_number": 7, "input_name": "task_1_out", "ground_truth": 1}}});
        let spec = SampleSpec::from_json(&with_records, 0).unwrap();
        let deps = dependencies(&spec, &reqs);
        assert_eq!(deps[4].1, names(&["task_1_out"]), "stage records win");
    }

    #[test]
    fn a_prompt_without_sections_gives_the_lines_that_name_each_output() {
        let prompt = "Define task_1_input = 5.\nCompute task_1_out.\nThen compute task_2_out from task_1_out.";
        let reqs = requirements_of(prompt, &names(&["task_1_out", "task_2_out"]));
        assert_eq!(reqs[0].text, "Define task_1_input = 5.\nCompute task_1_out.\nThen compute task_2_out from task_1_out.");
        assert_eq!(reqs[1].text, "Then compute task_2_out from task_1_out.");
        let whole = requirements_of("What is 2 + 2?", &names(&["final_answer"]));
        assert_eq!(whole[0].spans, vec![0..14]);
    }
}
