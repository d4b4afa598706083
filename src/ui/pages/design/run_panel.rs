//! From design to instances: generate samples of the graph (samples per target, seed, and the families that
//! nodes of family `any` draw from) in the job runner and open them in the instance browser; or preview
//! one sample here, made by the same worker (the page holds no generators).

use leptos::prelude::*;

use crate::app::design::NoticeLevel;
use crate::app::instance::Detail;
use crate::app::jobs::{FromWorker, JobRequest};
use crate::engine::generate::form::GenerateForm;
use crate::engine::graph::Severity;
use crate::ui::common::{PromptView, RoleLegend};
use crate::ui::state::AppState;
use crate::web::worker;

/// The worker's dataset that holds the previewed sample (replaced by each preview).
const PREVIEW: &str = "design:preview";

/// The generate panel.
#[component]
pub fn RunPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let design = state.design;
    let spt = RwSignal::new(2u32);
    let seed = RwSignal::new(0u64);
    let families = RwSignal::new("math".to_string());
    let sample = RwSignal::new(None::<Detail>);

    let errors = move || design.issues.with(|i| i.iter().filter(|i| i.severity == Severity::Error).count());
    let form = move || GenerateForm { topology: "baseline".into(), family: families.get_untracked(), samples_per_target: spt.get_untracked().max(1), seed: seed.get_untracked(), ..GenerateForm::default() };
    let run = move |_| {
        let n = errors();
        if n > 0 {
            design.say(NoticeLevel::Error, format!("the graph has {n} error(s): fix them first (see Problems)"));
            return;
        }
        state.generation.form.set(form());
        state.generation.graph.set(Some(design.graph_json()));
        state.generation.run();
        let _ = window().location().set_hash("#/browse");
    };
    // The first sample of the first target, made in the worker, then read back as the instance view reads it.
    let preview = move |_| {
        sample.set(None);
        let n = errors();
        if n > 0 {
            design.say(NoticeLevel::Error, format!("the graph has {n} problem(s); see Problems"));
            return;
        }
        let base = form();
        let form = GenerateForm { samples_per_target: 1, family: crate::ui::state::explicit_now(&base.family), ..base };
        let packs = crate::ui::state::current_sources();
        let request = JobRequest::GenerateOne { dataset: PREVIEW.into(), form, graph: Some(design.graph_json()), target: 0, sample: 0, packs };
        worker::start(request, move |message| match message {
            FromWorker::Done { .. } => {
                worker::start(JobRequest::Detail { dataset: PREVIEW.into(), index: 0 }, move |message| match message {
                    FromWorker::Detail { detail, .. } => sample.set(Some(*detail)),
                    FromWorker::Failed { message, .. } => design.say(NoticeLevel::Error, message),
                    _ => {}
                });
            }
            FromWorker::Failed { message, .. } => design.say(NoticeLevel::Error, message),
            _ => {}
        });
    };
    let number = |ev: &leptos::ev::Event| event_target_value(ev).trim().parse::<u64>().ok();
    view! {
        <div class="design-run">
            <h2>"From design to instances"</h2>
            <div class="design-run-form">
                <label class="design-field">"samples per target"<input name="spt" type="number" min="1" prop:value=move || spt.get().to_string()
                    on:change=move |ev| if let Some(v) = number(&ev) { spt.set(v.clamp(1, 10_000) as u32) } /></label>
                <label class="design-field">"seed"<input name="seed" type="number" min="0" prop:value=move || seed.get().to_string()
                    on:change=move |ev| if let Some(v) = number(&ev) { seed.set(v) } /></label>
                <label class="design-field" title="Nodes of family any draw their tasks from these">"families for any"
                    <select name="families" prop:value=move || families.get() on:change=move |ev| families.set(event_target_value(&ev))>
                        <option value="math">"math"</option><option value="gsm">"gsm"</option><option value="python">"python"</option><option value="mixed">"all three"</option>
                    </select>
                </label>
                <button class="primary" data-testid="generate" on:click=run>"Generate instances"</button>
                <button id="design-generate" on:click=preview title="Generate one sample here, on this page">"Preview one sample"</button>
            </div>
            {move || sample.get().map(|s| view! {
                <p>"Graded output "<code>{s.answer_name.clone()}</code>" = "<code id="design-answer">{s.answer.clone()}</code></p>
                <RoleLegend />
                <PromptView text=s.prompt.clone() roles=s.roles.clone() />
            })}
        </div>
    }
}
