//! Tests of the Results page's reading of a results file: rows, filters, search, transcripts and breaks.

use super::*;
use super::search::contains_ascii_folded;
use serde_json::json;

/// A two-task chain whose first task came back wrong, with a tool call, a repair and two requests.
fn chain_sample() -> Json {
    json!({
        "task_id": 4, "task_name": "AddTask", "sample_idx": 0,
        "prompt": "Task 1:\nCompute 3 + 4 and call the result task_1_out.\nTask 2:\nAdd 1 to task_1_out and call the result task_2_out.\n",
        "ground_truth": 8,
        "chain": {"distractors": [{"task_number": 1, "task_name": "AddTask", "input_name": "task_1_input", "ground_truth": 7}],
                  "target": {"task_number": 2, "task_name": "AddTask", "input_name": "task_1_out", "ground_truth": 8}},
        "correct": false, "agent_status": "success", "agent_turns": 2, "agent_tool_calls": 1, "token_length": 60,
        "turn_outputs": {"0": "thinking\n</think>\n\nLet me use the tool.", "1": "\\boxed{task_1_out = 6} \\boxed{task_2_out = 7}"},
        "task_answers": {"task_1_out": {"answer": "6", "turn": 1}, "task_2_out": {"answer": "7", "turn": 1}},
        "transcript": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Task 1: <script>alert(1)</script> <b>bold</b>"},
            {"role": "assistant", "content": "Let me use the tool.", "reasoning": "3 + 4 is small",
             "tool_calls": [{"id": "c1", "name": "calculator", "arguments": "{\"expressions\":[\"3+4\"]}"}]},
            {"role": "tool", "content": "[\"7\"]", "tool_call_id": "c1", "name": "calculator"},
            {"role": "user", "content": "Your reply was cut off.", "purpose": "repair:cutoff"},
            {"role": "assistant", "content": "\\boxed{task_1_out = 6} \\boxed{task_2_out = 7}"}
        ],
        "node_status": {"task_1_out": "wrong", "task_2_out": "wrong"},
        "first_breaks": ["task_1_out"],
        "requests": [
            {"turn": 0, "kind": "turn", "messages": 2, "prompt_tokens_estimated": 40, "prompt_tokens_reported": 42, "completion_tokens": 20, "latency_ms": 800},
            {"turn": 1, "kind": "turn", "messages": 3, "prompt_tokens_estimated": 90, "prompt_tokens_reported": 1234, "completion_tokens": 40, "latency_ms": 1500}
        ],
        "strategy": "window", "strategy_params": {"exchanges": 8},
        "usage": {"prompt_tokens": 1276, "completion_tokens": 60},
        "repairs": {"initial_tool": 0, "final_answer": 0, "cutoff": 1}
    })
}

fn results(samples: Vec<Json>) -> Json {
    json!({"summary": {"generation_params": {}}, "samples": samples})
}

fn messages(t: &Transcript) -> Vec<&MessageView> {
    t.entries.iter().filter_map(|e| if let Entry::Message(m) = e { Some(m) } else { None }).collect()
}

/// The entries as one line each: `role[:purpose]` for messages, `request N` for requests, `turn N` for outputs.
fn outline(t: &Transcript) -> Vec<String> {
    t.entries
        .iter()
        .map(|e| match e {
            Entry::Message(m) => match &m.purpose {
                Some(p) => format!("{}:{p}", m.role.label()),
                None => m.role.label().to_string(),
            },
            Entry::Request(r) => format!("request {}", r.number),
            Entry::Turn(t) => format!("turn {}", t.turn),
        })
        .collect()
}

#[track_caller]
fn check_verdict(sample: Json, expected: Verdict) {
    assert_eq!(verdict_of(&sample, 0), expected, "{sample}");
}

