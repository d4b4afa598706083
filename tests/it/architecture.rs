//! Tidy checks on the source tree: the engine imports no web crate and does no IO, each engine module imports
//! only the modules below it (the layering in ARCHITECTURE.md; grouped and multi-line `use` statements and
//! `super::` paths are resolved), the engine never reaches into the app, `ui` or `web`, only `render` touches the
//! layout crates, `web` never reaches into `ui`, `app` needs no browser, a page never imports another page, the
//! CLI imports only the engine, every file says what it owns,
//! and no test is skipped or expected to panic. The docs and comments cite only repository paths that exist and
//! no `§` of a document the repository does not hold.
//! The checker is tested on planted violations, so a rule that stopped firing would fail here.

use std::path::{Path, PathBuf};

/// Crates the engine must never import.
const WEB_CRATES: [&str; 6] = ["leptos", "web_sys", "wasm_bindgen", "js_sys", "gloo", "gloo_net"];
/// IO and clock calls the engine must never make.
const ENGINE_IO: [&str; 6] = ["std::fs", "std::env", "std::net", "std::thread", "Instant::now", "SystemTime::now"];
/// Layout crates: only `render` lays graphs out.
const LAYOUT_CRATES: [&str; 2] = ["layout", "rust_sugiyama"];

/// The engine's layering: each module and the engine modules it may import. A module missing here may import
/// nothing from the engine (add it with its place in the layering when it is created).
const ENGINE_LAYERS: &[(&str, &[&str])] = &[
    ("value", &[]),
    ("rng", &[]),
    ("sort", &[]),
    ("prompt", &[]),
    ("literal", &[]),
    ("adapter", &["prompt", "rng", "value"]),
    ("filter", &["value"]),
    ("python", &["value"]),
    ("calculator", &["literal", "value"]),
    ("tasks", &["adapter", "filter", "prompt", "python", "rng", "sort", "value"]),
    ("graph", &["rng", "sort", "tasks", "value"]),
    ("generate", &["adapter", "filter", "graph", "prompt", "rng", "tasks", "value"]),
    ("dataset", &["adapter", "generate", "graph", "prompt", "tasks", "value"]),
    ("render", &["graph", "sort", "tasks", "value"]),
    // Grading knows nothing about the agent that produced the answers, nor about files: from `dataset` it reads
    // only the typed sample record (`dataset::record`).
    ("grade", &["calculator", "dataset", "literal", "sort", "value"]),
    ("agent", &["calculator", "dataset", "grade", "literal", "sort", "value"]),
    ("results", &["agent", "dataset", "grade", "literal", "sort", "value"]),
    // A run knows the agent's replies and the results file, never how the samples are sent or stored.
    ("run", &["agent", "results"]),
];

/// The standard library's sorts, which the page's code calls through `engine::sort` instead.
const SLICE_SORTS: [&str; 4] = [".sort()", ".sort_by(", ".sort_by_key(", ".sort_unstable"];

/// The app's pages: `src/ui/pages/<page>.rs` and `src/ui/pages/<page>/`. A page may import shared parts
/// (`ui::common`, `ui::state`, `app`, …) but never another page.
const PAGES: [&str; 6] = ["about", "browse", "design", "evaluate", "generate", "results"];

/// Fields of a sample or results record. Outside the record modules nothing looks them up by name: code reads
/// `SampleRecord` (`engine/dataset/record.rs`) or `ResultRecord` (`engine/results/record.rs`), which read each
/// record once.
const RECORD_KEYS: [&str; 37] = [
    "agent_status", "agent_error", "correct", "lenient_correct", "turn_outputs", "task_answers", "node_status", "first_breaks",
    "token_length", "agent_turns", "agent_tool_calls", "expected_task_outputs", "ground_truth", "chain", "multi_chain", "custom_dag",
    "forgetting", "stage_ground_truths", "sample_idx", "task_name", "task_id", "target_output_name", "target_family", "epoch",
    "requests", "repairs", "transcript", "strategy_record", "acg_record", "images", "prompt", "answer", "usage", "timings",
    "strategy", "strategy_params", "extra_inputs",
];

/// Files that may read those names, and why: the two record modules; the wire formats and provider profiles,
/// whose `usage`, `prompt` and `metadata` are the APIs' own fields; `Answers`' own (de)serializer, whose
/// `answer` is its format; and node-link graph files, whose `target_node` is a graph attribute.
const RECORD_READERS: [&str; 7] = [
    "src/engine/dataset/record.rs",
    "src/engine/results/record.rs",
    "src/engine/agent/openai_wire.rs",
    "src/engine/agent/anthropic_wire.rs",
    "src/engine/agent/provider.rs",
    "src/engine/grade/collect.rs",
    "src/engine/graph/node_link/mod.rs",
];

