//! One sample's transcript as it reads: the head (verdict, answer against the truth, strategy, cost), every
//! message in order with the requests sent between them, and the answers each turn gave.

use super::*;

/// One sample's transcript as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Transcript {
    /// Position in the file's `samples`.
    pub index: usize,
    pub head: Head,
    /// Messages, requests and (for files without a transcript) turn outputs, in the order they happened.
    pub entries: Vec<Entry>,
    /// The sample's pictures; messages refer to them by position.
    pub pictures: Vec<PictureView>,
    /// What the file does not record, one sentence each.
    pub notes: Vec<String>,
    pub breaks: Breaks,
}

/// The transcript's header.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    pub verdict: Verdict,
    /// `agent_status` as written (empty when absent).
    pub status: String,
    /// `agent_error`, when the run recorded one.
    pub error: Option<String>,
    /// The target task's name.
    pub target: String,
    /// The graded output's name (`task_3_out`).
    pub output: String,
    /// The answer the run collected for it, if any.
    pub given: Option<String>,
    /// Its ground truth as Python prints it.
    pub truth: String,
    /// The context strategy with its parameters (`window:exchanges=8`), when recorded.
    pub strategy: Option<String>,
    pub turns: Option<u64>,
    pub tool_calls: Option<u64>,
    pub tokens: TokenFacts,
    /// Repairs used, by kind, when recorded (only kinds used).
    pub repairs: Vec<(String, u64)>,
}

/// The token figures of a sample.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenFacts {
    /// Prompt tokens of every call (reported, else estimated), when a request log or usage totals exist.
    pub prompt: Option<u64>,
    /// Completion tokens of every call.
    pub completion: Option<u64>,
    /// Calls made (from the request log).
    pub calls: Option<usize>,
    /// `token_length`: tokens generated.
    pub generated: Option<u64>,
    /// Of the prompt tokens, those the provider read from its cache (when it reported any).
    pub cached: Option<u64>,
    /// Of the completion tokens, the reasoning tokens (when reported).
    pub reasoning: Option<u64>,
}

impl TokenFacts {
    /// `3 calls · 1,234 prompt + 56 completion tokens` (whatever is known).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(calls) = self.calls {
            parts.push(format!("{} call{}", grouped(calls as u64), if calls == 1 { "" } else { "s" }));
        }
        let of = |part: Option<u64>, what: &str| part.filter(|&n| n > 0).map(|n| format!(" ({} {what})", grouped(n))).unwrap_or_default();
        match (self.prompt, self.completion) {
            (Some(p), Some(c)) => parts.push(format!("{} prompt{} + {} completion tokens{}", grouped(p), of(self.cached, "cached"), grouped(c), of(self.reasoning, "reasoning"))),
            (Some(p), None) => parts.push(format!("{} prompt tokens", grouped(p))),
            (None, Some(c)) => parts.push(format!("{} completion tokens", grouped(c))),
            (None, None) => {}
        }
        if let Some(g) = self.generated {
            parts.push(format!("{} generated", grouped(g)));
        }
        if parts.is_empty() {
            "not recorded".into()
        } else {
            parts.join(" · ")
        }
    }
}

/// One step of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    Message(MessageView),
    Request(RequestView),
    /// A turn of a file without a transcript: its output as stored in `turn_outputs`.
    Turn(TurnView),
}

/// The sample's context curve: the prompt tokens of each turn request in order (reported, else estimated), as
/// an SVG line; `None` for fewer than two such requests.
pub fn context_curve_of(transcript: &Transcript) -> Option<String> {
    let curve: Vec<f64> = transcript
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Request(r) if r.kind == "turn" => r.prompt_reported.or(r.prompt_estimated).map(|t| t as f64),
            _ => None,
        })
        .collect();
    (curve.len() >= 2).then(|| crate::app::results::charts::context_curves(&[(format!("sample {}", transcript.index), curve)])).flatten()
}

/// Who wrote a message, as the badge shows it; anything unknown is `Other` with its text kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    Other(String),
}

impl Role {
    fn parse(text: &str) -> Role {
        match text {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => Role::Other(other.to_string()),
        }
    }

    /// The badge's text.
    pub fn label(&self) -> &str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Other(text) if text.is_empty() => "unknown",
            Role::Other(text) => text,
        }
    }

    /// A CSS class suffix from a fixed set (never the file's text).
    pub fn class(&self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Other(_) => "other",
        }
    }
}