#[test]
fn verdicts_follow_the_record_and_grade_only_records_without_one() {
    check_verdict(json!({"agent_status": "success", "correct": true}), Verdict::Correct);
    check_verdict(json!({"agent_status": "timeout", "correct": false}), Verdict::Wrong);
    check_verdict(json!({"agent_status": "api_error", "correct": false, "agent_error": "HTTP 500"}), Verdict::Error);
    check_verdict(json!({"agent_status": "in_progress", "correct": true}), Verdict::Unfinished);
    check_verdict(json!({"correct": true}), Verdict::Unfinished);
    let mut graded = json!({"prompt": "Compute 3 + 4 and call the result task_1_out.", "ground_truth": 7, "agent_status": "success",
        "task_answers": {"task_1_out": {"answer": "7", "turn": 0}}});
    check_verdict(graded.clone(), Verdict::Correct);
    graded["task_answers"]["task_1_out"]["answer"] = json!("8");
    check_verdict(graded, Verdict::Wrong);
    check_verdict(json!({"agent_status": "success"}), Verdict::Error);
    check_verdict(json!({"agent_status": 7, "correct": "yes"}), Verdict::Unfinished);
}

#[test]
fn rows_read_what_each_record_says() {
    let reference = json!({"task_name": "ConvolutionTask", "multi_chain": {}, "agent_status": "success", "correct": true, "agent_turns": 24, "token_length": 33461});
    let ours = chain_sample();
    let rows = sample_rows(&results(vec![reference, ours, json!("not an object"), json!({"agent_turns": "three", "token_length": -1})]));
    assert_eq!(rows.len(), 4);
    assert_eq!((rows[0].verdict, rows[0].topology, rows[0].turns, rows[0].tokens), (Verdict::Correct, "multichain", Some(24), Tokens::Generated(33461)));
    assert_eq!(rows[0].tokens.describe(), "33,461 generated");
    assert_eq!((rows[1].index, rows[1].verdict, rows[1].target.as_str(), rows[1].topology), (1, Verdict::Wrong, "AddTask", "chain"));
    assert_eq!(rows[1].tokens, Tokens::Total(42 + 20 + 1234 + 40), "the request log's prompt and completion tokens");
    assert_eq!((rows[2].verdict, rows[2].status.as_str(), rows[2].tokens), (Verdict::Unfinished, "", Tokens::Unknown));
    assert_eq!((rows[3].turns, rows[3].tokens.describe()), (None, "–".to_string()));
    assert!(sample_rows(&json!({"samples": {"0": {}}})).is_empty());
    assert!(sample_rows(&json!([1, 2])).is_empty());
    assert!(rows.iter().all(|r| r.consistency.is_none()), "one epoch: no consistency to show");
}

#[test]
fn rows_of_several_epochs_say_how_often_their_instance_was_right() {
    let attempt = |idx: u64, epoch: u64, correct: bool| json!({"task_id": 0, "task_name": "AddTask", "sample_idx": idx, "epoch": epoch, "agent_status": "success", "correct": correct});
    let unfinished = json!({"task_id": 0, "task_name": "AddTask", "sample_idx": 1, "epoch": 2, "agent_status": "in_progress"});
    let file = results(vec![attempt(0, 0, true), attempt(1, 0, false), attempt(0, 1, true), attempt(1, 1, true), attempt(0, 2, false), unfinished]);
    let shown: Vec<_> = sample_rows(&file).iter().map(|r| r.consistency).collect();
    assert_eq!(shown, vec![Some((0, 2, 3)), Some((0, 1, 2)), Some((1, 2, 3)), Some((1, 1, 2)), Some((2, 2, 3)), Some((2, 1, 2))]);
}

#[track_caller]
fn check_filter(filter: RowFilter, expected: &[usize]) {
    let file = sample_list();
    let samples = file["samples"].as_array().unwrap();
    assert_eq!(filter_rows(&sample_rows(&file), samples, &filter), expected, "{filter:?}");
}

