//! Running `app::jobs` away from the page: `serve` is the Web Worker's side (it answers `ToWorker` messages,
//! advancing each job one slice at a time so a `Cancel` is read between slices), `start` is the page's side
//! (it starts the worker once and routes `FromWorker` messages to the job that asked). The worker says `Ready`
//! once its module has loaded; messages wait until then. Where a worker cannot start (no worker support, or
//! its script fails to load), the same slices run on the main thread, yielding to the browser between them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::engine::tasks::registry::{builtin, Registry};
use crate::app::jobs::{FromWorker, Job, JobRequest, ToWorker};

/// The worker's loader, beside `index.html` (Trunk's `data-loader-shim`).
const WORKER_SCRIPT: &str = "./arbigraph-worker_loader.js";
/// Aim for slices of about this many milliseconds, so messages and frames are never held up for long.
const SLICE_MS: f64 = 25.0;

/// Jobs in progress and how much work fits in a slice; shared by the worker and the main-thread fallback.
struct Scheduler {
    registry: Registry,
    jobs: Vec<Job>,
    /// Units per slice, adapted to the time slices take.
    units: usize,
    scheduled: bool,
}

impl Scheduler {
    fn new() -> Scheduler {
        Scheduler { registry: builtin(), jobs: Vec::new(), units: 4, scheduled: false }
    }

    fn receive(&mut self, message: ToWorker, out: &mut Vec<FromWorker>) {
        match message {
            ToWorker::Start { id, request } => match Job::new(id, request, &self.registry) {
                Ok(job) => self.jobs.push(job),
                Err(failed) => out.push(failed),
            },
            ToWorker::Cancel { id } => {
                if let Some(job) = self.jobs.iter_mut().find(|j| j.id() == id) {
                    out.push(job.cancel());
                }
                self.jobs.retain(|j| !j.is_finished());
            }
        }
    }

    /// One slice of the oldest job; the unit count adapts so a slice takes about `SLICE_MS`.
    fn slice(&mut self, out: &mut Vec<FromWorker>) {
        let Some(job) = self.jobs.first_mut() else { return };
        let started = js_sys::Date::now();
        out.extend(job.step(self.units, &self.registry));
        let took = js_sys::Date::now() - started;
        self.units = if took < SLICE_MS / 2.0 { (self.units * 2).min(4096) } else if took > SLICE_MS * 2.0 { (self.units / 2).max(1) } else { self.units };
        self.jobs.retain(|j| !j.is_finished());
    }
}

fn set_timeout(callback: &js_sys::Function) {
    let global = js_sys::global();
    if let Some(window) = global.dyn_ref::<web_sys::Window>() {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(callback, 0);
    } else if let Some(scope) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(callback, 0);
    }
}

