//! Running a sample against a chat backend: the async loop both the CLI and the browser use. The backend sends
//! one attempt, sleeps, and supplies jitter; this module decides retries (`retry`), feeds replies to the session,
//! reports every event to the backend (so a driver can persist each turn before it shows it), and stops cleanly
//! when the backend says the user cancelled. Still sans-IO: no clock, no network, no executor of its own.

use super::chat::{ChatReply, ChatRequest};
use super::config::AgentConfig;
use super::error::AgentError;
use super::provider::{Resend, MAX_ADAPTATIONS_PER_REQUEST};
use super::retry::{RetryDecision, RetryPolicy};
use super::session::{AgentInput, AgentRecord, AgentSession, Step};

/// One failed attempt, as the backend saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFailure {
    /// What went wrong.
    pub error: AgentError,
    /// The wait the server asked for, in milliseconds, when it said (see `retry::wait_from_headers`).
    pub retry_after_ms: Option<u64>,
    /// Which of the server's limits the wait is for, when its headers said.
    pub limit: Option<String>,
    /// The whole error body (the error keeps an excerpt), for [`ChatBackend::adapt`].
    pub body: String,
}

impl From<AgentError> for CallFailure {
    fn from(error: AgentError) -> CallFailure {
        CallFailure { error, retry_after_ms: None, limit: None, body: String::new() }
    }
}

impl CallFailure {
    /// An HTTP failure with its whole body and the wait its headers asked for.
    pub fn http(status: u16, body: String, wait: Option<super::retry::RateWait>) -> CallFailure {
        CallFailure { error: AgentError::http(status, &body), retry_after_ms: wait.as_ref().map(|w| w.ms), limit: wait.map(|w| w.limit), body }
    }
}

