//! Context strategies: which messages each request carries. [`all`] is the one list of strategies; each entry is
//! a [`ContextStrategy`] declared in its own file, with its registry entry (name, one-line description,
//! parameters with defaults and ranges) and the per-sample [`StrategyRun`] it starts. [`Strategy`] is a parsed
//! choice (`name:key=value,…`) from that list. A run is a pure function of (transcript, its own record, the
//! answers so far, a token estimator) to the messages of the next request, or to an auxiliary request it needs
//! first (a summary), which the session hands to the driver like any other request. The transcript always keeps
//! everything; only what is sent changes. Tool calls always travel with their results, and messages are kept,
//! dropped or replaced whole. Design notes and measurements: `docs/CONTEXT_STRATEGIES.md`.

mod acg;
mod acg_lite;
mod bm25;
#[cfg(test)]
mod example;
mod full;
mod graph;
mod mask;
mod mask_summary;
mod requirements;
mod summary;
mod window;

pub use acg::{
    organize, structural_entropy, AcgGraph, AcgOptions, ConceptLink, EvidenceUnit as AcgUnit, LinkKind, UnitKind, WeightedGraph, CANDIDATES_PER_REQUIREMENT,
    ORGANIZER_LIMIT, SEED_COUNT,
};
pub use acg_lite::{AcgLiteRun, AcgRecord, Evidence, EvidenceUnit};
pub use bm25::{tokenize, Bm25};
pub use graph::GraphRecord;
pub use requirements::{dependencies, requirements_of, Requirement};
pub use summary::SummaryState;

use super::chat::{Message, RequestKind, Role};
use super::tokens::estimate_tokens;
use crate::engine::grade::collect::Answers;
use crate::engine::grade::SampleSpec;
use serde_json::{json, Map, Value};
use std::any::Any;
use std::fmt;
use std::ops::Range;

/// Default token budget of the `acg` and `acg-lite` views.
pub const DEFAULT_ACG_BUDGET: u64 = 5_000;

/// Every strategy, in the order the docs, the CLI's help and the Evaluate page list them. Adding a strategy is
/// one file that declares a [`ContextStrategy`] and one line here.
static ALL: &[&dyn ContextStrategy] = &[
    &full::FULL,
    &acg_lite::ACG_LITE,
    &acg::ACG,
    &mask::MASK,
    &window::WINDOW,
    &summary::SUMMARY,
    &mask_summary::MASK_SUMMARY,
    &graph::GRAPH,
    #[cfg(test)]
    &example::RECENT_ANSWERS,
];

/// Every strategy, in the order the docs, the CLI's help and the Evaluate page list them.
pub fn all() -> &'static [&'static dyn ContextStrategy] {
    ALL
}

/// One context strategy: its registry entry and the per-sample run it starts. Declared once, as a `static`, in the
/// strategy's own file and listed in [`all`].
pub trait ContextStrategy: Sync {
    /// Its name, one-line description and parameters.
    fn info(&self) -> &'static StrategyInfo;

    /// The run of one sample under `strategy` (this strategy with its parameter values, read with
    /// [`Strategy::get`]): its own record, empty, and the parameters it needs.
    fn start(&self, strategy: &Strategy, spec: &SampleSpec) -> Box<dyn StrategyRun>;
}

