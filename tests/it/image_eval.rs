//! Image tasks through the agent harness: `arbigraph eval` sends each picture as an OpenAI-style `image_url` part
//! after the prompt text, a scripted endpoint decodes every one as a PNG of the size the dataset declares, and
//! its answers (lists read off the pictures) are graded as lists. Pictures stored as files beside the dataset
//! travel the same way.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use arbigraph_studio::engine::dataset::{self, ImageStorage, RunInfo};
use arbigraph_studio::engine::generate::{self, GenerateConfig, Topology};
use arbigraph_studio::engine::tasks::registry::builtin;
use arbigraph_studio::engine::tasks::Family;
use base64::Engine as _;
use serde_json::{json, Value};

/// What the scripted endpoint saw: (declared width, height) of every picture it decoded, per request.
#[derive(Default)]
struct Seen {
    requests: usize,
    pictures: Vec<(u32, u32)>,
    problems: Vec<String>,
}

/// The width and height in a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    (bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR")
        .then(|| (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap())))
}

/// One reply of the scripted agent: a calculator call first (the harness demands one), then the right list.
fn reply(body: &Value, answers: &HashMap<String, String>, seen: &Mutex<Seen>) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let user = messages.iter().find(|m| m["role"] == "user").cloned().unwrap_or(Value::Null);
    let mut seen = seen.lock().unwrap();
    seen.requests += 1;
    let mut prompt = String::new();
    match user["content"].as_array() {
        Some(parts) => {
            for part in parts {
                match part["type"].as_str() {
                    Some("text") if prompt.is_empty() => prompt = part["text"].as_str().unwrap_or("").to_string(),
                    Some("image_url") => {
                        let url = part["image_url"]["url"].as_str().unwrap_or("");
                        let decoded = url.strip_prefix("data:image/png;base64,").and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
                        match decoded.as_deref().and_then(png_size) {
                            Some(size) => seen.pictures.push(size),
                            None => seen.problems.push(format!("not a PNG data URL: {}", &url[..url.len().min(40)])),
                        }
                    }
                    _ => {}
                }
            }
        }
        None => seen.problems.push("the prompt message has no content parts".into()),
    }
    let called = messages.iter().any(|m| m["role"] == "tool");
    let message = if called {
        let answer = answers.get(&prompt).cloned().unwrap_or_else(|| "[]".into());
        json!({"role": "assistant", "content": format!("Following the path: \\boxed{{task_1_out = {answer}}}")})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": "{\"expressions\": [\"1+1\"]}"}}]})
    };
    json!({"choices": [{"index": 0, "message": message, "finish_reason": if called { "stop" } else { "tool_calls" }}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
}

/// Serves chat completions on a free port until the process ends.
fn serve(answers: HashMap<String, String>, seen: Arc<Mutex<Seen>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
            let mut length = 0usize;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let text = reply(&request, &answers, &seen).to_string();
            let mut out = stream;
            let _ = write!(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}", text.len());
        }
    });
    port
}

