//! Fuzzes the multichain structure language: no panic on any text, and a structure that parses, written in the
//! short form (`m,m,[m,g],[m,m],m`) or the reference's list form (`["math", ["math", "gsm"], …]`), parses to
//! the same structure.
#![no_main]

use arbigraph_studio::engine::generate::{parse_structure, StructureItem};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(structure) = parse_structure(text) else { return };
    let short: Vec<String> = structure
        .items
        .iter()
        .map(|item| match item {
            StructureItem::Flat(f) => f.as_str().to_string(),
            StructureItem::Branch(fs) => format!("[{}]", fs.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(",")),
        })
        .collect();
    let short = short.join(",");
    assert_eq!(parse_structure(&short).as_ref(), Ok(&structure), "short form {short:?} of {text:?}");
    let list = structure.to_json().to_string();
    assert_eq!(parse_structure(&list).as_ref(), Ok(&structure), "list form {list:?} of {text:?}");
    assert!(structure.task_count() >= structure.items.len());
});
