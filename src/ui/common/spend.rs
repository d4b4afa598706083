//! The spend fields shared by the run's budget (Evaluate) and the comparison of runs (Results): input and output
//! prices per million tokens, written into the run settings through `Spend::with`, a bad value reported beside them.

use leptos::prelude::*;

use crate::ui::state::AppState;

/// What a change of spend field `name` (`Spend::with`'s names) does: sets it in the run settings, or puts why
/// not in `problem`.
pub fn spend_field(name: &'static str, problem: RwSignal<Option<String>>) -> impl Fn(leptos::ev::Event) {
    let settings = expect_context::<AppState>().evaluation.settings;
    move |ev: leptos::ev::Event| match settings.get_untracked().spend.with(name, &event_target_value(&ev)) {
        Ok(spend) => {
            problem.set(None);
            settings.update(|s| s.spend = spend);
        }
        Err(message) => problem.set(Some(message)),
    }
}

/// The input and output price fields (with test ids `testids`), shared by the run's budget and the comparison
/// of runs; a bad value is put in `problem`.
#[component]
pub fn PriceFields(testids: (&'static str, &'static str), problem: RwSignal<Option<String>>) -> impl IntoView {
    let settings = expect_context::<AppState>().evaluation.settings;
    let shown = |value: f64| if value > 0.0 { value.to_string() } else { String::new() };
    view! {
        <label title="Price per million input (prompt) tokens">"$ / M input "
            <input type="number" data-testid=testids.0 min="0" step="0.01" style="width:5em" placeholder="0"
                prop:value=move || settings.with(|s| shown(s.spend.price_in)) on:change=spend_field("price_in", problem) />
        </label>
        <label title="Price per million output (completion) tokens">"$ / M output "
            <input type="number" data-testid=testids.1 min="0" step="0.01" style="width:5em" placeholder="0"
                prop:value=move || settings.with(|s| shown(s.spend.price_out)) on:change=spend_field("price_out", problem) />
        </label>
    }
}
