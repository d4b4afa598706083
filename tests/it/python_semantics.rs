//! Robustness of the Python-subset interpreter: random and mutated source text never panics the lexer,
//! parser, resolver, unparser or evaluator, and evaluation under small limits always ends.

use arbigraph_studio::engine::prompt::fenced_code;
use arbigraph_studio::engine::python::{call, parse_module, unparse, FunctionSig, Limits, PyValue};
use arbigraph_studio::engine::rng::InstanceRng;
use arbigraph_studio::engine::tasks::python_trace::{load_reference_pool, TraceOptions, UserFunction};
use arbigraph_studio::engine::tasks::TaskContext;
use arbigraph_studio::engine::value::{Kind, Value};
use proptest::prelude::*;

/// Valid programs to mutate: the test pool functions plus snippets touching every construct.
fn seeds() -> Vec<String> {
    let mut seeds: Vec<String> = [
        include_str!("../fixtures/python/900_capped_running_total.py"),
        include_str!("../fixtures/python/901_next_smaller_gap.py"),
        include_str!("../fixtures/python/902_digit_rebalance.py"),
        include_str!("../fixtures/python/903_paired_window_score.py"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    seeds.push(
        "def f(a: List[int], k: int) -> int:\n    d = {}\n    s = set()\n    for i, x in enumerate(a):\n        if (v := d.get(x)) is not None:\n            k += v\n        d[x] = i\n        s.add(x % 7)\n    a[::2] = a[1::2] + a[:1] * (len(a) % 2)\n    while k > 0 and a:\n        k -= a.pop() or 1\n    return sum(y for y in s) + k ** 2 // 3 - (k << 2) % 5\n"
            .to_string(),
    );
    seeds.push(
        "def g(nums: List[int]) -> List[int]:\n    def h(v):\n        return v * 2 if v > 0 else -v\n    out = sorted(nums, key=lambda t: (h(t), -t), reverse=True)\n    m = [[0] * 3 for _ in range(3)]\n    m[1][2] += 5\n    a, (b, c) = 1, [2, 3]\n    return [x for x in out if x != b] + [max(nums, default=c), min(c, 9)] + list(m[1])\n"
            .to_string(),
    );
    seeds
}

/// Splits text into rough tokens (runs of word characters, single symbols, whitespace runs).
fn rough_tokens(src: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    for c in src.chars() {
        let word = c.is_alphanumeric() || c == '_';
        match tokens.last_mut() {
            Some(last) if word && last.chars().all(|d| d.is_alphanumeric() || d == '_') => last.push(c),
            Some(last) if c == ' ' && last.chars().all(|d| d == ' ') => last.push(c),
            _ => tokens.push(c.to_string()),
        }
    }
    tokens
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    InsertText(usize, String),
}

fn mutate(src: &str, mutations: &[Mutation]) -> String {
    let mut text = src.to_string();
    for m in mutations {
        let mut tokens = rough_tokens(&text);
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        match m {
            Mutation::DeleteToken(i) if !tokens.is_empty() => {
                tokens.remove(i % tokens.len());
                text = tokens.concat();
            }
            Mutation::DuplicateToken(i) if !tokens.is_empty() => {
                let i = i % tokens.len();
                let t = tokens[i].clone();
                tokens.insert(i, t);
                text = tokens.concat();
            }
            Mutation::SwapTokens(i, j) if !tokens.is_empty() => {
                let n = tokens.len();
                tokens.swap(i % n, j % n);
                text = tokens.concat();
            }
            Mutation::DeleteLine(i) if !lines.is_empty() => {
                lines.remove(i % lines.len());
                text = lines.join("\n");
            }
            Mutation::DuplicateLine(i) if !lines.is_empty() => {
                let i = i % lines.len();
                let l = lines[i].clone();
                lines.insert(i, l);
                text = lines.join("\n");
            }
            Mutation::SwapLines(i, j) if !lines.is_empty() => {
                let n = lines.len();
                lines.swap(i % n, j % n);
                text = lines.join("\n");
            }
            Mutation::InsertText(i, s) => {
                let chars: Vec<char> = text.chars().collect();
                let i = i % (chars.len() + 1);
                text = chars[..i].iter().collect::<String>() + s + &chars[i..].iter().collect::<String>();
            }
            _ => {}
        }
    }
    text
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let snippet = prop::sample::select(vec![
        "(",
        ")",
        "[",
        "]",
        ":",
        "\n",
        "    ",
        "while True:\n    pass\n",
        " ** ",
        " // 0",
        "-",
        "lambda: ",
        "[0] * 10 ** 9",
        "x",
        ",",
        "=",
        ":=",
        "not ",
        " if ",
        " else ",
        "\\\n",
        "'",
        "\"\"\"",
        "def ",
        "return ",
        "for ",
        " in ",
        "@",
        "class ",
        "{",
        "}",
        "*",
        "~",
        "<<",
        "yield",
    ]);
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteToken),
        any::<usize>().prop_map(Mutation::DuplicateToken),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::SwapTokens(i, j)),
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::SwapLines(i, j)),
        (any::<usize>(), snippet).prop_map(|(i, s)| Mutation::InsertText(i, s.to_string())),
    ]
}

