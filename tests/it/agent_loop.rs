//! The sans-IO agent loop driven by scripted replies: tool use, the three repairs, budgets, limits, errors,
//! the `acg-lite` strategy, an auxiliary summary call, and the results record.

use arbigraph_studio::engine::agent::strategy::{AcgLiteRun, Strategy};
use arbigraph_studio::engine::agent::{
    AgentConfig, AgentError, AgentInput, AgentRecord, AgentSession, ChatReply, ChatRequest, ReplyToolCall, Role, Status, Step, ToolArguments, Usage,
};
use arbigraph_studio::engine::results::result_sample;
use serde_json::json;

fn input(prompt: &str, truth: serde_json::Value) -> AgentInput {
    AgentInput::from_sample(&json!({"prompt": prompt, "ground_truth": truth}), 0).unwrap()
}

fn baseline() -> AgentInput {
    input("Define task_1_input = 5.\nTask 1:\nMultiply task_1_input by 3 and call it task_1_out.\n", json!(15))
}

fn two_outputs() -> AgentInput {
    input("Task 1: compute task_1_out.\nTask 2: compute task_2_out.\n", json!(7))
}

fn text(content: &str) -> ChatReply {
    ChatReply { content: content.into(), finish_reason: Some("stop".into()), ..ChatReply::default() }
}

fn calc(expressions: &str) -> ChatReply {
    ChatReply {
        tool_calls: vec![ReplyToolCall { id: "call-a".into(), name: "calculator".into(), arguments: ToolArguments::Text(expressions.into()) }],
        finish_reason: Some("tool_calls".into()),
        usage: Usage { prompt_tokens: Some(100), completion_tokens: Some(20), ..Usage::default() },
        ..ChatReply::default()
    }
}

/// Runs a session over canned replies; returns every request sent and the record.
fn run(input: &AgentInput, config: &AgentConfig, replies: Vec<ChatReply>) -> (Vec<ChatRequest>, AgentRecord) {
    let (mut session, mut step) = AgentSession::start(input, config);
    let mut requests = Vec::new();
    let mut replies = replies.into_iter();
    loop {
        match step {
            Step::Send(request) | Step::Auxiliary(request) => {
                requests.push(request);
                let reply = replies.next().expect("the script ran out of replies");
                step = session.on_reply(reply);
            }
            Step::Finished(record) => return (requests, *record),
        }
    }
}

fn config() -> AgentConfig {
    AgentConfig::for_topology("baseline")
}

#[test]
fn a_calculator_call_then_a_boxed_answer_succeeds() {
    let (requests, record) = run(&baseline(), &config(), vec![calc("{\"expressions\": [\"5 * 3\"]}"), text("So \\boxed{task_1_out = 15}.")]);
    assert_eq!(record.status, Status::Success);
    assert!(record.grade.correct);
    assert_eq!((record.turns, record.tool_calls), (2, 1));
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].messages.len(), 2);
    let tool = requests[1].messages.last().unwrap();
    assert_eq!(tool.role, Role::Tool);
    assert_eq!(tool.tool_call_id.as_deref(), Some("call-a"));
    assert_eq!(tool.content, "{\"results\":[\"15\"]}");
    assert_eq!(requests[1].messages[2].tool_calls[0].id, "call-a");
    // 20 reported tokens + the second turn's estimate (27 characters -> 7 tokens).
    assert_eq!(record.token_length, 27);
    assert_eq!(record.answers.get("task_1_out").map(|a| (a.answer.as_str(), a.turn)), Some(("15", 1)));
}

#[test]
fn answering_without_the_calculator_triggers_the_tool_repair_with_the_repair_limit() {
    let (requests, record) =
        run(&baseline(), &config(), vec![text("\\boxed{task_1_out = 15}"), calc("{\"expressions\": [\"5*3\"]}"), text("\\boxed{task_1_out = 15}")]);
    assert_eq!(record.status, Status::Success);
    assert_eq!(record.repairs.initial_tool, 1);
    let repair = requests[1].messages.last().unwrap();
    assert_eq!(repair.role, Role::User);
    assert!(repair.content.contains("calculator"));
    assert_eq!(repair.purpose.as_deref(), Some("repair:initial_tool"));
    assert_eq!(requests[1].max_tokens, 32_768);
    assert!(requests[1].repair);
    assert_eq!(requests[2].max_tokens, 16_384);
}

