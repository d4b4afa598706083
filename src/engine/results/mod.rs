//! The results file, owned in one place: each sample's record (`record`), the summary both
//! drivers write (`summary`), grading a whole file and comparing runs (`grading`), and the redaction of
//! URLs before anything is written (`redact`), runs split into shards and merged again (`shard`), Inspect AI logs read into results files (`inspect_log`), and runs of several epochs (`epochs`: each sample attempted k
//! times, mean accuracy, pass^k and per-instance consistency). The CLI's `eval` and `grade`, and the browser's Evaluate and
//! Results pages, all go through here, so their files and their figures agree.

mod epochs;
mod grading;
mod inspect_log;
mod record;
mod redact;
mod shard;
mod summary;

pub use epochs::{epoch_report, expand_epochs, tally_attempts, EpochReport, InstanceConsistency};
pub use grading::{
    compare_many, instance_key, compare_runs, context_curve, grade_record, grade_results_file, mean_context_curve, outcome_of, results_mode, results_samples, sample_cost, strategy_of, GradeOptions, GradedFile,
    GradedSample, PairedBy, ResultsError, Run, RunComparison,
};
pub use record::{any_text, counts_of, epoch_of, has_status, same_prompt, status_of, Counts, is_finished, requests_json, result_sample, strategy_spec, transcript_entries, transcript_json, with_epoch, RequestEntry, ResultRecord, ResultStatus, TranscriptEntry};
pub use inspect_log::{looks_like_inspect_log, read_inspect_log, InspectLogError, INSPECT_HEAD_BYTES, INSPECT_TASK};
pub use redact::redact_url;
pub use shard::{dataset_fingerprint, merge_parts, MergeError, Shard};
pub use summary::{aggregates, generation_params, RunHeader};
