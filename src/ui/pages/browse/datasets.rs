//! Which dataset the browser shows: a picker over every dataset the page knows, and the static site's list
//! (`[data-testid="dataset-list"]`, one entry `[data-dataset="<name>"]` per hosted dataset) with each one's
//! topology, family, size and generator.

use leptos::prelude::*;

use crate::app::browse::demo;
use crate::app::jobs::{FromWorker, JobRequest};
use crate::engine::dataset::FileFormat;
use crate::ui::common::file_size;
use crate::web::download::download_text;
use crate::web::worker;
use crate::ui::state::{AppState, SiteStatus, Source};

/// A select of the open datasets, with their sample counts.
#[component]
pub fn DatasetPicker() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let options = move || {
        browse
            .datasets
            .get()
            .into_iter()
            .map(|d| {
                let count = if d.loaded < d.total && !matches!(d.source, Source::Hosted(_)) { format!("{} of {}", d.loaded, d.total) } else { d.total.to_string() };
                view! { <option value=d.key.clone()>{format!("{} ({count} samples)", d.name)}</option> }
            })
            .collect_view()
    };
    let on_change = move |ev: leptos::ev::Event| browse.show(&event_target_value(&ev));
    view! {
        <Show when=move || browse.datasets.with(|d| !d.is_empty())>
            <label class="browse-picker">"Dataset "
                <select id="browse-dataset" on:change=on_change prop:value=move || browse.current.get().unwrap_or_default()>
                    <option value="" disabled=true>"choose…"</option>
                    {options}
                </select>
            </label>
        </Show>
    }
}

/// The static site's datasets, when the app is served with a `datasets/index.json`.
#[component]
pub fn SiteDatasets() -> impl IntoView {
    let browse = expect_context::<AppState>().browse;
    let entries = move || {
        let SiteStatus::Found(index) = browse.site.get() else { return None };
        let count = index.datasets.len();
        let rows = index
            .datasets
            .into_iter()
            .map(|d| {
                let key = format!("site:{}", d.name);
                let shown = key.clone();
                let link = format!("#/browse?dataset={}", crate::app::browse::link::encode(&d.name));
                view! {
                    <tr class="site-dataset" class:site-dataset--current=move || browse.current.get().as_deref() == Some(shown.as_str())
                        data-dataset=d.name.clone() on:click=move |_| browse.show(&key)>
                        <td><a href=link on:click=|ev| ev.prevent_default()>{d.name.clone()}</a></td>
                        <td>{d.topology.clone()}</td>
                        <td>{d.family.clone()}</td>
                        <td class="num">{d.samples}</td>
                        <td class="num">{file_size(d.bytes)}</td>
                        <td class="muted">{if d.generator.is_empty() { "reference file".to_string() } else { d.generator.clone() }}</td>
                        <td>{file_link(browse.demo.get_untracked(), d.name.clone(), d.file.clone())}</td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <details class="panel site-datasets" open=browse.current.get_untracked().is_none()>
                <summary>{format!("Datasets on this site ({count})")}</summary>
                <table data-testid="dataset-list">
                    <thead><tr><th>"name"</th><th>"topology"</th><th>"family"</th><th class="num">"samples"</th><th class="num">"size"</th><th>"generator"</th><th></th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        })
    };
    view! { {entries} }
}

/// The link to a dataset's whole file: on the site, or, for a demo dataset (which has no file beside the app),
/// regenerated in the worker and saved (the same bytes `arbigraph site` would publish).
fn file_link(demo: bool, name: String, file: String) -> impl IntoView {
    if !demo {
        return view! { <a href=format!("datasets/{file}") download=file.clone() on:click=|ev| ev.stop_propagation()>"file"</a> }.into_any();
    }
    let save = move |ev: leptos::ev::MouseEvent| {
        ev.prevent_default();
        ev.stop_propagation();
        let Some(form) = demo::form_of(&name) else { return };
        let file = file.clone();
        worker::start(JobRequest::Export { form, graph: None, format: FileFormat::Json, packs: Vec::new() }, move |message| {
            if let FromWorker::File { text, .. } = message {
                let _ = download_text(&file, "application/json", &text);
            }
        });
    };
    view! { <a href="#" on:click=save>"file"</a> }.into_any()
}
