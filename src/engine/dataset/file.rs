//! The text of a dataset file, in one place: the browser's Export job writes through `file_text`, and the command
//! line's `generate` streams the same bytes (`write_json`, `write_jsonl`, tested against `file_text`), so a
//! download from the page is byte-identical to the file the CLI writes for the same settings.

use super::{mode, to_json, to_jsonl_with, to_pretty_string, ImageStorage, RunInfo};
use crate::engine::generate::{GenerateConfig, Sample};

/// The generator's name and version, as written in `summary.generator`.
pub const GENERATOR: &str = concat!("arbigraph-studio ", env!("CARGO_PKG_VERSION"));

/// The two layouts a dataset is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileFormat {
    /// The reference's layout (`summary` + `samples`), pretty-printed as the reference prints it.
    Json,
    /// One instance per line (`id`, `prompt`, `answer`, `metadata`).
    Jsonl,
}

impl FileFormat {
    /// The file extension (`json`, `jsonl`).
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Json => "json",
            FileFormat::Jsonl => "jsonl",
        }
    }

    /// The format a file name asks for: `.jsonl` is JSONL, anything else the reference layout.
    pub fn of_name(name: &str) -> FileFormat {
        if name.ends_with(".jsonl") {
            FileFormat::Jsonl
        } else {
            FileFormat::Json
        }
    }
}

/// The run facts of a file written without a clock or a graph path: what the browser writes, and what the CLI
/// writes when given no `--creation-time`.
pub fn plain_run_info() -> RunInfo {
    RunInfo { creation_time: None, graph_path: None, generator: GENERATOR.to_string(), images: ImageStorage::Inline }
}

/// The whole file: the reference layout with a final newline, or JSONL.
pub fn file_text(config: &GenerateConfig, samples: &[Sample], run: &RunInfo, format: FileFormat) -> String {
    match format {
        FileFormat::Jsonl => to_jsonl_with(config, samples, &run.images),
        FileFormat::Json => {
            let mut text = to_pretty_string(&to_json(config, samples, run));
            text.push('\n');
            text
        }
    }
}

/// The file name a run is offered under: its mode and the format's extension (`math_chain.json`).
pub fn file_name(config: &GenerateConfig, format: FileFormat) -> String {
    format!("{}.{}", mode(config), format.extension())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generate::{generate, Topology};
    use crate::engine::tasks::registry::builtin;
    use crate::engine::tasks::Family;

    #[test]
    fn json_files_end_in_a_newline_and_jsonl_has_one_line_per_sample() {
        let registry = builtin();
        let mut config = GenerateConfig::new(Topology::Chain { length: 3 }, vec![Family::Math]);
        config.samples_per_target = 1;
        config.only_targets = vec!["math.ConvolutionTask".into(), "math.PolyQuotientTask".into()];
        let samples = generate(&config, &registry, &mut |_, _| {}).unwrap();
        let json = file_text(&config, &samples, &plain_run_info(), FileFormat::Json);
        assert!(json.starts_with("{\n  \"summary\": {") && json.ends_with("}\n"), "{}", &json[..40]);
        assert!(json.contains(&format!("\"generator\": \"{GENERATOR}\"")));
        let jsonl = file_text(&config, &samples, &plain_run_info(), FileFormat::Jsonl);
        assert_eq!(jsonl.lines().count(), 2);
        assert_eq!(file_name(&config, FileFormat::Jsonl), "math_chain.jsonl");
        assert_eq!(FileFormat::of_name("x.jsonl"), FileFormat::Jsonl);
        assert_eq!(FileFormat::of_name("x.json"), FileFormat::Json);
    }
}
