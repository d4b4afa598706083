//! The Results page's reading of one results file, sample by sample: the list (`SampleRow` per sample, narrowed
//! by a `RowFilter` of verdict, failures and text), and one sample's transcript as it reads (`Transcript`): the
//! verdict, every message in order with the requests sent between them, what each request carried, the answers
//! each turn gave, the pictures of image tasks beside the message that sent them, and where the chain broke
//! (`Breaks`: the instance graph with each node's status). Files record different things (the reference's keep
//! turn outputs but no transcript, request log or node statuses); whatever a file lacks becomes a note, never a
//! failure. Model text is carried as plain strings for the page to show as text.
//!
//! `list` makes the rows, `search` narrows them, `view` makes one transcript and `breaks` the graph of where its
//! chain broke.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use crate::app::instance::drawing::DETAIL_NODES;
use crate::app::instance::{answer_in, pictures_in, PictureView};
use crate::engine::grade::collect::Answers;
use crate::engine::grade::{GradeOptions, SampleSpec};
use crate::engine::render::{self, shorten, LayoutOptions, RenderOptions};
use crate::engine::results::{any_text, epoch_of, grade_record, instance_key, sample_cost, tally_attempts, transcript_entries, RequestEntry, ResultRecord, ResultStatus, TranscriptEntry};

mod breaks;
mod list;
mod search;
mod view;

pub use breaks::{breaks_in, breaks_of, heat_map, BreakDrawing, Breaks, NodeLine};
pub use list::*;
pub use search::*;
pub use view::*;
/// Numbers with thousands separators, as the run's spend writes them.
pub use crate::engine::run::spend::grouped;


/// A short line for a long text (the list's tooltips and the header).
pub fn brief(text: &str, max: usize) -> String {
    shorten(&text.replace('\n', " "), max)
}

#[cfg(test)]
mod tests;
