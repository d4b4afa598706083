//! `arbigraph packs`: reads task packs the user brings (`--pack python=FILE`, `--pack gsm=DIR_OR_FILE`) and lists
//! each one's tasks with their kinds and the refused entries with why; `--check DATASET` compares the pack's
//! ground truths with a reference baseline dataset made from the same files. The reading of `--pack` is shared
//! with `generate`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arbigraph_studio::engine::tasks::image::ImageParams;
use arbigraph_studio::engine::tasks::pack::{Pack, PackKind};
use arbigraph_studio::engine::tasks::registry::{builtin_with, FamilyChoice, Registry};
use arbigraph_studio::engine::tasks::Family;

use super::files::{fail, read_text};

/// Arguments of `arbigraph packs`.
#[derive(clap::Args)]
pub struct Args {
    /// A pack: `python=FILE` (a LeetCode-style pool) or `gsm=DIR_OR_FILE` (GSM-Symbolic templates); repeatable.
    /// A bare path is read by its look: a folder or `.json` file as templates, anything else as a pool.
    #[arg(long = "pack", required = true)]
    packs: Vec<String>,
    /// Compare with a reference baseline dataset (`python_baseline.json`, `gsm_baseline.json`): for every sample
    /// of the pack's family, our ground truth for the same task and inputs against the stored one.
    #[arg(long)]
    check: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let mut packs = Vec::new();
    for spec in &args.packs {
        match load(spec) {
            Ok(pack) => packs.push(pack),
            Err(message) => return fail(message),
        }
    }
    for pack in &packs {
        print_pack(pack);
    }
    match &args.check {
        None => ExitCode::SUCCESS,
        Some(path) => match super::pack_check::check(&packs, path) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(message) => fail(message),
        },
    }
}

/// Reads the pack a `--pack` argument names (`KIND=PATH`, or a bare path read by its look).
pub fn load(spec: &str) -> Result<Pack, String> {
    let (kind, path) = match spec.split_once('=') {
        Some((name, path)) => {
            let kind = PackKind::parse(name).ok_or_else(|| format!("--pack {spec}: unknown pack kind `{name}` (python=FILE or gsm=DIR_OR_FILE)"))?;
            (kind, PathBuf::from(path))
        }
        None => {
            let path = PathBuf::from(spec);
            let templates = path.is_dir() || path.extension().is_some_and(|e| e == "json");
            (if templates { PackKind::GsmSymbolic } else { PackKind::PythonRef }, path)
        }
    };
    let shown = path.display().to_string();
    match kind {
        PackKind::PythonRef => {
            if path.is_dir() {
                return Err(format!("--pack {spec}: {shown} is a folder; a python pack is one pool file"));
            }
            Pack::python_ref(&shown, &read_text(&path)?).map_err(|e| e.to_string())
        }
        PackKind::GsmSymbolic => Pack::gsm_symbolic(&shown, &template_files(&path)?).map_err(|e| e.to_string()),
    }
}

/// The template files of a GSM pack: a folder's `.json` files sorted by name, or the one file named.
fn template_files(path: &Path) -> Result<Vec<(String, String)>, String> {
    if !path.is_dir() {
        return Ok(vec![(path.display().to_string(), read_text(path)?)]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no .json template files in this folder", path.display()));
    }
    files.into_iter().map(|p| Ok((p.display().to_string(), read_text(&p)?))).collect()
}

/// Prints a pack's tasks (key, kinds, location, notes) and its refusals. A closed pipe (`| head`) ends the listing.
fn print_pack(pack: &Pack) {
    use std::io::Write;
    let mut lines = vec![format!("{} pack {}: {} task(s), {} refused", pack.kind, pack.origin, pack.entries.len(), pack.refused.len())];
    for entry in &pack.entries {
        let inputs: Vec<String> = entry.input_kinds.iter().map(|k| k.to_string()).collect();
        lines.push(format!("  {:<44} {} -> {}  ({}, {})", entry.key, inputs.join("|"), entry.output_kind, entry.name, entry.location));
        lines.extend(entry.notes.iter().map(|note| format!("      note: {note}")));
    }
    lines.extend(pack.refused.iter().map(|refusal| format!("  refused {refusal}")));
    let mut out = std::io::stdout().lock();
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}

/// Prints the refused entries of the packs on stderr, as `generate` warns before it starts.
pub fn warn_refusals(packs: &[Pack]) {
    for pack in packs {
        for refusal in &pack.refused {
            eprintln!("warning: {} pack {}: cannot use {refusal}", pack.kind, pack.origin);
        }
    }
}

/// The registry a graph is checked against (`inspect`, `render`): ours with `image`, and the packs `specs` name,
/// each family drawn from its pack when one is given (as `generate --family` with a bare family does).
pub fn checking_registry(image: ImageParams, specs: &[String]) -> Result<Registry, String> {
    let packs = specs.iter().map(|spec| load(spec)).collect::<Result<Vec<Pack>, String>>()?;
    warn_refusals(&packs);
    let mut registry = builtin_with(image);
    for pack in &packs {
        registry.add_pack(pack).map_err(|e| format!("--pack {}: {e} (each kind of pack may be given once)", pack.origin))?;
    }
    Ok(registry.view(&FamilyChoice { families: Family::ALL.to_vec(), sources: Vec::new() }))
}
