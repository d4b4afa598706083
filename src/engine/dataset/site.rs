//! A static site's datasets: the index (`datasets/index.json`: one entry per dataset with its name, topology,
//! family, sample count, size, generator and shards) and the shards themselves (JSONL, one sample record per
//! line, `shard_size` samples each), so a browser opens a large dataset by fetching only the shard it shows.
//! The index also lists results files published beside the datasets (`SiteResults`), each with its counts, model
//! and strategy, so the Results page can list them before fetching one.
//! `arbigraph site` writes them; the app reads the index through `SiteIndex::parse`. Pure text in, text out.

use serde_json::{json, Map, Value as Json};

use super::inspect;
use super::record::declared_of;

/// The index layout's version.
pub const INDEX_VERSION: u64 = 1;
/// Samples per shard unless told otherwise.
pub const DEFAULT_SHARD_SIZE: usize = 1000;
/// The index's path inside a site.
pub const INDEX_PATH: &str = "datasets/index.json";

/// The `<meta>` name a site's `index.html` carries to say which page its root opens on (`browse` for a site of
/// datasets, `results` for one of results files only); the app's own build has none and opens on Design.
pub const START_META: &str = "arbigraph-start";

/// `html` (a built app's `index.html`) with the start page set to `route`: the marker goes just before
/// `</head>` (or first, for a page without one), replacing an earlier marker, so building a site over a site
/// keeps one.
pub fn with_start_page(html: &str, route: &str) -> String {
    let marker = format!("<meta name=\"{START_META}\" content=\"{route}\">");
    let mut kept: String = html.lines().filter(|l| !l.contains(&format!("name=\"{START_META}\""))).collect::<Vec<_>>().join("\n");
    if html.ends_with('\n') {
        kept.push('\n');
    }
    match kept.find("</head>") {
        Some(at) => format!("{}{marker}\n{}", &kept[..at], &kept[at..]),
        None => format!("{marker}\n{kept}"),
    }
}

/// The datasets of a site.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteIndex {
    /// What wrote the site.
    pub generator: String,
    pub datasets: Vec<SiteDataset>,
    /// Results files published beside the datasets (an index without a `results` list has none).
    pub results: Vec<SiteResults>,
}

/// One results file of a site: enough to list it before it is fetched.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteResults {
    /// Its name: its file stem unless given. Links (`#/results?file=NAME`) name it.
    pub name: String,
    /// The file, relative to the index (`results/qwen_full.json`).
    pub file: String,
    pub bytes: u64,
    /// Samples in the file, graded ones and those the run left unfinished alike.
    pub samples: usize,
    /// Graded samples and the correct ones among them.
    pub graded: usize,
    pub correct: usize,
    /// The model and the context strategy the run used, empty when the file does not say.
    pub model: String,
    pub strategy: String,
}

/// One dataset of a site.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteDataset {
    /// The dataset's name: its file stem unless given (`math_chain`). Deep links name it.
    pub name: String,
    /// `baseline`, `forgetting`, `chain`, `multichain`, `custom` (or `mixed`).
    pub topology: String,
    /// `math`, `gsm`, `python` or `mixed`.
    pub family: String,
    /// The summary's `mode`, empty when the file has none.
    pub mode: String,
    pub samples: usize,
    /// The whole file's size in bytes.
    pub bytes: u64,
    /// The summary's `generator`, empty when the file has none (reference files).
    pub generator: String,
    /// The whole file, relative to the index (`math_chain.json`).
    pub file: String,
    /// The file's summary object (`null` for JSONL files).
    pub summary: Json,
    pub shards: Vec<Shard>,
}

/// A run of consecutive samples in one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    /// Relative to the index (`math_chain/00000.jsonl`).
    pub file: String,
    /// Index of its first sample in the dataset.
    pub first: usize,
    pub count: usize,
    pub bytes: u64,
}

impl SiteDataset {
    /// The shard holding sample `index`.
    pub fn shard_of(&self, index: usize) -> Option<usize> {
        let at = self.shards.partition_point(|s| s.first + s.count <= index);
        (at < self.shards.len() && self.shards[at].first <= index).then_some(at)
    }
}

/// A dataset's shards: `(relative file, JSONL text)` for every `size` samples, in order; file names are the
/// dataset name and a five-digit shard number.
pub fn shard_texts(name: &str, samples: &[Json], size: usize) -> Vec<(Shard, String)> {
    let size = size.max(1);
    samples
        .chunks(size)
        .enumerate()
        .map(|(i, chunk)| {
            let mut text = String::new();
            for sample in chunk {
                text.push_str(&sample.to_string());
                text.push('\n');
            }
            let shard = Shard { file: format!("{name}/{i:05}.jsonl"), first: i * size, count: chunk.len(), bytes: text.len() as u64 };
            (shard, text)
        })
        .collect()
}

