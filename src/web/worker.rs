//! Running `app::jobs` away from the page: `serve` is the Web Worker's side (it answers `ToWorker` messages,
//! advancing jobs one slice at a time so a `Cancel`, a query or a detail request is read between slices), `start`
//! is the page's side (it starts the worker once and routes `FromWorker` messages to the job that asked). The
//! worker says `Ready` once it listens; messages wait until then. The page never runs a job itself: the
//! engine's generators, the interpreter and the picture renderer live in the worker's module only, so the page's
//! module (what a first visit downloads before anything shows) leaves them out. Where a worker cannot start
//! or fails to load, every job ends as failed with the reason. The samples a job makes stay in the worker's
//! `Store`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::app::jobs::{made_from_bytes, made_to_bytes, FromWorker, Job, JobRequest, ToWorker};
use crate::app::jobs::split;
use crate::app::store::Store;
use crate::engine::tasks::registry::{builtin, Registry};
use crate::web::soon::{set_timeout, soon};

/// The worker's loader, beside `index.html` (Trunk's `data-loader-shim`).
const WORKER_SCRIPT: &str = "./arbigraph-worker_loader.js";
/// Aim for slices of about this many milliseconds, so messages and frames are never held up for long.
const SLICE_MS: f64 = 25.0;

/// Jobs in progress and the samples they made, in the worker.
struct Scheduler {
    registry: Registry,
    store: Store,
    jobs: Vec<Job>,
    scheduled: bool,
    /// Workers a generation may use in all (`ToWorker::Workers`).
    wanted: usize,
    /// Helper workers this worker started for spread generations (`app::jobs::split`).
    helpers: Vec<Helper>,
    /// Blocks lent to helpers: helper job id → (helper, job id, positions).
    lent: HashMap<u64, (usize, u64, Range<usize>)>,
    next_lend: u64,
    /// Helpers are wanted before any spread generation asks for them (`ToWorker::Prepare`), once.
    prepare: bool,
}

/// A helper worker: messages wait in `queue` until it says it is ready; a helper that failed to load is `dead`.
struct Helper {
    worker: web_sys::Worker,
    ready: bool,
    dead: bool,
    queue: Vec<String>,
}

/// Blocks a helper holds at once: one being made, the others waiting. This worker hands out more only between
/// its own slices (`SLICE_MS`), so a helper holds more work than one slice lasts: two blocks of 48 (8–25 ms of
/// work each in a release build) could run out while this worker was still in a slice.
const IN_FLIGHT: usize = 4;

impl Scheduler {
    fn new() -> Scheduler {
        Scheduler { registry: builtin(), store: Store::default(), jobs: Vec::new(), scheduled: false, wanted: 1, helpers: Vec::new(), lent: HashMap::new(), next_lend: 1, prepare: false }
    }

    fn receive(&mut self, message: ToWorker, out: &mut Vec<FromWorker>) {
        match message {
            ToWorker::Start { id, request } => match Job::new(id, request, &self.registry, &mut self.store) {
                Ok(mut job) => {
                    if self.wanted > 1 {
                        job.spread();
                    }
                    self.jobs.push(job);
                }
                Err(failed) => out.push(*failed),
            },
            ToWorker::Cancel { id } => {
                if let Some(job) = self.jobs.iter_mut().find(|j| j.id() == id) {
                    out.push(job.cancel());
                }
                self.recall(id);
                self.jobs.retain(|j| !j.is_finished());
            }
            ToWorker::Workers { count } => self.wanted = count.clamp(1, split::MAX_WORKERS),
            ToWorker::Prepare => self.prepare = true,
        }
    }

    /// Cancels the blocks of job `id` that helpers still hold.
    fn recall(&mut self, id: u64) {
        let held: Vec<(u64, usize)> = self.lent.iter().filter(|(_, (_, job, _))| *job == id).map(|(hid, (helper, _, _))| (*hid, *helper)).collect();
        for (hid, helper) in held {
            self.lent.remove(&hid);
            self.post_helper(helper, &ToWorker::Cancel { id: hid });
        }
    }

    fn post_helper(&mut self, helper: usize, message: &ToWorker) {
        let Ok(text) = serde_json::to_string(message) else { return };
        let Some(h) = self.helpers.get_mut(helper) else { return };
        if h.ready {
            let _ = h.worker.post_message(&JsValue::from_str(&text));
        } else {
            h.queue.push(text);
        }
    }