#[test]
fn an_exhausted_tool_repair_budget_gives_missing_initial_calculator_call() {
    let mut config = config();
    config.budgets.initial_tool = 1;
    let (_, record) = run(&baseline(), &config, vec![text("\\boxed{task_1_out = 15}"), text("\\boxed{task_1_out = 15}")]);
    assert_eq!(record.status, Status::MissingInitialCalculatorCall);
    assert!(record.grade.correct, "status never affects the verdict");
}

#[test]
fn a_cut_off_reply_gets_the_continuation_prompt_and_the_repair_limit() {
    let mut cut = text("Let me think about the long computation and");
    cut.finish_reason = Some("length".into());
    let (requests, record) =
        run(&baseline(), &config(), vec![calc("{\"expressions\": [\"5*3\"]}"), cut, text("\\boxed{task_1_out = 15}")]);
    assert_eq!(record.status, Status::Success);
    assert_eq!(record.repairs.cutoff, 1);
    let repair = requests[2].messages.last().unwrap();
    assert!(repair.content.contains("cut off"), "{}", repair.content);
    assert_eq!(repair.purpose.as_deref(), Some("repair:cutoff"));
    assert_eq!(requests[2].max_tokens, 32_768);
}

#[test]
fn a_cut_off_tool_call_gets_the_malformed_call_prompt() {
    let mut cut = text("<tool_call>\n<function=calculator>\n<parameter=expressions>\n[\"5*");
    cut.finish_reason = Some("length".into());
    let (requests, _) = run(&baseline(), &config(), vec![cut, calc("{\"expressions\": [\"5*3\"]}"), text("\\boxed{task_1_out = 15}")]);
    assert!(requests[1].messages.last().unwrap().content.contains("could not be understood"));
}

#[test]
fn a_missing_answer_triggers_a_final_answer_repair_listing_only_the_missing_names() {
    let (requests, record) = run(
        &two_outputs(),
        &config(),
        vec![calc("[\"1+1\"]"), text("\\boxed{task_1_out = 2}"), text("\\boxed{task_2_out = 7}")],
    );
    assert_eq!(record.status, Status::Success);
    assert_eq!(record.repairs.final_answer, 1);
    let repair = &requests[2].messages.last().unwrap().content;
    assert!(repair.contains("task_2_out"));
    assert!(!repair.contains("task_1_out"));
    assert!(record.grade.correct);
}

#[test]
fn running_out_of_final_answer_repairs_stops_with_missing_answers() {
    let mut config = config();
    config.budgets.final_answer = 1;
    let (_, record) = run(&two_outputs(), &config, vec![calc("[\"1\"]"), text("\\boxed{task_1_out = 2}"), text("still thinking")]);
    assert_eq!(record.status, Status::MissingRequestedTaskAnswers);
    assert!(!record.grade.correct);
    assert_eq!(record.turns, 3);
}

#[test]
fn the_turn_limit_ends_with_timeout() {
    let mut config = config();
    config.max_turns = 3;
    let (requests, record) = run(&baseline(), &config, vec![calc("[\"1\"]"), calc("[\"2\"]"), calc("[\"3\"]")]);
    assert_eq!(requests.len(), 3);
    assert_eq!(record.status, Status::Timeout);
    assert_eq!(record.turns, 3);
    assert_eq!(record.tool_calls, 3);
}

#[test]
fn a_request_that_would_not_fit_the_window_ends_with_context_length_exceeded() {
    let mut config = config();
    config.max_model_len = Some(16_384 + 50);
    let (session, step) = AgentSession::start(&baseline(), &config);
    let Step::Finished(record) = step else { panic!("expected the pre-check to stop the sample") };
    assert_eq!(record.status, Status::ContextLengthExceeded);
    assert_eq!(record.turns, 0);
    assert_eq!(record.turn_outputs, vec![String::new()]);
    assert!(!record.grade.correct);
    drop(session);
}

#[test]
fn a_failed_call_becomes_an_explicit_api_error_sample() {
    let (mut session, _) = AgentSession::start(&baseline(), &config());
    let error = AgentError::GaveUp { attempts: 6, last: Box::new(AgentError::http(500, "overloaded")) };
    let Step::Finished(record) = session.on_error(error) else { panic!() };
    assert_eq!(record.status, Status::ApiError("gave up after 6 attempts: HTTP 500: overloaded".into()));
    let json = result_sample(&json!({"prompt": "p", "ground_truth": 1}), &record, "full", json!({}));
    assert_eq!(json["agent_status"], "api_error");
    assert_eq!(json["agent_error"], "gave up after 6 attempts: HTTP 500: overloaded");
    assert_eq!(json["correct"], false);
}