/// One message of the transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageView {
    /// Position in the transcript.
    pub position: usize,
    pub role: Role,
    /// For assistant messages: the 0-based turn.
    pub turn: Option<usize>,
    pub content: String,
    /// Reasoning the model returned apart.
    pub reasoning: Option<String>,
    /// Tool calls, each with the result answering it.
    pub calls: Vec<CallView>,
    /// What the harness added the message for (`repair:cutoff`), for harness messages.
    pub purpose: Option<String>,
    /// For a tool result that answers no call of the transcript: the tool's name and the call id it names.
    pub unmatched_tool: Option<(String, String)>,
    /// The pictures sent with the message: `pictures[start..start + count]` of the transcript.
    pub pictures: (usize, usize),
    /// The answers collected from this turn's output, `(output name, answer)`.
    pub answers: Vec<(String, String)>,
}

/// A tool call and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct CallView {
    pub id: String,
    pub name: String,
    /// The arguments, pretty-printed when they are JSON, else as sent.
    pub arguments: String,
    /// The tool message that answered it, if the transcript has one.
    pub result: Option<String>,
}

/// One request sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestView {
    /// 1-based position in the request log.
    pub number: usize,
    /// The 0-based turn it belongs to.
    pub turn: usize,
    /// `turn`, `summary`, or what the file says.
    pub kind: String,
    /// Messages it sent.
    pub sent: Option<u64>,
    /// Messages the conversation had when it was sent (turn requests of files with a transcript).
    pub history: Option<usize>,
    pub prompt_reported: Option<u64>,
    pub prompt_estimated: Option<u64>,
    /// Of the prompt tokens, those read from the provider's cache.
    pub prompt_cached: Option<u64>,
    pub completion: Option<u64>,
    /// Of the completion tokens, the reasoning tokens.
    pub reasoning: Option<u64>,
    pub latency_ms: Option<u64>,
}

impl RequestView {
    /// `request 3 (turn 3) sent 5 of 9 messages · 1,234 prompt tokens (1,024 cached) · 56 completion tokens (40
    /// reasoning) · 820 ms`.
    pub fn describe(&self) -> String {
        let what = if self.kind == "turn" { format!("request {} (turn {})", self.number, self.turn + 1) } else { format!("request {} ({} call before turn {})", self.number, self.kind, self.turn + 1) };
        let mut parts = vec![match (self.sent, self.history) {
            (Some(sent), Some(history)) => format!("{what} sent {} of {} messages", grouped(sent), grouped(history as u64)),
            (Some(sent), None) => format!("{what} sent {} message{}", grouped(sent), if sent == 1 { "" } else { "s" }),
            (None, _) => format!("{what}: messages sent not recorded"),
        }];
        let of = |part: Option<u64>, what: &str| part.filter(|&n| n > 0).map(|n| format!(" ({} {what})", grouped(n))).unwrap_or_default();
        match (self.prompt_reported, self.prompt_estimated) {
            (Some(p), _) => parts.push(format!("{} prompt tokens{}", grouped(p), of(self.prompt_cached, "cached"))),
            (None, Some(e)) => parts.push(format!("~{} prompt tokens (estimated)", grouped(e))),
            (None, None) => {}
        }
        if let Some(c) = self.completion {
            parts.push(format!("{} completion tokens{}", grouped(c), of(self.reasoning, "reasoning")));
        }
        if let Some(ms) = self.latency_ms {
            parts.push(format!("{} ms", grouped(ms)));
        }
        parts.join(" · ")
    }

    /// True when the request left out part of the conversation.
    pub fn is_partial(&self) -> bool {
        matches!((self.sent, self.history), (Some(sent), Some(history)) if (sent as usize) < history)
    }
}

/// A turn's stored output, for files without a transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnView {
    /// 0-based.
    pub turn: usize,
    /// The text before `</think>`, when the output has one.
    pub reasoning: Option<String>,
    pub text: String,
    pub answers: Vec<(String, String)>,
}

/// The transcript of the sample at `index` of a results file.
pub fn transcript_of(sample: &Json, index: usize) -> Transcript {
    let record = ResultRecord::parse(sample);
    let spec = SampleSpec::from_record(&record.sample, index).ok();
    let expected: Vec<String> = spec.as_ref().map(|s| s.expected.clone()).unwrap_or_default();
    let turn_texts = record.turn_outputs.clone().unwrap_or_default();
    let answers_by_turn = answers_by_turn(&turn_texts, &expected);
    let pictures = pictures_in(&record.sample);
    let mut notes = Vec::new();
    let requests = record.requests.as_deref().unwrap_or(&[]);
    let entries = match transcript_entries(sample) {
        Some(messages) => message_entries(&messages, requests, &answers_by_turn, pictures.len(), &mut notes),
        None => {
            notes.push(if turn_texts.is_empty() {
                "This file records neither a transcript nor turn outputs: only the verdict and the answers are known.".to_string()
            } else {
                "This file records no transcript (the reference's files do not): the prompt and each turn's output are shown as stored, without tool results or harness messages.".to_string()
            });
            outputs_only(&record, &turn_texts, &answers_by_turn, pictures.len(), requests)
        }
    };
    if record.requests.is_none() {
        notes.push("This file records no request log: how much of the conversation each request sent, and its tokens, are not known.".into());
    }
    let breaks = breaks_in(&record, index);
    if breaks.graded_here && !breaks.nodes.is_empty() {
        notes.push("This file records no per-node statuses: they are graded here from the stored answers.".into());
    }
    Transcript { index, head: head_of(&record, index, spec.as_ref()), entries, pictures, notes, breaks }
}

