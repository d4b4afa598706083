//! The browser's `ChatBackend`: one fetch POST per attempt to an OpenAI-compatible `/chat/completions`, with a
//! per-request timeout and an `AbortController` per request, so a user's stop aborts the request in flight at
//! once. Retries and waits are the engine's (`agent::driver`, `agent::retry`); the key goes only into the
//! request's headers. `Journaled` wraps it for one sample and writes each reply to the run store before the
//! session consumes it, so a reload resumes from the last stored reply.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::engine::agent::openai_wire::{reply_json, StreamDelta};
use crate::engine::agent::provider::{RequestShape, Resend};
use crate::engine::agent::retry::wait_from_headers;
use crate::engine::agent::wire::{self, Accumulator};
use crate::app::evaluate::check::{probe_picture, read_image_reply, Probe, Seen};
use crate::engine::agent::{
    send_with_retries, AgentError, CallFailure, ChatBackend, ChatReply, ChatRequest, Endpoint, EpisodeEvent, Message, RequestKind, RetryPolicy, Role,
};
use crate::engine::run::{Run, Spend, Tokens};
use crate::web::storage::{turn_key, Store, TURNS};

/// The page's handle on a run: the engine's `Run` (queue, stop, pause, spend and budget) shared with the
/// buttons, the requests in flight (a stop aborts them), and the counts the progress line shows. Cancelling
/// stops the run and aborts the requests in flight; pausing holds every next job and request (those in flight
/// finish and are stored) until resumed; a spent budget stops the run the same way, leaving the requests in
/// flight to finish. Also counts requests and retries, and notes when the endpoint last asked to slow down (a
/// 429). Cheap to clone.
#[derive(Clone, Default)]
pub struct RunControl {
    run: Rc<RefCell<Run>>,
    rate_limited_until: Rc<Cell<f64>>,
    /// The limit the endpoint's headers named for the latest wait ("requests limit", "tokens limit", …).
    rate_limit: Rc<RefCell<String>>,
    in_flight: Rc<RefCell<Vec<web_sys::AbortController>>>,
    requests: Rc<Cell<usize>>,
    retries: Rc<Cell<usize>>,
}

impl RunControl {
    /// Asks every request of the run to stop now.
    pub fn cancel(&self) {
        self.run.borrow_mut().stop();
        for controller in self.in_flight.borrow_mut().drain(..) {
            controller.abort();
        }
    }

    /// True once the run was stopped (by `cancel` or a spent budget).
    pub fn is_cancelled(&self) -> bool {
        self.run.borrow().is_stopped()
    }

    /// Holds (true) or lets go (false) the run's next jobs and requests.
    pub fn set_paused(&self, paused: bool) {
        self.run.borrow_mut().pause(paused);
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.run.borrow().is_paused()
    }

    /// Waits while the run is paused (and not cancelled).
    pub async fn while_paused(&self) {
        while self.is_paused() && !self.is_cancelled() {
            sleep_ms(100).await;
        }
    }

    /// True while a retry after a 429 is waiting.
    pub fn is_rate_limited(&self) -> bool {
        js_sys::Date::now() < self.rate_limited_until.get()
    }

    /// The limit being waited out, while one is (`None` when not rate-limited or the endpoint did not say).
    pub fn rate_limit(&self) -> Option<String> {
        let limit = self.rate_limit.borrow().clone();
        (self.is_rate_limited() && !limit.is_empty()).then_some(limit)
    }

    /// A control for a run with `spend`'s prices and budgets.
    pub fn with_spend(spend: Spend) -> RunControl {
        let control = RunControl::default();
        *control.run.borrow_mut() = Run::new(Vec::new(), spend);
        control
    }

    /// The engine's run this control steers (borrow it only between awaits).
    pub fn run(&self) -> &RefCell<Run> {
        &self.run
    }

    /// (input, output) tokens spent so far.
    pub fn tokens(&self) -> (u64, u64) {
        let tokens = self.tokens_billed();
        (tokens.input, tokens.output)
    }

    /// Tokens spent so far as billed: input, of it cached, output.
    pub fn tokens_billed(&self) -> Tokens {
        self.run.borrow().meter().tokens
    }

    /// Reasoning tokens reported so far (part of the output).
    pub fn reasoning_tokens(&self) -> u64 {
        self.run.borrow().meter().reasoning
    }

    /// The money spent so far as billed (cached input at its price), when the run has prices.
    pub fn cost(&self) -> Option<f64> {
        self.run.borrow().meter().cost()
    }

    /// Why the run stopped itself, if it did.
    pub fn halted(&self) -> Option<String> {
        self.run.borrow().halted().map(str::to_string)
    }

