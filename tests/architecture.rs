//! Tidy checks on the source tree: the engine imports no web crate and does no IO, every file says what it
//! owns, and no test is skipped or expected to panic.

use std::path::{Path, PathBuf};

/// Crates the engine must never import.
const WEB_CRATES: [&str; 6] = ["leptos", "web_sys", "wasm_bindgen", "js_sys", "gloo", "gloo_net"];
/// IO and clock calls the engine must never make.
const ENGINE_IO: [&str; 6] = ["std::fs", "std::env", "std::net", "std::thread", "Instant::now", "SystemTime::now"];

/// One broken rule, located.
#[derive(Debug, PartialEq)]
struct Violation {
    file: String,
    line: usize,
    rule: &'static str,
}

/// Checks one file's text. `in_engine` turns on the engine-only rules.
fn check_source(file: &str, text: &str, in_engine: bool) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut push = |line: usize, rule: &'static str| out.push(Violation { file: file.to_string(), line, rule });
    if !text.starts_with("//!") {
        push(1, "file must start with a `//!` line saying what it owns");
    }
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let code = line.split("//").next().unwrap_or("");
        if code.contains("#[should_panic") || code.contains("#[ignore") {
            push(i + 1, "no #[should_panic] or #[ignore]: assert on the error instead");
        }
        if code.contains("dbg!(") {
            push(i + 1, "no dbg!");
        }
        if in_engine {
            for krate in WEB_CRATES {
                let uses = code.contains(&format!("use {krate}")) || code.contains(&format!("{krate}::")) || code.contains(&format!("extern crate {krate}"));
                if uses && !code.contains(&format!("_{krate}")) {
                    push(i + 1, "the engine must not import web crates");
                }
            }
            for io in ENGINE_IO {
                if code.contains(io) {
                    push(i + 1, "the engine must not do IO or read clocks");
                }
            }
            if code.contains("println!(") || code.contains("eprintln!(") {
                push(i + 1, "the engine must not print");
            }
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
    let engine = root.join("src/engine");
    let mut violations = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("source files are readable UTF-8");
        let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
        let mut found = check_source(&name, &text, path.starts_with(&engine));
        // This file spells out the forbidden patterns as data.
        if path.ends_with("tests/architecture.rs") {
            found.retain(|v| v.line == 1);
        }
        violations.extend(found);
    }
    assert!(files.len() > 10, "the walk found too few files: {}", files.len());
    assert!(violations.is_empty(), "architecture violations:\n{violations:#?}");
}

#[test]
fn checker_flags_a_web_import_in_an_engine_file() {
    let dir = std::env::temp_dir().join(format!("arbigraph-tidy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("leak.rs");
    std::fs::write(&path, "//! A leak.\nuse leptos::prelude::*;\nfn f() { let _ = web_sys::window(); }\n").expect("write temp file");
    let text = std::fs::read_to_string(&path).expect("read temp file");
    let found = check_source("leak.rs", &text, true);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.iter().map(|v| v.line).collect::<Vec<_>>(), vec![2, 3]);
    assert!(found.iter().all(|v| v.rule.contains("web crates")));
    // The same text outside the engine is fine.
    assert!(check_source("ui.rs", &text, false).is_empty());
}

#[test]
fn checker_flags_io_missing_docs_and_skipped_tests() {
    let found = check_source("x.rs", "fn main() {\n  let t = std::time::Instant::now();\n  std::fs::read(\"a\");\n}\n", true);
    let rules: Vec<_> = found.iter().map(|v| (v.line, v.rule)).collect();
    assert_eq!(rules.len(), 3, "{rules:?}");
    assert_eq!(rules[0].0, 1);
    assert!(rules[1].1.contains("IO") && rules[2].1.contains("IO"));
    let skipped = check_source("t.rs", "//! Tests.\n#[test]\n#[ignore]\nfn t() {}\n", false);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].line, 3);
}
