//! One sample's conversation as a state machine: `start` gives the first request, `on_reply` consumes
//! the model's reply and returns the next request or the finished record, `on_error` ends a sample whose call
//! failed for good. The context strategy builds every request and may ask for an auxiliary call first (a
//! summary): the session returns it as `Step::Auxiliary`, the driver sends it like any request, and its reply
//! goes to `on_reply` too. Nothing here awaits, reads a clock or touches the network; `driver` runs it.

use super::chat::{ImagePart, ChatReply, ChatRequest, Message, RequestKind, Role, ToolArguments, ToolCall};
use super::config::{AgentConfig, Budgets};
use super::error::AgentError;
use super::strategy::{estimate_request_tokens, CallEvent, ContextInput, Plan, Strategy, StrategyState, TokenEstimator, TurnEvent};
use super::tokens::estimate_tokens;
use super::{prompts, toolcalls};
use crate::engine::dataset::SampleRecord;
use crate::engine::grade::collect::Answers;
use crate::engine::grade::{grade_answers, SampleGrade, SampleSpec, SpecError};
use serde_json::Value;

/// How a sample ended (the reference's statuses, plus `api_error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every expected answer given.
    Success,
    /// Answers complete but the calculator requirement failed.
    MissingInitialCalculatorCall,
    /// Some expected answers missing when the repair budget ran out.
    MissingRequestedTaskAnswers,
    /// Both of the above.
    MissingBoth,
    /// The turn limit was reached.
    Timeout,
    /// The next request would not fit the context window.
    ContextLengthExceeded,
    /// The endpoint failed for good; the message says why.
    ApiError(String),
}

impl Status {
    /// The status a results file spells `name` (an `api_error` carries `error`); `None` for other names.
    pub fn parse(name: &str, error: &str) -> Option<Status> {
        Some(match name {
            "success" => Status::Success,
            "missing_initial_calculator_call" => Status::MissingInitialCalculatorCall,
            "missing_requested_task_answers" => Status::MissingRequestedTaskAnswers,
            "missing_initial_calculator_call_and_missing_requested_task_answers" => Status::MissingBoth,
            "timeout" => Status::Timeout,
            "context_length_exceeded" => Status::ContextLengthExceeded,
            "api_error" => Status::ApiError(error.to_string()),
            _ => return None,
        })
    }

    /// The results-file spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::MissingInitialCalculatorCall => "missing_initial_calculator_call",
            Status::MissingRequestedTaskAnswers => "missing_requested_task_answers",
            Status::MissingBoth => "missing_initial_calculator_call_and_missing_requested_task_answers",
            Status::Timeout => "timeout",
            Status::ContextLengthExceeded => "context_length_exceeded",
            Status::ApiError(_) => "api_error",
        }
    }
}

/// Repairs used, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepairCounts {
    /// Initial-calculator repairs.
    pub initial_tool: u32,
    /// Missing-answer repairs.
    pub final_answer: u32,
    /// Cut-off continuations.
    pub cutoff: u32,
}

/// Token totals over the session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UsageTotals {
    /// Sum of reported prompt tokens.
    pub prompt_tokens: u64,
    /// Sum of reported completion tokens.
    pub completion_tokens: u64,
    /// Turns whose usage the provider reported.
    pub reported_turns: u64,
    /// Turns whose completion tokens were estimated from characters.
    pub estimated_turns: u64,
    /// Auxiliary calls made (summaries), not counted above.
    pub auxiliary_calls: u64,
    /// Reported prompt tokens of the auxiliary calls.
    pub auxiliary_prompt_tokens: u64,
    /// Completion tokens of the auxiliary calls (reported, or estimated where not reported).
    pub auxiliary_completion_tokens: u64,
    /// Prompt tokens read from the provider's cache, over every call (part of the prompt tokens).
    pub cached_prompt_tokens: u64,
    /// Prompt tokens written to the provider's cache, over every call (part of the prompt tokens).
    pub cache_write_tokens: u64,
    /// Reasoning tokens, over every call (part of the completion tokens).
    pub reasoning_tokens: u64,
}

