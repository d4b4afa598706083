//! Fuzzes what the harness reads from a hosted API besides chat completions: Anthropic's Messages replies (whole
//! and streamed, cut anywhere), error bodies read for a refused parameter, and rate-limit headers. No panic on
//! any input; a streamed body cut into pieces gives the reply the whole body gives; adapting to the same refusal
//! twice changes nothing the second time; a wait is never longer than the longest value a header states.
#![no_main]

use arbigraph_studio::engine::agent::anthropic_wire::{parse_reply, MessagesStreamAccumulator};
use arbigraph_studio::engine::agent::provider::{compatible, RequestShape, Resend, Wire};
use arbigraph_studio::engine::agent::retry::wait_from_headers;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = parse_reply(text);
    // The stream, whole and cut at every 7th character boundary.
    let whole = {
        let mut acc = MessagesStreamAccumulator::new();
        acc.push(text).and_then(|_| acc.finish())
    };
    let mut pieces = MessagesStreamAccumulator::new();
    let mut failed = None;
    let chars: Vec<char> = text.chars().collect();
    for chunk in chars.chunks(7) {
        if let Err(e) = pieces.push(&chunk.iter().collect::<String>()) {
            failed = Some(e);
            break;
        }
    }
    let cut = match failed {
        Some(e) => Err(e),
        None => pieces.finish(),
    };
    if let (Ok(a), Ok(b)) = (&whole, &cut) {
        assert_eq!(a, b, "pieces and the whole body agree");
    }
    // A refusal: adapting twice to the same body adapts nothing new.
    let mut shape = RequestShape::new(compatible(), Wire::ChatCompletions, "m");
    let first = shape.respond(400, text);
    let before = shape.clone();
    let second = shape.respond(400, text);
    if matches!(first, Resend::Adapted(_)) {
        assert_eq!(second, Resend::AlreadyAdapted, "{text:?}");
    }
    assert_eq!(shape, before, "the same refusal twice changes nothing the second time");
    // Headers: each line `name: value`.
    let headers: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once(':').map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string())))
        .collect();
    let _ = wait_from_headers(&|name| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()), Some(1_796_323_200_000));
});
