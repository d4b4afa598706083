//! The harness's own words: system prompt, calculator description and the repair messages (same content as
//! reference harness asks for, written for this project).

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You solve multi-step problems carefully and have a calculator tool. \
Do every arithmetic operation with the calculator, without exception; never compute numbers in your head. \
Send several independent expressions together in a single calculator call whenever you can. \
Keep lists complete: do not shorten or abbreviate them unless a task tells you to. \
Work step by step, and give each requested result in a separate \\boxed{} that contains the exact output name, \
like \\boxed{task_1_out = ...}.";

/// The calculator's description in the tool schema.
pub const CALCULATOR_DESCRIPTION: &str = "Evaluates arithmetic expressions written in Python syntax (integers, floats, + - * / // % ** and parentheses). Pass as many independent expressions as possible in one call.";

/// The description of the `expressions` parameter.
pub const EXPRESSIONS_DESCRIPTION: &str = "The expressions to evaluate, e.g. ['17 * 43 + 5', '100 // 7']; one result per expression, in order.";

/// The description of the legacy `expression` parameter.
pub const EXPRESSION_DESCRIPTION: &str = "A single expression (prefer `expressions`).";

/// The description of the optional `requirements` parameter (origin declarations for the `acg` strategy).
pub const REQUIREMENTS_DESCRIPTION: &str = "Optional: the names of the requested results this call works towards, e.g. ['task_3_out'].";

/// Sent when the model answered without ever calling the calculator.
pub fn no_tool_call() -> String {
    "You have not used the calculator yet, and it is required. Reply now with one complete calculator call and nothing \
else: use the `expressions` parameter with one to three short arithmetic expressions, write no explanation, no Markdown \
and no final answer, and close every tag you open."
        .to_string()
}

/// Sent when a tool call could not be read (or called an unknown tool).
pub fn malformed_tool_call() -> String {
    "Your last tool call could not be understood. Reply now with one complete, well-formed calculator call and nothing \
else: use the `expressions` parameter with one to three short arithmetic expressions, write no explanation, no Markdown \
and no final answer, and close every tag you open."
        .to_string()
}

/// Sent when some requested outputs have no boxed answer yet; lists only those names.
pub fn missing_answers(missing: &[&str]) -> String {
    let boxes: Vec<String> = missing.iter().map(|name| format!("\\boxed{{{name} = ...}}")).collect();
    format!(
        "Some requested results still have no boxed answer: {}. Carry on from where you are; do not start over. \
Give each of them as {}. The name must be inside the box: a name written outside a box does not count. \
You may also correct earlier answers; only the most recent box for each name is kept. \
Use the calculator if you still need to compute something.",
        missing.join(", "),
        boxes.join(", ")
    )
}

/// Sent when the previous reply hit the token limit.
pub fn cut_off(missing: &[&str]) -> String {
    let target = if missing.is_empty() { "the boxed task_N_out answers".to_string() } else { format!("the boxed answers for {}", missing.join(", ")) };
    format!(
        "Your previous reply was cut off at the length limit. Continue exactly where it stopped; do not restart and do \
not repeat what you already wrote. Be brief and work towards {target}, calling the calculator if you need it."
    )
}

/// The header of the execution-record view sent by the `acg-lite` strategy.
pub const ACG_HEADER: &str = "Progress so far (kept by the harness from your earlier turns; the task statement above is unchanged):";

/// The header of the evidence view sent by the `acg` strategy.
pub const ACG_VIEW_HEADER: &str =
    "Evidence from your earlier turns, grouped by the requested result it serves (selected by the harness; the task statement above is unchanged):";

/// The header of the dependency view sent by the `graph` strategy.
pub const GRAPH_HEADER: &str = "Progress so far (kept by the harness; the task statement above is unchanged):";

/// What replaces an older tool result under observation masking.
pub const MASK_PLACEHOLDER: &str = "[older tool result omitted by the harness to save space]";

/// The system prompt of a summary call.
pub const SUMMARY_SYSTEM_PROMPT: &str = "You condense the work log of an assistant that is solving a multi-step problem, so that it can \
carry on without the log. Keep every result it has already obtained exactly as written, above all each \
task_N_out value, and say which task it was working on last. Do not solve anything yourself.";

/// What stands for a summary call that returned nothing.
pub const EMPTY_SUMMARY: &str = "(the summary of the earlier turns came back empty)";

/// The user message of a summary call: the task statement, the previous summary, the turns to fold.
pub fn summary_request(task: &str, previous: Option<&str>, history: &str) -> String {
    let previous = match previous {
        Some(text) => format!("Summary of the turns before these:\n{text}\n\n"),
        None => String::new(),
    };
    format!(
        "The problem statement, for reference:\n<problem>\n{task}\n</problem>\n\n{previous}The turns to condense:\n<log>\n{history}</log>\n\n\
Write the summary now: the results obtained so far (name = value, exactly as written), and where the work stands."
    )
}

/// The message that replaces summarised turns in later requests.
pub fn summary_message(summary: &str) -> String {
    format!("Summary of your earlier turns (written by a summarisation call; those turns are no longer shown):\n{summary}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_answer_message_lists_only_the_missing_names() {
        let message = missing_answers(&["task_2_out", "task_4_out"]);
        assert!(message.contains("task_2_out, task_4_out"));
        assert!(message.contains("\\boxed{task_4_out = ...}"));
        assert!(!message.contains("task_1_out"));
    }

    #[test]
    fn the_system_prompt_asks_for_the_calculator_and_labelled_boxes() {
        assert!(SYSTEM_PROMPT.contains("calculator"));
        assert!(SYSTEM_PROMPT.contains("\\boxed{task_1_out = ...}"));
    }

    #[test]
    fn the_cut_off_message_names_the_open_outputs() {
        assert!(cut_off(&["task_3_out"]).contains("task_3_out"));
        assert!(cut_off(&[]).contains("task_N_out"));
    }
}
