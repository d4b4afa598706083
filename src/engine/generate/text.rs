//! The shared wording of generated prompts: preambles, the initial-conditions section and the adapter
//! paragraphs between tasks. Our own words; the exact tokens (`task_N_input`, `task_N_out`, `\boxed{...}`)
//! are the reference's.

use crate::engine::prompt::{Prompt, Role};
use crate::engine::tasks::StaticInput;
use crate::engine::value::{Number, Value};

const BOX_EXAMPLE: &str = "\\boxed{task_1_out = ...}";

/// Preamble of forgetting prompts: independent blocks.
pub fn forgetting_preamble() -> Prompt {
    let mut p = Prompt::new();
    p.push(Role::Instruction, "Work through every task below, in order, and show your reasoning. ");
    p.push(Role::Instruction, "Each Task N block stands on its own: its names, symbols and definitions apply only inside that block. ");
    p.push(Role::Instruction, "Give each answer in its own box with the exact output name written inside the box, for example ");
    p.push(Role::OutputName, BOX_EXAMPLE);
    p.push(Role::Instruction, ".");
    p
}

/// Preamble of chain prompts.
pub fn chain_preamble() -> Prompt {
    let mut p = Prompt::new();
    p.push(Role::Instruction, "Work through every task below. Each task after the first uses the output of the task before it. ");
    p.push(Role::Instruction, "Give each answer in its own box with the exact requested output name inside the box, for example ");
    p.push(Role::OutputName, BOX_EXAMPLE);
    p.push(Role::Instruction, ".");
    p
}

/// Preamble of multichain and custom-graph prompts.
pub fn graph_preamble() -> Prompt {
    let mut p = Prompt::new();
    p.push(Role::Instruction, "Work through every task below. Some tasks take their input from the outputs of earlier tasks, as their definitions say. ");
    p.push(Role::Instruction, "Give each answer in its own box with the exact requested output name inside the box, for example ");
    p.push(Role::OutputName, BOX_EXAMPLE);
    p.push(Role::Instruction, ".");
    p
}

/// A section of `name = value` lines under a title (`Initial Conditions:`, `Static Inputs:`).
pub fn conditions(title: &str, lines: &[(String, Value)]) -> Prompt {
    let mut p = Prompt::new();
    p.push(Role::Instruction, &format!("{title}\n"));
    for (name, value) in lines {
        p.push(Role::Instruction, &format!("{name} = "));
        p.push(Role::InputValue, &value.repr());
        p.push(Role::Instruction, "\n");
    }
    p
}

/// The `task_N_<param>_static` lines of a stage, as (name, value).
pub fn static_lines(number: usize, statics: &[StaticInput]) -> Vec<(String, Value)> {
    statics.iter().map(|s| (format!("task_{number}_{}_static", s.param), s.value.clone())).collect()
}

/// `Define name = value.` lines (baseline and forgetting blocks).
pub fn define_lines(prompt: &mut Prompt, lines: &[(String, Value)]) {
    for (name, value) in lines {
        prompt.push(Role::Instruction, &format!("Define {name} = "));
        prompt.push(Role::InputValue, &value.repr());
        prompt.push(Role::Instruction, ".\n");
    }
}

/// After a list-producing task: its first elements become branch inputs.
pub fn expansion_paragraph(source: &str, inputs: &[String]) -> Prompt {
    let mut p = Prompt::new();
    p.push(Role::Adapter, &format!("The first {} elements of {source} are the inputs of the branches that follow.\n", inputs.len()));
    for (i, name) in inputs.iter().enumerate() {
        p.push(Role::Adapter, &format!("Define {name} = {source}[{i}].\n"));
    }
    p
}

/// `Define name = source[index].` (a pick adapter).
pub fn pick_line(name: &str, source: &str, index: i64) -> Prompt {
    let mut p = Prompt::new();
    p.push(Role::Adapter, &format!("Define {name} = {source}[{index}]."));
    p
}

/// The recombination formula as text: `[a, b, a * 2 + 1, b * 2 + 1, …]` up to 10 elements.
pub fn recombination_formula(parts: &[String]) -> String {
    let items: Vec<String> = (0..10)
        .map(|k| {
            let part = &parts[k % parts.len()];
            let m = k / parts.len() + 1;
            if m == 1 {
                part.clone()
            } else {
                format!("{part} * {m} + {}", m - 1)
            }
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// After a branch block (`with_prelim`) or for a pack adapter: how scalars are recombined into a 10-element list.
pub fn recombination_paragraph(name: &str, parts: &[String], with_prelim: bool) -> Prompt {
    let mut p = Prompt::new();
    if with_prelim {
        p.push(Role::Adapter, &format!("Define {name}_prelim = [{}].\n", parts.join(", ")));
        p.push(
            Role::Adapter,
            &format!(
                "Build {name} from {name}_prelim by repeating it until there are 10 elements: copy m (m = 1, 2, …) replaces each element x by x * m + (m - 1), so the first copy is unchanged and the second is x * 2 + 1.\n"
            ),
        );
        p.push(Role::Adapter, &format!("{name} = {}.", recombination_formula(parts)));
    } else {
        p.push(Role::Adapter, &format!("Define {name} as the following list:\n{name} = {}.", recombination_formula(parts)));
    }
    p
}

/// `join_blocks` for blocks the caller no longer needs: each is appended and dropped in turn instead of being
/// cloned, so a long chain's prompt is not held twice.
pub fn join_owned(blocks: Vec<Prompt>) -> Prompt {
    let mut out = Prompt::new();
    for (i, mut block) in blocks.into_iter().enumerate() {
        if i > 0 {
            out.push(Role::Instruction, "\n\n");
        }
        block.trim_end();
        out.append(&block);
    }
    out.push(Role::Instruction, "\n");
    out
}

/// The recombination rule on values: element k is `m·b[k mod B] + (m − 1)` with `m = k / B + 1`, 10 elements.
pub fn recombine(parts: &[Number]) -> Vec<Number> {
    (0..10)
        .map(|k| {
            let m = (k / parts.len() + 1) as i64;
            match parts[k % parts.len()] {
                Number::Int(x) => Number::Int(x.saturating_mul(m).saturating_add(m - 1)),
                Number::Float(x) => Number::Float(x * m as f64 + (m - 1) as f64),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recombination_repeats_transformed_copies() {
        let out = recombine(&[Number::Int(10), Number::Int(1351)]);
        let ints: Vec<i64> = out.iter().map(|n| match n {
            Number::Int(i) => *i,
            Number::Float(_) => unreachable!("ints stay ints"),
        }).collect();
        // The reference's stored multichain example: [10, 1351] → [10, 1351, 21, 2703, 32, 4055, 43, 5407, 54, 6759].
        assert_eq!(ints, vec![10, 1351, 21, 2703, 32, 4055, 43, 5407, 54, 6759]);
        assert_eq!(recombination_formula(&["a".into(), "b".into(), "c".into()]).matches("* 2 + 1").count(), 3);
    }

    #[test]
    fn joining_owned_blocks_gives_join_blocks() {
        let blocks: Vec<Prompt> = ["Task 1:\nx  \n\n", "", "  y", "z\n"]
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let mut p = Prompt::new();
                p.push(if i % 2 == 0 { Role::Computation } else { Role::Adapter }, text).push(Role::OutputName, "out ");
                p
            })
            .collect();
        let joined = join_owned(blocks.clone());
        assert_eq!(joined, crate::engine::prompt::join_blocks(&blocks));
        assert!(joined.text().contains("\n\n"));
    }
}

