//! The probe: a deterministic stand-in for a model that measures exactly what a context strategy lets a model
//! see. It plays a perfect solver with amnesia: it knows every task's truth from the dataset, remembers nothing
//! between requests, and answers a task correctly only if the values the task reads (its predecessors'
//! answers) are visible, and correct, somewhere in the messages it was sent. Otherwise its answer is wrong (a
//! visible wrong value propagates; a lost value gives a perturbed truth). It works like an agent: one calculator
//! call per task declaring the requirement it serves, the box after the result, repairs obeyed, optional noise
//! turns (long reasoning and irrelevant calls) between tasks, and it condenses logs when a summary call (a
//! request without tools) asks it to. Its own turns carry a progress line (`Working on task_3_out.`, `Side check
//! 1 of 2; task_4_out comes next.`), which is all the state it reads back.
//!
//! Pure: `arbigraph probe-server` wraps it in HTTP; tests call it directly.

use super::chat::{ChatReply, Message, ReplyToolCall, Role, ToolArguments, Usage};
use super::strategy::{dependencies, requirements_of};
use crate::engine::grade::collect::boxed_contents;
use crate::engine::grade::{grade_value, SampleSpec, SpecError};
use crate::engine::literal::{parse_literal, Literal};
use crate::engine::value::python_float_repr;
use serde_json::{json, Value};
use crate::engine::sort;

/// How the probe behaves beyond solving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeOptions {
    /// Noise turns between one task's answer and the next task's call.
    pub noise_turns: u32,
    /// Characters of filler reasoning per noise turn (its calculator result is about as long).
    pub noise_chars: usize,
}

impl Default for ProbeOptions {
    fn default() -> ProbeOptions {
        ProbeOptions { noise_turns: 0, noise_chars: 1_200 }
    }
}

/// Whether the probe's calculator calls declare the requirement they serve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Declarations {
    /// Every task's call lists its output name under `requirements` (the default).
    #[default]
    Declared,
    /// Calls carry expressions only, as real models write them (the `requirements` argument is optional).
    Undeclared,
}

/// Why the probe cannot answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("the dataset has no samples")]
    NoSamples,
    #[error("dataset sample {index}: {source}")]
    Sample { index: usize, source: SpecError },
    #[error("the request's first user message does not start with the prompt of any dataset sample")]
    UnknownPrompt,
    #[error("the request has no user message")]
    NoUserMessage,
}

/// One task of a sample as the probe knows it.
#[derive(Clone, Debug, PartialEq)]
struct Task {
    name: String,
    truth: Option<Literal>,
    reads: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
struct ProbeSample {
    prompt: String,
    tasks: Vec<Task>,
}

/// The probe over a dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    samples: Vec<ProbeSample>,
    options: ProbeOptions,
    declarations: Declarations,
}

const WORKING: &str = "Working on ";
const SIDE_CHECK: &str = "Side check ";
const FILLER: &str = "Before going on I double-check the bookkeeping of the earlier steps and restate the plan in my own words. ";

impl Probe {
    /// A probe over dataset samples (reference layout: prompts, truths, stage records).
    pub fn new(samples: &[Value], options: ProbeOptions) -> Result<Probe, ProbeError> {
        if samples.is_empty() {
            return Err(ProbeError::NoSamples);
        }
        let mut out = Vec::with_capacity(samples.len());
        for (index, sample) in samples.iter().enumerate() {
            let spec = SampleSpec::from_json(sample, index).map_err(|source| ProbeError::Sample { index, source })?;
            let deps = dependencies(&spec, &requirements_of(&spec.prompt, &spec.expected));
            let tasks = deps
                .into_iter()
                .map(|(name, reads)| Task { truth: spec.nodes.iter().find(|n| n.name == name).map(|n| n.truth.clone()), name, reads })
                .collect();
            out.push(ProbeSample { prompt: spec.prompt, tasks });
        }
        Ok(Probe { samples: out, options, declarations: Declarations::Declared })
    }

    /// The same probe, its calls declaring requirements or not.
    pub fn with_declarations(mut self, declarations: Declarations) -> Probe {
        self.declarations = declarations;
        self
    }

