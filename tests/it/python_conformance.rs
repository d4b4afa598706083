//! CPython conformance of the built-in Python interpreter: the pool sweep and hand-written adversarial snippets,
//! both judged by `scripts/python_conformance.py`, so CPython decides every expected outcome.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

/// Runs the conformance script from the crate root with `extra` arguments; returns (success, combined output).
fn run_conformance(extra: &[&str]) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .current_dir(root)
        .arg("scripts/python_conformance.py")
        .arg("--arbigraph")
        .arg(env!("CARGO_BIN_EXE_arbigraph"))
        .args(extra)
        .output();
    match output {
        Ok(out) => {
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            (out.status.success(), text)
        }
        Err(err) => (false, format!("could not start python3: {err}")),
    }
}

/// The last line the script printed, which must read `N passed, M failed`.
fn summary_line(output: &str) -> &str {
    output.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("")
}

#[test]
fn every_pool_function_agrees_with_cpython_on_two_hundred_argument_sets() {
    let (ok, output) = run_conformance(&[]);
    assert!(ok, "conformance sweep over data/python failed:\n{output}");
    assert!(summary_line(&output).ends_with(" passed, 0 failed"), "unexpected summary:\n{output}");
}

/// One adversarial snippet: a name for the report, the source, the function to call and its keyword arguments
/// (JSON text, so integers past 64 bits can be written exactly).
struct Snippet {
    name: &'static str,
    source: &'static str,
    function: &'static str,
    kwargs: String,
}

fn snippet(name: &'static str, source: &'static str, function: &'static str, kwargs: serde_json::Value) -> Snippet {
    Snippet { name, source, function, kwargs: kwargs.to_string() }
}

/// A snippet whose keyword arguments are given as raw JSON text (for numbers serde_json cannot hold exactly).
fn snippet_raw(name: &'static str, source: &'static str, function: &'static str, kwargs: &'static str) -> Snippet {
    Snippet { name, source, function, kwargs: kwargs.to_string() }
}

