//! One sample record read once into types: what every topology keeps where. A dataset sample (the reference's
//! layout or ours) or a JSONL line becomes a [`SampleRecord`] — its facts, its task stages in prompt order with
//! their truths, the adapters between them and the wiring — and grading, the instance drawing, the instance
//! view and the agent's input read that instead of looking fields up by name. The file formats do not change:
//! this is a view over them, and with `results::record` the only place that reads record fields by string.
//!
//! Where the layouts keep their stages:
//! - baseline: none; the sample itself is the one task (`task_1`);
//! - forgetting: `forgetting.stages` (ours), else `forgetting.distractors` plus the target from the sample's
//!   own facts (the reference's); independent tasks, no wiring;
//! - chain: `chain.distractors` then `chain.target`, each reading the output its `input_name` names, else the
//!   one before;
//! - multichain: `multi_chain.stages`; `branch_blocks` say which inputs pick an element of an expansion's output
//!   and which pack the branches' final outputs;
//! - custom: `custom_dag.stages` (node ids and the node feeding each) and `custom_dag.adapters`;
//! - JSONL line: `metadata.stage_ground_truths` (no wiring but a chain's order).

use serde_json::Value as Json;

/// The topology of a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Baseline,
    Forgetting,
    Chain,
    Multichain,
    Custom,
}

impl Topology {
    /// `baseline`, `forgetting`, `chain`, `multichain` or `custom`.
    pub fn as_str(self) -> &'static str {
        match self {
            Topology::Baseline => "baseline",
            Topology::Forgetting => "forgetting",
            Topology::Chain => "chain",
            Topology::Multichain => "multichain",
            Topology::Custom => "custom",
        }
    }

    /// The topology a record's keys show (the reference layout gives each its own key).
    pub fn of(sample: &Json) -> Topology {
        if sample.get("custom_dag").is_some() {
            Topology::Custom
        } else if sample.get("multi_chain").is_some() {
            Topology::Multichain
        } else if sample.get("chain").is_some() {
            Topology::Chain
        } else if sample.get("forgetting").is_some() {
            Topology::Forgetting
        } else {
            Topology::Baseline
        }
    }

    fn parse(name: &str) -> Option<Topology> {
        [Topology::Baseline, Topology::Forgetting, Topology::Chain, Topology::Multichain, Topology::Custom].into_iter().find(|t| t.as_str() == name)
    }
}

/// One task stage of a sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// The node's id: `task_<n>`, or a custom graph's own node id.
    pub id: String,
    /// The task number (`n` of `task_<n>_out`), when stored.
    pub number: Option<u64>,
    pub family: Option<String>,
    pub task_id: Option<i64>,
    pub input_kind: Option<String>,
    pub output_kind: Option<String>,
    /// The task's name, or `template <k>` for a word problem stored by template index.
    pub label: Option<String>,
    /// The stage's ground truth, when stored.
    pub truth: Option<Json>,
}

impl Stage {
    /// `task_<n>_out`, the name the prompt gives the stage's output.
    pub fn output_name(&self) -> Option<String> {
        self.number.map(|n| format!("task_{n}_out"))
    }
}

/// What an adapter node does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdapterOp {
    /// Takes element `index` of a list.
    Pick { index: i64 },
    /// Packs its inputs, in slot order, into a list.
    Pack,
    /// An operation this version does not know, kept by name.
    Other(String),
}

/// A node between tasks that computes no task: a multichain's branch split and recombination, or a custom
/// graph's adapter.
#[derive(Clone, Debug, PartialEq)]
pub struct Adapter {
    pub id: String,
    pub op: AdapterOp,
    /// The value's name in the prompt (`task_3_input`, or a custom adapter's `output_name`).
    pub name: String,
    pub truth: Option<Json>,
}

/// An edge of the wiring: `from` feeds `to` (in `slot` for a pack).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wire {
    pub from: String,
    pub to: String,
    pub slot: Option<i64>,
}

/// One picture a sample carries (`images`, or a JSONL line's `metadata.images`).
#[derive(Clone, Debug, PartialEq)]
pub struct PictureEntry {
    pub image_index: u64,
    pub task_number: u64,
    /// The picture's URL (a data URL when inline), from the entry or the prompt's parts.
    pub data_url: Option<String>,
    /// The PNG's file name, for pictures stored beside the dataset.
    pub file: Option<String>,
    /// The picture's size in pixels, when its metadata says.
    pub width: Option<f64>,
    pub height: Option<f64>,
    /// The correct path's polyline, in picture pixels.
    pub path: Vec<(f64, f64)>,
    pub truth: Option<Json>,
}

