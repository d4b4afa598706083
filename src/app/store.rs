//! The samples the browser holds, kept where the long work runs (the Web Worker, or the page itself when there
//! is none): datasets by key, each a list of slots that generation, an opened file or a fetched shard fills.
//! The page keeps only the list's rows; queries (with the text search over prompts) and instance details are
//! answered from here.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::app::browse::catalog::{select, Query, Row};
use crate::app::instance::drawing::draw;
use crate::app::instance::{answer_of, pictures_of, seed_of, stage_truths, Detail};
use crate::app::instance::roles::recognise;

/// One stored sample (serde: a helper worker hands the samples it made to the worker that holds the store).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stored {
    pub row: Row,
    pub prompt: String,
    /// The record as compact JSON, without its prompt (kept once, above).
    pub record: String,
    /// The generator's exact roles, run-length encoded; `None` for files (they are recognised when shown).
    pub roles: Option<Vec<(String, u32)>>,
}

impl Stored {
    /// Stores `record` (which must hold its prompt) as row `row`. A JSONL line with pictures has content parts
    /// as its prompt: the first text part is the prompt, and the parts stay in the record as `prompt_parts`
    /// (the pictures are there).
    pub fn new(row: Row, mut record: Json, roles: Option<Vec<(String, u32)>>) -> Stored {
        // `shift_remove` keeps the other members in the record's order.
        let prompt = match record.as_object_mut().and_then(|o| o.shift_remove("prompt")) {
            Some(Json::String(p)) => p,
            Some(Json::Array(parts)) => {
                let text = parts.iter().find_map(|p| p.get("text").and_then(Json::as_str)).unwrap_or("").to_string();
                if let Some(obj) = record.as_object_mut() {
                    obj.insert("prompt_parts".into(), Json::Array(parts));
                }
                text
            }
            _ => String::new(),
        };
        Stored { row, prompt, record: record.to_string(), roles }
    }

    /// The record with its prompt back in place.
    pub fn record(&self) -> Json {
        let mut record: Json = serde_json::from_str(&self.record).unwrap_or(Json::Null);
        if let Some(obj) = record.as_object_mut() {
            obj.insert("prompt".into(), Json::String(self.prompt.clone()));
        }
        record
    }
}

/// A dataset: its summary and its slots (a slot is empty until its shard arrives).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    pub summary: Option<Json>,
    pub samples: Vec<Option<Stored>>,
}

impl Dataset {
    /// Samples present.
    pub fn loaded(&self) -> usize {
        self.samples.iter().filter(|s| s.is_some()).count()
    }
}

/// Why the store cannot answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StoreError {
    #[error("no dataset `{0}` is open")]
    NoDataset(String),
    #[error("dataset `{dataset}` has no sample {index} (it has {count})")]
    OutOfRange { dataset: String, index: usize, count: usize },
    #[error("sample {index} of `{dataset}` is not loaded yet")]
    NotLoaded { dataset: String, index: usize },
}

/// Every dataset, by key.
#[derive(Debug, Default)]
pub struct Store {
    datasets: BTreeMap<String, Dataset>,
}

impl Store {
    /// Starts (or restarts) dataset `key` with `count` empty slots.
    pub fn create(&mut self, key: &str, summary: Option<Json>, count: usize) {
        self.datasets.insert(key.to_string(), Dataset { summary, samples: vec![None; count] });
    }

    /// Makes sure dataset `key` exists with at least `count` slots, keeping what it holds.
    pub fn ensure(&mut self, key: &str, summary: Option<Json>, count: usize) {
        let dataset = self.datasets.entry(key.to_string()).or_default();
        if dataset.summary.is_none() {
            dataset.summary = summary;
        }
        if dataset.samples.len() < count {
            dataset.samples.resize(count, None);
        }
    }

    /// Puts a sample in its slot (growing the dataset when needed).
    pub fn put(&mut self, key: &str, stored: Stored) {
        let dataset = self.datasets.entry(key.to_string()).or_default();
        let index = stored.row.index;
        if dataset.samples.len() <= index {
            dataset.samples.resize(index + 1, None);
        }
        dataset.samples[index] = Some(stored);
    }

    /// Drops a dataset.
    pub fn remove(&mut self, key: &str) {
        self.datasets.remove(key);
    }

    /// A dataset.
    pub fn get(&self, key: &str) -> Option<&Dataset> {
        self.datasets.get(key)
    }

    /// The positions of dataset `key` that `query` keeps, among the samples present.
    pub fn select(&self, key: &str, query: &Query) -> Result<Vec<usize>, StoreError> {
        let dataset = self.datasets.get(key).ok_or_else(|| StoreError::NoDataset(key.to_string()))?;
        Ok(select(dataset.samples.iter().flatten().map(|s| (&s.row, s.prompt.as_str())), query))
    }

