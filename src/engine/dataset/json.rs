//! The reference-layout file written as a stream: the same bytes as `file_text(…, FileFormat::Json)`, without a
//! tree of the whole dataset. Samples are written one at a time as `generate_each` makes them, each member as
//! `to_json` describes it (`members`), the prompt in pieces and the per-stage lists stage by stage, so memory
//! stays at one sample (for custom graphs, one compiled sample) whatever the run's size.

use super::members::Members;
use super::pretty::PrettyWriter;
use super::{sample_members, summary_members, RunInfo, SummaryFacts};
use crate::engine::generate::{generate, generate_each, targets, GenerateConfig, GenerateError, Sample, SampleView};
use crate::engine::tasks::registry::Registry;

/// Generates the run and writes it to `out` in the reference layout, byte for byte what `file_text` writes for
/// the same samples. Nothing is written before the first sample exists, so a run that cannot start writes
/// nothing; `out` may refuse a piece (an IO error on the caller's side), which stops the run. Returns the number
/// of samples.
///
/// Runs that may draw pictures are generated whole first and then written sample by sample (the summary names
/// the first picture's parameters, which may belong to any sample, and only held samples carry pictures); their
/// pictures are drawn one sample at a time, never all held as data URLs.
pub fn write_json(config: &GenerateConfig, registry: &Registry, run: &RunInfo, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>, progress: &mut dyn FnMut(usize, usize)) -> Result<usize, GenerateError> {
    if config.may_draw_pictures() {
        let samples = generate(config, registry, progress)?;
        write_json_samples(config, &samples, run, out)?;
        return Ok(samples.len());
    }
    let mut file = JsonFile::new(config, run, out);
    let written = generate_each(config, registry, progress, &mut |view| {
        if !file.is_started() {
            // Generation makes every sample or fails, so the counts follow from the targets; the summary's target
            // family is the first sample's, as `to_json` reads it.
            let num_targets = targets(config, registry)?.len();
            let facts = SummaryFacts { num_targets, num_samples: num_targets * config.samples_per_target as usize, target_family: view.target().family.as_str(), image_params: None };
            file.start(&facts)?;
        }
        file.sample(view)
    })?;
    file.finish(|| SummaryFacts::of_samples(&[]))?;
    Ok(written)
}

/// Writes samples held in memory as `file_text(…, FileFormat::Json)` does, without building its tree: for runs
/// whose pictures are also written as files, which need the samples.
pub fn write_json_samples(config: &GenerateConfig, samples: &[Sample], run: &RunInfo, out: &mut dyn FnMut(&str) -> Result<(), GenerateError>) -> Result<(), GenerateError> {
    let facts = SummaryFacts::of_samples(samples);
    let mut file = JsonFile::new(config, run, out);
    file.start(&facts)?;
    for sample in samples {
        file.sample(sample)?;
    }
    file.finish(|| facts)
}

/// The text of the file before its first sample: `{`, the summary, and the samples list's opening. `facts`
/// are those `write_json` finds when the first sample exists.
pub(crate) fn head_text(config: &GenerateConfig, run: &RunInfo, facts: &SummaryFacts) -> Result<String, GenerateError> {
    let mut text = String::new();
    let mut out = |piece: &str| -> Result<(), GenerateError> {
        text.push_str(piece);
        Ok(())
    };
    let mut file = JsonFile::new(config, run, &mut out);
    file.start(facts)?;
    file.writer.flush()?;
    Ok(text)
}

/// The text of the sample at `position` of the samples list, its separator included, as `write_json` writes it.
pub(crate) fn item_text(config: &GenerateConfig, run: &RunInfo, view: &dyn SampleView, position: usize) -> Result<String, GenerateError> {
    let mut text = String::new();
    let mut out = |piece: &str| -> Result<(), GenerateError> {
        text.push_str(piece);
        Ok(())
    };
    // Inside the file's object (its summary and samples keys written) and its samples list.
    let mut file = JsonFile { config, run, writer: PrettyWriter::within(&mut out, vec![2, position]), started: true };
    file.sample(view)?;
    file.writer.flush()?;
    Ok(text)
}

/// The text after the last of `count` (at least one) samples: the list's and the file's closings.
pub(crate) fn tail_text(count: usize) -> String {
    let mut text = String::new();
    let mut out = |piece: &str| -> Result<(), GenerateError> {
        text.push_str(piece);
        Ok(())
    };
    let mut writer = PrettyWriter::within(&mut out, vec![2, count]);
    writer.end(']');
    writer.end('}');
    writer.push("\n");
    let _ = writer.flush();
    text
}

