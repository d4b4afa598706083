//! The app's demo datasets: the paper's layouts for math, GSM and Python, one sample per target, seed 0. The
//! app's own build carries no `datasets/` directory; when a page finds no site index beside it, the worker
//! generates these datasets and lays them out exactly as `arbigraph site --preset paper --samples-per-target 1
//! --shard-size 100` would (the same index text, files and shards; `tests/it/demo_site.rs` compares them), so
//! the instance browser has something to show at first open and building the app needs no native generator.

use serde_json::Value as Json;

use crate::engine::generate::form::GenerateForm;
use crate::engine::generate::plan::{plan, ALL_FAMILIES, PAPER};
use crate::engine::dataset::site::{describe, shard_texts, Shard, SiteDataset, SiteIndex};
use crate::engine::dataset::{self, read_dataset, FileFormat};
use crate::engine::generate::{GenerateConfig, Sample};

/// Samples per shard of the demo datasets.
pub const SHARD_SIZE: usize = 100;
/// Samples per target of the demo datasets.
pub const SAMPLES_PER_TARGET: u32 = 1;
/// Seed of the demo datasets.
pub const SEED: u64 = 0;

/// The store key of site dataset `name` (the page's too).
pub fn key(name: &str) -> String {
    format!("site:{name}")
}

/// The form whose plan makes the demo datasets.
pub fn form() -> GenerateForm {
    GenerateForm { topology: PAPER.into(), family: ALL_FAMILIES.into(), samples_per_target: SAMPLES_PER_TARGET, seed: SEED, ..GenerateForm::default() }
}

/// The demo datasets' runs: each one's name (`math_chain`), form and configuration, in the index's order.
pub fn runs() -> Result<Vec<(String, GenerateForm, GenerateConfig)>, String> {
    plan(&form())
        .into_iter()
        .map(|run| {
            let mut config = run.to_config().map_err(|e| format!("{} {}: {e}", run.family, run.topology))?;
            config.samples_per_target = SAMPLES_PER_TARGET;
            Ok((format!("{}_{}", run.family, run.topology), run, config))
        })
        .collect()
}

/// The form of demo dataset `name`, for regenerating its file (a download).
pub fn form_of(name: &str) -> Option<GenerateForm> {
    runs().ok()?.into_iter().find(|(n, _, _)| n == name).map(|(_, form, _)| form)
}

/// One published demo dataset: its index entry, its shards with their JSONL text, and its sample records.
#[derive(Clone, Debug)]
pub struct Published {
    pub entry: SiteDataset,
    pub shards: Vec<(Shard, String)>,
    /// The records, in order (what the shards hold, parsed).
    pub records: Vec<Json>,
}

/// Publishes a run's samples as a site dataset named `name`: its file (as `arbigraph generate` writes it), read
/// back like any published file, split into shards and described.
pub fn publish(name: &str, config: &GenerateConfig, samples: &[Sample]) -> Result<Published, String> {
    let text = dataset::file_text(config, samples, &dataset::plain_run_info(), FileFormat::Json);
    let read = read_dataset(name, &text).map_err(|e| e.to_string())?;
    let shards = shard_texts(name, &read.samples, SHARD_SIZE);
    let described: Vec<Shard> = shards.iter().map(|(s, _)| s.clone()).collect();
    let entry = describe(name, &format!("{name}.json"), text.len() as u64, read.summary.as_ref(), &read.samples, described);
    Ok(Published { entry, shards, records: read.samples })
}

/// The index of the published datasets, as the text `arbigraph site` writes to `datasets/index.json`.
pub fn index_text(published: &[Published]) -> String {
    let index = SiteIndex { generator: dataset::GENERATOR.to_string(), datasets: published.iter().map(|p| p.entry.clone()).collect(), results: Vec::new() };
    dataset::to_pretty_string(&index.to_json()) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate;
    use crate::engine::tasks::registry::builtin;

    #[test]
    fn the_demo_is_the_papers_eleven_layouts_named_like_the_site_names_them() {
        let names: Vec<String> = runs().unwrap().into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(names.len(), 11, "{names:?}");
        assert_eq!(names[0], "math_baseline");
        assert!(names.contains(&"python_multichain".to_string()) && !names.contains(&"gsm_multichain".to_string()));
        assert_eq!(form_of("gsm_chain").map(|f| (f.family, f.topology, f.samples_per_target, f.seed)), Some(("gsm".into(), "chain".into(), 1, 0)));
        assert_eq!(form_of("gsm_multichain"), None);
    }

    #[test]
    fn a_published_dataset_lists_its_shards_and_counts_its_file() {
        let registry = builtin();
        let (name, _, config) = runs().unwrap().into_iter().find(|(n, _, _)| n == "math_chain").unwrap();
        let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
        let published = publish(&name, &config, &samples).unwrap();
        let text = dataset::file_text(&config, &samples, &dataset::plain_run_info(), FileFormat::Json);
        assert_eq!(published.entry.bytes, text.len() as u64);
        assert_eq!((published.entry.samples, published.records.len(), published.shards.len()), (40, 40, 1));
        assert_eq!((published.entry.topology.as_str(), published.entry.family.as_str()), ("chain", "math"));
        assert_eq!(published.shards[0].1.lines().count(), 40);
        let index = SiteIndex::parse(&index_text(&[published])).unwrap();
        assert_eq!(index.datasets[0].file, "math_chain.json");
    }
}
