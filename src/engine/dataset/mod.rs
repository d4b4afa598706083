//! Dataset files in the reference's JSON layout (`summary` + `samples`, the reference's field names), our JSONL
//! export, the reference's pretty-printing, and inspection of any dataset or results file. `file` is the one
//! place a file's text is made whole (the browser's), `json` and `jsonl` write the same bytes as a stream (the
//! CLI's), `site` the index and shards of a static site, and `instance_graph` the task graph behind any sample
//! record (ours or the reference's), for drawing.
//!
//! The reference layout's members are described once (`summary_members`, `sample_members`) and handed to a
//! sink (`members`): a serde_json tree for `to_json`, or the pretty text written as it goes for `write_json`.
//!
//! Our additions are additive: `schema_version`, `generator`, `topology`, `family` and `task_key` fields, and
//! per-stage ground truths where the reference has none (forgetting). Reference files load unchanged.

mod file;
mod inspect;
pub mod instance_graph;
mod json;
mod jsonl;
mod members;
mod pretty;
mod read;
pub mod record;
pub mod shape;
pub mod site;
mod slots;

pub use file::{file_name, file_text, plain_run_info, FileFormat, GENERATOR};
pub use inspect::{inspect, FileKind, Inspection};
pub use instance_graph::{instance_graph, InstanceGraph};
pub use json::{write_json, write_json_samples};
pub use jsonl::{to_jsonl, to_jsonl_with, write_jsonl};
pub use pretty::to_pretty_string;
pub use read::{read_dataset, DatasetText, ReadError};
pub use record::SampleRecord;
pub use slots::SlotFile;

use serde_json::{json, Map, Value as Json};

use members::{Compact, Members, Take, Tree};

use crate::engine::generate::{BranchBlock, GenerateConfig, GenerateError, Sample, SampleShape, SampleView, Stage, Topology};
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
    // A tree takes every member, and a held sample gives every record.
    let summary = Tree::of(|tree| summary_members(config, run, &SummaryFacts::of_samples(samples), tree)).expect("a summary is built into a tree without fail");
    let samples: Vec<Json> = samples.iter().map(|s| sample_to_json(config, s, &run.images)).collect();
    json!({ "summary": summary, "samples": samples })
}

/// One sample's record, as `to_json` lists it under `samples`, without the summary of a whole file around it.
fn sample_to_json(config: &GenerateConfig, sample: &Sample, images: &ImageStorage) -> Json {
    Tree::of(|tree| sample_members(config, sample, images, tree)).expect("a held sample is built into a tree without fail")
}

/// One sample's record as compact JSON text without its prompt, and the prompt: what `sample_to_json` gives,
/// serialized with its prompt taken out, but written straight to text without building the tree (the browser
/// stores every sample it generates this way).
pub fn sample_record_text(config: &GenerateConfig, sample: &Sample, images: &ImageStorage) -> (String, String) {
    let mut compact = Compact::without("prompt");
    sample_members(config, sample, images, &mut compact).expect("a held sample is written to text without fail");
    compact.finish()
}

/// What the summary says about the samples: read from them when they are held (`of_samples`), known from the
/// run's targets when they are streamed (generation makes every sample or fails).
struct SummaryFacts {
    num_targets: usize,
    num_samples: usize,
    /// The first sample's target family (`""` without samples).
    target_family: &'static str,
    /// The parameters of the run's first picture.
    image_params: Option<Json>,
}

impl SummaryFacts {
    fn of_samples(samples: &[Sample]) -> SummaryFacts {
        SummaryFacts {
            num_targets: samples.iter().map(|s| s.target_index).max().map(|m| m + 1).unwrap_or(0),
            num_samples: samples.len(),
            target_family: samples.first().map(|s| s.target.family.as_str()).unwrap_or(""),
            image_params: samples.iter().find_map(|s| s.pictures().into_iter().next()).map(|(_, picture)| picture.params.to_json()),
        }
    }
}

