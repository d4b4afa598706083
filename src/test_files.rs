//! Test-only access to the reference's sample files, so engine unit tests can use them without doing IO
//! themselves. They live in `shared/reference-samples/` beside the project (or two levels up from a git
//! worktree); a missing file fails the test that asked for it.

use std::path::Path;

/// The text of `shared/reference-samples/<name>`.
pub fn reference_sample(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/reference-samples", "../../shared/reference-samples"]
        .iter()
        .find_map(|dir| std::fs::read_to_string(root.join(dir).join(name)).ok())
        .unwrap_or_else(|| panic!("reference sample {name} not found next to the project"))
}
