//! A run's results file while it is unfinished, and what the Results page says about one. Samples with a result
//! carry it; the others are the dataset's samples marked `in_progress`, so every reader (the Results page,
//! `arbigraph grade`, the CLI's resume) sees a stopped or running run as unfinished, never as a smaller finished one.


/// The file's samples: each finished sample's result, or its dataset sample marked `in_progress` (the engine
/// run's, `engine::run::run_samples`).
pub use crate::engine::run::run_samples;

/// Where the results shown came from, for the note above the figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// A run of this tab is still going.
    Running,
    /// A run of this tab was stopped, or a loaded file holds unfinished samples.
    Stopped,
}

/// The note shown above the figures of a run with `unfinished` of `total` samples without a result; `None` when
/// every sample has one.
pub fn unfinished_note(unfinished: usize, total: usize, state: RunState) -> Option<String> {
    if unfinished == 0 {
        return None;
    }
    let done = total.saturating_sub(unfinished);
    let why = match state {
        RunState::Running => "the run is still going on the Evaluate page",
        RunState::Stopped => "the run was stopped before it finished",
    };
    Some(format!("Unfinished run: {unfinished} of {total} samples have no result yet ({why}). The figures below cover the {done} finished samples only."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn samples_without_a_result_are_kept_and_marked_in_progress() {
        let dataset = vec![json!({"prompt": "a"}), json!({"prompt": "b"}), json!({"prompt": "c"})];
        let finished = vec![Some(json!({"prompt": "a", "agent_status": "success"})), None];
        let samples = run_samples(&dataset, &finished);
        assert_eq!(samples.len(), 3, "no sample dropped");
        assert_eq!(samples[0]["agent_status"], "success");
        assert_eq!((samples[1]["prompt"].clone(), samples[1]["agent_status"].clone()), (json!("b"), json!("in_progress")));
        assert_eq!(samples[2]["agent_status"], "in_progress");
        assert!(!crate::engine::results::is_finished(&samples[2]));
    }

    #[test]
    fn the_note_says_how_much_is_missing_and_why() {
        assert_eq!(unfinished_note(0, 5, RunState::Stopped), None);
        let note = unfinished_note(3, 5, RunState::Stopped).unwrap();
        assert!(note.contains("3 of 5") && note.contains("stopped") && note.contains("2 finished"), "{note}");
        assert!(unfinished_note(5, 5, RunState::Running).unwrap().contains("still going"));
    }
}