#[test]
fn tool_markup_in_the_content_is_executed_via_the_text_fallback() {
    let xml = text("<tool_call>\n<function=calculator>\n<parameter=expressions>\n[\"5 * 3\", \"2 ** 10\"]\n</parameter>\n</function>\n</tool_call>");
    let (requests, record) = run(&baseline(), &config(), vec![xml, text("\\boxed{task_1_out = 15}")]);
    assert_eq!(record.status, Status::Success);
    let tool = requests[1].messages.last().unwrap();
    assert_eq!(tool.content, "{\"results\":[\"15\",\"1024\"]}");
    assert!(tool.tool_call_id.is_some());
    let assistant = &requests[1].messages[2];
    assert_eq!(assistant.tool_calls.len(), 1);
    assert!(serde_json::from_str::<serde_json::Value>(&assistant.tool_calls[0].arguments).is_ok());
}

#[test]
fn malformed_tool_arguments_get_an_error_result_and_the_loop_goes_on() {
    let (requests, record) = run(&baseline(), &config(), vec![calc("{\"expressions\": [\"5*"), calc("[\"5*3\"]"), text("\\boxed{task_1_out = 15}")]);
    assert_eq!(record.status, Status::Success);
    assert!(requests[1].messages.last().unwrap().content.starts_with("Error:"));
    assert_eq!(record.tool_calls, 2);
    // The argument text sent back is valid JSON.
    assert!(serde_json::from_str::<serde_json::Value>(&requests[1].messages[2].tool_calls[0].arguments).is_ok());
}

#[test]
fn boxes_in_reasoning_count_and_later_boxes_win() {
    let mut first = calc("[\"5*3\"]");
    first.reasoning = "draft: \\boxed{task_1_out = 14}".into();
    let (_, record) = run(&baseline(), &config(), vec![first, text("\\boxed{task_1_out = 15}")]);
    assert!(record.turn_outputs[0].contains("</think>"));
    assert!(record.turn_outputs[0].contains("<tool_call>"));
    assert_eq!(record.answers.get("task_1_out").map(|a| a.answer.as_str()), Some("15"));
}

#[test]
fn the_acg_lite_strategy_sends_the_prompt_view_and_latest_exchange() {
    let mut config = AgentConfig::for_topology("chain");
    config.strategy = Strategy::parse("acg-lite:budget_tokens=5000").unwrap();
    let replies = vec![calc("[\"1+1\"]"), calc("[\"2+2\"]"), text("\\boxed{task_1_out = 2} \\boxed{task_2_out = 7}")];
    let (requests, record) = run(&two_outputs(), &config, replies);
    assert_eq!(record.status, Status::Success);
    let last = &requests[2];
    // system, prompt + view, latest assistant call, its tool result.
    assert_eq!(last.messages.len(), 4);
    assert!(last.messages[1].content.contains("Progress so far"));
    assert!(last.messages[1].content.contains("{\"results\":[\"2\"]}"), "{}", last.messages[1].content);
    assert_eq!(last.messages[3].content, "{\"results\":[\"4\"]}");
    let Some(acg) = record.strategy_state.run::<AcgLiteRun>() else { panic!("the record is kept") };
    assert!(acg.record.units.len() >= 5);
    // The transcript keeps everything.
    assert_eq!(record.transcript.len(), 2 + 2 * 2 + 1);
}