/// The members of `summary`, in file order.
fn summary_members(config: &GenerateConfig, run: &RunInfo, facts: &SummaryFacts, members: &mut dyn Members) -> Result<(), GenerateError> {
    let family_names = || json!(config.families.iter().map(|f| f.as_str()).collect::<Vec<_>>());
    members.value("creation_time", run.creation_time.clone().map(Json::String).unwrap_or(Json::Null))?;
    members.value("mode", json!(mode(config)))?;
    members.value("num_tasks", json!(facts.num_targets))?;
    members.value("num_samples_per_task", json!(config.samples_per_target))?;
    members.value("num_samples", json!(facts.num_samples))?;
    members.value("seed", json!(config.seed))?;
    members.value("list_len_max", json!(crate::engine::adapter::LIST_LEN_MAX))?;
    members.value("scalar_max_mag", json!(crate::engine::adapter::SCALAR_MAX_MAG))?;
    members.value("target_position", json!("last"))?;
    match &config.topology {
        Topology::Forgetting { distractors } => {
            members.value("num_distractors", json!(distractors))?;
            members.value("target_task_number", json!(distractors + 1))?;
        }
        Topology::Chain { length } => {
            members.value("num_distractors", json!(length.saturating_sub(1)))?;
            members.value("task_types", family_names())?;
        }
        Topology::Multichain(structure) => {
            members.value("structure", structure.to_json())?;
            members.value("target_family", json!(structure.last_family().as_str()))?;
            members.value("num_tasks_total", json!(facts.num_targets))?;
            members.value("branch_lane", json!("scalar"))?;
        }
        Topology::Custom(graph) => {
            let g = graph.graph();
            members.value("target_node", json!(g.nodes()[graph.target()].id.0))?;
            members.value("target_family", json!(facts.target_family))?;
            members.value("num_target_tasks", json!(facts.num_targets))?;
            members.value("num_target_tasks_total", json!(facts.num_targets))?;
            members.strings("topological_order", &mut |each| graph.order().iter().try_for_each(|&i| each(&g.nodes()[i].id.0)))?;
            members.value("graph_path", run.graph_path.clone().map(Json::String).unwrap_or(Json::Null))?;
        }
        Topology::Baseline => {}
    }
    members.value("schema_version", json!(SCHEMA_VERSION))?;
    members.value("generator", json!(run.generator))?;
    members.value("topology", json!(config.topology.name()))?;
    members.value("families", family_names())?;
    if let Some(params) = &facts.image_params {
        members.value("image_params", params.clone())?;
    }
    Ok(())
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

/// Every stage's record, one list item each.
fn stage_items<'s>(stages: impl IntoIterator<Item = &'s Stage>, push: &mut Take<'_, Json>) -> Result<(), GenerateError> {
    stages.into_iter().try_for_each(|s| push(Json::Object(stage_json(s))))
}

/// The members of one sample, in file order. A sample held whole (`SampleView::held`) gives its records from
/// memory; a compiled custom-graph sample makes its prompt and its stage records again as they are written.
fn sample_members(config: &GenerateConfig, view: &dyn SampleView, images: &ImageStorage, members: &mut dyn Members) -> Result<(), GenerateError> {
    let target = view.target();
    let held = view.held();
    if matches!(config.topology, Topology::Baseline) {
        members.value("difficulty", json!("list_max_10_scalar_max_100"))?;
    }
    members.value("task_id", json!(target.task_id))?;
    members.value("task_name", json!(target.name))?;
    members.value("target_family", json!(target.family.as_str()))?;
    members.value("task_key", json!(target.key))?;
    members.value("sample_idx", json!(view.sample_idx()))?;
    members.value("chain_input", view.chain_input()?.to_json())?;
    if let Some(sample) = held {
        if matches!(sample.shape, SampleShape::Baseline | SampleShape::Forgetting) && sample.target.family == Family::Python {
            members.value("extra_inputs", statics_json(sample.stages.last().expect("every sample has a stage")))?;
        }
    }
    let target_node = view.target_node();
    if let Some(target_node) = target_node {
        members.value("target_node", json!(target_node))?;
        members.value("target_output_name", json!(view.target_output_name()))?;
        members.list("static_inputs", &mut |push| view.for_each_root(&mut |r| push(json!({"node_id": r.node_id, "input_name": r.input_name, "value": r.value.to_json()}))))?;
    }
    members.text("prompt", &mut |out| view.write_prompt(out))?;
    members.value("ground_truth", view.ground_truth().to_json())?;
    if target_node.is_some() {
        members.object("custom_dag", &mut |dag| custom_dag_members(view, dag))?;
    }
    if let Some(sample) = held {
        shape_members(sample, members)?;
        let images = images_json(config, sample, images);
        if !images.is_empty() {
            members.value("images", Json::Array(images))?;
        }
    }
    Ok(())
}

