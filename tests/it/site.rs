//! `arbigraph site` on good and bad input: the index's contents, shards that cover every sample in order, the
//! app copied without its demo datasets, clear errors with exit code 2; and the browser's Export job, whose
//! files must be byte-identical to what `arbigraph generate` writes for the same settings.

use std::path::{Path, PathBuf};

use arbigraph_studio::engine::generate::form::GenerateForm;
use arbigraph_studio::app::jobs::{FromWorker, Job, JobRequest};
use arbigraph_studio::app::store::Store;
use arbigraph_studio::engine::dataset::site::SiteIndex;
use arbigraph_studio::engine::dataset::FileFormat;
use arbigraph_studio::engine::tasks::registry::builtin;

use crate::support::{arbigraph, reference, scratch};

/// A stand-in for `dist/`: an index.html, a script, and a demo bundle that a site must not carry over.
fn fake_dist(dir: &Path) -> PathBuf {
    let dist = dir.join("dist");
    std::fs::create_dir_all(dist.join("datasets/demo")).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>app</title>").unwrap();
    std::fs::write(dist.join("app.js"), "console.log(1)").unwrap();
    std::fs::write(dist.join("datasets/index.json"), "{}").unwrap();
    std::fs::write(dist.join("datasets/demo/00000.jsonl"), "{}").unwrap();
    dist
}

fn site(args: &[&str]) -> (i32, String) {
    let (code, _, err) = arbigraph(&[&["site"], args].concat());
    (code, err)
}

fn read_index(out: &Path) -> SiteIndex {
    let text = std::fs::read_to_string(out.join("datasets/index.json")).expect("the site has an index");
    SiteIndex::parse(&text).unwrap_or_else(|problems| panic!("{problems:?}"))
}

#[test]
fn a_site_holds_the_app_the_files_and_shards_that_cover_every_sample() {
    let dir = scratch("site-good");
    let dist = fake_dist(&dir);
    let generated = dir.join("math_chain.json");
    let (code, _, err) = arbigraph(&["generate", "--topology", "chain", "--samples-per-target", "2", "--seed", "3", "-o", generated.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let jsonl = dir.join("gsm.jsonl");
    assert_eq!(arbigraph(&["generate", "--family", "gsm", "--samples-per-target", "1", "-o", jsonl.to_str().unwrap()]).0, 0);
    let reference_file = reference("python_baseline.sample.json");
    let out = dir.join("site");
    let named = format!("py={}", reference_file.display());
    let results_file = reference("results_gsm_baseline.sample.json");
    let named_results = format!("qwen run={}", results_file.display());
    let (code, err) = site(&["--out", out.to_str().unwrap(), "--dist", dist.to_str().unwrap(), "--shard-size", "25",
        "--dataset", generated.to_str().unwrap(), "--dataset", jsonl.to_str().unwrap(), "--dataset", &named, "--results", &named_results]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote 3 dataset(s)") && err.contains("and 1 results file(s)"), "{err}");
    // The results file: copied as it is, listed with its counts, model and strategy as the file records them.
    let index = read_index(&out);
    let [listed] = index.results.as_slice() else { panic!("one results file: {:?}", index.results) };
    let original = std::fs::read_to_string(&results_file).unwrap();
    let record: serde_json::Value = serde_json::from_str(&original).unwrap();
    let samples = record["samples"].as_array().unwrap();
    assert_eq!((listed.name.as_str(), listed.file.as_str()), ("qwen_run", "results/qwen_run.json"), "the name is made safe for links");
    assert_eq!(std::fs::read_to_string(out.join("datasets").join(&listed.file)).unwrap(), original);
    assert_eq!(listed.bytes, original.len() as u64);
    assert_eq!((listed.samples, listed.graded), (samples.len(), samples.len()), "every sample of this file finished");
    assert_eq!(listed.correct, samples.iter().filter(|s| s["correct"] == true).count(), "the grade agrees with the verdicts the file stores");
    assert_eq!(listed.model, record["summary"]["generation_params"]["model"].as_str().unwrap());
    assert_eq!(std::fs::read_to_string(out.join("app.js")).unwrap(), "console.log(1)");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains(r#"<meta name="arbigraph-start" content="browse">"#), "a site of datasets opens on them: {page}");
    assert!(!std::fs::read_to_string(dist.join("index.html")).unwrap().contains("arbigraph-start"), "the app's own build keeps opening on Design");
    assert!(!out.join("datasets/demo").exists(), "the app's demo datasets are not copied");

    let index = read_index(&out);
    let names: Vec<&str> = index.datasets.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["math_chain", "gsm", "py"]);
    let chain = &index.datasets[0];
    assert_eq!((chain.topology.as_str(), chain.family.as_str(), chain.mode.as_str(), chain.samples), ("chain", "math", "math_chain", 80));
    assert_eq!(chain.bytes, std::fs::metadata(&generated).unwrap().len());
    assert!(chain.generator.starts_with("arbigraph-studio "), "{}", chain.generator);
    assert_eq!(chain.shards.iter().map(|s| s.count).collect::<Vec<_>>(), [25, 25, 25, 5]);
    assert_eq!(std::fs::read(out.join("datasets").join(&chain.file)).unwrap(), std::fs::read(&generated).unwrap(), "the dataset file is copied as is");
    let original: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&generated).unwrap()).unwrap();
    let mut sharded = Vec::new();
    for shard in &chain.shards {
        let text = std::fs::read_to_string(out.join("datasets").join(&shard.file)).unwrap();
        assert_eq!(text.len() as u64, shard.bytes);
        sharded.extend(text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()));
    }
    assert_eq!(&sharded, original["samples"].as_array().unwrap(), "shards hold every sample, in order");
    assert_eq!((index.datasets[1].topology.as_str(), index.datasets[1].family.as_str(), index.datasets[1].file.as_str()), ("baseline", "gsm", "gsm.jsonl"));
    assert_eq!((index.datasets[2].family.as_str(), index.datasets[2].generator.as_str()), ("python", ""), "reference files have no generator");
}

