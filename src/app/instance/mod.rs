//! One sample as the browser shows it, read from its record (reference layout, ours, or a JSONL line): the
//! list's `Row`, and the instance view's `Detail` (prompt with roles, every stage's ground truth, the final
//! answer, seed and index, the drawing of its graph, and the pictures of its image tasks with the correct path).

pub mod drawing;
pub mod roles;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::app::browse::catalog::{Row, ROW_ANSWER_CHARS};
use crate::engine::render::shorten;
use drawing::Drawing;
use crate::engine::dataset::shape::family_in;
use crate::engine::dataset::SampleRecord;
use crate::engine::dataset::record::Topology;
use crate::engine::generate::{Sample, SampleShape};
use crate::engine::value::Value;

/// One stage's ground truth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageTruth {
    /// The output name (`task_3_out`).
    pub name: String,
    /// The stage's task (`ConvolutionTask`), empty when the record does not say.
    pub task: String,
    /// The truth as Python prints it.
    pub truth: String,
}

/// Everything the instance view shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Detail {
    /// The dataset's key in the store.
    pub dataset: String,
    pub row: Row,
    /// The exact prompt text.
    pub prompt: String,
    /// The prompt's roles, run-length encoded (role name, characters).
    pub roles: Vec<(String, u32)>,
    /// True when the roles are the generator's own, false when recognised from the text.
    pub roles_exact: bool,
    pub stages: Vec<StageTruth>,
    /// The graded output's name and ground truth.
    pub answer_name: String,
    pub answer: String,
    /// The run's seed, when the file says.
    pub seed: Option<u64>,
    pub drawing: Drawing,
    /// The graph as text: each node with its inputs, task name and ground truth.
    #[serde(default)]
    pub outline: Vec<crate::app::design::outline::OutlineItem>,
    /// The pictures of the sample's image tasks, in attachment order.
    pub pictures: Vec<PictureView>,
}

/// One picture of an image task, with what the overlay draws over it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PictureView {
    /// `Image K` of the prompt.
    pub image_index: u64,
    /// The task the picture belongs to.
    pub task_number: u64,
    /// Where the picture is: an inline `data:` URL the page can show, or the file the dataset names beside it
    /// (which a page that opened only the dataset cannot read).
    pub source: PictureSource,
    /// The picture's size in pixels: the overlay's coordinate system.
    pub width: f64,
    pub height: f64,
    /// The correct path's node centres, left to right (empty when the metadata does not say).
    pub path: Vec<(f64, f64)>,
    /// The task's ground truth as Python prints it.
    pub truth: String,
}

/// Where a picture's pixels are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PictureSource {
    /// A `data:image/png;base64,…` URL.
    Inline(String),
    /// A file beside the dataset.
    File(String),
    /// Neither (for example a JSONL line whose pictures travel in its prompt parts).
    Missing,
}

/// One stretch of the prompt drawn as its own block: whole lines, so the stretches stack into the prompt's own
/// layout, and big enough that a 3,000-piece prompt makes a few dozen of them.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptChunk {
    /// `(role, text)` pieces, in order.
    pub pieces: Vec<(String, String)>,
    /// Lines in the stretch (a first guess at its height before it is laid out).
    pub lines: usize,
}

/// Lines after which a stretch ends at the next piece that ends a line.
const CHUNK_LINES: usize = 40;

/// `text` cut into `(role, piece)` by the roles' character counts (text past the last role is instruction),
/// then grouped into stretches of about `CHUNK_LINES` lines that end where a piece ends a line. The pieces'
/// text, in order, is `text` character for character.
pub fn prompt_chunks(text: &str, roles: &[(String, u32)]) -> Vec<PromptChunk> {
    let mut chars = text.chars();
    let mut pieces: Vec<(String, String)> = roles.iter().map(|(role, n)| (role.clone(), chars.by_ref().take(*n as usize).collect())).collect();
    let rest: String = chars.collect();
    if !rest.is_empty() {
        pieces.push(("instruction".into(), rest));
    }
    let mut chunks = Vec::new();
    let mut current = PromptChunk { pieces: Vec::new(), lines: 0 };
    for (role, piece) in pieces {
        if piece.is_empty() {
            continue;
        }
        let ends_line = piece.ends_with('\n');
        current.lines += piece.matches('\n').count();
        current.pieces.push((role, piece));
        if ends_line && current.lines >= CHUNK_LINES {
            chunks.push(std::mem::replace(&mut current, PromptChunk { pieces: Vec::new(), lines: 0 }));
        }
    }
    if !current.pieces.is_empty() {
        current.lines += 1;
        chunks.push(current);
    }
    chunks
}