/// One sample's run of a strategy: its parameters and its own record, kept beside the transcript and exported
/// with the sample. Only [`StrategyRun::plan`] is required; a strategy that keeps no record hears nothing.
pub trait StrategyRun: fmt::Debug + Send + Sync + AnyRun {
    /// Hears an assistant turn (before its tool calls).
    fn observe_turn(&mut self, _event: &TurnEvent<'_>) {}

    /// Hears an executed tool call.
    fn observe_call(&mut self, _event: &CallEvent<'_>) {}

    /// Hears a repair message the harness added.
    fn observe_repair(&mut self, _turn: usize, _message_index: usize, _text: &str) {}

    /// What to send next.
    fn plan(&self, input: &ContextInput<'_>) -> Plan;

    /// Takes the reply of an auxiliary call [`StrategyRun::plan`] asked for.
    fn on_auxiliary_reply(&mut self, _input: &ContextInput<'_>, _content: &str) {}

    /// The record as JSON, when the strategy keeps one.
    fn to_json(&self) -> Option<Value> {
        None
    }

    /// The key the record is exported under in a results sample.
    fn record_key(&self) -> &'static str {
        "strategy_record"
    }
}

/// Copying, comparing and downcasting a run behind `dyn`; every `Clone + PartialEq` run has it.
pub trait AnyRun {
    /// A boxed copy.
    fn clone_run(&self) -> Box<dyn StrategyRun>;
    /// True when `other` is a run of the same type and equal.
    fn same_run(&self, other: &dyn StrategyRun) -> bool;
    /// The run as `Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
}

impl<T: StrategyRun + Clone + PartialEq + 'static> AnyRun for T {
    fn clone_run(&self) -> Box<dyn StrategyRun> {
        Box::new(self.clone())
    }

    fn same_run(&self, other: &dyn StrategyRun) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One parameter of a strategy: whole numbers only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    /// The key in `name:key=value`.
    pub key: &'static str,
    /// The default value.
    pub default: u64,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
    /// What it controls.
    pub description: &'static str,
}

/// A registry entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyInfo {
    /// The stable name (written in results files).
    pub name: &'static str,
    /// One line saying what it sends.
    pub description: &'static str,
    /// Its parameters, in display order.
    pub params: &'static [ParamInfo],
}

/// The registry: every strategy's entry, in [`all`]'s order.
pub fn registry() -> Vec<&'static StrategyInfo> {
    ALL.iter().map(|s| s.info()).collect()
}

/// The registry entry named `name`.
pub fn info(name: &str) -> Option<&'static StrategyInfo> {
    find(name).map(|s| s.info())
}

/// The strategy named `name`.
pub fn find(name: &str) -> Option<&'static dyn ContextStrategy> {
    ALL.iter().copied().find(|s| s.info().name == name)
}

/// The `--strategy` help: the syntax, then every strategy of [`all`] with its parameters' defaults and what it
/// sends (so a new strategy shows up in the CLI by being listed).
pub fn help() -> String {
    let mut out = String::from(
        "Context strategy: `NAME` or `NAME:key=value,key=value` (parameters not given take their defaults; ranges: docs/CONTEXT_STRATEGIES.md). Names:",
    );
    for strategy in ALL {
        let info = strategy.info();
        out.push_str("\n  ");
        out.push_str(info.name);
        if !info.params.is_empty() {
            let params: Vec<String> = info.params.iter().map(|p| format!("{}={}", p.key, p.default)).collect();
            out.push_str(&format!(" ({})", params.join(", ")));
        }
        out.push_str(&format!(": {}", info.description));
    }
    out
}

/// Why a strategy choice was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StrategyError {
    #[error("unknown context strategy `{name}` (known: {known})")]
    UnknownStrategy { name: String, known: String },
    #[error("strategy `{strategy}` has no parameter `{key}` ({known})")]
    UnknownParameter { strategy: String, key: String, known: String },
    #[error("parameter `{key}` of `{strategy}` must be a whole number, got `{value}`")]
    NotANumber { strategy: String, key: String, value: String },
    #[error("parameter `{key}` of `{strategy}` must be between {min} and {max}, got {value}")]
    OutOfRange { strategy: String, key: String, value: u64, min: u64, max: u64 },
    #[error("`{text}` is not a `key=value` parameter")]
    Syntax { text: String },
    #[error("parameter `{key}` of `{strategy}` is given twice")]
    Duplicate { strategy: String, key: String },
}

/// `spec` (`acg:budget_tokens=5000,clusters=0,…`) as [`Strategy::label`] names it; a spec that does not parse
/// (a strategy of another release, or any text a file holds) is given back as it is.
pub fn short_label(spec: &str) -> String {
    Strategy::parse(spec).map_or_else(|_| spec.to_string(), |strategy| strategy.label())
}

/// A context strategy of [`all`] with a value for each of its parameters (in its registry order). Made only by
/// parsing through the registry's checks or from a strategy's defaults, so every value is in range.
#[derive(Clone)]
pub struct Strategy {
    /// The strategy.
    kind: &'static dyn ContextStrategy,
    /// One value per parameter of `kind`, in registry order.
    values: Vec<u64>,
}

