//! The Results page's list of a results file: one `SampleRow` per sample with its verdict (the record's own,
//! or graded from its stored answers when it has none), status, target, turns and tokens, and, in a run of
//! several epochs, how often its instance came out right.

use super::*;

/// How a sample ended, as the list files it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Finished with the target answered correctly.
    Correct,
    /// Finished without a correct target answer.
    Wrong,
    /// Ended by an endpoint failure (`api_error`), or a record that could not be read.
    Error,
    /// Not finished (`in_progress`, or no status at all).
    Unfinished,
}

impl Verdict {
    /// Every verdict, in menu order.
    pub const ALL: [Verdict; 4] = [Verdict::Correct, Verdict::Wrong, Verdict::Error, Verdict::Unfinished];

    /// The verdict's name in menus and `data-status`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Wrong => "wrong",
            Verdict::Error => "error",
            Verdict::Unfinished => "unfinished",
        }
    }

    /// The verdict named `name`, if any.
    pub fn parse(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// True for samples that finished and failed (wrong or ended by an error).
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Wrong | Verdict::Error)
    }
}

/// Token counts of one sample, as far as its record tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokens {
    /// Prompt and completion tokens of every call (from the request log or the usage totals).
    Total(u64),
    /// Only the generated tokens (`token_length`, the reference's count).
    Generated(u64),
    /// Nothing recorded.
    Unknown,
}

impl Tokens {
    fn of(record: &ResultRecord) -> Tokens {
        if let Some(cost) = sample_cost(record).filter(|c| c.total_tokens > 0) {
            return Tokens::Total(cost.total_tokens);
        }
        match record.token_length {
            Some(n) if n >= 0.0 => Tokens::Generated(n as u64),
            _ => Tokens::Unknown,
        }
    }

    /// `12,345`, `3,210 generated`, or `–`.
    pub fn describe(self) -> String {
        match self {
            Tokens::Total(n) => grouped(n),
            Tokens::Generated(n) => format!("{} generated", grouped(n)),
            Tokens::Unknown => "–".into(),
        }
    }
}

/// One sample in the list.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleRow {
    /// Position in the file's `samples`.
    pub index: usize,
    pub verdict: Verdict,
    /// `agent_status` as written (empty when absent).
    pub status: String,
    /// The target task's name.
    pub target: String,
    pub topology: &'static str,
    /// `agent_turns`, when recorded.
    pub turns: Option<u64>,
    pub tokens: Tokens,
    /// In a run of several epochs: this attempt's epoch (0-based) and its instance's correct attempts out of
    /// its attempts, so a sample that is right only sometimes shows as such.
    pub consistency: Option<(usize, usize, usize)>,
}

/// The verdict of a results sample: the record's own `correct` once it has finished, graded from its stored
/// answers only when the record has no `correct`.
pub fn verdict_of(sample: &Json, index: usize) -> Verdict {
    verdict_in(&ResultRecord::parse(sample), index)
}

/// [`verdict_of`] a record already read.
pub fn verdict_in(record: &ResultRecord, index: usize) -> Verdict {
    if !record.is_finished() {
        return Verdict::Unfinished;
    }
    if record.status.as_ref().is_some_and(ResultStatus::is_api_error) {
        return Verdict::Error;
    }
    let correct = match record.correct {
        Some(correct) => correct,
        None => match grade_record(record, index, GradeOptions::default()) {
            Ok((grade, _)) => grade.correct,
            Err(_) => return Verdict::Error,
        },
    };
    if correct {
        Verdict::Correct
    } else {
        Verdict::Wrong
    }
}

/// The list of a results file: one row per entry of `samples` (none when there is no such list).
pub fn sample_rows(results: &Json) -> Vec<SampleRow> {
    let Some(samples) = results.get("samples").and_then(Json::as_array) else { return Vec::new() };
    let mut rows: Vec<SampleRow> = samples.iter().enumerate().map(|(index, sample)| sample_row(index, sample)).collect();
    add_consistency(&mut rows, samples);
    rows
}

/// The list's row of sample `index`, without its consistency (`add_consistency` adds it over the whole list).
pub fn sample_row(index: usize, sample: &Json) -> SampleRow {
    let record = ResultRecord::parse(sample);
    SampleRow {
        index,
        verdict: verdict_in(&record, index),
        status: record.status_name().to_string(),
        target: record.sample.task_name.clone().unwrap_or_default(),
        topology: record.sample.topology.as_str(),
        turns: record.agent_turns.filter(|t| *t >= 0.0).map(|t| t as u64),
        tokens: Tokens::of(&record),
        consistency: None,
    }
}

/// In a run of several epochs, each row's epoch and its instance's correct attempts out of its finished ones;
/// `rows` and `samples` are the whole list, in file order. Nothing changes in a run of one epoch.
pub fn add_consistency(rows: &mut [SampleRow], samples: &[Json]) {
    if !samples.iter().any(|s| epoch_of(s) > 0) {
        return;
    }
    let keys: Vec<String> = samples.iter().enumerate().map(|(i, s)| instance_key(s).unwrap_or_else(|| format!("#{i}"))).collect();
    let finished = rows.iter().zip(&keys).filter(|(row, _)| row.verdict != Verdict::Unfinished);
    let tally: HashMap<String, (usize, usize)> =
        tally_attempts(finished.map(|(row, key)| (key.clone(), row.verdict == Verdict::Correct))).into_iter().map(|c| (c.instance, (c.correct, c.attempts))).collect();
    for ((row, key), sample) in rows.iter_mut().zip(&keys).zip(samples) {
        let (correct, attempts) = tally.get(key).copied().unwrap_or_default();
        row.consistency = Some((epoch_of(sample), correct, attempts));
    }
}