impl PictureView {
    /// The correct path as an SVG `points` attribute, in picture pixels.
    pub fn overlay_points(&self) -> String {
        self.path.iter().map(|(x, y)| format!("{x},{y}")).collect::<Vec<_>>().join(" ")
    }
}

/// The pictures of `record`: a dataset record's `images`, or a JSONL line's `metadata.images` (whose inline
/// pictures are the `image_url` parts of its prompt, in order).
pub fn pictures_of(record: &Json) -> Vec<PictureView> {
    pictures_in(&SampleRecord::parse(record))
}

/// The pictures of a record already read.
pub fn pictures_in(record: &SampleRecord) -> Vec<PictureView> {
    record
        .pictures
        .iter()
        .map(|p| PictureView {
            image_index: p.image_index,
            task_number: p.task_number,
            source: match (p.data_url.as_ref().filter(|u| u.starts_with("data:image/")), &p.file) {
                (Some(url), _) => PictureSource::Inline(url.clone()),
                (None, Some(file)) => PictureSource::File(file.clone()),
                (None, None) => PictureSource::Missing,
            },
            width: p.width.unwrap_or(0.0),
            height: p.height.unwrap_or(0.0),
            path: p.path.clone(),
            truth: p.truth.as_ref().map(repr).unwrap_or_default(),
        })
        .collect()
}

/// Python's printing of a stored value (its JSON text when it is not a dataset value).
pub fn repr(json: &Json) -> String {
    Value::from_json(json).map(|v| v.repr()).unwrap_or_else(|_| json.to_string())
}

/// The list row of a generated sample, as `row_of` reads it from the sample's record (a test holds the two
/// equal), without building the record: a stored sample's record is written straight to text.
pub fn row_of_sample(index: usize, sample: &Sample, prompt_chars: usize, run: usize) -> Row {
    let topology = match sample.shape {
        SampleShape::Baseline => Topology::Baseline,
        SampleShape::Forgetting => Topology::Forgetting,
        SampleShape::Chain => Topology::Chain,
        SampleShape::Multichain { .. } => Topology::Multichain,
        SampleShape::Custom { .. } => Topology::Custom,
    };
    Row {
        index,
        topology: topology.as_str().to_string(),
        family: sample.target.family.as_str().to_string(),
        target: sample.target.name.clone(),
        stages: sample.stages.iter().map(|s| s.number).max().unwrap_or(0).max(sample.stages.len()).max(1),
        sample_idx: Some(sample.sample_idx),
        answer: shorten(&sample.ground_truth.repr(), ROW_ANSWER_CHARS),
        prompt_chars,
        origin: Some((run, sample.target_index)),
    }
}

/// The list row of `record`, at position `index` of a file whose summary `mode` is `mode`.
pub fn row_of(index: usize, record: &Json, mode: &str, origin: Option<(usize, usize)>) -> Row {
    let read = SampleRecord::parse(record);
    let family = match (&read.target_family, read.jsonl) {
        (Some(family), true) => family.clone(),
        _ => family_in(&read, mode),
    };
    Row {
        index,
        topology: read.topology.as_str().to_string(),
        family,
        target: read.task_name.clone().unwrap_or_default(),
        // A reference forgetting record may store fewer distractors than its target's number says.
        stages: read.stages.iter().filter_map(|s| s.number).max().map_or(0, |n| n as usize).max(read.stages.len()).max(1),
        sample_idx: read.sample_idx.map(|n| n as u32),
        answer: read.truth.as_ref().map(|a| shorten(&repr(a), ROW_ANSWER_CHARS)).unwrap_or_default(),
        prompt_chars: read.prompt.as_ref().map(|p| p.chars().count()).unwrap_or(0),
        origin,
    }
}

