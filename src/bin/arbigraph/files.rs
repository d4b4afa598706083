//! File and exit-code plumbing shared by the subcommands: read JSON with located errors, write outputs, report.

use std::path::Path;
use std::process::ExitCode;

/// Exit code for bad usage or bad input.
pub const USAGE: u8 = 2;

/// Prints `error: <message>` to stderr and returns exit code 2.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(USAGE)
}

/// Reads a file as text, naming the file in the error.
pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Reads and parses a JSON file; parse errors carry the file, line and column.
pub fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = read_text(path)?;
    serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: malformed JSON: {e}", path.display(), e.line(), e.column()))
}

/// Writes text to a file, naming the file in the error.
pub fn write_text(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A progress bar on stderr, drawn only when stderr is a terminal (logs stay clean).
pub struct Progress {
    label: &'static str,
    enabled: bool,
    last_percent: Option<usize>,
}

impl Progress {
    /// A bar with a label.
    pub fn new(label: &'static str) -> Progress {
        use std::io::IsTerminal;
        Progress { label, enabled: std::io::stderr().is_terminal(), last_percent: None }
    }

    /// Redraws when the percentage changes.
    pub fn update(&mut self, done: usize, total: usize) {
        if !self.enabled || total == 0 {
            return;
        }
        let percent = done * 100 / total;
        if self.last_percent == Some(percent) {
            return;
        }
        self.last_percent = Some(percent);
        let filled = percent * 30 / 100;
        eprint!("\r{} [{}{}] {done}/{total} ({percent}%)", self.label, "#".repeat(filled), " ".repeat(30 - filled));
    }

    /// Ends the bar's line.
    pub fn finish(&mut self) {
        if self.enabled && self.last_percent.is_some() {
            eprintln!();
        }
    }
}
