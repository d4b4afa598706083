//! Endpoint presets (`ProviderPicker`: `select[data-testid="endpoint-preset"]`, one option per provider profile
//! of `agent::provider::PROFILES`: choosing one sets the base URL, a model and the provider whose rules the run
//! follows; `select[data-testid="wire"]` picks the wire where a provider speaks two) and the run settings
//! beyond the basics (`RunSettingsForm`): the
//! temperature (`[data-testid="temperature"]`), the turn limit (`[data-testid="turn-limit"]`), the samples run
//! at once (`[data-testid="concurrency"]`, 1 to 32), the request timeout (`[data-testid="request-timeout"]`), the epochs
//! (`[data-testid="epochs"]`: attempts per sample), streamed replies (`[data-testid="stream"]`), the repair
//! completion limit (`[data-testid="repair-max-tokens"]`) and extra request headers
//! (`[data-testid="extra-headers"]`, secrets kept in memory like the key). A bad value is refused beside the
//! fields (`[data-testid="settings-error"]`) and the last good setting stays. The rules are
//! `app::evaluate::settings`.

use leptos::prelude::*;

use crate::app::evaluate::settings::{parse_headers, RunSettings};
use crate::engine::agent::provider::{profile, Wire, PROFILES};
use crate::ui::common::with_code;
use crate::ui::state::AppState;

/// The server picker: a preset per provider, the provider whose rules the requests follow, the wire where the
/// provider speaks two, and what the chosen provider needs.
#[component]
pub fn ProviderPicker() -> impl IntoView {
    let endpoint = expect_context::<AppState>().evaluation.endpoint;
    let choose = move |ev: leptos::ev::Event| {
        let key = event_target_value(&ev);
        match profile(&key) {
            Ok(p) => endpoint.update(|e| {
                e.base_url = p.base_url.to_string();
                e.model = p.model.to_string();
                e.provider = p.key.to_string();
                e.wire = None;
            }),
            // "choose a preset…": the provider follows the base URL again.
            Err(_) => endpoint.update(|e| e.provider.clear()),
        }
    };
    // What the chosen provider needs; drawn from the endpoint, so it is there again when the page is opened again.
    let note = Memo::new(move |_| {
        endpoint.with(|e| {
            let p = profile(&e.provider).ok()?;
            let key_note = if p.needs_key { "needs an API key; " } else { "" };
            let placeholder = if e.base_url.contains("RESOURCE") { "; put your resource and deployment names into the base URL" } else { "" };
            Some(format!("{}: {key_note}{}{placeholder}", p.label, p.browser))
        })
    });
    // Memos: typing in the base URL redraws these only when the provider changes.
    let wires = Memo::new(move |_| endpoint.with(|e| e.profile().wires));
    let set_wire = move |ev: leptos::ev::Event| endpoint.update(|e| e.wire = Wire::parse(&event_target_value(&ev)).ok());
    view! {
        <div class="eval-provider">
            <label>"Server "
                <select data-testid="endpoint-preset" on:change=choose prop:value=move || endpoint.with(|e| e.provider.clone())>
                    <option value="">"choose a preset…"</option>
                    {PROFILES.iter().map(|p| view! { <option value=p.key>{p.label}</option> }).collect_view()}
                </select>
            </label>
            {move || (wires.get().len() > 1).then(|| view! {
                <label title="Messages keeps prompt caching and thinking blocks; chat completions is the provider's compatibility layer">"Wire "
                    <select data-testid="wire" on:change=set_wire prop:value=move || endpoint.with(|e| e.wire().as_str().to_string())>
                        {wires.get().iter().map(|w| view! { <option value=w.as_str()>{match w { Wire::Messages => "Messages API", Wire::ChatCompletions => "chat completions" }}</option> }).collect_view()}
                    </select>
                </label>
            })}
            <span class="muted" data-testid="provider-in-use" title="Whose rules the requests follow: the preset chosen, else the one the base URL belongs to">
                {move || endpoint.with(|e| if e.provider.is_empty() { format!("provider: {} (from the base URL)", e.profile().label) } else { String::new() })}
            </span>
            {move || note.get().map(|note| view! { <span class="muted eval-preset-note">{with_code(&note)}</span> })}
        </div>
    }
}

