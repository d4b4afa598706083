//! A job's progress: `progress[data-testid="progress"]` (value and max are samples done and asked for) and a
//! line with the rate and the time left.

use leptos::prelude::*;

use crate::ui::state::Progress;

/// Progress of a run; nothing when idle.
#[component]
pub fn RunProgress(
    /// The progress, `None` when nothing runs.
    #[prop(into)]
    progress: Signal<Option<Progress>>,
    /// What the units are (`samples`).
    unit: &'static str,
    /// Marks the bar for automation (`progress`), or leaves it unmarked.
    #[prop(optional)]
    testid: Option<&'static str>,
) -> impl IntoView {
    move || {
        progress.get().map(|p| {
            let now = js_sys::Date::now();
            let rate = p.rate(now);
            let left = match p.seconds_left(now) {
                Some(s) if p.total > p.done => format!(" · about {} left", seconds(s)),
                _ => String::new(),
            };
            let total = if p.total == 0 { "…".to_string() } else { p.total.to_string() };
            view! {
                <div class="run-progress" role="status">
                    <progress data-testid=testid value=p.done max=p.total.max(1)></progress>
                    <span class="run-progress-text">{format!("{} / {total} {unit} · {:.0} per second{left}", p.done, rate)}</span>
                </div>
            }
        })
    }
}

/// `42 s`, `3 min 20 s`.
fn seconds(s: f64) -> String {
    let s = s.ceil() as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {} s", s / 60, s % 60)
    }
}
