//! Fuzzes the Python parser and name resolver: no panic (and no stack overflow) on any text, and every module
//! that parses prints (`unparse`) to source that parses again and prints the same, so the canonical form the
//! tracing prompts show is stable.
#![no_main]

use arbigraph_studio::engine::python::{parse_module, unparse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(module) = parse_module(src) else { return };
    let printed = unparse::unparse_module(&module.body);
    let again = parse_module(&printed).unwrap_or_else(|e| panic!("printed source does not parse: {e}\n{printed}\nfrom {src:?}"));
    let reprinted = unparse::unparse_module(&again.body);
    assert_eq!(reprinted, printed, "printing is not stable for {src:?}");
});
