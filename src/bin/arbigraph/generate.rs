//! `arbigraph generate`: a dataset for a topology, written in the reference's JSON layout or as JSONL, streamed
//! either way: each sample is written as it is made, unless the run draws pictures.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arbigraph_studio::engine::dataset::{self, FileFormat, ImageStorage, RunInfo, SlotFile};
use arbigraph_studio::engine::generate::{self, GenerateConfig, GenerateError, Topology, TopologyParams};
use arbigraph_studio::engine::graph::{self, ValidGraph};
use arbigraph_studio::engine::tasks::image::ImageParams;
use arbigraph_studio::engine::tasks::pack::Pack;
use arbigraph_studio::engine::tasks::registry::{builtin_with, FamilyChoice, Registry};
use arbigraph_studio::engine::tasks::Family;

use super::files::{fail, write_text, Progress};
use super::render_image::ImageArgs;

/// Arguments of `arbigraph generate`.
#[derive(clap::Args)]
pub struct Args {
    /// baseline, forgetting, chain, multichain or custom.
    #[arg(long, default_value = "baseline")]
    topology: String,
    /// The custom graph (node-link JSON), for `--topology custom`.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// Multichain structure, e.g. `m,m,[m,m],[m,m],m,m` (default: that shape in the chosen family).
    #[arg(long)]
    structure: Option<String>,
    /// math, gsm, python, image, mixed (math, gsm and python), or a comma-separated list such as `math,image`.
    /// With a pack of a family, the family names the pack's tasks; `python.ours`, `python.ref`, `gsm.ours` and
    /// `gsm.symbolic` name one source (`python.ours,python.ref` both).
    #[arg(long, default_value = "math")]
    family: String,
    /// A task pack: `python=FILE` (a LeetCode-style pool, tasks `python.ref.<name>`) or `gsm=DIR_OR_FILE`
    /// (GSM-Symbolic templates, tasks `gsm.symbolic.<id>`); repeatable. Refused entries are listed as warnings.
    #[arg(long = "pack")]
    packs: Vec<String>,
    /// Samples per target task.
    #[arg(long, default_value_t = 16)]
    samples_per_target: u32,
    /// Run seed: the output is a pure function of the arguments.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Chain length (the target included).
    #[arg(long, default_value_t = 4)]
    length: usize,
    /// Forgetting: number of distractor tasks before the target.
    #[arg(long, default_value_t = 3)]
    distractors: usize,
    /// Attempts per sample before giving up.
    #[arg(long, default_value_t = 100)]
    max_attempts: u32,
    /// Only these targets (task key like `math.ConvolutionTask` or task name); repeatable, or comma-separated.
    #[arg(long = "target")]
    targets: Vec<String>,
    /// `summary.creation_time`: `now`, an ISO timestamp, or omitted (null) for byte-identical reruns.
    #[arg(long)]
    creation_time: Option<String>,
    /// Output file: `.json` (reference layout) or `.jsonl` (one instance per line); `-` for stdout JSON.
    #[arg(short, long)]
    output: PathBuf,
    /// Write pictures of image tasks as PNG files into this directory (created if needed) instead of inline
    /// data URLs; samples name their files.
    #[arg(long)]
    images_dir: Option<PathBuf>,
    #[command(flatten)]
    image: ImageArgs,
    /// When done, print the process's peak resident memory on stderr (Linux; `bench --scale` reads it).
    #[arg(long)]
    peak_memory: bool,
    /// Threads that make samples (default: the machine's cores, at most 16). The output is byte for byte the
    /// same for any number. Custom graphs and runs with pictures use one.
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let code = match build(&args) {
        Ok(code) => code,
        Err(message) => fail(message),
    };
    if args.peak_memory {
        match peak_kib() {
            Some(kib) => eprintln!("peak memory: {kib} KiB"),
            None => eprintln!("peak memory: unknown on this system"),
        }
    }
    code
}