fn sample_list() -> Json {
    let mut with_error = chain_sample();
    with_error["agent_status"] = json!("api_error");
    with_error["agent_error"] = json!("HTTP 503 from the endpoint");
    let mut right = chain_sample();
    right["correct"] = json!(true);
    right["prompt"] = json!("Überprüfe die Straße");
    right["transcript"] = json!([{"role": "assistant", "content": "", "tool_calls": [{"id": "x", "name": "calculator", "arguments": "{\"e\": \"12*Zeta\"}"}]}]);
    let unfinished = json!({"agent_status": "in_progress", "prompt": "still going"});
    results(vec![chain_sample(), with_error, right, unfinished])
}

#[test]
fn filters_narrow_by_verdict_failures_and_text() {
    check_filter(RowFilter::default(), &[0, 1, 2, 3]);
    check_filter(RowFilter { verdict: Some(Verdict::Correct), ..RowFilter::default() }, &[2]);
    check_filter(RowFilter { verdict: Some(Verdict::Unfinished), ..RowFilter::default() }, &[3]);
    check_filter(RowFilter { failures_only: true, ..RowFilter::default() }, &[0, 1]);
    check_filter(RowFilter { failures_only: true, verdict: Some(Verdict::Correct), ..RowFilter::default() }, &[]);
    // Any case, in the prompt, an error, a tool call's arguments, reasoning, a turn output, an answer.
    check_filter(RowFilter { text: "HTTP 503".into(), ..RowFilter::default() }, &[1]);
    check_filter(RowFilter { text: "zeta".into(), ..RowFilter::default() }, &[2]);
    check_filter(RowFilter { text: "3 + 4 IS SMALL".into(), ..RowFilter::default() }, &[0, 1]);
    check_filter(RowFilter { text: "STRASSE".into(), ..RowFilter::default() }, &[]);
    check_filter(RowFilter { text: "straße".into(), ..RowFilter::default() }, &[2]);
    check_filter(RowFilter { text: "ÜBERPRÜFE".into(), ..RowFilter::default() }, &[2]);
    check_filter(RowFilter { text: "  ".into(), ..RowFilter::default() }, &[0, 1, 2, 3]);
    check_filter(RowFilter { text: "still going".into(), failures_only: true, ..RowFilter::default() }, &[]);
    check_filter(RowFilter { text: "<script>".into(), ..RowFilter::default() }, &[0, 1]);
}

#[test]
fn a_search_read_in_slices_keeps_what_one_pass_keeps() {
    let file = sample_list();
    let samples = file["samples"].as_array().unwrap();
    let rows = sample_rows(&file);
    let filter = RowFilter { text: "task_1".into(), ..RowFilter::default() };
    let whole = filter_rows(&rows, samples, &filter);
    let mut search = Search::new(&filter);
    let mut steps = 0;
    while !search.step(&rows, samples, 1) {
        steps += 1;
        assert_eq!(search.read(), steps, "a budget of one byte reads one row a step");
        assert!(whole.starts_with(search.kept()));
    }
    assert_eq!(steps + 1, rows.len(), "the last step reads the last row and ends");
    assert_eq!(search.into_kept(), whole);
    assert_eq!(whole, [0, 1, 2]);
    let mut at_once = Search::new(&filter);
    assert!(at_once.step(&rows, samples, 1 << 20), "a large budget reads everything in one step");
}

#[test]
fn ascii_search_is_case_blind_and_bounded() {
    assert!(contains_ascii_folded(b"Hello World", b"o w"));
    assert!(contains_ascii_folded(b"abc", b"abc"));
    assert!(!contains_ascii_folded(b"ab", b"abc"));
    assert!(contains_ascii_folded(b"", b""));
    assert!(!contains_ascii_folded(b"aaaa", b"aab"));
    assert_eq!(count_line(3, 10_000), "3 of 10,000 samples");
    assert_eq!(count_line(1, 1), "1 sample");
    assert_eq!((grouped(0), grouped(999), grouped(1_000), grouped(1_234_567)), ("0".into(), "999".into(), "1,000".into(), "1,234,567".into()));
}

