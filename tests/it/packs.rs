//! Task packs the user brings, read from the small packs under `tests/fixtures/packs/` (written for these tests
//! in the formats of the reference's LeetCode pool and of GSM-Symbolic): typing, refusals with their reasons,
//! located errors on broken files, the choice between our tasks and a pack's, and generation from a pack.

use arbigraph_studio::engine::tasks::pack::{python_ref, Pack, PackError};
use arbigraph_studio::engine::tasks::registry::{builtin, FamilyChoice};
use arbigraph_studio::engine::tasks::Family;
use arbigraph_studio::engine::value::{Kind, Value};

use crate::support::{arbigraph, fixture, scratch};

fn pool_path() -> String {
    fixture("packs/python/pool.txt").display().to_string()
}

fn pool() -> Pack {
    let path = pool_path();
    Pack::python_ref(&path, &std::fs::read_to_string(&path).expect("the fixture pool")).expect("the fixture pool reads")
}

#[test]
fn a_pool_pack_types_every_function_and_refuses_the_unusable_with_reasons() {
    let pack = pool();
    let listed: Vec<(&str, &str, u32, Vec<Kind>, Kind)> =
        pack.entries.iter().map(|e| (e.key.as_str(), e.name.as_str(), e.task_id, e.input_kinds.clone(), e.output_kind)).collect();
    assert_eq!(
        listed,
        [
            ("python.ref.runLengthPeaks", "runLengthPeaks", 0, vec![Kind::List], Kind::Scalar),
            // The name repeats, so both carry their problem number.
            ("python.ref.rotateBy.9002", "rotateBy", 1, vec![Kind::List, Kind::Scalar], Kind::List),
            ("python.ref.rotateBy.9003", "rotateBy", 2, vec![Kind::List, Kind::Scalar], Kind::List),
            ("python.ref.digitWeight", "digitWeight", 3, vec![Kind::Scalar], Kind::Scalar),
        ]
    );
    let refused: Vec<String> = pack.refused.iter().map(|r| r.to_string()).collect();
    assert_eq!(
        refused,
        [
            "guardedOpen (line 44): line 48, column 9: unsupported: with statements",
            "mislabelled (line 51): with a list input, it returns a list although its annotation says scalar (12 of 12 trial runs)",
            "alwaysEmpty (line 57): with a list input, it returns only 0, 1, -1 or an empty list (12 of 12 trial runs)",
        ]
    );
    // The tasks carry the entries' keys and kinds.
    let tasks = pack.tasks();
    assert_eq!(tasks.len(), 4);
    assert_eq!(tasks[3].info().key, "python.ref.digitWeight");
    assert_eq!((tasks[3].info().input_kinds.clone(), tasks[3].info().family), (vec![Kind::Scalar], Family::Python));
}

#[test]
fn pool_functions_compute_what_their_code_says() {
    let functions = python_ref::functions(&pool());
    let run = |index: usize, chained: Value, statics: &[(&str, Value)]| {
        let statics: Vec<(String, Value)> = statics.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
        python_ref::truth(functions[index].as_ref().expect("loads"), &chained, &statics)
    };
    // Rises 1→3→5 (a run of 2), then 2→4 (a run of 1): 2 * 3 plus the spread 5 - 1 by the `self.` helper.
    assert_eq!(run(0, Value::ints(&[1, 3, 5, 2, 4]), &[]), Ok(Value::int(10)));
    // -7 keeps its sign through the adapter; |-7| + 11 = 18, so 8 * 9 + 1 * 2.
    assert_eq!(run(3, Value::int(-7), &[]), Ok(Value::int(74)));
    // 250 is cut to 50 by the adapter; a scalar binds `shift`, and [1, 2, 3, 4] rotated by 50 % 4 = 2 is [3, 4, 1, 2].
    assert_eq!(run(1, Value::int(250), &[("values", Value::ints(&[1, 2, 3, 4]))]), Ok(Value::ints(&[5, 7, 1, 3])));
    assert_eq!(run(1, Value::int(3), &[]), Err("no value for parameter `values`".to_string()));
}

