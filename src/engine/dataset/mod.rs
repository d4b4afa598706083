//! Dataset files in the reference's JSON layout (`summary` + `samples`, field names of spec §9), our JSONL
//! export, the reference's pretty-printing, and inspection of any dataset or results file. `file` is the one
//! place a file's text is made (CLI and browser alike), `site` the index and shards of a static site, and
//! `instance_graph` the task graph behind any sample record (ours or the reference's), for drawing.
//!
//! Our additions are additive: `schema_version`, `generator`, `topology`, `family` and `task_key` fields, and
//! per-stage ground truths where the reference has none (forgetting). Reference files load unchanged.

mod file;
mod inspect;
mod instance_graph;
mod jsonl;
mod pretty;
mod read;
pub mod shape;
pub mod site;

pub use file::{file_name, file_text, plain_run_info, FileFormat, GENERATOR};
pub use inspect::{inspect, FileKind, Inspection};
pub use instance_graph::{instance_graph, InstanceGraph};
pub use jsonl::{to_jsonl, to_jsonl_with, write_jsonl};
pub use pretty::to_pretty_string;
pub use read::{read_dataset, DatasetText, ReadError};

use serde_json::{json, Map, Value as Json};

use crate::engine::generate::{GenerateConfig, Sample, SampleShape, Stage, Topology};
use crate::engine::tasks::image::draw::RenderError;
use crate::engine::tasks::image::picture::PNG_MIME;
use crate::engine::tasks::Family;

/// Version of our additive fields.
pub const SCHEMA_VERSION: u32 = 1;

/// Where a dataset keeps its pictures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ImageStorage {
    /// Inside the file, as `data:image/png;base64,…` URLs.
    #[default]
    Inline,
    /// In files beside the dataset, named by [`image_file_name`] under this directory (as the file should
    /// refer to it, e.g. `images`); the caller writes them from [`image_files`].
    Files { dir: String },
}

/// Run-level facts the engine cannot know (the caller's clock, the graph's path).
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    /// ISO timestamp; `None` keeps files byte-identical across runs (written as `null`).
    pub creation_time: Option<String>,
    /// Where a custom graph was read from.
    pub graph_path: Option<String>,
    /// The generator's name and version.
    pub generator: String,
    /// Where pictures of image tasks go.
    pub images: ImageStorage,
}

/// The reference's `mode` for a run.
pub fn mode(config: &GenerateConfig) -> String {
    let fam = family_label(&config.families);
    match &config.topology {
        Topology::Baseline => fam,
        Topology::Forgetting { .. } => format!("{fam}_forgetting"),
        Topology::Chain { .. } => format!("{fam}_chain"),
        Topology::Multichain(_) => "multi_chain".into(),
        Topology::Custom(_) => "custom_dag".into(),
    }
}

fn family_label(families: &[Family]) -> String {
    match families {
        [one] => one.as_str().to_string(),
        _ => "mixed".into(),
    }
}