    /// True when a spread generation (or the page, `ToWorker::Prepare`) wants more helpers than are running.
    fn needs_helpers(&self) -> bool {
        let alive = self.helpers.iter().filter(|h| !h.dead).count();
        alive + 1 < self.wanted && (self.prepare || self.jobs.iter().any(Job::is_spread))
    }

    /// Lends blocks of spread generations to every live helper with room for more.
    fn lend(&mut self) {
        for helper in 0..self.helpers.len() {
            if self.helpers[helper].dead {
                continue;
            }
            let mut held = self.lent.values().filter(|(h, _, _)| *h == helper).count();
            while held < IN_FLIGHT {
                let Some((job, (block, request))) = self.jobs.iter_mut().filter(|j| !j.is_finished()).find_map(|j| j.lend().map(|l| (j.id(), l))) else { return };
                let hid = self.next_lend;
                self.next_lend += 1;
                self.lent.insert(hid, (helper, job, block));
                self.post_helper(helper, &ToWorker::Start { id: hid, request });
                held += 1;
            }
        }
    }

    /// A message from helper `helper`.
    fn from_helper(&mut self, helper: usize, message: FromWorker, out: &mut Vec<FromWorker>) {
        if let FromWorker::Ready { .. } = message {
            let h = &mut self.helpers[helper];
            h.ready = true;
            for text in std::mem::take(&mut h.queue) {
                let _ = h.worker.post_message(&JsValue::from_str(&text));
            }
            self.lend();
            return;
        }
        let hid = message.id();
        let Some((_, job_id, _)) = self.lent.get(&hid).cloned() else { return };
        let Scheduler { jobs, store, .. } = self;
        let job = jobs.iter_mut().find(|j| j.id() == job_id);
        match (message, job) {
            (FromWorker::Made { first, samples, .. }, Some(job)) => out.extend(job.take(first, samples, store)),
            (FromWorker::Done { .. } | FromWorker::Cancelled { .. }, _) => {
                self.lent.remove(&hid);
            }
            (FromWorker::Failed { message, location, .. }, Some(job)) => {
                self.lent.remove(&hid);
                out.push(job.fail(message, location));
                self.recall(job_id);
            }
            _ => {}
        }
        self.jobs.retain(|j| !j.is_finished());
        self.lend();
    }

    /// Helper `helper` failed to load or crashed: its blocks go back to their jobs, made here or by others.
    fn lost_helper(&mut self, helper: usize) {
        if let Some(h) = self.helpers.get_mut(helper) {
            h.dead = true;
            h.worker.terminate();
        }
        let gone: Vec<u64> = self.lent.iter().filter(|(_, (h, _, _))| *h == helper).map(|(hid, _)| *hid).collect();
        for hid in gone {
            if let Some((_, job_id, block)) = self.lent.remove(&hid) {
                if let Some(job) = self.jobs.iter_mut().find(|j| j.id() == job_id) {
                    job.requeue(block);
                }
            }
        }
        self.lend();
    }

    /// True when some job can make progress here (not only waiting for helpers).
    fn runnable(&self) -> bool {
        self.jobs.iter().any(|j| !j.is_waiting())
    }

    /// Every quick job (queries, details, shards) whole, then one slice of the oldest long job, sized so a
    /// slice takes about `SLICE_MS`.
    fn slice(&mut self, out: &mut Vec<FromWorker>) {
        let Scheduler { registry, store, jobs, .. } = self;
        for job in jobs.iter_mut().filter(|j| j.is_quick()) {
            while !job.is_finished() {
                out.extend(job.step(registry, store));
            }
        }
        if let Some(job) = jobs.iter_mut().find(|j| !j.is_quick() && !j.is_finished() && !j.is_waiting()) {
            let started = js_sys::Date::now();
            out.extend(job.step(registry, store));
            job.adapt(js_sys::Date::now() - started, SLICE_MS);
        }
        jobs.retain(|j| !j.is_finished());
    }
}