/// A sample record, read once.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleRecord {
    pub topology: Topology,
    /// True for a JSONL line (`{id, prompt, answer, metadata}`).
    pub jsonl: bool,
    /// The prompt, when it is a string.
    pub prompt: Option<String>,
    /// The prompt as written: a string, or (image prompts) a list of content parts.
    pub prompt_content: Option<Json>,
    /// The graded answer: `ground_truth`, or a JSONL line's `answer`.
    pub truth: Option<Json>,
    /// The declared `target_family` (a JSONL line's `metadata.family`).
    pub target_family: Option<String>,
    /// The target task's name and id.
    pub task_name: Option<String>,
    pub task_id: Option<i64>,
    pub sample_idx: Option<u64>,
    /// A JSONL line's own seed.
    pub seed: Option<u64>,
    /// The declared target output name (`target_output_name`, or the topology's target task number).
    pub target_output: Option<String>,
    /// A custom graph's target node id.
    pub target_node: Option<String>,
    /// The task stages in prompt order, the target last (stored or, where the layout keeps no stage for it,
    /// made from the sample's own facts).
    pub stages: Vec<Stage>,
    pub adapters: Vec<Adapter>,
    pub wires: Vec<Wire>,
    pub pictures: Vec<PictureEntry>,
    /// The record shows a Python tracing task the reference's way: `extra_inputs`, or a chain target with a
    /// `task_id` (its operators carry none).
    pub python_marks: bool,
}

fn str_at(json: &Json, key: &str) -> Option<String> {
    json.get(key).and_then(Json::as_str).map(str::to_string)
}

fn u64_at(json: &Json, key: &str) -> Option<u64> {
    json.get(key).and_then(Json::as_u64)
}

