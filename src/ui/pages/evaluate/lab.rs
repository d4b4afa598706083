//! The strategy lab panel (`[data-testid="lab"]`): *Add to lab* (`lab-add`) puts the strategy chosen in the
//! picker, with its parameters, at the end of the lab's list (`lab-item` each, with `lab-remove`); *Run lab*
//! (`lab-run`) runs them all, one after another, on the same samples against the endpoint above, and Results
//! then opens their comparison; `lab-status` says where a running lab stands, `lab-error` why something was
//! refused. The rules are `app::evaluate::lab`'s, the state `ui::state::LabState`'s; the page runs the lab.

use leptos::prelude::*;

use crate::app::evaluate::lab::label;
use crate::ui::state::AppState;

/// The panel. `on_run` starts the lab; `busy` is true while a run or a lab goes or samples are gathered.
#[component]
pub fn LabPanel(on_run: Callback<()>, busy: Signal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let (lab, strategy) = (state.lab.lab, state.evaluation.strategy);
    let problem: RwSignal<Option<String>> = RwSignal::new(None);
    let add = move |_| {
        let chosen = strategy.get_untracked();
        let mut next = lab.get_untracked();
        match next.add(chosen) {
            Ok(()) => {
                problem.set(None);
                lab.set(next);
            }
            Err(e) => problem.set(Some(e)),
        }
    };
    let run = move |_| match lab.with_untracked(|l| l.ready().map(|_| ())) {
        Ok(()) => {
            problem.set(None);
            on_run.run(());
        }
        Err(e) => problem.set(Some(e)),
    };
    view! {
        <div class="eval-lab" data-testid="lab">
            <span class="eval-lab-title">"Strategy lab "</span>
            <button data-testid="lab-add" disabled=move || busy.get() on:click=add
                title="add the strategy chosen above, with its parameters, to the strategies the lab compares">"Add to lab"</button>
            <ol class="eval-lab-items" aria-label="Strategies the lab runs, the baseline first">
                {move || lab.get().strategies().iter().enumerate().map(|(at, s)| {
                    let (text, full) = (label(s), s.to_string());
                    view! {
                        <li data-testid="lab-item" data-strategy=text.clone() title=full>
                            {text.clone()}{(at == 0).then_some(" (baseline)")}
                            <button class="eval-lab-remove" data-testid="lab-remove" aria-label=format!("remove {text} from the lab") disabled=move || busy.get()
                                on:click=move |_| lab.update(|l| l.remove(at))>"×"</button>
                        </li>
                    }
                }).collect_view()}
            </ol>
            <button data-testid="lab-run" disabled=move || busy.get() || lab.with(|l| l.strategies().len() < 2) on:click=run
                title="run every strategy of the lab on the same samples, then compare them on Results">"Run lab"</button>
            <span class="muted" data-testid="lab-status" role="status">{move || match state.lab.progress.get() {
                Some(progress) => progress.line(),
                None if lab.with(|l| l.strategies().is_empty()) => "add two or more strategies to run them on the same samples and compare them, paired against the first".to_string(),
                None => String::new(),
            }}</span>
            {move || problem.get().map(|p| view! { <span class="eval-param-error" role="alert" data-testid="lab-error">{p}</span> })}
        </div>
    }
}
