//! The results files the site publishes (`arbigraph site --results`), listed from its index
//! (`[data-testid="site-results"]`, one `site-result` per file with `data-name`) with their model, strategy,
//! accuracy and size; each opens by its link `#/results?file=NAME`, which reproduces the view anywhere.

use leptos::prelude::*;

use crate::app::browse::link::encode;
use crate::engine::dataset::site::SiteResults;
use crate::ui::common::file_size;
use crate::ui::state::{AppState, SiteStatus};

/// One file's line: model, strategy, accuracy over its graded samples, samples and size.
fn describe(r: &SiteResults) -> String {
    let mut parts = Vec::new();
    if !r.model.is_empty() {
        parts.push(r.model.clone());
    }
    if !r.strategy.is_empty() {
        parts.push(r.strategy.clone());
    }
    if r.graded > 0 {
        parts.push(format!("{:.1}% correct ({} of {})", 100.0 * r.correct as f64 / r.graded as f64, r.correct, r.graded));
    }
    parts.push(format!("{} samples", r.samples));
    parts.push(file_size(r.bytes));
    parts.join(" · ")
}

/// The site's results files, when it publishes any; `shown` names the file on screen.
#[component]
pub fn SiteResultsList(shown: RwSignal<String>) -> impl IntoView {
    let site = expect_context::<AppState>().browse.site;
    let files = Memo::new(move |_| site.with(|s| if let SiteStatus::Found(index) = s { index.results.clone() } else { Vec::new() }));
    move || {
        let files = files.get();
        (!files.is_empty()).then(|| view! {
            <nav class="panel results-site" data-testid="site-results" aria-label="Results files on this site">
                <h2>"Results on this site"</h2>
                <ul>
                    {files.into_iter().map(|r| {
                        let name = r.name.clone();
                        let current = move || shown.get() == name;
                        view! {
                            <li data-testid="site-result" data-name=r.name.clone()>
                                <a href=format!("#/results?file={}", encode(&r.name)) aria-current=move || current().then_some("true")>{r.name.clone()}</a>
                                <span class="muted">{format!(" {}", describe(&r))}</span>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </nav>
        })
    }
}