/// A string or a number as text (template indices are numbers in some files).
fn text_at(json: &Json, key: &str) -> Option<String> {
    json.get(key).and_then(|v| match v {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

fn list_at<'a>(json: &'a Json, key: &str) -> &'a [Json] {
    json.get(key).and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `(n, is_output)` of `task_<n>_out` / `task_<n>_input`.
pub fn parse_io_name(name: &str) -> Option<(u64, bool)> {
    let rest = name.strip_prefix("task_")?;
    if let Some(n) = rest.strip_suffix("_out") {
        return n.parse().ok().map(|n| (n, true));
    }
    rest.strip_suffix("_input")?.parse().ok().map(|n| (n, false))
}

fn stage_of(json: &Json, id: String, number: Option<u64>) -> Stage {
    Stage {
        id,
        number,
        family: text_at(json, "family"),
        task_id: json.get("task_id").and_then(Json::as_i64),
        input_kind: text_at(json, "input_kind"),
        output_kind: text_at(json, "output_kind"),
        label: text_at(json, "task_name").or_else(|| text_at(json, "template_index").map(|t| format!("template {t}"))),
        truth: json.get("ground_truth").cloned(),
    }
}

/// A numbered stage `task_<n>` (`fallback` when the stage stores no number).
fn numbered(json: &Json, fallback: u64) -> Stage {
    let number = u64_at(json, "task_number").unwrap_or(fallback);
    stage_of(json, format!("task_{number}"), Some(number))
}

/// The index a pick adapter takes, read from the prompt's `Define <output> = <input>[<index>].` line.
fn pick_index(prompt: &str, output: &str) -> Option<i64> {
    let start = format!("Define {output} = ");
    let line = prompt.lines().find(|l| l.starts_with(&start))?;
    let open = line.rfind('[')?;
    let close = line[open..].find(']')? + open;
    line[open + 1..close].trim().parse().ok()
}

impl SampleRecord {
    /// Reads a dataset sample, a results sample (the same plus result fields) or a JSONL line. Nothing is
    /// required: a record that stores fewer facts gives fewer, and each user says what it needs (grading asks
    /// for [`SampleRecord::prompt`] and [`SampleRecord::truth`]).
    pub fn parse(sample: &Json) -> SampleRecord {
        let meta = sample.get("metadata").filter(|m| m.is_object());
        let jsonl = meta.is_some();
        let topology = match meta.and_then(|m| m.get("topology")).and_then(Json::as_str).and_then(Topology::parse) {
            Some(t) => t,
            None => Topology::of(sample),
        };
        let mut record = SampleRecord {
            topology,
            jsonl,
            prompt: str_at(sample, "prompt"),
            prompt_content: sample.get("prompt").cloned(),
            truth: sample.get("ground_truth").or_else(|| sample.get("answer")).cloned(),
            target_family: str_at(sample, "target_family").or_else(|| meta.and_then(|m| str_at(m, "family"))),
            task_name: str_at(sample, "task_name").or_else(|| meta.and_then(|m| str_at(m, "task_name"))),
            task_id: sample.get("task_id").or_else(|| meta.and_then(|m| m.get("task_id"))).and_then(Json::as_i64),
            sample_idx: u64_at(sample, "sample_idx").or_else(|| meta.and_then(|m| u64_at(m, "sample_idx"))),
            seed: meta.and_then(|m| u64_at(m, "seed")),
            target_output: str_at(sample, "target_output_name").or_else(|| meta.and_then(|m| str_at(m, "target_output_name"))),
            target_node: str_at(sample, "target_node"),
            stages: Vec::new(),
            adapters: Vec::new(),
            wires: Vec::new(),
            pictures: Vec::new(),
            python_marks: sample.get("extra_inputs").is_some() || sample.get("chain").and_then(|c| c.get("target")).and_then(|t| t.get("task_id")).is_some(),
        };
        match meta {
            Some(meta) => record.read_jsonl(meta),
            None => {
                match topology {
                    Topology::Custom => record.read_custom(&sample["custom_dag"]),
                    Topology::Multichain => record.read_multichain(&sample["multi_chain"]),
                    Topology::Chain => record.read_chain(&sample["chain"]),
                    Topology::Forgetting => record.read_forgetting(&sample["forgetting"]),
                    Topology::Baseline => record.stages.push(record.target_stage(1)),
                }
                if record.target_output.is_none() {
                    let section = ["chain", "multi_chain", "forgetting"].into_iter().find_map(|key| sample.get(key));
                    let number = section.and_then(|s| s.get("target").and_then(|t| u64_at(t, "task_number")).or_else(|| u64_at(s, "target_task_number")));
                    record.target_output = number.map(|n| format!("task_{n}_out"));
                }
            }
        }
        record.pictures = pictures(sample, meta);
        record
    }

    /// The target as a stage made from the sample's own facts (baseline and reference forgetting records keep
    /// no stage for it).
    fn target_stage(&self, number: u64) -> Stage {
        Stage {
            id: format!("task_{number}"),
            number: Some(number),
            family: self.target_family.clone(),
            task_id: self.task_id,
            input_kind: None,
            output_kind: None,
            label: self.task_name.clone(),
            truth: self.truth.clone(),
        }
    }

    fn wire(&mut self, from: &str, to: &str, slot: Option<i64>) {
        self.wires.push(Wire { from: from.to_string(), to: to.to_string(), slot });
    }

    fn read_forgetting(&mut self, section: &Json) {
        let stored = list_at(section, "stages");
        if !stored.is_empty() {
            self.stages = stored.iter().enumerate().map(|(i, s)| numbered(s, i as u64 + 1)).collect();
            return;
        }
        let distractors = list_at(section, "distractors");
        self.stages = distractors.iter().enumerate().map(|(i, s)| numbered(s, i as u64 + 1)).collect();
        let number = u64_at(section, "target_task_number").unwrap_or(distractors.len() as u64 + 1);
        self.stages.push(self.target_stage(number));
    }

    fn read_chain(&mut self, section: &Json) {
        let stored: Vec<&Json> = list_at(section, "distractors").iter().chain(section.get("target")).collect();
        let mut stages: Vec<Stage> = stored.iter().enumerate().map(|(i, s)| numbered(s, i as u64 + 1)).collect();
        if section.get("target").is_none() {
            stages.push(self.target_stage(stages.len() as u64 + 1));
        }
        // Each stage reads the output its input names, else the one before it.
        for (i, stage) in stages.iter().enumerate() {
            let named = stored.get(i).and_then(|s| s.get("input_name")).and_then(Json::as_str).and_then(parse_io_name);
            let from = match named {
                Some((k, true)) => Some(format!("task_{k}")),
                Some((_, false)) => None,
                None => i.checked_sub(1).map(|p| stages[p].id.clone()),
            };
            if let Some(from) = from {
                self.wires.push(Wire { from, to: stage.id.clone(), slot: None });
            }
        }
        self.stages = stages;
    }

    fn read_multichain(&mut self, section: &Json) {
        // Branch inputs (`task_3_input`) pick an element of the expansion's output; a block's next input packs
        // the branches' final outputs.
        let mut picks: Vec<(String, String, i64)> = Vec::new();
        let mut packs: Vec<(String, Vec<String>)> = Vec::new();
        for block in list_at(section, "branch_blocks") {
            let expansion = u64_at(block, "expansion_task_number")
                .or_else(|| block.get("expansion_output_name").and_then(Json::as_str).and_then(parse_io_name).map(|(n, _)| n));
            let branches = list_at(block, "branches");
            let inputs: Vec<String> = if branches.is_empty() {
                list_at(block, "branch_inputs").iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
            } else {
                branches.iter().filter_map(|b| str_at(b, "input_name")).collect()
            };
            if let Some(expansion) = expansion {
                for (i, input) in inputs.into_iter().enumerate() {
                    picks.push((input, format!("task_{expansion}"), i as i64));
                }
            }
            if let Some(next) = str_at(block, "next_input_name") {
                let finals = branches
                    .iter()
                    .filter_map(|b| {
                        let last = list_at(b, "stages").last().and_then(|s| u64_at(s, "task_number"));
                        last.or_else(|| b.get("final_output_name").and_then(Json::as_str).and_then(parse_io_name).map(|(n, _)| n))
                    })
                    .map(|n| format!("task_{n}"))
                    .collect();
                packs.push((next, finals));
            }
        }
        for stage in list_at(section, "stages") {
            let Some(number) = u64_at(stage, "task_number") else { continue };
            let id = format!("task_{number}");
            let input = str_at(stage, "input_name").unwrap_or_default();
            if let Some((_, from, index)) = picks.iter().find(|(name, _, _)| *name == input).cloned() {
                let pick = format!("pick_{number}");
                self.adapters.push(Adapter { id: pick.clone(), op: AdapterOp::Pick { index }, name: input, truth: None });
                self.wire(&from, &pick, None);
                self.wire(&pick, &id, None);
            } else if let Some((_, finals)) = packs.iter().find(|(name, _)| *name == input).cloned() {
                let pack = format!("pack_{number}");
                self.adapters.push(Adapter { id: pack.clone(), op: AdapterOp::Pack, name: input, truth: None });
                for (slot, from) in finals.iter().enumerate() {
                    self.wire(from, &pack, Some(slot as i64));
                }
                self.wire(&pack, &id, None);
            } else if let Some((from, true)) = parse_io_name(&input) {
                self.wire(&format!("task_{from}"), &id, None);
            }
            self.stages.push(stage_of(stage, id, Some(number)));
        }
    }

    fn read_custom(&mut self, section: &Json) {
        let prompt = self.prompt.clone().unwrap_or_default();
        for stage in list_at(section, "stages") {
            let Some(id) = text_at(stage, "node_id") else { continue };
            if let Some(from) = text_at(stage, "input_node_id") {
                self.wire(&from, &id, None);
            }
            self.stages.push(stage_of(stage, id, u64_at(stage, "task_number")));
        }
        for adapter in list_at(section, "adapters") {
            let Some(id) = text_at(adapter, "node_id") else { continue };
            let op = text_at(adapter, "op").unwrap_or_default();
            let name = text_at(adapter, "output_name").unwrap_or_default();
            let op = match op.as_str() {
                "pack" => AdapterOp::Pack,
                "pick" => match pick_index(&prompt, &name) {
                    Some(index) => AdapterOp::Pick { index },
                    None => AdapterOp::Other(op),
                },
                _ => AdapterOp::Other(op),
            };
            let slots = op == AdapterOp::Pack;
            for (slot, from) in list_at(adapter, "input_node_ids").iter().filter_map(Json::as_str).enumerate() {
                self.wire(from, &id, slots.then_some(slot as i64));
            }
            self.adapters.push(Adapter { id, op, name, truth: adapter.get("ground_truth").cloned() });
        }
        // The target last, as the prompt and the drawing's reading order have it.
        if let Some(at) = self.target_node.as_ref().and_then(|t| self.stages.iter().position(|s| s.id == *t)) {
            let target = self.stages.remove(at);
            self.stages.push(target);
        }
    }

    /// JSONL lines keep every stage's truth and the topology, not the wiring: a chain is wired in order.
    fn read_jsonl(&mut self, meta: &Json) {
        let truths = meta.get("stage_ground_truths").and_then(Json::as_object);
        let mut stages: Vec<Stage> = truths
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, (name, truth))| {
                let number = parse_io_name(name).filter(|(_, out)| *out).map(|(n, _)| n);
                let n = number.unwrap_or(i as u64 + 1);
                Stage { id: format!("task_{n}"), number, family: None, task_id: None, input_kind: None, output_kind: None, label: None, truth: Some(truth.clone()) }
            })
            .collect();
        match stages.last_mut() {
            Some(last) => {
                last.label = self.task_name.clone();
                last.task_id = self.task_id;
            }
            None => stages.push(self.target_stage(1)),
        }
        if self.topology == Topology::Chain {
            for pair in stages.windows(2) {
                self.wires.push(Wire { from: pair[0].id.clone(), to: pair[1].id.clone(), slot: None });
            }
        }
        self.stages = stages;
    }

    /// The graded output's name: the declared one, else the last stage's.
    pub fn target_output_name(&self) -> Option<String> {
        self.target_output.clone().or_else(|| self.stages.last().and_then(Stage::output_name))
    }

    /// The ids of the task nodes whose outputs feed `id`, found by walking back through adapters (nearest
    /// first, each once). A wire may name a task the record keeps no stage for: its id is given all the same.
    pub fn task_predecessors(&self, id: &str) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        let mut stack: Vec<&str> = self.wires.iter().filter(|w| w.to == id).map(|w| w.from.as_str()).collect();
        stack.reverse();
        let mut seen: Vec<&str> = Vec::new();
        while let Some(node) = stack.pop() {
            if seen.contains(&node) {
                continue;
            }
            seen.push(node);
            if self.adapters.iter().any(|a| a.id == node) {
                let mut inputs: Vec<&str> = self.wires.iter().filter(|w| w.to == node).map(|w| w.from.as_str()).collect();
                inputs.reverse();
                stack.extend(inputs);
            } else if node != id && !found.iter().any(|f| f == node) {
                found.push(node.to_string());
            }
        }
        found
    }

    /// The output name of node `id`: its stage's `task_<n>_out`, or `task_<n>_out` for an id `task_<n>`.
    pub fn output_of(&self, id: &str) -> Option<String> {
        match self.stages.iter().find(|s| s.id == id) {
            Some(stage) => stage.output_name(),
            None => id.strip_prefix("task_").and_then(|n| n.parse::<u64>().ok()).map(|n| format!("task_{n}_out")),
        }
    }
}

