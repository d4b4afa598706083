//! The picture settings of the graph's image tasks, shown in the inspector when an image task is selected
//! (`[data-testid="picture-settings"]`): a difficulty level (`select[data-testid="picture-difficulty"]`), one
//! number field per parameter (`[data-testid="picture-param"][data-key=…]`, refused beside the field when out
//! of range: `[data-testid="picture-param-error"]`), the numbering rule, and a reset to the run's parameters.
//! Every change is one undoable edit of the graph, saved in its file as `graph.image_params`.

use leptos::prelude::*;

use crate::app::design::pictures::{difficulty, difficulty_of, fields, infeasible, label, with_field, with_numbering, DIFFICULTIES};
use crate::engine::tasks::image::ImageParams;
use crate::ui::state::AppState;

/// The settings panel.
#[component]
pub fn PictureSettings() -> impl IntoView {
    let design = expect_context::<AppState>().design;
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    let own = Memo::new(move |_| {
        design.graph_rev.track();
        design.read(|m| m.graph().image_params().copied())
    });
    let current = move || own.get().unwrap_or_default();
    let set = move |params: Option<ImageParams>, field: Option<&str>| {
        let now = js_sys::Date::now();
        problem.set(None);
        design.update(|m| {
            let _ = m.set_image_params(params, field, now);
        });
    };
    let choose = move |ev: leptos::ev::Event| {
        if let Some(params) = difficulty(&event_target_value(&ev)) {
            set(Some(params), None);
        }
    };
    let numbering = move |ev: leptos::ev::Event| match with_numbering(current(), &event_target_value(&ev)) {
        Ok(params) => set(Some(params), Some("numbering")),
        Err(message) => problem.set(Some(message)),
    };
    let inputs = move || {
        let params = current();
        fields()
            .iter()
            .map(|spec| {
                let name = spec.name;
                let on_change = move |ev: leptos::ev::Event| match with_field(current(), name, &event_target_value(&ev)) {
                    Ok(params) => set(Some(params), Some(name)),
                    Err(message) => problem.set(Some(message)),
                };
                let value = params.get(name).unwrap_or(spec.default);
                view! {
                    <label class="design-field" title=format!("{} ({}–{}; the reference uses {})", spec.help, spec.min, spec.max, spec.default)>
                        {label(name)}
                        <input type="number" name=name data-testid="picture-param" data-key=name min=spec.min max=spec.max prop:value=value.to_string() on:change=on_change />
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <fieldset class="design-pictures" data-testid="picture-settings">
            <legend>"Pictures (all image tasks)"</legend>
            <label class="design-field">"difficulty"
                <select name="difficulty" data-testid="picture-difficulty" prop:value=move || difficulty_of(&current()).to_string() on:change=choose>
                    {DIFFICULTIES.iter().map(|d| view! { <option value=d.key>{d.label}</option> }).collect_view()}
                    <option value="custom" disabled=true>"custom"</option>
                </select>
            </label>
            <div class="design-picture-fields">{inputs}</div>
            <label class="design-field">"numbering"
                <select name="numbering" data-testid="picture-numbering" prop:value=move || current().numbering.as_str().to_string() on:change=numbering>
                    <option value="sequential">"sequential (the reference: consecutive along each path)"</option>
                    <option value="shuffled">"shuffled (every number must be read)"</option>
                </select>
            </label>
            {move || problem.get().map(|p| view! { <p class="design-field-error" role="alert" data-testid="picture-param-error">{p}</p> })}
            {move || infeasible(&current()).map(|p| view! { <p class="design-field-error" role="alert" data-testid="picture-infeasible">{format!("These pictures cannot be drawn: {p}.")}</p> })}
            <p class="design-hint">
                {move || if own.get().is_some() { "Saved with the graph (graph.image_params); the CLI's --image-* flags change them." } else { "The run's parameters (the reference's unless changed): pick a level or change a field to keep them with this graph." }}
            </p>
            {move || own.get().is_some().then(|| view! { <button data-testid="picture-reset" on:click=move |_| set(None, None)>"Use the run's parameters"</button> })}
        </fieldset>
    }
}