    /// The reply to a request: a turn when tools are offered, a summary when none are.
    pub fn respond(&self, messages: &[Message], tools: bool, max_tokens: Option<u32>) -> Result<ChatReply, ProbeError> {
        let mut reply = if tools { self.turn(messages)? } else { summarise(messages, max_tokens) };
        reply.usage = Usage {
            prompt_tokens: Some(messages.iter().map(|m| 4 + probe_tokens(&m.content) + m.tool_calls.iter().map(|c| probe_tokens(&c.arguments)).sum::<u64>()).sum()),
            completion_tokens: Some(
                probe_tokens(&reply.content)
                    + reply.tool_calls.iter().map(|c| if let ToolArguments::Text(t) = &c.arguments { probe_tokens(t) } else { 0 }).sum::<u64>(),
            ),
            ..Usage::default()
        };
        Ok(reply)
    }

    fn sample_of(&self, messages: &[Message]) -> Result<&ProbeSample, ProbeError> {
        let user = messages.iter().find(|m| m.role == Role::User).ok_or(ProbeError::NoUserMessage)?;
        self.samples.iter().filter(|s| user.content.starts_with(&s.prompt)).max_by_key(|s| s.prompt.len()).ok_or(ProbeError::UnknownPrompt)
    }

    fn turn(&self, messages: &[Message]) -> Result<ChatReply, ProbeError> {
        let sample = self.sample_of(messages)?;
        let visible = visible_text(messages);
        let Some(last) = messages.iter().rposition(|m| m.role == Role::Assistant) else {
            return Ok(self.call_turn(sample, 0, &visible, String::new()));
        };
        let own = &messages[last].content;
        let after = &messages[last + 1..];
        if let Some(repair) = after.iter().rev().find(|m| m.role == Role::User) {
            let text = repair.content.as_str();
            if text.contains("still have no boxed answer") {
                let names: Vec<&str> = sample.tasks.iter().map(|t| t.name.as_str()).filter(|n| text.split("Give each").next().unwrap_or("").contains(n)).collect();
                return Ok(text_reply(box_in_order(sample, &names, visible)));
            }
            if text.contains("calculator") && (text.contains("not used") || text.contains("could not be understood")) {
                let current = current_task(sample, own, &visible);
                return Ok(self.call_turn(sample, current, &visible, String::new()));
            }
        }
        match last_marker(own) {
            Some(Marker::Working(name)) => match sample.tasks.iter().position(|t| t.name == name) {
                Some(i) if after.iter().any(|m| m.role == Role::Tool) => Ok(self.answer_turn(sample, i, own, &visible)),
                Some(i) => Ok(self.call_turn(sample, i, &visible, String::new())),
                None => Ok(self.call_turn(sample, current_task(sample, own, &visible), &visible, String::new())),
            },
            Some(Marker::Side { done, of, next }) => {
                let i = sample.tasks.iter().position(|t| t.name == next).unwrap_or_else(|| current_task(sample, own, &visible));
                if done < of {
                    Ok(self.noise_turn(sample, i, done + 1, String::new()))
                } else {
                    Ok(self.call_turn(sample, i, &visible, String::new()))
                }
            }
            None => {
                let i = current_task(sample, own, &visible);
                if i >= sample.tasks.len() {
                    let names: Vec<&str> = sample.tasks.iter().map(|t| t.name.as_str()).collect();
                    return Ok(text_reply(box_in_order(sample, &names, visible)));
                }
                Ok(self.call_turn(sample, i, &visible, String::new()))
            }
        }
    }

    /// Task `i`'s call: the inputs as seen restated, a calculator call declaring the requirement.
    fn call_turn(&self, sample: &ProbeSample, i: usize, visible: &str, prefix: String) -> ChatReply {
        let Some(task) = sample.tasks.get(i) else { return text_reply(prefix) };
        let seen = inputs_seen(task, visible);
        let inputs = if task.reads.is_empty() {
            "from the problem statement".to_string()
        } else {
            seen.iter().map(|(name, value)| format!("{name} = {}", value.as_deref().unwrap_or("unknown"))).collect::<Vec<_>>().join("; ")
        };
        let value = answer_value(sample, task, &seen);
        let expressions = expressions_for(&value);
        let content = format!("{prefix}{WORKING}{}. Inputs: {inputs}.", task.name);
        let arguments = match self.declarations {
            Declarations::Declared => json!({"expressions": expressions, "requirements": [task.name]}),
            Declarations::Undeclared => json!({"expressions": expressions}),
        };
        calculator_reply(content, arguments, &format!("probe_{i}"))
    }