/// Runs slices until no job is left, one per macrotask, handing every message to `deliver`.
fn pump(scheduler: Rc<RefCell<Scheduler>>, deliver: Rc<dyn Fn(FromWorker)>) {
    {
        let mut s = scheduler.borrow_mut();
        if s.scheduled || s.jobs.is_empty() {
            return;
        }
        s.scheduled = true;
    }
    let callback = Closure::once_into_js(move || {
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
    set_timeout(callback.unchecked_ref());
}

/// The worker's entry: answers messages from the page until it is closed.
pub fn serve() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let scheduler = Rc::new(RefCell::new(Scheduler::new()));
    let deliver: Rc<dyn Fn(FromWorker)> = {
        let scope = scope.clone();
        Rc::new(move |message: FromWorker| {
            if let Ok(text) = serde_json::to_string(&message) {
                let _ = scope.post_message(&JsValue::from_str(&text));
            }
        })
    };
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        let mut out = Vec::new();
        match serde_json::from_str::<ToWorker>(&text) {
            Ok(message) => scheduler.borrow_mut().receive(message, &mut out),
            Err(e) => out.push(FromWorker::Failed { id: 0, message: format!("unreadable message to the worker: {e}"), location: None }),
        }
        for message in out {
            deliver(message);
        }
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

enum Backend {
    /// A Web Worker; `pending` holds messages until it says `Ready`.
    Worker { worker: web_sys::Worker, ready: bool, pending: Vec<ToWorker> },
    /// No worker: the page runs the slices itself.
    MainThread(Rc<RefCell<Scheduler>>),
}

struct Runner {
    backend: Option<Backend>,
    next_id: u64,
    listeners: HashMap<u64, Listener>,
}

thread_local! {
    static RUNNER: Rc<RefCell<Runner>> = Rc::new(RefCell::new(Runner { backend: None, next_id: 1, listeners: HashMap::new() }));
}

fn dispatch(message: FromWorker) {
    let runner = RUNNER.with(Rc::clone);
    if let FromWorker::Ready { .. } = message {
        let pending = match &mut runner.borrow_mut().backend {
            Some(Backend::Worker { ready, pending, .. }) => {
                *ready = true;
                std::mem::take(pending)
            }
            _ => Vec::new(),
        };
        for message in pending {
            send(message);
        }
        return;
    }
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

/// The worker could not start: run everything it was sent on the main thread instead.
fn fall_back_to_main_thread() {
    let runner = RUNNER.with(Rc::clone);
    let pending = {
        let mut r = runner.borrow_mut();
        let pending = match r.backend.take() {
            Some(Backend::Worker { pending, .. }) => pending,
            _ => Vec::new(),
        };
        r.backend = Some(Backend::MainThread(Rc::new(RefCell::new(Scheduler::new()))));
        pending
    };
    for message in pending {
        send(message);
    }
}

fn backend() -> Backend {
    let options = web_sys::WorkerOptions::new();
    match web_sys::Worker::new_with_options(WORKER_SCRIPT, &options) {
        Ok(worker) => {
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                if let Some(message) = event.data().as_string().and_then(|t| serde_json::from_str::<FromWorker>(&t).ok()) {
                    dispatch(message);
                }
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            on_message.forget();
            // A script that fails to load or start reports here; before `Ready` that means: no worker.
            let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
                let runner = RUNNER.with(Rc::clone);
                let started = matches!(runner.borrow().backend, Some(Backend::Worker { ready: true, .. }));
                if !started {
                    fall_back_to_main_thread();
                }
            });
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            on_error.forget();
            Backend::Worker { worker, ready: false, pending: Vec::new() }
        }
        Err(_) => Backend::MainThread(Rc::new(RefCell::new(Scheduler::new()))),
    }
}

fn send(message: ToWorker) {
    let runner = RUNNER.with(Rc::clone);
    let mut r = runner.borrow_mut();
    let backend = r.backend.get_or_insert_with(backend);
    match backend {
        Backend::Worker { ready: false, pending, .. } => pending.push(message),
        Backend::Worker { worker, .. } => {
            if let Ok(text) = serde_json::to_string(&message) {
                let _ = worker.post_message(&JsValue::from_str(&text));
            }
        }
        Backend::MainThread(scheduler) => {
            let scheduler = scheduler.clone();
            drop(r);
            let mut out = Vec::new();
            scheduler.borrow_mut().receive(message, &mut out);
            for message in out {
                dispatch(message);
            }
            pump(scheduler, Rc::new(dispatch));
        }
    }
}

/// A job started on the runner; cancelling is asynchronous (the last message is `Cancelled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobHandle(u64);

impl JobHandle {
    /// Asks the job to stop at its next slice boundary.
    pub fn cancel(self) {
        send(ToWorker::Cancel { id: self.0 });
    }

    /// The job's id.
    pub fn id(self) -> u64 {
        self.0
    }
}

/// Starts `request` and calls `listener` with each of its messages, the final one included.
pub fn start(request: JobRequest, listener: impl FnMut(FromWorker) + 'static) -> JobHandle {
    let runner = RUNNER.with(Rc::clone);
    let id = {
        let mut r = runner.borrow_mut();
        let id = r.next_id;
        r.next_id += 1;
        r.listeners.insert(id, Box::new(listener));
        id
    };
    send(ToWorker::Start { id, request });
    JobHandle(id)
}

/// True when jobs run in a Web Worker (false: in slices on the main thread).
pub fn uses_worker() -> bool {
    let runner = RUNNER.with(Rc::clone);
    let mut r = runner.borrow_mut();
    matches!(r.backend.get_or_insert_with(backend), Backend::Worker { .. })
}