/// `custom_dag`: every stage with its node and input, then every adapter.
fn custom_dag_members(view: &dyn SampleView, members: &mut dyn Members) -> Result<(), GenerateError> {
    members.list("stages", &mut |push| {
        view.for_each_stage(&mut |s| {
            let mut d = stage_json(s);
            d.insert("node_id".into(), json!(s.node_id));
            d.insert("input_node_id".into(), json!(s.input_node_id));
            d.insert("input_value".into(), s.input_value.to_json());
            push(Json::Object(d))
        })
    })?;
    members.list("adapters", &mut |push| {
        view.for_each_adapter(&mut |a| {
            push(json!({
                "node_id": a.node_id, "op": a.op, "input_node_ids": a.input_node_ids,
                "input_names": a.input_names, "output_name": a.output_name, "ground_truth": a.value.to_json(),
            }))
        })
    })
}

/// The topology's own member of a held sample (`forgetting`, `chain`, `multi_chain`; custom graphs have
/// `custom_dag`, written from the view).
fn shape_members(sample: &Sample, members: &mut dyn Members) -> Result<(), GenerateError> {
    let n = sample.stages.len();
    let target_stage = sample.stages.last().expect("every sample has a stage");
    match &sample.shape {
        SampleShape::Baseline | SampleShape::Custom { .. } => Ok(()),
        SampleShape::Forgetting => members.object("forgetting", &mut |forgetting| {
            forgetting.value("target_task_number", json!(n))?;
            forgetting.value("num_distractors", json!(n - 1))?;
            forgetting.list("distractors", &mut |push| {
                sample.stages[..n - 1].iter().try_for_each(|s| {
                    let mut d = stage_json(s);
                    d.insert("chain_input".into(), s.input_value.to_json());
                    if s.info.family == Family::Python {
                        d.insert("extra_inputs".into(), statics_json(s));
                    }
                    push(Json::Object(d))
                })
            })?;
            forgetting.list("stages", &mut |push| stage_items(&sample.stages, push))
        }),
        SampleShape::Chain => members.object("chain", &mut |chain| {
            chain.value("num_distractors", json!(n - 1))?;
            chain.value("target_task_number", json!(n))?;
            chain.list("distractors", &mut |push| stage_items(&sample.stages[..n - 1], push))?;
            chain.value("target", Json::Object(stage_json(target_stage)))
        }),
        SampleShape::Multichain { blocks } => members.object("multi_chain", &mut |multi_chain| {
            multi_chain.value("target_task_number", json!(n))?;
            multi_chain.list("stages", &mut |push| stage_items(&sample.stages, push))?;
            multi_chain.list("branch_blocks", &mut |push| blocks.iter().enumerate().try_for_each(|(b, block)| push(block_json(sample, b, block))))
        }),
    }
}

/// One branch block of a multichain sample, with its branches and their stages.
fn block_json(sample: &Sample, b: usize, block: &BranchBlock) -> Json {
    let stage_by_number = |k: usize| sample.stages.iter().find(|s| s.number == k);
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