/// One request as sent and answered: what the results file lists under `requests`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestLog {
    /// The turn it belongs to (the turn an auxiliary call precedes).
    pub turn: usize,
    /// A turn or an auxiliary call.
    pub kind: RequestKind,
    /// Messages sent.
    pub messages: usize,
    /// Estimated prompt tokens (calibrated by the previous reported count, as the pre-check uses them).
    pub estimated_prompt_tokens: u64,
    /// Prompt tokens the endpoint reported.
    pub reported_prompt_tokens: Option<u64>,
    /// Completion tokens the endpoint reported.
    pub completion_tokens: Option<u64>,
    /// Prompt tokens the endpoint read from its cache.
    pub cached_prompt_tokens: Option<u64>,
    /// Prompt tokens the endpoint wrote to its cache.
    pub cache_write_tokens: Option<u64>,
    /// Reasoning tokens the endpoint reported.
    pub reasoning_tokens: Option<u64>,
    /// Wall time of the call as the driver measured it.
    pub latency_ms: Option<u64>,
}

/// What the grader and the results file need from a sample's input.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentInput {
    /// Prompt, expected outputs, graded target and truths per output name.
    pub spec: SampleSpec,
    /// The sample's pictures (image tasks), sent with the prompt.
    pub images: Vec<ImagePart>,
}

/// Why a sample's pictures cannot be sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageInputError {
    #[error("sample {index}: image {image} is stored as the file `{file}`; give the sample a data URL first (the CLI reads files beside the dataset)")]
    NotInline { index: usize, image: usize, file: String },
    #[error("sample {index}: image {image} has no `data_url`")]
    Missing { index: usize, image: usize },
}

/// Why a dataset sample cannot be run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Image(#[from] ImageInputError),
}

impl AgentInput {
    /// Reads a dataset sample (reference layout), its pictures included (`images[].data_url`, sized by
    /// `images[].metadata.width`/`height`).
    pub fn from_sample(sample: &Value, index: usize) -> Result<AgentInput, InputError> {
        let record = SampleRecord::parse(sample);
        let spec = SampleSpec::from_record(&record, index)?;
        let mut images = Vec::new();
        for (k, picture) in record.pictures.iter().enumerate() {
            let url = match (&picture.data_url, &picture.file) {
                (Some(url), _) => url.clone(),
                (None, Some(file)) => return Err(ImageInputError::NotInline { index, image: k + 1, file: file.clone() }.into()),
                (None, None) => return Err(ImageInputError::Missing { index, image: k + 1 }.into()),
            };
            let size = |side: Option<f64>| side.filter(|s| *s >= 0.0).map_or(1024, |s| s as u32);
            let label = match picture.task_number {
                0 => format!("Image {}:", picture.image_index),
                task => format!("Image {} (Task {task}):", picture.image_index),
            };
            images.push(ImagePart { url, width: size(picture.width), height: size(picture.height), label });
        }
        Ok(AgentInput { spec, images })
    }
}

/// A finished sample.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentRecord {
    /// How it ended.
    pub status: Status,
    /// Turns taken.
    pub turns: usize,
    /// Executed tool calls (malformed and unknown ones included).
    pub tool_calls: usize,
    /// Generated tokens (reported, or estimated where not reported).
    pub token_length: u64,
    /// The assistant text of every turn (reasoning, content and rendered tool calls).
    pub turn_outputs: Vec<String>,
    /// Expected output names.
    pub expected: Vec<String>,
    /// Collected answers.
    pub answers: Answers,
    /// The grade.
    pub grade: SampleGrade,
    /// Every message, tool results and repair messages included.
    pub transcript: Vec<Message>,
    /// Repairs used.
    pub repairs: RepairCounts,
    /// Token totals.
    pub usage: UsageTotals,
    /// Per-turn call latencies reported by the driver.
    pub latencies_ms: Vec<Option<u64>>,
    /// The context strategy the sample ran with.
    pub strategy: Strategy,
    /// The strategy's own record (execution record, evidence graph, summaries, dependencies).
    pub strategy_state: StrategyState,
    /// Every request sent, auxiliary calls included, in order.
    pub requests: Vec<RequestLog>,
}

