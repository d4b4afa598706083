//! The context strategy picker (`[data-testid="strategy"]`) and the chosen strategy's parameters, one number
//! field each (`[data-testid="strategy-param"][data-key=…]`), with its range and what it controls; a value out
//! of range is refused beside the field and the run keeps the last good setting.

use leptos::prelude::*;

use crate::app::evaluate::strategy_form::{choices, choose, params_of, with_param};
use crate::engine::agent::Strategy;

/// The picker and the parameters of `strategy`.
#[component]
pub fn StrategyPicker(strategy: RwSignal<Strategy>) -> impl IntoView {
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    let description = move || strategy.with(|s| s.info().description);
    let params = move || {
        strategy
            .with(params_of)
            .into_iter()
            .map(|(param, value)| {
                let key = param.key;
                let on_change = move |ev| match with_param(&strategy.get_untracked(), key, &event_target_value(&ev)) {
                    Ok(chosen) => {
                        problem.set(None);
                        strategy.set(chosen);
                    }
                    Err(message) => problem.set(Some(message)),
                };
                view! {
                    <label class="eval-param" title=param.description>
                        {key}" "
                        <input type="number" data-testid="strategy-param" data-key=key min=param.min max=param.max
                            prop:value=value.to_string() on:change=on_change />
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <div class="eval-strategy">
            <label>"Context strategy "
                <select id="eval-strategy" data-testid="strategy" prop:value=move || strategy.with(|s| s.name().to_string())
                    on:change=move |ev| match choose(&event_target_value(&ev)) {
                        Ok(chosen) => {
                            problem.set(None);
                            strategy.set(chosen);
                        }
                        Err(message) => problem.set(Some(message)),
                    }>
                    {choices().into_iter().map(|(name, description)| view! { <option value=name title=description>{name}</option> }).collect_view()}
                </select>
            </label>
            {params}
            <span class="muted eval-strategy-note">{description}</span>
            {move || problem.get().map(|p| view! { <span class="eval-param-error" role="alert" data-testid="strategy-param-error">{p}</span> })}
        </div>
    }
}
