//! Image tasks end to end: the independent checker on many pictures (and on tampered ones), the rasterised PNG
//! has ink where the metadata says, PNG bytes are pinned, and pictures travel through every topology into
//! dataset JSON and JSONL.

use arbigraph_studio::engine::dataset::{self, ImageStorage, RunInfo};
use arbigraph_studio::engine::generate::{self, parse_structure, GenerateConfig, Sample, Topology};
use arbigraph_studio::engine::graph::{self, ValidGraph};
use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::image::verify::verify;
use arbigraph_studio::engine::tasks::image::{probe_png, ImageParams, Numbering, Picture, Traversal};
use arbigraph_studio::engine::tasks::registry::{builtin, builtin_with};
use arbigraph_studio::engine::tasks::Family;
use arbigraph_studio::engine::value::{Number, Value};

/// The fingerprint of `probe_png()`; the browser check compares against the same value.
pub const PNG_PROBE_FINGERPRINT: &str = "d4e4eb1566a8cf93";

fn picture(params: ImageParams, seed: u64, input: i64) -> Picture {
    Traversal::new(params).picture(Number::Int(input), &mut InstanceRng::from_seed(seed)).expect("a picture")
}

fn answer_of(picture: &Picture) -> Vec<i64> {
    picture.answer().into_iter().map(i64::from).collect()
}

#[test]
fn the_independent_checker_accepts_every_generated_picture() {
    let variants = [
        (ImageParams::default(), 240),
        (ImageParams { numbering: Numbering::Shuffled, ..ImageParams::default() }, 40),
        (ImageParams { num_paths: 4, nodes_per_path: 4, width: 800, height: 600, ..ImageParams::default() }, 40),
        (ImageParams { num_paths: 10, nodes_per_path: 8, crossing_partners: 3, ..ImageParams::default() }, 10),
    ];
    let mut checked = 0;
    for (params, count) in variants {
        for seed in 0..count {
            let input = seed as i64 * 37 - 100;
            let picture = picture(params, seed, input);
            let report = verify(&picture.metadata_json(), &answer_of(&picture)).unwrap_or_else(|problems| panic!("{params} seed {seed}: {problems:?}"));
            assert_eq!(report.start_node_index, (input.unsigned_abs() % u64::from(params.num_paths)) as usize);
            assert_eq!(report.answer.len(), params.nodes_per_path as usize);
            assert!(report.crossing_count >= params.num_paths as usize * params.crossing_partners as usize / 2);
            checked += 1;
        }
    }
    assert_eq!(checked, 330);
}

#[test]
fn the_checker_rejects_tampered_pictures() {
    let picture = picture(ImageParams::default(), 3, 5);
    let truth = answer_of(&picture);
    let metadata = picture.metadata_json();
    assert!(verify(&metadata, &truth).is_ok());

    let mut wrong_truth = truth.clone();
    wrong_truth.swap(0, 1);
    assert!(verify(&metadata, &wrong_truth).unwrap_err().iter().any(|p| p.contains("differs from the recomputed")));

    let mut wrong_selector = metadata.clone();
    wrong_selector["selector"]["input"] = serde_json::json!(6);
    assert!(verify(&wrong_selector, &truth).unwrap_err().iter().any(|p| p.contains("selector")));

    // Move a node of path 0 onto the first node of path 1: nodes collide and a path turns back.
    let mut collided = metadata.clone();
    let target = collided["paths"][1]["nodes"][0].clone();
    collided["paths"][0]["nodes"][2]["x"] = target["x"].clone();
    collided["paths"][0]["nodes"][2]["y"] = target["y"].clone();
    let problems = verify(&collided, &truth).unwrap_err();
    assert!(problems.iter().any(|p| p.contains("apart")), "{problems:?}");

    let mut bent = metadata.clone();
    let x0 = bent["paths"][2]["nodes"][0]["x"].as_i64().unwrap();
    bent["paths"][2]["nodes"][1]["x"] = serde_json::json!(x0 - 5);
    assert!(verify(&bent, &truth).unwrap_err().iter().any(|p| p.contains("changes direction")));

    assert!(verify(&serde_json::json!({"paths": []}), &truth).is_err());
}