/// The record field a line of code looks up by name (`.get("prompt")`, `.contains_key("epoch")`, or `["chain"]`
/// unless it is assigned: writers build records by name).
fn record_lookup(code: &str) -> Option<&'static str> {
    RECORD_KEYS.iter().copied().find(|key| {
        let indexed = format!("[\"{key}\"]");
        let read_by_index = code.match_indices(indexed.as_str()).any(|(at, _)| {
            // Past any further indexing (`line["metadata"]["images"] = …` writes too).
            let mut rest = code[at + indexed.len()..].trim_start();
            while let Some(inner) = rest.strip_prefix('[') {
                rest = inner.split_once(']').map_or("", |(_, after)| after).trim_start();
            }
            !(rest.starts_with('=') && !rest.starts_with("=="))
        });
        read_by_index || code.contains(&format!(".get(\"{key}\")")) || code.contains(&format!(".contains_key(\"{key}\")"))
    })
}

/// One broken rule, located.
#[derive(Debug, PartialEq)]
struct Violation {
    file: String,
    line: usize,
    rule: String,
}

/// Where a file sits, which decides the rules it follows.
#[derive(Clone, Debug, PartialEq)]
enum Place {
    /// Under `src/engine/`: the engine module it belongs to (`grade`, `render`, …) and whether `super::` names
    /// the engine itself (a top-level engine file or a module's `mod.rs`).
    Engine { module: String, super_is_engine: bool },
    /// Under `src/web/`.
    Web,
    /// Under `src/app/`: the app's logic, which must run without a browser.
    App,
    /// A page: `src/ui/pages/<name>.rs` or a file under `src/ui/pages/<name>/`.
    Page(String),
    /// The command-line tool, under `src/bin/`.
    Bin,
    /// Anywhere else.
    Other,
}

impl Place {
    fn of(relative: &str) -> Place {
        if let Some(rest) = relative.strip_prefix("src/engine/") {
            let mut parts = rest.split('/');
            let first = parts.next().unwrap_or("");
            let module = first.trim_end_matches(".rs").to_string();
            let super_is_engine = !rest.contains('/') || rest.ends_with("/mod.rs") && rest.matches('/').count() == 1;
            return Place::Engine { module, super_is_engine };
        }
        if relative.starts_with("src/web/") {
            return Place::Web;
        }
        if relative.starts_with("src/app/") {
            return Place::App;
        }
        if relative.starts_with("src/bin/") {
            return Place::Bin;
        }
        if let Some(rest) = relative.strip_prefix("src/ui/pages/") {
            let name = rest.split('/').next().unwrap_or("").trim_end_matches(".rs");
            if PAGES.contains(&name) {
                return Place::Page(name.to_string());
            }
        }
        Place::Other
    }
}

/// Byte offsets where `name` occurs as a whole path segment followed by `::` (so `my_leptos::` or `leptosx::`
/// do not count, and a mention elsewhere on the line cannot hide a real one).
fn path_uses(code: &str, name: &str) -> bool {
    let pattern = format!("{name}::");
    code.match_indices(&pattern).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Engine modules a line of code names: `crate::engine::X`, and `super::X` where `super` is the engine.
fn engine_modules_named(code: &str, super_is_engine: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut prefixes = vec!["crate::engine::"];
    if super_is_engine {
        prefixes.push("super::");
    }
    for prefix in prefixes {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != "super" && name != "self" {
                out.push(name);
            }
        }
    }
    out
}

/// The module path of a file under `src/` (`src/ui/pages/evaluate/table.rs` is `ui::pages::evaluate::table`, a
/// `mod.rs` is its folder, the crate roots are empty); `None` for the CLI and files outside `src/`.
fn module_of(relative: &str) -> Option<Vec<String>> {
    let rest = relative.strip_prefix("src/")?;
    if rest.starts_with("bin/") {
        return None;
    }
    let mut parts: Vec<String> = rest.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if matches!(parts.as_slice(), [root] if ["lib", "main", "worker"].contains(&root.as_str())) {
        parts.clear();
    }
    Some(parts)
}

/// Expands one path with `{…}` groups (`a::{b, c::{d, e}}`) into its plain paths, as segment lists.
fn expand_group(text: &str) -> Vec<Vec<String>> {
    let text = text.trim();
    let Some(open) = text.find('{') else {
        let plain = text.split(" as ").next().unwrap_or("").trim();
        let segments: Vec<String> = plain.split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty() && s != "*").collect();
        return if segments.is_empty() { vec![] } else { vec![segments] };
    };
    let head: Vec<String> = text[..open].split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    let inner = text[open + 1..].strip_suffix('}').unwrap_or(&text[open + 1..]);
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    let mut out = Vec::new();
    for item in items {
        for tail in expand_group(item) {
            let mut path = head.clone();
            path.extend(tail.into_iter().filter(|s| s != "self"));
            out.push(path);
        }
    }
    if out.is_empty() && !head.is_empty() {
        out.push(head);
    }
    out
}

/// Library-internal path roots: `crate::` from the crate root, `super::` and `self::` against the module.
const LIB_ROOTS: [&str; 3] = ["crate::", "super::", "self::"];

