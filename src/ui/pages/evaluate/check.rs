//! The endpoint check: one button that probes the endpoint (CORS preflight and `/models`, a plain chat call, a
//! tool call, a picture to read) and a line per probe with what failed and how to fix it (`app::evaluate::check` decides which).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::evaluate::check::{explain_for, parameters_line, CheckLine, Probe};
use crate::engine::agent::Endpoint;
use crate::ui::common::{sentence, with_code};
use crate::ui::state::AppState;
use crate::web::fetch_backend::check_endpoint;

/// The check button and its report.
#[component]
pub fn EndpointCheck(
    /// The endpoint as set on the page.
    endpoint: RwSignal<Endpoint>,
) -> impl IntoView {
    let evaluation = expect_context::<AppState>().evaluation;
    let lines: RwSignal<Vec<CheckLine>> = RwSignal::new(Vec::new());
    let checking = RwSignal::new(false);
    let check = move |_| {
        lines.set(Vec::new());
        if let Some(problem) = endpoint.with_untracked(Endpoint::base_url_problem) {
            lines.set(vec![CheckLine::new(Probe::Models, false, problem)]);
            return;
        }
        checking.set(true);
        // The probes ask as the run will: its temperature and its repair turns' completion limit.
        let settings = evaluation.settings.get_untracked();
        let repair = settings.repair_max_tokens.unwrap_or_else(|| evaluation.max_tokens.get_untracked().saturating_mul(2));
        spawn_local(async move {
            let endpoint = endpoint.get_untracked();
            let (seen, planned) = check_endpoint(&endpoint, settings.temperature, repair).await;
            let mut report: Vec<CheckLine> = seen.iter().map(|(probe, seen)| explain_for(endpoint.profile(), *probe, seen)).collect();
            report.push(parameters_line(&planned));
            lines.set(report);
            checking.set(false);
        });
    };
    view! {
        <div class="eval-check">
            <button data-testid="check-endpoint" disabled=move || checking.get() on:click=check>
                {move || if checking.get() { "Checking…" } else { "Check endpoint" }}
            </button>
            <ul class="eval-check-lines">
                {move || lines.get().into_iter().map(|line| view! {
                    <li data-testid="check-result" data-ok=line.ok.to_string() class=if line.ok { "eval-check-ok" } else { "eval-check-fail" }>
                        <strong>{format!("{} {}: ", if line.ok { "✓" } else { "✗" }, line.probe.label())}</strong>{with_code(&line.message)}
                        {(!line.details.is_empty()).then(|| view! {
                            <ul class="eval-check-details">{line.details.iter().map(|d| view! { <li>{sentence(d)}</li> }).collect_view()}</ul>
                        })}
                    </li>
                }).collect_view()}
            </ul>
        </div>
    }
}
