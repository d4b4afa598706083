//! `arbigraph merge PART… -o results.json`: the results files of a run's shards (`eval --shard I/N`) put back
//! into the file one unsharded run writes (`engine::results::merge_parts`). Nothing is written when the parts
//! overlap, leave samples out, or come from different datasets or settings.

use arbigraph_studio::engine::dataset::to_pretty_string;
use arbigraph_studio::engine::results::merge_parts;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `arbigraph merge`.
#[derive(clap::Args)]
pub struct Args {
    /// The shards' results files, in any order.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// The merged results file.
    #[arg(short, long)]
    output: PathBuf,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let parts = match args.parts.iter().map(|path| super::files::read_json(path).map(|json| (path.display().to_string(), json))).collect::<Result<Vec<_>, _>>() {
        Ok(parts) => parts,
        Err(message) => return super::files::fail(message),
    };
    if args.parts.contains(&args.output) {
        return super::files::fail(format!("{}: the output is one of the parts; name another file", args.output.display()));
    }
    let merged = match merge_parts(&parts) {
        Ok(merged) => merged,
        Err(e) => return super::files::fail(format!("cannot merge: {e}; nothing written")),
    };
    if let Err(message) = super::files::write_text(&args.output, &to_pretty_string(&merged)) {
        return super::files::fail(message);
    }
    let count = merged.get("samples").and_then(|s| s.as_array()).map_or(0, Vec::len);
    eprintln!("[merge] {} parts, {count} samples → {}", parts.len(), args.output.display());
    ExitCode::SUCCESS
}