#[test]
fn a_transcript_puts_each_request_before_the_turn_it_asked_for() {
    let t = transcript_of(&chain_sample(), 7);
    assert_eq!(outline(&t), ["system", "user", "request 1", "assistant", "user:repair:cutoff", "request 2", "assistant"], "the tool result sits under its call");
    let requests: Vec<String> = t.entries.iter().filter_map(|e| if let Entry::Request(r) = e { Some(r.describe()) } else { None }).collect();
    assert_eq!(requests, [
        "request 1 (turn 1) sent 2 of 2 messages · 42 prompt tokens · 20 completion tokens · 800 ms",
        "request 2 (turn 2) sent 3 of 5 messages · 1,234 prompt tokens · 40 completion tokens · 1,500 ms",
    ]);
    let Entry::Request(second) = &t.entries[5] else { panic!("a request") };
    assert!(second.is_partial(), "the window strategy left messages out");
    assert!(t.notes.is_empty(), "our records lack nothing: {:?}", t.notes);
    // A provider that reports cached and reasoning tokens: the line says how many of each.
    let mut billed = chain_sample();
    billed["requests"][1]["cached_prompt_tokens"] = json!(1024);
    billed["requests"][1]["reasoning_tokens"] = json!(32);
    let Entry::Request(second) = &transcript_of(&billed, 7).entries[5] else { panic!("a request") };
    assert_eq!(second.describe(), "request 2 (turn 2) sent 3 of 5 messages · 1,234 prompt tokens (1,024 cached) · 40 completion tokens (32 reasoning) · 1,500 ms");
    billed["usage"]["cached_prompt_tokens"] = json!(1024);
    billed["usage"]["reasoning_tokens"] = json!(32);
    assert_eq!(transcript_of(&billed, 7).head.tokens.describe(), "2 calls · 1,276 prompt (1,024 cached) + 60 completion tokens (32 reasoning) · 60 generated");
}

#[test]
fn messages_keep_reasoning_calls_results_purposes_and_answers() {
    let t = transcript_of(&chain_sample(), 0);
    let m = messages(&t);
    assert_eq!(m[1].content, "Task 1: <script>alert(1)</script> <b>bold</b>", "markup stays text, untouched");
    let first = m[2];
    assert_eq!((first.role.clone(), first.turn, first.reasoning.as_deref()), (Role::Assistant, Some(0), Some("3 + 4 is small")));
    assert_eq!(first.calls, [CallView { id: "c1".into(), name: "calculator".into(), arguments: "{\n  \"expressions\": [\n    \"3+4\"\n  ]\n}".into(), result: Some("[\"7\"]".into()) }]);
    assert!(first.answers.is_empty());
    assert_eq!((m[3].purpose.as_deref(), m[3].role.class()), (Some("repair:cutoff"), "user"));
    assert_eq!(m[4].answers, [("task_1_out".to_string(), "6".to_string()), ("task_2_out".to_string(), "7".to_string())]);
    assert_eq!(m[4].turn, Some(1));
}

#[test]
fn the_head_says_the_verdict_the_answer_against_the_truth_and_the_cost() {
    let head = transcript_of(&chain_sample(), 0).head;
    assert_eq!((head.verdict, head.status.as_str(), head.output.as_str(), head.given.as_deref(), head.truth.as_str()), (Verdict::Wrong, "success", "task_2_out", Some("7"), "8"));
    assert_eq!(head.strategy.as_deref(), Some("window:exchanges=8"));
    assert_eq!(head.tokens.describe(), "2 calls · 1,276 prompt + 60 completion tokens · 60 generated");
    assert_eq!(head.repairs, [("cutoff".to_string(), 1)]);
    let mut failed = chain_sample();
    failed["agent_status"] = json!("api_error");
    failed["agent_error"] = json!("HTTP 401: bad key");
    failed.as_object_mut().unwrap().remove("task_answers");
    let head = transcript_of(&failed, 0).head;
    assert_eq!((head.verdict, head.error.as_deref(), head.given), (Verdict::Error, Some("HTTP 401: bad key"), None));
}