#[test]
fn the_png_has_circle_ink_at_every_node_and_digit_strokes_in_every_label() {
    let picture = picture(ImageParams::default(), 5, 2);
    let bytes = picture.to_png().expect("renders");
    let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
    let mut reader = decoder.read_info().expect("a png");
    let mut gray = vec![0; reader.output_buffer_size().expect("fits")];
    let info = reader.next_frame(&mut gray).expect("one frame");
    assert_eq!((info.width, info.height, info.color_type), (2000, 1400, png::ColorType::Grayscale));
    let at = |x: i32, y: i32| gray[(y as usize) * 2000 + x as usize];
    assert_eq!(at(1, 1), 255, "the paper is white");
    for (path, numbers) in picture.layout.paths.iter().zip(&picture.numbers) {
        for (node, number) in path.iter().zip(numbers) {
            // The outline: dark on the circle of radius 17 in eight directions.
            for (dx, dy) in [(17, 0), (-17, 0), (0, 17), (0, -17), (12, 12), (-12, 12), (12, -12), (-12, -12)] {
                assert!(at(node.x + dx, node.y + dy) < 128, "node {number}: no outline at offset ({dx}, {dy})");
            }
            // The label box: some ink (digit strokes) and some paper between them.
            let mut dark = 0;
            let mut light = 0;
            for y in node.y - 7..=node.y + 7 {
                for x in node.x - 10..=node.x + 10 {
                    if at(x, y) < 100 {
                        dark += 1;
                    } else if at(x, y) > 200 {
                        light += 1;
                    }
                }
            }
            assert!(dark >= 20 && light >= 60, "node {number}: label box has {dark} dark and {light} light pixels");
            // Between the label and the outline, the disc is paper (the edges run underneath).
            assert!(at(node.x, node.y - 13) > 200 || at(node.x, node.y + 13) > 200, "node {number}: the disc is not filled");
        }
    }
}

#[test]
fn png_bytes_are_deterministic_and_pinned() {
    let a = probe_png().expect("the probe renders");
    let b = probe_png().expect("the probe renders");
    assert_eq!(a, b);
    assert!(a.starts_with(&[0x89, b'P', b'N', b'G']));
    let other = picture(ImageParams::default(), 12, 3).to_png().unwrap();
    assert_ne!(a, other, "another seed, another picture");
    assert_eq!(format!("{:016x}", dataset::fingerprint_bytes(&a)), PNG_PROBE_FINGERPRINT, "update the browser check too if drawing changed on purpose");
}

#[test]
fn svg_draws_every_edge_node_and_label() {
    let picture = picture(ImageParams::default(), 2, 0);
    let svg = picture.to_svg();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"2000\" height=\"1400\""));
    assert_eq!(svg.matches("<circle ").count(), 48);
    // 8 paths, then at least one stroke per digit of every number 1..=48.
    let digits: usize = (1..=48).map(|n: u32| n.to_string().len()).sum();
    assert!(svg.matches("<path ").count() >= 8 + digits);
}

fn config(topology: Topology, families: &[Family]) -> GenerateConfig {
    let mut config = GenerateConfig::new(topology, families.to_vec());
    config.samples_per_target = 2;
    config.seed = 4;
    config
}

fn image_stage_count(samples: &[Sample]) -> usize {
    samples.iter().flat_map(|s| &s.stages).filter(|s| s.info.family == Family::Image).count()
}

/// Every picture of every sample passes the checker against its stage's ground truth, and the prompt names it.
fn check_samples(samples: &[Sample]) {
    for sample in samples {
        let pictures = sample.pictures();
        for (i, (number, picture)) in pictures.iter().enumerate() {
            let stage = sample.stages.iter().find(|s| s.number == *number).expect("the picture's stage");
            let Value::List(truth) = &stage.ground_truth else { panic!("image stages output lists") };
            let truth: Vec<i64> = truth.iter().map(|x| x.as_f64() as i64).collect();
            verify(&picture.metadata_json(), &truth).unwrap_or_else(|p| panic!("{}: {p:?}", stage.info.key));
            assert_eq!(picture.input, match &stage.input_value {
                Value::Scalar(x) => *x,
                Value::List(_) => panic!("image stages take scalars"),
            });
            assert!(sample.prompt.text().contains(&format!("Image {} is the image for Task {number}", i + 1)));
            assert!(sample.prompt.text().contains(&format!("The image for Task {number} shows")));
        }
    }
}