/// `full`, the reference.
impl Default for Strategy {
    fn default() -> Strategy {
        Strategy::of(&full::FULL)
    }
}

/// Same strategy, same values.
impl PartialEq for Strategy {
    fn eq(&self, other: &Strategy) -> bool {
        self.name() == other.name() && self.values == other.values
    }
}

impl Eq for Strategy {}

impl fmt::Debug for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Strategy").field("name", &self.name()).field("params", &self.params()).finish()
    }
}

impl Strategy {
    /// `kind` with every parameter at its default.
    pub fn of(kind: &'static dyn ContextStrategy) -> Strategy {
        Strategy { kind, values: kind.info().params.iter().map(|p| p.default).collect() }
    }

    /// Parses `name` or `name:key=value,key=value` (parameters not given take their defaults).
    pub fn parse(text: &str) -> Result<Strategy, StrategyError> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((name, rest)) => (name.trim(), rest.trim()),
            None => (text, ""),
        };
        let mut params = Vec::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            params.push(split_param(part)?);
        }
        Strategy::from_parts(name, &params)
    }

    /// The strategy `name` with `params` (`key`, `value` as text) over its defaults.
    pub fn from_parts(name: &str, params: &[(String, String)]) -> Result<Strategy, StrategyError> {
        let kind = find(name).ok_or_else(|| StrategyError::UnknownStrategy {
            name: name.to_string(),
            known: ALL.iter().map(|s| s.info().name).collect::<Vec<_>>().join(", "),
        })?;
        let info = kind.info();
        let mut strategy = Strategy::of(kind);
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in params {
            let key = key.trim();
            let Some(at) = info.params.iter().position(|p| p.key == key) else {
                let known = if info.params.is_empty() {
                    "it takes none".to_string()
                } else {
                    format!("its parameters: {}", info.params.iter().map(|p| p.key).collect::<Vec<_>>().join(", "))
                };
                return Err(StrategyError::UnknownParameter { strategy: info.name.into(), key: key.into(), known });
            };
            let param = &info.params[at];
            if seen.contains(&key) {
                return Err(StrategyError::Duplicate { strategy: info.name.into(), key: key.into() });
            }
            seen.push(param.key);
            let parsed: u64 = value
                .trim()
                .replace('_', "")
                .parse()
                .map_err(|_| StrategyError::NotANumber { strategy: info.name.into(), key: key.into(), value: value.trim().into() })?;
            if parsed < param.min || parsed > param.max {
                return Err(StrategyError::OutOfRange { strategy: info.name.into(), key: key.into(), value: parsed, min: param.min, max: param.max });
            }
            strategy.values[at] = parsed;
        }
        Ok(strategy)
    }

    /// The strategy as a table or a list names it: its name and only the parameters that differ from their
    /// defaults (`acg:clusters=0`, `window:exchanges=4`, `acg`), which parses back to the same strategy. Its
    /// full spelling (`to_string`) names every parameter, which makes a wide column of a default `acg`.
    pub fn label(&self) -> String {
        let changed: Vec<String> =
            self.kind.info().params.iter().zip(&self.values).filter(|(info, value)| **value != info.default).map(|(info, value)| format!("{}={value}", info.key)).collect();
        if changed.is_empty() {
            self.name().to_string()
        } else {
            format!("{}:{}", self.name(), changed.join(","))
        }
    }

    /// The strategy a results file names: `name` with its stored `strategy_params` object. Files written before
    /// the registry say `acg` for what is now `acg-lite` (they have no `strategy_params`; their budget was
    /// `acg_budget_tokens`), so they read as `acg-lite`.
    pub fn from_results(name: &str, params: Option<&Value>, legacy_budget: Option<u64>) -> Result<Strategy, StrategyError> {
        match params.and_then(Value::as_object) {
            Some(map) => {
                let parts: Vec<(String, String)> =
                    map.iter().map(|(k, v)| (k.clone(), v.as_u64().map(|n| n.to_string()).unwrap_or_else(|| v.to_string()))).collect();
                Strategy::from_parts(name, &parts)
            }
            None if name == "acg" => {
                let parts: Vec<(String, String)> = legacy_budget.map(|b| ("budget_tokens".to_string(), b.to_string())).into_iter().collect();
                Strategy::from_parts("acg-lite", &parts)
            }
            None => Strategy::from_parts(name, &[]),
        }
    }

    /// The strategy itself.
    pub fn kind(&self) -> &'static dyn ContextStrategy {
        self.kind
    }

    /// The registry name.
    pub fn name(&self) -> &'static str {
        self.info().name
    }

    /// Its registry entry.
    pub fn info(&self) -> &'static StrategyInfo {
        self.kind.info()
    }

    /// Every parameter with its value, in registry order.
    pub fn params(&self) -> Vec<(&'static str, u64)> {
        self.info().params.iter().map(|p| p.key).zip(self.values.iter().copied()).collect()
    }

    /// The value of parameter `key`, when this strategy has one.
    pub fn value(&self, key: &str) -> Option<u64> {
        self.params().into_iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The value of `param`, one of this strategy's own parameters (its default if `param` is not one of them,
    /// which only a strategy asking for another's parameter could see).
    pub fn get(&self, param: &ParamInfo) -> u64 {
        self.value(param.key).unwrap_or(param.default)
    }

    /// The same strategy with parameter `key` set from `text`, through the same checks as parsing.
    pub fn with_param(&self, key: &str, text: &str) -> Result<Strategy, StrategyError> {
        let mut parts: Vec<(String, String)> = self.params().iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        match parts.iter_mut().find(|(k, _)| k == key.trim()) {
            Some(part) => part.1 = text.trim().to_string(),
            None => parts.push((key.trim().to_string(), text.trim().to_string())),
        }
        Strategy::from_parts(self.name(), &parts)
    }

    /// The parameters as a JSON object (`strategy_params` in results files).
    pub fn params_json(&self) -> Value {
        Value::Object(self.params().into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<String, Value>>())
    }
}