    /// Task `i`'s box (from the inputs its own call turn restated), then the next task's call or a noise turn.
    fn answer_turn(&self, sample: &ProbeSample, i: usize, own: &str, visible: &str) -> ChatReply {
        let task = &sample.tasks[i];
        let restated: Vec<(String, Option<String>)> = task.reads.iter().map(|p| (p.clone(), binding(own, p))).collect();
        let boxed = format!("\\boxed{{{} = {}}}\n", task.name, answer_value(sample, task, &restated));
        if i + 1 >= sample.tasks.len() {
            return text_reply(boxed.trim_end().to_string());
        }
        if self.options.noise_turns > 0 {
            return self.noise_turn(sample, i + 1, 1, boxed);
        }
        // The box just written is in view of the next task's call, which shares the message.
        let visible = format!("{visible}\n{boxed}");
        self.call_turn(sample, i + 1, &visible, boxed)
    }

    /// Noise turn `k` before task `next`: filler reasoning and an irrelevant calculator call with a long result.
    fn noise_turn(&self, sample: &ProbeSample, next: usize, k: u32, prefix: String) -> ChatReply {
        let name = sample.tasks.get(next).map(|t| t.name.as_str()).unwrap_or("the end");
        let filler: String = FILLER.chars().cycle().take(self.options.noise_chars).collect();
        let content = format!("{prefix}{filler}\n{SIDE_CHECK}{k} of {}; {name} comes next.", self.options.noise_turns);
        let count = (self.options.noise_chars / 250).max(1);
        let expressions: Vec<String> = (0..count).map(|j| format!("{} ** 211", 7 + 2 * (j + k as usize))).collect();
        calculator_reply(content, json!({"expressions": expressions}), &format!("noise_{next}_{k}"))
    }
}

/// Boxes for `names` in task order, each computed from what is in view plus the boxes written before it.
fn box_in_order(sample: &ProbeSample, names: &[&str], mut visible: String) -> String {
    let mut boxes = Vec::new();
    for task in sample.tasks.iter().filter(|t| names.contains(&t.name.as_str())) {
        let line = format!("\\boxed{{{} = {}}}", task.name, answer_value(sample, task, &inputs_seen(task, &visible)));
        visible.push_str(&line);
        visible.push('\n');
        boxes.push(line);
    }
    boxes.join("\n")
}

enum Marker {
    Working(String),
    Side { done: u32, of: u32, next: String },
}

/// The probe's last progress line in its own message.
fn last_marker(text: &str) -> Option<Marker> {
    let working = text.rfind(WORKING);
    let side = text.rfind(SIDE_CHECK);
    if side.is_some_and(|s| working.is_none_or(|w| s > w)) {
        let rest = &text[side? + SIDE_CHECK.len()..];
        let (done, rest) = rest.split_once(" of ")?;
        let (of, rest) = rest.split_once("; ")?;
        let next = rest.split_whitespace().next()?.to_string();
        return Some(Marker::Side { done: done.trim().parse().ok()?, of: of.trim().parse().ok()?, next });
    }
    let rest = &text[working? + WORKING.len()..];
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(Marker::Working(name))
}

/// Where to go on without a progress line: the first task after the latest one boxed anywhere in view.
fn current_task(sample: &ProbeSample, own: &str, visible: &str) -> usize {
    let boxed: Vec<String> = boxed_contents(visible).iter().chain(boxed_contents(own).iter()).filter_map(|b| b.split('=').next().map(|n| n.trim().to_string())).collect();
    sample.tasks.iter().rposition(|t| boxed.contains(&t.name)).map(|i| i + 1).unwrap_or(0)
}

/// Every message's content and tool-call arguments, in order.
fn visible_text(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str(&m.content);
        out.push('\n');
        for c in &m.tool_calls {
            out.push_str(&c.arguments);
            out.push('\n');
        }
    }
    out
}

/// The value of the last `name = <literal>` binding in `text`, as written.
pub fn binding(text: &str, name: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut found = None;
    for (at, _) in text.match_indices(name) {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = text[at + name.len()..].trim_start_matches(' ');
        let Some(rest) = rest.strip_prefix('=') else { continue };
        if let Some(value) = literal_prefix(rest.trim_start()) {
            found = Some(value);
        }
    }
    found
}

