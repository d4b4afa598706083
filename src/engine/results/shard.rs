//! Runs split by sample and merged again. `--shard I/N` keeps the dataset samples whose index k satisfies
//! k mod N = I (round-robin, so every shard gets samples from every part of the dataset and the shards' sizes
//! differ by at most one); the results file of a shard says which shard it is, which dataset sample each of its
//! samples is, and a fingerprint of the whole dataset, in `summary.shard`. [`merge_parts`] puts the parts back
//! into the file one unsharded run would have written, sample for sample, and refuses parts that overlap, leave
//! samples out, or were made on another dataset or with other settings, naming the samples and the files.

use super::record::{epoch_of, is_finished};
use super::summary::aggregates;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use crate::engine::sort;

/// One shard of a run: `index` of `count` (0-based, `index < count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Reads `I/N` (0 ≤ I < N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (i, n) = text.trim().split_once('/').ok_or_else(|| format!("`{text}`: expected I/N, e.g. 0/4 (shard I of N, counted from 0)"))?;
        let index: usize = i.trim().parse().map_err(|_| format!("`{text}`: the shard index `{i}` is not a whole number"))?;
        let count: usize = n.trim().parse().map_err(|_| format!("`{text}`: the shard count `{n}` is not a whole number"))?;
        if count == 0 {
            return Err(format!("`{text}`: the shard count must be at least 1"));
        }
        if index >= count {
            return Err(format!("`{text}`: the shard index must be below the count (shards are 0 to {})", count - 1));
        }
        Ok(Shard { index, count })
    }

    /// The dataset indices this shard holds among `total` samples: every k with k mod count = index.
    pub fn select(&self, total: usize) -> Vec<usize> {
        (self.index..total).step_by(self.count).collect()
    }

    /// `summary.shard` of a shard's results file: the shard, the split rule, the dataset's size and
    /// fingerprint, and the dataset index of each stored sample (`origins`, in file order, one per attempt).
    pub fn summary(&self, total: usize, fingerprint: &str, origins: &[usize]) -> Value {
        json!({
            "index": self.index,
            "count": self.count,
            "split": "k mod N",
            "dataset_samples": total,
            "dataset_fingerprint": fingerprint,
            "sample_indices": origins,
        })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A fingerprint of a dataset's samples (FNV-1a, 64 bits, over each sample's JSON text): parts of one run
/// carry the same one, parts of runs on different datasets (or different `--limit`) do not.
pub fn dataset_fingerprint(samples: &[Value]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for sample in samples {
        for byte in sample.to_string().bytes().chain([b'\n']) {
            hash ^= byte as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("fnv1a64:{hash:016x}")
}

/// Why parts cannot be merged. Each names the files (and samples) concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// No parts were given.
    Empty,
    /// A part is not a shard's results file.
    NotAShard { file: String, reason: String },
    /// Two parts disagree on something that must be the same for one run.
    Different { first: String, file: String, what: String, was: String, is: String },
    /// Samples held by more than one part: (sample label, files holding it).
    Overlap(Vec<(String, Vec<String>)>),
    /// Samples no part holds, with the shards they belong to.
    Missing { samples: Vec<String>, shards: Vec<usize>, count: usize },
}

/// At most 20 labels, then how many in all.
fn some(labels: &[String]) -> String {
    let shown: Vec<&str> = labels.iter().take(20).map(String::as_str).collect();
    if labels.len() > shown.len() {
        format!("{} … ({} in all)", shown.join(", "), labels.len())
    } else {
        shown.join(", ")
    }
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Empty => write!(f, "no parts to merge"),
            MergeError::NotAShard { file, reason } => write!(f, "{file}: not a shard's results file: {reason}"),
            MergeError::Different { first, file, what, was, is } => write!(f, "{file}: {what} is {is}, but in {first} it is {was}: the parts are not of one run"),
            MergeError::Overlap(list) => {
                let labels: Vec<String> = list.iter().map(|(label, _)| label.clone()).collect();
                let (first, files) = list.first().map(|(l, files)| (l.as_str(), files.join(" and "))).unwrap_or_default();
                write!(f, "samples held by more than one part: {} (sample {first} is in {files})", some(&labels))
            }
            MergeError::Missing { samples, shards, count } => {
                let shards: Vec<String> = shards.iter().map(|s| format!("{s}/{count}")).collect();
                write!(f, "samples no part holds: {} (shard {} missing)", some(samples), shards.join(", "))
            }
        }
    }
}

