//! The strategy lab's state: the strategies chosen on Evaluate, where a running lab stands, and the results files
//! Results shows compared (a lab's when it ends or is opened from the run list, or files picked there), kept by
//! the app so leaving either page and coming back shows the same lab and the same comparison.

use leptos::prelude::*;
use serde_json::Value;

use crate::app::evaluate::lab::{Lab, LabProgress};

/// The lab and the comparison it opens.
#[derive(Clone, Copy)]
pub struct LabState {
    /// The strategies to run, the baseline first.
    pub lab: RwSignal<Lab>,
    /// Where a running lab stands; `None` when no lab runs.
    pub progress: RwSignal<Option<LabProgress>>,
    /// The results files Results compares (a name and the file each, the baseline first).
    pub comparison: RwSignal<Option<Vec<(String, Value)>>>,
    /// Set when a lab opens its comparison: Results brings the comparison into view once, then clears it.
    pub reveal: RwSignal<bool>,
}

impl LabState {
    pub(super) fn new() -> LabState {
        LabState { lab: RwSignal::new(Lab::default()), progress: RwSignal::new(None), comparison: RwSignal::new(None), reveal: RwSignal::new(false) }
    }

    /// Shows `files` compared on Results and goes there.
    pub fn open_comparison(&self, files: Vec<(String, Value)>) {
        self.comparison.set(Some(files));
        self.reveal.set(true);
        let _ = window().location().set_hash("/results");
    }
}
