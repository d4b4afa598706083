//! The app's state, in one place: the designer's graph, the generator's form and run, the instance browser's
//! datasets, the evaluation's endpoint settings, the strategy lab and the latest results, one file per area. `App` provides one
//! `AppState`; pages read and change it through the methods here, so navigating between routes keeps
//! everything (pages are rebuilt, their state is not). No business rules: graph edits go through `TaskGraph::apply`, generation through the engine.

mod browse;
mod design;
mod evaluation;
mod generation;
mod lab;
mod packs;

pub use browse::{BrowseState, DatasetInfo, SiteStatus, Source};
pub use design::{DesignState, OpenAs};
pub use evaluation::{EvaluationState, RunView};
pub use generation::{GenerationState, Progress};
pub use lab::LabState;
pub use packs::{current_sources, explicit_now, LoadedPack, PackState};

use leptos::prelude::*;

use std::cell::RefCell;

use crate::app::jobs::packs::{described_with, PackSummary};
use crate::engine::tasks::registry::{described, Registry};

thread_local! {
    static DESCRIBED: Registry = described();
    /// The registry the page checks and lists with, and how many times the packs behind it changed.
    static REGISTRY: RefCell<(u64, Registry)> = RefCell::new((0, DESCRIBED.with(Registry::clone)));
}

/// Runs `f` with the tasks' descriptions (built-in ones, and those of the packs loaded): validation and the
/// task lists read them; samples are made by the worker, which holds the generators. Not reactive: views that
/// list tasks track `PackState::loaded`.
pub fn with_registry<R>(f: impl FnOnce(&Registry) -> R) -> R {
    REGISTRY.with(|r| f(&r.borrow().1))
}

/// Counts the changes of `with_registry`'s tasks (caches of task names compare it).
pub fn registry_version() -> u64 {
    REGISTRY.with(|r| r.borrow().0)
}

/// The registry describes the built-in tasks and these packs' tasks.
fn describe_packs(packs: &[PackSummary]) {
    let registry = DESCRIBED.with(|d| described_with(d, packs));
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        r.0 += 1;
        r.1 = registry;
    });
}

/// Everything the pages share, provided once by `App`.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The designer.
    pub design: DesignState,
    /// Generate.
    pub generation: GenerationState,
    /// The instance browser.
    pub browse: BrowseState,
    /// Evaluate.
    pub evaluation: EvaluationState,
    /// The task packs brought in this tab.
    pub packs: PackState,
    /// The strategy lab of Evaluate and the comparison Results shows.
    pub lab: LabState,
    /// The latest results file made or loaded in this tab (reference layout), if any.
    pub results: RwSignal<Option<std::sync::Arc<crate::app::results::data::ResultsData>>>,
}

impl AppState {
    /// Shows what a `#/browse?…` address names (`BrowseState::restore`); a generated run the address carries the
    /// settings of, and which this tab does not have, is generated again.
    pub fn follow_browse_address(&self, hash: &str) {
        let (address, problems) = crate::app::browse::url::BrowseAddress::parse(crate::app::hash::hash_query(hash));
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        if let Some((form, graph)) = self.browse.restore(address, &problems) {
            if self.generation.progress.with_untracked(Option::is_none) {
                self.generation.form.set(form);
                self.generation.graph.set(graph);
                self.generation.run();
            }
        }
    }

    /// Fresh state.
    pub fn new() -> AppState {
        let browse = BrowseState::new();
        let results = RwSignal::new(None);
        let design = DesignState::new();
        let packs = PackState::new(design);
        AppState { design, generation: GenerationState::new(browse, packs), browse, evaluation: EvaluationState::new(results), lab: LabState::new(), packs, results }
    }
}

impl Default for AppState {
    fn default() -> AppState {
        AppState::new()
    }
}