/// A sample's label in errors: its dataset index, with its attempt after the first epoch.
fn label(index: usize, epoch: usize) -> String {
    if epoch == 0 {
        index.to_string()
    } else {
        format!("{index} (epoch {epoch})")
    }
}

/// The part's shard summary, read and checked.
struct PartShard {
    count: usize,
    total: usize,
    fingerprint: String,
    origins: Vec<usize>,
}

fn part_shard(file: &str, part: &Value) -> Result<PartShard, MergeError> {
    let bad = |reason: &str| MergeError::NotAShard { file: file.to_string(), reason: reason.to_string() };
    let summary = part.get("summary").ok_or_else(|| bad("no `summary`"))?;
    let shard = summary.get("shard").and_then(Value::as_object).ok_or_else(|| bad("its summary has no `shard` (was it run with --shard I/N?)"))?;
    let number = |key: &str| shard.get(key).and_then(Value::as_u64).map(|n| n as usize).ok_or_else(|| bad(&format!("`summary.shard.{key}` is not a number")));
    let (count, total) = (number("count")?, number("dataset_samples")?);
    let fingerprint = shard.get("dataset_fingerprint").and_then(Value::as_str).ok_or_else(|| bad("no `summary.shard.dataset_fingerprint`"))?.to_string();
    let origins: Vec<usize> = shard
        .get("sample_indices")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `summary.shard.sample_indices` list"))?
        .iter()
        .map(|v| v.as_u64().map(|n| n as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("`summary.shard.sample_indices` holds something other than indices"))?;
    if let Some(beyond) = origins.iter().find(|&&i| i >= total) {
        return Err(bad(&format!("sample index {beyond} is beyond the dataset's {total} samples")));
    }
    Ok(PartShard { count, total, fingerprint, origins })
}

/// What must agree between the parts of one run: the run's settings without the endpoints' addresses (each
/// worker may talk to its own replicas), and the system prompt.
fn settings_of(part: &Value) -> Vec<(&'static str, Value)> {
    let summary = part.get("summary");
    let mut params = summary.and_then(|s| s.get("generation_params")).cloned().unwrap_or(Value::Null);
    if let Some(map) = params.as_object_mut() {
        map.remove("base_url");
        map.remove("base_urls");
    }
    let prompt = summary.and_then(|s| s.get("system_prompt")).cloned().unwrap_or(Value::Null);
    vec![("the run's settings (`generation_params`)", params), ("the system prompt", prompt)]
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 160 {
        format!("{}…", text.chars().take(160).collect::<String>())
    } else {
        text
    }
}

/// Merges the results files of a run's shards, each `(file name, contents)`, into the results file an unsharded
/// run writes: every dataset sample (every attempt, with several epochs) exactly once, in dataset order (epoch
/// by epoch), the summary's aggregates over all of them. Refuses, writing nothing, parts of another dataset or
/// with other settings, samples held twice and samples held by no part.
pub fn merge_parts(parts: &[(String, Value)]) -> Result<Value, MergeError> {
    let (first_name, first) = parts.first().ok_or(MergeError::Empty)?;
    let first_shard = part_shard(first_name, first)?;
    let first_settings = settings_of(first);
    // (epoch, dataset index) → the sample and the files holding it.
    let mut held: BTreeMap<(usize, usize), (Value, Vec<String>)> = BTreeMap::new();
    let mut epochs = 0;
    let mut start_times: Vec<Value> = Vec::new();
    let mut base_urls: Vec<Value> = Vec::new();
    for (name, part) in parts {
        let shard = part_shard(name, part)?;
        let differ = |what: &str, was: String, is: String| MergeError::Different { first: first_name.clone(), file: name.clone(), what: what.to_string(), was, is };
        if shard.fingerprint != first_shard.fingerprint || shard.total != first_shard.total {
            let (was, is) = (format!("{} ({} samples)", first_shard.fingerprint, first_shard.total), format!("{} ({} samples)", shard.fingerprint, shard.total));
            return Err(differ("the dataset", was, is));
        }
        if shard.count != first_shard.count {
            return Err(differ("the shard count", first_shard.count.to_string(), shard.count.to_string()));
        }
        for ((what, was), (_, is)) in first_settings.iter().zip(settings_of(part)) {
            if *was != is {
                return Err(differ(what, short(was), short(&is)));
            }
        }
        let samples = part.get("samples").and_then(Value::as_array).ok_or_else(|| MergeError::NotAShard { file: name.clone(), reason: "no `samples` list".into() })?;
        if samples.len() != shard.origins.len() {
            let reason = format!("{} samples but {} entries in `summary.shard.sample_indices`", samples.len(), shard.origins.len());
            return Err(MergeError::NotAShard { file: name.clone(), reason });
        }
        for (sample, &origin) in samples.iter().zip(&shard.origins) {
            let epoch = epoch_of(sample);
            epochs = epochs.max(epoch + 1);
            let entry = held.entry((epoch, origin)).or_insert_with(|| (sample.clone(), Vec::new()));
            entry.1.push(name.clone());
        }
        let summary = part.get("summary");
        start_times.extend(summary.and_then(|s| s.get("start_times")).and_then(Value::as_array).into_iter().flatten().cloned());
        let params = summary.and_then(|s| s.get("generation_params"));
        let urls = params.and_then(|p| p.get("base_urls")).and_then(Value::as_array).cloned();
        base_urls.extend(urls.unwrap_or_else(|| params.and_then(|p| p.get("base_url")).cloned().into_iter().collect()));
    }
    let overlap: Vec<(String, Vec<String>)> = held.iter().filter(|(_, (_, files))| files.len() > 1).map(|(&(e, i), (_, files))| (label(i, e), files.clone())).collect();
    if !overlap.is_empty() {
        return Err(MergeError::Overlap(overlap));
    }
    let mut missing = Vec::new();
    let mut missing_shards = Vec::new();
    for epoch in 0..epochs.max(1) {
        for index in 0..first_shard.total {
            if !held.contains_key(&(epoch, index)) {
                missing.push(label(index, epoch));
                missing_shards.push(index % first_shard.count);
            }
        }
    }
    if !missing.is_empty() {
        sort::natural(&mut missing_shards);
        missing_shards.dedup();
        return Err(MergeError::Missing { samples: missing, shards: missing_shards, count: first_shard.count });
    }
    let samples: Vec<Value> = held.into_values().map(|(sample, _)| sample).collect();
    Ok(json!({"summary": merged_summary(first, &samples, start_times, base_urls, parts.len()), "samples": samples}))
}

/// The first part's summary without its shard, with every part's start times and endpoints, and the aggregates
/// over all samples.
fn merged_summary(first: &Value, samples: &[Value], mut start_times: Vec<Value>, mut base_urls: Vec<Value>, parts: usize) -> Value {
    let mut summary: Map<String, Value> = first.get("summary").and_then(Value::as_object).cloned().unwrap_or_default();
    summary.remove("shard");
    sort::by_key(&mut start_times, |t| t.as_str().unwrap_or("").to_string());
    start_times.dedup();
    summary.insert("start_times".into(), Value::Array(start_times));
    let mut seen = Vec::new();
    base_urls.retain(|url| if seen.contains(url) { false } else { seen.push(url.clone()); true });
    if let Some(params) = summary.get_mut("generation_params").and_then(Value::as_object_mut) {
        if base_urls.len() > 1 {
            params.insert("base_urls".into(), Value::Array(base_urls));
        }
    }
    let finished: Vec<Value> = samples.iter().filter(|s| is_finished(s)).cloned().collect();
    summary.extend(aggregates(&finished));
    summary.insert("num_finished".into(), json!(finished.len()));
    summary.insert("merged_parts".into(), json!(parts));
    Value::Object(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_read_from_i_slash_n_and_refused_with_the_reason() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        assert!(Shard::parse("4/4").unwrap_err().contains("shards are 0 to 3"));
        assert!(Shard::parse("1/0").unwrap_err().contains("at least 1"));
        assert!(Shard::parse("x/2").unwrap_err().contains("`x` is not a whole number"));
        assert!(Shard::parse("3").unwrap_err().contains("expected I/N"));
    }

    #[test]
    fn the_shards_of_a_run_cover_every_sample_exactly_once() {
        let total = 11;
        let mut seen: Vec<usize> = (0..4).flat_map(|i| Shard { index: i, count: 4 }.select(total)).collect();
        assert_eq!(Shard { index: 1, count: 4 }.select(total), vec![1, 5, 9]);
        sort::natural(&mut seen);
        assert_eq!(seen, (0..total).collect::<Vec<_>>());
        assert!(Shard { index: 5, count: 6 }.select(3).is_empty(), "more shards than samples leaves some empty");
    }

    fn part(shard: Shard, total: usize, model: &str) -> Value {
        let origins = shard.select(total);
        let samples: Vec<Value> = origins.iter().map(|i| json!({"prompt": format!("p{i}"), "agent_status": "success", "correct": i % 2 == 0})).collect();
        let summary = json!({"generation_params": {"model": model, "base_url": format!("http://r{}/v1", shard.index)}, "system_prompt": "s", "start_times": [format!("t{}", shard.index)], "shard": shard.summary(total, "fnv1a64:1", &origins)});
        json!({"summary": summary, "samples": samples})
    }

    #[test]
    fn parts_merge_into_dataset_order_with_aggregates_over_all() {
        let parts: Vec<(String, Value)> = (0..3).rev().map(|i| (format!("part{i}.json"), part(Shard { index: i, count: 3 }, 7, "m"))).collect();
        let merged = merge_parts(&parts).unwrap();
        let prompts: Vec<&str> = merged["samples"].as_array().unwrap().iter().map(|s| s["prompt"].as_str().unwrap()).collect();
        assert_eq!(prompts, ["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
        assert_eq!(merged["summary"]["num_finished"], 7);
        assert!((merged["summary"]["overall_accuracy"].as_f64().unwrap() - 4.0 / 7.0).abs() < 1e-12);
        assert!(merged["summary"].get("shard").is_none());
        assert_eq!(merged["summary"]["generation_params"]["base_urls"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn a_missing_or_doubled_shard_is_refused_with_its_samples() {
        let of = |i: usize| (format!("part{i}.json"), part(Shard { index: i, count: 3 }, 7, "m"));
        let missing = merge_parts(&[of(0), of(2)]).unwrap_err().to_string();
        assert_eq!(missing, "samples no part holds: 1, 4 (shard 1/3 missing)");
        let doubled = merge_parts(&[of(0), of(1), of(2), of(1)]).unwrap_err().to_string();
        assert_eq!(doubled, "samples held by more than one part: 1, 4 (sample 1 is in part1.json and part1.json)");
    }

    #[test]
    fn parts_of_other_settings_or_datasets_or_without_a_shard_are_refused() {
        let a = ("a.json".to_string(), part(Shard { index: 0, count: 2 }, 4, "m"));
        let b = ("b.json".to_string(), part(Shard { index: 1, count: 2 }, 4, "other"));
        let error = merge_parts(&[a.clone(), b]).unwrap_err().to_string();
        assert!(error.starts_with("b.json: the run's settings (`generation_params`) is {\"model\":\"other\"}, but in a.json it is {\"model\":\"m\"}"), "{error}");
        let c = ("c.json".to_string(), part(Shard { index: 1, count: 2 }, 5, "m"));
        assert!(merge_parts(&[a.clone(), c]).unwrap_err().to_string().starts_with("c.json: the dataset is fnv1a64:1 (5 samples), but in a.json it is fnv1a64:1 (4 samples)"));
        let plain = ("plain.json".to_string(), json!({"summary": {}, "samples": []}));
        assert!(merge_parts(&[a, plain]).unwrap_err().to_string().starts_with("plain.json: not a shard's results file: its summary has no `shard`"));
        assert_eq!(merge_parts(&[]).unwrap_err(), MergeError::Empty);
    }
}
