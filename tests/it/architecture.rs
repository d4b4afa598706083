//! Tidy checks on the source tree: the engine imports no web crate and does no IO, each engine module imports
//! only the modules below it (the layering in ARCHITECTURE.md), only `render` touches the layout crates, `web`
//! never reaches into `ui`, `app` needs no browser, every file says what it owns, and no test is skipped or
//! expected to panic.
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
    ("prompt", &[]),
    ("literal", &[]),
    ("adapter", &["prompt", "rng", "value"]),
    ("filter", &["value"]),
    ("python", &["value"]),
    ("calculator", &["literal", "value"]),
    ("tasks", &["adapter", "filter", "prompt", "python", "rng", "value"]),
    ("graph", &["rng", "tasks", "value"]),
    ("generate", &["adapter", "filter", "graph", "prompt", "rng", "tasks", "value"]),
    ("dataset", &["adapter", "generate", "graph", "prompt", "tasks", "value"]),
    ("render", &["graph", "tasks", "value"]),
    // Grading knows nothing about the agent that produced the answers, nor about files.
    ("grade", &["calculator", "literal", "value"]),
    ("agent", &["calculator", "grade", "literal", "value"]),
    ("results", &["agent", "dataset", "grade", "literal", "value"]),
    // A run knows the agent's replies and the results file, never how the samples are sent or stored.
    ("run", &["agent", "results"]),
];

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
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if line.starts_with("//") {
            continue;
        }
        in_tests |= line.starts_with("#[cfg(test)]");
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
            for named in engine_modules_named(code, *super_is_engine).into_iter().filter(|_| !in_tests) {
                if named != *module && engine_modules.contains(&named.as_str()) && !allowed.contains(&named.as_str()) {
                    push(i + 1, format!("engine module `{module}` must not import `{named}` (see the layering in ARCHITECTURE.md)"));
                }
            }
        }
        let in_render = matches!(&place, Place::Engine { module, .. } if module == "render");
        if !in_render && LAYOUT_CRATES.iter().any(|k| names_crate(k)) {
            push(i + 1, "only engine/render lays graphs out (layout crates)".into());
        }
        if place == Place::Web && path_uses(code, "crate::ui") {
            push(i + 1, "web adapters must not reach into ui".into());
        }
        if place == Place::App && (path_uses(code, "crate::ui") || path_uses(code, "crate::web") || WEB_CRATES.iter().any(|k| names_crate(k))) {
            push(i + 1, "app logic must run without a browser: no ui, web or web crates".into());
        }
    }
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
    let app = check_source("src/app/editor.rs", "//! Editor.\nuse crate::web::storage;\nuse web_sys::Window;\nuse crate::engine::graph::TaskGraph;\n");
    assert_eq!(rules(&app).iter().map(|r| r.0).collect::<Vec<_>>(), vec![2, 3]);
}