/// `VmHWM` of this process, in KiB.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn build(args: &Args) -> Result<ExitCode, String> {
    // A custom graph is read first: its own picture parameters are the base the flags change.
    let parsed = match (args.topology.as_str(), &args.graph) {
        ("custom", Some(path)) => {
            // Read straight from the buffered file: a million-node graph is never held as text or as a JSON tree.
            let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let parsed = graph::from_json_reader(std::io::BufReader::new(file)).map_err(|errors| {
                let lines: Vec<String> = errors.iter().map(|e| format!("  {}: {e}", path.display())).collect();
                format!("{} is not a valid graph file:\n{}", path.display(), lines.join("\n"))
            })?;
            Some((path, parsed))
        }
        _ => None,
    };
    let base = parsed.as_ref().and_then(|(_, g)| g.image_params().copied()).unwrap_or_default();
    let image_params = args.image.params_over(base)?;
    let packs = args.packs.iter().map(|spec| super::packs::load(spec)).collect::<Result<Vec<Pack>, String>>()?;
    super::packs::warn_refusals(&packs);
    let everything = registry_with(image_params, &packs)?;
    let choice = FamilyChoice::parse(&args.family, &everything).map_err(|e| format!("--family: {e}"))?;
    let registry = everything.view(&choice);
    let families = choice.families.clone();
    let mut graph_path = None;
    let topology = match args.topology.as_str() {
        "custom" => {
            let (path, parsed) = parsed.ok_or("--topology custom needs --graph FILE")?;
            let valid = ValidGraph::new(parsed, &registry).map_err(|issues| {
                let lines: Vec<String> = issues.iter().map(|i| format!("  {i}")).collect();
                format!("{} has {} problem(s):\n{}", path.display(), issues.len(), lines.join("\n"))
            })?;
            graph_path = Some(path.display().to_string());
            Topology::Custom(Box::new(valid))
        }
        _ => plain_topology(args, &families)?,
    };
    let config = config_of(args, topology, families.clone());
    let total_hint = generate::targets(&config, &registry).map_err(|e| e.to_string())?.len() * args.samples_per_target as usize;
    for (key, reason) in generate::skipped_targets(&config, &registry) {
        eprintln!("skipped {key}: {reason}");
    }
    if total_hint > 10_000_000 {
        return Err(format!("{total_hint} samples requested; at most 10,000,000 per run"));
    }
    let mut progress = Progress::new("generating");
    let creation_time = match args.creation_time.as_deref() {
        Some("now") => Some(now_iso()),
        other => other.map(str::to_string),
    };
    let jsonl = args.output.extension().is_some_and(|e| e == "jsonl");
    if !config.may_draw_pictures() {
        // Written as samples are made, so memory stays at one sample whatever the run's size.
        let run = RunInfo { creation_time, graph_path, generator: dataset::GENERATOR.to_string(), images: ImageStorage::Inline };
        let threads = match args.threads {
            Some(0) => return Err("--threads must be at least 1".into()),
            Some(n) => n.min(256),
            None => std::thread::available_parallelism().map_or(1, |n| n.get()).min(16),
        };
        let format = if jsonl { FileFormat::Jsonl } else { FileFormat::Json };
        let parallel = threads > 1 && total_hint > 1 && !matches!(config.topology, Topology::Custom(_));
        let written = stream(&args.output, &mut progress, &mut |out, progress| {
            if parallel {
                write_in_threads(threads.min(total_hint), &config, &registry, args, (image_params, &packs, &choice), &run, format, out, progress)
            } else if jsonl {
                dataset::write_jsonl(&config, &registry, out, progress)
            } else {
                dataset::write_json(&config, &registry, &run, out, progress)
            }
        })?;
        progress.finish();
        if args.output.as_os_str() != "-" {
            eprintln!("wrote {written} samples to {}", args.output.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Pictures need the samples held: their files are written from them, and the summary names the first one.
    let samples = generate::generate(&config, &registry, &mut |done, total| progress.update(done, total)).map_err(|e| e.to_string())?;
    progress.finish();
    let images = match &args.images_dir {
        None => ImageStorage::Inline,
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let files = dataset::image_files(&config, &samples).map_err(|e| e.to_string())?;
            for (name, bytes) in &files {
                let path = dir.join(name);
                std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            if !files.is_empty() {
                eprintln!("wrote {} pictures to {}", files.len(), dir.display());
            }
            ImageStorage::Files { dir: relative_to_output(dir, &args.output) }
        }
    };
    let run = RunInfo { creation_time, graph_path, generator: dataset::GENERATOR.to_string(), images };
    if jsonl {
        write_text(&args.output, &dataset::file_text(&config, &samples, &run, FileFormat::Jsonl))?;
    } else {
        // Without a tree of the whole file: each sample's pictures are encoded only while it is written.
        stream(&args.output, &mut progress, &mut |out, _| dataset::write_json_samples(&config, &samples, &run, out).map(|()| samples.len()))?;
    }
    if args.output.as_os_str() != "-" {
        eprintln!("wrote {} samples to {}", samples.len(), args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Our tasks (image tasks drawing with `image`) and every pack's.
fn registry_with(image: ImageParams, packs: &[Pack]) -> Result<Registry, String> {
    let mut registry = builtin_with(image);
    for pack in packs {
        registry.add_pack(pack).map_err(|e| format!("--pack {}: {e} (each kind of pack may be given once)", pack.origin))?;
    }
    Ok(registry)
}

/// The topology the flags name, for every topology but `custom` (which needs its graph read and checked).
fn plain_topology(args: &Args, families: &[Family]) -> Result<Topology, String> {
    let params = TopologyParams { distractors: args.distractors, length: args.length, structure: args.structure.as_deref() };
    Topology::parse(&args.topology, &params, families[0]).map_err(|e| if e.starts_with("structure") { format!("--{e}") } else { e })
}

/// The run's settings from the flags and `topology`.
fn config_of(args: &Args, topology: Topology, families: Vec<Family>) -> GenerateConfig {
    GenerateConfig {
        topology,
        families,
        samples_per_target: args.samples_per_target,
        seed: args.seed,
        max_attempts: args.max_attempts,
        only_targets: args.targets.iter().flat_map(|t| t.split(',')).map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect(),
    }
}

/// Writes the run with `threads` threads making samples: thread k makes slots k, k + threads, …, each with its
/// own registry and settings (rebuilt from `args`: tasks are not shared between threads), and the calling thread,
/// with the run's `config` and `registry`, writes them in slot order, so the bytes are those of one thread. Each
/// thread runs at most two samples ahead of the writer, so memory stays at a few samples per thread.
fn write_in_threads(
    threads: usize,
    config: &GenerateConfig,
    registry: &Registry,
    args: &Args,
    (image, packs, choice): (ImageParams, &[Pack], &FamilyChoice),
    run: &RunInfo,
    format: FileFormat,
    out: &mut dyn FnMut(&str) -> Result<(), GenerateError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<usize, GenerateError> {
    use std::sync::mpsc::sync_channel;
    std::thread::scope(|scope| {
        let mut lanes = Vec::with_capacity(threads);
        let families = &config.families;
        for lane in 0..threads {
            let (send, receive) = sync_channel::<Result<String, GenerateError>>(2);
            lanes.push(receive);
            scope.spawn(move || {
                // Each thread has its own registry and settings: tasks are not shared between threads.
                let registry = match registry_with(image, packs) {
                    Ok(registry) => registry.view(choice),
                    Err(e) => return drop(send.send(Err(GenerateError::Config(e)))),
                };
                let config = match plain_topology(args, families) {
                    Ok(topology) => config_of(args, topology, families.to_vec()),
                    Err(e) => return drop(send.send(Err(GenerateError::Config(e)))),
                };
                let file = match SlotFile::new(&config, &registry, run, format) {
                    Ok(file) => file,
                    Err(e) => return drop(send.send(Err(e))),
                };
                // A closed channel means the writer stopped (an error elsewhere): stop too.
                for slot in (lane..file.slots()).step_by(threads) {
                    if send.send(file.sample(slot)).is_err() {
                        return;
                    }
                }
            });
        }
        let file = SlotFile::new(config, registry, run, format)?;
        let total = file.slots();
        for slot in 0..total {
            let text = lanes[slot % threads].recv().map_err(|_| GenerateError::Config(format!("the thread making sample {slot} stopped")))??;
            if slot == 0 {
                out(&file.head()?)?;
            }
            out(&text)?;
            progress(slot + 1, total);
        }
        out(&file.tail())?;
        Ok(total)
    })
}

/// A writer of a dataset: takes the text's pieces and reports progress as `(done, total)`.
type DatasetWriter<'a> = dyn FnMut(&mut dyn FnMut(&str) -> Result<(), GenerateError>, &mut dyn FnMut(usize, usize)) -> Result<usize, GenerateError> + 'a;

/// Runs `write` into `path` (stdout for `-`) through a buffered writer and returns its sample count. The file is
/// created with the first piece and, if a regular file, removed if the run then fails (an IO error, or a sample
/// that cannot be made), so a failed run leaves no half-written dataset, as before streaming. Once the first
/// sample is written, a run heading for more than `LARGE_OUTPUT` bytes says how big its output will be.
fn stream(path: &Path, progress: &mut Progress, write: &mut DatasetWriter<'_>) -> Result<usize, String> {
    let to_stdout = path.as_os_str() == "-";
    let name = || if to_stdout { "stdout".to_string() } else { path.display().to_string() };
    let open = || -> std::io::Result<Box<dyn Write>> { Ok(if to_stdout { Box::new(std::io::stdout().lock()) } else { Box::new(std::fs::File::create(path)?) }) };
    let mut writer: Option<std::io::BufWriter<Box<dyn Write>>> = None;
    let bytes = std::cell::Cell::new(0u64);
    let mut failure: Option<std::io::Error> = None;
    let result = write(
        &mut |piece| {
            bytes.set(bytes.get() + piece.len() as u64);
            let mut put = || -> std::io::Result<()> {
                if writer.is_none() {
                    writer = Some(std::io::BufWriter::with_capacity(1 << 20, open()?));
                }
                writer.as_mut().expect("opened above").write_all(piece.as_bytes())
            };
            put().map_err(|e| {
                let message = e.to_string();
                failure = Some(e);
                GenerateError::Write(message)
            })
        },
        &mut |done, total| {
            if done == 1 && total > 1 {
                // The first sample (with the summary) times the number of samples.
                let expected = bytes.get().saturating_mul(total as u64);
                if expected > LARGE_OUTPUT {
                    eprintln!("the output will be about {}", size_text(expected));
                }
            }
            progress.update(done, total);
        },
    );
    let flushed = match writer.as_mut() {
        Some(writer) if result.is_ok() && failure.is_none() => writer.flush(),
        _ => Ok(()),
    };
    let outcome = match (result, failure.or(flushed.err())) {
        (Ok(written), None) => Ok(written),
        (_, Some(e)) => Err(format!("cannot write {}: {e}", name())),
        (Err(e), None) => Err(e.to_string()),
    };
    // Only a regular file is removed (never `/dev/null` or a pipe named as the output). Best effort: the error
    // is what the user needs, and a file that cannot be removed shows the rest.
    if outcome.is_err() && writer.take().is_some() && !to_stdout && std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(path);
    }
    outcome
}

/// Outputs past this size (about 2 GB) are announced with their expected size.
const LARGE_OUTPUT: u64 = 2_000_000_000;

/// A byte count in decimal units with one decimal (`9.1 GB`).
fn size_text(bytes: u64) -> String {
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6)];
    match units.iter().find(|(_, size)| bytes as f64 >= *size) {
        Some((unit, size)) => format!("{:.1} {unit}", bytes as f64 / size),
        None => format!("{bytes} bytes"),
    }
}

/// How the dataset should name the images directory: relative to the dataset's own directory when inside it.
fn relative_to_output(dir: &std::path::Path, output: &std::path::Path) -> String {
    let base = output.parent().filter(|p| !p.as_os_str().is_empty());
    let shown = match base {
        Some(base) => dir.strip_prefix(base).unwrap_or(dir),
        None => dir,
    };
    shown.to_string_lossy().replace('\\', "/")
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SS` (the CLI is the only place that reads the clock).
fn now_iso() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (proleptic Gregorian), after Howard Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}
