//! From design to instances: generate samples of the graph (samples per target, seed, and the families that
//! nodes of family `any` draw from) in the job runner and open them in the instance browser; or preview
//! one sample here.

use leptos::prelude::*;

use crate::app::design::NoticeLevel;
use crate::engine::generate::form::GenerateForm;
use crate::app::jobs::roles_of;
use crate::engine::generate::{self, GenerateConfig, Topology};
use crate::engine::graph::{Severity, ValidGraph};
use crate::ui::common::{PromptView, RoleLegend};
use crate::ui::state::{with_registry, AppState};

/// The generate panel.
#[component]
pub fn RunPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let design = state.design;
    let spt = RwSignal::new(2u32);
    let seed = RwSignal::new(0u64);
    let families = RwSignal::new("math".to_string());
    let sample = RwSignal::new(None);

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
    let preview = move |_| {
        sample.set(None);
        let graph = design.read(|m| m.graph().clone());
        let config = form().to_config();
        let result = with_registry(|r| {
            let valid = ValidGraph::new(graph, r).map_err(|issues| format!("the graph has {} problem(s); see Problems", issues.len()))?;
            let mut config = config.unwrap_or_else(|_| GenerateConfig::new(Topology::Baseline, Vec::new()));
            config.topology = Topology::Custom(Box::new(valid));
            config.samples_per_target = 1;
            generate::generate_sample(&config, r, 0, 0).map_err(|e| e.to_string())
        });
        match result {
            Ok(s) => sample.set(Some(s)),
            Err(e) => design.say(NoticeLevel::Error, e),
        }
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
                <p>"Graded output "<code>{s.target_output_name.clone()}</code>" = "<code id="design-answer">{s.ground_truth.repr()}</code></p>
                <RoleLegend />
                <PromptView text=s.prompt.text().to_string() roles=roles_of(&s.prompt) />
            })}
        </div>
    }
}