/// What `inspect` found in one sample: its schema problems (each located under `at`) and the facts it tallies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckedSample {
    pub problems: Vec<String>,
    /// `task_id` and `task_name` as written: the target the sample is drawn for.
    pub target: (Option<String>, Option<String>),
    /// Results only: the stored `correct` is true.
    pub correct: bool,
    /// Results only: the `agent_status`.
    pub status: Option<String>,
}

/// Checks one sample of a dataset or (with `results`) results file: `prompt`, `ground_truth` and `task_name`
/// present, the prompt a string, the truth a dataset value, each picture's PNG named and its truth re-checked
/// (see `image::verify`), and a results sample's `correct` a boolean. `Err` when it is not an object at all.
pub fn check_sample(sample: &Json, at: &str, results: bool) -> Result<CheckedSample, String> {
    let Some(obj) = sample.as_object() else { return Err(format!("{at}: not an object")) };
    let field = |name: &str| format!("{at}.{name}");
    let mut problems = Vec::new();
    for name in ["prompt", "ground_truth", "task_name"] {
        if !obj.contains_key(name) {
            problems.push(format!("{}: missing", field(name)));
        }
    }
    if obj.get("prompt").is_some_and(|p| !p.is_string()) {
        problems.push(format!("{}: not a string", field("prompt")));
    }
    if let Some(truth) = obj.get("ground_truth") {
        if let Err(e) = crate::engine::value::Value::from_json(truth) {
            problems.push(format!("{}: {e}", field("ground_truth")));
        }
    }
    if let Some(images) = obj.get("images") {
        problems.extend(image_problems(images, &field("images")));
    }
    let mut correct = false;
    if results {
        match obj.get("correct") {
            Some(Json::Bool(true)) => correct = true,
            Some(Json::Bool(false)) | Some(Json::Null) => {}
            _ => problems.push(format!("{}: not a boolean", field("correct"))),
        }
    }
    Ok(CheckedSample {
        problems,
        target: (obj.get("task_id").map(|v| v.to_string()), obj.get("task_name").map(|v| v.to_string())),
        correct,
        status: if results { obj.get("agent_status").and_then(Json::as_str).map(str::to_string) } else { None },
    })
}

