//! Jobs run natively to the end: generation (whole, split, one sample), export, opening files and shards,
//! queries, the demo site.

use super::*;
use crate::app::browse::catalog::Row;
use crate::engine::dataset::{self, site::INDEX_PATH};
use crate::engine::generate as engine_generate;
use crate::engine::tasks::registry::builtin;

fn run(job: &mut Job, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
    let mut all = Vec::new();
    while !job.is_finished() {
        all.extend(job.step(registry, store));
    }
    all
}

fn start(request: JobRequest, registry: &Registry, store: &mut Store) -> Vec<FromWorker> {
    let mut job = Job::new(1, request, registry, store).unwrap_or_else(|e| panic!("{e:?}"));
    run(&mut job, registry, store)
}

fn rows(messages: &[FromWorker]) -> Vec<Row> {
    messages.iter().filter_map(|m| if let FromWorker::Rows { rows, .. } = m { Some(rows.clone()) } else { None }).flatten().collect()
}

#[test]
fn the_python_box_and_the_probes_are_worker_jobs() {
    let registry = builtin();
    let mut store = Store::default();
    let source = "def double(xs: List[int]) -> List[int]:\n    return [2 * x for x in xs]\n".to_string();
    let ran = start(JobRequest::RunPython { source: source.clone(), args: r#"{"xs": [1, -2]}"#.into() }, &registry, &mut store);
    assert_eq!(ran, vec![FromWorker::Done { id: 1, summary: "[2, -4]".into() }]);
    let bad = start(JobRequest::RunPython { source: source.clone(), args: "{".into() }, &registry, &mut store);
    assert!(matches!(&bad[..], [FromWorker::Failed { message, .. }] if message.starts_with("arguments: malformed JSON")), "{bad:?}");
    let traced = start(JobRequest::TracePython { source }, &registry, &mut store);
    assert!(matches!(&traced[..], [FromWorker::Traced { traced, .. }, FromWorker::Done { .. }] if traced.line.starts_with("task_1_input = [")), "{traced:?}");
    // The native side of what e2e/platform.test.mjs asks the wasm worker for: the rng draws pinned in
    // `engine::rng`'s tests; the fingerprints are compared with the pins of tests/it by that test.
    let probes = start(JobRequest::Probes, &registry, &mut store);
    let [FromWorker::Done { summary, .. }] = &probes[..] else { panic!("{probes:?}") };
    let json: Json = serde_json::from_str(summary).unwrap();
    assert_eq!(json["rng"], "652,623,878,556,681");
    assert!(json["dataset"].as_str().is_some_and(|f| f.len() == 16) && json["png"].as_str().is_some_and(|f| f.len() == 16), "{json}");
}

#[test]
fn generation_in_slices_stores_every_sample_in_order_like_one_run() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { topology: "chain".into(), samples_per_target: 2, seed: 3, ..GenerateForm::default() };
    let messages = start(JobRequest::Generate { dataset: "g".into(), form: form.clone(), graph: None, packs: vec![] }, &registry, &mut store);
    let rows = rows(&messages);
    let config = form.to_config().unwrap();
    let whole = engine_generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
    assert_eq!(rows.len(), whole.len());
    assert!(rows.iter().enumerate().all(|(i, r)| r.index == i && r.topology == "chain" && r.stages == 4));
    for (i, sample) in whole.iter().enumerate() {
        let detail = store.detail("g", i).unwrap();
        assert_eq!(detail.prompt, sample.prompt.text());
        assert!(detail.roles_exact);
        assert_eq!(detail.roles, roles_of(&sample.prompt));
        assert_eq!(rows[i].origin, Some((0, sample.target_index)));
        assert_eq!(detail.seed, Some(3));
    }
    let last_progress = messages.iter().rev().find_map(|m| if let FromWorker::Progress { done, total, .. } = m { Some((*done, *total)) } else { None });
    assert_eq!(last_progress, Some((whole.len(), whole.len())));
    assert!(matches!(messages.last(), Some(FromWorker::Done { summary, .. }) if summary.contains("math_chain")));
}

#[test]
fn the_paper_preset_generates_every_layout_into_one_dataset() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { topology: "paper".into(), family: "math".into(), samples_per_target: 1, ..GenerateForm::default() };
    let rows = rows(&start(JobRequest::Generate { dataset: "p".into(), form, graph: None, packs: vec![] }, &registry, &mut store));
    let topologies: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.topology.as_str()).collect();
    assert_eq!(topologies.into_iter().collect::<Vec<_>>(), ["baseline", "chain", "forgetting", "multichain"]);
    assert_eq!(rows.iter().filter(|r| r.origin.is_some_and(|(run, _)| run == 3)).count(), rows.iter().filter(|r| r.topology == "multichain").count());
    assert_eq!(store.get("p").map(|d| d.loaded()), Some(rows.len()));
}