/// Every path starting at one of `roots` that a line of code names, made absolute (`crate::` and
/// `arbigraph_studio::` from the library's root, `super::` and `self::` against `module`), `{…}` groups expanded.
fn crate_paths(code: &str, module: &[String], roots: &[&str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for &prefix in roots {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            // The path runs over segments, `::` and balanced `{…}` groups.
            let (mut end, mut depth) = (at, 0i32);
            for (i, c) in code[at..].char_indices() {
                let ok = c.is_alphanumeric() || c == '_' || c == ':' || c == '*' || (depth > 0 && (c == ',' || c == ' ' || c == '{' || c == '}'));
                match c {
                    '{' => depth += 1,
                    '}' if depth > 0 => depth -= 1,
                    _ if !ok => break,
                    _ => {}
                }
                end = at + i + c.len_utf8();
                if depth == 0 && c == '}' {
                    break;
                }
            }
            for path in expand_group(&code[at..end]) {
                let mut resolved: Vec<String> = Vec::new();
                let mut segments = path.into_iter().peekable();
                match segments.peek().map(String::as_str) {
                    Some("crate" | "arbigraph_studio") => {
                        segments.next();
                    }
                    Some("self") => {
                        segments.next();
                        resolved = module.to_vec();
                    }
                    Some("super") => {
                        resolved = module.to_vec();
                        while segments.peek().is_some_and(|s| s == "super") {
                            segments.next();
                            resolved.pop();
                        }
                    }
                    _ => continue,
                }
                resolved.extend(segments);
                out.push(resolved);
            }
        }
    }
    out
}

/// A file's lines for checking, with a multi-line `use` statement joined onto the line where it starts.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open_use = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if open_use {
            let code = if line.starts_with("//") { "" } else { line.split("//").next().unwrap_or("") };
            if let Some(last) = out.last_mut() {
                last.1.push(' ');
                last.1.push_str(code.trim());
            }
            open_use = !code.contains(';');
            continue;
        }
        let is_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "].iter().any(|p| line.starts_with(p));
        open_use = is_use && !line.split("//").next().unwrap_or("").contains(';');
        out.push((i + 1, raw.to_string()));
    }
    out
}

/// Checks one file's text at `relative` (a path under the crate root).
fn check_source(relative: &str, text: &str) -> Vec<Violation> {
    let place = Place::of(relative);
    let mut out = Vec::new();
    let mut push = |line: usize, rule: String| out.push(Violation { file: relative.to_string(), line, rule });
    if !text.starts_with("//!") {
        push(1, "file must start with a `//!` line saying what it owns".into());
    }
    let engine_modules: Vec<&str> = ENGINE_LAYERS.iter().map(|(m, _)| *m).collect();
    // The layering binds the code; a module's own tests (at the bottom, by convention) may use any engine module.
    let mut in_tests = false;
    let module = module_of(relative).unwrap_or_default();
    for (number, raw) in logical_lines(text) {
        let i = number - 1;
        let line = raw.trim_start();
        if line.starts_with("//") {
            continue;
        }
        in_tests |= line.starts_with("#[cfg(test)]") || relative.ends_with("/tests.rs") || relative.ends_with("_tests.rs");
        let code = line.split("//").next().unwrap_or("");
        if code.contains("#[should_panic") || code.contains("#[ignore") {
            push(i + 1, "no #[should_panic] or #[ignore]: assert on the error instead".into());
        }
        if code.contains("dbg!(") {
            push(i + 1, "no dbg!".into());
        }
        let names_crate = |krate: &str| path_uses(code, krate) || code.contains(&format!("extern crate {krate}"));
        if let Place::Engine { module, super_is_engine } = &place {
            if WEB_CRATES.iter().any(|k| names_crate(k)) {
                push(i + 1, "the engine must not import web crates".into());
            }
            if ENGINE_IO.iter().any(|io| code.contains(io)) {
                push(i + 1, "the engine must not do IO or read clocks".into());
            }
            if code.contains("println!(") || code.contains("eprintln!(") {
                push(i + 1, "the engine must not print".into());
            }
            let allowed: &[&str] = ENGINE_LAYERS.iter().find(|(m, _)| m == module).map(|(_, a)| *a).unwrap_or(&[]);
            let mut named = engine_modules_named(code, *super_is_engine);
            for path in crate_paths(code, &module_of(relative).unwrap_or_default(), &LIB_ROOTS) {
                match path.first().map(String::as_str) {
                    Some("engine") => named.extend(path.get(1).cloned()),
                    Some(outer @ ("app" | "ui" | "web")) => push(i + 1, format!("the engine must not reach into `{outer}`")),
                    _ => {}
                }
            }
            named.sort();
            named.dedup();
            for named in named.into_iter().filter(|_| !in_tests) {
                if named != *module && engine_modules.contains(&named.as_str()) && !allowed.contains(&named.as_str()) {
                    push(i + 1, format!("engine module `{module}` must not import `{named}` (see the layering in ARCHITECTURE.md)"));
                }
            }
        }
        if let Place::Page(page) = &place {
            for path in crate_paths(code, &module, &LIB_ROOTS) {
                if let [ui, pages, other, ..] = path.as_slice() {
                    if ui == "ui" && pages == "pages" && other != page && PAGES.contains(&other.as_str()) {
                        push(i + 1, format!("page `{page}` must not import page `{other}`: move what they share to `ui::common` or `app`"));
                    }
                }
            }
        }
        if place == Place::Bin {
            for path in crate_paths(code, &[], &["arbigraph_studio::"]) {
                match path.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                    ["engine", ..] | [] => {}
                    other => push(i + 1, format!("the CLI imports only the engine, not `{}`", other.join("::"))),
                }
            }
        }
        if relative.starts_with("src/") && !in_tests && !RECORD_READERS.contains(&relative) {
            if let Some(key) = record_lookup(code) {
                push(i + 1, format!("record field `{key}` looked up by name: read it through SampleRecord or ResultRecord"));
            }
        }
        let in_render = matches!(&place, Place::Engine { module, .. } if module == "render");
        if !in_render && LAYOUT_CRATES.iter().any(|k| names_crate(k)) {
            push(i + 1, "only engine/render lays graphs out (layout crates)".into());
        }
        let page_code = (relative.starts_with("src/ui/") || relative.starts_with("src/app/")) && !relative.starts_with("src/app/jobs/");
        if page_code && !in_tests && SLICE_SORTS.iter().any(|s| code.contains(s)) {
            push(i + 1, "the page sorts through `engine::sort` (each `slice::sort` call site links its own copy of the sort)".into());
        }
        if place == Place::Web && path_uses(code, "crate::ui") {
            push(i + 1, "web adapters must not reach into ui".into());
        }
        if place == Place::App && (path_uses(code, "crate::ui") || path_uses(code, "crate::web") || WEB_CRATES.iter().any(|k| names_crate(k))) {
            push(i + 1, "app logic must run without a browser: no ui, web or web crates".into());
        }
    }
    out.dedup();
    out
}