/// `name` alone when it has no parameters, else `name:key=value,…` with every parameter (parses back).
impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let params = self.params();
        for (i, (key, value)) in params.iter().enumerate() {
            write!(f, "{}{key}={value}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Splits `key=value`.
pub fn split_param(text: &str) -> Result<(String, String), StrategyError> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(StrategyError::Syntax { text: text.to_string() }),
    }
}

/// Prompt-token estimates, scaled by what the endpoint reported for the previous request when it did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TokenEstimator {
    /// Reported prompt tokens divided by the raw estimate of the previous request.
    pub ratio: Option<f64>,
}

impl TokenEstimator {
    /// The calibrated estimate of a request carrying `messages`.
    pub fn request(&self, messages: &[Message]) -> u64 {
        self.scale(estimate_request_tokens(messages))
    }

    /// A raw estimate scaled by the calibration ratio.
    pub fn scale(&self, raw: u64) -> u64 {
        match self.ratio {
            Some(ratio) => (raw as f64 * ratio).ceil() as u64,
            None => raw,
        }
    }

    /// The calibrated estimate of a text.
    pub fn text(&self, text: &str) -> u64 {
        self.scale(estimate_tokens(text))
    }
}

/// Estimated tokens of one message (content, tool-call arguments, pictures, a per-message overhead).
pub fn message_tokens(message: &Message) -> u64 {
    4 + estimate_tokens(&message.content)
        + message.tool_calls.iter().map(|c| estimate_tokens(&c.arguments) + 8).sum::<u64>()
        + message.images.iter().map(|i| i.estimated_tokens() + estimate_tokens(&i.label)).sum::<u64>()
}

/// Estimated prompt tokens of a request (characters / 4 plus per-message and tool-schema overheads).
pub fn estimate_request_tokens(messages: &[Message]) -> u64 {
    150 + messages.iter().map(message_tokens).sum::<u64>()
}

/// What a strategy sees when it builds a request.
#[derive(Clone, Copy, Debug)]
pub struct ContextInput<'a> {
    /// The whole transcript: system prompt, task prompt, then every later message.
    pub messages: &'a [Message],
    /// The sample: prompt, expected outputs, dependencies.
    pub spec: &'a SampleSpec,
    /// The answers collected so far.
    pub answers: &'a Answers,
    /// Token estimates.
    pub estimator: TokenEstimator,
    /// The prompt tokens the next request may take when the model's context length is known: the context length
    /// less the completion limit. `None` when nothing is known; a strategy with a cap of its own keeps within both.
    pub room: Option<u64>,
}

