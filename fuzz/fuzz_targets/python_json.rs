//! Fuzzes the exact JSON reader (`json.loads` semantics: exact big ints, depth and digit caps): no panic on
//! any text, and what it reads writes back (`json.dumps`) to text
//! that reads to the same value.
#![no_main]

use arbigraph_studio::engine::python::json::loads;
use arbigraph_studio::engine::python::to_json_text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = loads(text) else { return };
    let Ok(written) = to_json_text(&value) else { return };
    // `json.dumps` writes an out-of-range float (`1e400`) as `Infinity`, which strict JSON (and so this reader)
    // does not read; every other value must come back.
    let back = match loads(&written) {
        Ok(back) => back,
        Err(_) if written.contains("Infinity") => return,
        Err(e) => panic!("{written:?} (written from {text:?}) does not read back: {e}"),
    };
    assert_eq!(to_json_text(&back).as_deref(), Ok(written.as_str()), "from {text:?}");
});
