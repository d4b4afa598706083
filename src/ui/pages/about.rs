//! About: what ArbiGraph measures and the four topologies.

use leptos::prelude::*;

/// The About page.
#[component]
pub fn AboutPage() -> impl IntoView {
    view! {
        <section class="page page-about" id="page-about">
            <h1>"What ArbiGraph measures"</h1>
            <p>
                "ArbiGraph builds benchmarks out of small tasks whose answers a program can check exactly: math operators, "
                "word problems and Python functions to trace. Each task has a typed input and output, and the tasks are wired "
                "into a graph so that one task's answer becomes the next task's input. The whole graph is written out as a single "
                "prompt; an agent with a calculator answers every task as "<code>"\\boxed{task_N_out = ...}"</code>", and the target task is graded."
            </p>
            <p>
                "Because every task is solved correctly in isolation by strong models, the interesting signal is the gap between "
                "isolated and composed accuracy: whether an agent can carry a value forward, update it, and set aside what no longer "
                "matters as the graph grows. The same tasks appear in four topologies, so a drop in accuracy points at context "
                "management rather than at the tasks themselves."
            </p>
            <h2>"The four topologies"</h2>
            <dl class="about-topologies">
                <dt>"Baseline"</dt>
                <dd>"One task on its own: can the agent solve it at all?"</dd>
                <dt>"Forgetting"</dt>
                <dd>"Unrelated, independent tasks come first and the target comes last: can the agent keep them apart?"</dd>
                <dt>"Chain"</dt>
                <dd>"Each task consumes the previous task's answer: can the agent carry state forward without errors compounding?"</dd>
                <dt>"Multichain and custom graphs"</dt>
                <dd>"Lists split into scalar branches that later recombine, or any DAG drawn in the designer: can the agent track many values at once?"</dd>
            </dl>
        </section>
    }
}