/// Starts helper workers (in the worker) until a spread generation has as many as it wants, or the page asked
/// for them ahead of one. A helper lost later is started again only for a spread generation.
fn start_helpers(scheduler: &Rc<RefCell<Scheduler>>, deliver: &Rc<dyn Fn(FromWorker)>) {
    while scheduler.borrow().needs_helpers() {
        let Ok(worker) = web_sys::Worker::new_with_options(WORKER_SCRIPT, &web_sys::WorkerOptions::new()) else {
            scheduler.borrow_mut().wanted = 1;
            return;
        };
        let index = {
            let mut s = scheduler.borrow_mut();
            s.helpers.push(Helper { worker: worker.clone(), ready: false, dead: false, queue: Vec::new() });
            s.helpers.len() - 1
        };
        let (on_scheduler, on_deliver) = (scheduler.clone(), deliver.clone());
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let message = read_helper_message(event.data());
            let mut out = Vec::new();
            match message {
                Some(message) => on_scheduler.borrow_mut().from_helper(index, message, &mut out),
                None => on_scheduler.borrow_mut().lost_helper(index),
            }
            for message in out {
                on_deliver(message);
            }
            pump(on_scheduler.clone(), on_deliver.clone());
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        let (err_scheduler, err_deliver) = (scheduler.clone(), deliver.clone());
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            err_scheduler.borrow_mut().lost_helper(index);
            pump(err_scheduler.clone(), err_deliver.clone());
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
    }
    let mut s = scheduler.borrow_mut();
    s.prepare = false;
    s.lend();
}

/// Runs slices until no job is left, one per task, handing every message to `deliver`. A task posted to a
/// channel (`soon`) rather than a zero timeout: a worker's chained timeouts wait at least 4 ms each, which cost
/// a 25 ms slice a seventh of its time.
fn pump(scheduler: Rc<RefCell<Scheduler>>, deliver: Rc<dyn Fn(FromWorker)>) {
    {
        let mut s = scheduler.borrow_mut();
        if s.scheduled || !s.runnable() {
            return;
        }
        s.scheduled = true;
    }
    soon(move || {
        let mut out = Vec::new();
        {
            let mut s = scheduler.borrow_mut();
            s.scheduled = false;
            s.slice(&mut out);
        }
        for message in out {
            deliver(message);
        }
        pump(scheduler, deliver);
    });
}

/// Reads a message from a helper: JSON text, or a block of samples as bytes (`made_from_bytes`). `None` for
/// a message that cannot be read: the helper is then dropped as if it had crashed, and its blocks are made
/// here or by the others.
fn read_helper_message(data: JsValue) -> Option<FromWorker> {
    match data.dyn_ref::<js_sys::ArrayBuffer>() {
        Some(buffer) => made_from_bytes(&js_sys::Uint8Array::new(buffer).to_vec()).ok(),
        None => data.as_string().and_then(|text| serde_json::from_str::<FromWorker>(&text).ok()),
    }
}

/// Reads a message from the page: JSON text, or `[JSON text, Blob]` when a file travels with an `OpenFile` (read
/// as text) or a `ReadResults` (read as bytes). A message that cannot be read fails its job (job 0 when even the
/// job is unknown).
fn read_message(data: JsValue) -> Result<ToWorker, FromWorker> {
    let unreadable = |id: u64, message: String| FromWorker::Failed { id, message, location: None };
    let (text, blob) = match data.dyn_ref::<js_sys::Array>() {
        Some(parts) => (parts.get(0).as_string(), parts.get(1).dyn_into::<web_sys::Blob>().ok()),
        None => (data.as_string(), None),
    };
    let text = text.ok_or_else(|| unreadable(0, "a message to the worker must be text".into()))?;
    let mut message: ToWorker = serde_json::from_str(&text).map_err(|e| unreadable(0, format!("unreadable message to the worker: {e}")))?;
    match (blob, &mut message) {
        (Some(blob), ToWorker::Start { id, request: JobRequest::OpenFile { text, name, .. } }) => {
            let read = web_sys::FileReaderSync::new().and_then(|reader| reader.read_as_text(&blob));
            *text = read.map_err(|e| unreadable(*id, format!("cannot read {name}: {}", js_error(&e))))?;
        }
        (Some(blob), ToWorker::Start { id, request: JobRequest::ReadResults { bytes, name } }) => {
            let read = web_sys::FileReaderSync::new().and_then(|reader| reader.read_as_array_buffer(&blob));
            *bytes = read.map(|buffer| js_sys::Uint8Array::new(&buffer).to_vec()).map_err(|e| unreadable(*id, format!("cannot read {name}: {}", js_error(&e))))?;
        }
        _ => {}
    }
    Ok(message)
}

/// A JS exception's message.
fn js_error(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| format!("{e:?}"))
}