fn rust_files(dir: &Path, acc: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, acc);
        } else if path.extension().is_some_and(|e| e == "rs") {
            acc.push(path);
        }
    }
}

/// Folders whose paths are written by tools at run time, never committed: a citation into them names an output.
const OUTPUT_FOLDERS: [&str; 4] = ["target", "dist", "node_modules", "__pycache__"];

/// Top-level folders a citation can name, and the `src/` modules cited without their `src/` prefix.
const CITED_ROOTS: [&str; 14] = [".ci", "data", "docs", "e2e", "fuzz", "public", "reference-samples", "scripts", "src", "style", "tests", "tools", "engine", "app"];

/// The repository paths a text cites (`src/engine/grade/mod.rs`, `tests/it/cli.rs:40`, `engine/agent/`), with
/// their lines; `engine/…` and `app/…` are read under `src/`. Globs, placeholders and outputs are left out.
fn cited_paths(text: &str, comments_only: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let scope = if comments_only {
            match line.find("//") {
                Some(at) => &line[at..],
                None => continue,
            }
        } else {
            line
        };
        for (at, _) in scope.match_indices('/') {
            // Walk back to the start of the word holding this slash; only the first slash of a word starts a path.
            let start = scope[..at].char_indices().rev().find(|(_, c)| !(c.is_alphanumeric() || "._-/".contains(*c))).map_or(0, |(p, c)| p + c.len_utf8());
            if scope[start..at].contains('/') || start == at {
                continue;
            }
            if start > 0 && scope[..start].ends_with("../") {
                continue;
            }
            let word: String = scope[start..].chars().take_while(|c| c.is_alphanumeric() || "._-/".contains(*c)).collect();
            let word = word.trim_end_matches(['.', '-']);
            let root = word.split('/').next().unwrap_or("");
            let before = scope[..start].chars().next_back();
            if !CITED_ROOTS.contains(&root) || before.is_some_and(|c| c == ':' || c == '@' || c == '.' || c == '#') {
                continue;
            }
            if word.split('/').any(|s| OUTPUT_FOLDERS.contains(&s) || s.chars().any(|c| c.is_ascii_uppercase()) && !s.contains('.')) {
                continue;
            }
            let after = &scope[start + word.len()..];
            if after.starts_with(['*', '{', '<', '$']) || word.ends_with('/') && after.starts_with(['*', '<']) {
                continue;
            }
            let path = if root == "engine" || root == "app" { format!("src/{word}") } else { word.to_string() };
            out.push((i + 1, path));
        }
    }
    out
}

/// Whether `path` names something in the repository at `root` (a module may be cited without its `.rs`).
fn exists(root: &Path, path: &str) -> bool {
    let full = root.join(path.trim_end_matches('/'));
    full.exists() || full.with_extension("rs").exists() && !path.ends_with('/')
}