#[test]
fn a_broken_pool_is_a_located_error_and_the_command_line_says_where() {
    let path = fixture("packs/python/broken.txt").display().to_string();
    let text = std::fs::read_to_string(&path).expect("the broken fixture");
    let err = Pack::python_ref(&path, &text).expect_err("the second block has no header");
    assert_eq!(
        err,
        PackError {
            file: path.clone(),
            line: Some(6),
            message: "expected a block header `<function name> -> ID: <n> | Difficulty: <level>`, found `this line is not a header`".into()
        }
    );
    assert_eq!(Pack::python_ref("empty.txt", "\n\n").expect_err("no blocks").to_string().split(':').next(), Some("empty.txt"));
    let out = scratch("packs-broken").join("dataset.json");
    let (code, _, stderr) = arbigraph(&["generate", "--pack", &format!("python={path}"), "--family", "python", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(&format!("{path}:6: expected a block header")), "{stderr}");
    let (code, _, stderr) = arbigraph(&["generate", "--pack", "fortran=x.txt", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown pack kind `fortran`"), "{stderr}");
    let (code, _, stderr) = arbigraph(&["generate", "--family", "python.ref", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`python.ref` names a pack that is not loaded"), "{stderr}");
}

#[test]
fn a_family_draws_from_its_pack_and_sources_pick_ours_the_packs_or_both() {
    let mut registry = builtin();
    let ours = registry.family(Family::Python).len();
    registry.add_pack(&pool()).expect("pack keys are new");
    let count = |text: &str| {
        let choice = FamilyChoice::parse(text, &registry).expect("a valid choice");
        let view = registry.view(&choice);
        (view.family(Family::Python).len(), view.family(Family::Math).len(), choice.families)
    };
    let math = builtin().family(Family::Math).len();
    assert_eq!(count("python"), (4, math, vec![Family::Python]));
    assert_eq!(count("python.ref"), (4, math, vec![Family::Python]));
    assert_eq!(count("python.ours"), (ours, math, vec![Family::Python]));
    assert_eq!(count("python.ours,python.ref"), (ours + 4, math, vec![Family::Python]));
    assert_eq!(count("mixed"), (4, math, vec![Family::Math, Family::Gsm, Family::Python]));
    assert!(FamilyChoice::parse("python.lisp", &registry).unwrap_err().contains("unknown source `python.lisp`"));
    assert!(FamilyChoice::parse("gsm.symbolic", &registry).unwrap_err().contains("not loaded"));
    // Without a pack nothing changes: a family is ours.
    let plain = builtin();
    assert_eq!(plain.view(&FamilyChoice::parse("python", &plain).unwrap()).len(), plain.len());
}

#[test]
fn a_chain_from_a_pack_uses_the_packs_functions_and_is_the_same_bytes_every_time() {
    let pack = format!("python={}", pool_path());
    let run = |name: &str, threads: &str| {
        let out = scratch(name).join("dataset.json");
        let (code, _, stderr) = arbigraph(&[
            "generate", "--pack", &pack, "--topology", "chain", "--family", "python", "--samples-per-target", "3", "--seed", "11", "--threads", threads, "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        // The refused functions are named before the run.
        assert!(stderr.contains("cannot use guardedOpen (line 44)"), "{stderr}");
        std::fs::read(&out).expect("the dataset")
    };
    let first = run("packs-chain-a.json", "1");
    assert_eq!(first, run("packs-chain-b.json", "1"));
    assert_eq!(first, run("packs-chain-c.json", "2"));
    let json: serde_json::Value = serde_json::from_slice(&first).expect("JSON");
    let samples = json["samples"].as_array().expect("samples");
    assert_eq!(samples.len(), 4 * 3);
    let names = ["runLengthPeaks", "rotateBy", "digitWeight"];
    for sample in samples {
        assert!(sample["task_key"].as_str().is_some_and(|k| k.starts_with("python.ref.")), "{}", sample["task_key"]);
        for stage in sample["chain"]["distractors"].as_array().into_iter().flatten() {
            assert!(names.contains(&stage["task_name"].as_str().unwrap_or("")), "{stage}");
        }
        assert!(sample["prompt"].as_str().is_some_and(|p| p.contains("Trace by hand the Python function below")));
    }
}

#[test]
fn the_packs_command_lists_tasks_with_kinds_and_refusals() {
    let (code, stdout, stderr) = arbigraph(&["packs", "--pack", &pool_path()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(": 4 task(s), 3 refused"), "{stdout}");
    assert!(stdout.lines().any(|l| l.contains("python.ref.digitWeight") && l.contains("scalar -> scalar")), "{stdout}");
    assert!(stdout.contains("refused mislabelled (line 51): with a list input"), "{stdout}");
}

#[test]
fn the_check_recomputes_a_baseline_made_from_the_pack_from_its_prompts() {
    let out = scratch("packs-check").join("baseline.json");
    let pack = format!("python={}", pool_path());
    let (code, _, stderr) = arbigraph(&["generate", "--pack", &pack, "--family", "python.ref", "--samples-per-target", "5", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = arbigraph(&["packs", "--pack", &pack, "--check", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("20 sample(s) of its family, 20 agree, 0 disagree, 0 not checked"), "{stdout}");
    // A stored truth that is wrong is found and named.
    let text = std::fs::read_to_string(&out).expect("the dataset");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["samples"][3]["ground_truth"] = serde_json::json!(123456);
    std::fs::write(&out, json.to_string()).expect("rewrite");
    let (code, stdout, _) = arbigraph(&["packs", "--pack", &pack, "--check", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("19 agree, 1 disagree") && stdout.contains("disagree: sample 3 (runLengthPeaks, task_id 0): ours"), "{stdout}");
}

fn templates_path() -> String {
    fixture("packs/gsm").display().to_string()
}

fn templates() -> Pack {
    let dir = fixture("packs/gsm");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("the fixture templates").map(|e| e.expect("an entry").path()).collect();
    files.sort();
    let files: Vec<(String, String)> = files.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).expect("a template"))).collect();
    Pack::gsm_symbolic(&dir.display().to_string(), &files).expect("the fixture templates read")
}

#[test]
fn gsm_templates_become_chainable_word_problems_and_the_unusable_are_refused_with_reasons() {
    let pack = templates();
    let keys: Vec<(&str, &str, u32)> = pack.entries.iter().map(|e| (e.key.as_str(), e.name.as_str(), e.task_id)).collect();
    assert_eq!(keys, [("gsm.symbolic.0001", "GSM_0001.json", 0), ("gsm.symbolic.0002", "GSM_0002.json", 1)]);
    // 0002's worked answer says 6 where its own formula gives 40 // 8 = 5: kept, with a note.
    assert_eq!(pack.entries[1].notes, ["on the numbers the question shows, the #answer formula gives 5 where the worked answer says 6"]);
    assert!(pack.entries[0].notes.is_empty(), "{:?}", pack.entries[0].notes);
    let refused: Vec<String> = pack.refused.iter().map(|r| r.to_string()).collect();
    assert_eq!(refused.len(), 3);
    assert_eq!(refused[0], "0003 (0003.json): not chainable: no `$` variable drawn from range(…) or numbers_within(…) can take the chained value");
    assert_eq!(refused[1], "0004 (0004.json): not chainable: 0 of the trial values 0, 11, 22, 33, 44, 55, 66, 77, 88, 99 bind; its conditions never held");
    assert!(refused[2].starts_with("0005 (0005.json): #init: line 1: `kind = sample(planet_kinds)`: unknown table `planet_kinds` (we have names,"), "{}", refused[2]);
    // An instance binds the chained value and shows every other value.
    let tasks = pack.tasks();
    let input = Value::int(-7);
    let ctx = arbigraph_studio::engine::tasks::TaskContext { number: 2, input_name: "task_1_out", input: &input, output_kind: None };
    let instance = tasks[1].instantiate(&ctx, &mut arbigraph_studio::engine::rng::InstanceRng::from_seed(3)).expect("binds 7");
    let text = instance.body.text();
    assert!(text.starts_with("Task 2:\nLet val_2 be task_1_out preprocessed as follows:"), "{text}");
    assert!(text.ends_with("\nStore the final numerical answer in task_2_out.\n") && !text.contains('{'), "{text}");
}

#[test]
fn a_broken_template_is_a_located_error() {
    let file = fixture("packs/gsm-broken/0001.json").display().to_string();
    let text = std::fs::read_to_string(&file).expect("the broken template");
    let err = Pack::gsm_symbolic("gsm-broken", &[(file.clone(), text)]).expect_err("not JSON");
    assert_eq!((err.file.as_str(), err.line), (file.as_str(), Some(3)));
    assert!(err.message.starts_with("not a JSON template: expected `,` or `}`"), "{}", err.message);
    let missing = Pack::gsm_symbolic("t", &[("t/0009.json".into(), "{\"question\": \"no annotation\"}".into())]).expect_err("no question_annotated");
    assert!(missing.to_string().starts_with("t/0009.json: no `question_annotated` text"), "{missing}");
    let out = scratch("packs-gsm-broken").join("dataset.json");
    let (code, _, stderr) = arbigraph(&["generate", "--pack", &format!("gsm={}", fixture("packs/gsm-broken").display()), "--family", "gsm", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(&format!("{file}:3: not a JSON template")), "{stderr}");
}

#[test]
fn gsm_pack_answers_are_recomputed_from_the_questions_and_chains_stay_deterministic() {
    let pack = format!("gsm={}", templates_path());
    let dir = scratch("packs-gsm");
    let baseline = dir.join("baseline.json");
    let (code, _, stderr) = arbigraph(&["generate", "--pack", &pack, "--family", "gsm.symbolic", "--samples-per-target", "8", "-o", baseline.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("cannot use 0004 (0004.json): not chainable"), "{stderr}");
    // Every question is read back into the template's variables and its answer recomputed from them.
    let (code, stdout, _) = arbigraph(&["packs", "--pack", &pack, "--check", baseline.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("16 sample(s) of its family, 16 agree, 0 disagree, 0 not checked"), "{stdout}");
    // Our templates and the pack's, in one chain, the same bytes on one thread and on two.
    let chain = |name: &str, threads: &str| {
        let out = dir.join(name);
        let (code, _, stderr) = arbigraph(&[
            "generate", "--pack", &pack, "--topology", "chain", "--family", "gsm.ours,gsm.symbolic", "--samples-per-target", "1", "--seed", "4", "--threads", threads, "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        std::fs::read(out).expect("the chain")
    };
    let one = chain("a.json", "1");
    assert_eq!(one, chain("b.json", "2"));
    let json: serde_json::Value = serde_json::from_slice(&one).expect("JSON");
    let keys: Vec<&str> = json["samples"].as_array().expect("samples").iter().filter_map(|s| s["task_key"].as_str()).collect();
    assert_eq!(keys.len(), builtin().family(Family::Gsm).len() + 2);
    assert_eq!(keys.iter().filter(|k| k.starts_with("gsm.symbolic.")).collect::<Vec<_>>(), [&"gsm.symbolic.0001", &"gsm.symbolic.0002"]);
}

#[test]
fn inspect_and_render_check_a_graphs_pinned_tasks_against_the_pack_given() {
    let dir = scratch("packs-graph");
    let graph = |task_id: u32| {
        let path = dir.join(format!("pinned-{task_id}.json"));
        let text = format!(
            r#"{{"directed": true, "multigraph": false, "graph": {{"target_node": "t"}},
                "nodes": [{{"id": "t", "kind": "task", "family": "python", "task_id": {task_id}, "input_kind": "scalar", "output_kind": "scalar"}}],
                "links": []}}"#
        );
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let pack = format!("python={}", pool_path());
    // Task 3 of the pool (digitWeight, scalar → scalar) fits the node; task 20 is one of ours, not the pool's.
    let (code, stdout, _) = arbigraph(&["inspect", &graph(3), "--pack", &pack]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("problems:  none"), "{stdout}");
    let beyond = graph(20);
    let (_, stdout, _) = arbigraph(&["inspect", &beyond]);
    assert!(stdout.contains("fit_keys_to_locks"), "without the pack, task 20 is ours: {stdout}");
    let (code, stdout, _) = arbigraph(&["inspect", &beyond, "--pack", &pack]);
    assert_eq!(code, 1, "the pool has 4 tasks: {stdout}");
    assert!(stdout.contains("node `t`") && !stdout.contains("fit_keys_to_locks"), "{stdout}");
    let svg = dir.join("pinned.svg");
    let (code, _, stderr) = arbigraph(&["render", "--graph", &beyond, "-o", svg.to_str().unwrap(), "--pack", &pack]);
    assert_eq!(code, 1, "an error is reported: {stderr}");
    assert!(stderr.contains("error: node `t`: unknown python task_id 20") && svg.exists(), "drawn all the same: {stderr}");
    let (code, _, stderr) = arbigraph(&["inspect", &beyond, "--pack", "fortran=x.f"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown pack kind `fortran`"), "{stderr}");
}