/// The worker's entry: answers messages from the page until it is closed.
pub fn serve() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let scheduler = Rc::new(RefCell::new(Scheduler::new()));
    let deliver: Rc<dyn Fn(FromWorker)> = {
        let scope = scope.clone();
        Rc::new(move |message: FromWorker| {
            if let FromWorker::Made { id, first, samples } = &message {
                // A helper's samples go as bytes in a buffer handed over, not copied (`made_to_bytes`).
                let buffer = js_sys::Uint8Array::from(&made_to_bytes(*id, *first, samples)[..]).buffer();
                let _ = scope.post_message_with_transfer(&buffer, &js_sys::Array::of1(&buffer));
            } else if let Ok(text) = serde_json::to_string(&message) {
                let _ = scope.post_message(&JsValue::from_str(&text));
            }
        })
    };
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let mut out = Vec::new();
        match read_message(event.data()) {
            Ok(message) => scheduler.borrow_mut().receive(message, &mut out),
            Err(failed) => out.push(failed),
        }
        for message in out {
            deliver(message);
        }
        start_helpers(&scheduler, &deliver);
        pump(scheduler.clone(), deliver.clone());
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // Messages sent before this handler existed would be lost: the page waits for this one first.
    if let Ok(text) = serde_json::to_string(&FromWorker::Ready { id: 0 }) {
        let _ = scope.post_message(&JsValue::from_str(&text));
    }
}

type Listener = Box<dyn FnMut(FromWorker)>;

/// A message for the runner, with the file that travels with it.
struct Outgoing {
    message: ToWorker,
    file: Option<web_sys::Blob>,
}

enum Backend {
    /// A worker; messages wait in `queue` until it says it is ready.
    Worker { worker: web_sys::Worker, ready: bool, queue: Vec<Outgoing> },
    /// No worker: it could not start or stopped, for this reason; every job fails with it.
    Unavailable(String),
}

struct Runner {
    backend: Option<Backend>,
    /// Messages held until the first paint, when the worker starts (`warm_up`); `None` once it has.
    deferred: Option<Vec<Outgoing>>,
    next_id: u64,
    listeners: HashMap<u64, Listener>,
}

thread_local! {
    static RUNNER: Rc<RefCell<Runner>> = Rc::new(RefCell::new(Runner { backend: None, deferred: None, next_id: 1, listeners: HashMap::new() }));
}

fn dispatch(message: FromWorker) {
    let runner = RUNNER.with(Rc::clone);
    let id = message.id();
    let is_final = message.is_final();
    // Take the listener out while it runs, so it may start or cancel jobs itself.
    let listener = runner.borrow_mut().listeners.remove(&id);
    if let Some(mut listener) = listener {
        listener(message);
        if !is_final {
            runner.borrow_mut().listeners.entry(id).or_insert(listener);
        }
    }
}

fn on_worker_message(event: web_sys::MessageEvent) {
    let Some(text) = event.data().as_string() else { return };
    match serde_json::from_str::<FromWorker>(&text) {
        Ok(FromWorker::Ready { .. }) => {
            let runner = RUNNER.with(Rc::clone);
            let queued = match runner.borrow_mut().backend.as_mut() {
                Some(Backend::Worker { ready, queue, .. }) => {
                    *ready = true;
                    std::mem::take(queue)
                }
                _ => Vec::new(),
            };
            for outgoing in queued {
                post(outgoing);
            }
        }
        Ok(message) => dispatch(message),
        Err(_) => {}
    }
}

/// The worker failed to load or crashed: jobs it was running or that were waiting for it end as failed, with
/// the reason, so their pages say so; later jobs fail the same way.
fn fall_back(reason: String) {
    let runner = RUNNER.with(Rc::clone);
    let (queued, lost): (Vec<Outgoing>, Vec<u64>) = {
        let mut r = runner.borrow_mut();
        let queued = match r.backend.take() {
            Some(Backend::Worker { queue, worker, .. }) => {
                worker.terminate();
                queue
            }
            other => {
                r.backend = other;
                return;
            }
        };
        r.backend = Some(Backend::Unavailable(reason));
        let waiting: Vec<u64> = queued.iter().filter_map(|o| if let ToWorker::Start { id, .. } = o.message { Some(id) } else { None }).collect();
        let lost = r.listeners.keys().copied().filter(|id| !waiting.contains(id)).collect();
        (queued, lost)
    };
    for id in lost {
        dispatch(FromWorker::Failed { id, message: "the background worker stopped; reload the page and run it again".into(), location: None });
    }
    for outgoing in queued {
        send(outgoing);
    }
}

/// What a job gets when no worker runs: why, and what to do.
fn unavailable_message(reason: &str) -> String {
    format!("the background worker is not running ({reason}); this page makes, reads and draws samples only in a Web Worker: reload it, or use a browser that runs module workers")
}

