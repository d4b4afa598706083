//! Generate & browse: pick a topology, family, seed and size; generate in the Web Worker with progress and
//! cancel; browse samples with role-coloured prompts; download the dataset; deep links
//! (`#/generate?…&target=T&sample=S`) regenerate one sample alone.

use leptos::prelude::*;

use crate::ui::common::{ErrorView, PromptView, RoleLegend};
use crate::app::jobs::SampleRecord;
use crate::app::form::{query_pairs, GenerateForm};
use crate::ui::route::hash_query;
use crate::ui::state::{AppState, GenerationState};
use crate::web::download::download_text;

fn current_query() -> String {
    hash_query(&window().location().hash().unwrap_or_default()).to_string()
}

/// The Generate & browse page.
#[component]
pub fn GeneratePage() -> impl IntoView {
    let generation = expect_context::<AppState>().generation;
    let GenerationState { form, records, selected, progress, status, error, .. } = generation;
    let run = move || generation.run();

    // A link with settings sets the form; a link to one sample regenerates just that sample.
    let query = current_query();
    if !query.is_empty() {
        form.set(GenerateForm::from_query(&query));
        generation.graph.set(None);
        let pairs = query_pairs(&query);
        let find = |key: &str| pairs.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.parse::<u32>().ok());
        if let (Some(target), Some(sample)) = (find("target"), find("sample")) {
            generation.run_one(target as usize, sample);
        }
    }

    // The dataset file: the run's summary and every sample's record, in the reference layout.
    let download = move |jsonl: bool| {
        let all = records.get_untracked();
        let (name, text) = if jsonl {
            ("arbigraph.jsonl", all.iter().map(|r| format!("{}\n", r.json)).collect::<String>())
        } else {
            let samples: Vec<serde_json::Value> = all.iter().filter_map(|r| serde_json::from_str(&r.json).ok()).collect();
            let summary: serde_json::Value = serde_json::from_str(&generation.summary.get_untracked()).unwrap_or_default();
            ("arbigraph.json", crate::engine::dataset::to_pretty_string(&serde_json::json!({"summary": summary, "samples": samples})) + "\n")
        };
        if let Err(e) = download_text(name, "application/json", &text) {
            error.set(e.to_string());
        }
    };

    let link_for = move |s: &SampleRecord| format!("#/generate?{}&target={}&sample={}", form.get_untracked().to_query(), s.target_index, s.sample_idx);

    let field_text = move |key: &'static str| {
        move |ev: leptos::ev::Event| {
            let value = event_target_value(&ev);
            form.update(|f| match key {
                "topology" => f.topology = value,
                "family" => f.family = value,
                "structure" => f.structure = value,
                "spt" => f.samples_per_target = value.parse().unwrap_or(0),
                "seed" => f.seed = value.parse().unwrap_or(0),
                "length" => f.length = value.parse().unwrap_or(0),
                "distractors" => f.distractors = value.parse().unwrap_or(0),
                _ => {}
            });
        }
    };

    view! {
        <section class="page page-generate" id="page-generate">
            <h1>"Generate and browse instances"</h1>
            <div class="panel generate-form">
                <label>"Topology "
                    <select id="gen-topology" on:change=field_text("topology") prop:value=move || form.get().topology>
                        <option value="baseline">"baseline"</option>
                        <option value="forgetting">"forgetting"</option>
                        <option value="chain">"chain"</option>
                        <option value="multichain">"multichain"</option>
                    </select>
                </label>
                <label>"Family "
                    <select id="gen-family" on:change=field_text("family") prop:value=move || form.get().family>
                        <option value="math">"math"</option>
                        <option value="gsm">"gsm"</option>
                        <option value="python">"python"</option>
                        <option value="mixed">"mixed"</option>
                    </select>
                </label>
                <label>"Samples per target "
                    <input id="gen-spt" type="number" min="1" max="64" style="width:5em" on:change=field_text("spt") prop:value=move || form.get().samples_per_target.to_string() />
                </label>
                <label>"Seed "
                    <input id="gen-seed" type="number" min="0" style="width:7em" on:change=field_text("seed") prop:value=move || form.get().seed.to_string() />
                </label>
                <Show when=move || form.get().topology == "chain">
                    <label>"Length "<input id="gen-length" type="number" min="1" style="width:5em" on:change=field_text("length") prop:value=move || form.get().length.to_string() /></label>
                </Show>
                <Show when=move || form.get().topology == "forgetting">
                    <label>"Distractors "<input id="gen-distractors" type="number" min="1" style="width:5em" on:change=field_text("distractors") prop:value=move || form.get().distractors.to_string() /></label>
                </Show>
                <Show when=move || form.get().topology == "multichain">
                    <label>"Structure "<input id="gen-structure" placeholder="m,m,[m,m],[m,m],m,m" on:change=field_text("structure") prop:value=move || form.get().structure /></label>
                </Show>
                <button class="primary" id="gen-run" data-testid="generate" on:click=move |_| run()>"Generate"</button>
                <button id="gen-cancel" data-testid="cancel" disabled=move || progress.get().is_none() on:click=move |_| generation.cancel()>"Cancel"</button>
                <button id="gen-download-json" disabled=move || records.get().is_empty() || progress.get().is_some() on:click=move |_| download(false)>"Download JSON"</button>
                <button id="gen-download-jsonl" disabled=move || records.get().is_empty() || progress.get().is_some() on:click=move |_| download(true)>"Download JSONL"</button>
            </div>
            <ErrorView message=Signal::derive(move || error.get()) />
            {move || progress.get().map(|p| {
                let elapsed = (js_sys::Date::now() - p.started_ms).max(1.0) / 1000.0;
                let rate = p.done as f64 / elapsed;
                let left = if rate > 0.0 && p.total > p.done { format!(" · about {:.0} s left", (p.total - p.done) as f64 / rate) } else { String::new() };
                view! {
                    <p class="generate-progress">
                        <progress data-testid="progress" value=p.done max=p.total.max(1)></progress>
                        " "{format!("{} / {} samples · {:.0} per second{left}", p.done, p.total, rate)}
                    </p>
                }
            })}
            <p class="muted" id="gen-status">{move || status.get()}</p>
            <div class="row">
                <div class="sample-list">
                    <table id="gen-samples">
                        <thead><tr><th>"#"</th><th>"target"</th><th>"sample"</th><th>"answer"</th></tr></thead>
                        <tbody>
                            {move || records.get().into_iter().enumerate().map(|(i, s)| {
                                let answer: String = s.answer.chars().take(24).collect();
                                let answer = if s.answer.chars().count() > 24 { format!("{answer}…") } else { answer };
                                let name = s.target_key.split_once('.').map(|(_, n)| n.to_string()).unwrap_or(s.target_key.clone());
                                view! {
                                    <tr class="sample-row" class:sample-row--selected=move || selected.get() == Some(i)
                                        on:click=move |_| selected.set(Some(i))>
                                        <td>{i}</td><td>{name}</td><td>{s.sample_idx}</td><td class="mono">{answer}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
                <div class="grow" id="gen-detail">
                    {move || selected.get().and_then(|i| records.with(|r| r.get(i).cloned())).map(|s| {
                        let link = link_for(&s);
                        view! {
                            <div class="panel">
                                <p>
                                    <strong>{s.target_key.clone()}</strong>" · sample "{s.sample_idx}" · "{s.stages}" task(s)"
                                    " · "<a id="gen-permalink" href=link>"link to this sample"</a>
                                </p>
                                <p>"Answer: "<code id="gen-answer">{s.answer.clone()}</code></p>
                            </div>
                            <RoleLegend />
                            <PromptView text=s.prompt.clone() roles=s.roles.clone() />
                        }
                    })}
                </div>
            </div>
        </section>
    }
}