/// Checks a sample's `images`: each names its PNG and re-checks against its ground truth (see `image::verify`).
fn image_problems(images: &Json, at: &str) -> Vec<String> {
    let Some(entries) = images.as_array() else { return vec![format!("{at}: not a list")] };
    let mut out = Vec::new();
    for (j, entry) in entries.iter().enumerate() {
        if entry.get("data_url").and_then(Json::as_str).is_none() && entry.get("file").and_then(Json::as_str).is_none() {
            out.push(format!("{at}[{j}]: neither data_url nor file"));
        }
        let truth: Option<Vec<i64>> = entry.get("ground_truth").and_then(Json::as_array).and_then(|a| a.iter().map(Json::as_i64).collect());
        match (entry.get("metadata"), truth) {
            (Some(metadata), Some(truth)) => {
                if let Err(found) = crate::engine::tasks::image::verify::verify(metadata, &truth) {
                    out.extend(found.into_iter().map(|p| format!("{at}[{j}]: {p}")));
                }
            }
            _ => out.push(format!("{at}[{j}]: metadata or ground_truth missing")),
        }
    }
    out
}

/// What is wrong with a sample's prompt before it can be read at all, as a path suffix and message
/// (`.prompt: missing`).
pub fn prompt_problem(sample: &Json) -> Option<String> {
    match sample {
        Json::Object(obj) => match obj.get("prompt") {
            Some(Json::String(_)) => None,
            Some(_) => Some(".prompt: not a string".into()),
            None => Some(".prompt: missing".into()),
        },
        _ => Some(": not an object".into()),
    }
}