/// Parses, prints, resolves and (when it parses) runs every function with small generated arguments.
fn exercise(src: &str, seed: i64) {
    let Ok(module) = parse_module(src) else { return };
    let printed = unparse::unparse_module(&module.body);
    // What we print must parse again.
    assert!(parse_module(&printed).is_ok(), "unparsed text does not parse:\n{printed}\nfrom:\n{src}");
    let names: Vec<FunctionSig> = module
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            arbigraph_studio::engine::python::ast::StmtKind::FunctionDef(def) => Some(FunctionSig::of(def)),
            _ => None,
        })
        .collect();
    for sig in names {
        let kwargs: Vec<(String, PyValue)> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let base = seed.wrapping_mul(31).wrapping_add(i as i64 * 17) % 100;
                let v = match p.kind {
                    Kind::List => PyValue::list((0..6).map(|k| PyValue::Int((base * (k + 3)) % 101 - 50)).collect()),
                    Kind::Scalar => PyValue::Int(base - 50),
                };
                (p.name.clone(), v)
            })
            .collect();
        let _ = call(&module, &sig.name, &[], &kwargs, &Limits::small());
    }
    // The same text as a user task: renaming, printing and instantiating must not panic either, and the
    // rewritten code shown in the prompt must parse.
    if let Ok(function) = UserFunction::from_source(src) {
        let task = function.into_task("python.fuzz", 0, TraceOptions { attempts: 2, limits: Limits::small() });
        for input in [Value::ints(&[3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5]), Value::int(-42)] {
            let ctx = TaskContext { number: 2, input_name: "task_1_out", input: &input, output_kind: None };
            if let Ok(instance) = task.instantiate(&ctx, &mut InstanceRng::from_seed(seed as u64)) {
                let text = instance.body.text().to_string();
                let code = fenced_code(&text, "python").unwrap_or_else(|| panic!("no closed code block in {text:?}"));
                assert!(parse_module(code).is_ok(), "prompt code does not parse:\n{code}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn mutated_programs_never_panic_or_hang(seed_index in 0usize..6, mutations in prop::collection::vec(mutation(), 1..6), arg_seed in any::<i64>()) {
        let seeds = seeds();
        let src = mutate(&seeds[seed_index % seeds.len()], &mutations);
        exercise(&src, arg_seed);
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
        "def", "f", "(", ")", ":", "\n", "    ", "return", "x", "1", "0", "+", "-", "*", "//", "%", "**", "[", "]", "{", "}", ",", "=",
        "for", "in", "range", "if", "else", "elif", "while", "not", "and", "or", "lambda", "len", "a", ".", "append", "'s'", "True",
        "None", ":=", "<", "==", "is", "break", "continue", "pass", "\t", "#c\n", "2.5", "0x1F", "~", "<<", ">>", "&", "|", "^",
    ]), 0..60), arg_seed in any::<i64>()) {
        let src: String = tokens.join(" ");
        exercise(&src, arg_seed);
        let src: String = tokens.concat();
        exercise(&src, arg_seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn reference_pool_loader_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "countUp -> ID: 1 | Difficulty: Easy\n", "class Solution:\n", "    def countUp(self, nums: List[int]) -> int:\n",
        "        return self.countUp(nums[1:]) if nums else 0\n", "        return sum(nums)\n", "\u{e9}\u{e9}  x\n", "\t\n", "  \n",
        "--------------------------------------------------------------------------------\n", " -> \n", "def f(x: int) -> int:\n    return x\n",
    ]), 0..30)) {
        let text: String = parts.concat();
        for function in load_reference_pool(&text).into_iter().flatten() {
            let _ = function.into_task("python.ref", 0, TraceOptions { attempts: 1, limits: Limits::small() });
        }
    }
}

