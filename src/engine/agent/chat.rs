//! The conversation in domain terms: messages, one chat request, one reply. `openai_wire` maps these to and from
//! the chat-completions JSON; nothing else here knows a wire format.

use serde_json::Value;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The system prompt.
    System,
    /// The task prompt and the harness's repair messages.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

impl Role {
    /// The chat-completions spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A tool call attached to an assistant message.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The call id the tool result refers to.
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
}

/// One conversation message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The author.
    pub role: Role,
    /// The text.
    pub content: String,
    /// Reasoning text the model returned separately (kept in the transcript, never sent back).
    pub reasoning: Option<String>,
    /// Tool calls of an assistant message.
    pub tool_calls: Vec<ToolCall>,
    /// For tool messages: the call answered.
    pub tool_call_id: Option<String>,
    /// For tool messages: the tool's name.
    pub name: Option<String>,
    /// What the harness added this message for (`repair:cutoff`, …), if it is a harness message.
    pub purpose: Option<String>,
    /// Pictures sent with a user message (an image task's picture), after its text, in order.
    pub images: Vec<ImagePart>,
}

/// A picture attached to a user message. Whether it is sent again is the strategy's choice of whole messages:
/// a strategy keeps or drops the message, never the picture alone.
#[derive(Clone, Debug, PartialEq)]
pub struct ImagePart {
    /// Where the picture is: a `data:image/png;base64,…` URL in our datasets.
    pub url: String,
    /// Pixel width, for token estimates.
    pub width: u32,
    /// Pixel height, for token estimates.
    pub height: u32,
    /// The text sent just before it, e.g. `Image 1 (Task 3):`.
    pub label: String,
}

impl ImagePart {
    /// Prompt tokens a vision model charges for the picture, by the common tiling rule: fit in 2048x2048,
    /// scale the short side down to 768, then 170 tokens per 512-pixel tile plus 85.
    pub fn estimated_tokens(&self) -> u64 {
        let (mut w, mut h) = (f64::from(self.width.max(1)), f64::from(self.height.max(1)));
        let fit = (2048.0 / w.max(h)).min(1.0);
        w *= fit;
        h *= fit;
        let short = (768.0 / w.min(h)).min(1.0);
        w *= short;
        h *= short;
        let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
        85 + 170 * tiles as u64
    }
}

impl Message {
    /// A plain message.
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message { role, content: content.into(), reasoning: None, tool_calls: Vec::new(), tool_call_id: None, name: None, purpose: None, images: Vec::new() }
    }

    /// The same message, marked with what the harness added it for.
    pub fn with_purpose(mut self, purpose: &str) -> Message {
        self.purpose = Some(purpose.to_string());
        self
    }
}

/// What a request is for: a turn of the agent, or an auxiliary call a context strategy needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RequestKind {
    /// A turn of the agent (offered the calculator tool).
    #[default]
    Turn,
    /// A summarisation call of the `summary` strategies (no tools; its tokens are counted apart).
    Summary,
}

impl RequestKind {
    /// `turn` or `summary`, as written in results files.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Turn => "turn",
            RequestKind::Summary => "summary",
        }
    }

    /// True for calls that are not turns of the agent.
    pub fn is_auxiliary(self) -> bool {
        self != RequestKind::Turn
    }
}

/// One chat-completions request, in domain terms (`openai_wire` maps it to JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    /// The messages to send.
    pub messages: Vec<Message>,
    /// Completion token limit of this turn.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
    /// Nucleus sampling.
    pub top_p: f64,
    /// Whether this is a repair turn (larger limit).
    pub repair: bool,
    /// 0-based turn index (of the turn an auxiliary call precedes).
    pub turn: usize,
    /// A turn, or an auxiliary call.
    pub kind: RequestKind,
}

/// Arguments of a structured tool call: JSON text (the usual form) or an object (some providers).
#[derive(Clone, Debug, PartialEq)]
pub enum ToolArguments {
    /// Arguments as a JSON string (possibly malformed).
    Text(String),
    /// Arguments already decoded.
    Json(Value),
}

/// A structured tool call in a reply.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyToolCall {
    /// The provider's call id (may be empty).
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments.
    pub arguments: ToolArguments,
}

/// Token counts a provider reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: Option<u64>,
    /// Completion tokens (reasoning tokens included, as every provider bills them).
    pub completion_tokens: Option<u64>,
    /// Prompt tokens read from the provider's prompt cache (part of `prompt_tokens`, billed at the cached price).
    pub cached_prompt_tokens: Option<u64>,
    /// Prompt tokens written to the provider's prompt cache (Anthropic's `cache_creation_input_tokens`; part of
    /// `prompt_tokens`).
    pub cache_write_tokens: Option<u64>,
    /// Reasoning tokens (part of `completion_tokens`, billed as output).
    pub reasoning_tokens: Option<u64>,
}

/// One model reply, in domain terms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatReply {
    /// The message content.
    pub content: String,
    /// A separate reasoning text, if the provider returns one.
    pub reasoning: String,
    /// Structured tool calls.
    pub tool_calls: Vec<ReplyToolCall>,
    /// `stop`, `length`, `tool_calls`, …
    pub finish_reason: Option<String>,
    /// Reported token counts.
    pub usage: Usage,
    /// Wall time of the call as measured by the driver, in milliseconds.
    pub latency_ms: Option<u64>,
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picture_tokens_follow_the_tiling_rule() {
        let part = |width, height| ImagePart { url: String::new(), width, height, label: String::new() };
        // 2000x1400 scales to 1097x768: 3 x 2 tiles.
        assert_eq!(part(2000, 1400).estimated_tokens(), 85 + 170 * 6);
        assert_eq!(part(512, 512).estimated_tokens(), 85 + 170);
        // 4000x1000 fits 2048x512: 4 x 1 tiles.
        assert_eq!(part(4000, 1000).estimated_tokens(), 85 + 170 * 4);
    }
}