#[test]
fn pictures_go_with_the_message_that_counts_them() {
    let mut sample = chain_sample();
    let picture = |n: u64| json!({"image_index": n, "task_number": n, "data_url": "data:image/png;base64,iVBORw0KGgo=", "metadata": {"width": 4, "height": 3}});
    sample["images"] = json!([picture(1), picture(2)]);
    sample["transcript"][1]["pictures"] = json!(2);
    let t = transcript_of(&sample, 0);
    assert_eq!(t.pictures.len(), 2);
    assert_eq!(messages(&t).iter().map(|m| m.pictures).collect::<Vec<_>>(), [(0, 0), (0, 2), (0, 0), (0, 0), (0, 0)]);
    // A file that does not say which message carried them: the prompt, with a note.
    sample["transcript"][1].as_object_mut().unwrap().remove("pictures");
    let t = transcript_of(&sample, 0);
    assert_eq!(messages(&t)[1].pictures, (0, 2));
    assert!(t.notes.iter().any(|n| n.contains("which message carried the pictures")), "{:?}", t.notes);
    // A count larger than the pictures the sample has shows what there is.
    sample["transcript"][1]["pictures"] = json!(5);
    sample["transcript"][4]["pictures"] = json!(1);
    assert_eq!(messages(&transcript_of(&sample, 0)).iter().map(|m| m.pictures).collect::<Vec<_>>(), [(0, 0), (0, 2), (0, 0), (0, 0), (0, 0)]);
}

#[test]
fn a_reference_record_shows_its_prompt_and_turn_outputs_and_says_what_it_lacks() {
    let mut sample = chain_sample();
    for key in ["transcript", "requests", "node_status", "first_breaks", "strategy", "strategy_params", "usage", "repairs"] {
        sample.as_object_mut().unwrap().remove(key);
    }
    let t = transcript_of(&sample, 0);
    assert_eq!(outline(&t), ["user", "turn 0", "turn 1"]);
    let Entry::Turn(first) = &t.entries[1] else { panic!("a turn") };
    assert_eq!((first.reasoning.as_deref(), first.text.as_str()), (Some("thinking"), "Let me use the tool."));
    let Entry::Turn(second) = &t.entries[2] else { panic!("a turn") };
    assert_eq!(second.answers.len(), 2);
    assert_eq!(t.notes.len(), 3, "{:?}", t.notes);
    assert!(t.notes[0].contains("no transcript") && t.notes[1].contains("no request log") && t.notes[2].contains("graded here"));
    assert!(t.breaks.graded_here);
    assert_eq!(t.breaks.nodes.iter().map(|n| (n.output.as_str(), n.status, n.first_break)).collect::<Vec<_>>(), [("task_1_out", "wrong", true), ("task_2_out", "wrong", false)]);
    assert_eq!((t.head.strategy, t.head.tokens.describe()), (None, "60 generated".to_string()));
}