/// The Python literal at the start of `text`, if one is there.
fn literal_prefix(text: &str) -> Option<String> {
    let end = if text.starts_with(['[', '(']) {
        let mut depth = 0i32;
        let mut end = None;
        for (i, c) in text.char_indices() {
            match c {
                '[' | '(' => depth += 1,
                ']' | ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i + 1);
                        break;
                    }
                }
                '\n' => break,
                _ => {}
            }
        }
        end?
    } else {
        text.find(|c: char| c.is_whitespace() || matches!(c, '}' | ',' | ';' | ')' | ']')).unwrap_or(text.len())
    };
    let candidate = text[..end].trim_end_matches('.');
    parse_literal(candidate).ok().map(|_| candidate.to_string())
}

/// What the probe sees of each value `task` reads: the last binding in view, as written.
fn inputs_seen(task: &Task, visible: &str) -> Vec<(String, Option<String>)> {
    task.reads.iter().map(|p| (p.clone(), binding(visible, p))).collect()
}

/// The truth when every input was seen and is right (by the grader's rules); otherwise a wrong value.
fn answer_value(sample: &ProbeSample, task: &Task, seen: &[(String, Option<String>)]) -> String {
    let Some(truth) = &task.truth else { return "0".to_string() };
    let right = seen.iter().all(|(name, value)| {
        let Some(value) = value else { return false };
        match sample.tasks.iter().find(|t| t.name == *name).and_then(|t| t.truth.as_ref()) {
            Some(expected) => grade_value(value, expected),
            None => true,
        }
    });
    if right {
        render(truth)
    } else {
        render(&perturb(truth))
    }
}

fn render(value: &Literal) -> String {
    match value {
        Literal::Int(i) => i.to_string(),
        Literal::Float(x) => python_float_repr(*x),
        Literal::Bool(true) => "True".into(),
        Literal::Bool(false) => "False".into(),
        Literal::None | Literal::Other => "None".into(),
        Literal::Str(s) => format!("{s:?}"),
        Literal::List(items) => format!("[{}]", items.iter().map(render).collect::<Vec<_>>().join(", ")),
        Literal::Tuple(items) if items.len() == 1 => format!("({},)", render(&items[0])),
        Literal::Tuple(items) => format!("({})", items.iter().map(render).collect::<Vec<_>>().join(", ")),
    }
}

/// A value that the grader never accepts for `truth`.
fn perturb(truth: &Literal) -> Literal {
    match truth {
        Literal::Int(i) => Literal::Int(i + 1),
        Literal::Float(x) => Literal::Float(x + 1.0),
        Literal::List(items) if !items.is_empty() => {
            let mut items = items.clone();
            items[0] = perturb(&items[0]);
            Literal::List(items)
        }
        Literal::List(_) => Literal::List(vec![Literal::Int(1.into())]),
        Literal::Bool(b) => Literal::Bool(!b),
        _ => Literal::Int(0.into()),
    }
}

/// Calculator expressions that check an answer: its numbers, or a list's first element and length.
fn expressions_for(value: &str) -> Vec<String> {
    match parse_literal(value) {
        Ok(Literal::List(items)) => {
            let first = items.first().map(render).unwrap_or_else(|| "0".into());
            vec![format!("{first} + 0"), format!("{} * 1", items.len())]
        }
        Ok(Literal::Int(_) | Literal::Float(_)) => vec![format!("{value} + 0")],
        _ => vec!["1 + 1".to_string()],
    }
}

fn text_reply(content: String) -> ChatReply {
    ChatReply { content, finish_reason: Some("stop".into()), ..ChatReply::default() }
}

fn calculator_reply(content: String, arguments: Value, id: &str) -> ChatReply {
    ChatReply {
        content,
        tool_calls: vec![ReplyToolCall { id: id.to_string(), name: "calculator".into(), arguments: ToolArguments::Text(arguments.to_string()) }],
        finish_reason: Some("tool_calls".into()),
        ..ChatReply::default()
    }
}