/// What a JSONL line's `metadata` declares under `key` (`topology`, `family`); `None` for other records.
pub fn declared_of(sample: &Json, key: &str) -> Option<String> {
    sample.get("metadata").and_then(|m| m.get(key)).and_then(Json::as_str).map(str::to_string)
}

/// True when a sample records an `agent_status`: it was run (or is running).
pub fn has_status(sample: &Json) -> bool {
    sample.get("agent_status").is_some()
}

fn pictures(sample: &Json, meta: Option<&Json>) -> Vec<PictureEntry> {
    let entries = list_at(sample, "images");
    let entries = if entries.is_empty() { meta.map(|m| list_at(m, "images")).unwrap_or(&[]) } else { entries };
    // A JSONL line's inline pictures are the `image_url` parts of its prompt, in order.
    let parts = sample.get("prompt_parts").or_else(|| sample.get("prompt")).and_then(Json::as_array);
    let prompt_urls: Vec<&str> = parts.into_iter().flatten().filter_map(|p| p.get("image_url").and_then(|u| u.get("url")).and_then(Json::as_str)).collect();
    entries
        .iter()
        .enumerate()
        .map(|(k, entry)| {
            let meta = entry.get("metadata");
            let number = |key: &str| meta.and_then(|m| m.get(key)).and_then(Json::as_f64);
            let polyline = meta.and_then(|m| m.get("selected_path")).and_then(|p| p.get("polyline")).and_then(Json::as_array);
            PictureEntry {
                image_index: u64_at(entry, "image_index").unwrap_or(k as u64 + 1),
                task_number: u64_at(entry, "task_number").unwrap_or(0),
                data_url: str_at(entry, "data_url").or_else(|| prompt_urls.get(k).map(|u| u.to_string())),
                file: str_at(entry, "file"),
                width: number("width"),
                height: number("height"),
                path: polyline.into_iter().flatten().filter_map(|pt| Some((pt.get(0)?.as_f64()?, pt.get(1)?.as_f64()?))).collect(),
                truth: entry.get("ground_truth").cloned(),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