/// An extra call a strategy needs before it can build the next request.
#[derive(Clone, Debug, PartialEq)]
pub struct AuxiliaryRequest {
    /// What it is for.
    pub kind: RequestKind,
    /// Its messages.
    pub messages: Vec<Message>,
    /// Its completion limit.
    pub max_tokens: u32,
}

/// What a strategy wants sent next.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// The messages of the next turn.
    Send(Vec<Message>),
    /// This call first; its reply goes to [`StrategyState::on_auxiliary_reply`], then plan again.
    Auxiliary(AuxiliaryRequest),
}

/// An assistant turn, as strategies observe it.
#[derive(Clone, Copy, Debug)]
pub struct TurnEvent<'a> {
    /// 0-based turn.
    pub turn: usize,
    /// Where the assistant message sits in the transcript.
    pub message_index: usize,
    /// The content (reasoning excluded).
    pub content: &'a str,
    /// Names whose answers this turn set.
    pub updated: &'a [String],
    /// All answers after this turn.
    pub answers: &'a Answers,
}

/// An executed tool call and its result.
#[derive(Clone, Copy, Debug)]
pub struct CallEvent<'a> {
    /// 0-based turn.
    pub turn: usize,
    /// Where the calling assistant message sits in the transcript.
    pub assistant_index: usize,
    /// Where the tool result sits in the transcript.
    pub result_index: usize,
    /// The tool name.
    pub name: &'a str,
    /// The arguments as sent back.
    pub arguments: &'a str,
    /// The tool's result.
    pub result: &'a str,
    /// Requirement ids the call declared that resolved.
    pub anchors: &'a [String],
    /// Requirement ids the call declared that did not resolve.
    pub rejected: &'a [String],
    /// The calling turn's content.
    pub content: &'a str,
    /// All answers so far.
    pub answers: &'a Answers,
}

/// A strategy's run over one sample, kept beside the transcript and exported with the sample.
#[derive(Debug)]
pub struct StrategyState(Box<dyn StrategyRun>);

impl Clone for StrategyState {
    fn clone(&self) -> StrategyState {
        StrategyState(self.0.clone_run())
    }
}

/// Runs of the same type with equal records and parameters.
impl PartialEq for StrategyState {
    fn eq(&self, other: &StrategyState) -> bool {
        self.0.same_run(other.0.as_ref())
    }
}

impl StrategyState {
    /// The empty record of `strategy` for a sample.
    pub fn new(strategy: &Strategy, spec: &SampleSpec) -> StrategyState {
        StrategyState(strategy.kind().start(strategy, spec))
    }

    /// Hears an assistant turn (before its tool calls).
    pub fn observe_turn(&mut self, event: &TurnEvent<'_>) {
        self.0.observe_turn(event);
    }

    /// Hears an executed tool call.
    pub fn observe_call(&mut self, event: &CallEvent<'_>) {
        self.0.observe_call(event);
    }

    /// Hears a repair message the harness added.
    pub fn observe_repair(&mut self, turn: usize, message_index: usize, text: &str) {
        self.0.observe_repair(turn, message_index, text);
    }

    /// What to send next.
    pub fn plan(&self, input: &ContextInput<'_>) -> Plan {
        self.0.plan(input)
    }

    /// Takes the reply of an auxiliary call this state asked for.
    pub fn on_auxiliary_reply(&mut self, input: &ContextInput<'_>, content: &str) {
        self.0.on_auxiliary_reply(input, content);
    }

    /// The record as JSON, when the strategy keeps one.
    pub fn to_json(&self) -> Option<Value> {
        self.0.to_json()
    }

    /// The key the record is exported under (`acg_record` for `acg-lite`, `strategy_record` for the others).
    pub fn record_key(&self) -> &'static str {
        self.0.record_key()
    }

    /// The run as its own type `T`, when it is one.
    pub fn run<T: StrategyRun + 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }
}

