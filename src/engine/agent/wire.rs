//! The one place that picks a wire: request bodies, reply parsing and streamed-reply accumulation for chat
//! completions (`openai_wire`) and Anthropic's Messages (`anthropic_wire`), so drivers, the agent loop and the
//! strategies never know which one ran.

use serde_json::Value;

use super::anthropic_wire::{self, MessagesStreamAccumulator};
use super::openai_wire::{self, StreamAccumulator, StreamDelta, WireError};
use super::provider::{RequestShape, Wire};
use super::{ChatReply, ChatRequest};

/// The body of `request` for `model`, shaped by the run's negotiated parameters; `stream` asks for server-sent
/// events.
pub fn request_body(shape: &RequestShape, request: &ChatRequest, model: &str, stream: bool) -> Value {
    let sampling = shape.sampling(request);
    match shape.wire {
        Wire::ChatCompletions if stream => openai_wire::request_json_streaming(request, model, &sampling),
        Wire::ChatCompletions => openai_wire::request_json_with(request, model, &sampling),
        Wire::Messages => {
            let cache = shape.profile.explicit_cache;
            let build = if stream { anthropic_wire::request_json_streaming } else { anthropic_wire::request_json };
            build(request, model, sampling.max_tokens, sampling.temperature, sampling.top_p, cache)
        }
    }
}

/// Parses a whole reply body of `wire`.
pub fn parse_reply(wire: Wire, body: &str) -> Result<ChatReply, WireError> {
    match wire {
        Wire::ChatCompletions => openai_wire::parse_reply(body),
        Wire::Messages => anthropic_wire::parse_reply(body),
    }
}

/// Puts a streamed reply of either wire together.
pub enum Accumulator {
    /// Chat-completions chunks.
    Chat(StreamAccumulator),
    /// Messages events.
    Messages(MessagesStreamAccumulator),
}

impl Accumulator {
    /// A fresh accumulator for `wire`.
    pub fn new(wire: Wire) -> Accumulator {
        match wire {
            Wire::ChatCompletions => Accumulator::Chat(StreamAccumulator::new()),
            Wire::Messages => Accumulator::Messages(MessagesStreamAccumulator::new()),
        }
    }

    /// Feeds the next piece of the body; returns what it added.
    pub fn push(&mut self, text: &str) -> Result<StreamDelta, WireError> {
        match self {
            Accumulator::Chat(a) => a.push(text),
            Accumulator::Messages(a) => a.push(text),
        }
    }

    /// Ends the stream and returns the reply.
    pub fn finish(self) -> Result<ChatReply, WireError> {
        match self {
            Accumulator::Chat(a) => a.finish(),
            Accumulator::Messages(a) => a.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::agent::provider::{compatible, profile};
    use crate::engine::agent::{Message, RequestKind, Role};

    #[test]
    fn the_shape_picks_the_wire_and_its_parameters() {
        let request = ChatRequest {
            messages: vec![Message::new(Role::System, "s"), Message::new(Role::User, "u")],
            max_tokens: 32_768,
            temperature: 0.0,
            top_p: 0.95,
            repair: true,
            turn: 0,
            kind: RequestKind::Turn,
        };
        let anthropic = RequestShape::new(profile("anthropic").unwrap(), Wire::Messages, "claude-3-5-haiku-latest");
        let body = request_body(&anthropic, &request, "claude-3-5-haiku-latest", false);
        assert_eq!(body["max_tokens"], 8_192, "clamped to the model's cap");
        assert!(body.get("top_p").is_none() && body.get("messages").is_some() && body["system"].is_array());
        let openai = RequestShape::new(profile("openai").unwrap(), Wire::ChatCompletions, "gpt-5-mini");
        let body = request_body(&openai, &request, "gpt-5-mini", true);
        assert_eq!((body["max_completion_tokens"].clone(), body["stream"].clone()), (serde_json::json!(32_768), serde_json::json!(true)));
        assert!(body.get("temperature").is_none());
        let plain = RequestShape::new(compatible(), Wire::ChatCompletions, "m");
        assert_eq!(request_body(&plain, &request, "m", false), openai_wire::request_json(&request, "m"), "an unknown server gets what it always got");
    }

    #[test]
    fn replies_of_either_wire_parse_through_one_door() {
        let messages = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"hi"}],"stop_reason":"max_tokens","usage":{"input_tokens":10,"output_tokens":3}}"#;
        let reply = parse_reply(Wire::Messages, messages).unwrap();
        assert_eq!((reply.content.as_str(), reply.finish_reason.as_deref()), ("hi", Some("length")), "a cut-off is a cut-off on either wire");
        let mut acc = Accumulator::new(Wire::ChatCompletions);
        acc.push("{\"choices\":[{\"message\":{\"content\":\"plain\"}}]}").unwrap();
        assert_eq!(acc.finish().unwrap().content, "plain");
    }
}