fn backend() -> Backend {
    let options = web_sys::WorkerOptions::new();
    match web_sys::Worker::new_with_options(WORKER_SCRIPT, &options) {
        Ok(worker) => {
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_worker_message);
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            on_message.forget();
            let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(|event: web_sys::ErrorEvent| {
                let message = event.message();
                fall_back(if message.is_empty() { format!("{WORKER_SCRIPT} failed to load") } else { message })
            });
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            on_error.forget();
            // Generations spread over as many workers as the machine has cores (capped).
            let cores = web_sys::window().map(|w| w.navigator().hardware_concurrency()).unwrap_or(1.0);
            let count = split::workers_for(cores as u32);
            Backend::Worker { worker, ready: false, queue: vec![Outgoing { message: ToWorker::Workers { count }, file: None }] }
        }
        Err(e) => Backend::Unavailable(format!("it could not start: {}", js_error(&e))),
    }
}

/// Posts to a ready worker.
fn post(outgoing: Outgoing) {
    let runner = RUNNER.with(Rc::clone);
    let r = runner.borrow();
    let Some(Backend::Worker { worker, .. }) = r.backend.as_ref() else { return };
    let Ok(text) = serde_json::to_string(&outgoing.message) else { return };
    let _ = match outgoing.file {
        Some(file) => worker.post_message(&js_sys::Array::of2(&JsValue::from_str(&text), &file)),
        None => worker.post_message(&JsValue::from_str(&text)),
    };
}

fn send(outgoing: Outgoing) {
    let runner = RUNNER.with(Rc::clone);
    let mut r = runner.borrow_mut();
    if let Some(held) = r.deferred.as_mut() {
        held.push(outgoing);
        return;
    }
    let backend = r.backend.get_or_insert_with(backend);
    match backend {
        Backend::Worker { ready: false, queue, .. } => queue.push(outgoing),
        Backend::Worker { .. } => {
            drop(r);
            post(outgoing);
        }
        Backend::Unavailable(reason) => {
            let message = unavailable_message(reason);
            drop(r);
            if let ToWorker::Start { id, .. } = outgoing.message {
                dispatch(FromWorker::Failed { id, message, location: None });
            }
        }
    }
}

/// A job started on the runner; cancelling is asynchronous (the last message is `Cancelled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobHandle(u64);

impl JobHandle {
    /// Asks the job to stop at its next slice boundary.
    pub fn cancel(self) {
        send(Outgoing { message: ToWorker::Cancel { id: self.0 }, file: None });
    }

    /// The job's id.
    pub fn id(self) -> u64 {
        self.0
    }
}

fn register(listener: impl FnMut(FromWorker) + 'static) -> u64 {
    let runner = RUNNER.with(Rc::clone);
    let mut r = runner.borrow_mut();
    let id = r.next_id;
    r.next_id += 1;
    r.listeners.insert(id, Box::new(listener));
    id
}

/// Starts `request` and calls `listener` with each of its messages, the final one included.
pub fn start(request: JobRequest, listener: impl FnMut(FromWorker) + 'static) -> JobHandle {
    let id = register(listener);
    send(Outgoing { message: ToWorker::Start { id, request }, file: None });
    JobHandle(id)
}