    /// True (and the run stopped, the requests in flight left to finish) once a budget is spent.
    fn out_of_budget(&self) -> bool {
        self.run.borrow_mut().over_budget()
    }

    /// Requests sent (every attempt) and attempts retried so far.
    pub fn counts(&self) -> (usize, usize) {
        (self.requests.get(), self.retries.get())
    }

    /// Adds a reply's tokens to the run's spend (its reported usage, or an estimate from its text).
    pub fn count_tokens(&self, reply: &ChatReply) {
        self.run.borrow_mut().count_reply(reply);
    }

    fn hear(&self, event: &EpisodeEvent<'_>) {
        if let EpisodeEvent::Reply { reply, .. } = event {
            self.count_tokens(reply);
        }
        if let EpisodeEvent::Retry { delay_ms, error, limit, .. } = event {
            self.retries.set(self.retries.get() + 1);
            if matches!(error, AgentError::Http { status: 429, .. }) {
                let until = js_sys::Date::now() + *delay_ms as f64;
                self.rate_limited_until.set(self.rate_limited_until.get().max(until));
                *self.rate_limit.borrow_mut() = limit.unwrap_or_default().to_string();
            }
        }
    }
}

/// Sends requests with fetch.
pub struct FetchBackend {
    /// Where to send.
    pub endpoint: Endpoint,
    /// What the run's requests carry: the profile's rules and the adaptations learnt, shared by every lane.
    pub shape: Rc<RefCell<RequestShape>>,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: u64,
    /// The run's stop switch.
    pub control: RunControl,
    /// Ask for server-sent events and read the reply as it arrives.
    pub stream: bool,
}

/// Sleeps without blocking the tab.
pub async fn sleep_ms(ms: u64) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.min(i32::MAX as u64) as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

impl ChatBackend for FetchBackend {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, CallFailure> {
        self.send_observed(request, &|_| {}).await
    }

    async fn sleep(&self, ms: u64) {
        // Wake early when the user stops, so a long Retry-After never delays a cancel.
        let mut left = ms;
        while left > 0 && !self.control.is_cancelled() {
            let step = left.min(200);
            sleep_ms(step).await;
            left -= step;
        }
    }

    fn jitter(&self) -> f64 {
        js_sys::Math::random()
    }

    fn is_cancelled(&self) -> bool {
        self.control.is_cancelled()
    }

    async fn record(&self, event: EpisodeEvent<'_>) {
        self.control.hear(&event);
    }

    fn adapt(&self, failure: &CallFailure) -> Resend {
        match failure.error {
            AgentError::Http { status, .. } => self.shape.borrow_mut().respond(status, &failure.body),
            _ => Resend::Stands,
        }
    }
}

impl FetchBackend {
    /// A backend for `endpoint` whose requests start from the endpoint's own shape.
    pub fn new(endpoint: Endpoint, timeout_ms: u64, control: RunControl, stream: bool) -> FetchBackend {
        let shape = Rc::new(RefCell::new(endpoint.shape()));
        FetchBackend { endpoint, shape, timeout_ms, control, stream }
    }