/// The whole dataset as reference-layout JSON.
pub fn to_json(config: &GenerateConfig, samples: &[Sample], run: &RunInfo) -> Json {
    let num_targets = samples.iter().map(|s| s.target_index).max().map(|m| m + 1).unwrap_or(0);
    let mut summary = Map::new();
    summary.insert("creation_time".into(), run.creation_time.clone().map(Json::String).unwrap_or(Json::Null));
    summary.insert("mode".into(), json!(mode(config)));
    summary.insert("num_tasks".into(), json!(num_targets));
    summary.insert("num_samples_per_task".into(), json!(config.samples_per_target));
    summary.insert("num_samples".into(), json!(samples.len()));
    summary.insert("seed".into(), json!(config.seed));
    summary.insert("list_len_max".into(), json!(crate::engine::adapter::LIST_LEN_MAX));
    summary.insert("scalar_max_mag".into(), json!(crate::engine::adapter::SCALAR_MAX_MAG));
    summary.insert("target_position".into(), json!("last"));
    match &config.topology {
        Topology::Forgetting { distractors } => {
            summary.insert("num_distractors".into(), json!(distractors));
            summary.insert("target_task_number".into(), json!(distractors + 1));
        }
        Topology::Chain { length } => {
            summary.insert("num_distractors".into(), json!(length.saturating_sub(1)));
            summary.insert("task_types".into(), json!(config.families.iter().map(|f| f.as_str()).collect::<Vec<_>>()));
        }
        Topology::Multichain(structure) => {
            summary.insert("structure".into(), structure.to_json());
            summary.insert("target_family".into(), json!(structure.last_family().as_str()));
            summary.insert("num_tasks_total".into(), json!(num_targets));
            summary.insert("branch_lane".into(), json!("scalar"));
        }
        Topology::Custom(graph) => {
            let g = graph.graph();
            summary.insert("target_node".into(), json!(g.nodes()[graph.target()].id.0));
            summary.insert("target_family".into(), json!(samples.first().map(|s| s.target.family.as_str()).unwrap_or("")));
            summary.insert("num_target_tasks".into(), json!(num_targets));
            summary.insert("num_target_tasks_total".into(), json!(num_targets));
            summary.insert("topological_order".into(), json!(graph.order().iter().map(|&i| g.nodes()[i].id.0.clone()).collect::<Vec<_>>()));
            summary.insert("graph_path".into(), run.graph_path.clone().map(Json::String).unwrap_or(Json::Null));
        }
        Topology::Baseline => {}
    }
    summary.insert("schema_version".into(), json!(SCHEMA_VERSION));
    summary.insert("generator".into(), json!(run.generator));
    summary.insert("topology".into(), json!(config.topology.name()));
    summary.insert("families".into(), json!(config.families.iter().map(|f| f.as_str()).collect::<Vec<_>>()));
    if let Some((_, picture)) = samples.iter().find_map(|s| s.pictures().into_iter().next()) {
        summary.insert("image_params".into(), picture.params.to_json());
    }
    let samples: Vec<Json> = samples
        .iter()
        .map(|s| {
            let mut obj = sample_json(config, s);
            if let Json::Object(map) = &mut obj {
                let images = images_json(config, s, &run.images);
                if !images.is_empty() {
                    map.insert("images".into(), Json::Array(images));
                }
            }
            obj
        })
        .collect();
    json!({ "summary": Json::Object(summary), "samples": samples })
}

fn stage_json(stage: &Stage) -> Map<String, Json> {
    let mut obj = Map::new();
    obj.insert("task_number".into(), json!(stage.number));
    obj.insert("family".into(), json!(stage.info.family.as_str()));
    obj.insert("task_id".into(), json!(stage.info.task_id));
    obj.insert("task_name".into(), json!(stage.info.name));
    if let Some(t) = stage.template_index {
        obj.insert("template_index".into(), json!(t));
    }
    obj.insert("input_name".into(), json!(stage.input_name));
    obj.insert("input_kind".into(), json!(stage.input_value.kind().as_str()));
    obj.insert("output_kind".into(), json!(stage.ground_truth.kind().as_str()));
    obj.insert("ground_truth".into(), stage.ground_truth.to_json());
    obj
}

fn statics_json(stage: &Stage) -> Json {
    Json::Object(stage.statics.iter().map(|s| (s.param.clone(), s.value.to_json())).collect())
}