/// The run settings.
#[component]
pub fn RunSettingsForm() -> impl IntoView {
    let evaluation = expect_context::<AppState>().evaluation;
    let (endpoint, settings, headers) = (evaluation.endpoint, evaluation.settings, evaluation.headers);
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    let field = move |change: fn(&RunSettings, &str) -> Result<RunSettings, String>| {
        move |ev: leptos::ev::Event| match change(&settings.get_untracked(), &event_target_value(&ev)) {
            Ok(next) => {
                problem.set(None);
                settings.set(next);
            }
            Err(message) => problem.set(Some(message)),
        }
    };
    let set_headers = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        match parse_headers(&text) {
            Ok(parsed) => {
                problem.set(None);
                endpoint.update(|e| e.headers = parsed);
            }
            Err(message) => problem.set(Some(message)),
        }
        headers.set(text);
    };
    let optional = |value: Option<usize>| value.map(|v| v.to_string()).unwrap_or_default();
    view! {
        <div class="eval-settings">
            <label title="0 to 2; the paper's runs use 0">"Temperature "
                <input type="number" data-testid="temperature" min="0" max="2" step="0.1" style="width:5em"
                    prop:value=move || settings.with(|s| s.temperature.to_string()) on:change=field(RunSettings::with_temperature) />
            </label>
            <label title="Empty: the topology's default, at most 60 in the browser">"Turn limit "
                <input type="number" data-testid="turn-limit" min="1" max="2000" placeholder="default" style="width:6em"
                    prop:value=move || settings.with(|s| optional(s.max_turns)) on:change=field(RunSettings::with_max_turns) />
            </label>
            <label title="Samples sent at once, 1 to 32">"Concurrency "
                <input type="number" data-testid="concurrency" min="1" max="32" style="width:4em"
                    prop:value=move || settings.with(|s| s.concurrency.to_string()) on:change=field(RunSettings::with_concurrency) />
            </label>
            <label title="Attempts per sample: mean accuracy and pass^k (every attempt right) on Results">"Epochs "
                <input type="number" data-testid="epochs" min="1" max="20" style="width:4em"
                    prop:value=move || settings.with(|s| s.epochs.to_string()) on:change=field(RunSettings::with_epochs) />
            </label>
            <label class="eval-remember" title="Ask for server-sent events and show each reply's text as it arrives (a server that ignores it answers as usual)">
                <input type="checkbox" data-testid="stream" prop:checked=move || settings.with(|s| s.stream)
                    on:change=move |ev| settings.update(|s| s.stream = event_target_checked(&ev)) />
                " stream replies"
            </label>
            <label title="Seconds a request may take before it is aborted and retried; empty: ten minutes">"Request timeout (s) "
                <input type="number" data-testid="request-timeout" min="1" max="3600" placeholder="600" style="width:5em"
                    prop:value=move || settings.with(|s| optional(s.timeout_secs.map(|t| t as usize))) on:change=field(RunSettings::with_timeout) />
            </label>
            <label title="Empty: twice a normal turn's">"Repair max tokens "
                <input type="number" data-testid="repair-max-tokens" min="16" placeholder="default" style="width:7em"
                    prop:value=move || settings.with(|s| optional(s.repair_max_tokens.map(|t| t as usize))) on:change=field(RunSettings::with_repair_max_tokens) />
            </label>
            <label class="eval-headers" title="One per line, e.g. a provider's browser-access header; kept in memory only, like the key">"Extra headers "
                <textarea data-testid="extra-headers" rows="2" spellcheck="false" autocomplete="off" placeholder="x-api-key: …"
                    prop:value=move || headers.get() on:change=set_headers></textarea>
            </label>
            {move || problem.get().map(|p| view! { <span class="eval-param-error" role="alert" data-testid="settings-error">{p}</span> })}
        </div>
    }
}