/// Every stage's ground truth the record stores, in prompt order (the target last).
pub fn stage_truths(record: &Json) -> Vec<StageTruth> {
    let read = SampleRecord::parse(record);
    let mut truths: Vec<StageTruth> = read
        .stages
        .iter()
        .filter_map(|stage| {
            let truth = stage.truth.as_ref()?;
            Some(StageTruth { name: stage.output_name()?, task: stage.label.clone().unwrap_or_default(), truth: repr(truth) })
        })
        .collect();
    let (answer_name, answer) = answer_in(&read);
    if !answer.is_empty() && truths.last().is_none_or(|t| t.name != answer_name) {
        truths.push(StageTruth { name: answer_name, task: read.task_name.clone().unwrap_or_default(), truth: answer });
    }
    truths
}

/// The graded output's name and ground truth.
pub fn answer_of(record: &Json) -> (String, String) {
    answer_in(&SampleRecord::parse(record))
}

pub fn answer_in(record: &SampleRecord) -> (String, String) {
    let name = record.target_output_name().unwrap_or_else(|| format!("task_{}_out", record.stages.len().max(1)));
    (name, record.truth.as_ref().map(repr).unwrap_or_default())
}

/// The run's seed: a JSONL line's own, else the file summary's.
pub fn seed_of(record: &Json, summary: Option<&Json>) -> Option<u64> {
    SampleRecord::parse(record).seed.or_else(|| summary.and_then(|s| s.get("seed")).and_then(Json::as_u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain_record() -> Json {
        json!({"task_id": 4, "task_name": "ConvolutionTask", "sample_idx": 3, "prompt": "Task 1:\nabc", "ground_truth": [280, 286, -403],
            "chain": {"num_distractors": 2, "target_task_number": 3,
                "distractors": [{"task_number": 1, "task_name": "A", "ground_truth": 5}, {"task_number": 2, "task_name": "B", "ground_truth": [1, 2]}],
                "target": {"task_number": 3, "task_name": "ConvolutionTask", "ground_truth": [280, 286, -403]}}})
    }

    #[test]
    fn a_reference_chain_record_gives_its_row() {
        let row = row_of(7, &chain_record(), "math_chain", None);
        assert_eq!(row, Row {
            index: 7, topology: "chain".into(), family: "math".into(), target: "ConvolutionTask".into(), stages: 3, sample_idx: Some(3),
            answer: "[280, 286, -403]".into(), prompt_chars: 11, origin: None,
        });
    }

    #[test]
    fn stage_truths_list_every_stage_with_the_target_last() {
        let truths = stage_truths(&chain_record());
        assert_eq!(truths.iter().map(|t| (t.name.as_str(), t.task.as_str(), t.truth.as_str())).collect::<Vec<_>>(), [
            ("task_1_out", "A", "5"),
            ("task_2_out", "B", "[1, 2]"),
            ("task_3_out", "ConvolutionTask", "[280, 286, -403]"),
        ]);
        assert_eq!(answer_of(&chain_record()), ("task_3_out".to_string(), "[280, 286, -403]".to_string()));
        let baseline = json!({"task_name": "GSM_0001.json", "prompt": "p", "ground_truth": 2.5});
        assert_eq!(stage_truths(&baseline), [StageTruth { name: "task_1_out".into(), task: "GSM_0001.json".into(), truth: "2.5".into() }]);
        let forgetting = json!({"task_name": "T", "prompt": "p", "ground_truth": 9, "forgetting": {"target_task_number": 4, "distractors": [{"task_number": 1, "task_name": "D"}]}});
        assert_eq!(stage_truths(&forgetting).last().map(|t| t.name.clone()), Some("task_4_out".into()), "reference distractors store no truth; the target's still shows");
        assert_eq!(row_of(0, &forgetting, "gsm_forgetting", None).stages, 4);
    }

    #[test]
    fn jsonl_lines_read_their_metadata() {
        let line = json!({"id": "chain/math.X/1", "prompt": "p", "answer": [1, 2],
            "metadata": {"topology": "chain", "family": "math", "task_name": "X", "sample_idx": 1, "seed": 9, "target_output_name": "task_2_out",
                         "stage_ground_truths": {"task_1_out": 3, "task_2_out": [1, 2]}}});
        let row = row_of(0, &line, "", None);
        assert_eq!((row.topology.as_str(), row.target.as_str(), row.stages, row.sample_idx), ("chain", "X", 2, Some(1)));
        assert_eq!(stage_truths(&line)[1], StageTruth { name: "task_2_out".into(), task: "X".into(), truth: "[1, 2]".into() });
        assert_eq!(answer_of(&line).0, "task_2_out");
        assert_eq!(seed_of(&line, Some(&json!({"seed": 4}))), Some(9));
        assert_eq!(seed_of(&chain_record(), Some(&json!({"seed": 4}))), Some(4));
        assert_eq!(seed_of(&chain_record(), None), None);
    }

    fn picture_entry() -> Json {
        json!({"image_index": 1, "task_number": 2, "mime_type": "image/png", "data_url": "data:image/png;base64,AAAA", "ground_truth": [7, 3, 12],
            "metadata": {"kind": "path_traversal", "width": 2000, "height": 1400,
                "selected_path": {"numbers": [7, 3, 12], "polyline": [[90.0, 300.5], [500.25, 410.0], [1910.0, 380.0]]}}})
    }

    #[test]
    fn a_dataset_record_gives_its_pictures_with_the_correct_path() {
        let record = json!({"prompt": "p", "ground_truth": [7, 3, 12], "images": [picture_entry()]});
        let pictures = pictures_of(&record);
        assert_eq!(pictures.len(), 1);
        let p = &pictures[0];
        assert_eq!((p.image_index, p.task_number, p.width, p.height), (1, 2, 2000.0, 1400.0));
        assert_eq!(p.source, PictureSource::Inline("data:image/png;base64,AAAA".into()));
        assert_eq!(p.truth, "[7, 3, 12]");
        assert_eq!(p.overlay_points(), "90,300.5 500.25,410 1910,380");
    }

    #[test]
    fn jsonl_pictures_come_from_the_prompt_parts_and_files_are_named() {
        let mut meta_entry = picture_entry();
        meta_entry.as_object_mut().map(|m| m.remove("data_url"));
        let line = json!({"prompt": [{"type": "text", "text": "p"}, {"type": "text", "text": "Image 1 (Task 2):"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,BBBB"}}],
            "metadata": {"images": [meta_entry.clone()]}});
        assert_eq!(pictures_of(&line)[0].source, PictureSource::Inline("data:image/png;base64,BBBB".into()));
        let mut file_entry = meta_entry;
        file_entry["file"] = json!("pictures/chain-image.traversal-0-task2.png");
        let record = json!({"prompt": "p", "images": [file_entry]});
        assert_eq!(pictures_of(&record)[0].source, PictureSource::File("pictures/chain-image.traversal-0-task2.png".into()));
        assert!(pictures_of(&json!({"prompt": "p"})).is_empty(), "a sample without pictures has none");
    }

    #[test]
    fn prompt_chunks_keep_the_text_and_roles_and_end_on_whole_lines() {
        // 300 blocks of three lines, each line in pieces of two roles.
        let mut text = String::new();
        let mut roles = Vec::new();
        for k in 0..300 {
            for (role, piece) in [("instruction", format!("Task {k}:\n")), ("input_value", format!("x = [{k}, {k}]")), ("instruction", ".\n".to_string()), ("output_name", format!("task_{k}_out\n\n"))] {
                roles.push((role.to_string(), piece.chars().count() as u32));
                text.push_str(&piece);
            }
        }
        text.push_str("Answer at the end: é");
        let chunks = prompt_chunks(&text, &roles);
        let joined: String = chunks.iter().flat_map(|c| c.pieces.iter().map(|(_, p)| p.as_str())).collect();
        assert_eq!(joined, text);
        assert!(chunks.len() > 10 && chunks.len() < 40, "{} chunks", chunks.len());
        for chunk in &chunks[..chunks.len() - 1] {
            assert!(chunk.pieces.last().is_some_and(|(_, p)| p.ends_with('\n')), "a chunk ends a line");
            assert!(chunk.lines >= CHUNK_LINES && chunk.lines < CHUNK_LINES + 4, "{} lines", chunk.lines);
        }
        let last = chunks.last().expect("chunks");
        assert_eq!(last.pieces.last(), Some(&("instruction".to_string(), "Answer at the end: é".to_string())));
        let outputs = chunks.iter().flat_map(|c| &c.pieces).filter(|(r, _)| r == "output_name").count();
        assert_eq!(outputs, 300);
        assert!(prompt_chunks("", &[]).is_empty());
    }
}