/// The index entry of a dataset read from a file: topology and family as `inspect` infers them (or as JSONL
/// metadata declares them), with the given shards.
pub fn describe(name: &str, file: &str, bytes: u64, summary: Option<&Json>, samples: &[Json], shards: Vec<Shard>) -> SiteDataset {
    let wrapped = json!({"summary": summary.cloned().unwrap_or(Json::Null), "samples": Json::Array(Vec::new())});
    let mode = inspect(&wrapped).mode;
    let declared = |key: &str| -> Option<String> {
        let mut values = samples.iter().filter_map(|s| declared_of(s, key));
        let first = values.next()?;
        Some(if values.all(|v| v == first) { first } else { "mixed".into() })
    };
    let (topology, family) = match (declared("topology"), declared("family")) {
        (Some(t), Some(f)) => (t, f),
        _ => {
            let topologies: std::collections::BTreeSet<&str> = samples.iter().map(super::shape::topology_of).collect();
            let families: std::collections::BTreeSet<String> = samples.iter().map(|s| super::shape::family_of(s, &mode)).collect();
            let one = |set: Vec<String>| if set.len() == 1 { set[0].clone() } else { "mixed".to_string() };
            (one(topologies.into_iter().map(str::to_string).collect()), one(families.into_iter().collect()))
        }
    };
    let generator = summary.and_then(|s| s.get("generator")).and_then(Json::as_str).unwrap_or("").to_string();
    SiteDataset {
        name: name.to_string(),
        topology,
        family,
        mode,
        samples: samples.len(),
        bytes,
        generator,
        file: file.to_string(),
        summary: summary.cloned().unwrap_or(Json::Null),
        shards,
    }
}

impl SiteIndex {
    /// The index file's JSON.
    pub fn to_json(&self) -> Json {
        let datasets: Vec<Json> = self
            .datasets
            .iter()
            .map(|d| {
                let shards: Vec<Json> = d.shards.iter().map(|s| json!({"file": s.file, "first": s.first, "count": s.count, "bytes": s.bytes})).collect();
                json!({
                    "name": d.name, "topology": d.topology, "family": d.family, "mode": d.mode, "samples": d.samples,
                    "bytes": d.bytes, "generator": d.generator, "file": d.file, "summary": d.summary, "shards": shards,
                })
            })
            .collect();
        let results: Vec<Json> = self
            .results
            .iter()
            .map(|r| {
                json!({"name": r.name, "file": r.file, "bytes": r.bytes, "samples": r.samples, "graded": r.graded, "correct": r.correct,
                    "model": r.model, "strategy": r.strategy})
            })
            .collect();
        json!({"index_version": INDEX_VERSION, "generator": self.generator, "datasets": datasets, "results": results})
    }

    /// Reads an index file; every problem is reported with its JSON path.
    pub fn parse(text: &str) -> Result<SiteIndex, Vec<String>> {
        let json: Json = serde_json::from_str(text).map_err(|e| vec![format!("{INDEX_PATH}:{}:{}: malformed JSON: {e}", e.line(), e.column())])?;
        SiteIndex::from_json(&json)
    }

