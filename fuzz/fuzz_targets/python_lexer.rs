//! Fuzzes the Python tokenizer: no panic on any text; a token stream ends with one END, its INDENT and DEDENT
//! tokens balance, and positions never move backwards.
#![no_main]

use arbigraph_studio::engine::python::lexer::{tokenize, Tok};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(tokens) = tokenize(src) else { return };
    assert!(matches!(tokens.last().map(|t| &t.tok), Some(Tok::End)), "{src:?} does not end with END");
    assert_eq!(tokens.iter().filter(|t| matches!(t.tok, Tok::End)).count(), 1);
    let mut depth = 0i64;
    for token in &tokens {
        match token.tok {
            Tok::Indent => depth += 1,
            Tok::Dedent => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0, "a DEDENT without its INDENT in {src:?}");
    }
    assert_eq!(depth, 0, "unbalanced indentation tokens in {src:?}");
    for pair in tokens.windows(2) {
        let (a, b) = (pair[0].pos, pair[1].pos);
        assert!((a.line, a.col) <= (b.line, b.col), "positions go back from {a:?} to {b:?} in {src:?}");
    }
});
