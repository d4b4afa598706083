//! `soon`: run a callback as a new task as soon as the browser is free, after pending input and painting. A
//! message to a `MessageChannel` port does this without the 4 ms minimum that nested `setTimeout(0)` calls get,
//! so work cut into many short slices (opening a large results file, the worker's generation) loses no time
//! between them. It works in a page and in a worker alike.

use std::cell::RefCell;
use std::collections::VecDeque;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The port messages are posted to, with the handler that runs the next callback.
struct Channel {
    port: web_sys::MessagePort,
    _handler: Closure<dyn FnMut()>,
}

thread_local! {
    static QUEUE: RefCell<VecDeque<Box<dyn FnOnce()>>> = RefCell::new(VecDeque::new());
    static CHANNEL: RefCell<Option<Channel>> = const { RefCell::new(None) };
}

fn channel() -> Option<web_sys::MessagePort> {
    CHANNEL.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            let channel = web_sys::MessageChannel::new().ok()?;
            let handler = Closure::<dyn FnMut()>::new(|| {
                if let Some(callback) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
                    callback();
                }
            });
            channel.port1().set_onmessage(Some(handler.as_ref().unchecked_ref()));
            *slot = Some(Channel { port: channel.port2(), _handler: handler });
        }
        slot.as_ref().map(|c| c.port.clone())
    })
}

/// Runs `callback` in a task of its own, soon.
pub fn soon(callback: impl FnOnce() + 'static) {
    match channel() {
        Some(port) => {
            QUEUE.with(|q| q.borrow_mut().push_back(Box::new(callback)));
            if port.post_message(&JsValue::NULL).is_err() {
                if let Some(callback) = QUEUE.with(|q| q.borrow_mut().pop_back()) {
                    later(callback);
                }
            }
        }
        None => later(Box::new(callback)),
    }
}

/// Runs `callback` after a zero timeout, in a page or a worker: where no channel can be made.
fn later(callback: Box<dyn FnOnce()>) {
    set_timeout(Closure::once_into_js(callback).unchecked_ref());
}

/// `setTimeout(callback, 0)` on the page's window or the worker's global scope.
pub fn set_timeout(callback: &js_sys::Function) {
    let global = js_sys::global();
    if let Some(window) = global.dyn_ref::<web_sys::Window>() {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(callback, 0);
    } else if let Some(scope) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(callback, 0);
    }
}

/// Waits for a task of its own (see `soon`): `await` it between slices of long work.
pub async fn next_task() {
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    soon(move || {
        let _ = done.send(());
    });
    let _ = wait.await;
}