    /// Dataset `key` as a dataset file's JSON (`summary` and `samples`): every sample, or those at `positions`
    /// in that order. Every sample asked for must be here.
    pub fn export(&self, key: &str, positions: Option<&[usize]>) -> Result<Json, StoreError> {
        let dataset = self.datasets.get(key).ok_or_else(|| StoreError::NoDataset(key.to_string()))?;
        let all: Vec<usize> = match positions {
            Some(p) => p.to_vec(),
            None => (0..dataset.samples.len()).collect(),
        };
        let mut samples = Vec::with_capacity(all.len());
        for index in all {
            let slot = dataset.samples.get(index).ok_or(StoreError::OutOfRange { dataset: key.to_string(), index, count: dataset.samples.len() })?;
            samples.push(slot.as_ref().ok_or(StoreError::NotLoaded { dataset: key.to_string(), index })?.record());
        }
        Ok(serde_json::json!({ "summary": dataset.summary.clone().unwrap_or_else(|| serde_json::json!({})), "samples": samples }))
    }

    /// The instance view of sample `index` of dataset `key`.
    pub fn detail(&self, key: &str, index: usize) -> Result<Detail, StoreError> {
        let dataset = self.datasets.get(key).ok_or_else(|| StoreError::NoDataset(key.to_string()))?;
        let slot = dataset.samples.get(index).ok_or(StoreError::OutOfRange { dataset: key.to_string(), index, count: dataset.samples.len() })?;
        let stored = slot.as_ref().ok_or(StoreError::NotLoaded { dataset: key.to_string(), index })?;
        let record = stored.record();
        let (answer_name, answer) = answer_of(&record);
        let (roles, roles_exact) = match &stored.roles {
            Some(roles) => (roles.clone(), true),
            None => (recognise(&stored.prompt), false),
        };
        Ok(Detail {
            dataset: key.to_string(),
            row: stored.row.clone(),
            prompt: stored.prompt.clone(),
            roles,
            roles_exact,
            stages: stage_truths(&record),
            answer_name,
            answer,
            seed: seed_of(&record, dataset.summary.as_ref()),
            drawing: draw(&record),
            outline: crate::app::instance::drawing::outline_of(&record),
            pictures: pictures_of(&record),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::browse::catalog::SortKey;
    use crate::app::instance::row_of;
    use serde_json::json;

    fn stored(index: usize, task: &str, prompt: &str) -> Stored {
        let record = json!({"task_name": task, "prompt": prompt, "ground_truth": index});
        Stored::new(row_of(index, &record, "math", None), record, None)
    }

    #[test]
    fn a_jsonl_line_with_pictures_keeps_its_text_as_the_prompt_and_its_parts() {
        let line = json!({"prompt": [{"type": "text", "text": "Task 1: follow the path"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}],
            "metadata": {"images": [{"image_index": 1, "task_number": 1}]}});
        let s = Stored::new(row_of(0, &line, "", None), line, None);
        assert_eq!(s.prompt, "Task 1: follow the path");
        assert_eq!(crate::app::instance::pictures_of(&s.record())[0].source, crate::app::instance::PictureSource::Inline("data:image/png;base64,AA".into()));
    }

    #[test]
    fn records_keep_their_prompt_once_and_give_it_back() {
        let s = stored(0, "A", "Task 1:\nCall it task_1_out.");
        assert!(!s.record.contains("Task 1"));
        assert_eq!(s.record()["prompt"], "Task 1:\nCall it task_1_out.");
        assert_eq!(s.record()["task_name"], "A");
    }

    #[test]
    fn queries_see_only_loaded_samples_and_details_say_what_is_missing() {
        let mut store = Store::default();
        store.create("d", Some(json!({"seed": 3})), 4);
        store.put("d", stored(0, "B", "alpha"));
        store.put("d", stored(2, "A", "beta ALPHA"));
        assert_eq!(store.select("d", &Query::default()), Ok(vec![0, 2]));
        assert_eq!(store.select("d", &Query { text: "alpha".into(), sort: SortKey::Target, ..Query::default() }), Ok(vec![2, 0]));
        assert_eq!(store.select("x", &Query::default()), Err(StoreError::NoDataset("x".into())));
        let detail = store.detail("d", 2).unwrap();
        assert_eq!((detail.prompt.as_str(), detail.seed, detail.answer.as_str(), detail.roles_exact), ("beta ALPHA", Some(3), "2", false));
        assert_eq!(detail.roles.iter().map(|(_, n)| *n as usize).sum::<usize>(), 10);
        assert_eq!(store.detail("d", 1), Err(StoreError::NotLoaded { dataset: "d".into(), index: 1 }));
        assert_eq!(store.detail("d", 9).unwrap_err().to_string(), "dataset `d` has no sample 9 (it has 4)");
        store.put("d", stored(6, "C", "gamma"));
        assert_eq!(store.get("d").map(|d| (d.samples.len(), d.loaded())), Some((7, 3)));
        store.ensure("d", None, 5);
        assert_eq!(store.get("d").map(Dataset::loaded), Some(3), "ensure keeps what is there");
        store.remove("d");
        assert!(store.get("d").is_none());
    }
}