/// Semantics that interpreters commonly get wrong; the expected outcome of each is whatever CPython does.
fn adversarial_snippets() -> Vec<Snippet> {
    vec![
        snippet(
            "floor division and modulo of negatives",
            "def floor_table(a: int, b: int) -> List[int]:\n    return [a // b, a % b, -a // b, -a % b, a // -b, a % -b, -a // -b, -a % -b]\n",
            "floor_table",
            json!({"a": 7, "b": 2}),
        ),
        snippet(
            "minus seven floor-divided by two",
            "def halve(x: int) -> int:\n    return x // 2\n",
            "halve",
            json!({"x": -7}),
        ),
        snippet(
            "minus seven modulo three",
            "def residue(x: int) -> int:\n    return x % 3\n",
            "residue",
            json!({"x": -7}),
        ),
        snippet(
            "modulo by a negative divisor without divmod",
            "def residues(xs: List[int]) -> List[int]:\n    out = []\n    for x in xs:\n        out.append(x % -4)\n        out.append(x // -4)\n    return out\n",
            "residues",
            json!({"xs": [-9, -4, -1, 0, 1, 4, 9]}),
        ),
        snippet(
            "big integers past two to the sixty-fourth",
            "def big(n: int) -> List[int]:\n    p = 2 ** 64 + n\n    q = (-3) ** 41\n    return [p, p * p, q, q // 7, q % 1000003, -(2 ** 70) // 3, (2 ** 65) % -7, p - 2 ** 64]\n",
            "big",
            json!({"n": 5}),
        ),
        snippet(
            "running product overflowing sixty-four bits",
            "def product(xs: List[int]) -> int:\n    y = 1\n    for x in xs:\n        y *= x\n    return y\n",
            "product",
            json!({"xs": [-99, 98, -97, 96, -95, 94, -93, 92, -91, 90]}),
        ),
        snippet(
            "slice assignment with steps and negative bounds",
            "def splice(xs: List[int]) -> List[int]:\n    a = xs[:]\n    a[1:3] = [70, 71, 72]\n    a[::-2] = a[::-2][::-1]\n    b = a[5:1:-2] + a[-3:] + a[:-8:-3]\n    return a + [0] + b\n",
            "splice",
            json!({"xs": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}),
        ),
        snippet(
            "extended slice assignment of the wrong length raises",
            "def bad_splice(xs: List[int]) -> List[int]:\n    xs[::2] = [1]\n    return xs\n",
            "bad_splice",
            json!({"xs": [1, 2, 3, 4, 5]}),
        ),
        snippet(
            "list aliasing through assignment",
            "def alias(b: List[int]) -> List[int]:\n    a = b\n    a.append(1)\n    a += [2]\n    c = b[:]\n    c.append(3)\n    return b\n",
            "alias",
            json!({"b": [9]}),
        ),
        snippet(
            "repeated inner list is shared",
            "def grid(n: int) -> List[int]:\n    rows = [[0] * 2] * 2\n    rows[0][0] = n\n    return rows[0] + rows[1]\n",
            "grid",
            json!({"n": 5}),
        ),
        snippet(
            "closure reads the enclosing variable late",
            "def late(n: int) -> int:\n    k = 1\n\n    def scale(x):\n        return x * k\n\n    k = 10\n    return scale(n)\n",
            "late",
            json!({"n": 4}),
        ),
        snippet(
            "nested helper mutates a list passed by reference",
            "def reverse_front(xs: List[int], k: int) -> List[int]:\n    def flip(arr, j):\n        i = 0\n        while i < j:\n            arr[i], arr[j] = arr[j], arr[i]\n            i += 1\n            j -= 1\n\n    flip(xs, k)\n    return xs\n",
            "reverse_front",
            json!({"xs": [1, 2, 3, 4, 5], "k": 3}),
        ),
        snippet(
            "sorted with a key is stable, also in reverse",
            "def by_size(xs: List[int]) -> List[int]:\n    return sorted(xs, key=abs) + sorted(xs, key=abs, reverse=True)\n",
            "by_size",
            json!({"xs": [3, -3, 2, -2, 1, -1, 0]}),
        ),
        snippet(
            "sorting tuples compares lexicographically",
            "def pairs(xs: List[int]) -> List[int]:\n    ps = sorted(zip([x % 3 for x in xs], xs), reverse=True)\n    return [b for (a, b) in ps]\n",
            "pairs",
            json!({"xs": [5, -4, 3, 9, -2, 0, 7]}),
        ),
        snippet(
            "max of an empty list raises",
            "def top(xs: List[int]) -> int:\n    return max(xs)\n",
            "top",
            json!({"xs": []}),
        ),
        snippet(
            "min of an empty generator raises",
            "def low(xs: List[int]) -> int:\n    return min(x for x in xs if x > 100)\n",
            "low",
            json!({"xs": [1, 2]}),
        ),
        snippet(
            "booleans add as integers",
            "def truthy(n: int) -> int:\n    total = True + True\n    total += n > 3 and n < 10\n    total += (n == 5) * 7\n    return total + sum([True, False, True])\n",
            "truthy",
            json!({"n": 5}),
        ),
        snippet(
            "a comparison result stays a bool",
            "def is_big(n: int) -> int:\n    return n > 3\n",
            "is_big",
            json!({"n": 5}),
        ),
        snippet(
            "and/or return operands",
            "def pick(xs: List[int], n: int) -> List[int]:\n    return [n and 7, n or 8, 0 or n, [] or 9, xs and n, (n > 0) or 3]\n",
            "pick",
            json!({"xs": [], "n": 0}),
        ),
        snippet(
            "out-of-range negative index raises",
            "def far_back(xs: List[int]) -> int:\n    return xs[-11]\n",
            "far_back",
            json!({"xs": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}),
        ),
        snippet(
            "negative index inside range reads from the end",
            "def back(xs: List[int]) -> int:\n    xs[-1] += 5\n    return xs[-1] * 100 + xs[-10]\n",
            "back",
            json!({"xs": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}),
        ),
        snippet(
            "missing dict key raises",
            "def lookup(xs: List[int]) -> int:\n    d = {}\n    for x in xs:\n        d[x] = d.get(x, 0) + 1\n    return d[100]\n",
            "lookup",
            json!({"xs": [1, 2, 2]}),
        ),
        snippet(
            "modulo by zero raises",
            "def mod_zero(xs: List[int]) -> int:\n    total = 0\n    for x in xs:\n        total += 10 % x\n    return total\n",
            "mod_zero",
            json!({"xs": [3, 0]}),
        ),
        snippet(
            "floor division by zero raises",
            "def div_zero(n: int) -> int:\n    return n // (n - n)\n",
            "div_zero",
            json!({"n": 7}),
        ),
        snippet(
            "swap through subscripts evaluates targets left to right",
            "def swap(xs: List[int]) -> List[int]:\n    i = 0\n    xs[i], xs[xs[i]] = xs[xs[i]], xs[i]\n    return xs\n",
            "swap",
            json!({"xs": [1, 0, 5]}),
        ),
        snippet(
            "chained comparisons and bitwise operators",
            "def bits(n: int) -> List[int]:\n    return [~n, n >> 2, n << 3, -n >> 1, 1 < n <= 9, 0 < n > 100, ~-1]\n",
            "bits",
            json!({"n": -13}),
        ),
        snippet(
            "walrus inside a condition and nested tuple targets",
            "def walrus(xs: List[int]) -> int:\n    seen = {x: i for (i, x) in enumerate(xs, 1)}\n    total = 0\n    for (k, (a, _)) in enumerate(zip(xs, xs[1:])):\n        if (j := seen.get(a + 1, 0)) > 0:\n            total += j * k\n    return total\n",
            "walrus",
            json!({"xs": [3, 4, 1, 2, 5, 6]}),
        ),
        snippet(
            "strings of negative numbers convert back",
            "def digits(n: int) -> int:\n    s = list(str(n))\n    s[-1] = '9'\n    return int(''.join(s)) + int('-0042') + len(str(-n))\n",
            "digits",
            json!({"n": -120}),
        ),
        snippet(
            "int of a bad string raises",
            "def parse(n: int) -> int:\n    return int(str(n) + '-')\n",
            "parse",
            json!({"n": 5}),
        ),
        snippet(
            "pop from an empty list raises",
            "def drain(xs: List[int]) -> int:\n    total = 0\n    while True:\n        total += xs.pop()\n    return total\n",
            "drain",
            json!({"xs": [1, 2]}),
        ),
        snippet(
            "adding a list and an int raises",
            "def mixed(xs: List[int]) -> List[int]:\n    return xs + 1\n",
            "mixed",
            json!({"xs": [1]}),
        ),
        snippet(
            "range with a negative step and list repetition by a negative count",
            "def ranges(n: int) -> List[int]:\n    return list(range(n, -n, -3)) + [7] * -2 + list(range(5, 1)) + [len(range(0, n, 4))]\n",
            "ranges",
            json!({"n": 10}),
        ),
        snippet(
            "sixty-four-bit edges do not overflow",
            "def edges(n: int) -> List[int]:\n    return [abs(n), -n, n // -1, n % -1, n * -1, n - 1, ~n, (n + 1) * 2 ** 63]\n",
            "edges",
            json!({"n": i64::MIN}),
        ),
        snippet(
            "big negative floor division and shifts",
            "def big_ops(n: int) -> List[int]:\n    a = -(3 ** 80)\n    b = 3 ** 40 + n\n    return [a // b, a % b, a // -b, a >> 5, a >> 200, 1 << 100, -n << 63]\n",
            "big_ops",
            json!({"n": 7}),
        ),
        snippet(
            "a generator is consumed once",
            "def twice(xs: List[int]) -> List[int]:\n    g = (x for x in xs)\n    z = zip(xs, xs)\n    return [sum(g), sum(g), len(list(z)), len(list(z))]\n",
            "twice",
            json!({"xs": [1, 2, 3]}),
        ),
        snippet(
            "appending while iterating extends the loop",
            "def grow(xs: List[int]) -> List[int]:\n    count = 0\n    for x in xs:\n        count += 1\n        if x > 0:\n            xs.append(-x)\n    return [count] + xs\n",
            "grow",
            json!({"xs": [1, 2]}),
        ),
        snippet(
            "a local may shadow a builtin",
            "def total(xs: List[int]) -> int:\n    sum = 0\n    for x in xs:\n        sum += x\n    return sum\n",
            "total",
            json!({"xs": [4, 5]}),
        ),
        snippet(
            "reading a local before assignment raises",
            "def unbound(n: int) -> int:\n    if n > 0:\n        y = 1\n    return y\n",
            "unbound",
            json!({"n": 0}),
        ),
        snippet(
            "closures made in a loop see the last value",
            "def makers(n: int) -> List[int]:\n    fs = []\n    for i in range(n):\n        def g():\n            return i\n        fs.append(g)\n    return [h() for h in fs]\n",
            "makers",
            json!({"n": 3}),
        ),
        snippet(
            "comprehension variables stay inside, walrus targets leak out",
            "def scopes(xs: List[int]) -> int:\n    x = 5\n    ys = [(last := x * 2) for x in xs]\n    return x * 1000 + last + len(ys)\n",
            "scopes",
            json!({"xs": [1, 2, 9]}),
        ),
        snippet(
            "set iteration follows CPython's hash table",
            "def spread(xs: List[int]) -> List[int]:\n    s = set()\n    for x in xs:\n        s.add(x)\n    return list(s)\n",
            "spread",
            json!({"xs": [-1, -2, 7, 33, -9, 15, 200, -200, 31, 63, 95, 8, 40, 72]}),
        ),
        snippet(
            "bitwise operators between bools stay bools",
            "def bits(n: int) -> List[int]:\n    b = n > 0\n    return [b & True, b | False, b ^ True, b & 3, 2 | b]\n",
            "bits",
            json!({"n": 4}),
        ),
        snippet_raw(
            "integer arguments past sixty-four bits stay exact",
            "def shift(n: int, xs: List[int]) -> List[int]:\n    return [n - 1, n // 3, xs[0] + 1, xs[1] * xs[1]]\n",
            "shift",
            r#"{"n": 100000000000000000000, "xs": [-9223372036854775809, 18446744073709551616]}"#,
        ),
        snippet(
            "sets built from dicts and sets follow CPython's table sizing",
            "def rebuild(xs: List[int], ys: List[int]) -> List[int]:\n    a = set()\n    for x in xs:\n        a.add(x)\n    a.discard(xs[0])\n    b = set(ys)\n    c = set(a)\n    c |= b\n    return list(set({x: 1 for x in xs})) + list(set(a)) + list(a | b) + list(b.union({y: 0 for y in xs})) + list(c)\n",
            "rebuild",
            json!({"xs": [27, -67, 9, -24, 11, 76, 1, 33, 17, 49, 2], "ys": [3, 19, 35, 64, -64]}),
        ),
        snippet(
            "set displays of constants iterate like CPython's folded frozenset",
            "def shown(n: int) -> List[int]:\n    a = list({5, 3, 1000, -1, 17, -2, 64, 8, 9, 33})\n    b = list({-1, -2, 7})\n    c = list({-5, -13, -21, 3, 11, 2 ** 10, 1 << 3})\n    d = list({n, 1, 9, 17, 25, 33})\n    return a + b + c + d\n",
            "shown",
            json!({"n": 40}),
        ),
        snippet(
            "sets of floats follow CPython's float hash",
            "def floats(xs: List[float]) -> List[float]:\n    s = set()\n    for x in xs:\n        s.add(x)\n    return list(s) + list({1.5, 0.25, -2.5, 3.0, 1e-5})\n",
            "floats",
            json!({"xs": [0.1, -7.25, 1e-300, 2.5, 3.0, 123456.789, -0.5, 1e300, 5e-324]}),
        ),
        snippet(
            "set algebra, pop and reinsertion follow CPython's tables",
            "def algebra(xs: List[int], ys: List[int]) -> List[int]:\n    a = set(xs)\n    b = set(ys)\n    out = list(a & b) + list(b & a) + list(a - b) + list(b - a) + list(a ^ b) + list(a.intersection(ys)) + list(a.difference(ys[:2], {y: 0 for y in ys}))\n    c = set(xs)\n    c -= b\n    c ^= set(ys[1:])\n    while len(c) > 2:\n        out.append(c.pop())\n        c.discard(out[-1] + 8)\n        c.add(out[-1] * 3)\n        if len(out) > 60:\n            break\n    return out + list(c)\n",
            "algebra",
            json!({"xs": [24, 306, -639, 66, -158, 1, 9, 17, 25, 33, 2, 10, 64, 128], "ys": [9, 2, 41, 49, 57, 66, -158, 3, 11]}),
        ),
        snippet(
            "max and min return the first extreme element",
            "def extremes(xs: List[int]) -> List[int]:\n    return [max([True, 1]), max([1, True]), max(xs, key=abs), min(xs, key=abs)]\n",
            "extremes",
            json!({"xs": [2, -3, 3, -2]}),
        ),
        snippet(
            "assigning a list to its own reversed slice",
            "def mirror(xs: List[int]) -> List[int]:\n    xs[::-1] = xs\n    xs[1:1] = [7, 8]\n    return xs\n",
            "mirror",
            json!({"xs": [1, 2, 3, 4]}),
        ),
        snippet(
            "a default argument is evaluated once",
            "def counter(n: int) -> int:\n    def g(x, acc=[]):\n        acc.append(x)\n        return len(acc)\n    g(1)\n    g(2)\n    return g(n)\n",
            "counter",
            json!({"n": 3}),
        ),
        snippet(
            "digits rewritten through a list of characters",
            "def lower_digits(n: int) -> int:\n    s = list(str(n))\n    i = len(s) - 1\n    while i > 0:\n        if s[i - 1] > s[i]:\n            s[i - 1] = str(int(s[i - 1]) - 1)\n            for j in range(i, len(s)):\n                s[j] = '9'\n        i -= 1\n    return int(''.join(s))\n",
            "lower_digits",
            json!({"n": -332}),
        ),
        snippet(
            "deep recursion hits the recursion limit",
            "def depth(n: int) -> int:\n    def down(k):\n        if k == 0:\n            return 0\n        return 1 + down(k - 1)\n\n    return down(n)\n",
            "depth",
            json!({"n": 100000}),
        ),
        snippet(
            "an endless loop runs out of budget",
            "def spin(n: int) -> int:\n    while True:\n        n += 1\n    return n\n",
            "spin",
            json!({"n": 0}),
        ),
    ]
}

#[test]
fn adversarial_snippets_agree_with_cpython() {
    let snippets = adversarial_snippets();
    let lines: Vec<String> = snippets
        .iter()
        .map(|s| {
            let head = json!({"name": s.name, "source": s.source, "function": s.function}).to_string();
            format!("{}, \"kwargs\": {}}}", head.trim_end_matches('}'), s.kwargs)
        })
        .collect();
    let path: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python_adversarial_cases.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("the cargo target tmpdir is writable");
    let path_text = path.to_string_lossy().into_owned();
    let (ok, output) = run_conformance(&["--no-pool", "--extra-cases", &path_text, "--show", "1"]);
    assert!(ok, "adversarial snippets disagree with CPython:\n{output}");
    let expected = format!("{} passed, 0 failed", snippets.len());
    assert_eq!(summary_line(&output), expected, "full output:\n{output}");
}