/// What to do next.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send this turn's request and pass the reply to `on_reply`.
    Send(ChatRequest),
    /// Send this auxiliary call (a summary the strategy needs) to the same endpoint and pass its reply to
    /// `on_reply`; it is not a turn of the agent and its tokens are counted apart.
    Auxiliary(ChatRequest),
    /// The sample is done.
    Finished(Box<AgentRecord>),
}

impl Step {
    /// The request to send, for `Send` and `Auxiliary`.
    pub fn request(&self) -> Option<&ChatRequest> {
        match self {
            Step::Send(r) | Step::Auxiliary(r) => Some(r),
            Step::Finished(_) => None,
        }
    }
}

/// One sample's conversation.
#[derive(Clone, Debug)]
pub struct AgentSession {
    input: AgentInput,
    config: AgentConfig,
    messages: Vec<Message>,
    turn: usize,
    turn_outputs: Vec<String>,
    answers: Answers,
    tool_calls: usize,
    calculator_seen: bool,
    requirement_failed: bool,
    left: Budgets,
    repairs: RepairCounts,
    repair_next: bool,
    token_length: u64,
    usage: UsageTotals,
    latencies: Vec<Option<u64>>,
    token_ratio: Option<f64>,
    last_estimate: u64,
    state: StrategyState,
    pending: RequestKind,
    requests: Vec<RequestLog>,
    finished: Option<Step>,
}

impl AgentSession {
    /// Starts a sample: the first step is normally `Send` of `[system, user(prompt)]`.
    pub fn start(input: &AgentInput, config: &AgentConfig) -> (AgentSession, Step) {
        let mut prompt = Message::new(Role::User, input.spec.prompt.clone());
        prompt.images = input.images.clone();
        let messages = vec![Message::new(Role::System, config.system_prompt.clone()), prompt];
        let state = StrategyState::new(&config.strategy, &input.spec);
        let mut session = AgentSession {
            input: input.clone(),
            config: config.clone(),
            messages,
            turn: 0,
            turn_outputs: Vec::new(),
            answers: Answers::new(),
            tool_calls: 0,
            calculator_seen: false,
            requirement_failed: false,
            left: config.budgets,
            repairs: RepairCounts::default(),
            repair_next: false,
            token_length: 0,
            usage: UsageTotals::default(),
            latencies: Vec::new(),
            token_ratio: None,
            last_estimate: 0,
            state,
            pending: RequestKind::Turn,
            requests: Vec::new(),
            finished: None,
        };
        let step = session.request_or_stop();
        (session, step)
    }

    /// Rebuilds a session from the replies already received (for example, stored before a reload): the loop is
    /// deterministic, so feeding the same replies in order reaches the same state. Returns the next step.
    pub fn resume(input: &AgentInput, config: &AgentConfig, replies: impl IntoIterator<Item = ChatReply>) -> (AgentSession, Step) {
        let (mut session, mut step) = AgentSession::start(input, config);
        for reply in replies {
            if matches!(step, Step::Finished(_)) {
                break;
            }
            step = session.on_reply(reply);
        }
        (session, step)
    }

    /// The expected output names.
    pub fn expected(&self) -> &[String] {
        &self.input.spec.expected
    }

    /// The 0-based index of the turn in flight.
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// The answers collected so far.
    pub fn answers(&self) -> &Answers {
        &self.answers
    }

    /// The strategy's record so far.
    pub fn strategy_state(&self) -> &StrategyState {
        &self.state
    }

    fn estimator(&self) -> TokenEstimator {
        TokenEstimator { ratio: self.token_ratio }
    }

    /// The prompt tokens the next turn may take: the model's context length less the turn's completion limit.
    fn room(&self) -> Option<u64> {
        let completion = if self.repair_next { self.config.repair_max_tokens } else { self.config.max_tokens };
        self.config.max_model_len.map(|limit| limit.saturating_sub(u64::from(completion)))
    }