/// Starts a job in a worker of its own, which ends with it: for code the user wrote (the Python box), so a
/// function that exhausts the worker's stack (a worker's is about half the page's: deep recursion that the
/// evaluator's budgets allow on the page can overflow it) takes down only its own worker, never the one that
/// holds the datasets. Such a crash ends the job as failed with a `RecursionError`, as Python would.
pub fn start_isolated(request: JobRequest, listener: impl FnMut(FromWorker) + 'static) {
    let id = RUNNER.with(|r| {
        let mut r = r.borrow_mut();
        r.next_id += 1;
        r.next_id
    });
    let listener: Rc<RefCell<Box<dyn FnMut(FromWorker)>>> = Rc::new(RefCell::new(Box::new(listener)));
    let worker = match web_sys::Worker::new_with_options(WORKER_SCRIPT, &web_sys::WorkerOptions::new()) {
        Ok(worker) => worker,
        Err(e) => return (listener.borrow_mut())(FromWorker::Failed { id, message: unavailable_message(&format!("it could not start: {}", js_error(&e))), location: None }),
    };
    let finished = Rc::new(std::cell::Cell::new(false));
    let start = RefCell::new(Some(ToWorker::Start { id, request }));
    let (on_listener, on_worker, on_finished) = (listener.clone(), worker.clone(), finished.clone());
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let Some(message) = event.data().as_string().and_then(|text| serde_json::from_str::<FromWorker>(&text).ok()) else { return };
        if let FromWorker::Ready { .. } = message {
            if let Some(text) = start.borrow_mut().take().and_then(|m| serde_json::to_string(&m).ok()) {
                let _ = on_worker.post_message(&JsValue::from_str(&text));
            }
            return;
        }
        let is_final = message.is_final();
        (on_listener.borrow_mut())(message);
        if is_final {
            on_finished.set(true);
            on_worker.terminate();
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let (err_listener, err_worker) = (listener, worker.clone());
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
        err_worker.terminate();
        if finished.replace(true) {
            return;
        }
        let reason = event.message();
        let message = if reason.to_lowercase().contains("call stack") || reason.to_lowercase().contains("recursion") {
            "RecursionError: maximum recursion depth exceeded (the browser worker's stack ran out)".to_string()
        } else if reason.is_empty() {
            format!("{WORKER_SCRIPT} failed to load")
        } else {
            format!("the function's worker stopped: {reason}")
        };
        (err_listener.borrow_mut())(FromWorker::Failed { id, message, location: None });
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
}

/// Starts an `OpenFile` or `ReadResults` request whose text or bytes are read from `file` where the job runs (in
/// the worker, so even a large file costs the page nothing).
pub fn start_with_file(request: JobRequest, file: web_sys::Blob, listener: impl FnMut(FromWorker) + 'static) -> JobHandle {
    let id = register(listener);
    send(Outgoing { message: ToWorker::Start { id, request }, file: Some(file) });
    JobHandle(id)
}

/// Runs `request` in the job runner (with `file` read where the job runs, as `start_with_file` does) and waits for
/// its end: the text of the `File` it answered (empty for a job that answers none), or why it failed.
pub async fn ask_file(request: JobRequest, file: Option<web_sys::Blob>) -> Result<String, String> {
    let (answer, wait) = futures::channel::oneshot::channel::<Result<String, String>>();
    let mut answer = Some(answer);
    let mut text = None;
    let listener = move |message| {
        let outcome = match message {
            FromWorker::File { text: file, .. } => {
                text = Some(file);
                return;
            }
            FromWorker::Done { .. } => Ok(text.take().unwrap_or_default()),
            FromWorker::Failed { message, location, .. } => Err(match location {
                Some(at) => format!("{at}: {message}"),
                None => message,
            }),
            FromWorker::Cancelled { .. } => Err("cancelled".into()),
            _ => return,
        };
        if let Some(answer) = answer.take() {
            let _ = answer.send(outcome);
        }
    };
    match file {
        Some(file) => start_with_file(request, file, listener),
        None => start(request, listener),
    };
    wait.await.unwrap_or_else(|_| Err("the job runner stopped".into()))
}

/// Has the worker start its helpers now (the Generate page is open), so that a first generation spread over
/// them does not wait for their modules to load; nothing when generations use one worker.
pub fn prepare_helpers() {
    send(Outgoing { message: ToWorker::Prepare, file: None });
}

/// Holds the jobs asked for from now until `warm_up` starts the worker, rather than starting it at the first
/// job: the app calls it before anything is shown, so the worker's module does not compete with the page's.
pub fn hold() {
    let runner = RUNNER.with(Rc::clone);
    let mut r = runner.borrow_mut();
    if r.backend.is_none() {
        r.deferred.get_or_insert_with(Vec::new);
    }
}

/// Starts the worker just after the next paint (the app calls it when its first page is shown): its module is
/// then fetched and compiled while the visitor looks at the page, not before it shows. Jobs asked for before
/// then (the demo datasets, a site's first shard) wait for it and go out in order.
pub fn warm_up() {
    let runner = RUNNER.with(Rc::clone);
    if runner.borrow().backend.is_some() {
        return;
    }
    hold();
    let start = Closure::once_into_js(move || {
        let held = {
            let mut r = runner.borrow_mut();
            r.backend.get_or_insert_with(backend);
            r.deferred.take().unwrap_or_default()
        };
        for outgoing in held {
            send(outgoing);
        }
    });
    // The frame callback runs before the first paint; the timeout it sets, after it.
    let after_frame = Closure::once_into_js(move || set_timeout(start.unchecked_ref()));
    let painted = web_sys::window().map(|w| w.request_animation_frame(after_frame.unchecked_ref()).is_ok()).unwrap_or(false);
    if !painted {
        set_timeout(after_frame.unchecked_ref());
    }
}


