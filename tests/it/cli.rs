//! The command line on bad input: clear, located errors and exit code 2, never a panic; and the happy paths of
//! generate, inspect and render produce files the other commands read back.

use crate::support::arbigraph;

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbigraph-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path
}

#[test]
fn bad_input_gives_located_errors_and_exit_code_2() {
    let out = temp("out.json", "");
    let out = out.to_str().unwrap();
    let malformed = temp("malformed.json", "{\"nodes\": [\n  {\"id\": 1,,}\n]}");
    let (code, _, err) = arbigraph(&["generate", "--topology", "custom", "--graph", malformed.to_str().unwrap(), "-o", out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("malformed JSON at line 2"), "{err}");
    let cyclic = temp("cyclic.json", r#"{"directed": true, "multigraph": false, "graph": {"target_node": "a"},
        "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                  {"id": "b", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"}],
        "edges": [{"source": "a", "destination": "b"}, {"source": "b", "destination": "a"}]}"#);
    let (code, _, err) = arbigraph(&["generate", "--topology", "custom", "--graph", cyclic.to_str().unwrap(), "-o", out]);
    assert_eq!(code, 2);
    assert!(err.contains("node `a`: is on a cycle") && err.contains("node `b`: is on a cycle"), "{err}");
    for (args, needle) in [
        (vec!["generate", "--family", "poetry", "-o", out], "unknown family `poetry`"),
        (vec!["generate", "--topology", "chain", "--length", "10000000", "-o", out], "chain length"),
        (vec!["generate", "--topology", "spiral", "-o", out], "unknown topology"),
        (vec!["generate", "--topology", "multichain", "--structure", "m,[m", "-o", out], "--structure"),
        (vec!["solve", "--task", "ConvolutionTsk", "--input", "[1, 2]", "--params", "{\"seq2\": [1, 2]}"], "ConvolutionTask"),
        (vec!["solve", "--task", "ConvolutionTask", "--input", "[1, 2]", "--params", "{\"seq2\": [1, 99]}"], "seq2"),
        (vec!["inspect", "/nonexistent/file.json"], "cannot read"),
        (vec!["render", "--graph", "/nonexistent/g.json", "-o", out], "cannot read"),
    ] {
        let (code, _, err) = arbigraph(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected `{needle}` in {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn generated_files_inspect_clean_and_graphs_render() {
    let json = temp("chain.json", "");
    let (code, _, err) = arbigraph(&["generate", "--topology", "chain", "--family", "mixed", "--samples-per-target", "1", "--seed", "5", "-o", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, stdout, _) = arbigraph(&["inspect", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("topology:  chain") && stdout.contains("problems:  none"), "{stdout}");
    let jsonl = temp("chain.jsonl", "");
    let (code, _, _) = arbigraph(&["generate", "--topology", "baseline", "--family", "gsm", "--samples-per-target", "1", "-o", jsonl.to_str().unwrap()]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(first["prompt"].as_str().unwrap().contains("task_1_out") && first["answer"].is_number() && first["id"].is_string());
    let graph = concat!(env!("CARGO_MANIFEST_DIR"), "/public/examples/diamond.json");
    let svg = temp("g.svg", "");
    let dot = temp("g.dot", "");
    assert_eq!(arbigraph(&["render", "--graph", graph, "-o", svg.to_str().unwrap()]).0, 0);
    assert_eq!(arbigraph(&["render", "--graph", graph, "-o", dot.to_str().unwrap(), "--rankdir", "TB"]).0, 0);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    assert!(std::fs::read_to_string(&dot).unwrap().contains("rankdir=TB"));
}

#[test]
fn inspect_recognises_a_graph_and_reports_its_validation_on_its_nodes() {
    let graph = concat!(env!("CARGO_MANIFEST_DIR"), "/public/examples/diamond.json");
    let (code, stdout, err) = arbigraph(&["inspect", graph]);
    assert_eq!(code, 0, "a valid graph: {stdout}{err}");
    for line in ["kind:      graph (node-link)", "target:    combine", "problems:  none: the graph is valid"] {
        assert!(stdout.contains(line), "`{line}` in {stdout}");
    }
    assert!(stdout.contains("adapters") && stdout.contains("families:  math"), "{stdout}");
    // A cycle and an unknown family: errors, each on its node, exit 1.
    let broken = temp(
        "broken-graph.json",
        r#"{"directed": true, "multigraph": false, "graph": {"target_node": "b"},
            "nodes": [{"id": "a", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                      {"id": "b", "kind": "task", "family": "astrology", "input_kind": "scalar", "output_kind": "scalar"}],
            "links": [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}]}"#,
    );
    let (code, stdout, _) = arbigraph(&["inspect", broken.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("error(s)") && stdout.contains("node `b`") && stdout.contains("astrology"), "{stdout}");
    assert!(!stdout.contains("samples:"), "a graph is not reported as a dataset: {stdout}");
    let (code, json, _) = arbigraph(&["inspect", "--json", broken.to_str().unwrap()]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["kind"], "graph");
    assert!(report["problems"].as_array().unwrap().iter().any(|p| p["severity"] == "error" && p["node"] == "b"), "{report}");
}

#[test]
fn a_graph_files_picture_parameters_are_used_and_flags_change_them() {
    let graph = temp("pictures.json", r#"{"directed": true, "multigraph": false,
        "graph": {"target_node": "p", "image_params": {"num_paths": 5, "nodes_per_path": 4, "width": 1000, "height": 800}},
        "nodes": [{"id": "m", "kind": "task", "family": "math", "input_kind": "scalar", "output_kind": "scalar"},
                  {"id": "p", "kind": "task", "family": "image", "input_kind": "scalar", "output_kind": "list"}],
        "edges": [{"source": "m", "destination": "p"}]}"#);
    let graph = graph.to_str().unwrap();
    let out = temp("pictures-out.json", "");
    let out = out.to_str().unwrap();
    let paths_drawn = |extra: &[&str]| {
        let mut args = vec!["generate", "--topology", "custom", "--graph", graph, "--family", "math,image", "--samples-per-target", "1", "-o", out];
        args.extend_from_slice(extra);
        let (code, _, err) = arbigraph(&args);
        assert_eq!(code, 0, "{err}");
        let dataset: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        let params = &dataset["summary"]["image_params"];
        (params["num_paths"].as_u64(), params["nodes_per_path"].as_u64(), dataset["samples"][0]["prompt"].as_str().unwrap().contains("shows 5 paths"))
    };
    assert_eq!(paths_drawn(&[]), (Some(5), Some(4), true), "the file's own parameters");
    assert_eq!(paths_drawn(&["--image-paths", "6"]), (Some(6), Some(4), false), "a flag changes one of them");
    let infeasible = temp("infeasible.json", &std::fs::read_to_string(graph).unwrap().replace(r#""height": 800"#, r#""height": 300"#));
    let (code, _, err) = arbigraph(&["generate", "--topology", "custom", "--graph", infeasible.to_str().unwrap(), "--family", "image", "-o", out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("image parameters: 5 paths do not fit in a height of 300 pixels"), "{err}");
}

#[test]
fn generation_on_several_threads_writes_the_same_bytes_as_on_one() {
    let dir = crate::support::scratch("cli-threads");
    let runs: [&[&str]; 4] = [
        &["--topology", "baseline", "--family", "mixed", "--samples-per-target", "3"],
        &["--topology", "forgetting", "--family", "gsm", "--samples-per-target", "2"],
        &["--topology", "chain", "--family", "python", "--length", "5", "--samples-per-target", "2"],
        &["--topology", "multichain", "--family", "math", "--samples-per-target", "2"],
    ];
    for (i, flags) in runs.iter().enumerate() {
        for extension in ["json", "jsonl"] {
            let made: Vec<Vec<u8>> = ["1", "3", "7"]
                .iter()
                .map(|threads| {
                    let output = dir.join(format!("run{i}-{threads}.{extension}"));
                    let mut args = vec!["generate", "--seed", "5", "--threads", threads, "-o", output.to_str().expect("a UTF-8 path")];
                    args.extend_from_slice(flags);
                    let (code, _, stderr) = arbigraph(&args);
                    assert_eq!(code, 0, "{flags:?} on {threads} threads: {stderr}");
                    std::fs::read(&output).expect("the file was written")
                })
                .collect();
            assert!(made[0].len() > 100, "{flags:?}: a real file");
            assert!(made[1] == made[0] && made[2] == made[0], "{flags:?} as .{extension}: the same bytes on 1, 3 and 7 threads");
        }
    }
    // A run that cannot start writes nothing on any number of threads, and 0 threads is refused.
    let output = dir.join("none.json");
    let (code, _, stderr) = arbigraph(&["generate", "--target", "NoSuchTask", "--threads", "4", "-o", output.to_str().expect("a UTF-8 path")]);
    assert_ne!(code, 0);
    assert!(stderr.contains("NoSuchTask") || stderr.contains("target"), "{stderr}");
    assert!(!output.exists());
    let (code, _, stderr) = arbigraph(&["generate", "--threads", "0", "-o", output.to_str().expect("a UTF-8 path")]);
    assert_eq!((code, stderr.contains("--threads must be at least 1")), (2, true), "{stderr}");
}
