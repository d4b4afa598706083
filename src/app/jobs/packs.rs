//! Task packs on the page: the files a user brings (a LeetCode pool, GSM-Symbolic templates), recognised here
//! and read in the worker, which holds the interpreter that types and tries them.
//!
//! A pack travels as its text (`PackSource`) with every generation request that needs it, so each worker of a
//! split run, and a regenerated deep link, reads the same bytes; a worker keeps the registries it built from
//! packs, so a pack is read once per worker. The page keeps what reading found (`PackSummary`: tasks with
//! their kinds, refusals with why) to list the tasks and to validate designs with them
//! (`ui::state::with_registry`).

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::engine::generate::form::GenerateForm;
use crate::engine::graph;
use crate::engine::tasks::image::ImageParams;
use crate::engine::tasks::pack::{Pack, PackEntry, PackError, PackKind, Refusal};
use crate::engine::tasks::registry::{builtin_with, FamilyChoice, Registry};
use crate::engine::tasks::{Family, TaskInfo};
use crate::engine::sort;

/// A pack as the user brought it: its kind and files.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PackSource {
    /// `python.ref` or `gsm.symbolic`.
    pub kind: String,
    /// What the user brought, as listings name it (the file, or the first and last template and their count).
    pub origin: String,
    /// (file name, text): one pool file, or the templates sorted by name.
    pub files: Vec<(String, String)>,
}

/// What reading a pack found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PackSummary {
    /// `python.ref` or `gsm.symbolic`.
    pub kind: String,
    pub origin: String,
    pub tasks: Vec<PackEntry>,
    pub refused: Vec<Refusal>,
}

impl PackSource {
    /// Recognises what the user brought: one text file is a LeetCode-style pool, JSON files are GSM-Symbolic
    /// templates (other files beside them, as in a picked folder, are left out). Anything else is refused
    /// with what a pack is.
    pub fn from_files(mut files: Vec<(String, String)>) -> Result<PackSource, String> {
        let is_json = |name: &str| name.to_ascii_lowercase().ends_with(".json");
        let json = files.iter().filter(|(name, _)| is_json(name)).count();
        if files.is_empty() {
            return Err("no files: a task pack is a LeetCode pool (one .txt file) or GSM-Symbolic templates (.json files)".into());
        }
        if json == 0 {
            if files.len() > 1 {
                let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
                return Err(format!("{}: one pool file at a time (a LeetCode pool is one .txt file)", names.join(", ")));
            }
            let (name, text) = files.remove(0);
            return Ok(PackSource { kind: PackKind::PythonRef.prefix(), origin: name.clone(), files: vec![(name, text)] });
        }
        files.retain(|(name, _)| is_json(name));
        sort::by(&mut files, |a, b| a.0.cmp(&b.0));
        let origin = match files.as_slice() {
            [(only, _)] => only.clone(),
            [(first, _), .., (last, _)] => format!("{first} … {last} ({} templates)", files.len()),
            [] => unreachable!("at least one JSON file"),
        };
        Ok(PackSource { kind: PackKind::GsmSymbolic.prefix(), origin, files })
    }

    /// The pack's kind.
    pub fn pack_kind(&self) -> Result<PackKind, String> {
        PackKind::parse(&self.kind).ok_or_else(|| format!("unknown pack kind `{}` (python.ref or gsm.symbolic)", self.kind))
    }

    /// Reads the pack: every entry typed and tried (the worker's work: it runs the interpreter). A worker keeps
    /// the last few packs it read, so the generation after a pack is listed does not try it again.
    pub fn read(&self) -> Result<Pack, String> {
        let key = self.fingerprint();
        if let Some(pack) = READ.with(|read| read.borrow().get(key)) {
            return Ok(pack);
        }
        let pack = self.read_anew()?;
        READ.with(|read| read.borrow_mut().keep(key, pack.clone()));
        Ok(pack)
    }

    fn read_anew(&self) -> Result<Pack, String> {
        let located = |e: PackError| e.to_string();
        match self.pack_kind()? {
            PackKind::PythonRef => {
                let (name, text) = self.files.first().ok_or("the pool has no file")?;
                Pack::python_ref(name, text).map_err(located)
            }
            PackKind::GsmSymbolic => Pack::gsm_symbolic(&self.origin, &self.files).map_err(located),
        }
    }

    fn fingerprint(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.hash(&mut hasher);
        hasher.finish()
    }
}

impl PackSummary {
    /// What a read pack holds, as the page lists it.
    pub fn of(pack: &Pack) -> PackSummary {
        PackSummary { kind: pack.kind.prefix(), origin: pack.origin.clone(), tasks: pack.entries.clone(), refused: pack.refused.clone() }
    }