#[test]
fn export_files_equal_the_cli_layout_for_each_run() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { topology: "chain".into(), samples_per_target: 1, seed: 2, ..GenerateForm::default() };
    let messages = start(JobRequest::Export { form: form.clone(), graph: None, format: FileFormat::Json, packs: vec![] }, &registry, &mut store);
    let files: Vec<(String, String)> = messages.iter().filter_map(|m| if let FromWorker::File { name, text, .. } = m { Some((name.clone(), text.clone())) } else { None }).collect();
    let config = form.to_config().unwrap();
    let samples = engine_generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
    assert_eq!(files, vec![("math_chain.json".to_string(), dataset::file_text(&config, &samples, &dataset::plain_run_info(), FileFormat::Json))]);
}

#[test]
fn an_opened_file_streams_its_rows_and_a_bad_one_is_located() {
    let registry = builtin();
    let mut store = Store::default();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/reference/math_chain.sample.json")).unwrap();
    let messages = start(JobRequest::OpenFile { dataset: "f".into(), name: "math_chain.sample.json".into(), text }, &registry, &mut store);
    let Some(FromWorker::Opened { samples, summary, .. }) = messages.first() else { panic!("{messages:?}") };
    assert!(*samples > 0 && summary.is_some());
    let rows = rows(&messages);
    assert_eq!(rows.len(), *samples);
    assert!(rows.iter().all(|r| r.topology == "chain" && r.family == "math" && r.stages == 4));
    let detail = store.detail("f", 0).unwrap();
    assert!(!detail.roles_exact && detail.stages.len() == 4 && detail.prompt.starts_with("Solve all tasks"));
    let bad = start(JobRequest::OpenFile { dataset: "f".into(), name: "x.json".into(), text: "{\"samples\": [}".into() }, &registry, &mut store);
    assert!(matches!(&bad[..], [FromWorker::Failed { location: Some(at), .. }] if at == "x.json:1:14"), "{bad:?}");
    assert_eq!(store.get("f").map(|d| d.loaded()), Some(rows.len()), "a bad file leaves what was loaded");
}

#[test]
fn a_dataset_gives_its_samples_as_a_file_all_or_by_position() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { topology: "chain".into(), samples_per_target: 1, seed: 5, ..GenerateForm::default() };
    start(JobRequest::Generate { dataset: "g".into(), form: form.clone(), graph: None, packs: vec![] }, &registry, &mut store);
    let whole = engine_generate::generate(&form.to_config().unwrap(), &registry, &mut |_, _| {}).unwrap();
    let file = |positions: Option<Vec<usize>>, store: &mut Store| -> Json {
        let out = start(JobRequest::Samples { dataset: "g".into(), positions }, &registry, store);
        let Some(FromWorker::File { name, text, .. }) = out.first() else { panic!("{out:?}") };
        assert_eq!(name, "g");
        serde_json::from_str(text).unwrap()
    };
    let all = file(None, &mut store);
    let samples = all["samples"].as_array().unwrap();
    assert_eq!(samples.len(), whole.len());
    assert_eq!(samples[1]["prompt"].as_str(), Some(whole[1].prompt.text()), "each record with its prompt");
    assert_eq!(dataset::inspect(&all).topology, "chain");
    let some = file(Some(vec![2, 0]), &mut store);
    assert_eq!(some["samples"].as_array().map(Vec::len), Some(2));
    assert_eq!(some["samples"][0]["prompt"].as_str(), Some(whole[2].prompt.text()), "in the order asked");
    let missing = start(JobRequest::Samples { dataset: "none".into(), positions: None }, &registry, &mut store);
    assert!(matches!(&missing[..], [FromWorker::Failed { .. }]), "{missing:?}");
    let beyond = start(JobRequest::Samples { dataset: "g".into(), positions: Some(vec![9999]) }, &registry, &mut store);
    assert!(matches!(&beyond[..], [FromWorker::Failed { .. }]), "{beyond:?}");
}