/// The exchanges after the prompt: each starts at an assistant message and holds everything up to the next one
/// (its tool results, a repair message). Messages between the prompt and the first assistant message, if any,
/// form an exchange of their own. Ranges index the transcript.
pub fn exchanges(messages: &[Message]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let start = messages.len().min(2);
    let mut current = start;
    for (i, message) in messages.iter().enumerate().skip(start) {
        if message.role == Role::Assistant && i > current {
            out.push(current..i);
            current = i;
        }
    }
    if current < messages.len() {
        out.push(current..messages.len());
    }
    out
}

/// The system prompt and the task prompt: the first two messages.
pub fn head(messages: &[Message]) -> Vec<Message> {
    messages.iter().take(2).cloned().collect()
}

/// The head with `text` appended to the task prompt after a blank line.
pub fn head_with_view(messages: &[Message], text: &str) -> Vec<Message> {
    let mut out = head(messages);
    if let Some(user) = out.get_mut(1) {
        user.content = format!("{}\n\n{}", user.content, text);
    }
    out
}

#[cfg(test)]
pub(crate) mod testing {
    //! Hand-made transcripts shared by the strategies' tests.
    use super::*;
    use crate::engine::agent::chat::ToolCall;

    /// A sample over `prompt` (truth 1).
    pub fn spec(prompt: &str) -> SampleSpec {
        SampleSpec::from_json(&json!({"prompt": prompt, "ground_truth": 1}), 0).expect("a valid sample")
    }