#[test]
fn bad_inputs_give_clear_errors_and_write_nothing() {
    let dir = scratch("site-bad");
    let dist = fake_dist(&dir);
    let out = dir.join("out");
    let out_s = out.to_str().unwrap();
    let dist_s = dist.to_str().unwrap();
    let malformed = dir.join("broken.json");
    std::fs::write(&malformed, "{\"samples\": [\n  {\"prompt\": 1,}\n]}").unwrap();
    let graph = dir.join("graph.json");
    std::fs::write(&graph, r#"{"directed": true, "nodes": [], "edges": []}"#).unwrap();
    let chain = reference("math_chain.sample.json");
    let chain_s = chain.to_str().unwrap();
    let results = reference("results_gsm_baseline.sample.json");
    let results_s = results.to_str().unwrap();
    let occupied = dir.join("occupied");
    std::fs::create_dir_all(&occupied).unwrap();
    std::fs::write(occupied.join("notes.txt"), "mine").unwrap();
    for (args, needle) in [
        (vec!["--out", out_s, "--dist", dir.join("nowhere").to_str().unwrap(), "--dataset", chain_s], "trunk build --release"),
        (vec!["--out", out_s, "--dist", dist_s], "nothing to publish"),
        (vec!["--out", out_s, "--dist", dist_s, "--dataset", "/nonexistent/x.json"], "cannot read /nonexistent/x.json"),
        (vec!["--out", out_s, "--dist", dist_s, "--dataset", malformed.to_str().unwrap()], "broken.json:2:16: malformed JSON: trailing comma"),
        (vec!["--out", out_s, "--dist", dist_s, "--dataset", graph.to_str().unwrap()], "graph.json: not a dataset: samples: missing"),
        (vec!["--out", out_s, "--dist", dist_s, "--dataset", chain_s, "--dataset", chain_s], "two datasets are named `math_chain.sample`"),
        (vec!["--out", out_s, "--dist", dist_s, "--preset", "thesis"], "unknown preset `thesis`"),
        (vec!["--out", out_s, "--dist", dist_s, "--results", chain_s], "math_chain.sample.json: this is a dataset file, not a results file"),
        (vec!["--out", out_s, "--dist", dist_s, "--results", malformed.to_str().unwrap()], "broken.json: malformed JSON at line 2, column 16"),
        (vec!["--out", out_s, "--dist", dist_s, "--dataset", chain_s, "--results", &format!("a={results_s}"), "--results", &format!("a={results_s}")], "two results files are named `a`"),
        (vec!["--out", out_s, "--dist", dist_s, "--dataset", chain_s, "--shard-size", "0"], "--shard-size"),
        (vec!["--out", occupied.to_str().unwrap(), "--dist", dist_s, "--dataset", chain_s], "is not empty and holds no site"),
    ] {
        let (code, err) = site(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected `{needle}` in {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!out.join("datasets/index.json").exists(), "a refused site writes no index");
    assert_eq!(std::fs::read_to_string(occupied.join("notes.txt")).unwrap(), "mine");
}

#[test]
fn rebuilding_a_site_replaces_its_datasets_and_the_paper_preset_publishes_eleven() {
    let dir = scratch("site-again");
    let dist = fake_dist(&dir);
    let out = dir.join("site");
    let chain = reference("math_chain.sample.json");
    let (code, err) = site(&["--out", out.to_str().unwrap(), "--dist", dist.to_str().unwrap(), "--dataset", &format!("first={}", chain.display())]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = site(&["--out", out.to_str().unwrap(), "--dist", dist.to_str().unwrap(), "--preset", "paper", "--samples-per-target", "1", "--shard-size", "50"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.join("datasets/first.json").exists(), "the earlier site's datasets are gone");
    let index = read_index(&out);
    let names: Vec<String> = index.datasets.iter().map(|d| d.name.clone()).collect();
    assert_eq!(names.len(), 11, "{names:?}");
    assert!(names.contains(&"math_multichain".to_string()) && names.contains(&"gsm_chain".to_string()) && !names.contains(&"gsm_multichain".to_string()));
    let python_chain = index.datasets.iter().find(|d| d.name == "python_chain").unwrap();
    assert_eq!((python_chain.topology.as_str(), python_chain.family.as_str()), ("chain", "python"));
    assert!(python_chain.shards.len() > 1, "{} samples in shards of 50", python_chain.samples);
}

#[test]
fn the_browsers_export_is_byte_identical_to_the_cli_file() {
    let dir = scratch("export-bytes");
    let registry = builtin();
    for (form, format, extra) in [
        (GenerateForm { topology: "chain".into(), family: "math".into(), samples_per_target: 2, seed: 4, length: 5, ..GenerateForm::default() }, FileFormat::Json, vec!["--length", "5"]),
        (GenerateForm { topology: "multichain".into(), family: "python".into(), samples_per_target: 1, seed: 1, ..GenerateForm::default() }, FileFormat::Jsonl, vec![]),
        (GenerateForm { topology: "forgetting".into(), family: "gsm".into(), samples_per_target: 1, seed: 7, ..GenerateForm::default() }, FileFormat::Json, vec!["--distractors", "3"]),
    ] {
        let mut store = Store::default();
        let mut job = Job::new(1, JobRequest::Export { form: form.clone(), graph: None, format, packs: Vec::new() }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
        let mut files = Vec::new();
        while !job.is_finished() {
            for message in job.step(&registry, &mut store) {
                if let FromWorker::File { name, text, .. } = message {
                    files.push((name, text));
                }
            }
        }
        assert_eq!(files.len(), 1);
        let path = dir.join(&files[0].0);
        let spt = form.samples_per_target.to_string();
        let seed = form.seed.to_string();
        let mut args = vec!["generate", "--topology", &form.topology, "--family", &form.family, "--samples-per-target", &spt, "--seed", &seed, "-o", path.to_str().unwrap()];
        args.extend(extra);
        let (code, _, err) = arbigraph(&args);
        assert_eq!(code, 0, "{err}");
        assert!(std::fs::read_to_string(&path).unwrap() == files[0].1, "{}: the page's download differs from the CLI's file", files[0].0);
    }
}
