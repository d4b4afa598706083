//! Embeds the Python function pool (`data/python/*.py`, sorted by file name) into the engine at compile time,
//! so the engine does no IO and the wasm app carries the pool.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new("data/python");
    println!("cargo:rerun-if-changed=data/python");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "py")).collect())
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("/// The built-in pool: (file stem, source), sorted by file name.\npub static POOL: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("pool file names are UTF-8");
        let absolute = std::fs::canonicalize(path).expect("pool file exists");
        writeln!(out, "    ({stem:?}, include_str!({:?})),", absolute.display().to_string()).expect("writing to a String cannot fail");
    }
    out.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out_dir).join("python_pool.rs"), out).expect("OUT_DIR is writable");
}
