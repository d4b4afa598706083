//! Paste a Python function: see its signature or located errors, run it on JSON arguments under the
//! interpreter's limits (runaway code ends in a budget error, never a hung tab), or try it as a tracing task.

use leptos::prelude::*;

use crate::app::design::NoticeLevel;
use crate::app::jobs::{FromWorker, JobRequest};
use crate::engine::tasks::python_trace::UserFunction;
use crate::ui::common::PromptView;
use crate::ui::state::AppState;
use crate::web::worker;

const EXAMPLE: &str = "def running_peak_gaps(nums: List[int]) -> List[int]:\n    best = nums[0]\n    out = []\n    for x in nums:\n        if x > best:\n            best = x\n        out.append(best - x)\n    return out\n";

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The Python function box. The page parses the source (signature and located errors); running it and
/// tracing it are jobs of the Web Worker, whose module holds the interpreter's evaluator
/// (`app::jobs::python`).
#[component]
pub fn PythonBox() -> impl IntoView {
    let source = RwSignal::new(EXAMPLE.to_string());
    let args = RwSignal::new(r#"{"nums": [3, 1, 4, 1, 5, 9, 2, 6]}"#.to_string());
    let output = RwSignal::new(String::new());
    let task_prompt = RwSignal::new(None::<(String, Vec<(String, u32)>)>);

    let parsed = Memo::new(move |_| match UserFunction::from_source(&source.get()) {
        Ok(f) => Ok(format!(
            "{}({}) -> {}",
            f.signature().name,
            f.signature().params.iter().map(|p| format!("{}: {}", p.name, p.kind)).collect::<Vec<_>>().join(", "),
            f.output_kind()
        )),
        Err(errors) => Err(errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")),
    });

    // The time shown is the round trip to the worker, the run included.
    let run = move |_| {
        let started = now_ms();
        output.set("running…".into());
        worker::start_isolated(JobRequest::RunPython { source: source.get_untracked(), args: args.get_untracked() }, move |message| {
            let elapsed = now_ms() - started;
            match message {
                FromWorker::Done { summary, .. } => output.set(format!("result: {summary}   ({elapsed:.0} ms)")),
                FromWorker::Failed { message, .. } => output.set(format!("error: {message}   ({elapsed:.0} ms)")),
                _ => {}
            }
        });
    };

    let try_task = move |_| {
        worker::start_isolated(JobRequest::TracePython { source: source.get_untracked() }, move |message| match message {
            FromWorker::Traced { traced, .. } => {
                output.set(traced.line);
                task_prompt.set(Some((traced.prompt, traced.roles)));
            }
            FromWorker::Failed { message, .. } => {
                output.set(format!("error: {message}"));
                task_prompt.set(None);
            }
            _ => {}
        });
    };

    let design = expect_context::<AppState>().design;
    let use_in_graph = move |_| {
        let now = now_ms();
        match design.update(|m| m.add_function(&source.get_untracked(), now)) {
            Ok(name) => {
                output.set(format!("{name} is now one of this graph's functions: select a python task and pin it in the inspector."));
                design.say(NoticeLevel::Info, format!("added the function {name}: python tasks can pin it in the inspector"));
            }
            Err(e) => output.set(format!("error: {e}")),
        }
    };

    view! {
        <h2>"Your Python functions"</h2>
        <p class="muted">"Paste one function with List[int] / int annotations. It runs in our interpreter, in this tab's background worker, under step, recursion and memory limits."</p>
        <div class="row">
            <div class="grow">
                <textarea id="py-source" aria-label="Python function source" rows="12" style="width:100%" spellcheck="false"
                    prop:value=move || source.get() on:input=move |ev| source.set(event_target_value(&ev))></textarea>
                <p id="py-signature" class="mono">
                    {move || match parsed.get() { Ok(sig) => sig, Err(e) => format!("error: {e}") }}
                </p>
            </div>
            <div class="grow">
                <label>"Arguments (JSON) "<input id="py-args" style="width:min(24em, 100%)" prop:value=move || args.get() on:input=move |ev| args.set(event_target_value(&ev)) /></label>
                <p>
                    <button class="primary" id="py-run" on:click=run>"Run"</button>" "
                    <button id="py-task" on:click=try_task>"Try as a tracing task"</button>" "
                    <button id="py-use" data-testid="python-use-in-graph" disabled=move || parsed.get().is_err() on:click=use_in_graph
                        title="Keep this function with the graph, so a python task node can pin it">"Use in this graph"</button>
                </p>
                <pre id="py-output" class="prompt-view">{move || output.get()}</pre>
            </div>
        </div>
        {move || task_prompt.get().map(|(text, roles)| view! { <PromptView text=text roles=roles /> })}
    }
}
