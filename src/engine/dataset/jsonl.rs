//! JSONL export, one instance per line (`{"id", "prompt", "answer", "metadata"}`), written by one line writer
//! for both samples held in memory (`to_jsonl`) and runs streamed sample by sample (`write_jsonl`), so the two
//! give the same bytes. A sample with pictures has OpenAI-style content parts as its prompt (the text, then for
//! each picture a short label and an `image_url` part) and the pictures' metadata under `metadata.images`.

use std::fmt::Write;

use serde_json::{json, Map, Value as Json};

use super::{images_json, mode, sample_id, ImageStorage};
use crate::engine::generate::{generate_each, GenerateConfig, GenerateError, Sample, SampleView};
use crate::engine::graph::{write_json_escaped, write_json_string};
use crate::engine::tasks::registry::Registry;
use crate::engine::value::{Number, Value};

/// Every sample as JSONL text, pictures inline.
pub fn to_jsonl(config: &GenerateConfig, samples: &[Sample]) -> String {
    to_jsonl_with(config, samples, &ImageStorage::Inline)
}

/// Every sample as JSONL text, pictures stored as `images` says.
pub fn to_jsonl_with(config: &GenerateConfig, samples: &[Sample], images: &ImageStorage) -> String {
    let mut out = String::new();
    for sample in samples {
        if !sample.pictures().is_empty() {
            out.push_str(&picture_line(config, sample, images));
            continue;
        }
        let mut sink = |piece: &str| -> Result<(), GenerateError> {
            out.push_str(piece);
            Ok(())
        };
        write_line(config, sample, &mut sink).expect("a string takes every piece and held samples have their prompt");
    }
    out
}

/// The line of a sample with pictures: built whole (pictures are small in number, and such samples are held).
fn picture_line(config: &GenerateConfig, sample: &Sample, images: &ImageStorage) -> String {
    let mut line = json!({
        "id": sample_id(config, sample),
        "prompt": sample.prompt.text(),
        "answer": sample.ground_truth.to_json(),
        "metadata": {
            "topology": config.topology.name(),
            "mode": mode(config),
            "family": sample.target.family.as_str(),
            "task_key": sample.target.key,
            "task_id": sample.target.task_id,
            "task_name": sample.target.name,
            "sample_idx": sample.sample_idx,
            "seed": config.seed,
            "target_output_name": sample.target_output_name,
            "stage_ground_truths": sample.stages.iter().map(|s| (s.output_name(), s.ground_truth.to_json())).collect::<Map<_, _>>(),
        }
    });
    let entries = images_json(config, sample, images);
    let mut parts = vec![json!({"type": "text", "text": sample.prompt.text()})];
    for entry in &entries {
        let url = entry.get("data_url").or_else(|| entry.get("file")).cloned().unwrap_or(Json::Null);
        parts.push(json!({"type": "text", "text": format!("Image {} (Task {}):", entry["image_index"], entry["task_number"])}));
        parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
    }
    line["prompt"] = Json::Array(parts);
    let meta: Vec<Json> = entries
        .into_iter()
        .map(|mut e| {
            if let Json::Object(map) = &mut e {
                map.remove("data_url");
            }
            e
        })
        .collect();
    line["metadata"]["images"] = Json::Array(meta);
    format!("{line}\n")
}

/// Generates the run and writes each sample's line to `out` as soon as the sample is made: memory stays at
/// one sample (for custom graphs, one compiled sample whose prompt is written block by block). `out` may
/// refuse a piece (an IO error on the caller's side), which stops the run. Returns the number of samples.
/// Runs that may draw pictures (`GenerateConfig::may_draw_pictures`) are refused with `GenerateError::Config`:
/// write them with `to_jsonl_with`, which needs the samples held.
pub fn write_jsonl(config: &GenerateConfig, registry: &Registry, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>, progress: &mut dyn FnMut(usize, usize)) -> Result<usize, GenerateError> {
    if config.may_draw_pictures() {
        return Err(GenerateError::Config("runs with image tasks are written whole, not streamed".into()));
    }
    generate_each(config, registry, progress, &mut |sample| write_line(config, sample, out))
}

/// One line, with the field order and spelling of a serde_json object built with `json!` and printed compactly.
pub(crate) fn write_line(config: &GenerateConfig, sample: &dyn SampleView, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
    let target = sample.target();
    let mut text = String::new();
    let flush = |text: &mut String, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>| -> Result<(), GenerateError> {
        out(text)?;
        text.clear();
        Ok(())
    };
    text.push_str("{\"id\":");
    push_string(&mut text, &format!("{}/{}/{}", config.topology.name(), target.key, sample.sample_idx()));
    text.push_str(",\"prompt\":\"");
    flush(&mut text, out)?;
    // The prompt is one JSON string written in many pieces.
    sample.write_prompt(&mut |piece: &str| {
        write_json_escaped(&mut text, piece).expect("a string takes every piece");
        flush(&mut text, out)
    })?;
    text.push('"');
    text.push_str(",\"answer\":");
    push_value(&mut text, sample.ground_truth());
    text.push_str(",\"metadata\":{\"topology\":");
    push_string(&mut text, config.topology.name());
    text.push_str(",\"mode\":");
    push_string(&mut text, &mode(config));
    text.push_str(",\"family\":");
    push_string(&mut text, target.family.as_str());
    text.push_str(",\"task_key\":");
    push_string(&mut text, &target.key);
    let _ = write!(text, ",\"task_id\":{},\"task_name\":", target.task_id);
    push_string(&mut text, &target.name);
    let _ = write!(text, ",\"sample_idx\":{},\"seed\":{},\"target_output_name\":", sample.sample_idx(), config.seed);
    push_string(&mut text, &sample.target_output_name());
    text.push_str(",\"stage_ground_truths\":{");
    let mut first = true;
    sample.for_each_stage_output(&mut |name, value| {
        if !first {
            text.push(',');
        }
        first = false;
        push_string(&mut text, name);
        text.push(':');
        push_value(&mut text, value);
        if text.len() > 1 << 16 {
            flush(&mut text, out)?;
        }
        Ok(())
    })?;
    text.push_str("}}}\n");
    flush(&mut text, out)
}