    /// Reads a parsed index; every problem is reported with its JSON path.
    pub fn from_json(json: &Json) -> Result<SiteIndex, Vec<String>> {
        let mut problems = Vec::new();
        let empty = Map::new();
        let root = json.as_object().unwrap_or_else(|| {
            problems.push("the index is not a JSON object".to_string());
            &empty
        });
        match root.get("index_version").and_then(Json::as_u64) {
            Some(INDEX_VERSION) => {}
            Some(v) => problems.push(format!("index_version: {v} is not supported (this app reads version {INDEX_VERSION})")),
            None => problems.push("index_version: missing".to_string()),
        }
        let generator = root.get("generator").and_then(Json::as_str).unwrap_or("").to_string();
        let mut datasets = Vec::new();
        match root.get("datasets").and_then(Json::as_array) {
            None => problems.push("datasets: missing or not a list".to_string()),
            Some(list) => {
                for (i, entry) in list.iter().enumerate() {
                    let mut r = Reader { at: format!("datasets[{i}]"), json: entry, problems: &mut problems };
                    let name = r.string("name");
                    let dataset = SiteDataset {
                        topology: r.string("topology"),
                        family: r.string("family"),
                        mode: entry.get("mode").and_then(Json::as_str).unwrap_or("").to_string(),
                        samples: r.count("samples"),
                        bytes: r.count("bytes") as u64,
                        generator: entry.get("generator").and_then(Json::as_str).unwrap_or("").to_string(),
                        file: r.string("file"),
                        summary: entry.get("summary").cloned().unwrap_or(Json::Null),
                        shards: r.shards(),
                        name,
                    };
                    let covered: usize = dataset.shards.iter().map(|s| s.count).sum();
                    if covered != dataset.samples {
                        problems.push(format!("datasets[{i}].shards: cover {covered} samples, the dataset has {}", dataset.samples));
                    }
                    if datasets.iter().any(|d: &SiteDataset| d.name == dataset.name) {
                        problems.push(format!("datasets[{i}].name: `{}` is used twice", dataset.name));
                    }
                    datasets.push(dataset);
                }
            }
        }
        let mut results = Vec::new();
        match root.get("results") {
            None => {}
            Some(Json::Array(list)) => {
                for (i, entry) in list.iter().enumerate() {
                    let mut r = Reader { at: format!("results[{i}]"), json: entry, problems: &mut problems };
                    let text = |key: &str| entry.get(key).and_then(Json::as_str).unwrap_or("").to_string();
                    let file = SiteResults {
                        name: r.string("name"),
                        file: r.string("file"),
                        bytes: r.count("bytes") as u64,
                        samples: r.count("samples"),
                        graded: r.count("graded"),
                        correct: r.count("correct"),
                        model: text("model"),
                        strategy: text("strategy"),
                    };
                    if file.correct > file.graded || file.graded > file.samples {
                        problems.push(format!("results[{i}]: {} correct of {} graded of {} samples cannot be", file.correct, file.graded, file.samples));
                    }
                    if results.iter().any(|f: &SiteResults| f.name == file.name) {
                        problems.push(format!("results[{i}].name: `{}` is used twice", file.name));
                    }
                    results.push(file);
                }
            }
            Some(_) => problems.push("results: not a list".to_string()),
        }
        if problems.is_empty() {
            Ok(SiteIndex { generator, datasets, results })
        } else {
            Err(problems)
        }
    }
}

struct Reader<'a> {
    at: String,
    json: &'a Json,
    problems: &'a mut Vec<String>,
}

