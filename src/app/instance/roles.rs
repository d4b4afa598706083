//! Roles recognised in a prompt that carries none (the reference's files store plain text): output names
//! (`task_N_out`), input values (`task_N_input = …`, `Define …_static = …`, literal parameters), adapters
//! (the preprocessing sentences, branch splits and recombinations), headers and instructions, and the tasks'
//! own wording as computation. The colours are a reading aid; generated prompts keep their exact roles.

use crate::engine::prompt::{closes_fence, fence_length, Role};

/// The roles of `prompt`, run-length encoded as (role name, characters), covering every character.
pub fn recognise(prompt: &str) -> Vec<(String, u32)> {
    let mut roles: Vec<Role> = vec![Role::Instruction; prompt.len()];
    let mut open_fence: Option<usize> = None;
    let mut in_tasks = false;
    let mut start = 0;
    for line in prompt.split_inclusive('\n') {
        let end = start + line.len();
        let text = line.trim_end_matches(['\n', '\r']);
        let in_code = open_fence.is_some();
        let fence = match open_fence {
            None => fence_length(text.trim_start()).map(Some),
            Some(open) => closes_fence(text, open).then_some(None),
        };
        let mut set = |from: usize, to: usize, role: Role| roles[start + from..start + to].fill(role);
        if in_code || fence.is_some() {
            set(0, line.len(), Role::Computation);
            if let Some(next) = fence {
                open_fence = next;
            }
        } else if is_header(text) {
            in_tasks |= text.starts_with("Task ");
        } else if let Some((value_from, value_to)) = assignment_value(text) {
            in_tasks = true;
            if mentions_output(&text[value_from..value_to]) {
                set(0, text.len(), Role::Adapter);
            } else {
                set(value_from, value_to, Role::InputValue);
            }
        } else if is_adapter(text) {
            set(0, text.len(), Role::Adapter);
        } else if in_tasks && !is_instruction(text) {
            set(0, text.len(), Role::Computation);
        }
        if !in_code && fence.is_none() {
            for (from, to) in output_names(text) {
                set(from, to, Role::OutputName);
            }
        }
        start = end;
    }
    encode(prompt, &roles)
}

fn encode(prompt: &str, roles: &[Role]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for (at, _) in prompt.char_indices() {
        let role = roles[at].as_str();
        match out.last_mut() {
            Some((last, n)) if last == role => *n += 1,
            _ => out.push((role.to_string(), 1)),
        }
    }
    out
}

fn is_header(line: &str) -> bool {
    let line = line.trim();
    line == "Initial Conditions:" || line == "Static Inputs:" || (line.starts_with("Task ") && line.ends_with(':') && line[5..line.len() - 1].bytes().all(|b| b.is_ascii_digit()))
}

/// Sentences that ask for the answer rather than define the task.
fn is_instruction(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    ["save the final numerical answer", "store the final numerical answer", "save the result in", "trace the execution", "trace by hand"].iter().any(|p| lower.contains(p))
}

fn is_adapter(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let local = |w: &str| ["val_", "list_", "points_"].iter().any(|p| w.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())));
    match words.as_slice() {
        ["Let", name, "be", ..] if local(name) && line.contains("preprocess") => true,
        ["If", name, "has", "more", ..] if local(name) => true,
        ["Build", ..] | ["Define", _, "as", "the", "following", ..] => mentions_input(line),
        ["The", "first", ..] => line.contains("are the inputs"),
        _ => line.contains("with zeros") && words.iter().any(|w| local(w.trim_end_matches(['.', ',']))),
    }
}

/// A line `name = value` or `Define name = value.`: the byte range of the value.
fn assignment_value(line: &str) -> Option<(usize, usize)> {
    let body_at = if line.starts_with("Define ") { 7 } else { 0 };
    let eq = line.find(" = ")?;
    let name = &line[body_at..eq];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') || !name.contains('_') {
        return None;
    }
    let from = eq + 3;
    let to = if body_at > 0 && line.ends_with('.') { line.len() - 1 } else { line.len() };
    (from < to).then_some((from, to))
}

fn mentions_output(text: &str) -> bool {
    !output_names(text).is_empty()
}

fn mentions_input(text: &str) -> bool {
    text.contains("_input")
}