fn head_of(record: &ResultRecord, index: usize, spec: Option<&SampleSpec>) -> Head {
    let (fallback_output, truth) = answer_in(&record.sample);
    let output = spec.map(|s| s.target.clone()).unwrap_or(fallback_output);
    let given = record.task_answers.as_ref().and_then(|a| a.get(&output)).map(|a| a.answer.clone());
    let requests = record.requests.as_ref();
    let tokens = TokenFacts {
        prompt: requests.map(|r| r.iter().map(|q| q.prompt_tokens().unwrap_or(0)).sum()).or_else(|| record.usage_of("prompt_tokens")),
        completion: requests.map(|r| r.iter().filter_map(|q| q.completion_tokens).sum()).or_else(|| record.usage_of("completion_tokens")),
        calls: requests.map(Vec::len),
        generated: whole(record.token_length),
        cached: record.usage_of("cached_prompt_tokens"),
        reasoning: record.usage_of("reasoning_tokens"),
    };
    let repairs = record.repairs.iter().flatten().filter(|(_, n)| *n > 0).cloned().collect();
    Head {
        verdict: verdict_in(record, index),
        status: record.status_name().to_string(),
        error: record.agent_error.clone(),
        target: record.sample.task_name.clone().unwrap_or_default(),
        output,
        given,
        truth,
        strategy: record.strategy.clone(),
        turns: whole(record.agent_turns),
        tool_calls: whole(record.agent_tool_calls),
        tokens,
        repairs,
    }
}

/// A stored count as a whole number (`None` for a negative one).
fn whole(n: Option<f64>) -> Option<u64> {
    n.filter(|n| *n >= 0.0).map(|n| n as u64)
}

/// The answers each turn's output gave, collected as the grader collects them (later boxes replace earlier ones).
fn answers_by_turn(turns: &[(usize, String)], expected: &[String]) -> BTreeMap<usize, Vec<(String, String)>> {
    let mut answers = Answers::new();
    let mut by_turn = BTreeMap::new();
    for (turn, text) in turns {
        let updated = answers.collect(text, *turn, expected);
        let given: Vec<(String, String)> = updated.into_iter().filter_map(|name| Some((name.clone(), answers.get(&name)?.answer.clone()))).collect();
        if !given.is_empty() {
            by_turn.insert(*turn, given);
        }
    }
    by_turn
}

/// The text of a message's `content`: a string, the text parts of a content list, or the JSON as written.
fn content_text(content: Option<&Json>) -> String {
    match content {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => s.clone(),
        Some(Json::Array(parts)) if parts.iter().all(|p| p.get("type").is_some()) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Json::as_str)).collect::<Vec<_>>().join("\n")
        }
        Some(other) => other.to_string(),
    }
}

