//! `arbigraph eval` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `arbigraph eval`.
#[derive(clap::Args)]
pub struct Args {
    /// Accepted and ignored until the command exists.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let _ = args.rest;
    super::files::not_yet("eval")
}
