//! A run's streamed file cut into pieces that can be made apart: the head, the text of each sample by its slot,
//! and the tail. A sample's text is a pure function of the settings and its slot, so a caller with threads (the
//! CLI) can make slots in parallel and write them in slot order; head, slots and tail joined are byte for byte
//! what `write_json` or `write_jsonl` writes. Runs that draw pictures are written from held samples instead.

use std::rc::Rc;

use super::json::{head_text, item_text, tail_text};
use super::jsonl::write_line;
use super::{FileFormat, RunInfo, SummaryFacts};
use crate::engine::generate::{check_config, targets, with_slot, GenerateConfig, GenerateError};
use crate::engine::tasks::registry::Registry;
use crate::engine::tasks::Task;

/// A run's file, to be written piece by piece.
pub struct SlotFile<'a> {
    config: &'a GenerateConfig,
    registry: &'a Registry,
    run: &'a RunInfo,
    format: FileFormat,
    targets: Vec<Rc<dyn Task>>,
}

impl<'a> SlotFile<'a> {
    /// The file of the run `config` in `format` (`Json` or `Jsonl`); refuses runs that may draw pictures and runs
    /// that cannot start (no targets, a bad configuration), as generation would.
    pub fn new(config: &'a GenerateConfig, registry: &'a Registry, run: &'a RunInfo, format: FileFormat) -> Result<SlotFile<'a>, GenerateError> {
        if config.may_draw_pictures() {
            return Err(GenerateError::Config("runs with image tasks are written from held samples, not in slots".into()));
        }
        check_config(config)?;
        let targets = targets(config, registry)?;
        Ok(SlotFile { config, registry, run, format, targets })
    }

    /// How many samples (slots) the run has.
    pub fn slots(&self) -> usize {
        self.targets.len() * self.config.samples_per_target as usize
    }

    /// The text before the first sample (empty for JSONL). Write it only once slot 0 is made: a run whose first
    /// sample cannot be made writes nothing, as `write_json` does.
    pub fn head(&self) -> Result<String, GenerateError> {
        match self.format {
            FileFormat::Jsonl => Ok(String::new()),
            FileFormat::Json => {
                let num_targets = self.targets.len();
                let target_family = self.targets.first().map(|t| t.info().family.as_str()).unwrap_or("");
                let facts = SummaryFacts { num_targets, num_samples: self.slots(), target_family, image_params: None };
                head_text(self.config, self.run, &facts)
            }
        }
    }

    /// The text of the sample at `slot`, its separator from the previous one included.
    pub fn sample(&self, slot: usize) -> Result<String, GenerateError> {
        let mut text = String::new();
        with_slot(self.config, self.registry, &self.targets, slot, &mut |view| {
            text = match self.format {
                FileFormat::Jsonl => {
                    let mut line = String::new();
                    write_line(self.config, view, &mut |piece| {
                        line.push_str(piece);
                        Ok(())
                    })?;
                    line
                }
                FileFormat::Json => item_text(self.config, self.run, view, slot)?,
            };
            Ok(())
        })?;
        Ok(text)
    }

    /// The text after the last sample.
    pub fn tail(&self) -> String {
        match self.format {
            FileFormat::Jsonl => String::new(),
            FileFormat::Json => tail_text(self.slots()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::dataset::{write_json, write_jsonl, GENERATOR};
    use crate::engine::generate::{parse_structure, Topology};
    use crate::engine::graph::{from_json_str, ValidGraph};
    use crate::engine::tasks::registry::builtin;
    use crate::engine::tasks::Family;

    fn streamed(config: &GenerateConfig, registry: &Registry, run: &RunInfo, format: FileFormat) -> String {
        let mut text = String::new();
        let mut out = |piece: &str| -> Result<(), GenerateError> {
            text.push_str(piece);
            Ok(())
        };
        match format {
            FileFormat::Jsonl => write_jsonl(config, registry, &mut out, &mut |_, _| {}),
            FileFormat::Json => write_json(config, registry, run, &mut out, &mut |_, _| {}),
        }
        .expect("the run streams");
        text
    }

    #[test]
    fn head_slots_and_tail_in_any_order_of_making_join_to_the_streamed_file() {
        let registry = builtin();
        let diamond = ValidGraph::new(from_json_str(include_str!("../../../public/examples/diamond.json")).expect("a graph"), &registry).expect("valid");
        let topologies = [
            (Topology::Baseline, vec![Family::Math, Family::Python]),
            (Topology::Forgetting { distractors: 2 }, vec![Family::Gsm]),
            (Topology::Chain { length: 5 }, vec![Family::Math]),
            (Topology::Multichain(parse_structure("m,[m,m],[m,m],m").expect("a structure")), vec![Family::Math]),
            (Topology::Custom(Box::new(diamond)), vec![Family::Math]),
        ];
        let run = RunInfo { creation_time: Some("2026-01-01T00:00:00".into()), graph_path: None, generator: GENERATOR.into(), images: Default::default() };
        for (topology, families) in topologies {
            let mut config = GenerateConfig::new(topology, families);
            config.samples_per_target = 2;
            config.seed = 11;
            for format in [FileFormat::Json, FileFormat::Jsonl] {
                let file = SlotFile::new(&config, &registry, &run, format).expect("a run");
                // Made last first, as threads might finish them; joined in slot order.
                let mut pieces: Vec<(usize, String)> = (0..file.slots()).rev().map(|slot| (slot, file.sample(slot).expect("a sample"))).collect();
                pieces.sort_by_key(|(slot, _)| *slot);
                let joined = file.head().expect("a head") + &pieces.into_iter().map(|(_, text)| text).collect::<String>() + &file.tail();
                assert_eq!(joined, streamed(&config, &registry, &run, format), "{} as {format:?}", config.topology.name());
            }
        }
    }

    #[test]
    fn runs_with_pictures_and_runs_without_targets_are_refused() {
        let registry = builtin();
        let run = RunInfo::default();
        let pictures = GenerateConfig::new(Topology::Baseline, vec![Family::Image]);
        assert!(matches!(SlotFile::new(&pictures, &registry, &run, FileFormat::Json), Err(GenerateError::Config(m)) if m.contains("image")));
        let mut none = GenerateConfig::new(Topology::Baseline, vec![Family::Math]);
        none.only_targets = vec!["NoSuchTask".into()];
        assert!(SlotFile::new(&none, &registry, &run, FileFormat::Jsonl).is_err());
        // Settings every run refuses are refused before any slot is made (a ten-million-stage chain).
        let huge = GenerateConfig::new(Topology::Chain { length: 10_000_000 }, vec![Family::Math]);
        assert!(matches!(SlotFile::new(&huge, &registry, &run, FileFormat::Json), Err(GenerateError::Config(m)) if m.contains("chain length")));
    }
}