/// The text files whose citations are checked: the docs, and the comments of the code and scripts.
fn cited_files(root: &Path) -> Vec<(PathBuf, bool)> {
    fn walk(dir: &Path, acc: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !OUTPUT_FOLDERS.contains(&name.as_str()) && !name.starts_with('.') || name == ".ci" {
                    walk(&path, acc);
                }
            } else {
                acc.push(path);
            }
        }
    }
    let mut all = Vec::new();
    walk(root, &mut all);
    all.into_iter()
        .filter_map(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("").to_string();
            match ext.as_str() {
                "md" => Some((p, false)),
                "rs" | "mjs" | "js" | "css" => Some((p, true)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn docs_and_comments_cite_paths_that_exist_and_no_section_of_an_absent_document() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = cited_files(root);
    assert!(files.iter().any(|(f, _)| f.ends_with("ARCHITECTURE.md")) && files.iter().any(|(f, _)| f.ends_with("src/engine/mod.rs")), "the walk found the docs and the code");
    let mut problems = Vec::new();
    let mut citations = 0;
    for (path, comments_only) in &files {
        // This file spells out planted citations as data.
        if path.ends_with("tests/it/architecture.rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
        for (line, cited) in cited_paths(&text, *comments_only) {
            citations += 1;
            if !exists(root, &cited) {
                problems.push(format!("{name}:{line}: cites `{cited}`, which is not in the repository"));
            }
        }
        for (i, l) in text.lines().enumerate() {
            if l.contains('§') {
                problems.push(format!("{name}:{}: a `§` citation: name the document and what it says instead", i + 1));
            }
        }
    }
    assert!(citations > 100, "too few citations found ({citations}): the scanner is broken");
    assert!(problems.is_empty(), "stale citations:\n{}", problems.join("\n"));
}

#[test]
fn citation_scanner_finds_paths_in_prose_and_comments_only() {
    let prose = "See `src/engine/grade/mod.rs:40` and engine/agent/, tests/it/cli.rs.\nNot https://x.org/src/a.rs nor ../shared/docs/X.md nor src/*.rs nor target/debug/x nor docs/<name>.md\n";
    let found: Vec<String> = cited_paths(prose, false).into_iter().map(|(_, p)| p).collect();
    assert_eq!(found, vec!["src/engine/grade/mod.rs", "src/engine/agent/", "tests/it/cli.rs"]);
    let code = "let p = \"src/nowhere.rs\"; // reads docs/GONE.md\n";
    assert_eq!(cited_paths(code, true), vec![(1, "docs/GONE.md".to_string())]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(exists(root, "src/engine/grade/mod.rs") && exists(root, "src/engine/agent/") && exists(root, "src/engine/agent/session"));
    assert!(!exists(root, "tests/architecture.rs") && !exists(root, "docs/APP_ARCHITECTURE.md"));
}

/// The modules each module's code (tests left out) names, as `(from, to)` module paths: every path a line names,
/// cut to the longest prefix that is a module of `modules`.
fn module_edges(files: &[(Vec<String>, String)], modules: &[Vec<String>]) -> Vec<(Vec<String>, Vec<String>)> {
    let mut edges = Vec::new();
    for (module, text) in files {
        for (_, raw) in logical_lines(text) {
            let line = raw.trim_start();
            if line.starts_with("#[cfg(test)]") {
                break;
            }
            if line.starts_with("//") {
                continue;
            }
            let code = line.split("//").next().unwrap_or("");
            for path in crate_paths(code, module, &LIB_ROOTS) {
                let to = (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p)).unwrap_or_default();
                edges.push((module.clone(), to));
            }
        }
    }
    edges
}

/// Import circles between sibling modules: an edge `a::x::… → a::y::…` is an edge `x → y` among the children of
/// `a` (edges to an ancestor or from a module to its own children are how a module and its parts talk, and are
/// left out). Each circle is given as its parent and its members in order.
fn circles(edges: &[(Vec<String>, Vec<String>)]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, to) in edges {
        let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if let (Some(a), Some(b)) = (from.get(common), to.get(common)) {
            graphs.entry(from[..common].to_vec()).or_default().entry(a.clone()).or_default().insert(b.clone());
        }
    }
    let mut found = Vec::new();
    for (parent, graph) in &graphs {
        // A depth-first search from each node in order; a circle is reported once, from its smallest member.
        for start in graph.keys() {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            while let Some((node, trail)) = stack.pop() {
                for next in graph.get(&node).into_iter().flatten() {
                    if next == start {
                        let text = format!("{}: {} → {start}", if parent.is_empty() { "crate".to_string() } else { parent.join("::") }, trail.join(" → "));
                        if !found.contains(&text) && trail.iter().all(|m| m >= start) {
                            found.push(text);
                        }
                    } else if !trail.contains(next) && next > start {
                        let mut longer = trail.clone();
                        longer.push(next.clone());
                        stack.push((next.clone(), longer));
                    }
                }
            }
        }
    }
    found
}

/// Circles kept on purpose, each with why: one recursive type split over two files.
const KNOWN_CIRCLES: [(&str, &str); 1] = [(
    "engine::python: ast → value → ast",
    "a function value holds its definition and a constant expression holds a value; a separate literal type would copy the numeric tower",
)];

/// The module path of a file of the CLI, from its crate root (`src/bin/arbigraph/eval/lab.rs` is `eval::lab`).
fn cli_module_of(relative: &str) -> Option<Vec<String>> {
    let rest = relative.strip_prefix("src/bin/arbigraph/")?;
    let mut parts: Vec<String> = rest.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["main"] {
        parts.clear();
    }
    Some(parts)
}

/// The import circles among the files under `dir`, each file named by `module_of`, and how many imports were read.
fn circles_under(root: &Path, dir: &str, module_of: fn(&str) -> Option<Vec<String>>) -> (Vec<String>, usize) {
    let mut paths = Vec::new();
    rust_files(&root.join(dir), &mut paths);
    let files: Vec<(Vec<String>, String)> = paths
        .iter()
        .filter_map(|p| {
            let relative = p.strip_prefix(root).ok()?.display().to_string();
            Some((module_of(&relative)?, std::fs::read_to_string(p).ok()?))
        })
        .collect();
    let modules: Vec<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let edges = module_edges(&files, &modules);
    (circles(&edges), edges.len())
}

#[test]
fn no_two_modules_import_each_other_in_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut found, read) = circles_under(root, "src", module_of);
    assert!(read > 500, "too few imports found ({read}): the scanner is broken");
    // The CLI is a crate of its own: `crate::` is its root.
    let (cli, read) = circles_under(root, "src/bin/arbigraph", cli_module_of);
    assert!(read > 20, "too few CLI imports found ({read}): the scanner is broken");
    found.extend(cli.into_iter().map(|c| format!("cli {c}")));
    for (known, _why) in KNOWN_CIRCLES {
        assert!(found.iter().any(|c| c == known), "`{known}` is gone: take it off KNOWN_CIRCLES");
    }
    let new: Vec<&String> = found.iter().filter(|c| !KNOWN_CIRCLES.iter().any(|(k, _)| k == c)).collect();
    assert!(new.is_empty(), "import circles (break each by moving what both need below them):\n{new:#?}");
}