    /// Sends one attempt; when streaming, `observe` hears each piece of the reply as it arrives.
    pub async fn send_observed(&self, request: &ChatRequest, observe: &dyn Fn(&StreamDelta)) -> Result<ChatReply, CallFailure> {
        self.control.while_paused().await;
        if self.control.is_cancelled() || self.control.out_of_budget() {
            return Err(AgentError::Cancelled.into());
        }
        let controller = web_sys::AbortController::new().map_err(|e| AgentError::Request { reason: format!("{e:?}") })?;
        let signal = controller.signal();
        self.control.requests.set(self.control.requests.get() + 1);
        self.control.in_flight.borrow_mut().push(controller.clone());
        // The timeout aborts the same controller; `timed_out` tells the two causes apart.
        let timed_out = Rc::new(Cell::new(false));
        let on_timeout = {
            let (controller, timed_out) = (controller.clone(), timed_out.clone());
            Closure::once(move || {
                timed_out.set(true);
                controller.abort();
            })
        };
        let timer = web_sys::window().and_then(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(on_timeout.as_ref().unchecked_ref(), self.timeout_ms.min(i32::MAX as u64) as i32).ok()
        });
        let started = js_sys::Date::now();
        let result = self.attempt(request, &signal, observe).await;
        if let (Some(window), Some(timer)) = (web_sys::window(), timer) {
            window.clear_timeout_with_handle(timer);
        }
        drop(on_timeout);
        self.control.in_flight.borrow_mut().retain(|c| c != &controller);
        match result {
            Ok(mut reply) => {
                reply.latency_ms = Some((js_sys::Date::now() - started) as u64);
                Ok(reply)
            }
            Err(_) if self.control.is_cancelled() => Err(AgentError::Cancelled.into()),
            Err(_) if timed_out.get() => Err(AgentError::Timeout { after_ms: self.timeout_ms }.into()),
            Err(failure) => Err(failure),
        }
    }

    async fn attempt(&self, request: &ChatRequest, signal: &web_sys::AbortSignal, observe: &dyn Fn(&StreamDelta)) -> Result<ChatReply, CallFailure> {
        let mut builder = gloo_net::http::Request::post(&self.endpoint.chat_url()).abort_signal(Some(signal));
        for (name, value) in self.endpoint.request_headers(true) {
            builder = builder.header(&name, &value);
        }
        let (body, wire) = {
            let shape = self.shape.borrow();
            (wire::request_body(&shape, request, &self.endpoint.model, self.stream), shape.wire)
        };
        let sent = builder.body(body.to_string()).map_err(|e| AgentError::Request { reason: e.to_string() })?;
        let response = sent.send().await.map_err(|e| AgentError::Network { message: e.to_string() })?;
        let status = response.status();
        let headers = response.headers();
        let wait = wait_from_headers(&|name| headers.get(name), Some(js_sys::Date::now() as u64));
        if self.stream && (200..300).contains(&status) {
            if let Some(stream) = response.body() {
                return read_stream(stream, Accumulator::new(wire), observe).await.map_err(CallFailure::from);
            }
        }
        let text = response.text().await.map_err(|e| AgentError::Network { message: format!("reading the reply body failed: {e}") })?;
        if !(200..300).contains(&status) {
            return Err(CallFailure::http(status, text, wait));
        }
        wire::parse_reply(wire, &text).map_err(|e| AgentError::Malformed { reason: e.to_string() }.into())
    }
}

/// Reads a streamed reply piece by piece into the engine's accumulator, telling `observe` what each piece added.
/// Bytes of a character split between pieces wait for the rest; a body that is not an event stream (a server
/// that ignored `stream`) is read as a plain completion by the accumulator.
async fn read_stream(stream: web_sys::ReadableStream, mut accumulator: Accumulator, observe: &dyn Fn(&StreamDelta)) -> Result<ChatReply, AgentError> {
    let network = |e: wasm_bindgen::JsValue| AgentError::Network { message: format!("reading the streamed reply failed: {e:?}") };
    let reader: web_sys::ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        let chunk = wasm_bindgen_futures::JsFuture::from(reader.read()).await.map_err(network)?;
        if js_sys::Reflect::get(&chunk, &"done".into()).map_err(network)?.as_bool().unwrap_or(true) {
            break;
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(network)?;
        bytes.extend(js_sys::Uint8Array::new(&value).to_vec());
        let valid = match std::str::from_utf8(&bytes) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        let text = String::from_utf8_lossy(&bytes[..valid]).into_owned();
        bytes.drain(..valid);
        let delta = accumulator.push(&text).map_err(|e| AgentError::Malformed { reason: e.to_string() })?;
        if !delta.is_empty() {
            observe(&delta);
        }
    }
    accumulator.finish().map_err(|e| AgentError::Malformed { reason: e.to_string() })
}

/// The backend of one sample of a stored run: sends through `inner` and stores every reply (as the wire's JSON,
/// without any header, so never the key) under `run|index|seq`, `seq` counting on from the replies already stored.
pub struct Journaled<'a> {
    /// The run's backend.
    pub inner: &'a FetchBackend,
    /// The run store.
    pub store: &'a Store,
    /// The run id.
    pub run: String,
    /// The sample's index.
    pub index: usize,
    /// The next reply's number.
    pub seq: Cell<usize>,
    /// Told (sample, piece) as a streamed reply arrives, and (sample, `None`) when a request starts.
    pub live: Option<&'a dyn Fn(usize, Option<&StreamDelta>)>,
}

impl ChatBackend for Journaled<'_> {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, CallFailure> {
        match self.live {
            Some(live) => {
                live(self.index, None);
                self.inner.send_observed(request, &|delta| live(self.index, Some(delta))).await
            }
            None => self.inner.send(request).await,
        }
    }

    async fn sleep(&self, ms: u64) {
        self.inner.sleep(ms).await
    }

    fn jitter(&self) -> f64 {
        self.inner.jitter()
    }

    fn is_cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    fn adapt(&self, failure: &CallFailure) -> Resend {
        self.inner.adapt(failure)
    }

    async fn record(&self, event: EpisodeEvent<'_>) {
        self.inner.control.hear(&event);
        if let EpisodeEvent::Reply { reply, .. } = event {
            let seq = self.seq.get();
            self.seq.set(seq + 1);
            let stored = reply_json(reply, &self.inner.endpoint.model, "stored");
            // A failed write costs only a resend of this turn after a reload; the run goes on.
            let _ = self.store.put(TURNS, &turn_key(&self.run, self.index, seq), &stored).await;
        }
    }
}