#[test]
fn a_summary_call_goes_out_as_an_auxiliary_step_and_is_counted_apart() {
    let mut config = AgentConfig::for_topology("chain");
    config.strategy = Strategy::parse("summary:trigger_tokens=400,keep_exchanges=1,summary_tokens=50").unwrap();
    // Unreported usage keeps the estimates uncalibrated, so the trigger fires where the characters say.
    let long = ChatReply { usage: Usage::default(), ..calc(&format!("[\"{}\"]", "1 + ".repeat(300) + "1")) };
    let mut summary = text("task_1_out = 2 so far");
    summary.usage = Usage { prompt_tokens: Some(300), completion_tokens: Some(9), ..Usage::default() };
    let mut last = text("\\boxed{task_1_out = 2} \\boxed{task_2_out = 7}");
    last.usage = Usage { prompt_tokens: Some(50), completion_tokens: Some(5), ..Usage::default() };
    let replies = vec![long.clone(), long, summary, last];
    let (mut session, mut step) = AgentSession::start(&two_outputs(), &config);
    let mut kinds = Vec::new();
    let mut replies = replies.into_iter();
    let record = loop {
        step = match step {
            Step::Send(request) | Step::Auxiliary(request) => {
                kinds.push((request.kind.as_str(), request.turn, request.messages.len()));
                session.on_reply(replies.next().expect("a reply per request"))
            }
            Step::Finished(record) => break record,
        };
    };
    assert_eq!(kinds, vec![("turn", 0, 2), ("turn", 1, 4), ("summary", 2, 2), ("turn", 2, 5)]);
    assert_eq!(record.status, Status::Success);
    assert_eq!(record.turns, 3, "the summary call is not a turn");
    assert_eq!(record.turn_outputs.len(), 3);
    assert_eq!((record.usage.auxiliary_calls, record.usage.auxiliary_prompt_tokens, record.usage.auxiliary_completion_tokens), (1, 300, 9));
    assert_eq!(record.usage.prompt_tokens, 50, "turn usage excludes the summary call");
    assert_eq!(record.requests.len(), 4);
    assert_eq!(record.requests[2].reported_prompt_tokens, Some(300));
    let json = result_sample(&json!({"prompt": "p", "ground_truth": 7}), &record, record.strategy.name(), json!({}));
    assert_eq!(json["strategy"], "summary");
    assert_eq!(json["strategy_params"]["trigger_tokens"], 400);
    assert_eq!(json["requests"][2]["kind"], "summary");
    assert_eq!(json["strategy_record"]["summaries"][0]["text"], "task_1_out = 2 so far");
    assert_eq!(json["usage"]["auxiliary_calls"], 1);
}

#[test]
fn the_results_record_has_the_reference_fields_and_ours() {
    let (_, record) = run(&baseline(), &config(), vec![calc("[\"5*3\"]"), text("\\boxed{task_1_out = 15}")]);
    let sample = json!({"task_id": 3, "prompt": "p", "ground_truth": 15});
    let out = result_sample(&sample, &record, "full", json!({"started_at": "t0"}));
    for key in [
        "task_id", "correct", "token_length", "agent_turns", "agent_tool_calls", "turn_outputs", "expected_task_outputs", "task_answers", "agent_status",
        "transcript", "node_status", "first_breaks", "strategy", "strategy_params", "requests", "timings", "usage", "repairs",
    ] {
        assert!(out.get(key).is_some(), "missing {key}");
    }
    assert_eq!(out["turn_outputs"]["1"], "\\boxed{task_1_out = 15}");
    assert_eq!(out["task_answers"], json!({"task_1_out": {"answer": "15", "turn": 1}}));
    assert_eq!(out["node_status"], json!({"task_1_out": "correct"}));
    assert_eq!(out["transcript"][3]["role"], "tool");
    assert_eq!(out["timings"]["started_at"], "t0");
}

#[test]
fn a_cut_off_reply_that_already_boxed_something_gets_the_missing_answer_prompt() {
    let mut cut = text("\\boxed{task_1_out = 2} and now for the second one we need");
    cut.finish_reason = Some("length".into());
    let (requests, record) = run(&two_outputs(), &config(), vec![calc("[\"1\"]"), cut, text("\\boxed{task_2_out = 7}")]);
    assert_eq!(record.repairs.cutoff, 1);
    let repair = &requests[2].messages.last().unwrap().content;
    assert!(repair.contains("still have no boxed answer: task_2_out"), "{repair}");
    assert_eq!(record.status, Status::Success);
}

#[test]
fn release_budgets_depend_on_the_topology() {
    for (topology, budget, turns) in [("baseline", 3, 200), ("forgetting", 12, 1200), ("chain", 12, 1200), ("multichain", 24, 2000), ("custom", 24, 2000)] {
        let c = AgentConfig::for_topology(topology);
        assert_eq!((c.budgets.initial_tool, c.budgets.final_answer, c.budgets.cutoff, c.max_turns), (5, budget, budget, turns), "{topology}");
    }
}

#[test]
fn a_finished_session_keeps_returning_its_record() {
    let (mut session, _) = AgentSession::start(&baseline(), &config());
    let first = session.on_error(AgentError::Network { message: "down".into() });
    assert_eq!(session.on_reply(text("\\boxed{task_1_out = 15}")), first);
}