/// A value as serde_json prints its `to_json()`: integers directly (a million-stage sample has a million of
/// them), floats through serde_json.
fn push_value(text: &mut String, value: &Value) {
    let number = |text: &mut String, n: Number| match n {
        Number::Int(i) => {
            let _ = write!(text, "{i}");
        }
        Number::Float(_) => text.push_str(&n.to_json().to_string()),
    };
    match value {
        Value::Scalar(n) => number(text, *n),
        Value::List(items) => {
            text.push('[');
            for (k, n) in items.iter().enumerate() {
                if k > 0 {
                    text.push(',');
                }
                number(text, *n);
            }
            text.push(']');
        }
    }
}

fn push_string(text: &mut String, value: &str) {
    write_json_string(text, value).expect("a string takes every piece");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::{generate, parse_structure, Topology};
    use crate::engine::graph::{random_dag, ValidGraph};
    use crate::engine::tasks::registry::builtin;
    use crate::engine::tasks::Family;
    use serde_json::{json, Map};

    /// The line as a `json!` object printed compactly: the layout the writer must reproduce.
    fn reference_line(config: &GenerateConfig, sample: &Sample) -> String {
        let line = json!({
            "id": super::super::sample_id(config, sample),
            "prompt": sample.prompt.text(),
            "answer": sample.ground_truth.to_json(),
            "metadata": {
                "topology": config.topology.name(),
                "mode": mode(config),
                "family": sample.target.family.as_str(),
                "task_key": sample.target.key,
                "task_id": sample.target.task_id,
                "task_name": sample.target.name,
                "sample_idx": sample.sample_idx,
                "seed": config.seed,
                "target_output_name": sample.target_output_name,
                "stage_ground_truths": sample.stages.iter().map(|s| (s.output_name(), s.ground_truth.to_json())).collect::<Map<_, _>>(),
            }
        });
        format!("{line}\n")
    }

    fn configs() -> Vec<GenerateConfig> {
        let registry = builtin();
        let mut out = Vec::new();
        for (topology, family) in [
            (Topology::Baseline, Family::Python),
            (Topology::Forgetting { distractors: 2 }, Family::Gsm),
            (Topology::Chain { length: 5 }, Family::Math),
            (Topology::Multichain(parse_structure("m,m,[m,m],[m,m],m,m").expect("valid")), Family::Math),
        ] {
            out.push(GenerateConfig { samples_per_target: 1, seed: 4, ..GenerateConfig::new(topology, vec![family]) });
        }
        for (nodes, families) in [(400, vec![Family::Math]), (60, vec![Family::Math, Family::Python, Family::Gsm])] {
            let graph = random_dag(nodes, 9, &families, &registry).expect("a graph");
            let valid = ValidGraph::new(graph, &registry).expect("random graphs are valid");
            let config = GenerateConfig { samples_per_target: 2, seed: 4, ..GenerateConfig::new(Topology::Custom(Box::new(valid)), families) };
            out.push(config);
        }
        out
    }

    #[test]
    fn lines_have_the_layout_of_a_compact_json_object() {
        let registry = builtin();
        for config in configs() {
            let mut samples = generate(&config, &registry, &mut |_, _| {}).expect("generates");
            samples.truncate(3);
            let want: String = samples.iter().map(|s| reference_line(&config, s)).collect();
            assert_eq!(to_jsonl(&config, &samples), want, "{}", config.topology.name());
        }
    }

    #[test]
    fn streamed_lines_equal_the_lines_of_samples_held_in_memory() {
        let registry = builtin();
        for config in configs() {
            let samples = generate(&config, &registry, &mut |_, _| {}).expect("generates");
            let mut streamed = String::new();
            let mut pieces = 0;
            let mut calls = Vec::new();
            let count = write_jsonl(
                &config,
                &registry,
                &mut |piece| {
                    streamed.push_str(piece);
                    pieces += 1;
                    Ok(())
                },
                &mut |done, total| calls.push((done, total)),
            )
            .expect("streams");
            assert_eq!(count, samples.len());
            assert_eq!(calls.last(), Some(&(samples.len(), samples.len())));
            assert_eq!(streamed, to_jsonl(&config, &samples), "{}", config.topology.name());
            if matches!(config.topology, Topology::Custom(_)) {
                assert!(pieces > 100 * samples.len(), "custom prompts are written block by block ({pieces} pieces)");
            }
        }
    }

    #[test]
    fn a_sink_that_refuses_stops_the_run_with_its_error() {
        let registry = builtin();
        let config = &configs()[4];
        let mut written = 0;
        let result = write_jsonl(
            config,
            &registry,
            &mut |piece| {
                written += piece.len();
                if written > 10_000 {
                    Err(GenerateError::Write("disk full".into()))
                } else {
                    Ok(())
                }
            },
            &mut |_, _| {},
        );
        assert_eq!(result, Err(GenerateError::Write("disk full".into())));
    }
}