fn sample_json(config: &GenerateConfig, sample: &Sample) -> Json {
    let target_stage = sample.stages.last().expect("every sample has a stage");
    let mut obj = Map::new();
    if matches!(config.topology, Topology::Baseline) {
        obj.insert("difficulty".into(), json!("list_max_10_scalar_max_100"));
    }
    obj.insert("task_id".into(), json!(sample.target.task_id));
    obj.insert("task_name".into(), json!(sample.target.name));
    obj.insert("target_family".into(), json!(sample.target.family.as_str()));
    obj.insert("task_key".into(), json!(sample.target.key));
    obj.insert("sample_idx".into(), json!(sample.sample_idx));
    obj.insert("chain_input".into(), sample.chain_input.to_json());
    match &sample.shape {
        SampleShape::Baseline | SampleShape::Forgetting if sample.target.family == Family::Python => {
            obj.insert("extra_inputs".into(), statics_json(target_stage));
        }
        _ => {}
    }
    if let SampleShape::Custom { target_node, roots, .. } = &sample.shape {
        obj.insert("target_node".into(), json!(target_node));
        obj.insert("target_output_name".into(), json!(sample.target_output_name));
        obj.insert(
            "static_inputs".into(),
            Json::Array(roots.iter().map(|r| json!({"node_id": r.node_id, "input_name": r.input_name, "value": r.value.to_json()})).collect()),
        );
    }
    obj.insert("prompt".into(), json!(sample.prompt.text()));
    obj.insert("ground_truth".into(), sample.ground_truth.to_json());
    let n = sample.stages.len();
    match &sample.shape {
        SampleShape::Baseline => {}
        SampleShape::Forgetting => {
            let distractors: Vec<Json> = sample.stages[..n - 1]
                .iter()
                .map(|s| {
                    let mut d = stage_json(s);
                    d.insert("chain_input".into(), s.input_value.to_json());
                    if s.info.family == Family::Python {
                        d.insert("extra_inputs".into(), statics_json(s));
                    }
                    Json::Object(d)
                })
                .collect();
            obj.insert(
                "forgetting".into(),
                json!({
                    "target_task_number": n,
                    "num_distractors": n - 1,
                    "distractors": distractors,
                    "stages": sample.stages.iter().map(|s| Json::Object(stage_json(s))).collect::<Vec<_>>(),
                }),
            );
        }
        SampleShape::Chain => {
            obj.insert(
                "chain".into(),
                json!({
                    "num_distractors": n - 1,
                    "target_task_number": n,
                    "distractors": sample.stages[..n - 1].iter().map(|s| Json::Object(stage_json(s))).collect::<Vec<_>>(),
                    "target": Json::Object(stage_json(target_stage)),
                }),
            );
        }
        SampleShape::Multichain { blocks } => {
            let stage_by_number = |k: usize| sample.stages.iter().find(|s| s.number == k);
            let blocks: Vec<Json> = blocks
                .iter()
                .enumerate()
                .map(|(b, block)| {
                    let branches: Vec<Json> = block
                        .branches
                        .iter()
                        .enumerate()
                        .map(|(i, branch)| {
                            let last = branch.stages.last().and_then(|&k| stage_by_number(k));
                            json!({
                                "branch_index": i,
                                "input_name": branch.input_name,
                                "input_value": branch.input_value.to_json(),
                                "final_output_name": last.map(|s| s.output_name()),
                                "final_output": last.map(|s| s.ground_truth.to_json()),
                                "stages": branch.stages.iter().filter_map(|&k| stage_by_number(k)).map(|s| Json::Object(stage_json(s))).collect::<Vec<_>>(),
                            })
                        })
                        .collect();
                    json!({
                        "block_index": b,
                        "expansion_task_number": block.expansion_task_number,
                        "expansion_output_name": format!("task_{}_out", block.expansion_task_number),
                        "branch_inputs": block.branches.iter().map(|br| br.input_name.clone()).collect::<Vec<_>>(),
                        "next_input_name": block.next_input_name,
                        "next_input_prelim_value": block.prelim.iter().map(|x| x.to_json()).collect::<Vec<_>>(),
                        "next_input_value": block.recombined.iter().map(|x| x.to_json()).collect::<Vec<_>>(),
                        "branches": branches,
                    })
                })
                .collect();
            obj.insert(
                "multi_chain".into(),
                json!({
                    "target_task_number": n,
                    "stages": sample.stages.iter().map(|s| Json::Object(stage_json(s))).collect::<Vec<_>>(),
                    "branch_blocks": blocks,
                }),
            );
        }
        SampleShape::Custom { adapters, .. } => {
            let stages: Vec<Json> = sample
                .stages
                .iter()
                .map(|s| {
                    let mut d = stage_json(s);
                    d.insert("node_id".into(), json!(s.node_id));
                    d.insert("input_node_id".into(), json!(s.input_node_id));
                    d.insert("input_value".into(), s.input_value.to_json());
                    Json::Object(d)
                })
                .collect();
            let adapters: Vec<Json> = adapters
                .iter()
                .map(|a| {
                    json!({
                        "node_id": a.node_id, "op": a.op, "input_node_ids": a.input_node_ids,
                        "input_names": a.input_names, "output_name": a.output_name, "ground_truth": a.value.to_json(),
                    })
                })
                .collect();
            obj.insert("custom_dag".into(), json!({ "stages": stages, "adapters": adapters }));
        }
    }
    Json::Object(obj)
}