/// Found by fuzzing: a string literal holding a run of backticks closed the prompt's code block early, so the
/// code a model was shown stopped mid-string and no longer parsed.
#[test]
fn backticks_in_the_code_do_not_close_its_block() {
    let src = "def f(xs: List[int]) -> int:\n    t = 'a````````b'\n    return len(t) * sum(xs) + 7\n";
    let task = UserFunction::from_source(src).expect("parses").into_task("python.ticks", 0, TraceOptions::default());
    let input = Value::ints(&[3, 1, 4]);
    let ctx = TaskContext { number: 2, input_name: "task_1_out", input: &input, output_kind: None };
    let instance = task.instantiate(&ctx, &mut InstanceRng::from_seed(5)).expect("an instance");
    let text = instance.body.text();
    assert!(text.contains("\n`````````python\ndef task_2("), "a fence one longer than the code's run: {text}");
    let code = fenced_code(text, "python").expect("a closed block");
    assert!(code.contains("'a````````b'") && code.ends_with("return task_2_out\n"), "{code}");
    assert!(parse_module(code).is_ok(), "{code}");
}

#[test]
fn pathological_nesting_is_a_syntax_error_not_a_crash() {
    for src in [
        format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000)),
        format!("x = {}1\n", "-".repeat(20000)),
        format!("x = {}1\n", "1 + ".repeat(20000)),
        format!("x = {}1\n", "not ".repeat(20000)),
        format!("x = a{}\n", ".b".repeat(20000)),
        format!("x = a{}\n", "[0]".repeat(20000)),
        (0..200).map(|i| format!("{}if x:\n", "    ".repeat(i))).collect::<String>() + &"    ".repeat(200) + "pass\n",
    ] {
        let err = parse_module(&src).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("too deeply nested"), "{err}");
    }
}

#[test]
fn runaway_programs_end_quickly_under_default_limits() {
    for (src, expected) in [
        ("def f():\n    while True:\n        pass\n", "step budget"),
        ("def f():\n    n = 0\n    for i in range(10 ** 9):\n        n += i\n    return n\n", "step budget"),
        ("def f():\n    a = []\n    while True:\n        a.append(1)\n", "memory cap"),
        ("def f():\n    s = 'x'\n    while True:\n        s = s + s\n", "memory cap"),
        ("def f():\n    x = 3\n    while True:\n        x = x * x\n", "memory cap"),
    ] {
        let module = parse_module(src).map_err(|e| e.to_string());
        let err = module.and_then(|m| call(&m, "f", &[], &[], &Limits::default()).map(|v| v.repr()).map_err(|e| e.to_string()));
        assert!(err.as_ref().err().is_some_and(|e| e.contains(expected)), "{src}: {err:?}");
    }
}
