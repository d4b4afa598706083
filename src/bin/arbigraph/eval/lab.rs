//! The strategy lab of `arbigraph eval`: `--strategy` given several times runs every strategy, one after the
//! other, on the same samples against the same endpoint, each into its own results file in the `--output`
//! folder (named after the strategy as given: `acg:clusters=0` → `acg-clusters-0.json`), then prints the
//! `arbigraph grade --compare` table of all of them, paired against the first. Each run is `eval::run_one`, so
//! resume, journals and refusals are the single run's: running the same command again continues every
//! unfinished file and skips the finished ones.

use super::{run_one, strategy_of, Args};
use arbigraph_studio::engine::agent::strategy;
use arbigraph_studio::engine::results::GradeOptions;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The `--strategy` help: the registry's, then how a lab is asked for.
pub fn strategy_help() -> String {
    format!(
        "{}\nRepeat --strategy to run a strategy lab: every strategy on the same samples against the same endpoint, \
one results file each in the --output folder (named after the strategy: `acg:clusters=0` -> acg-clusters-0.json), \
then the `arbigraph grade --compare` table, paired against the first strategy.",
        strategy::help()
    )
}

/// A file name for the strategy `spec` as given: lowercase letters and digits, every other run of characters a
/// single `-` (`window:exchanges=4` → `window-exchanges-4`).
pub fn file_stem(spec: &str) -> String {
    let mut out = String::new();
    for c in spec.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Each strategy's results file in `folder`, in the order given, after checking every strategy against the
/// registry: an unknown one, a bad parameter, the same strategy twice (parameters at their defaults count as
/// given) or two strategies that would share a file are refused, naming the `--strategy` by its place.
pub fn plan(args: &Args, folder: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let mut planned: Vec<(String, String, PathBuf)> = Vec::new();
    for (at, spec) in args.strategies().iter().enumerate() {
        let place = format!("--strategy (#{} `{spec}`)", at + 1);
        let parsed = strategy_of(&args.one(spec, PathBuf::new())).map_err(|e| format!("{place}: {}", e.trim_start_matches("--strategy: ")))?;
        let canonical = parsed.to_string();
        let stem = file_stem(spec);
        if let Some(first) = planned.iter().position(|(c, _, _)| *c == canonical) {
            return Err(format!("{place}: the same strategy as #{} `{}` ({canonical}); give each strategy once", first + 1, planned[first].1));
        }
        let path = folder.join(format!("{stem}.json"));
        if let Some(first) = planned.iter().position(|(_, _, p)| *p == path) {
            return Err(format!("{place}: its results file {} is also #{}'s; write the strategy differently", path.display(), first + 1));
        }
        planned.push((canonical, spec.clone(), path));
    }
    Ok(planned.into_iter().map(|(_, spec, path)| (spec, path)).collect())
}

/// Runs the lab.
pub fn run(args: &Args) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(message) => crate::files::fail(message),
    }
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    if args.has_strategy_params() {
        return Err("--strategy-param: with several --strategy it would change them all; give each strategy's parameters as NAME:key=value".into());
    }
    let folder = args.output();
    if folder.is_file() || folder.extension().is_some_and(|e| e == "json" || e == "jsonl") {
        return Err(format!(
            "--output: {} names a file; with several --strategy it names a folder that takes one results file per strategy",
            folder.display()
        ));
    }
    let planned = plan(args, folder)?;
    std::fs::create_dir_all(folder).map_err(|e| format!("--output: cannot create the folder {}: {e}", folder.display()))?;
    let mut code = ExitCode::SUCCESS;
    for (at, (spec, path)) in planned.iter().enumerate() {
        eprintln!("[lab] {}/{}: {spec} -> {}", at + 1, planned.len(), path.display());
        let outcome = run_one(&args.one(spec, path.clone())).map_err(|e| format!("strategy `{spec}`: {e}"))?;
        if outcome != ExitCode::SUCCESS {
            code = outcome;
        }
    }
    let paths: Vec<PathBuf> = planned.iter().map(|(_, p)| p.clone()).collect();
    let (table, unreadable) = crate::grade::compare_paths(&paths, 0, false, GradeOptions::default())?;
    print!("{table}");
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    eprintln!("[lab] the table again: arbigraph grade --compare {}", names.join(" "));
    Ok(if unreadable { ExitCode::from(1) } else { code })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strategy_as_given_names_its_file() {
        assert_eq!(file_stem("full"), "full");
        assert_eq!(file_stem("acg:clusters=0"), "acg-clusters-0");
        assert_eq!(file_stem(" mask+summary:keep=2,trigger_tokens=1200 "), "mask-summary-keep-2-trigger-tokens-1200");
        assert_eq!(file_stem("Window:exchanges=4"), "window-exchanges-4");
    }
}