/// The `images` entries of a sample (none without pictures): attachment index, task number, the PNG (a data
/// URL or a file name), the stage's ground truth and the picture's metadata, so the truth can be re-checked.
pub(crate) fn images_json(config: &GenerateConfig, sample: &Sample, storage: &ImageStorage) -> Vec<Json> {
    sample
        .pictures()
        .into_iter()
        .enumerate()
        .map(|(i, (number, picture))| {
            let mut obj = Map::new();
            obj.insert("image_index".into(), json!(i + 1));
            obj.insert("task_number".into(), json!(number));
            obj.insert("mime_type".into(), json!(PNG_MIME));
            match storage {
                ImageStorage::Inline => match picture.to_png() {
                    Ok(png) => obj.insert("data_url".into(), json!(data_url(&png))),
                    // Unreachable for checked parameters (the canvas is at most 4000x4000); recorded, not hidden.
                    Err(e) => obj.insert("render_error".into(), json!(e.to_string())),
                },
                ImageStorage::Files { dir } => {
                    let name = image_file_name(config, sample, number);
                    let path = if dir.is_empty() { name } else { format!("{}/{name}", dir.trim_end_matches('/')) };
                    obj.insert("file".into(), json!(path))
                }
            };
            obj.insert("ground_truth".into(), json!(picture.answer()));
            obj.insert("metadata".into(), picture.metadata_json());
            Json::Object(obj)
        })
        .collect()
}

/// `data:image/png;base64,…` for PNG bytes.
pub fn data_url(png: &[u8]) -> String {
    use base64::Engine as _;
    format!("data:{PNG_MIME};base64,{}", base64::engine::general_purpose::STANDARD.encode(png))
}

/// The file name of a sample's picture: `<topology>-<task key>-<sample index>-task<N>.png`, safe on every file system.
pub fn image_file_name(config: &GenerateConfig, sample: &Sample, number: usize) -> String {
    let key: String = sample.target.key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '_' { c } else { '_' }).collect();
    format!("{}-{key}-{}-task{number}.png", config.topology.name(), sample.sample_idx)
}

/// Every picture of a run as (file name, PNG bytes), for [`ImageStorage::Files`].
pub fn image_files(config: &GenerateConfig, samples: &[Sample]) -> Result<Vec<(String, Vec<u8>)>, RenderError> {
    let mut out = Vec::new();
    for sample in samples {
        for (number, picture) in sample.pictures() {
            out.push((image_file_name(config, sample, number), picture.to_png()?));
        }
    }
    Ok(out)
}

/// A stable id: `<topology>/<task key>/<sample index>`.
pub fn sample_id(config: &GenerateConfig, sample: &Sample) -> String {
    format!("{}/{}/{}", config.topology.name(), sample.target.key, sample.sample_idx)
}

/// FNV-1a 64-bit digest of a text: a compact fingerprint for comparing files across platforms in tests.
pub fn fingerprint(text: &str) -> u64 {
    fingerprint_bytes(text.as_bytes())
}

/// FNV-1a 64-bit digest of bytes (a PNG, for instance).
pub fn fingerprint_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |acc, &b| (acc ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The reference dataset used to check that native and wasm builds generate byte-identical files: a math chain
/// and a Python baseline, seed 11, one sample per target, rendered as the pretty file text.
pub fn cross_platform_probe(registry: &crate::engine::tasks::registry::Registry) -> String {
    use crate::engine::generate::generate;
    let mut out = String::new();
    for (topology, family) in [(Topology::Chain { length: 4 }, Family::Math), (Topology::Baseline, Family::Python), (Topology::Baseline, Family::Gsm)] {
        let mut config = GenerateConfig::new(topology, vec![family]);
        config.samples_per_target = 1;
        config.seed = 11;
        match generate(&config, registry, &mut |_, _| {}) {
            Ok(samples) => out.push_str(&to_pretty_string(&to_json(&config, &samples, &RunInfo::default()))),
            Err(e) => out.push_str(&e.to_string()),
        }
    }
    out
}