    /// Builds the next request (the strategy's plan: a turn, or an auxiliary call first), or stops when it would
    /// not fit the context window.
    fn request_or_stop(&mut self) -> Step {
        let estimator = self.estimator();
        let input = ContextInput { messages: &self.messages, spec: &self.input.spec, answers: &self.answers, estimator, room: self.room() };
        let (messages, max_tokens, kind) = match self.state.plan(&input) {
            Plan::Send(messages) => (messages, if self.repair_next { self.config.repair_max_tokens } else { self.config.max_tokens }, RequestKind::Turn),
            Plan::Auxiliary(call) => (call.messages, call.max_tokens, call.kind),
        };
        let raw_estimate = estimate_request_tokens(&messages);
        let estimate = estimator.scale(raw_estimate);
        if let Some(limit) = self.config.max_model_len {
            if estimate + max_tokens as u64 > limit {
                self.turn_outputs.push(String::new());
                self.latencies.push(None);
                return self.finish(Status::ContextLengthExceeded, self.turn);
            }
        }
        self.last_estimate = raw_estimate;
        self.pending = kind;
        self.requests.push(RequestLog {
            turn: self.turn,
            kind,
            messages: messages.len(),
            estimated_prompt_tokens: estimate,
            reported_prompt_tokens: None,
            completion_tokens: None,
            cached_prompt_tokens: None,
            cache_write_tokens: None,
            reasoning_tokens: None,
            latency_ms: None,
        });
        let request = ChatRequest {
            messages,
            max_tokens,
            temperature: self.config.temperature,
            top_p: self.config.top_p,
            repair: self.repair_next && kind == RequestKind::Turn,
            turn: self.turn,
            kind,
        };
        if kind.is_auxiliary() {
            Step::Auxiliary(request)
        } else {
            Step::Send(request)
        }
    }

    /// An auxiliary call's reply: counted apart, handed to the strategy, then the turn's request is built.
    fn on_auxiliary_reply(&mut self, reply: ChatReply) -> Step {
        self.usage.auxiliary_calls += 1;
        self.usage.auxiliary_prompt_tokens += reply.usage.prompt_tokens.unwrap_or(0);
        self.usage.auxiliary_completion_tokens += reply.usage.completion_tokens.unwrap_or_else(|| estimate_tokens(&reply.content));
        let input = ContextInput { messages: &self.messages, spec: &self.input.spec, answers: &self.answers, estimator: self.estimator(), room: self.room() };
        self.state.on_auxiliary_reply(&input, &reply.content);
        self.pending = RequestKind::Turn;
        self.request_or_stop()
    }

    /// A call failed for good: the sample ends as `api_error` with what was collected so far.
    pub fn on_error(&mut self, error: AgentError) -> Step {
        if let Some(step) = self.finished.clone() {
            return step;
        }
        let turns = self.turn;
        self.finish(Status::ApiError(error.to_string()), turns)
    }