/// Tool-call arguments pretty-printed: JSON text or a JSON value laid out, anything else as sent.
fn pretty_arguments(arguments: Option<&Json>) -> String {
    match arguments {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(s)) => match serde_json::from_str::<Json>(s) {
            Ok(value) => serde_json::to_string_pretty(&value).unwrap_or_else(|_| s.clone()),
            Err(_) => s.clone(),
        },
        Some(other) => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

fn message_entries(messages: &[TranscriptEntry], requests: &[RequestEntry], answers: &BTreeMap<usize, Vec<(String, String)>>, pictures: usize, notes: &mut Vec<String>) -> Vec<Entry> {
    // Tool results by the call id they answer; each is shown under its call, and alone only when no call names it.
    let mut results: BTreeMap<&str, usize> = BTreeMap::new();
    for (position, m) in messages.iter().enumerate() {
        if m.role == "tool" {
            if let Some(id) = &m.tool_call_id {
                results.entry(id.as_str()).or_insert(position);
            }
        }
    }
    let called: std::collections::BTreeSet<&str> = messages.iter().flat_map(|m| &m.tool_calls).map(|(id, _, _)| id.as_str()).filter(|id| !id.is_empty()).collect();
    // Where each turn's assistant message is: turn k is the k-th assistant message.
    let assistant_positions: Vec<usize> = messages.iter().enumerate().filter(|(_, m)| m.role == "assistant").map(|(p, _)| p).collect();
    let mut request_views: Vec<RequestView> = requests.iter().enumerate().map(|(k, r)| request_view(k, r)).collect();
    for r in &mut request_views {
        if r.kind == "turn" {
            r.history = Some(assistant_positions.get(r.turn).copied().unwrap_or(messages.len()));
        }
    }
    let mut pending = request_views.into_iter().peekable();
    let counted = messages.iter().any(|m| m.pictures.is_some());
    if pictures > 0 && !counted {
        notes.push("This file does not record which message carried the pictures: they are shown with the prompt, where the harness sends them.".into());
    }
    let mut picture_cursor = 0;
    let mut first_user_seen = false;
    let mut entries = Vec::with_capacity(messages.len() + requests.len());
    let mut turn = 0;
    for (position, m) in messages.iter().enumerate() {
        let role = Role::parse(&m.role);
        let this_turn = (role == Role::Assistant).then_some(turn);
        if let Some(t) = this_turn {
            while pending.peek().is_some_and(|r| r.turn <= t) {
                entries.extend(pending.next().map(Entry::Request));
            }
            turn += 1;
        }
        if role == Role::Tool && m.tool_call_id.as_deref().is_some_and(|id| called.contains(id) && results.get(id) == Some(&position)) {
            continue;
        }
        let count = if counted {
            m.pictures.map_or(0, |n| n as usize)
        } else if role == Role::User && !first_user_seen {
            pictures
        } else {
            0
        };
        if role == Role::User {
            first_user_seen = true;
        }
        let start = picture_cursor.min(pictures);
        let shown = count.min(pictures - start);
        picture_cursor = start + shown;
        let calls = m
            .tool_calls
            .iter()
            .map(|(id, name, arguments)| {
                let result = results.get(id.as_str()).map(|&p| content_text(Some(&messages[p].content)));
                CallView { id: id.clone(), name: name.clone(), arguments: pretty_arguments(Some(arguments)), result }
            })
            .collect();
        let unmatched_tool = (role == Role::Tool).then(|| (m.name.clone().unwrap_or_default(), m.tool_call_id.clone().unwrap_or_default()));
        entries.push(Entry::Message(MessageView {
            position,
            role,
            turn: this_turn,
            content: content_text(Some(&m.content)),
            reasoning: m.reasoning.clone().filter(|r| !r.is_empty()),
            calls,
            purpose: m.purpose.clone(),
            unmatched_tool,
            pictures: if shown == 0 { (0, 0) } else { (start, shown) },
            answers: this_turn.and_then(|t| answers.get(&t).cloned()).unwrap_or_default(),
        }));
    }
    entries.extend(pending.map(Entry::Request));
    entries
}

fn request_view(k: usize, r: &RequestEntry) -> RequestView {
    RequestView {
        number: k + 1,
        turn: r.turn.map_or(0, |t| t as usize),
        kind: r.kind.clone(),
        sent: r.messages,
        history: None,
        prompt_reported: r.prompt_tokens_reported,
        prompt_estimated: r.prompt_tokens_estimated,
        prompt_cached: r.cached_prompt_tokens,
        completion: r.completion_tokens,
        reasoning: r.reasoning_tokens,
        latency_ms: r.latency_ms,
    }
}

/// The entries of a file without a transcript: the prompt (with the pictures), then each turn's output, each
/// after its requests when there is a request log.
fn outputs_only(record: &ResultRecord, turns: &[(usize, String)], answers: &BTreeMap<usize, Vec<(String, String)>>, pictures: usize, requests: &[RequestEntry]) -> Vec<Entry> {
    let mut entries = Vec::new();
    if let Some(prompt) = &record.sample.prompt_content {
        entries.push(Entry::Message(MessageView {
            position: 0,
            role: Role::User,
            turn: None,
            content: content_text(Some(prompt)),
            reasoning: None,
            calls: Vec::new(),
            purpose: None,
            unmatched_tool: None,
            pictures: (0, pictures),
            answers: Vec::new(),
        }));
    }
    let mut pending = requests.iter().enumerate().map(|(k, r)| request_view(k, r)).peekable();
    for (turn, output) in turns {
        while pending.peek().is_some_and(|r| r.turn <= *turn) {
            entries.extend(pending.next().map(Entry::Request));
        }
        let (reasoning, text) = match output.split_once("</think>") {
            Some((before, after)) => (Some(before.trim_end().to_string()).filter(|r| !r.is_empty()), after.trim_start().to_string()),
            None => (None, output.clone()),
        };
        entries.push(Entry::Turn(TurnView { turn: *turn, reasoning, text, answers: answers.get(turn).cloned().unwrap_or_default() }));
    }
    entries.extend(pending.map(Entry::Request));
    entries
}