#[test]
fn shards_fill_their_slots_and_queries_and_details_answer_from_the_store() {
    let registry = builtin();
    let mut store = Store::default();
    let line = |i: usize, task: &str| format!("{{\"task_name\": \"{task}\", \"prompt\": \"prompt {i} {task}\", \"ground_truth\": {i}}}\n");
    let text: String = (10..13).map(|i| line(i, if i == 11 { "B" } else { "A" })).collect();
    let messages = start(JobRequest::LoadShard { dataset: "h".into(), name: "h/00001".into(), first: 10, total: 30, summary: None, text }, &registry, &mut store);
    assert_eq!(rows(&messages).iter().map(|r| r.index).collect::<Vec<_>>(), [10, 11, 12]);
    assert_eq!(store.get("h").map(|d| (d.samples.len(), d.loaded())), Some((30, 3)));
    let query = Query { target: "A".into(), ..Query::default() };
    let view = start(JobRequest::Query { dataset: "h".into(), query }, &registry, &mut store);
    assert!(matches!(&view[0], FromWorker::View { indices, .. } if indices == &vec![10, 12]));
    let detail = start(JobRequest::Detail { dataset: "h".into(), index: 11 }, &registry, &mut store);
    assert!(matches!(&detail[0], FromWorker::Detail { detail, .. } if detail.prompt == "prompt 11 B"));
    let missing = start(JobRequest::Detail { dataset: "h".into(), index: 0 }, &registry, &mut store);
    assert!(matches!(&missing[0], FromWorker::Failed { message, .. } if message.contains("not loaded")));
    start(JobRequest::Forget { dataset: "h".into() }, &registry, &mut store);
    assert!(store.get("h").is_none());
}

#[test]
fn a_cancelled_job_says_so_and_stops() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { samples_per_target: 4, ..GenerateForm::default() };
    let mut job = Job::new(2, JobRequest::Generate { dataset: "g".into(), form, graph: None, packs: vec![] }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(!job.is_quick());
    let first = job.step(&registry, &mut store);
    assert!(matches!(&first[0], FromWorker::Rows { rows, total, .. } if rows.len() == 4 && *total == 160));
    assert_eq!(job.cancel(), FromWorker::Cancelled { id: 2 });
    assert!(job.step(&registry, &mut store).is_empty());
    job.adapt(1.0, 25.0);
    assert_eq!(job.units(), 8);
    job.adapt(100.0, 25.0);
    assert_eq!(job.units(), 4);
}

#[test]
fn bad_requests_fail_with_a_message() {
    let registry = builtin();
    let mut store = Store::default();
    let bad = GenerateForm { family: "poetry".into(), ..GenerateForm::default() };
    let failure = Job::new(3, JobRequest::Generate { dataset: "g".into(), form: bad, graph: None, packs: vec![] }, &registry, &mut store).err().map(|b| *b);
    let Some(FromWorker::Failed { message, .. }) = failure else { panic!("must fail") };
    assert!(message.contains("poetry"));
    let cyclic = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "a"},
        "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                  {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
        "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "a"}]}"#;
    let request = JobRequest::Generate { dataset: "g".into(), form: GenerateForm::default(), graph: Some(cyclic.into()), packs: vec![] };
    let Some(FromWorker::Failed { message, .. }) = Job::new(4, request, &registry, &mut store).err().map(|b| *b) else { panic!("must fail") };
    assert!(message.contains("cycle"), "{message}");
    let mut parse = Job::new(5, JobRequest::ParseJson { name: "x.json".into(), text: "{\n  \"a\": ,\n}".into() }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    let Some(FromWorker::Failed { location, .. }) = parse.step(&registry, &mut store).into_iter().next() else { panic!("must fail") };
    assert_eq!(location.as_deref(), Some("x.json:2:8"));
}