#[test]
fn image_tasks_join_baseline_forgetting_chain_multichain_and_custom_graphs() {
    let registry = builtin();
    let baseline = generate::generate(&config(Topology::Baseline, &[Family::Image]), &registry, &mut |_, _| {}).unwrap();
    assert_eq!(baseline.len(), 2);
    assert_eq!(image_stage_count(&baseline), 2);
    check_samples(&baseline);

    let mut forgetting = config(Topology::Forgetting { distractors: 3 }, &[Family::Math, Family::Image]);
    forgetting.only_targets = vec!["image.traversal".into()];
    let samples = generate::generate(&forgetting, &registry, &mut |_, _| {}).unwrap();
    assert!(samples.iter().all(|s| s.stages.len() == 4 && s.stages[3].info.family == Family::Image));
    check_samples(&samples);

    let mut chain = config(Topology::Chain { length: 4 }, &[Family::Math, Family::Image]);
    chain.only_targets = vec!["image.traversal".into(), "math.PolyResultantFixedTask".into()];
    let samples = generate::generate(&chain, &registry, &mut |_, _| {}).unwrap();
    assert!(samples.iter().any(|s| s.target.family == Family::Image));
    for sample in &samples {
        for pair in sample.stages.windows(2) {
            assert_eq!(pair[1].input_value, pair[0].ground_truth, "chain wiring");
        }
    }
    check_samples(&samples);

    let structure = parse_structure("m,i,[m,m],[m,m],m,m").unwrap();
    let mut multichain = config(Topology::Multichain(structure), &[Family::Math]);
    multichain.samples_per_target = 1;
    multichain.only_targets = vec!["math.DivisorSumTask".into(), "math.PrimeOmegaSumTask".into()];
    let samples = generate::generate(&multichain, &registry, &mut |_, _| {}).unwrap();
    assert!(samples.iter().all(|s| s.stages[1].info.family == Family::Image && s.pictures().len() == 1));
    check_samples(&samples);

    let json = serde_json::json!({"directed": true, "multigraph": false, "graph": {"target_node": "sum"},
        "nodes": [
            {"id": "start", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
            {"id": "picture", "kind": "task", "family": "image", "input_kind": "scalar", "output_kind": "list"},
            {"id": "sum", "kind": "task", "family": "math", "task_id": 12}],
        "edges": [{"source": "start", "destination": "picture"}, {"source": "picture", "destination": "sum"}]});
    let valid = ValidGraph::new(graph::from_json(&json).unwrap(), &registry).expect("image nodes are valid");
    let samples = generate::generate(&config(Topology::Custom(Box::new(valid)), &[Family::Math]), &registry, &mut |_, _| {}).unwrap();
    assert!(samples.iter().all(|s| s.stages[1].node_id.as_deref() == Some("picture") && s.stages[1].picture.is_some()));
    check_samples(&samples);
}

#[test]
fn mixed_runs_stay_text_only() {
    let registry = builtin();
    let samples = generate::generate(&config(Topology::Chain { length: 4 }, &Family::ALL), &registry, &mut |_, _| {}).unwrap();
    assert!(!samples.is_empty());
    assert_eq!(image_stage_count(&samples), 0);
    assert!(!Family::ALL.contains(&Family::Image) && Family::EVERY.contains(&Family::Image));
}

#[test]
fn datasets_carry_each_picture_once_inline_or_as_a_named_file() {
    let registry = builtin();
    let config = config(Topology::Baseline, &[Family::Image]);
    let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
    let json = dataset::to_json(&config, &samples, &RunInfo::default());
    let image = &json["samples"][0]["images"][0];
    assert_eq!(json["samples"][0]["images"].as_array().map(Vec::len), Some(1));
    assert_eq!((image["image_index"].as_u64(), image["task_number"].as_u64()), (Some(1), Some(1)));
    let url = image["data_url"].as_str().expect("inline by default");
    let png = samples[0].pictures()[0].1.to_png().unwrap();
    assert_eq!(url, dataset::data_url(&png));
    assert!(url.starts_with("data:image/png;base64,iVBORw0KGgo"));
    assert_eq!(image["ground_truth"], samples[0].ground_truth.to_json());
    assert!(verify(&image["metadata"], &serde_json::from_value::<Vec<i64>>(image["ground_truth"].clone()).unwrap()).is_ok());
    assert_eq!(json["summary"]["image_params"]["num_paths"], 8);
    let report = dataset::inspect(&json);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let mut tampered = json.clone();
    tampered["samples"][0]["images"][0]["ground_truth"] = serde_json::json!([1, 2, 3]);
    let report = dataset::inspect(&tampered);
    assert!(report.problems.iter().any(|p| p.starts_with("samples[0].images[0]: ground truth")), "{:?}", report.problems);

    let files = RunInfo { images: ImageStorage::Files { dir: "images".into() }, ..RunInfo::default() };
    let json = dataset::to_json(&config, &samples, &files);
    assert_eq!(json["samples"][1]["images"][0]["file"], "images/baseline-image.traversal-1-task1.png");
    assert!(json["samples"][1]["images"][0].get("data_url").is_none());
    let written = dataset::image_files(&config, &samples).unwrap();
    assert_eq!(written.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["baseline-image.traversal-0-task1.png", "baseline-image.traversal-1-task1.png"]);
    assert_eq!(written[0].1, png);
}

#[test]
fn jsonl_uses_content_parts_for_pictures_and_plain_text_otherwise() {
    let registry = builtin();
    let config = config(Topology::Baseline, &[Family::Image]);
    let samples = generate::generate(&config, &registry, &mut |_, _| {}).unwrap();
    let text = dataset::to_jsonl(&config, &samples);
    let line: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let parts = line["prompt"].as_array().expect("content parts");
    assert_eq!(parts[0]["type"], "text");
    assert_eq!(parts[0]["text"].as_str(), Some(samples[0].prompt.text()));
    assert_eq!(parts[1]["text"], "Image 1 (Task 1):");
    assert_eq!(parts[2]["type"], "image_url");
    assert!(parts[2]["image_url"]["url"].as_str().unwrap().starts_with("data:image/png;base64,"));
    assert_eq!(line["metadata"]["images"][0]["task_number"], 1);
    assert!(line["metadata"]["images"][0].get("data_url").is_none(), "the picture is sent once, in the prompt");

    let files = dataset::to_jsonl_with(&config, &samples, &ImageStorage::Files { dir: String::new() });
    let line: serde_json::Value = serde_json::from_str(files.lines().next().unwrap()).unwrap();
    assert_eq!(line["prompt"][2]["image_url"]["url"], "baseline-image.traversal-0-task1.png");

    let math = GenerateConfig { samples_per_target: 1, ..GenerateConfig::new(Topology::Baseline, vec![Family::Math]) };
    let samples = generate::generate(&math, &registry, &mut |_, _| {}).unwrap();
    let line: serde_json::Value = serde_json::from_str(dataset::to_jsonl(&math, &samples).lines().next().unwrap()).unwrap();
    assert!(line["prompt"].is_string() && line["metadata"].get("images").is_none());
}

#[test]
fn custom_parameters_reach_the_pictures() {
    let params = ImageParams { num_paths: 5, nodes_per_path: 4, width: 1000, height: 800, numbering: Numbering::Shuffled, ..ImageParams::default() };
    assert_eq!(params.check(), Ok(()));
    let registry = builtin_with(params);
    let samples = generate::generate(&config(Topology::Baseline, &[Family::Image]), &registry, &mut |_, _| {}).unwrap();
    for sample in &samples {
        let (_, picture) = sample.pictures()[0];
        assert_eq!(picture.params, params);
        assert_eq!(picture.layout.paths.len(), 5);
        assert!(sample.prompt.text().contains("shows 5 paths") && sample.prompt.text().contains("chain of 4 circles"));
    }
    check_samples(&samples);
}