#[test]
fn the_graph_carries_each_node_status_and_the_first_break() {
    let breaks = transcript_of(&chain_sample(), 0).breaks;
    assert!(!breaks.graded_here);
    assert_eq!(breaks.first_breaks, ["task_1_out"]);
    assert_eq!(breaks.nodes[0], NodeLine { output: "task_1_out".into(), node: Some("task_1".into()), status: "wrong", first_break: true });
    let BreakDrawing::Svg(svg) = breaks.drawing else { panic!("a small graph is drawn") };
    assert!(svg.contains(r#"class="node task wrong first-break" data-node-id="task_1""#), "{svg}");
    assert!(svg.contains(r#"class="node task target wrong" data-node-id="task_2""#), "{svg}");
}

#[test]
fn custom_graphs_map_outputs_to_their_node_ids() {
    let sample = json!({"task_name": "C", "target_node": "c", "ground_truth": 3, "agent_status": "success", "correct": true,
        "prompt": "Define task_2_input = task_1_out[2].\n",
        "custom_dag": {"stages": [
            {"task_number": 1, "task_name": "A", "node_id": "a", "input_node_id": null, "ground_truth": [1, 2, 3]},
            {"task_number": 2, "task_name": "C", "node_id": "c", "input_node_id": "p", "ground_truth": 3}],
          "adapters": [{"node_id": "p", "op": "pick", "input_node_ids": ["a"], "output_name": "task_2_input", "ground_truth": 3}]},
        "node_status": {"task_1_out": "missing", "task_2_out": "correct", "task_9_out": "bogus"}, "first_breaks": ["task_1_out"]});
    let breaks = breaks_of(&sample, 0);
    assert_eq!(breaks.nodes.iter().map(|n| (n.node.as_deref(), n.status)).collect::<Vec<_>>(), [(Some("a"), "missing"), (Some("c"), "correct")], "unknown statuses are dropped");
    let BreakDrawing::Svg(svg) = breaks.drawing else { panic!("drawn") };
    assert!(svg.contains(r#"class="node task missing first-break" data-node-id="a""#) && svg.contains(r#"data-node-id="p""#), "{svg}");
    // The outline: sources first, each graded node with its task, truth and status; the adapter ungraded.
    let outline = breaks_of(&sample, 0).outline;
    assert_eq!(outline.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), ["a", "p", "c"]);
    assert!(outline[0].notes.contains(&"task_1_out: missing, the first break".to_string()), "{:?}", outline[0].notes);
    assert!(outline[0].notes.iter().any(|n| n.contains('A')), "the task name too: {:?}", outline[0].notes);
    assert!(outline[1].notes.iter().all(|n| !n.contains(": correct") && !n.contains(": missing")), "{:?}", outline[1].notes);
    assert!(outline[2].target && outline[2].sentence().contains("task_2_out: correct"), "{}", outline[2].sentence());
}

#[test]
fn the_heat_map_colours_each_node_of_the_largest_instance_by_its_accuracy() {
    use crate::engine::grade::metrics::Accuracy;
    let chain = chain_sample();
    let unfinished = json!({"prompt": "p", "agent_status": "in_progress"});
    let mut nodes = BTreeMap::new();
    nodes.insert("task_1_out".to_string(), Accuracy { correct: 3, total: 4 });
    nodes.insert("task_2_out".to_string(), Accuracy { correct: 0, total: 4 });
    nodes.insert("task_99_out".to_string(), Accuracy { correct: 1, total: 1 });
    let svg = heat_map(&[unfinished.clone(), chain], &nodes).expect("a heat map");
    assert!(svg.contains(r#"class="node task heat-8" data-node-id="task_1""#), "75% rounds to the eighth tenth: {svg}");
    assert!(svg.contains(r#"class="node task target heat-0" data-node-id="task_2""#), "{svg}");
    assert!(svg.contains("75% (3/4)") && svg.contains("0% (0/4)"), "each node's figure in its note");
    assert!(!svg.contains("task_99"), "outputs without a node are left out");
    assert!(svg.contains(".heat-0 > rect:first-of-type { fill: hsl(0 65% 80%); }") && svg.contains("hsl(130 65% 80%)"), "the scale is in the SVG");
    assert_eq!(heat_map(&[unfinished], &nodes), None, "nothing finished: nothing to draw");
    assert_eq!(heat_map(&[chain_sample()], &BTreeMap::new()), None, "no graded node: no heat map");
}

#[test]
fn a_sample_s_context_curve_follows_its_turn_requests() {
    let transcript = transcript_of(&chain_sample(), 0);
    let svg = context_curve_of(&transcript).expect("two turn requests");
    assert_eq!(svg.matches("<circle").count(), 2, "one dot per turn request");
    assert!(svg.contains("sample 0, turn 2: 1234 prompt tokens"), "the reported figure wins over the estimate: {svg}");
    let single = json!({"prompt": "p", "agent_status": "success", "requests": [{"turn": 0, "kind": "turn", "prompt_tokens_reported": 5}]});
    assert_eq!(context_curve_of(&transcript_of(&single, 0)), None);
}

#[test]
fn graphs_over_the_detail_limit_are_listed_not_drawn() {
    let n = DETAIL_NODES * 3;
    let stages: Vec<Json> = (1..n).map(|k| json!({"task_number": k, "task_name": "T", "ground_truth": k})).collect();
    let statuses: serde_json::Map<String, Json> = (1..=n).map(|k| (format!("task_{k}_out"), json!(if k < 500 { "correct" } else { "wrong" }))).collect();
    let sample = json!({"task_name": "Last", "prompt": "p", "ground_truth": 0, "agent_status": "success", "correct": false,
        "chain": {"distractors": stages, "target": {"task_number": n, "task_name": "Last", "ground_truth": 0}},
        "node_status": statuses, "first_breaks": ["task_500_out"]});
    let breaks = breaks_of(&sample, 0);
    assert_eq!(breaks.drawing, BreakDrawing::TooLarge { nodes: n });
    assert_eq!(breaks.nodes.len(), n);
    assert_eq!(breaks.nodes.iter().filter(|l| l.first_break).map(|l| l.output.as_str()).collect::<Vec<_>>(), ["task_500_out"]);
}

#[test]
fn hostile_records_degrade_to_notes_never_to_a_panic() {
    for sample in [
        json!({}),
        json!(null),
        json!("text"),
        json!({"transcript": "not a list", "requests": 3, "turn_outputs": [1, "two"], "node_status": ["wrong"], "first_breaks": "task_1_out"}),
        json!({"transcript": [1, null, {"role": 5, "content": {"x": 1}, "tool_calls": "c", "pictures": "2"}, {"role": "tool", "tool_call_id": 3}],
               "requests": [{"turn": "1", "messages": [{"role": "user"}]}, null], "images": [{"data_url": "javascript:alert(1)"}]}),
    ] {
        let t = transcript_of(&sample, 0);
        assert!(t.pictures.iter().all(|p| !matches!(&p.source, crate::app::instance::PictureSource::Inline(u) if !u.starts_with("data:image/"))), "{sample}");
        let _ = (outline(&t), t.head.tokens.describe());
    }
    let odd = transcript_of(&json!({"transcript": [{"role": "robot", "content": [{"type": "text", "text": "hi"}, {"type": "image_url"}]}, {"role": "tool", "content": "r", "tool_call_id": "nobody", "name": "calculator"}],
        "requests": [{"turn": 0, "messages": [{"role": "user"}, {"role": "user"}]}]}), 0);
    let m = messages(&odd);
    assert_eq!((m[0].role.label(), m[0].role.class(), m[0].content.as_str()), ("robot", "other", "hi"));
    assert_eq!(m[1].unmatched_tool, Some(("calculator".to_string(), "nobody".to_string())), "a result answering no call stays visible");
    let Some(Entry::Request(r)) = odd.entries.last() else { panic!("the request that no assistant message answered comes last") };
    assert_eq!(r.describe(), "request 1 (turn 1) sent 2 of 2 messages");
}

#[test]
fn a_megabyte_message_is_kept_whole_and_searchable() {
    let mut sample = chain_sample();
    let big = format!("{}needle<i>at the end</i>", "x".repeat(1 << 20));
    sample["transcript"][5]["content"] = json!(big);
    let t = transcript_of(&sample, 0);
    assert_eq!(messages(&t)[4].content, big);
    let file = results(vec![sample, chain_sample()]);
    let rows = sample_rows(&file);
    let found = filter_rows(&rows, file["samples"].as_array().unwrap(), &RowFilter { text: "NEEDLE<I>".into(), ..RowFilter::default() });
    assert_eq!(found, [0]);
}