    /// Consumes the reply of the current turn. After `Finished`, further calls return the same record.
    pub fn on_reply(&mut self, reply: ChatReply) -> Step {
        if let Some(step) = self.finished.clone() {
            return step;
        }
        let turn = self.turn;
        if let Some(log) = self.requests.last_mut() {
            log.reported_prompt_tokens = reply.usage.prompt_tokens;
            log.completion_tokens = reply.usage.completion_tokens;
            log.cached_prompt_tokens = reply.usage.cached_prompt_tokens;
            log.cache_write_tokens = reply.usage.cache_write_tokens;
            log.reasoning_tokens = reply.usage.reasoning_tokens;
            log.latency_ms = reply.latency_ms;
        }
        self.usage.cached_prompt_tokens += reply.usage.cached_prompt_tokens.unwrap_or(0);
        self.usage.cache_write_tokens += reply.usage.cache_write_tokens.unwrap_or(0);
        self.usage.reasoning_tokens += reply.usage.reasoning_tokens.unwrap_or(0);
        if let Some(prompt_tokens) = reply.usage.prompt_tokens {
            if self.last_estimate > 0 && prompt_tokens > 0 {
                self.token_ratio = Some(prompt_tokens as f64 / self.last_estimate as f64);
            }
        }
        if self.pending.is_auxiliary() {
            return self.on_auxiliary_reply(reply);
        }
        self.latencies.push(reply.latency_ms);
        if let Some(prompt_tokens) = reply.usage.prompt_tokens {
            self.usage.prompt_tokens += prompt_tokens;
        }

        // Structured calls first; text markup only when there are none.
        let mut calls: Vec<ToolCall> = Vec::new();
        let mut raw_calls: Vec<(String, Value)> = Vec::new();
        if !reply.tool_calls.is_empty() {
            for (k, call) in reply.tool_calls.iter().enumerate() {
                // What is sent back must be valid JSON even when the model's arguments were not.
                let (text, value) = match &call.arguments {
                    ToolArguments::Text(text) if serde_json::from_str::<Value>(text).is_ok() => (text.clone(), Value::String(text.clone())),
                    ToolArguments::Text(text) => (toolcalls::normalise_arguments(&Value::String(text.clone())).to_string(), Value::String(text.clone())),
                    ToolArguments::Json(value) => (value.to_string(), value.clone()),
                };
                let id = if call.id.is_empty() { format!("call_{turn}_{k}") } else { call.id.clone() };
                calls.push(ToolCall { id, name: call.name.clone(), arguments: text });
                raw_calls.push((call.name.clone(), value));
            }
        } else {
            for (k, call) in toolcalls::parse_text_calls(&reply.content).into_iter().enumerate() {
                let text = match &call.arguments {
                    Value::String(s) if serde_json::from_str::<Value>(s).is_ok() => s.clone(),
                    Value::String(_) => toolcalls::normalise_arguments(&call.arguments).to_string(),
                    other => other.to_string(),
                };
                calls.push(ToolCall { id: format!("call_{turn}_{k}"), name: call.name.clone(), arguments: text });
                raw_calls.push((call.name, call.arguments));
            }
        }

        let text = turn_text(&reply, &calls);
        let completion = reply.usage.completion_tokens;
        match completion {
            Some(tokens) => {
                self.usage.completion_tokens += tokens;
                self.usage.reported_turns += 1;
                self.token_length += tokens;
            }
            None => {
                self.usage.estimated_turns += 1;
                self.token_length += estimate_tokens(&text);
            }
        }
        let updated = self.answers.collect(&text, turn, &self.input.spec.expected);
        self.turn_outputs.push(text.clone());
        // Every path below pushes the assistant message next, at this index.
        let assistant_index = self.messages.len();
        self.state.observe_turn(&TurnEvent { turn, message_index: assistant_index, content: &reply.content, updated: &updated, answers: &self.answers });

        let mut assistant = Message::new(Role::Assistant, reply.content.clone());
        if !reply.reasoning.is_empty() {
            assistant.reasoning = Some(reply.reasoning.clone());
        }
        let cutoff = reply.finish_reason.as_deref() == Some("length");
        // Like the reference, the repair checks read the whole raw text, reasoning included.
        let raw_text = if reply.reasoning.is_empty() { reply.content.clone() } else { format!("{}\n{}", reply.reasoning, reply.content) };
        let lookalike = toolcalls::looks_like_tool_call(&raw_text);
        let missing: Vec<String> = self.answers.missing(&self.input.spec.expected).into_iter().map(str::to_string).collect();
        let missing_refs: Vec<&str> = missing.iter().map(String::as_str).collect();

        // Cut-off repair.
        if cutoff && calls.is_empty() && self.left.cutoff > 0 && (!missing.is_empty() || lookalike) {
            self.left.cutoff -= 1;
            self.repairs.cutoff += 1;
            let message = if lookalike {
                prompts::malformed_tool_call()
            } else if raw_text.contains("\\boxed") {
                prompts::missing_answers(&missing_refs)
            } else {
                prompts::cut_off(&missing_refs)
            };
            return self.repair(assistant, message, "repair:cutoff");
        }

        // Initial calculator requirement.
        if self.config.require_initial_calculator_call && !self.calculator_seen && !self.requirement_failed {
            let has_calculator = calls.iter().any(|c| c.name == toolcalls::CALCULATOR);
            if !has_calculator {
                if self.left.initial_tool > 0 {
                    self.left.initial_tool -= 1;
                    self.repairs.initial_tool += 1;
                    let message = if !calls.is_empty() || lookalike { prompts::malformed_tool_call() } else { prompts::no_tool_call() };
                    return self.repair(assistant, message, "repair:initial_tool");
                }
                self.requirement_failed = true;
                calls.clear();
                raw_calls.clear();
            }
        }

        if calls.is_empty() {
            if missing.is_empty() {
                let status = if self.requirement_failed { Status::MissingInitialCalculatorCall } else { Status::Success };
                self.messages.push(assistant);
                return self.finish(status, turn + 1);
            }
            if self.left.final_answer > 0 {
                self.left.final_answer -= 1;
                self.repairs.final_answer += 1;
                return self.repair(assistant, prompts::missing_answers(&missing_refs), "repair:final_answer");
            }
            let status = if self.requirement_failed { Status::MissingBoth } else { Status::MissingRequestedTaskAnswers };
            self.messages.push(assistant);
            return self.finish(status, turn + 1);
        }

        // Tool calls: answer every one, in order.
        assistant.tool_calls = calls.clone();
        self.messages.push(assistant);
        for (call, (name, arguments)) in calls.iter().zip(&raw_calls) {
            self.tool_calls += 1;
            let outcome = toolcalls::run_call(name, arguments, &self.input.spec.expected);
            if name == toolcalls::CALCULATOR {
                self.calculator_seen = true;
            }
            self.state.observe_call(&CallEvent {
                turn,
                assistant_index,
                result_index: self.messages.len(),
                name,
                arguments: &call.arguments,
                result: &outcome.result,
                anchors: &outcome.anchors,
                rejected: &outcome.rejected,
                content: &reply.content,
                answers: &self.answers,
            });
            let mut message = Message::new(Role::Tool, outcome.result);
            message.tool_call_id = Some(call.id.clone());
            message.name = Some(name.clone());
            self.messages.push(message);
        }
        self.repair_next = false;
        self.advance(turn)
    }