#[test]
fn circles_are_found_among_siblings_only() {
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let files = vec![
        (m("engine::agent::config"), "//! C.\nuse super::strategy::Strategy;\n".to_string()),
        (m("engine::agent::strategy"), "//! S.\nmod acg;\npub use acg::Acg;\n".to_string()),
        (m("engine::agent::strategy::acg"), "//! A.\nuse crate::engine::agent::{session::estimate_tokens, strategy::Plan};\n".to_string()),
        (m("engine::agent::session"), "//! S.\nuse super::config::Config;\n#[cfg(test)]\nmod tests { use crate::engine::results; }\n".to_string()),
        (m("engine::results"), "//! R.\nuse crate::engine::agent::Status;\n".to_string()),
    ];
    let modules: Vec<Vec<String>> = files.iter().map(|(m, _)| m.clone()).chain([m("engine"), m("engine::agent")]).collect();
    let edges = module_edges(&files, &modules);
    assert_eq!(circles(&edges), vec!["engine::agent: config → strategy → session → config".to_string()]);
    // The CLI's files, named from its own root: two subcommand files that take from each other are a circle.
    assert_eq!(cli_module_of("src/bin/arbigraph/eval/lab.rs"), Some(m("eval::lab")));
    assert_eq!(cli_module_of("src/bin/arbigraph/main.rs"), Some(vec![]));
    let cli = vec![
        (m("eval"), "//! E.\nfn f() { super::lab::run(); }\n".to_string()),
        (m("lab"), "//! L.\nuse crate::eval::{run_one, Args};\n".to_string()),
        (m("eval::lab"), "//! Its own part.\nuse super::Args;\n".to_string()),
    ];
    let modules: Vec<Vec<String>> = cli.iter().map(|(m, _)| m.clone()).chain([vec![]]).collect();
    assert_eq!(circles(&module_edges(&cli, &modules)), vec!["crate: eval → lab → eval".to_string()]);
}

#[test]
fn source_tree_follows_the_architecture_rules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.push(root.join("build.rs"));
    let mut violations = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("source files are readable UTF-8");
        let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
        let mut found = check_source(&name, &text);
        // This file spells out the forbidden patterns as data.
        if path.ends_with("tests/it/architecture.rs") {
            found.retain(|v| v.line == 1);
        }
        violations.extend(found);
    }
    assert!(files.len() > 50, "the walk found too few files: {}", files.len());
    assert!(files.iter().any(|f| f.ends_with("src/engine/grade/mod.rs")), "the walk missed the engine");
    assert!(violations.is_empty(), "architecture violations:\n{violations:#?}");
}

fn rules(found: &[Violation]) -> Vec<(usize, &str)> {
    found.iter().map(|v| (v.line, v.rule.as_str())).collect()
}

