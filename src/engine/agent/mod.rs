//! The agent harness, without IO. `session` is the state machine of one sample: `AgentSession::start`
//! gives the first request, `on_reply` consumes a reply and returns the next request or the finished record.
//! `driver` runs it over any `ChatBackend` (fetch in the browser, blocking HTTP in the CLI, canned replies in
//! tests) with the shared `retry` policy; the backend sends and sleeps, the engine decides.
//!
//! The loop: calculator tool (`toolcalls`, `crate::engine::calculator`), three repairs (initial calculator call,
//! missing final answers, cut-off), a turn limit, a context-length pre-check, answer collection after every turn
//! (`grade::collect`) and per-node grading at the end. Context strategies (`strategy`: one registry, one file per
//! strategy) decide which messages each request carries and may ask for auxiliary calls; the transcript always
//! keeps everything. `chat` holds the domain request and reply types and `openai_wire` alone maps them to JSON.
//! `endpoint` holds where to send, with the key as a `Secret`. `probe` is the deterministic solver behind
//! `arbigraph probe-server`, which measures what each strategy lets a model see.

pub mod anthropic_wire;
pub mod chat;
pub mod config;
pub mod driver;
pub mod endpoint;
pub mod error;
pub mod openai_wire;
pub mod probe;
pub mod provider;
pub mod prompts;
pub mod retry;
pub mod session;
pub mod strategy;
pub mod tokens;
pub mod toolcalls;
pub mod wire;

pub use chat::{ChatReply, ChatRequest, ImagePart, Message, ReplyToolCall, RequestKind, Role, ToolArguments, ToolCall, Usage};
pub use config::{AgentConfig, Budgets};
pub use driver::{run_episode, run_to_end, send_with_retries, CallFailure, ChatBackend, EpisodeEnd, EpisodeEvent};
pub use endpoint::{Endpoint, Secret};
pub use error::AgentError;
pub use provider::{Profile, RequestShape, Wire};
pub use retry::RetryPolicy;
pub use session::{turn_text, AgentInput, ImageInputError, InputError, AgentRecord, AgentSession, RepairCounts, RequestLog, Status, Step, UsageTotals};
pub use tokens::{estimate_tokens, CHARS_PER_TOKEN};
pub use strategy::{Strategy, StrategyError};