    /// The strategy input over a transcript, uncalibrated.
    pub fn input<'a>(messages: &'a [Message], spec: &'a SampleSpec, answers: &'a Answers) -> ContextInput<'a> {
        ContextInput { messages, spec, answers, estimator: TokenEstimator::default(), room: None }
    }

    /// `[system, user(prompt)]`.
    pub fn start(prompt: &str) -> Vec<Message> {
        vec![Message::new(Role::System, "sys"), Message::new(Role::User, prompt)]
    }

    /// Appends an assistant turn with `calls` calculator calls and their results (`result` each).
    pub fn exchange(messages: &mut Vec<Message>, turn: usize, content: &str, results: &[&str]) {
        let mut assistant = Message::new(Role::Assistant, content);
        for (k, _) in results.iter().enumerate() {
            assistant.tool_calls.push(ToolCall { id: format!("c{turn}_{k}"), name: "calculator".into(), arguments: format!("{{\"expressions\": [\"{turn} + {k}\"]}}") });
        }
        messages.push(assistant);
        for (k, result) in results.iter().enumerate() {
            let mut tool = Message::new(Role::Tool, *result);
            tool.tool_call_id = Some(format!("c{turn}_{k}"));
            tool.name = Some("calculator".into());
            messages.push(tool);
        }
    }

    /// Checks the invariants every request must keep: it starts with the system prompt and the task prompt
    /// (possibly extended), every tool result follows the assistant message that called it, every call has its
    /// result, and every other message is a transcript message kept whole or a harness-made message.
    pub fn assert_well_formed(sent: &[Message], transcript: &[Message]) {
        assert!(sent.len() >= 2, "a request keeps the system prompt and the task prompt");
        assert_eq!(sent[0], transcript[0]);
        assert!(sent[1].content.starts_with(&transcript[1].content), "the task prompt is never cut");
        let mut open: Vec<String> = Vec::new();
        for (i, m) in sent.iter().enumerate() {
            match m.role {
                Role::Assistant => {
                    assert!(open.is_empty(), "calls {open:?} have no result before message {i}");
                    open = m.tool_calls.iter().map(|c| c.id.clone()).collect();
                }
                Role::Tool => {
                    let id = m.tool_call_id.clone().unwrap_or_default();
                    let at = open.iter().position(|o| *o == id);
                    assert!(at.is_some(), "tool result {id} at {i} does not follow its call");
                    open.retain(|o| *o != id);
                }
                _ => assert!(open.is_empty(), "calls {open:?} have no result before message {i}"),
            }
            if i >= 2 && m.purpose.as_deref() != Some("summary") {
                let whole = transcript.iter().any(|t| t == m);
                let masked = m.role == Role::Tool && transcript.iter().any(|t| t.tool_call_id == m.tool_call_id && t.role == Role::Tool);
                assert!(whole || masked, "message {i} is neither a transcript message nor a masked tool result: {m:?}");
            }
        }
        assert!(open.is_empty(), "calls {open:?} have no result");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_names_only_the_parameters_off_their_defaults_and_parses_back() {
        for info in registry() {
            let defaults = Strategy::parse(info.name).unwrap();
            assert_eq!(defaults.label(), info.name, "every parameter at its default: the bare name");
            assert_eq!(short_label(&defaults.to_string()), info.name, "{defaults}");
            // Each parameter moved off its default is the one named.
            for (at, param) in info.params.iter().enumerate() {
                let value = if param.default < param.max { param.default + 1 } else { param.default - 1 };
                let mut changed = defaults.clone();
                changed.values[at] = value;
                assert_eq!(changed.label(), format!("{}:{}={value}", info.name, param.key));
                assert_eq!(Strategy::parse(&changed.label()), Ok(changed.clone()), "the label parses back");
            }
        }
        // The spelling that made the comparison's strategy column wide, and a spec of another release.
        assert_eq!(short_label("acg:budget_tokens=5000,clusters=0"), "acg:clusters=0");
        assert_eq!(short_label("window:exchanges=4"), "window:exchanges=4");
        assert_eq!(short_label("mask:keep=10"), "mask");
        assert_eq!(short_label("retrieval:k=3"), "retrieval:k=3");
    }

    #[test]
    fn every_registered_strategy_parses_its_defaults_and_prints_back() {
        for info in registry() {
            let strategy = Strategy::parse(info.name).expect(info.name);
            assert_eq!(strategy.name(), info.name);
            assert_eq!(strategy.params().len(), info.params.len(), "{}", info.name);
            for (param, (key, value)) in info.params.iter().zip(strategy.params()) {
                assert_eq!((param.key, param.default), (key, value));
                assert!(param.min <= param.default && param.default <= param.max, "{} {}", info.name, param.key);
            }
            assert_eq!(Strategy::parse(&strategy.to_string()), Ok(strategy.clone()), "{strategy}");
            assert!(!info.description.is_empty());
        }
        let names: Vec<&str> = registry().iter().map(|s| s.name).collect();
        assert_eq!(names, ["full", "acg-lite", "acg", "mask", "window", "summary", "mask+summary", "graph", "recent-answers"], "the eight strategies, then the test-only example");
    }

    #[test]
    fn parameters_override_defaults_in_both_spellings() {
        assert_eq!(Strategy::parse("mask:keep=3").map(|s| s.params()), Ok(vec![("keep", 3)]));
        assert_eq!(Strategy::parse(" window : exchanges = 2 ").map(|s| s.params()), Ok(vec![("exchanges", 2)]));
        let parts = vec![("trigger_tokens".to_string(), "1_000".to_string())];
        assert_eq!(
            Strategy::from_parts("summary", &parts).map(|s| s.params()),
            Ok(vec![("trigger_tokens", 1000), ("keep_exchanges", 4), ("summary_tokens", 1024)])
        );
        assert_eq!(Strategy::parse("mask+summary:keep=2").map(|s| s.to_string()).as_deref(), Ok("mask+summary:keep=2,trigger_tokens=8000,keep_exchanges=4,summary_tokens=1024"));
    }

    #[test]
    fn unknown_names_and_bad_parameters_are_typed_errors() {
        assert!(matches!(Strategy::parse("fifo"), Err(StrategyError::UnknownStrategy { name, known }) if name == "fifo" && known.contains("mask+summary")));
        assert!(matches!(Strategy::parse("mask:window=3"), Err(StrategyError::UnknownParameter { key, .. }) if key == "window"));
        assert!(matches!(Strategy::parse("full:keep=3"), Err(StrategyError::UnknownParameter { known, .. }) if known == "it takes none"));
        assert!(matches!(Strategy::parse("mask:keep=many"), Err(StrategyError::NotANumber { value, .. }) if value == "many"));
        assert!(matches!(Strategy::parse("window:exchanges=0"), Err(StrategyError::OutOfRange { value: 0, min: 1, .. })));
        assert!(matches!(Strategy::parse("mask:keep"), Err(StrategyError::Syntax { .. })));
        assert!(matches!(Strategy::parse("mask:keep=1,keep=2"), Err(StrategyError::Duplicate { .. })));
        assert_eq!(Strategy::parse("window:exchanges=0").unwrap_err().to_string(), "parameter `exchanges` of `window` must be between 1 and 1000000, got 0");
    }

    #[test]
    fn old_results_that_say_acg_read_as_acg_lite() {
        assert_eq!(Strategy::from_results("acg", None, Some(3000)), Strategy::parse("acg-lite:budget_tokens=3000"));
        assert_eq!(Strategy::from_results("acg", Some(&json!({"budget_tokens": 5000})), None), Strategy::parse("acg"), "switches not recorded take the paper's setting");
        assert_eq!(
            Strategy::parse("acg:clusters=0,inherit=0").map(|s| s.params()),
            Ok(vec![("budget_tokens", 5000), ("clusters", 0), ("anchors", 1), ("spans", 1), ("inherit", 0)])
        );
        assert!(matches!(Strategy::parse("acg:spans=2"), Err(StrategyError::OutOfRange { max: 1, .. })));
        assert_eq!(Strategy::from_results("full", None, None), Ok(Strategy::default()));
        assert_eq!(Strategy::from_results("mask", Some(&json!({"keep": 4})), None).map(|s| s.to_string()).as_deref(), Ok("mask:keep=4"));
    }

    #[test]
    fn exchanges_start_at_assistant_messages_and_keep_their_results() {
        let mut messages = testing::start("p");
        testing::exchange(&mut messages, 0, "a", &["r0", "r1"]);
        messages.push(Message::new(Role::Assistant, "no calls"));
        messages.push(Message::new(Role::User, "repair").with_purpose("repair:final_answer"));
        testing::exchange(&mut messages, 2, "b", &["r2"]);
        assert_eq!(exchanges(&messages), vec![2..5, 5..7, 7..9]);
        assert_eq!(exchanges(&messages[..2]), Vec::<Range<usize>>::new());
    }

    #[test]
    fn pictures_travel_whole_with_their_message_under_every_strategy() {
        let picture = |k: u32| crate::engine::agent::ImagePart { url: format!("data:image/png;base64,P{k}"), width: 2000, height: 1400, label: format!("Image {k} (Task {k}):") };
        let mut transcript = testing::start("Task 1: follow the path. Task 2: follow another.");
        transcript[1].images = vec![picture(1), picture(2)];
        for turn in 0..8 {
            testing::exchange(&mut transcript, turn, &"reasoning ".repeat(200), &["{\"results\": [\"3\"]}"]);
        }
        // A later user message with a picture of its own (as a repair that shows the picture again would be).
        transcript.push(Message::new(Role::User, "look again").with_purpose("repair:final_answer"));
        transcript.last_mut().expect("just pushed").images = vec![picture(2)];
        let spec = testing::spec(&transcript[1].content);
        let answers = Answers::new();
        let input = testing::input(&transcript, &spec, &answers);
        let specs = ["full", "mask:keep=1", "window:exchanges=1", "summary:trigger_tokens=50", "mask+summary:keep=1,trigger_tokens=50", "acg:budget_tokens=300", "acg-lite:budget_tokens=300", "graph"];
        for text in specs {
            let strategy = Strategy::parse(text).expect(text);
            let whole = |messages: &[Message]| {
                for m in messages.iter().filter(|m| !m.images.is_empty()) {
                    assert!(transcript.iter().any(|t| t.role == m.role && t.images == m.images), "{text}: pictures are sent only as whole messages had them");
                }
            };
            let mut state = StrategyState::new(&strategy, &spec);
            let mut plan = state.plan(&input);
            if let Plan::Auxiliary(request) = &plan {
                // The summary call condenses the history; what it carries of pictures, it carries whole.
                whole(&request.messages);
                state.on_auxiliary_reply(&input, "So far: task_1_out = 3.");
                plan = state.plan(&input);
            }
            let messages = match plan {
                Plan::Send(messages) => messages,
                Plan::Auxiliary(request) => request.messages,
            };
            assert_eq!(messages[1].images, transcript[1].images, "{text}: the task prompt keeps both pictures");
            whole(&messages);
            // An image counts in the request's size estimate, so budgets see it.
            let without: Vec<Message> = messages.iter().cloned().map(|mut m| { m.images.clear(); m }).collect();
            assert!(estimate_request_tokens(&messages) > estimate_request_tokens(&without), "{text}");
        }
    }
}