/// Runs the endpoint check's probes in order (`/models` through the CORS preflight, a plain chat call, a call
/// offering the calculator, a call with a picture of a number) and says what each saw; `app::evaluate::check`
/// explains them. The chat calls go as a run's would (its temperature, its repair completion limit), so a
/// refused parameter is met the way the run will meet it; the returned sentences say what the run will adapt.
/// A failed fetch is retried once as a no-CORS request: if that reaches the server, the browser refused the
/// reply (CORS).
pub async fn check_endpoint(endpoint: &Endpoint, temperature: f64, max_tokens: u32) -> (Vec<(Probe, Seen)>, Vec<String>) {
    let mut seen = Vec::new();
    let mut builder = gloo_net::http::Request::get(&endpoint.models_url());
    for (name, value) in endpoint.request_headers(true) {
        builder = builder.header(&name, &value);
    }
    let models = match builder.send().await {
        Ok(response) if response.ok() => {
            let text = response.text().await.unwrap_or_default();
            let count = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v.get("data")?.as_array().map(Vec::len));
            Seen::Ok(match count {
                Some(n) => format!("the preflight passed and /models lists {n} model(s)"),
                None => "the preflight passed and /models answered".into(),
            })
        }
        Ok(response) => Seen::Http(response.status(), response.text().await.unwrap_or_default()),
        Err(e) => reachable_without_cors(&endpoint.models_url(), e.to_string()).await,
    };
    let blocked = matches!(models, Seen::CorsRefused | Seen::Unreachable(_));
    seen.push((Probe::Models, models));
    let backend = FetchBackend::new(endpoint.clone(), 60_000, RunControl::default(), false);
    if blocked {
        return (seen, backend.shape.borrow().planned(temperature, max_tokens));
    }
    let ask = |text: &str, kind: RequestKind| ChatRequest { messages: vec![Message::new(Role::User, text)], max_tokens, temperature, top_p: 0.95, repair: false, turn: 0, kind };
    // One attempt each, adapted to refused parameters as a run would be.
    let once = RetryPolicy { max_attempts: 1, ..RetryPolicy::default() };
    let chat = match send_with_retries(&backend, &ask("Reply with the single word: ready", RequestKind::Summary), &once).await {
        Ok(reply) if reply.content.trim().is_empty() => Seen::Ok(format!("the model replied, with {} tool call(s) and no text", reply.tool_calls.len())),
        Ok(reply) => Seen::Ok(format!("the model replied ({} characters of text)", reply.content.chars().count())),
        Err(error) => seen_of(error),
    };
    seen.push((Probe::Chat, chat));
    let tool = match send_with_retries(&backend, &ask("Use the calculator tool to compute 1234 * 5678.", RequestKind::Turn), &once).await {
        Ok(reply) if reply.tool_calls.iter().any(|c| c.name == "calculator") => Seen::Ok("the model called the calculator".into()),
        Ok(_) => Seen::NoToolCall,
        Err(error) => seen_of(error),
    };
    seen.push((Probe::ToolCall, tool));
    let image = {
        let mut request = ask("What number is written in this picture? Reply with the number only.", RequestKind::Summary);
        request.messages[0].images = vec![probe_picture()];
        match send_with_retries(&backend, &request, &once).await {
            Ok(reply) => read_image_reply(&reply.content),
            Err(error) => seen_of(error),
        }
    };
    seen.push((Probe::Image, image));
    let planned = backend.shape.borrow().planned(temperature, max_tokens);
    (seen, planned)
}

fn seen_of(error: AgentError) -> Seen {
    match error {
        AgentError::GaveUp { last, .. } => seen_of(*last),
        AgentError::Http { status, body_excerpt } => Seen::Http(status, body_excerpt),
        AgentError::Malformed { reason } => Seen::Malformed(reason),
        other => Seen::Unreachable(other.to_string()),
    }
}

async fn reachable_without_cors(url: &str, reason: String) -> Seen {
    match gloo_net::http::Request::get(url).mode(web_sys::RequestMode::NoCors).send().await {
        Ok(_) => Seen::CorsRefused,
        Err(_) => Seen::Unreachable(reason),
    }
}