#[test]
fn checker_flags_a_web_import_in_an_engine_file() {
    let text = "//! A leak.\nuse leptos::prelude::*;\nfn f() { let _ = web_sys::window(); }\nuse my_leptos::x; // leptos::\n";
    let found = check_source("src/engine/leak.rs", text);
    assert_eq!(found.iter().map(|v| v.line).collect::<Vec<_>>(), vec![2, 3], "{found:#?}");
    assert!(found.iter().all(|v| v.rule.contains("web crates")));
    // A mention of the crate's name with a prefix no longer hides a real import on the same line.
    let hidden = check_source("src/engine/leak.rs", "//! A leak.\nuse leptos::x; let _leptos = 1;\n");
    assert_eq!(rules(&hidden).len(), 1, "{hidden:#?}");
    // The same text outside the engine is fine.
    assert!(check_source("src/ui/x.rs", text).is_empty());
}

#[test]
fn checker_flags_io_missing_docs_and_skipped_tests() {
    let found = check_source("src/engine/x.rs", "fn main() {\n  let t = std::time::Instant::now();\n  std::fs::read(\"a\");\n}\n");
    let rules = rules(&found);
    assert_eq!(rules.len(), 3, "{rules:?}");
    assert_eq!(rules[0].0, 1);
    assert!(rules[1].1.contains("IO") && rules[2].1.contains("IO"));
    let skipped = check_source("tests/t.rs", "//! Tests.\n#[test]\n#[ignore]\nfn t() {}\n");
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].line, 3);
}

#[test]
fn checker_flags_a_slice_sort_in_page_code_but_not_in_jobs_or_tests() {
    let text = "//! Rows.\nfn f(v: &mut Vec<u32>) {\n    v.sort_by_key(|x| *x);\n    crate::engine::sort::by_key(v, |x| *x);\n}\n#[cfg(test)]\nmod tests {\n    fn g(v: &mut Vec<u32>) { v.sort(); }\n}\n";
    let checked = check_source("src/app/browse/rows.rs", text);
    let found = rules(&checked);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 3);
    assert!(found[0].1.contains("engine::sort"));
    assert!(check_source("src/ui/common/list.rs", "//! List.\nfn f(v: &mut [u8]) { v.sort_unstable(); }\n").len() == 1);
    assert!(check_source("src/app/jobs/split.rs", text).is_empty());
}

#[test]
fn checker_flags_an_agent_import_in_grade_and_layout_outside_render() {
    let planted = "//! Grading.\nuse crate::engine::agent::AgentRecord;\nuse crate::engine::literal::Literal;\n";
    let found = check_source("src/engine/grade/collect.rs", planted);
    assert_eq!(rules(&found), vec![(2, "engine module `grade` must not import `agent` (see the layering in ARCHITECTURE.md)")]);
    // `super::` in a module root names the engine.
    let found = check_source("src/engine/grade/mod.rs", "//! Grading.\nuse super::results::x;\nuse super::calculator::y;\n");
    assert_eq!(rules(&found).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2]);
    // In a nested file `super::` is the module itself.
    assert!(check_source("src/engine/grade/lenient.rs", "//! Lenient.\nuse super::results;\n").is_empty());
    // Tests below the code may use any engine module.
    assert!(check_source("src/engine/filter.rs", "//! Filters.\n#[cfg(test)]\nmod tests {\n    use crate::engine::rng::InstanceRng;\n}\n").is_empty());
    let layout = "//! Drawing.\nuse layout::gv::DotParser;\nfn f() { rust_sugiyama::from_edges(&[]); }\n";
    let found = check_source("src/engine/generate/draw.rs", layout);
    assert_eq!(rules(&found).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2, 3]);
    assert!(found.iter().all(|v| v.rule.contains("layout")));
    assert!(check_source("src/engine/render/layered.rs", layout).is_empty());
    assert!(check_source("src/engine/render.rs", layout).is_empty());
    let web = check_source("src/web/storage.rs", "//! Storage.\nuse crate::ui::state::AppState;\nuse crate::app::jobs::Job;\n");
    assert_eq!(rules(&web).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2]);
    let app = check_source("src/app/design.rs", "//! Editor.\nuse crate::web::storage;\nuse web_sys::Window;\nuse crate::engine::graph::TaskGraph;\n");
    assert_eq!(rules(&app).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2, 3]);
}

#[test]
fn checker_resolves_grouped_multiline_and_relative_imports() {
    let grouped = "//! Grading.\nuse crate::engine::{\n    literal::Literal,\n    agent::{AgentRecord, Status},\n};\nfn f() {}\n";
    let found = check_source("src/engine/grade/collect.rs", grouped);
    assert_eq!(rules(&found), vec![(2, "engine module `grade` must not import `agent` (see the layering in ARCHITECTURE.md)")]);
    // `super::super::` from a nested engine file climbs to the engine.
    let climbing = check_source("src/engine/grade/deep/x.rs", "//! Deep.\nuse super::super::super::results::Summary;\n");
    assert_eq!(rules(&climbing).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2], "{climbing:#?}");
    let outward = check_source("src/engine/dataset/x.rs", "//! Out.\nfn f() { crate::app::plan::plan(); }\n");
    assert_eq!(rules(&outward), vec![(2, "the engine must not reach into `app`")]);
    assert_eq!(expand_group("crate::engine::{a::{b, c as d}, e, self}"), vec![
        vec!["crate", "engine", "a", "b"],
        vec!["crate", "engine", "a", "c"],
        vec!["crate", "engine", "e"],
        vec!["crate", "engine"],
    ]);
}

