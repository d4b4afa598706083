//! Reading a dataset file's text, whatever its layout: the reference's JSON (`summary` + `samples`, results
//! files included) or JSONL (our export's lines, or a site's shard lines). Every problem is located: the file,
//! line and column of malformed JSON, the JSON path of a schema problem. Used by `arbigraph site` and by the
//! browser's worker when a file is opened.

use serde_json::Value as Json;
use super::record::prompt_problem;

/// The samples of a file, each a JSON object with a string `prompt`, and its summary when it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetText {
    pub summary: Option<Json>,
    pub samples: Vec<Json>,
}

/// Why a file cannot be read as a dataset.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReadError {
    #[error("{at}: malformed JSON: {message}")]
    Malformed { at: String, message: String },
    #[error("{file}: not a dataset: {}", problems.join("; "))]
    Schema { file: String, problems: Vec<String> },
}

impl ReadError {
    /// Where the first problem is (`file:line:column` or `file: samples[3].prompt`).
    pub fn location(&self) -> String {
        match self {
            ReadError::Malformed { at, .. } => at.clone(),
            ReadError::Schema { file, problems } => match problems.first() {
                Some(first) => format!("{file}: {}", first.split(':').next().unwrap_or(first)),
                None => file.clone(),
            },
        }
    }
}

/// Problems listed at most, with a count of the rest.
const SHOWN_PROBLEMS: usize = 5;

/// Reads `text` (named `name` in messages). `.jsonl` names, and texts whose second line starts a new JSON
/// value, are read as one sample per line.
pub fn read_dataset(name: &str, text: &str) -> Result<DatasetText, ReadError> {
    if name.ends_with(".jsonl") {
        return read_lines(name, text);
    }
    match serde_json::from_str::<Json>(text) {
        Ok(json) => read_object(name, json),
        Err(e) if e.line() > 1 && e.to_string().contains("trailing characters") => read_lines(name, text),
        Err(e) => Err(ReadError::Malformed { at: format!("{name}:{}:{}", e.line(), e.column()), message: strip_position(&e) }),
    }
}

/// serde_json's message without its own "at line L column C" suffix (the location is given apart).
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

fn read_object(name: &str, json: Json) -> Result<DatasetText, ReadError> {
    let schema = |problems: Vec<String>| ReadError::Schema { file: name.to_string(), problems };
    let Json::Object(mut object) = json else {
        return Err(schema(vec!["the file is not a JSON object with `samples`".into()]));
    };
    let summary = object.remove("summary");
    let samples = match object.remove("samples") {
        Some(Json::Array(samples)) => samples,
        Some(_) => return Err(schema(vec!["samples: not a list".into()])),
        None => return Err(schema(vec!["samples: missing (a dataset file has `summary` and `samples`)".into()])),
    };
    let mut problems = Vec::new();
    for (i, sample) in samples.iter().enumerate() {
        if let Some(problem) = prompt_problem(sample) {
            problems.push(format!("samples[{i}]{problem}"));
        }
    }
    finish(name, summary, samples, problems)
}

fn read_lines(name: &str, text: &str) -> Result<DatasetText, ReadError> {
    let mut samples = Vec::new();
    let mut problems = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Json>(line) {
            Ok(sample) => {
                if let Some(problem) = prompt_problem(&sample) {
                    problems.push(format!("line {}{problem}", number + 1));
                }
                samples.push(sample);
            }
            Err(e) => return Err(ReadError::Malformed { at: format!("{name}:{}:{}", number + 1, e.column()), message: strip_position(&e) }),
        }
    }
    finish(name, None, samples, problems)
}

fn finish(name: &str, summary: Option<Json>, samples: Vec<Json>, mut problems: Vec<String>) -> Result<DatasetText, ReadError> {
    if samples.is_empty() && problems.is_empty() {
        problems.push("samples: empty (the file holds no sample)".into());
    }
    if problems.is_empty() {
        return Ok(DatasetText { summary, samples });
    }
    let more = problems.len().saturating_sub(SHOWN_PROBLEMS);
    problems.truncate(SHOWN_PROBLEMS);
    if more > 0 {
        problems.push(format!("and {more} more"));
    }
    Err(ReadError::Schema { file: name.to_string(), problems })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_files_and_jsonl_read_into_samples() {
        let json = r#"{"summary": {"mode": "math"}, "samples": [{"prompt": "a", "ground_truth": 1}, {"prompt": "b", "ground_truth": 2}]}"#;
        let read = read_dataset("x.json", json).unwrap();
        assert_eq!(read.samples.len(), 2);
        assert_eq!(read.summary.unwrap()["mode"], "math");
        let lines = "{\"id\": \"a\", \"prompt\": \"p\"}\n\n{\"id\": \"b\", \"prompt\": \"q\"}\n";
        assert_eq!(read_dataset("x.jsonl", lines).unwrap().samples.len(), 2);
        assert_eq!(read_dataset("shard-without-extension", lines).unwrap().samples[1]["id"], "b");
    }

    #[test]
    fn malformed_json_is_located_by_line_and_column() {
        let err = read_dataset("bad.json", "{\n  \"samples\": [,]\n}").unwrap_err();
        assert_eq!(err.location(), "bad.json:2:15");
        assert!(err.to_string().starts_with("bad.json:2:15: malformed JSON: "), "{err}");
        assert!(!err.to_string().contains(" at line "), "{err}");
        let err = read_dataset("bad.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": }\n").unwrap_err();
        assert_eq!(err.location(), "bad.jsonl:2:12");
        assert!(matches!(read_dataset("words.txt", "hello"), Err(ReadError::Malformed { .. })));
    }

    #[test]
    fn schema_problems_name_the_path_and_are_capped() {
        let err = read_dataset("g.json", r#"{"directed": true, "nodes": []}"#).unwrap_err();
        assert_eq!(err.to_string(), "g.json: not a dataset: samples: missing (a dataset file has `summary` and `samples`)");
        let many: Vec<String> = (0..8).map(|i| format!("{{\"no_prompt\": {i}}}")).collect();
        let err = read_dataset("m.json", &format!("{{\"samples\": [{}, 3]}}", many.join(", "))).unwrap_err();
        let ReadError::Schema { problems, .. } = &err else { panic!("{err}") };
        assert_eq!(problems[0], "samples[0].prompt: missing");
        assert_eq!(problems.last().map(String::as_str), Some("and 4 more"));
        assert_eq!(err.location(), "m.json: samples[0].prompt");
        assert!(read_dataset("e.json", r#"{"samples": []}"#).unwrap_err().to_string().contains("empty"));
        assert!(read_dataset("n.json", "[1, 2]").unwrap_err().to_string().contains("not a JSON object"));
    }
}
