//! Prices, budgets and the estimate (`[data-testid="estimate"]`, its line `[data-testid="estimate-line"]`):
//! prices per million input, cached input and output tokens (`price-in`, `price-cached-in`, `price-out`; cached
//! input read from a provider's prompt cache is billed at its own price, reasoning tokens as output) and an
//! optional budget in tokens or in
//! money (`budget-tokens`, `budget-cost`) that stops the run cleanly. A bad value is refused beside the fields
//! (`[data-testid="budget-error"]`). The rules and the estimate are `app::evaluate::estimate`'s.

use leptos::prelude::*;
use serde_json::Value;

use crate::app::evaluate::estimate::{estimate, estimate_line};
use crate::engine::agent::prompts::SYSTEM_PROMPT;
use crate::ui::common::{spend_field, PriceFields};
use crate::ui::state::AppState;

/// The samples an estimate covers, handed to the callback it is given once they are here (a built-in
/// topology's are generated in the worker first).
pub type SamplesFor = Callback<Callback<Result<Vec<Value>, String>>>;

/// The fields and the estimate of the samples `samples` gives (the run's, as Run would start it).
#[component]
pub fn BudgetForm(samples: SamplesFor) -> impl IntoView {
    let evaluation = expect_context::<AppState>().evaluation;
    let settings = evaluation.settings;
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    let line = RwSignal::new(String::new());
    let field = move |name: &'static str| spend_field(name, problem);
    let show = Callback::new(move |given: Result<Vec<Value>, String>| match given {
        Ok(list) => {
            let spend = settings.get_untracked().spend;
            line.set(estimate_line(&estimate(&list, SYSTEM_PROMPT, evaluation.max_tokens.get_untracked()), &spend));
        }
        Err(e) => line.set(format!("No estimate: {e}")),
    });
    // The line goes while the samples are fetched (a topology's come from the worker), so a stale one is never read.
    let run_estimate = move |_| {
        line.set(String::new());
        samples.run(show);
    };
    view! {
        <div class="eval-settings eval-budget">
            <PriceFields testids=("price-in", "price-out") problem=problem />
            <label title="Price per million input tokens read from the provider's prompt cache; empty: the input price">"$ / M cached input "
                <input type="number" data-testid="price-cached-in" min="0" step="0.001" style="width:5em" placeholder="same"
                    prop:value=move || settings.with(|s| s.spend.price_cached_in.map(|p| p.to_string()).unwrap_or_default()) on:change=field("price_cached_in") />
            </label>
            <label title="Stop the run once this many tokens (input and output) are spent; empty: no limit">"Token budget "
                <input type="number" data-testid="budget-tokens" min="1" style="width:7em" placeholder="none"
                    prop:value=move || settings.with(|s| s.spend.budget_tokens.map(|b| b.to_string()).unwrap_or_default()) on:change=field("budget_tokens") />
            </label>
            <label title="Stop the run once this much is spent at the prices given; empty: no limit">"Cost budget ($) "
                <input type="number" data-testid="budget-cost" min="0" step="0.01" style="width:5em" placeholder="none"
                    prop:value=move || settings.with(|s| s.spend.budget_cost.map(|b| b.to_string()).unwrap_or_default()) on:change=field("budget_cost") />
            </label>
            <button data-testid="estimate" on:click=run_estimate>"Estimate"</button>
            {move || (!line.get().is_empty()).then(|| view! { <span class="muted eval-preset-note" data-testid="estimate-line">{line.get()}</span> })}
            {move || problem.get().map(|p| view! { <span class="eval-param-error" role="alert" data-testid="budget-error">{p}</span> })}
        </div>
    }
}