/// Something that happened while running a sample, in order.
#[derive(Clone, Copy, Debug)]
pub enum EpisodeEvent<'a> {
    /// A request is about to be sent (first attempt).
    Request(&'a ChatRequest),
    /// The reply of `turn` arrived and is about to be consumed.
    Reply { turn: usize, reply: &'a ChatReply },
    /// Attempt `attempt` of `turn` failed; the next one follows after `delay_ms` (`limit`: the server's limit
    /// being waited out, when it said).
    Retry { turn: usize, attempt: u32, delay_ms: u64, error: &'a AgentError, limit: Option<&'a str> },
    /// The endpoint refused a parameter of `turn`'s request; the request goes again, changed as `note` says.
    Adapted { turn: usize, note: &'a super::provider::Note },
}

/// Where a chat request goes: fetch in the browser, blocking HTTP in the CLI, canned replies in tests.
// Drivers run this on single-threaded executors (the browser's, one per sample thread in the CLI), so the
// returned futures need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait ChatBackend {
    /// Sends one attempt of `request`.
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, CallFailure>;

    /// Waits `ms` milliseconds without blocking other work.
    async fn sleep(&self, ms: u64);

    /// A uniform draw in [0, 1) for retry jitter.
    fn jitter(&self) -> f64;

    /// True once the user asked to stop; checked before every attempt and after every wait.
    fn is_cancelled(&self) -> bool {
        false
    }

    /// Hears every event before the loop goes on (a driver stores turns here). Does nothing by default.
    async fn record(&self, _event: EpisodeEvent<'_>) {}

    /// Adapts the run's requests to a refusal (`provider::RequestShape::respond`): the refused request is sent
    /// again at once unless the answer is `Resend::Stands` (the default, for backends that adapt nothing).
    fn adapt(&self, _failure: &CallFailure) -> Resend {
        Resend::Stands
    }
}

/// How an episode ended.
#[derive(Clone, Debug)]
pub enum EpisodeEnd {
    /// The sample finished (success or any failure status, `api_error` included).
    Finished(Box<AgentRecord>),
    /// The user stopped it; nothing is recorded as failed and the sample can run again (or resume).
    Cancelled,
}

/// Sends `request` with retries under `policy`. Returns the reply, or the final error (`Cancelled` when stopped).
pub async fn send_with_retries<B: ChatBackend>(backend: &B, request: &ChatRequest, policy: &RetryPolicy) -> Result<ChatReply, AgentError> {
    let mut attempt = 1;
    let mut adaptations = 0;
    loop {
        if backend.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        let failure = match backend.send(request).await {
            Ok(reply) => return Ok(reply),
            Err(failure) => failure,
        };
        if failure.error == AgentError::Cancelled || backend.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        // A refused parameter is not a failure to wait out: change the request and send it again at once.
        if adaptations < MAX_ADAPTATIONS_PER_REQUEST {
            match backend.adapt(&failure) {
                Resend::Adapted(note) => {
                    adaptations += 1;
                    backend.record(EpisodeEvent::Adapted { turn: request.turn, note: &note }).await;
                    continue;
                }
                Resend::AlreadyAdapted => {
                    adaptations += 1;
                    continue;
                }
                Resend::Stands => {}
            }
        }
        match policy.after_failure(attempt, failure.error.clone(), failure.retry_after_ms, backend.jitter()) {
            RetryDecision::GiveUp(error) => return Err(error),
            RetryDecision::Retry { delay_ms } => {
                backend.record(EpisodeEvent::Retry { turn: request.turn, attempt, delay_ms, error: &failure.error, limit: failure.limit.as_deref() }).await;
                backend.sleep(delay_ms).await;
            }
        }
        attempt += 1;
    }
}

/// Runs a session from `step` to its end over `backend`.
pub async fn run_episode<B: ChatBackend>(backend: &B, mut session: AgentSession, mut step: Step, policy: &RetryPolicy) -> EpisodeEnd {
    loop {
        let request = match step {
            Step::Finished(record) => return EpisodeEnd::Finished(record),
            // Auxiliary calls go to the same endpoint under the same retry policy as turns.
            Step::Send(request) | Step::Auxiliary(request) => request,
        };
        backend.record(EpisodeEvent::Request(&request)).await;
        step = match send_with_retries(backend, &request, policy).await {
            Ok(reply) => {
                backend.record(EpisodeEvent::Reply { turn: request.turn, reply: &reply }).await;
                session.on_reply(reply)
            }
            Err(AgentError::Cancelled) => return EpisodeEnd::Cancelled,
            Err(error) => session.on_error(error),
        };
    }
}

/// Runs a sample to the end with a synchronous `call` (scripted replies in tests and replays); a call error ends
/// the sample as `api_error`, with no retries.
pub fn run_to_end(input: &AgentInput, config: &AgentConfig, mut call: impl FnMut(&ChatRequest) -> Result<ChatReply, AgentError>) -> AgentRecord {
    let (mut session, mut step) = AgentSession::start(input, config);
    loop {
        step = match step {
            Step::Send(request) | Step::Auxiliary(request) => match call(&request) {
                Ok(reply) => session.on_reply(reply),
                Err(error) => session.on_error(error),
            },
            Step::Finished(record) => return *record,
        };
    }
}

/// Polls a future that never waits on anything outside itself (scripted backends, in-memory journals) to its
/// end: the engine's tests drive async code without an executor.
#[cfg(test)]
pub(crate) fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::agent::chat::ToolArguments;
    use crate::engine::agent::{ReplyToolCall, Status};
    use std::cell::{Cell, RefCell};
    use std::collections::VecDeque;

    /// Canned outcomes in order; records sleeps and events.
    struct Scripted {
        outcomes: RefCell<VecDeque<Result<ChatReply, CallFailure>>>,
        sleeps: RefCell<Vec<u64>>,
        events: RefCell<Vec<String>>,
        cancel_after_sends: Option<usize>,
        sends: Cell<usize>,
        /// The run's negotiated parameters, when the backend adapts to refusals.
        shape: Option<RefCell<crate::engine::agent::provider::RequestShape>>,
    }

    impl Scripted {
        fn new(outcomes: Vec<Result<ChatReply, CallFailure>>) -> Scripted {
            Scripted { outcomes: RefCell::new(outcomes.into()), sleeps: RefCell::default(), events: RefCell::default(), cancel_after_sends: None, sends: Cell::new(0), shape: None }
        }
    }

    impl ChatBackend for Scripted {
        async fn send(&self, _request: &ChatRequest) -> Result<ChatReply, CallFailure> {
            self.sends.set(self.sends.get() + 1);
            self.outcomes.borrow_mut().pop_front().unwrap_or_else(|| Err(AgentError::Network { message: "script ran out".into() }.into()))
        }
        async fn sleep(&self, ms: u64) {
            self.sleeps.borrow_mut().push(ms);
        }
        fn jitter(&self) -> f64 {
            1.0
        }
        fn is_cancelled(&self) -> bool {
            self.cancel_after_sends.is_some_and(|n| self.sends.get() >= n)
        }
        async fn record(&self, event: EpisodeEvent<'_>) {
            let line = match event {
                EpisodeEvent::Request(r) => format!("request {}", r.turn),
                EpisodeEvent::Reply { turn, .. } => format!("reply {turn}"),
                EpisodeEvent::Retry { turn, attempt, delay_ms, .. } => format!("retry {turn}.{attempt} after {delay_ms}"),
                EpisodeEvent::Adapted { turn, note } => format!("adapted {turn}: {:?}", note.adaptation),
            };
            self.events.borrow_mut().push(line);
        }
        fn adapt(&self, failure: &CallFailure) -> Resend {
            match (&failure.error, &self.shape) {
                (AgentError::Http { status, .. }, Some(shape)) => shape.borrow_mut().respond(*status, &failure.body),
                _ => Resend::Stands,
            }
        }
    }

    fn calculator_then_answer() -> Vec<ChatReply> {
        let call = ReplyToolCall { id: "c".into(), name: "calculator".into(), arguments: ToolArguments::Text("{\"expressions\": [\"2+3\"]}".into()) };
        vec![
            ChatReply { tool_calls: vec![call], finish_reason: Some("tool_calls".into()), ..ChatReply::default() },
            ChatReply { content: "\\boxed{task_1_out = 5}".into(), finish_reason: Some("stop".into()), ..ChatReply::default() },
        ]
    }

    fn input() -> AgentInput {
        let sample = serde_json::json!({"prompt": "Compute task_1_out.", "ground_truth": 5, "task_name": "T"});
        AgentInput::from_sample(&sample, 0).expect("valid sample")
    }

    fn start() -> (AgentSession, Step) {
        AgentSession::start(&input(), &AgentConfig::for_topology("baseline"))
    }

    #[test]
    fn retries_follow_the_policy_and_the_episode_finishes() {
        let replies = calculator_then_answer();
        let backend = Scripted::new(vec![
            Err(CallFailure { retry_after_ms: Some(2_000), ..CallFailure::from(AgentError::http(429, "slow down")) }),
            Err(AgentError::http(502, "").into()),
            Ok(replies[0].clone()),
            Ok(replies[1].clone()),
        ]);
        let (session, step) = start();
        let policy = RetryPolicy { max_attempts: 5, base_delay_ms: 100, max_delay_ms: 10_000 };
        let EpisodeEnd::Finished(record) = block_on(run_episode(&backend, session, step, &policy)) else { panic!("must finish") };
        assert_eq!(record.status, Status::Success);
        assert!(record.grade.correct);
        assert_eq!(*backend.sleeps.borrow(), vec![2_000, 200]);
        assert_eq!(*backend.events.borrow(), vec!["request 0", "retry 0.1 after 2000", "retry 0.2 after 200", "reply 0", "request 1", "reply 1"]);
    }

    #[test]
    fn a_refused_parameter_is_adapted_and_sent_again_at_once() {
        use crate::engine::agent::provider::{compatible, Adaptation, LimitParam, RequestShape, Wire};
        let refusal = r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
        let other = r#"{"error": {"message": "Invalid 'messages[0].content': string too long.", "type": "invalid_request_error"}}"#;
        let replies = calculator_then_answer();
        let refused = || Err(CallFailure::http(400, refusal.to_string(), None));
        let mut outcomes = vec![refused(), Ok(replies[0].clone())];
        // A request built before the adaptation (another lane's) is refused again: it goes again, at most
        // MAX_ADAPTATIONS_PER_REQUEST times, and then the refusal stands.
        outcomes.extend((0..=MAX_ADAPTATIONS_PER_REQUEST).map(|_| refused()));
        let mut backend = Scripted::new(outcomes);
        backend.shape = Some(RefCell::new(RequestShape::new(compatible(), Wire::ChatCompletions, "gpt-5-mini")));
        let (session, step) = start();
        let EpisodeEnd::Finished(record) = block_on(run_episode(&backend, session, step, &RetryPolicy::default())) else { panic!("must finish") };
        assert!(backend.sleeps.borrow().is_empty(), "no wait for an adaptation");
        assert_eq!(
            *backend.events.borrow(),
            vec!["request 0".to_string(), format!("adapted 0: {:?}", Adaptation::LimitRenamed(LimitParam::MaxCompletionTokens)), "reply 0".into(), "request 1".into()]
        );
        assert_eq!(backend.sends.get(), 2 + 1 + MAX_ADAPTATIONS_PER_REQUEST, "bounded resends");
        assert!(matches!(&record.status, Status::ApiError(m) if m.contains("HTTP 400: ") && m.contains("Unsupported parameter")), "{:?}", record.status);
        assert_eq!(backend.shape.unwrap().into_inner().notes().len(), 1);
        // A refusal about anything else ends the sample at once.
        let mut plain = Scripted::new(vec![Err(CallFailure::http(400, other.to_string(), None))]);
        plain.shape = Some(RefCell::new(RequestShape::new(compatible(), Wire::ChatCompletions, "m")));
        let (session, step) = start();
        let EpisodeEnd::Finished(record) = block_on(run_episode(&plain, session, step, &RetryPolicy::default())) else { panic!("must finish") };
        assert!(matches!(&record.status, Status::ApiError(m) if m.contains("string too long")));
        assert_eq!(plain.sends.get(), 1);
    }

    #[test]
    fn a_request_that_fails_for_good_ends_the_sample_as_api_error() {
        let backend = Scripted::new(vec![Err(AgentError::http(401, "invalid key").into())]);
        let (session, step) = start();
        let EpisodeEnd::Finished(record) = block_on(run_episode(&backend, session, step, &RetryPolicy::default())) else { panic!("must finish") };
        assert_eq!(record.status, Status::ApiError("HTTP 401: invalid key".into()));
        assert!(backend.sleeps.borrow().is_empty(), "client errors are not retried");
    }

    #[test]
    fn cancellation_stops_without_a_verdict() {
        let mut backend = Scripted::new(vec![Err(AgentError::http(500, "").into()), Ok(calculator_then_answer()[0].clone())]);
        backend.cancel_after_sends = Some(1);
        let (session, step) = start();
        assert!(matches!(block_on(run_episode(&backend, session, step, &RetryPolicy::default())), EpisodeEnd::Cancelled));
        assert_eq!(backend.sends.get(), 1, "no attempt after the stop");
        let backend = Scripted::new(vec![Err(AgentError::Cancelled.into())]);
        let (session, step) = start();
        assert!(matches!(block_on(run_episode(&backend, session, step, &RetryPolicy::default())), EpisodeEnd::Cancelled));
    }

    #[test]
    fn a_resumed_session_continues_from_the_stored_replies() {
        let replies = calculator_then_answer();
        let (_, step) = AgentSession::resume(&input(), &AgentConfig::for_topology("baseline"), vec![replies[0].clone()]);
        let Step::Send(request) = &step else { panic!("one more turn is due") };
        assert_eq!(request.turn, 1);
        let whole = run_to_end(&input(), &AgentConfig::for_topology("baseline"), {
            let mut it = replies.clone().into_iter();
            move |_| it.next().ok_or(AgentError::Cancelled)
        });
        let (mut session, _) = AgentSession::resume(&input(), &AgentConfig::for_topology("baseline"), vec![replies[0].clone()]);
        let Step::Finished(resumed) = session.on_reply(replies[1].clone()) else { panic!("finished") };
        assert_eq!(*resumed, whole);
    }
}