#[test]
fn checker_flags_a_page_importing_a_page_and_the_cli_importing_past_the_engine() {
    let planted = "//! Generate.\nuse crate::ui::pages::browse::{DropZone, RunProgress};\nuse crate::ui::common::Tabs;\nuse super::design::x;\n";
    let found = check_source("src/ui/pages/generate.rs", planted);
    assert_eq!(rules(&found).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2, 4], "{found:#?}");
    assert!(found[0].rule.contains("page `generate` must not import page `browse`"));
    // Inside a page's folder `super::` is the page itself; `super::super::` is the pages.
    assert!(check_source("src/ui/pages/results/compare.rs", "//! Compare.\nuse super::charts::Chart;\n").is_empty());
    let found = check_source("src/ui/pages/results/compare.rs", "//! Compare.\nuse super::super::evaluate::budget::PriceFields;\n");
    assert_eq!(rules(&found).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2]);
    let cli = "//! Site.\nuse arbigraph_studio::engine::dataset;\nuse arbigraph_studio::engine::generate::plan::plan;\nuse arbigraph_studio::{app::browse::catalog::Row, web::files};\nuse crate::files::read;\nuse arbigraph_studio::app::plan::plan;\n";
    let found = check_source("src/bin/arbigraph/site.rs", cli);
    assert_eq!(rules(&found).iter().map(|r| r.0).collect::<Vec<_>>(), vec![4, 4, 6], "{found:#?}");
    assert!(found[0].rule.contains("`app::browse::catalog::Row`") && found[1].rule.contains("`web::files`"));
}

#[test]
fn the_pages_list_matches_the_pages_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui/pages");
    let mut found: Vec<String> = std::fs::read_dir(&root)
        .expect("src/ui/pages is readable")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().trim_end_matches(".rs").to_string())
        .filter(|n| n != "mod")
        .collect();
    found.sort();
    found.dedup();
    assert_eq!(found, PAGES);
}

#[test]
fn checker_flags_record_fields_read_by_name_outside_the_record_modules() {
    let planted = "//! A view.\nlet s = sample.get(\"agent_status\");\nlet c = &record[\"chain\"][\"target\"];\nline[\"prompt\"] = text;\nout[\"metadata\"][\"images\"] = list;\nlet ok = r[\"correct\"] == true;\n";
    let found = check_source("src/app/view.rs", planted);
    assert_eq!(
        rules(&found),
        vec![
            (2, "record field `agent_status` looked up by name: read it through SampleRecord or ResultRecord"),
            (3, "record field `chain` looked up by name: read it through SampleRecord or ResultRecord"),
            (6, "record field `correct` looked up by name: read it through SampleRecord or ResultRecord"),
        ],
        "writes by index are allowed, reads and comparisons are not"
    );
    assert!(check_source("src/engine/results/record.rs", planted).is_empty(), "the record modules read fields by name");
    assert!(check_source("src/app/view_tests.rs", planted).is_empty(), "tests build and inspect records directly");
    let in_tests = format!("{planted}#[cfg(test)]\nmod tests {{ fn f() {{ x.get(\"prompt\"); }} }}\n");
    assert_eq!(check_source("src/app/view.rs", &in_tests).len(), 3, "a module's own tests may");
}

/// Modules with files of their own use one style: `name/mod.rs`, never `name.rs` beside a folder `name/`
/// (the tree's majority style). Returns each module written the other way.
fn modules_beside_their_folder(files: &[String]) -> Vec<String> {
    files
        .iter()
        .filter_map(|file| {
            let folder = format!("{}/", file.strip_suffix(".rs")?);
            files.iter().any(|other| other.starts_with(&folder)).then(|| format!("`{file}` sits beside `{folder}`: move it to `{folder}mod.rs`"))
        })
        .collect()
}

#[test]
fn modules_with_parts_live_in_their_folder_as_mod_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    let files: Vec<String> = paths.iter().filter_map(|p| Some(p.strip_prefix(root).ok()?.display().to_string())).collect();
    assert!(files.iter().filter(|f| f.ends_with("/mod.rs")).count() > 30, "the walk found too few module folders");
    let found = modules_beside_their_folder(&files);
    assert!(found.is_empty(), "one module-file style:\n{found:#?}");
    // Planted: a module file beside its folder is found; a file whose name merely starts like a folder is not.
    let planted = ["src/ui/pages/results.rs", "src/ui/pages/results/samples.rs", "src/app/store.rs", "src/app/store_x/a.rs"].map(String::from);
    assert_eq!(modules_beside_their_folder(&planted), vec!["`src/ui/pages/results.rs` sits beside `src/ui/pages/results/`: move it to `src/ui/pages/results/mod.rs`".to_string()]);
}