    /// How many tasks have each signature, most common first (`46 list → scalar, 15 list → list`).
    pub fn signatures(&self) -> String {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for task in &self.tasks {
            let signature = task.signature();
            match counts.iter_mut().find(|(s, _)| *s == signature) {
                Some((_, n)) => *n += 1,
                None => counts.push((signature, 1)),
            }
        }
        sort::by(&mut counts, |a, b| b.1.cmp(&a.1));
        counts.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
    }

    /// The family its tasks join.
    pub fn family(&self) -> Option<Family> {
        PackKind::parse(&self.kind).map(PackKind::family)
    }
}

/// `described` (the page's task descriptions) with every pack's tasks described beside them, narrowed as a
/// bare family is (`Registry::view`): a family with a pack is the pack's, the others ours. What the page
/// validates designs and lists tasks with, the same choice the worker makes for a run of bare families.
pub fn described_with(described: &Registry, packs: &[PackSummary]) -> Registry {
    let mut registry = described.clone();
    for summary in packs {
        let Some(kind) = PackKind::parse(&summary.kind) else { continue };
        for task in &summary.tasks {
            let info = TaskInfo {
                key: task.key.clone(),
                family: kind.family(),
                task_id: task.task_id,
                name: task.name.clone(),
                input_kinds: task.input_kinds.clone(),
                output_kind: task.output_kind,
                description: format!("{} ({}, {})", task.name, summary.kind, task.location),
            };
            // A key already there is the same pack read twice: the first stays.
            let _ = registry.add_described(info, kind);
        }
    }
    let every = FamilyChoice { families: Family::ALL.to_vec(), sources: Vec::new() };
    registry.view(&every)
}

/// The family a run asks for, with every bare family that has a pack among `loaded` (`python.ref`, …) named
/// by its source: a run's settings, and so its links, then say that they need the pack (a link opened
/// without it is refused with the pack's name instead of quietly drawing from our tasks). `mixed` stands for
/// its families. Without packs the text is kept as it is.
pub fn explicit_family(family: &str, loaded: &[PackKind]) -> String {
    if loaded.is_empty() {
        return family.to_string();
    }
    let mut items: Vec<String> = Vec::new();
    for item in family.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let named: Vec<String> = if item == "mixed" { Family::ALL.iter().map(|f| f.to_string()).collect() } else { vec![item.to_string()] };
        for name in named {
            let pack = Family::parse(&name).and_then(|f| loaded.iter().find(|k| k.family() == f));
            let name = pack.map_or(name, |k| k.prefix());
            if !items.contains(&name) {
                items.push(name);
            }
        }
    }
    items.join(",")
}

/// The last few values made, by key (newest last): a worker reads a pack (types and tries it) once, not once
/// per request.
struct Kept<T>(Vec<(u64, T)>);

impl<T: Clone> Kept<T> {
    const MOST: usize = 4;

    fn get(&self, key: u64) -> Option<T> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
    }

    fn keep(&mut self, key: u64, value: T) {
        self.0.push((key, value));
        if self.0.len() > Self::MOST {
            self.0.remove(0);
        }
    }
}

thread_local! {
    /// Packs read, by fingerprint.
    static READ: RefCell<Kept<Pack>> = const { RefCell::new(Kept(Vec::new())) };
    /// Registries built from packs, by the packs' fingerprints and picture parameters.
    static BUILT: RefCell<Kept<Rc<Registry>>> = const { RefCell::new(Kept(Vec::new())) };
}

