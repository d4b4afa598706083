//! Paste a Python function: see its signature or located errors, run it on JSON arguments under the
//! interpreter's limits (runaway code ends in a budget error, never a hung tab), or try it as a tracing task.

use leptos::prelude::*;

use crate::engine::python::{self, Limits};
use crate::engine::rng::InstanceRng;
use crate::engine::tasks::python_trace::{TraceOptions, UserFunction};
use crate::engine::tasks::TaskContext;
use crate::engine::value::{Kind, Number, Value};
use crate::ui::common::PromptView;
use crate::app::design::NoticeLevel;
use crate::app::jobs::roles_of;
use crate::ui::state::AppState;

const EXAMPLE: &str = "def running_peak_gaps(nums: List[int]) -> List[int]:\n    best = nums[0]\n    out = []\n    for x in nums:\n        if x > best:\n            best = x\n        out.append(best - x)\n    return out\n";

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The Python function box.
#[component]
pub fn PythonBox() -> impl IntoView {
    let source = RwSignal::new(EXAMPLE.to_string());
    let args = RwSignal::new(r#"{"nums": [3, 1, 4, 1, 5, 9, 2, 6]}"#.to_string());
    let output = RwSignal::new(String::new());
    let task_prompt = RwSignal::new(None);

    let parsed = Memo::new(move |_| match UserFunction::from_source(&source.get()) {
        Ok(f) => Ok(format!(
            "{}({}) -> {}",
            f.signature().name,
            f.signature().params.iter().map(|p| format!("{}: {}", p.name, p.kind)).collect::<Vec<_>>().join(", "),
            f.output_kind()
        )),
        Err(errors) => Err(errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")),
    });

    let run = move |_| {
        let started = now_ms();
        let result = (|| -> Result<String, String> {
            let module = python::parse_module(&source.get_untracked()).map_err(|e| e.to_string())?;
            let function = UserFunction::from_source(&source.get_untracked()).map_err(|e| e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
            // The same reader as `arbigraph trace --batch`: ints past 64 bits arrive exact, as in Python.
            let json = python::json::loads(&args.get_untracked()).map_err(|e| format!("arguments: malformed JSON: {e}"))?;
            let kwargs = python::json::keyword_arguments(&json).ok_or("arguments: expected a JSON object of parameter names to values")?;
            let value = python::call(&module, &function.signature().name, &[], &kwargs, &Limits::default()).map_err(|e| e.to_string())?;
            python::to_json_text(&value)
        })();
        let elapsed = now_ms() - started;
        output.set(match result {
            Ok(v) => format!("result: {v}   ({elapsed:.0} ms)"),
            Err(e) => format!("error: {e}   ({elapsed:.0} ms)"),
        });
    };

    let try_task = move |_| {
        let made = (|| -> Result<_, String> {
            let function = UserFunction::from_source(&source.get_untracked()).map_err(|e| e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))?;
            let kind = function.input_kinds().first().copied().unwrap_or(Kind::List);
            let task = function.into_task("user.pasted", 0, TraceOptions::default());
            let mut rng = InstanceRng::from_seed(0);
            let mut last = String::from("no attempt");
            for _ in 0..50 {
                let input = match kind {
                    Kind::Scalar => Value::int(rng.int_in(-100, 100)),
                    Kind::List => Value::List((0..10).map(|_| Number::Int(rng.int_in(-100, 100))).collect()),
                };
                let ctx = TaskContext { number: 1, input_name: "task_1_input", input: &input, output_kind: None };
                match task.instantiate(&ctx, &mut rng) {
                    Ok(instance) => return Ok((input, instance)),
                    Err(e) => last = e.to_string(),
                }
            }
            Err(last)
        })();
        match made {
            Ok((input, instance)) => {
                output.set(format!("task_1_input = {}   →   task_1_out = {}", input.repr(), instance.output.repr()));
                task_prompt.set(Some(instance.body));
            }
            Err(e) => {
                output.set(format!("error: {e}"));
                task_prompt.set(None);
            }
        }
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
        <p class="muted">"Paste one function with List[int] / int annotations. It runs in our interpreter, in this tab, under step, recursion and memory limits."</p>
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
        {move || task_prompt.get().map(|p| view! { <PromptView text=p.text().to_string() roles=roles_of(&p) /> })}
    }
}