/// A summary of a log: the probe's latest progress line and every `task_N_out = value` binding in the log (the
/// latest per name, in task order), cut at the completion limit like a real summariser's output.
fn summarise(messages: &[Message], max_tokens: Option<u32>) -> ChatReply {
    let text = visible_text(messages);
    let log = text.split("</problem>").last().unwrap_or(&text);
    let mut names: Vec<(u64, String)> = Vec::new();
    for (at, _) in log.match_indices("task_") {
        let rest = &log[at + 5..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || !rest[digits.len()..].starts_with("_out") {
            continue;
        }
        let name = format!("task_{digits}_out");
        if let Ok(n) = digits.parse::<u64>() {
            if !names.iter().any(|(_, existing)| *existing == name) {
                names.push((n, name));
            }
        }
    }
    sort::natural(&mut names);
    let progress = [log.rfind(WORKING), log.rfind(SIDE_CHECK)].into_iter().flatten().max().map(|at| log[at..].lines().next().unwrap_or("").to_string());
    let mut out = String::new();
    if let Some(line) = progress {
        out.push_str(&format!("Last progress line: {line}\n"));
    }
    out.push_str("Results so far:\n");
    for (_, name) in &names {
        if let Some(value) = binding(log, name) {
            out.push_str(&format!("- {name} = {value}\n"));
        }
    }
    let limit = u64::from(max_tokens.unwrap_or(u32::MAX));
    let mut cut = String::new();
    let mut truncated = false;
    for line in out.lines() {
        if probe_tokens(&cut) + probe_tokens(line) + 1 > limit {
            truncated = true;
            break;
        }
        cut.push_str(line);
        cut.push('\n');
    }
    ChatReply { content: cut.trim_end().to_string(), finish_reason: Some(if truncated { "length" } else { "stop" }.into()), ..ChatReply::default() }
}

/// The probe's token count: letter runs count one per 4 letters, digit runs one per 3 digits, every other
/// visible character one. Deliberately unlike the harness's characters/4, so calibration is exercised.
pub fn probe_tokens(text: &str) -> u64 {
    let mut tokens = 0u64;
    let mut run_kind = 0u8;
    let mut run_len = 0u64;
    let flush = |kind: u8, len: u64| match kind {
        1 => len.div_ceil(4),
        2 => len.div_ceil(3),
        _ => 0,
    };
    for c in text.chars() {
        let kind = if c.is_alphabetic() { 1 } else if c.is_ascii_digit() { 2 } else { 0 };
        if kind != run_kind {
            tokens += flush(run_kind, run_len);
            run_kind = kind;
            run_len = 0;
        }
        if kind == 0 {
            tokens += u64::from(!c.is_whitespace());
        } else {
            run_len += 1;
        }
    }
    tokens + flush(run_kind, run_len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::agent::strategy::Strategy;
    use crate::engine::agent::{run_to_end, AgentConfig, AgentError, AgentInput, Status};
    use crate::engine::grade::NodeStatus;

    fn chain_sample() -> Value {
        json!({
            "task_id": 0, "task_name": "T", "sample_idx": 0, "ground_truth": 9,
            "prompt": "Initial Conditions:\ntask_1_input = 3\n\nTask 1:\nAdd one to task_1_input; call it task_1_out.\n\nTask 2:\nDouble task_1_out; call it task_2_out.\n\nTask 3:\nAdd 1 to task_2_out; call it task_3_out.\n",
            "chain": {"target_task_number": 3,
                "distractors": [{"task_number": 1, "input_name": "task_1_input", "ground_truth": 4}, {"task_number": 2, "input_name": "task_1_out", "ground_truth": [8, 1]}],
                "target": {"task_number": 3, "input_name": "task_2_out", "ground_truth": 9}}
        })
    }

    fn probe(noise_turns: u32) -> Probe {
        Probe::new(&[chain_sample()], ProbeOptions { noise_turns, noise_chars: 300 }).expect("a valid dataset")
    }

    fn run(strategy: Strategy, noise: u32) -> crate::engine::agent::AgentRecord {
        let input = AgentInput::from_sample(&chain_sample(), 0).unwrap();
        let mut config = AgentConfig::for_topology("chain");
        config.strategy = strategy;
        let probe = probe(noise);
        run_to_end(&input, &config, |request| {
            probe.respond(&request.messages, !request.kind.is_auxiliary(), Some(request.max_tokens)).map_err(|e| AgentError::Request { reason: e.to_string() })
        })
    }

    #[test]
    fn with_everything_in_view_the_probe_solves_the_chain_like_an_agent() {
        let record = run(Strategy::default(), 0);
        assert_eq!(record.status, Status::Success);
        assert!(record.grade.nodes.iter().all(|(_, s)| *s == NodeStatus::Correct), "{:?}", record.grade.nodes);
        assert_eq!(record.tool_calls, 3, "one calculator call per task");
        assert_eq!(record.turns, 4);
        assert!(record.transcript[2].tool_calls[0].arguments.contains("\"requirements\":[\"task_1_out\"]"));
        assert!(record.transcript.iter().any(|m| m.content.contains("Inputs: task_1_out = 4.")));
        assert!(record.requests.iter().all(|r| r.reported_prompt_tokens.is_some()), "the probe reports usage");
    }

    #[test]
    fn a_value_out_of_view_is_answered_wrong_and_the_error_propagates() {
        let record = run(Strategy::parse("window:exchanges=1").expect("registered"), 2);
        assert_eq!(record.status, Status::Success);
        let nodes: Vec<NodeStatus> = record.grade.nodes.iter().map(|(_, s)| *s).collect();
        assert_eq!(nodes, vec![NodeStatus::Correct, NodeStatus::Wrong, NodeStatus::Wrong]);
        assert!(record.transcript.iter().any(|m| m.content.contains("Inputs: task_1_out = unknown.")));
        let same = run(Strategy::parse("window:exchanges=3").expect("registered"), 2);
        assert!(same.grade.nodes.iter().all(|(_, s)| *s == NodeStatus::Correct), "three exchanges span two noise turns");
        assert_eq!(run(Strategy::default(), 2).turns, 4 + 2 * 2, "two noise turns between tasks");
    }

    #[test]
    fn the_visibility_rule_reads_the_last_binding_and_checks_it() {
        let p = probe(0);
        let sample = &p.samples[0];
        let task = &sample.tasks[2];
        assert_eq!(task.reads, vec!["task_2_out".to_string()]);
        let seen = |text: &str| answer_value(sample, task, &inputs_seen(task, text));
        assert_eq!(seen("\\boxed{task_2_out = [8, 1]}"), "9");
        assert_eq!(seen("task_2_out = [8, 1] and later task_2_out = [7, 1]"), "10", "a wrong visible value propagates");
        assert_eq!(seen("task_2_out = [7, 1]; then task_2_out = ..."), "10", "placeholders are not values");
        assert_eq!(seen("nothing here"), "10");
        assert_eq!(binding("- task_2_out = 103 (your answer in turn 3)", "task_2_out").as_deref(), Some("103"));
        assert_eq!(binding("task_12_out = 5. Then xtask_2_out = 4", "task_2_out"), None);
        assert_eq!(binding("task_2_out = 2.5.", "task_2_out").as_deref(), Some("2.5"));
    }

    #[test]
    fn repairs_are_obeyed_and_unknown_prompts_are_refused() {
        let p = probe(0);
        let prompt = chain_sample()["prompt"].as_str().unwrap().to_string();
        let mut messages = vec![Message::new(Role::System, "s"), Message::new(Role::User, prompt), Message::new(Role::Assistant, "\\boxed{task_1_out = 4}")];
        messages.push(Message::new(Role::User, crate::engine::agent::prompts::missing_answers(&["task_2_out", "task_3_out"])));
        let reply = p.respond(&messages, true, None).unwrap();
        assert!(reply.tool_calls.is_empty());
        assert_eq!(reply.content, "\\boxed{task_2_out = [8, 1]}\n\\boxed{task_3_out = 9}", "each box uses the ones before it");
        messages[3] = Message::new(Role::User, crate::engine::agent::prompts::no_tool_call());
        assert_eq!(p.respond(&messages, true, None).unwrap().tool_calls.len(), 1);
        let stranger = [Message::new(Role::System, "s"), Message::new(Role::User, "another problem")];
        assert_eq!(p.respond(&stranger, true, None), Err(ProbeError::UnknownPrompt));
        assert_eq!(Probe::new(&[], ProbeOptions::default()), Err(ProbeError::NoSamples));
    }

    #[test]
    fn summaries_keep_bindings_and_progress_and_stop_at_the_limit() {
        let log = "<problem>x = 1</problem>\n[assistant] Working on task_2_out. Inputs: task_1_out = 4.\n[assistant] \\boxed{task_2_out = [8, 1]}";
        let messages = [Message::new(Role::System, "s"), Message::new(Role::User, log)];
        let reply = summarise(&messages, None);
        assert_eq!(reply.content, "Last progress line: Working on task_2_out. Inputs: task_1_out = 4.\nResults so far:\n- task_1_out = 4\n- task_2_out = [8, 1]");
        let short = summarise(&messages, Some(20));
        assert_eq!(short.finish_reason.as_deref(), Some("length"));
        assert!(probe_tokens(&short.content) <= 20);
    }

    #[test]
    fn probe_tokens_count_words_digits_and_symbols_differently() {
        assert_eq!(probe_tokens("abcdefgh"), 2);
        assert_eq!(probe_tokens("1234567"), 3);
        assert_eq!(probe_tokens("a, b"), 3);
        assert_eq!(probe_tokens(""), 0);
    }
}