/// The registry a generation request draws from when it brings packs or names a source (`python.ours`,
/// `gsm.symbolic`): ours (with the graph's picture parameters) and the packs', narrowed to the form's family
/// choice. `None` when the request needs neither: the worker's own registry serves.
pub fn registry_for_request(packs: &[PackSource], form: &GenerateForm, graph: Option<&str>) -> Result<Option<Registry>, String> {
    if packs.is_empty() && !form.family.contains('.') {
        return Ok(None);
    }
    let image: ImageParams = graph.and_then(|text| graph::from_json_str(text).ok()).and_then(|g| g.image_params().copied()).unwrap_or_default();
    let mut hasher = DefaultHasher::new();
    for pack in packs {
        pack.fingerprint().hash(&mut hasher);
    }
    image.hash(&mut hasher);
    let key = hasher.finish();
    let everything = match BUILT.with(|built| built.borrow().get(key)) {
        Some(registry) => registry,
        None => {
            let mut registry = builtin_with(image);
            for source in packs {
                let pack = source.read().map_err(|e| format!("pack {}: {e}", source.origin))?;
                registry.add_pack(&pack).map_err(|e| format!("pack {}: {e} (bring one pack of each kind)", source.origin))?;
            }
            let registry = Rc::new(registry);
            BUILT.with(|built| built.borrow_mut().keep(key, registry.clone()));
            registry
        }
    };
    let choice = FamilyChoice::parse(&form.family, &everything)?;
    Ok(Some(everything.view(&choice)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<(String, String)> {
        names.iter().map(|n| (n.to_string(), "{}".to_string())).collect()
    }

    #[test]
    fn one_text_file_is_a_pool_and_json_files_are_templates_sorted_by_name() {
        let pool = PackSource::from_files(files(&["leetcode_candidate_algos.txt"])).expect("a pool");
        assert_eq!((pool.kind.as_str(), pool.origin.as_str()), ("python.ref", "leetcode_candidate_algos.txt"));
        let templates = PackSource::from_files(files(&["0042.json", "README.md", "0001.json", "0007.JSON"])).expect("templates");
        assert_eq!(templates.kind, "gsm.symbolic");
        assert_eq!(templates.files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["0001.json", "0007.JSON", "0042.json"]);
        assert_eq!(templates.origin, "0001.json … 0042.json (3 templates)");
        assert_eq!(PackSource::from_files(files(&["0042.json"])).map(|p| p.origin), Ok("0042.json".to_string()));
    }

    #[test]
    fn what_is_not_a_pack_is_refused_with_what_a_pack_is() {
        assert!(PackSource::from_files(Vec::new()).unwrap_err().contains("a LeetCode pool (one .txt file)"));
        assert_eq!(PackSource::from_files(files(&["a.txt", "b.txt"])).unwrap_err(), "a.txt, b.txt: one pool file at a time (a LeetCode pool is one .txt file)");
        let odd = PackSource { kind: "fortran".into(), origin: "x".into(), files: files(&["x.f"]) };
        assert_eq!(odd.read().unwrap_err(), "unknown pack kind `fortran` (python.ref or gsm.symbolic)");
    }

    #[test]
    fn bare_families_with_a_pack_are_named_by_their_source() {
        let python = [PackKind::PythonRef];
        assert_eq!(explicit_family("python", &python), "python.ref");
        assert_eq!(explicit_family("mixed", &python), "math,gsm,python.ref");
        assert_eq!(explicit_family("mixed", &PackKind::ALL), "math,gsm.symbolic,python.ref");
        assert_eq!(explicit_family("python.ours", &python), "python.ours");
        assert_eq!(explicit_family("python.ours,python", &python), "python.ours,python.ref");
        assert_eq!(explicit_family("gsm", &python), "gsm");
        assert_eq!(explicit_family("mixed", &[]), "mixed");
    }

    #[test]
    fn the_page_describes_a_packs_tasks_in_place_of_its_familys_and_lists_their_kinds() {
        let text = include_str!("../../../tests/fixtures/packs/python/pool.txt");
        let source = PackSource::from_files(vec![("pool.txt".into(), text.into())]).unwrap();
        let summary = PackSummary::of(&source.read().expect("the fixture pool reads"));
        let base = crate::engine::tasks::registry::described();
        let page = described_with(&base, std::slice::from_ref(&summary));
        let keys = |r: &Registry, f: Family| r.family(f).iter().map(|t| t.info().key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&page, Family::Python), summary.tasks.iter().map(|t| t.key.clone()).collect::<Vec<_>>(), "python is the pack's");
        assert_eq!(keys(&page, Family::Math), keys(&base, Family::Math), "math stays ours");
        let first = &summary.tasks[0];
        let pinned = page.by_task_id(Family::Python, first.task_id).expect("pinned by task id");
        assert_eq!((pinned.info().key.as_str(), pinned.info().output_kind.as_str()), (first.key.as_str(), first.output_kind.as_str()));
        let total: usize = summary.signatures().split(", ").map(|part| part.split(' ').next().unwrap().parse::<usize>().unwrap()).sum();
        assert_eq!(total, summary.tasks.len(), "{}", summary.signatures());
        assert_eq!(described_with(&base, &[]).len(), base.len());
    }

    #[test]
    fn a_request_without_packs_or_sources_uses_the_workers_registry_and_a_missing_pack_is_named() {
        let form = GenerateForm { family: "python".into(), ..GenerateForm::default() };
        assert!(registry_for_request(&[], &form, None).expect("no pack needed").is_none());
        let ours = GenerateForm { family: "python.ours".into(), ..GenerateForm::default() };
        assert!(registry_for_request(&[], &ours, None).expect("ours needs no pack").is_some());
        let theirs = GenerateForm { family: "python.ref".into(), ..GenerateForm::default() };
        let Err(missing) = registry_for_request(&[], &theirs, None) else { panic!("no pack was brought") };
        assert!(missing.contains("names a pack that is not loaded"), "{missing}");
    }
}