/// A file being written: `{"summary": …, "samples": [` once the summary is known, then one sample at a time.
struct JsonFile<'a> {
    config: &'a GenerateConfig,
    run: &'a RunInfo,
    writer: PrettyWriter<'a>,
    started: bool,
}

impl<'a> JsonFile<'a> {
    fn new(config: &'a GenerateConfig, run: &'a RunInfo, out: &'a mut dyn FnMut(&str) -> Result<(), GenerateError>) -> JsonFile<'a> {
        JsonFile { config, run, writer: PrettyWriter::new(out), started: false }
    }

    fn is_started(&self) -> bool {
        self.started
    }

    /// The file's opening and summary, up to the samples list's opening.
    fn start(&mut self, facts: &SummaryFacts) -> Result<(), GenerateError> {
        self.started = true;
        self.writer.begin('{');
        self.writer.object("summary", &mut |members| summary_members(self.config, self.run, facts, members))?;
        self.writer.key("samples");
        self.writer.begin('[');
        Ok(())
    }

    fn sample(&mut self, view: &dyn SampleView) -> Result<(), GenerateError> {
        self.writer.item();
        self.writer.begin('{');
        sample_members(self.config, view, &self.run.images, &mut self.writer)?;
        self.writer.end('}');
        self.writer.spill()
    }

    /// Closes the file, starting it first with `facts` if no sample came.
    fn finish(mut self, facts: impl FnOnce() -> SummaryFacts) -> Result<(), GenerateError> {
        if !self.started {
            self.start(&facts())?;
        }
        self.writer.end(']');
        self.writer.end('}');
        self.writer.push("\n");
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::dataset::{file_text, FileFormat, ImageStorage, GENERATOR};
    use crate::engine::generate::{parse_structure, Topology};
    use crate::engine::graph::{from_json_str, random_dag, ValidGraph};
    use crate::engine::tasks::registry::builtin;
    use crate::engine::tasks::Family;

    /// Every topology, several families and both kinds of run facts.
    fn runs() -> Vec<(GenerateConfig, RunInfo)> {
        let registry = builtin();
        let mut topologies: Vec<(Topology, Vec<Family>)> = Vec::new();
        for family in [Family::Math, Family::Gsm, Family::Python] {
            topologies.push((Topology::Baseline, vec![family]));
            topologies.push((Topology::Forgetting { distractors: 2 }, vec![family]));
            topologies.push((Topology::Chain { length: 4 }, vec![family]));
        }
        topologies.push((Topology::Chain { length: 1 }, vec![Family::Math]));
        topologies.push((Topology::Forgetting { distractors: 0 }, vec![Family::Python]));
        for structure in ["m,m,[m,m],[m,m],m,m", "p,[m,m],[m,m],m"] {
            topologies.push((Topology::Multichain(parse_structure(structure).expect("a structure")), vec![Family::Math]));
        }
        for (graph, families) in [
            (include_str!("../../../public/examples/diamond.json"), vec![Family::Math]),
            (include_str!("../../../public/examples/chain4.json"), vec![Family::Math]),
            (include_str!("../../../public/examples/diamond.json"), vec![Family::Math, Family::Python, Family::Gsm]),
        ] {
            let valid = ValidGraph::new(from_json_str(graph).expect("an example graph"), &registry).expect("a valid example");
            topologies.push((Topology::Custom(Box::new(valid)), families));
        }
        // Python and word-problem stages, picks and packs, several roots.
        let families = vec![Family::Math, Family::Python, Family::Gsm];
        let graph = random_dag(60, 9, &families, &registry).expect("a graph");
        topologies.push((Topology::Custom(Box::new(ValidGraph::new(graph, &registry).expect("random graphs are valid"))), families));
        let timed = RunInfo { creation_time: Some("2025-01-02T03:04:05".into()), graph_path: Some("public/examples/g.json".into()), generator: GENERATOR.into(), images: ImageStorage::Inline };
        let mut out = Vec::new();
        for (topology, families) in topologies {
            let config = GenerateConfig { samples_per_target: 1, seed: 5, ..GenerateConfig::new(topology, families) };
            out.push((config.clone(), RunInfo::default()));
            out.push((config, timed.clone()));
        }
        out
    }

    /// Checks that `write_json` and `write_json_samples` write `file_text`'s bytes; returns them.
    #[track_caller]
    fn check(config: &GenerateConfig, run: &RunInfo) -> String {
        let registry = builtin();
        let samples = generate(config, &registry, &mut |_, _| {}).expect("generates");
        let want = file_text(config, &samples, run, FileFormat::Json);
        let mut streamed = String::new();
        let mut pieces = 0;
        let count = write_json(
            config,
            &registry,
            run,
            &mut |piece| {
                streamed.push_str(piece);
                pieces += 1;
                Ok(())
            },
            &mut |_, _| {},
        )
        .expect("streams");
        let name = format!("{} {:?} {:?}", config.topology.name(), config.families, run.creation_time);
        assert_eq!(count, samples.len(), "{name}");
        if streamed != want {
            let at = streamed.bytes().zip(want.bytes()).position(|(a, b)| a != b).unwrap_or(streamed.len().min(want.len()));
            let context = |text: &str| text[at.saturating_sub(200)..(at + 200).min(text.len())].to_string();
            panic!("{name}: streamed file differs at byte {at}:\n--- streamed\n{}\n--- tree\n{}", context(&streamed), context(&want));
        }
        let mut held = String::new();
        write_json_samples(config, &samples, run, &mut |piece| {
            held.push_str(piece);
            Ok(())
        })
        .expect("writes");
        assert!(held == want, "{name}: held samples written differently");
        assert!(pieces >= 1);
        want
    }

    #[test]
    fn streamed_files_equal_the_tree_writers_files_byte_for_byte() {
        let mut custom_word_problems = false;
        for (config, run) in runs() {
            let text = check(&config, &run);
            custom_word_problems |= matches!(config.topology, Topology::Custom(_)) && text.contains("\"template_index\"");
        }
        assert!(custom_word_problems, "a custom graph's word-problem stages were streamed from compiled samples");
    }

    #[test]
    fn runs_with_pictures_are_written_as_the_tree_writer_writes_them() {
        let mut config = GenerateConfig::new(Topology::Chain { length: 2 }, vec![Family::Math, Family::Image]);
        config.samples_per_target = 1;
        config.only_targets = vec!["math.ConvolutionTask".into(), crate::engine::tasks::image::TRAVERSAL_KEY.into()];
        assert!(check(&config, &RunInfo::default()).contains("data:image/png;base64,"));
        let files = RunInfo { images: ImageStorage::Files { dir: "images".into() }, ..RunInfo::default() };
        assert!(check(&config, &files).contains("\"file\": \"images/"));
    }

    #[test]
    fn a_long_custom_prompt_is_handed_over_in_pieces() {
        let registry = builtin();
        let graph = random_dag(2_000, 9, &[Family::Math], &registry).expect("a graph");
        let valid = ValidGraph::new(graph, &registry).expect("random graphs are valid");
        let config = GenerateConfig { samples_per_target: 1, seed: 2, only_targets: vec!["math.ConvolutionTask".into()], ..GenerateConfig::new(Topology::Custom(Box::new(valid)), vec![Family::Math]) };
        let mut largest = 0;
        let mut total = 0;
        write_json(
            &config,
            &registry,
            &RunInfo::default(),
            &mut |piece| {
                largest = largest.max(piece.len());
                total += piece.len();
                Ok(())
            },
            &mut |_, _| {},
        )
        .expect("streams");
        assert!(total > 1 << 20, "a 2,000-node sample is over a megabyte ({total} bytes)");
        assert!(largest < 1 << 18, "pieces stay small ({largest} bytes)");
    }

    #[test]
    fn a_run_that_cannot_make_its_first_sample_writes_nothing() {
        let registry = builtin();
        let mut config = GenerateConfig::new(Topology::Chain { length: 3 }, vec![Family::Math]);
        config.only_targets = vec!["no.SuchTask".into()];
        let mut written = String::new();
        let result = write_json(
            &config,
            &registry,
            &RunInfo::default(),
            &mut |piece| {
                written.push_str(piece);
                Ok(())
            },
            &mut |_, _| {},
        );
        assert_eq!(result, Err(GenerateError::NoTargets));
        assert_eq!(written, "");
    }

    #[test]
    fn a_sink_that_refuses_stops_the_run_with_its_error() {
        let registry = builtin();
        let config = GenerateConfig { samples_per_target: 3, ..GenerateConfig::new(Topology::Chain { length: 6 }, vec![Family::Math]) };
        let mut room = 100_000usize;
        let mut disk = |piece: &str| {
            room = room.checked_sub(piece.len()).ok_or_else(|| GenerateError::Write("disk full".into()))?;
            Ok(())
        };
        let result = write_json(&config, &registry, &RunInfo::default(), &mut disk, &mut |_, _| {});
        assert_eq!(result, Err(GenerateError::Write("disk full".into())));
    }
}
