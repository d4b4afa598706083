//! The task packs the user brought in this tab (`app::jobs::packs`): read in the worker, listed on Generate and
//! in the designer's palette, sent with every generation, and described in the registry the page validates
//! designs with (`with_registry`). Bringing a pack of a kind already loaded replaces it.

use std::cell::RefCell;

use leptos::prelude::*;

use crate::app::jobs::packs::{explicit_family, PackSource, PackSummary};
use crate::app::jobs::{FromWorker, JobRequest};
use crate::engine::tasks::pack::PackKind;
use crate::web::worker;

use super::DesignState;

thread_local! {
    /// The sources of the packs loaded, for requests made away from `PackState` (a link regenerated).
    static SOURCES: RefCell<Vec<PackSource>> = const { RefCell::new(Vec::new()) };
}

/// The sources of the packs loaded in this tab.
pub fn current_sources() -> Vec<PackSource> {
    SOURCES.with(|s| s.borrow().clone())
}

/// `family` with the families that have a pack loaded named by their source (`explicit_family`).
pub fn explicit_now(family: &str) -> String {
    let kinds: Vec<PackKind> = SOURCES.with(|s| s.borrow().iter().filter_map(|p| PackKind::parse(&p.kind)).collect());
    explicit_family(family, &kinds)
}

/// A pack read in this tab: what the user brought and what reading it found.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedPack {
    pub source: PackSource,
    pub summary: PackSummary,
}

/// The packs of this tab.
#[derive(Clone, Copy)]
pub struct PackState {
    /// The packs read, one per kind, in the order brought.
    pub loaded: RwSignal<Vec<LoadedPack>>,
    /// What is being read (`reading pool.txt…`), while it is.
    pub reading: RwSignal<Option<String>>,
    /// Why the last pack brought was refused.
    pub error: RwSignal<Option<String>>,
    design: DesignState,
}

impl PackState {
    pub(super) fn new(design: DesignState) -> PackState {
        PackState { loaded: RwSignal::new(Vec::new()), reading: RwSignal::new(None), error: RwSignal::new(None), design }
    }

    /// Reads the files the user brought (picked or dropped) as a pack, in the worker.
    pub fn bring(&self, files: Vec<(String, String)>) {
        self.error.set(None);
        let source = match PackSource::from_files(files) {
            Ok(source) => source,
            Err(e) => return self.error.set(Some(e)),
        };
        self.reading.set(Some(format!("reading {}…", source.origin)));
        let state = *self;
        let kept = source.clone();
        worker::start(JobRequest::ReadPack { source }, move |message| match message {
            FromWorker::PackRead { summary, .. } => {
                let pack = LoadedPack { source: kept.clone(), summary: *summary };
                state.loaded.update(|all| {
                    all.retain(|p| p.source.kind != pack.source.kind);
                    all.push(pack);
                });
                state.changed();
            }
            FromWorker::Failed { message, location, .. } => {
                state.reading.set(None);
                let at = location.unwrap_or_default();
                state.error.set(Some(if at.is_empty() || message.starts_with(&at) { message } else { format!("{at}: {message}") }));
            }
            FromWorker::Done { .. } | FromWorker::Cancelled { .. } => state.reading.set(None),
            _ => {}
        });
    }

    /// Forgets the pack of `kind` (`python.ref`): runs draw from our tasks again.
    pub fn remove(&self, kind: &str) {
        self.loaded.update(|all| all.retain(|p| p.source.kind != kind));
        self.changed();
    }

    /// The packs' sources, for a generation request.
    pub fn sources(&self) -> Vec<PackSource> {
        self.loaded.with_untracked(|all| all.iter().map(|p| p.source.clone()).collect())
    }

    /// The kinds loaded.
    pub fn kinds(&self) -> Vec<PackKind> {
        self.loaded.with_untracked(|all| all.iter().filter_map(|p| PackKind::parse(&p.source.kind)).collect())
    }

    /// `family` with the families that have a pack named by their source (`app::jobs::packs::explicit_family`).
    pub fn explicit(&self, family: &str) -> String {
        explicit_family(family, &self.kinds())
    }

    /// The page's registry describes the packs now loaded; the design is checked and drawn again with them.
    fn changed(&self) {
        let summaries: Vec<PackSummary> = self.loaded.with_untracked(|all| all.iter().map(|p| p.summary.clone()).collect());
        super::describe_packs(&summaries);
        SOURCES.with(|s| *s.borrow_mut() = self.sources());
        self.design.checked_rev.update(|r| *r += 1);
        self.design.graph_rev.update(|r| *r += 1);
    }
}