#[test]
fn a_graph_with_its_own_picture_parameters_draws_its_pictures_with_them() {
    let registry = builtin();
    let mut store = Store::default();
    let graph = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "p", "image_params": {"num_paths": 5, "nodes_per_path": 4, "width": 1000, "height": 800}},
        "nodes": [{"id": "p", "kind": "task", "family": "image", "input_kind": "scalar", "output_kind": "list"}], "edges": []}"#;
    let form = GenerateForm { family: "image".into(), samples_per_target: 2, ..GenerateForm::default() };
    let messages = start(JobRequest::Generate { dataset: "g".into(), form, graph: Some(graph.into()), packs: vec![] }, &registry, &mut store);
    assert_eq!(rows(&messages).len(), 2);
    for i in 0..2 {
        let detail = store.detail("g", i).unwrap();
        assert!(detail.prompt.contains("shows 5 paths"), "{}", detail.prompt);
        assert_eq!(detail.pictures.iter().map(|p| (p.width, p.height)).collect::<Vec<_>>(), vec![(1000.0, 800.0)]);
    }
    let plain = graph.replace(r#", "image_params": {"num_paths": 5, "nodes_per_path": 4, "width": 1000, "height": 800}"#, "");
    let form = GenerateForm { family: "image".into(), samples_per_target: 1, ..GenerateForm::default() };
    start(JobRequest::Generate { dataset: "h".into(), form, graph: Some(plain), packs: vec![] }, &registry, &mut store);
    assert!(store.detail("h", 0).unwrap().prompt.contains("shows 8 paths"), "without them, the reference's");
}

#[test]
fn opening_a_graph_places_it_off_the_page_and_bad_files_fail_located() {
    let registry = builtin();
    let mut store = Store::default();
    let text = include_str!("../../../tests/fixtures/reference/dag200_mixed.json");
    let mut job = Job::new(6, JobRequest::OpenGraph { name: "dag200_mixed.json".into(), text: text.into(), arrange: false }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    let messages = run(&mut job, &registry, &mut store);
    let Some(FromWorker::Parsed { kind, samples, json, .. }) = messages.first() else { panic!("{messages:?}") };
    assert_eq!((kind.as_str(), *samples), ("graph", 325));
    let placed = graph::from_json_str(json).unwrap();
    assert!(placed.nodes().iter().all(|n| n.position.is_some()));
    assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
    let mut bad = Job::new(7, JobRequest::OpenGraph { name: "g.json".into(), text: "{\"nodes\": 3}".into(), arrange: true }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    let Some(FromWorker::Failed { location, .. }) = bad.step(&registry, &mut store).into_iter().next() else { panic!("must fail") };
    assert_eq!(location.as_deref(), Some("g.json: $.nodes"));
}

#[test]
fn arranging_lays_out_every_node_anew() {
    let registry = builtin();
    let mut store = Store::default();
    let moved = r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
        "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar", "x": 500, "y": 500},
                  {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "x": 0, "y": 0}],
        "edges": [{"source": "a", "destination": "b"}]}"#;
    let mut job = Job::new(8, JobRequest::OpenGraph { name: "m.json".into(), text: moved.into(), arrange: true }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    let Some(FromWorker::Parsed { json, .. }) = job.step(&registry, &mut store).into_iter().next() else { panic!("must open") };
    let placed = graph::from_json_str(&json).unwrap();
    let x = |i: usize| placed.nodes()[i].position.unwrap().0;
    assert!(x(0) < x(1), "the source now sits left of its successor");
}

#[test]
fn the_demo_site_lists_its_index_first_then_fills_every_dataset_as_its_shards_would() {
    let registry = builtin();
    let mut store = Store::default();
    let messages = start(JobRequest::DemoSite, &registry, &mut store);
    let Some(FromWorker::File { name, text, .. }) = messages.iter().find(|m| !matches!(m, FromWorker::Progress { .. })) else { panic!("{messages:?}") };
    assert_eq!(name, INDEX_PATH);
    let index = crate::engine::dataset::site::SiteIndex::parse(text).unwrap();
    assert_eq!(index.datasets.len(), 11);
    let filled: Vec<(String, usize)> = messages.iter().filter_map(|m| if let FromWorker::Rows { dataset, rows, .. } = m { Some((dataset.clone(), rows.len())) } else { None }).collect();
    assert_eq!(filled, index.datasets.iter().map(|d| (format!("site:{}", d.name), d.samples)).collect::<Vec<_>>());
    // A record held is the line its shard carries: what a fetched shard would have stored.
    let python = &index.datasets.iter().find(|d| d.name == "python_chain").unwrap();
    let shard = demo_shard(&registry, "python_chain");
    let line: Json = serde_json::from_str(shard.lines().nth(5).unwrap()).unwrap();
    assert_eq!(store.detail("site:python_chain", 5).unwrap().prompt, line["prompt"].as_str().unwrap());
    assert_eq!(store.get("site:python_chain").map(|d| d.loaded()), Some(python.samples));
    assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
}