impl Reader<'_> {
    fn string(&mut self, key: &str) -> String {
        match self.json.get(key).and_then(Json::as_str) {
            Some(s) => s.to_string(),
            None => {
                self.problems.push(format!("{}.{key}: missing or not a string", self.at));
                String::new()
            }
        }
    }

    fn count(&mut self, key: &str) -> usize {
        match self.json.get(key).and_then(Json::as_u64) {
            Some(n) => n as usize,
            None => {
                self.problems.push(format!("{}.{key}: missing or not a count", self.at));
                0
            }
        }
    }

    fn shards(&mut self) -> Vec<Shard> {
        let Some(list) = self.json.get("shards").and_then(Json::as_array) else {
            self.problems.push(format!("{}.shards: missing or not a list", self.at));
            return Vec::new();
        };
        let mut shards = Vec::new();
        let mut next = 0;
        for (j, entry) in list.iter().enumerate() {
            let mut r = Reader { at: format!("{}.shards[{j}]", self.at), json: entry, problems: self.problems };
            let shard = Shard { file: r.string("file"), first: r.count("first"), count: r.count("count"), bytes: r.count("bytes") as u64 };
            if shard.first != next {
                self.problems.push(format!("{}.shards[{j}].first: {} where {next} was expected (shards run in order without gaps)", self.at, shard.first));
            }
            next = shard.first + shard.count;
            shards.push(shard);
        }
        shards
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(n: usize) -> Vec<Json> {
        (0..n).map(|i| json!({"task_name": format!("T{i}"), "prompt": format!("p{i}"), "ground_truth": i, "chain": {}})).collect()
    }

    #[test]
    fn shards_cover_every_sample_in_order_and_are_found_by_index() {
        let all = samples(25);
        let shards = shard_texts("d", &all, 10);
        assert_eq!(shards.iter().map(|(s, _)| (s.first, s.count)).collect::<Vec<_>>(), [(0, 10), (10, 10), (20, 5)]);
        assert_eq!(shards[2].0.file, "d/00002.jsonl");
        assert_eq!(shards[1].1.lines().next().map(|l| serde_json::from_str::<Json>(l).unwrap()), Some(all[10].clone()));
        assert_eq!(shards[0].0.bytes, shards[0].1.len() as u64);
        let dataset = describe("d", "d.json", 99, Some(&json!({"mode": "math_chain", "generator": "g"})), &all, shards.into_iter().map(|(s, _)| s).collect());
        assert_eq!((dataset.topology.as_str(), dataset.family.as_str(), dataset.mode.as_str(), dataset.samples), ("chain", "math", "math_chain", 25));
        assert_eq!([0, 9, 10, 24].map(|i| dataset.shard_of(i)), [Some(0), Some(0), Some(1), Some(2)]);
        assert_eq!(dataset.shard_of(25), None);
    }

    #[test]
    fn the_index_round_trips_and_jsonl_metadata_names_topology_and_family() {
        let lines = vec![json!({"prompt": "p", "metadata": {"topology": "baseline", "family": "gsm"}}), json!({"prompt": "q", "metadata": {"topology": "baseline", "family": "math"}})];
        let shards: Vec<Shard> = shard_texts("l", &lines, 1000).into_iter().map(|(s, _)| s).collect();
        let dataset = describe("l", "l.jsonl", 10, None, &lines, shards);
        assert_eq!((dataset.topology.as_str(), dataset.family.as_str()), ("baseline", "mixed"));
        let results = SiteResults {
            name: "full".into(), file: "results/full.json".into(), bytes: 120, samples: 4, graded: 3, correct: 2, model: "m".into(), strategy: "full".into(),
        };
        let index = SiteIndex { generator: "arbigraph-studio test".into(), datasets: vec![dataset], results: vec![results] };
        let text = index.to_json().to_string();
        assert_eq!(SiteIndex::parse(&text), Ok(index.clone()));
        // An index written before results were published reads as one without any.
        let mut older = index.to_json();
        older.as_object_mut().unwrap().remove("results");
        assert_eq!(SiteIndex::from_json(&older), Ok(SiteIndex { results: Vec::new(), ..index }));
    }

    #[test]
    fn a_broken_index_lists_every_problem_with_its_path() {
        let text = r#"{"index_version": 1, "datasets": [
            {"name": "a", "topology": "chain", "family": "math", "samples": 5, "bytes": 1, "file": "a.json",
             "shards": [{"file": "a/0.jsonl", "first": 0, "count": 2, "bytes": 1}, {"file": "a/1.jsonl", "first": 3, "count": 2, "bytes": 1}]},
            {"name": "a", "family": "math", "samples": 0, "bytes": 0, "file": "b.json", "shards": []}]}"#;
        let problems = SiteIndex::parse(text).unwrap_err();
        assert!(problems.contains(&"datasets[0].shards[1].first: 3 where 2 was expected (shards run in order without gaps)".to_string()), "{problems:?}");
        assert!(problems.contains(&"datasets[0].shards: cover 4 samples, the dataset has 5".to_string()), "{problems:?}");
        assert!(problems.contains(&"datasets[1].topology: missing or not a string".to_string()), "{problems:?}");
        assert!(problems.contains(&"datasets[1].name: `a` is used twice".to_string()), "{problems:?}");
        let results = r#"{"index_version": 1, "datasets": [], "results": [
            {"name": "r", "file": "results/r.json", "bytes": 1, "samples": 2, "graded": 3, "correct": 1},
            {"name": "r", "file": "results/s.json", "bytes": 1, "samples": 2, "graded": 2}]}"#;
        assert_eq!(SiteIndex::parse(results).unwrap_err(), vec![
            "results[0]: 1 correct of 3 graded of 2 samples cannot be".to_string(),
            "results[1].correct: missing or not a count".to_string(),
            "results[1].name: `r` is used twice".to_string(),
        ]);
        assert_eq!(SiteIndex::parse(r#"{"index_version": 1, "datasets": [], "results": 3}"#).unwrap_err(), vec!["results: not a list"]);
        assert_eq!(SiteIndex::parse(r#"{"index_version": 9, "datasets": []}"#).unwrap_err(), vec!["index_version: 9 is not supported (this app reads version 1)"]);
        assert!(SiteIndex::parse("{").unwrap_err()[0].starts_with("datasets/index.json:1:1: malformed JSON"));
    }

    #[test]
    fn a_site_s_page_names_where_it_opens_once() {
        let page = "<html>\n  <head>\n    <title>x</title>\n  </head>\n</html>\n";
        let site = with_start_page(page, "browse");
        assert_eq!(site, "<html>\n  <head>\n    <title>x</title>\n  <meta name=\"arbigraph-start\" content=\"browse\">\n</head>\n</html>\n");
        assert_eq!(with_start_page(&site, "results").matches(START_META).count(), 1, "rebuilding a site keeps one marker");
        assert!(with_start_page(&site, "results").contains("content=\"results\""));
        assert!(with_start_page("<title>bare</title>", "browse").starts_with("<meta name=\"arbigraph-start\""));
    }
}