fn run_eval(dataset_path: &std::path::Path, port: u16, output: &std::path::Path) -> Value {
    let (code, _, err) = crate::support::arbigraph(&[
        "eval",
        "--dataset",
        dataset_path.to_str().unwrap(),
        "--base-url",
        &format!("http://127.0.0.1:{port}/v1"),
        "--model",
        "scripted",
        "--concurrency",
        "2",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&std::fs::read_to_string(output).unwrap()).unwrap()
}

#[test]
fn pictures_reach_the_endpoint_as_png_parts_and_list_answers_are_graded() {
    let registry = builtin();
    let mut config = GenerateConfig::new(Topology::Baseline, vec![Family::Image]);
    config.samples_per_target = 3;
    config.seed = 5;
    let samples = generate::generate(&config, &registry, &mut |_, _| {}).expect("image samples");
    let answers: HashMap<String, String> = samples.iter().map(|s| (s.prompt.text().to_string(), s.ground_truth.repr())).collect();
    let dir = crate::support::scratch("image-eval");

    for storage in ["inline", "files"] {
        let images = if storage == "inline" { ImageStorage::Inline } else { ImageStorage::Files { dir: "pictures".into() } };
        if storage == "files" {
            std::fs::create_dir_all(dir.join("pictures")).unwrap();
            for (name, bytes) in dataset::image_files(&config, &samples).unwrap() {
                std::fs::write(dir.join("pictures").join(name), bytes).unwrap();
            }
        }
        let run = RunInfo { images, ..RunInfo::default() };
        let path = dir.join(format!("images-{storage}.json"));
        std::fs::write(&path, dataset::to_pretty_string(&dataset::to_json(&config, &samples, &run))).unwrap();

        let seen = Arc::new(Mutex::new(Seen::default()));
        let port = serve(answers.clone(), seen.clone());
        let results = run_eval(&path, port, &dir.join(format!("results-{storage}.json")));
        let seen = seen.lock().unwrap();
        assert!(seen.problems.is_empty(), "{storage}: {:?}", seen.problems);
        assert_eq!(seen.requests, 2 * samples.len(), "{storage}: a calculator turn and an answer turn per sample");
        assert_eq!(seen.pictures.len(), seen.requests, "{storage}: every request carries the sample's picture");
        assert!(seen.pictures.iter().all(|&size| size == (2000, 1400)), "{storage}: {:?}", seen.pictures);
        let graded = results["samples"].as_array().unwrap();
        assert_eq!(graded.len(), samples.len());
        for (sample, record) in samples.iter().zip(graded) {
            assert_eq!(record["correct"], true, "{storage}: {} answered {}", sample.ground_truth.repr(), record["task_answers"]);
            assert!(sample.ground_truth.repr().starts_with('['), "image answers are lists");
        }
    }
}

#[test]
fn every_strategy_sends_the_picture_with_the_prompt_and_nowhere_else() {
    use arbigraph_studio::engine::agent::strategy::{registry, Strategy};
    use arbigraph_studio::engine::agent::{run_to_end, AgentConfig, AgentInput, ChatReply, ReplyToolCall, RequestKind, ToolArguments};
    let sample = json!({
        "prompt": "Follow the path and give task_1_out. Then compute task_2_out = task_1_out summed.",
        "ground_truth": 7,
        "images": [{"image_index": 1, "task_number": 1, "data_url": "data:image/png;base64,AAAA", "metadata": {"width": 2000, "height": 1400}}]
    });
    let input = AgentInput::from_sample(&sample, 0).expect("a sample with a picture");
    assert_eq!(input.images.len(), 1);
    assert_eq!(input.images[0].label, "Image 1 (Task 1):");
    for info in registry() {
        let mut config = AgentConfig::for_topology("chain");
        // Small limits so that windows, masks and summaries all act within a dozen turns.
        config.strategy = Strategy::parse(info.name).unwrap();
        if let Ok(small) = Strategy::parse(&format!("{}:trigger_tokens=200", info.name)) {
            config.strategy = small;
        }
        let mut turn = 0;
        let mut checked = 0;
        let mut summaries = 0;
        run_to_end(&input, &config, |request| {
            if request.kind != RequestKind::Turn {
                // A summary call condenses text; the picture stays with the prompt of the next turn.
                summaries += 1;
                assert!(request.messages.iter().all(|m| m.images.is_empty()), "{}: the summariser gets text only", info.name);
                return Ok(ChatReply { content: "Summary: steps so far were calculator calls.".into(), finish_reason: Some("stop".into()), ..ChatReply::default() });
            }
            assert_eq!(request.messages[1].images, input.images, "{}: the prompt keeps its picture", info.name);
            assert!(request.messages.iter().skip(2).all(|m| m.images.is_empty()), "{}: no other message has one", info.name);
            checked += 1;
            turn += 1;
            let call = ReplyToolCall { id: format!("c{turn}"), name: "calculator".into(), arguments: ToolArguments::Text(format!("{{\"expressions\": [\"{turn} * 3\"]}}")) };
            Ok(if turn < 12 {
                ChatReply { content: format!("Working on it, step {turn}. ").repeat(30), tool_calls: vec![call], finish_reason: Some("tool_calls".into()), ..ChatReply::default() }
            } else {
                ChatReply { content: "\\boxed{task_1_out = [1, 2]} \\boxed{task_2_out = 7}".into(), finish_reason: Some("stop".into()), ..ChatReply::default() }
            })
        });
        assert_eq!(checked, 12, "{}: every turn checked", info.name);
        if info.name.contains("summary") {
            assert!(summaries > 0, "{}: the small trigger made it summarise", info.name);
        }
    }
}