/// The first shard's text of demo dataset `name`, published on its own.
fn demo_shard(registry: &Registry, name: &str) -> String {
    let (_, _, config) = demo::runs().unwrap().into_iter().find(|(n, _, _)| n == name).unwrap();
    let samples = engine_generate::generate(&config, registry, &mut |_, _| {}).unwrap();
    demo::publish(name, &config, &samples).unwrap().shards.remove(0).1
}

#[test]
fn a_generation_spread_over_helpers_stores_the_bytes_one_worker_stores() {
    let registry = builtin();
    let form = GenerateForm { topology: "paper".into(), family: "math".into(), samples_per_target: 2, seed: 7, ..GenerateForm::default() };
    let request = JobRequest::Generate { dataset: "g".into(), form, graph: None, packs: vec![] };
    let mut alone = Store::default();
    let alone_rows = rows(&start(request.clone(), &registry, &mut alone));

    let mut store = Store::default();
    let mut job = Job::new(1, request, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(job.spread());
    assert!(!job.spread(), "once");
    let mut messages = Vec::new();
    let mut made = Vec::new();
    // Two helpers take every other block; this worker makes what is left, one slice at a time.
    while !job.is_finished() {
        for _ in 0..2 {
            if let Some((block, request)) = job.lend() {
                let mut helper_store = Store::default();
                let mut helper = Job::new(9, request, &registry, &mut helper_store).unwrap_or_else(|e| panic!("{e:?}"));
                let out = run(&mut helper, &registry, &mut helper_store);
                assert!(helper_store.get("g").is_none(), "a helper stores nothing");
                let pieces: Vec<(usize, Vec<Stored>)> = out.into_iter().filter_map(|m| if let FromWorker::Made { first, samples, .. } = m { Some((first, samples)) } else { None }).collect();
                assert_eq!(pieces.iter().map(|(_, s)| s.len()).sum::<usize>(), block.len());
                made.extend(pieces);
            }
        }
        messages.extend(job.step(&registry, &mut store));
        if job.is_waiting() {
            // The helpers' blocks come back last first.
            while let Some((first, samples)) = made.pop() {
                messages.extend(job.take(first, samples, &mut store));
            }
        }
    }
    assert!(matches!(messages.last(), Some(FromWorker::Done { .. })), "{:?}", messages.last());
    assert_eq!(rows(&messages), alone_rows, "the rows, in order");
    let bytes = |s: &Store| s.export("g", None).unwrap().to_string();
    assert_eq!(bytes(&store), bytes(&alone), "the stored samples, byte for byte");
    for i in [0, 50, alone_rows.len() - 1] {
        assert_eq!(store.detail("g", i).unwrap(), alone.detail("g", i).unwrap());
    }
}

#[test]
fn a_range_outside_the_run_or_a_block_taken_twice_fails() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { samples_per_target: 1, ..GenerateForm::default() };
    let outside = Job::new(1, JobRequest::GenerateRange { form: form.clone(), graph: None, first: 30, end: 99, packs: vec![] }, &registry, &mut store).err().map(|b| *b);
    assert!(matches!(&outside, Some(FromWorker::Failed { message, .. }) if message.contains("outside the run's 40 samples")), "{outside:?}");
    let mut job = Job::new(2, JobRequest::Generate { dataset: "g".into(), form: GenerateForm { samples_per_target: 4, ..GenerateForm::default() }, graph: None, packs: vec![] }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(job.spread());
    let (block, request) = job.lend().unwrap();
    let mut helper = Job::new(3, request, &registry, &mut Store::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let samples: Vec<Stored> = run(&mut helper, &registry, &mut Store::default()).into_iter().filter_map(|m| if let FromWorker::Made { samples, .. } = m { Some(samples) } else { None }).flatten().collect();
    assert_eq!(samples.len(), block.len());
    assert!(job.take(block.start, samples.clone(), &mut store).iter().any(|m| matches!(m, FromWorker::Rows { .. })));
    let again = job.take(block.start, samples, &mut store);
    assert!(matches!(&again[..], [FromWorker::Failed { message, .. }] if message.contains("already taken")), "{again:?}");
}

#[test]
fn messages_round_trip_as_json() {
    let message = FromWorker::Progress { id: 9, done: 3, total: 10 };
    let text = serde_json::to_string(&message).unwrap();
    assert_eq!(serde_json::from_str::<FromWorker>(&text).unwrap(), message);
    let start = ToWorker::Start { id: 1, request: JobRequest::Query { dataset: "d".into(), query: Query { text: "x".into(), ..Query::default() } } };
    assert_eq!(serde_json::from_str::<ToWorker>(&serde_json::to_string(&start).unwrap()).unwrap(), start);
}

/// The small pool the pack tests use (written for the tests, in the reference's format).
fn fixture_pool() -> packs::PackSource {
    let text = include_str!("../../../tests/fixtures/packs/python/pool.txt");
    packs::PackSource::from_files(vec![("pool.txt".into(), text.into())]).expect("one text file is a pool")
}

fn fixture_templates() -> packs::PackSource {
    let files = [
        ("0001.json", include_str!("../../../tests/fixtures/packs/gsm/0001.json")),
        ("0002.json", include_str!("../../../tests/fixtures/packs/gsm/0002.json")),
        ("0003.json", include_str!("../../../tests/fixtures/packs/gsm/0003.json")),
        ("0004.json", include_str!("../../../tests/fixtures/packs/gsm/0004.json")),
        ("0005.json", include_str!("../../../tests/fixtures/packs/gsm/0005.json")),
    ];
    packs::PackSource::from_files(files.iter().rev().map(|(n, t)| (n.to_string(), t.to_string())).collect()).expect("JSON files are templates")
}

#[test]
fn reading_a_pack_lists_what_the_engine_reads_with_kinds_and_refusals() {
    let registry = builtin();
    let mut store = Store::default();
    for source in [fixture_pool(), fixture_templates()] {
        let messages = start(JobRequest::ReadPack { source: source.clone() }, &registry, &mut store);
        let Some(FromWorker::PackRead { summary, .. }) = messages.first() else { panic!("{messages:?}") };
        let pack = source.read().expect("the fixture reads");
        assert_eq!(summary.kind, pack.kind.prefix());
        assert_eq!((&summary.tasks, &summary.refused), (&pack.entries, &pack.refused));
        // It reaches the page as JSON, kinds by name.
        let text = serde_json::to_string(&messages[0]).unwrap();
        assert_eq!(serde_json::from_str::<FromWorker>(&text).unwrap(), messages[0]);
        let first = &summary.tasks[0];
        assert!(text.contains(&format!(r#""output_kind":"{}""#, first.output_kind.as_str())), "{text}");
        assert!(!summary.tasks.is_empty() && summary.tasks.iter().all(|t| !t.input_kinds.is_empty()));
        assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
    }
    let broken = packs::PackSource::from_files(vec![("broken.txt".into(), include_str!("../../../tests/fixtures/packs/python/broken.txt").into())]).unwrap();
    let messages = start(JobRequest::ReadPack { source: broken }, &registry, &mut store);
    let Some(FromWorker::Failed { message, location, .. }) = messages.last() else { panic!("{messages:?}") };
    assert!(message.starts_with("broken.txt:"), "located at the file and line: {message}");
    assert_eq!(location.as_deref(), Some("broken.txt"));
}

#[test]
fn a_generation_with_a_pack_draws_the_family_from_it_as_the_engine_does() {
    let registry = builtin();
    let mut store = Store::default();
    let pool = fixture_pool();
    let form = GenerateForm { topology: "chain".into(), family: "python.ref".into(), samples_per_target: 2, seed: 5, length: 3, ..GenerateForm::default() };
    let messages = start(JobRequest::Export { form: form.clone(), graph: None, format: FileFormat::Json, packs: vec![pool.clone()] }, &registry, &mut store);
    let exported = messages.iter().find_map(|m| if let FromWorker::File { text, .. } = m { Some(text.clone()) } else { None }).expect("a file");
    // The engine alone, as `arbigraph generate --pack python=pool.txt --family python.ref` builds it.
    let mut everything = builtin();
    everything.add_pack(&pool.read().unwrap()).unwrap();
    let view = everything.view(&crate::engine::tasks::registry::FamilyChoice::parse("python.ref", &everything).unwrap());
    let config = form.to_config().unwrap();
    let samples = engine_generate::generate(&config, &view, &mut |_, _| {}).unwrap();
    assert_eq!(exported, dataset::file_text(&config, &samples, &dataset::plain_run_info(), FileFormat::Json));
    let names: Vec<String> = pool.read().unwrap().entries.iter().map(|e| e.name.clone()).collect();
    let json: Json = serde_json::from_str(&exported).unwrap();
    let targets: Vec<String> = json["samples"].as_array().unwrap().iter().filter_map(|s| s["task_name"].as_str().map(str::to_string)).collect();
    assert!(!targets.is_empty() && targets.iter().all(|n| names.contains(n)), "every target is the pack's: {targets:?}");
    // The same run in blocks (a split over workers) carries the pack to every block.
    let whole = rows(&start(JobRequest::Generate { dataset: "w".into(), form: form.clone(), graph: None, packs: vec![pool.clone()] }, &registry, &mut store));
    let range = start(JobRequest::GenerateRange { form: form.clone(), graph: None, first: 0, end: whole.len(), packs: vec![pool] }, &registry, &mut store);
    let made: Vec<Row> = range.iter().filter_map(|m| if let FromWorker::Made { samples, .. } = m { Some(samples.iter().map(|s| s.row.clone()).collect::<Vec<_>>()) } else { None }).flatten().collect();
    assert_eq!(made, whole);
    // Naming the pack's source without bringing it says so.
    let failure = Job::new(9, JobRequest::Generate { dataset: "x".into(), form, graph: None, packs: vec![] }, &registry, &mut store).err().map(|b| *b);
    assert!(matches!(failure, Some(FromWorker::Failed { ref message, .. }) if message.contains("names a pack that is not loaded")), "{failure:?}");
}

#[test]
fn a_helpers_block_is_made_in_one_slice_not_ramped_up_again_for_every_block() {
    let registry = builtin();
    let mut store = Store::default();
    let form = GenerateForm { samples_per_target: 4, ..GenerateForm::default() };
    let mut job = Job::new(1, JobRequest::GenerateRange { form, graph: None, first: 8, end: 8 + split::BLOCK, packs: vec![] }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(job.units(), split::BLOCK);
    let messages = job.step(&registry, &mut store);
    let made: usize = messages.iter().map(|m| if let FromWorker::Made { samples, .. } = m { samples.len() } else { 0 }).sum();
    assert_eq!(made, split::BLOCK, "the whole block in the first slice");
    assert!(matches!(messages.last(), Some(FromWorker::Done { .. })));
    // A long job still starts small and adapts.
    let generate = Job::new(2, JobRequest::Generate { dataset: "g".into(), form: GenerateForm::default(), graph: None, packs: vec![] }, &registry, &mut store).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(generate.units(), 4);
}


#[test]
fn a_generated_sample_is_stored_as_its_file_record_would_be() {
    // `stored_of` writes the record straight to compact text and reads the row from the sample, building no tree:
    // what it stores must equal, byte for byte, the record a download writes (its prompt taken out) and the row
    // read from that record.
    let registry = builtin();
    let paper = GenerateForm { topology: "paper".into(), family: "all".into(), samples_per_target: 1, seed: 5, ..GenerateForm::default() };
    let mut configs = configs_of(&paper, None, &registry).unwrap();
    let dag = include_str!("../../../tests/fixtures/reference/dag200_mixed.json");
    configs.push(config_of(&GenerateForm { family: "mixed".into(), ..GenerateForm::default() }, Some(dag), &registry).unwrap());
    let image = GenerateForm { family: "image".into(), ..GenerateForm::default() };
    configs.push(image.to_config().unwrap());
    let mut compared = 0;
    for (run, config) in configs.iter().enumerate() {
        let targets = engine_generate::targets(config, &registry).unwrap();
        for target in (0..targets.len()).step_by(targets.len().div_ceil(6)) {
            let sample = engine_generate::generate_sample(config, &registry, target, 0).unwrap();
            let file = dataset::to_json(config, std::slice::from_ref(&sample), &dataset::RunInfo::default());
            let record = file["samples"][0].clone();
            let row = crate::app::instance::row_of(9, &record, &dataset::mode(config), Some((run, sample.target_index)));
            let expected = Stored::new(row, record, Some(roles_of(&sample.prompt)));
            assert_eq!(stored_of(config, 9, run, &sample), expected, "{} target {target}", dataset::mode(config));
            compared += 1;
        }
    }
    assert!(compared > 60, "{compared}");
}

#[test]
fn a_helpers_samples_travel_as_bytes_and_come_back_whole() {
    let registry = builtin();
    let form = GenerateForm { topology: "paper".into(), family: "all".into(), samples_per_target: 1, seed: 2, ..GenerateForm::default() };
    let request = JobRequest::GenerateRange { form, graph: None, first: 40, end: 88, packs: vec![] };
    let mut helper = Job::new(5, request, &registry, &mut Store::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let made = run(&mut helper, &registry, &mut Store::default()).into_iter().find(|m| matches!(m, FromWorker::Made { .. })).expect("a block");
    let FromWorker::Made { id, first, samples } = &made else { unreachable!() };
    assert_eq!((*id, *first, samples.len()), (5, 40, 48));
    let bytes = made_to_bytes(*id, *first, samples);
    assert_eq!(made_from_bytes(&bytes), Ok(made.clone()));
    // Non-ASCII text, a missing roles list and an empty block survive too.
    let mut odd = samples[0].clone();
    odd.prompt = "Köln → 東京 \"quoted\"\n".into();
    odd.roles = None;
    assert_eq!(made_from_bytes(&made_to_bytes(1, 2, std::slice::from_ref(&odd))), Ok(FromWorker::Made { id: 1, first: 2, samples: vec![odd] }));
    assert_eq!(made_from_bytes(&made_to_bytes(3, 0, &[])), Ok(FromWorker::Made { id: 3, first: 0, samples: vec![] }));
    // Bytes cut anywhere, or not a block at all, are refused with a message, never read as fewer samples.
    for cut in [0, 3, 10, 23, bytes.len() / 2, bytes.len() - 1] {
        assert!(made_from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    assert_eq!(made_from_bytes(b"{\"made\": 1}"), Err("not a block of samples".to_string()));
}

#[test]
fn a_file_picked_on_results_is_read_in_the_worker() {
    // The page sends the file's bytes; an Inspect log comes back as a results file, other bytes as their text, and
    // what cannot be read fails with the file's name.
    let registry = builtin();
    let read = |name: &str, bytes: Vec<u8>| {
        let mut job = Job::new(3, JobRequest::ReadResults { name: name.into(), bytes }, &registry, &mut Store::default()).unwrap_or_else(|e| panic!("{e:?}"));
        run(&mut job, &registry, &mut Store::default())
    };
    let log = include_bytes!("../../../tests/fixtures/inspect/chain.log.eval").to_vec();
    let out = read("chain.log.eval", log.clone());
    let [FromWorker::File { id: 3, name, text }, FromWorker::Done { id: 3, .. }] = out.as_slice() else { panic!("{out:?}") };
    assert_eq!(name, "chain.log.eval");
    assert_eq!(text, &results_text("chain.log.eval", log).unwrap());
    let results: Json = serde_json::from_str(text).unwrap();
    assert_eq!(results["samples"].as_array().map(Vec::len), Some(2), "{text}");

    let out = read("plain.json", b"{\"samples\": []}".to_vec());
    assert!(matches!(out.as_slice(), [FromWorker::File { text, .. }, FromWorker::Done { .. }] if text == "{\"samples\": []}"), "{out:?}");
    let out = read("broken.json", vec![b'{', 0xff, b'}']);
    assert!(matches!(out.as_slice(), [FromWorker::Failed { message, .. }] if message.contains("broken.json") && message.contains("UTF-8")), "{out:?}");
}