    fn repair(&mut self, assistant: Message, message: String, purpose: &str) -> Step {
        let turn = self.turn;
        self.messages.push(assistant);
        self.state.observe_repair(turn, self.messages.len(), &message);
        self.messages.push(Message::new(Role::User, message).with_purpose(purpose));
        self.repair_next = true;
        self.advance(turn)
    }

    fn advance(&mut self, turn: usize) -> Step {
        self.turn = turn + 1;
        if self.turn >= self.config.max_turns {
            return self.finish(Status::Timeout, self.config.max_turns);
        }
        self.request_or_stop()
    }

    fn finish(&mut self, status: Status, turns: usize) -> Step {
        let last = self.turn_outputs.last().cloned().unwrap_or_default();
        let grade = grade_answers(&self.input.spec, &self.answers, &last, self.config.lenient);
        let step = Step::Finished(Box::new(AgentRecord {
            status,
            turns,
            tool_calls: self.tool_calls,
            token_length: self.token_length,
            turn_outputs: self.turn_outputs.clone(),
            expected: self.input.spec.expected.clone(),
            answers: self.answers.clone(),
            grade,
            transcript: self.messages.clone(),
            repairs: self.repairs,
            usage: self.usage,
            latencies_ms: self.latencies.clone(),
            strategy: self.config.strategy.clone(),
            strategy_state: self.state.clone(),
            requests: self.requests.clone(),
        }));
        self.finished = Some(step.clone());
        step
    }
}

/// The text of a turn as stored in `turn_outputs`: reasoning (closed by `</think>`), content, then structured
/// tool calls rendered as `<tool_call>` JSON so that a replay masks them exactly as the reference would.
pub fn turn_text(reply: &ChatReply, calls: &[ToolCall]) -> String {
    let mut text = String::new();
    if !reply.reasoning.is_empty() {
        text.push_str(&reply.reasoning);
        text.push_str("\n</think>\n\n");
    }
    text.push_str(&reply.content);
    if !reply.tool_calls.is_empty() {
        for call in calls {
            let arguments = serde_json::from_str::<Value>(&call.arguments).unwrap_or_else(|_| Value::String(call.arguments.clone()));
            let payload = serde_json::json!({"name": call.name, "arguments": arguments});
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("<tool_call>\n{payload}\n</tool_call>"));
        }
    }
    text
}
