//! Prompts as text with role spans: every character belongs to exactly one role, so the UI can colour a
//! prompt (instruction, input value, adapter, task computation, output name) while models get the plain text.

use std::ops::Range;

/// What a stretch of prompt text is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Headers, preambles and connective wording.
    Instruction,
    /// A concrete value given to the model (initial conditions, static parameters).
    InputValue,
    /// The preprocessing adapter: how a task turns its incoming value into its own input.
    Adapter,
    /// What the task computes (operator body, question text, code).
    Computation,
    /// The name the answer must be saved under (`task_N_out`) and the boxing request.
    OutputName,
}

impl Role {
    /// Stable lowercase name, used as a CSS class suffix and in exports.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Instruction => "instruction",
            Role::InputValue => "input_value",
            Role::Adapter => "adapter",
            Role::Computation => "computation",
            Role::OutputName => "output_name",
        }
    }
}

/// A prompt under construction or finished. Invariant: `spans` cover `text` contiguously, in order, without gaps,
/// and adjacent spans have different roles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prompt {
    text: String,
    spans: Vec<(Range<usize>, Role)>,
}

impl Prompt {
    /// An empty prompt.
    pub fn new() -> Prompt {
        Prompt::default()
    }

    /// Appends `text` with `role`.
    pub fn push(&mut self, role: Role, text: &str) -> &mut Prompt {
        if text.is_empty() {
            return self;
        }
        let start = self.text.len();
        self.text.push_str(text);
        let end = self.text.len();
        match self.spans.last_mut() {
            Some((range, last)) if *last == role => range.end = end,
            _ => self.spans.push((start..end, role)),
        }
        self
    }

    /// Appends another prompt, keeping its roles.
    pub fn append(&mut self, other: &Prompt) -> &mut Prompt {
        for (range, role) in &other.spans {
            self.push(*role, &other.text[range.clone()]);
        }
        self
    }

    /// Removes trailing whitespace (the reference right-strips every block before joining).
    pub fn trim_end(&mut self) -> &mut Prompt {
        let keep = self.text.trim_end().len();
        self.text.truncate(keep);
        while let Some((range, _)) = self.spans.last_mut() {
            if range.start >= keep {
                self.spans.pop();
            } else {
                range.end = range.end.min(keep);
                break;
            }
        }
        self
    }

    /// The plain text sent to models.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Consumes the prompt, returning the plain text.
    pub fn into_text(self) -> String {
        self.text
    }

    /// The role spans, as byte ranges into `text()`.
    pub fn spans(&self) -> &[(Range<usize>, Role)] {
        &self.spans
    }

    /// Iterates `(role, text)` pieces in order.
    pub fn pieces(&self) -> impl Iterator<Item = (Role, &str)> {
        self.spans.iter().map(|(range, role)| (*role, &self.text[range.clone()]))
    }
}

/// Joins blocks with one blank line, right-stripping each block, and ends with a single newline.
pub fn join_blocks(blocks: &[Prompt]) -> Prompt {
    let mut out = Prompt::new();
    for (i, block) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(Role::Instruction, "\n\n");
        }
        let mut block = block.clone();
        block.trim_end();
        out.append(&block);
    }
    out.push(Role::Instruction, "\n");
    out
}

/// The fence for a code block that holds `code`: three backticks, or one more than its longest run of backticks
/// (as CommonMark allows), so that no line of the code, a string literal full of backticks included, can close
/// the block early.
fn code_fence(code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// `code` in a block fenced with info string `lang`, ending with a newline after the closing fence.
pub fn fence_code(lang: &str, code: &str) -> String {
    let fence = code_fence(code);
    let newline = if code.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{lang}\n{code}{newline}{fence}\n")
}

/// The length of the run of backticks that opens `line`, if it is a fence (three or more).
pub fn fence_length(line: &str) -> Option<usize> {
    let ticks = line.len() - line.trim_start_matches('`').len();
    (ticks >= 3).then_some(ticks)
}

/// Whether `line` closes a block opened by a fence of `open` backticks: a line of backticks alone, at least as
/// many (the code inside may hold shorter runs).
pub fn closes_fence(line: &str, open: usize) -> bool {
    let line = line.trim();
    fence_length(line).is_some_and(|ticks| ticks >= open && ticks == line.len())
}

/// The code of the first block of `text` fenced with info string `lang`, as [`fence_code`] writes it: the lines
/// after the opening fence up to a line holding only that fence or a longer one.
pub fn fenced_code<'a>(text: &'a str, lang: &str) -> Option<&'a str> {
    let mut at = 0;
    let mut open: Option<(usize, usize)> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match open {
            None => match fence_length(bare) {
                Some(ticks) if bare[ticks..].trim() == lang => open = Some((ticks, at + line.len())),
                _ => {}
            },
            Some((fence, from)) if closes_fence(bare, fence) => return Some(&text[from..at]),
            Some(_) => {}
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_the_text_and_merge_equal_roles() {
        let mut prompt = Prompt::new();
        prompt.push(Role::Instruction, "Task 1:\n").push(Role::Instruction, "Let ").push(Role::Adapter, "val_1");
        prompt.push(Role::OutputName, "task_1_out  \n");
        prompt.trim_end();
        assert_eq!(prompt.text(), "Task 1:\nLet val_1task_1_out");
        let roles: Vec<_> = prompt.pieces().collect();
        assert_eq!(roles, vec![(Role::Instruction, "Task 1:\nLet "), (Role::Adapter, "val_1"), (Role::OutputName, "task_1_out")]);
        let covered: usize = prompt.spans().iter().map(|(r, _)| r.len()).sum();
        assert_eq!(covered, prompt.text().len());
    }

    #[test]
    fn join_blocks_separates_with_one_blank_line() {
        let mut a = Prompt::new();
        a.push(Role::Computation, "a\n\n");
        let mut b = Prompt::new();
        b.push(Role::Computation, "b");
        assert_eq!(join_blocks(&[a, b]).text(), "a\n\nb\n");
    }

    #[test]
    fn code_fences_outgrow_the_backticks_inside_the_code() {
        assert_eq!(fence_code("python", "x = 1\n"), "```python\nx = 1\n```\n");
        assert_eq!(fence_code("python", "x = 1"), "```python\nx = 1\n```\n");
        let code = "s = 'a```b'\nt = '`````'\n";
        let block = fence_code("python", code);
        assert!(block.starts_with("``````python\n") && block.ends_with("\n``````\n"), "{block}");
        let text = format!("Task 1:\nTrace this.\n{block}\nTask 2:\n```python\ny = 2\n```\n");
        assert_eq!(fenced_code(&text, "python"), Some(code));
        // A line of the code that is only a shorter run of backticks does not close the block.
        let tricky = "s = \"\"\"\n```\n\"\"\"\n";
        assert_eq!(fenced_code(&fence_code("python", tricky), "python"), Some(tricky));
        assert_eq!(fenced_code("```python\nunclosed\n", "python"), None);
        assert_eq!(fenced_code("```json\n{}\n```\n", "python"), None);
    }
}
