//! Task packs: task families the user brings as text (the paper's LeetCode functions, GSM-Symbolic templates),
//! read into tasks that sit in the registry beside ours under keys of their own.
//!
//! A `Pack` is pure data parsed from text the caller supplies (the engine reads no file): a LeetCode-style pool
//! (`python_ref`, keys `python.ref.<function name>`) or GSM-Symbolic templates (`gsm_symbolic`, keys
//! `gsm.symbolic.<template id>`). Reading a pack types and tries every entry: the usable ones become
//! `PackEntry`s, the others `Refusal`s with the reason, so nothing is dropped silently. A file whose format
//! is broken (no pool header, JSON that does not parse) is a `PackError` located at the file and line.
//!
//! A pack holds only plain, thread-safe data; `tasks()` builds its `Task`s afresh (parsing again, without the
//! trial runs), so every thread of a generation can build its own registry from one pack.

pub mod gsm_symbolic;
pub mod python_ref;

use std::fmt;
use std::rc::Rc;

use super::{Family, Task};
use crate::engine::value::Kind;

/// Which format a pack is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackKind {
    /// The reference's LeetCode pool (`leetcode_candidate_algos.txt`): Python tracing tasks.
    PythonRef,
    /// Apple's GSM-Symbolic templates (JSON with `question_annotated`): word problems.
    GsmSymbolic,
}

impl PackKind {
    /// Every kind, in the order listings show them.
    pub const ALL: [PackKind; 2] = [PackKind::PythonRef, PackKind::GsmSymbolic];

    /// Reads the name a `--pack NAME=PATH` gives: the family (`python`, `gsm`) or the source (`python.ref`,
    /// `gsm.symbolic`).
    pub fn parse(name: &str) -> Option<PackKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "python" | "py" | "python.ref" => Some(PackKind::PythonRef),
            "gsm" | "gsm.symbolic" => Some(PackKind::GsmSymbolic),
            _ => None,
        }
    }

    /// The family the pack's tasks join.
    pub fn family(self) -> Family {
        match self {
            PackKind::PythonRef => Family::Python,
            PackKind::GsmSymbolic => Family::Gsm,
        }
    }

    /// The source's name: the middle part of its keys (`ref`, `symbolic`) and what `--family python.ref` names.
    pub fn source(self) -> &'static str {
        match self {
            PackKind::PythonRef => "ref",
            PackKind::GsmSymbolic => "symbolic",
        }
    }

    /// `python.ref` or `gsm.symbolic`: the start of every key of the pack.
    pub fn prefix(self) -> String {
        format!("{}.{}", self.family(), self.source())
    }
}

impl fmt::Display for PackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.prefix())
    }
}

/// One usable task of a pack, as listings show it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PackEntry {
    /// The stable key (`python.ref.longestWPI`, `gsm.symbolic.0042`).
    pub key: String,
    /// The reference's `task_name` (a function name, `GSM_0042.json`).
    pub name: String,
    /// Position in the pack (the reference's `task_id`).
    pub task_id: u32,
    /// Input kinds its trial runs showed usable, in preference order.
    pub input_kinds: Vec<Kind>,
    pub output_kind: Kind,
    /// Where it is in the pack (`line 12`, `0042.json`).
    pub location: String,
    /// Something worth knowing that does not refuse the task (an input kind dropped, a disagreeing stored answer).
    pub notes: Vec<String>,
}

/// An entry of a pack that cannot be used, with why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    /// The function name or template id.
    pub name: String,
    /// Where it is in the pack (`line 12`, `0042.json`).
    pub location: String,
    /// Why it cannot be used, in one line.
    pub reason: String,
}

impl PackEntry {
    /// Its input kinds, then its output kind: `list | scalar → scalar`.
    pub fn signature(&self) -> String {
        super::signature(&self.input_kinds, self.output_kind)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.name, self.location, self.reason)
    }
}

/// A pack file whose format is broken, located at the file and line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct PackError {
    /// The file as the caller named it.
    pub file: String,
    /// The 1-based line, when the problem has one.
    pub line: Option<usize>,
    pub message: String,
}

/// A pack read from text: its usable entries, its refusals, and what rebuilds its tasks.
#[derive(Clone, Debug)]
pub struct Pack {
    pub kind: PackKind,
    /// The file or folder as the caller named it.
    pub origin: String,
    /// The usable tasks, in pack order.
    pub entries: Vec<PackEntry>,
    /// The entries that cannot be used, in pack order.
    pub refused: Vec<Refusal>,
    content: Content,
}

/// What `tasks()` rebuilds from.
#[derive(Clone, Debug)]
enum Content {
    Python(python_ref::PoolContent),
    Gsm(gsm_symbolic::TemplatesContent),
}

impl Pack {
    /// Reads a LeetCode-style pool (the text of one file named `file`), trying every function.
    pub fn python_ref(file: &str, text: &str) -> Result<Pack, PackError> {
        let (content, entries, refused) = python_ref::read(file, text)?;
        Ok(Pack { kind: PackKind::PythonRef, origin: file.to_string(), entries, refused, content: Content::Python(content) })
    }

    /// Reads GSM-Symbolic templates: `files` are (file name, text) pairs, each one template (the id is the
    /// file's stem), in the order given (callers sort a folder's files by name).
    pub fn gsm_symbolic(origin: &str, files: &[(String, String)]) -> Result<Pack, PackError> {
        let (content, entries, refused) = gsm_symbolic::read(files)?;
        Ok(Pack { kind: PackKind::GsmSymbolic, origin: origin.to_string(), entries, refused, content: Content::Gsm(content) })
    }

    /// The pack's tasks, one per entry and in entry order, with the entries' keys and kinds.
    pub fn tasks(&self) -> Vec<Rc<dyn Task>> {
        match &self.content {
            Content::Python(pool) => pool.tasks(&self.entries),
            Content::Gsm(templates) => templates.tasks(&self.entries),
        }
    }
}

/// The keys of a pack's entries: `prefix.name`, or `prefix.name.id` for names that appear more than once
/// (`id` is the entry's own number, the pack position when it has none or it repeats too).
fn unique_keys(prefix: &str, names: &[(String, Option<u32>, u32)]) -> Vec<String> {
    let count = |name: &str| names.iter().filter(|(n, _, _)| n == name).count();
    names
        .iter()
        .map(|(name, id, position)| {
            if count(name) == 1 {
                return format!("{prefix}.{name}");
            }
            let id_repeats = names.iter().filter(|(n, i, _)| n == name && i == id).count() > 1;
            match id {
                Some(id) if !id_repeats => format!("{prefix}.{name}.{id}"),
                _ => format!("{prefix}.{name}.{position}"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_names_carry_their_own_number_and_unique_names_stay_plain() {
        let names = [("a".to_string(), Some(7), 0), ("b".into(), Some(9), 1), ("a".into(), Some(8), 2), ("c".into(), Some(1), 3), ("c".into(), Some(1), 4)];
        assert_eq!(unique_keys("python.ref", &names), ["python.ref.a.7", "python.ref.b", "python.ref.a.8", "python.ref.c.3", "python.ref.c.4"]);
    }

    #[test]
    fn pack_names_read_families_and_sources() {
        assert_eq!(PackKind::parse("python"), Some(PackKind::PythonRef));
        assert_eq!(PackKind::parse("gsm.symbolic"), Some(PackKind::GsmSymbolic));
        assert_eq!(PackKind::parse("math"), None);
        assert_eq!(PackKind::GsmSymbolic.prefix(), "gsm.symbolic");
    }
}