/// Byte ranges of the `task_N_out` names in `text` (whole words only).
fn output_names(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("task_") {
        let at = from + found;
        let mut i = at + 5;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let word_start = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if i > at + 5 && text[i..].starts_with("_out") {
            let end = i + 4;
            let word_end = end == bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
            if word_start && word_end {
                out.push((at, end));
            }
        }
        from = at + 5;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of every span with `role`.
    fn spans(prompt: &str, role: &str) -> Vec<String> {
        let mut chars = prompt.chars();
        recognise(prompt).into_iter().filter_map(|(r, n)| {
            let text: String = chars.by_ref().take(n as usize).collect();
            (r == role).then_some(text)
        }).collect()
    }

    const CHAIN: &str = "Solve all tasks below. Box each answer, for example \\boxed{task_1_out = ...}.\n\nInitial Conditions:\ntask_1_input = -45\n\nTask 1:\nLet val_1 be the result of preprocessing task_1_input as follows - add 1 to it.\nFor each integer i from 1 to val_1, compute phi(i).\nCompute the sequence of these values and call that sequence task_1_out.\n\nTask 2:\nLet list_2 be the result of preprocessing task_1_out as follows - keep the sign.\nIf list_2 has more than 10 elements, keep only the first 10 elements.\nDefine seq2_2 = [4, -1, -5].\nCompute the convolution of list_2 and seq2_2. Call the result task_2_out.\n";

    #[test]
    fn every_character_gets_a_role() {
        let roles = recognise(CHAIN);
        assert_eq!(roles.iter().map(|(_, n)| *n as usize).sum::<usize>(), CHAIN.chars().count());
        assert!(roles.windows(2).all(|w| w[0].0 != w[1].0), "runs are merged");
        assert!(recognise("").is_empty());
        let unicode = "Task 1:\nA café costs €3. Call it task_1_out.\n";
        assert_eq!(recognise(unicode).iter().map(|(_, n)| *n as usize).sum::<usize>(), unicode.chars().count());
    }

    #[test]
    fn output_names_values_and_adapters_are_recognised() {
        assert_eq!(spans(CHAIN, "output_name"), ["task_1_out", "task_1_out", "task_1_out", "task_2_out"]);
        assert_eq!(spans(CHAIN, "input_value"), ["-45", "[4, -1, -5]"]);
        let adapters = spans(CHAIN, "adapter");
        assert!(adapters[0].starts_with("Let val_1 be the result of preprocessing"), "{adapters:?}");
        assert!(adapters.iter().any(|a| a == "If list_2 has more than 10 elements, keep only the first 10 elements."), "{adapters:?}");
        let computation = spans(CHAIN, "computation").concat();
        assert!(computation.contains("compute phi(i)") && !computation.contains("Solve all tasks"));
        assert!(spans(CHAIN, "instruction").concat().contains("Task 2:\n"));
    }

    #[test]
    fn branch_splits_and_recombinations_are_adapters() {
        let prompt = "Task 2:\nCall this list task_2_out.\n\nThe first 2 elements of task_2_out are the inputs of the branches that follow.\nDefine task_3_input = task_2_out[0].\n\nBuild task_7_input from task_7_input_prelim by repeating it.\ntask_7_input = [task_4_out, task_6_out * 2 + 1].\n";
        let adapters = spans(prompt, "adapter").concat();
        assert!(adapters.contains("are the inputs") && adapters.contains("Define task_3_input = ") && adapters.contains("Build task_7_input"), "{adapters}");
        assert!(spans(prompt, "input_value").is_empty(), "values computed from outputs are not inputs");
        assert_eq!(spans(prompt, "output_name").len(), 5);
    }

    #[test]
    fn python_code_is_computation_and_statics_are_inputs() {
        let prompt = "Define task_1_input = [3, 1].\nDefine task_1_k_static = 2.\nTask 1:\nTrace the execution of task_1 and save the result in task_1_out.\n```python\ndef task_1(list_1):\n    task_1_out = 1\n    return task_1_out\n```\n";
        assert_eq!(spans(prompt, "input_value"), ["[3, 1]", "2"]);
        assert_eq!(spans(prompt, "output_name"), ["task_1_out"], "names inside code stay code");
        assert!(spans(prompt, "computation").concat().starts_with("```python\ndef task_1"));
        assert!(spans(prompt, "instruction").concat().contains("Trace the execution of task_1"));
        assert!(output_names("xtask_1_out task_12_outer task_3_out").len() == 1);
    }

    #[test]
    fn a_longer_fence_is_closed_only_by_one_as_long() {
        let prompt = "Task 1:\nTrace it, save as task_1_out.\n````python\ns = \"\"\"\n```\n\"\"\"\ntask_1_out = 1\n````\nSolve all tasks and name task_1_out.\n";
        let code = spans(prompt, "computation").concat();
        assert!(code.contains("````python\ns = \"\"\"\n```\n\"\"\"\ntask_1_out = 1\n````\n"), "{code}");
        assert_eq!(spans(prompt, "output_name"), ["task_1_out", "task_1_out"], "the names outside the block");
    }
}
