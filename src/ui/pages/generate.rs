//! Generate: pick a topology (or the paper's layouts), family, seed and size; generate in the Web Worker with
//! progress (done / total, rate, time left) and cancel; download the run as reference JSON or JSONL (the same
//! bytes as `arbigraph generate`); open dataset files. The samples are browsed on `#/browse`. An old
//! `#/generate?…&target=T&sample=S` link is passed on to `#/browse`, which regenerates that sample. Task packs
//! brought here (`PackPanel`) join their family: a bare family draws from its pack, and the family list
//! offers ours alone or ours and the pack's.

use leptos::prelude::*;

use crate::engine::generate::form::GenerateForm;
use crate::app::browse::link::Link;
use crate::engine::generate::plan::{ALL_FAMILIES, PAPER};
use crate::engine::dataset::FileFormat;
use crate::ui::common::ErrorView;
use crate::ui::common::{DropZone, OpenFileButton, PackPanel, RunProgress};
use crate::ui::route::hash_query;
use crate::ui::state::{AppState, GenerationState, Source};

/// A number field of the form.
fn number(form: RwSignal<GenerateForm>, label: &'static str, id: &'static str, min: u32, get: fn(&GenerateForm) -> String, set: fn(&mut GenerateForm, &str)) -> impl IntoView {
    view! {
        <label>{label}" "
            <input id=id type="number" min=min class="generate-number" prop:value=move || form.with(get)
                on:change=move |ev| { let v = event_target_value(&ev); form.update(|f| set(f, &v)); } />
        </label>
    }
}

/// The Generate page.
#[component]
pub fn GeneratePage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let generation = state.generation;
    let GenerationState { form, progress, exporting, status, error, .. } = generation;
    // A run here is spread over the helper workers: they start loading now, not at the first click.
    crate::web::worker::prepare_helpers();

    let query = hash_query(&window().location().hash().unwrap_or_default()).to_string();
    if let link @ Link::Regenerate { .. } = Link::parse(&query) {
        if let Some(hash) = link.to_hash() {
            let _ = window().location().replace(&hash);
        }
    } else if !query.is_empty() {
        form.set(GenerateForm::from_query(&query));
        generation.graph.set(None);
    }

    let choose = move |set: fn(&mut GenerateForm, String)| {
        move |ev: leptos::ev::Event| {
            let value = event_target_value(&ev);
            form.update(|f| set(f, value));
        }
    };
    let topology = move || form.with(|f| f.topology.clone());
    let generated = move || state.browse.datasets.with(|all| all.iter().find(|d| matches!(d.source, Source::Generated { .. })).map(|d| d.loaded)).unwrap_or(0);
    let busy = move || progress.get().is_some() || exporting.get().is_some();
    let custom = move || generation.graph.with(Option::is_some);
    // A family with a pack: its bare name draws from the pack, and two more choices name the sources.
    let packed = move || state.packs.loaded.with(|all| all.iter().filter_map(|p| Some((p.summary.family()?, p.source.kind.clone()))).collect::<Vec<_>>());
    let family_label = move |family: &'static str| {
        move || if packed().iter().any(|(f, _)| f.to_string() == family) { format!("{family} (the pack)") } else { family.to_string() }
    };
    let source_options = move || {
        packed()
            .into_iter()
            .map(|(family, kind)| {
                view! {
                    <option value=format!("{family}.ours")>{format!("{family}: ours only")}</option>
                    <option value=format!("{family}.ours,{kind}")>{format!("{family}: ours and the pack")}</option>
                }
            })
            .collect_view()
    };

    view! {
        <section class="page page-generate" id="page-generate">
            <DropZone />
            <h1>"Generate instances"</h1>
            <Show when=custom>
                <p class="panel generate-custom">"Generating from the designer's graph. "
                    <button id="gen-forget-graph" on:click=move |_| generation.graph.set(None)>"Use a topology instead"</button></p>
            </Show>
            <div class="panel generate-form">
                <label>"Topology "
                    <select id="gen-topology" on:change=choose(|f, v| f.topology = v) prop:value=topology>
                        <option value="baseline">"baseline"</option>
                        <option value="forgetting">"forgetting"</option>
                        <option value="chain">"chain"</option>
                        <option value="multichain">"multichain"</option>
                        <option value=PAPER>"the paper's four layouts"</option>
                    </select>
                </label>
                <label>"Family "
                    <select id="gen-family" on:change=choose(|f, v| f.family = v) prop:value=move || form.with(|f| f.family.clone())>
                        <option value="math">"math"</option>
                        <option value="gsm">{family_label("gsm")}</option>
                        <option value="python">{family_label("python")}</option>
                        <option value="mixed">"mixed"</option>
                        {source_options}
                        <Show when=move || topology() == PAPER><option value=ALL_FAMILIES>"all three, separately"</option></Show>
                    </select>
                </label>
                {number(form, "Samples per target", "gen-spt", 1, |f| f.samples_per_target.to_string(), |f, v| f.samples_per_target = v.parse().unwrap_or(0))}
                {number(form, "Seed", "gen-seed", 0, |f| f.seed.to_string(), |f, v| f.seed = v.parse().unwrap_or(0))}
                <Show when=move || topology() == "chain">
                    {number(form, "Length", "gen-length", 1, |f| f.length.to_string(), |f, v| f.length = v.parse().unwrap_or(0))}
                </Show>
                <Show when=move || topology() == "forgetting">
                    {number(form, "Distractors", "gen-distractors", 1, |f| f.distractors.to_string(), |f, v| f.distractors = v.parse().unwrap_or(0))}
                </Show>
                <Show when=move || topology() == "multichain">
                    <label>"Structure "<input id="gen-structure" placeholder="m,m,[m,m],[m,m],m,m" on:change=choose(|f, v| f.structure = v) prop:value=move || form.with(|f| f.structure.clone()) /></label>
                </Show>
            </div>
            <PackPanel />
            <div class="generate-actions">
                <button class="primary" id="gen-run" data-testid="generate" on:click=move |_| generation.run()>"Generate"</button>
                <button id="gen-cancel" data-testid="cancel" disabled=move || progress.get().is_none() on:click=move |_| generation.cancel()>"Cancel"</button>
                <button id="gen-download-json" disabled=move || generated() == 0 || busy() on:click=move |_| generation.download(FileFormat::Json)>"Download JSON"</button>
                <button id="gen-download-jsonl" disabled=move || generated() == 0 || busy() on:click=move |_| generation.download(FileFormat::Jsonl)>"Download JSONL"</button>
                <span class="generate-or muted">"or"</span>
                <OpenFileButton />
            </div>
            <RunProgress progress=progress unit="samples" testid="progress" />
            <RunProgress progress=exporting unit="samples written" />
            <ErrorView message=Signal::derive(move || error.get()) />
            <ErrorView message=Signal::derive(move || state.browse.error.get()) />
            <p class="generate-status" id="gen-status">
                {move || status.get()}
                {move || (generated() > 0).then(|| view! { " " <a id="gen-browse" href="#/browse">{format!("Browse the {} samples →", generated())}</a> })}
            </p>
            <p class="muted generate-hint">
                "Downloads regenerate the run in the worker, so they are byte-identical to "
                <code>"arbigraph generate"</code>" with the same settings (one file per layout for the paper's layouts). "
                "Dataset files can also be dropped anywhere on this page."
            </p>
        </section>
    }
}
