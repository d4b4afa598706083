#!/usr/bin/env python3
"""CPython conformance harness for ArbiGraph's Python-subset interpreter.

For every pool function (data/python/*.py) it generates seeded argument sets, runs the function in CPython
(in a child process, with a per-call time limit and a memory cap), runs the same cases through
`arbigraph trace --batch`, and compares the outcomes.

Agreement means: equal results (bool and int kept apart, tuples read as lists), or both raised the same
exception class.  An interpreter budget error (StepBudgetExceeded, MemoryExceeded, RecursionError) is accepted
only where CPython ran over the time limit, ran out of memory, or raised RecursionError itself.

Modes:
  --arbigraph PATH     compare against the interpreter binary (default mode)
  --self-test          compare against a CPython stand-in for `trace --batch` (checks the harness itself)
  --pool-stats         print per-function degenerate/exception rates and timings on the generator's inputs
  --extra-cases FILE   also compare hand-written cases (JSON lines {"source", "function", "kwargs"})
  --no-pool            skip the pool (useful with --extra-cases or --fuzz)
  --fuzz N             also compare N seeded random one-expression functions (operators, 64-bit edges, big ints)

Standard library only; python3.11.
"""

import argparse
import ast
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import time

SEED = 20261201
BUDGET_ERRORS = {"StepBudgetExceeded", "MemoryExceeded", "RecursionError"}
CPYTHON_BUDGET_OUTCOMES = {"timeout", "RecursionError", "MemoryError"}
CALL_SECONDS = 2.0
MEMORY_BYTES = 2 * 1024 ** 3
LIST_EDGES = ["empty", "single", "equal", "sorted", "reversed", "zeros", "big"]
INT_EDGES = [0, 1, -1]


# ---------------------------------------------------------------- pool loading

def annotation_kind(node):
    """'list' for List[...]/list[...], 'int' otherwise (the spec's §4.2 rule)."""
    if isinstance(node, ast.Subscript):
        base = node.value
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
        if name in ("List", "list"):
            return "list"
    return "int"


def load_function(path):
    """Reads one pool file: its text, function name, (param, kind) list, return kind and header labels."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    tree = ast.parse(text)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(defs) != 1:
        raise ValueError(f"{path}: expected exactly one top-level def, found {len(defs)}")
    fn = defs[0]
    params = [(a.arg, annotation_kind(a.annotation)) for a in fn.args.args]
    labels = {}
    for line in text.splitlines()[:2]:
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            labels[key.strip()] = value.strip()
    return {
        "file": os.path.basename(path),
        "source": text,
        "function": fn.name,
        "params": params,
        "returns": annotation_kind(fn.returns),
        "difficulty": labels.get("difficulty", "?"),
        "topic": labels.get("topic", "?"),
    }


def load_pool(directory):
    names = sorted(n for n in os.listdir(directory) if n.endswith(".py"))
    return [load_function(os.path.join(directory, n)) for n in names]


def signature(entry):
    kinds = [k for _, k in entry["params"]]
    has_list = "list" in kinds
    has_int = "int" in kinds
    left = "list+int" if has_list and has_int else ("list" if has_list else "int")
    return f"{left}->{entry['returns']}"


# ---------------------------------------------------------------- argument generation

def edge_list(rng, kind):
    if kind == "empty":
        return []
    if kind == "single":
        return [rng.randint(-100, 100)]
    if kind == "equal":
        return [rng.randint(-100, 100)] * rng.randint(2, 10)
    if kind == "sorted":
        return sorted(rng.randint(-100, 100) for _ in range(10))
    if kind == "reversed":
        return sorted((rng.randint(-100, 100) for _ in range(10)), reverse=True)
    if kind == "zeros":
        return [0] * rng.randint(1, 10)
    if kind == "big":
        return [rng.choice([1, -1]) * rng.randint(0, 10 ** 12) for _ in range(rng.randint(1, 10))]
    raise ValueError(kind)


def random_list(rng):
    roll = rng.random()
    if roll < 0.80:
        return [rng.randint(-100, 100) for _ in range(10)]
    if roll < 0.90:
        return [rng.randint(-100, 100) for _ in range(rng.randint(2, 12))]
    return edge_list(rng, rng.choice(LIST_EDGES))


def random_int(rng):
    if rng.random() < 0.9:
        return rng.randint(-100, 100)
    return rng.choice(INT_EDGES)


def conformance_kwargs(entry, count):
    """Deterministic argument sets: first one sweep of edge cases, then mostly uniform draws."""
    rng = random.Random(f"{SEED}:{entry['file']}")
    cases = []
    for i in range(count):
        kwargs = {}
        for name, kind in entry["params"]:
            if i < len(LIST_EDGES):
                if kind == "list":
                    kwargs[name] = edge_list(rng, LIST_EDGES[i])
                else:
                    kwargs[name] = INT_EDGES[i % len(INT_EDGES)]
            else:
                kwargs[name] = random_list(rng) if kind == "list" else random_int(rng)
        cases.append(kwargs)
    return cases


def pool_kwargs(entry, rng):
    """Inputs as the task generator produces them: chained values in [-99, 99], statics in [-100, 100]."""
    kwargs = {}
    chained = None
    kinds = [k for _, k in entry["params"]]
    chained_kind = "list" if "list" in kinds else "int"
    for name, kind in entry["params"]:
        if chained is None and kind == chained_kind:
            chained = name
            bound = 99
        else:
            bound = 100
        kwargs[name] = [rng.randint(-bound, bound) for _ in range(10)] if kind == "list" else rng.randint(-bound, bound)
    return kwargs


# ---------------------------------------------------------------- CPython execution

class CallTimeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise CallTimeout()


def normalise(value):
    """CPython value -> JSON value: tuples and lists to lists, sets sorted, dict keys as strings."""
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(normalise(v) for v in value)
    if isinstance(value, dict):
        return {str(k): normalise(v) for k, v in value.items()}
    return value


def compile_cases(cases):
    """One namespace per distinct source; List/Tuple available unimported as in the reference's pool."""
    import typing
    spaces = {}
    for case in cases:
        src = case["source"]
        if src not in spaces:
            namespace = {"List": typing.List, "Tuple": typing.Tuple, "__name__": "pool"}
            try:
                exec(compile(src, "<pool>", "exec"), namespace)
            except Exception as exc:  # a broken snippet: every call reports the class
                namespace = {"__compile_error__": type(exc).__name__}
            spaces[src] = namespace
    return spaces


def run_one(spaces, case, seconds):
    """Runs one case; returns an outcome dict: {"result"}, {"error": class} or {"timeout": true}."""
    import signal
    namespace = spaces[case["source"]]
    if "__compile_error__" in namespace:
        return {"error": namespace["__compile_error__"]}
    fn = namespace.get(case["function"])
    if fn is None:
        return {"error": "NameError"}
    kwargs = copy.deepcopy(case["kwargs"])
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        result = fn(**kwargs)
        signal.setitimer(signal.ITIMER_REAL, 0)
        json.dumps(normalise(result))
        return {"result": normalise(result)}
    except CallTimeout:
        return {"timeout": True}
    except MemoryError:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return {"error": "MemoryError"}
    except Exception as exc:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return {"error": type(exc).__name__}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def worker_main(seconds):
    """Child process: reads the cases file named on stdin's first line, prints one outcome per case."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    except (ImportError, ValueError, OSError):
        pass
    sys.setrecursionlimit(1000)
    path, start = sys.stdin.readline().split("\t")
    with open(path.strip(), encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    spaces = compile_cases(cases)
    for case in cases[int(start):]:
        print(json.dumps(run_one(spaces, case, seconds)), flush=True)


def cpython_outcomes(cases_path, total, seconds):
    """Runs every case in a child CPython; a crashed child costs one case (recorded as timeout) and restarts."""
    outcomes = []
    while len(outcomes) < total:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--worker", "--call-seconds", str(seconds)],
            input=f"{cases_path}\t{len(outcomes)}\n", capture_output=True, text=True,
        )
        got = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        outcomes.extend(got)
        if len(outcomes) < total and proc.returncode != 0:
            outcomes.append({"timeout": True, "crash": proc.returncode})
        elif len(outcomes) < total and not got:
            raise RuntimeError(f"cpython worker produced nothing: {proc.stderr[-2000:]}")
    return outcomes


# ---------------------------------------------------------------- stand-in for `arbigraph trace --batch`

def fake_trace_main(batch_path):
    """CPython impersonating `arbigraph trace --batch`: same output format, budget error on timeout."""
    with open(batch_path, encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    spaces = compile_cases(cases)
    for case in cases:
        outcome = run_one(spaces, case, CALL_SECONDS)
        if "timeout" in outcome:
            print(json.dumps({"error": "StepBudgetExceeded: stand-in ran out of time"}))
        elif "error" in outcome:
            print(json.dumps({"error": f"{outcome['error']}: raised by the stand-in"}))
        else:
            print(json.dumps(outcome))
    return 0


# ---------------------------------------------------------------- random expression cases

FUZZ_INTS = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 99, -100, 2 ** 31, -(2 ** 31), 2 ** 62, 2 ** 63 - 1,
             -(2 ** 63), 2 ** 63, 2 ** 64 + 1, -(2 ** 64), 10 ** 20, -(10 ** 19)]
FUZZ_BIG_LITERALS = ["(2 ** 70)", "(-(10 ** 20))", "(2 ** 64 - 1)", "(-(2 ** 63))", "(3 ** 45)", "(2 ** 63)"]


def fuzz_expression(rng, depth):
    """A random integer/bool expression over a, b, c and xs (operators, builtins, slices, conditionals)."""
    if depth <= 0 or rng.random() < 0.2:
        roll = rng.random()
        if roll < 0.45:
            return rng.choice(["a", "b", "c"])
        if roll < 0.65:
            return str(rng.choice([0, 1, 2, 3, 5, 7, 10, 13, 64, 100]))
        if roll < 0.8:
            return rng.choice(FUZZ_BIG_LITERALS)
        if roll < 0.9:
            return rng.choice(["True", "False"])
        return f"xs[{rng.randint(-5, 4)}]"
    sub = lambda: fuzz_expression(rng, depth - 1)  # noqa: E731 (the harness, not the subset)
    k = rng.random()
    if k < 0.45:
        op = rng.choice(["+", "-", "*", "//", "%", "&", "|", "^", "<", "<=", "==", "!=", ">", ">=", "and", "or"])
        return f"({sub()} {op} {sub()})"
    if k < 0.52:
        return f"({sub()} ** {rng.randint(0, 4)})"
    if k < 0.6:
        return f"({sub()} {rng.choice(['<<', '>>'])} {rng.randint(0, 70)})"
    if k < 0.7:
        return f"({rng.choice(['-', '~', 'not ', '+'])}{sub()})"
    if k < 0.76:
        return f"({sub()} if {sub()} else {sub()})"
    if k < 0.82:
        return f"{rng.choice(['max', 'min'])}({sub()}, {sub()})"
    if k < 0.86:
        return f"abs({sub()})"
    if k < 0.9:
        return f"({sub()} < {sub()} <= {sub()})"
    if k < 0.94:
        i = rng.choice(["", str(rng.randint(-6, 6))])
        j = rng.choice(["", str(rng.randint(-6, 6))])
        step = rng.choice(["", "", str(rng.choice([-3, -2, -1, 1, 2, 3]))])
        return f"{rng.choice(['sum', 'len'])}(xs[{i}:{j}:{step}])"
    if k < 0.97:
        return f"sorted(xs, reverse={rng.choice(['True', 'False'])})[{rng.randint(-5, 4)}]"
    return f"int({sub()} > {sub()})"


def fuzz_cases(count):
    """Seeded one-expression functions with arguments drawn from 64-bit edges and beyond."""
    rng = random.Random(f"{SEED}:fuzz")
    cases = []
    for n in range(count):
        body = fuzz_expression(rng, rng.randint(1, 4))
        source = f"def fuzz(a: int, b: int, c: int, xs: List[int]) -> int:\n    return {body}\n"
        kwargs = {"a": rng.choice(FUZZ_INTS), "b": rng.choice(FUZZ_INTS), "c": rng.choice(FUZZ_INTS),
                  "xs": [rng.choice(FUZZ_INTS) for _ in range(5)]}
        cases.append((f"fuzz {n}: {body}", {"source": source, "function": "fuzz", "kwargs": kwargs}))
    return cases


# ---------------------------------------------------------------- comparison

def strict_equal(a, b):
    """Structural equality that keeps bool apart from int (True != 1 here)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if type(a) is not type(b) and not (isinstance(a, int) and isinstance(b, int)):
        return False
    return a == b


def agrees(expected, got):
    """expected: CPython outcome; got: one parsed line of `trace --batch`. Returns True when they agree."""
    if "error" in got:
        klass = str(got["error"]).split(":", 1)[0].strip()
        if "timeout" in expected or expected.get("error") in CPYTHON_BUDGET_OUTCOMES:
            return klass in BUDGET_ERRORS
        return "error" in expected and expected["error"] == klass
    if "result" in got:
        return "result" in expected and strict_equal(expected["result"], got["result"])
    return False


def describe(outcome):
    if "timeout" in outcome:
        return "timeout"
    if "error" in outcome:
        return f"error {outcome['error']}"
    if "result" in outcome:
        return f"result {json.dumps(outcome['result'])}"
    return json.dumps(outcome)


def run_trace(command, cases_path, total):
    try:
        proc = subprocess.run(command + ["trace", "--batch", cases_path], capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"could not run {' '.join(command)}: {exc}"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError:
            parsed.append({"unparsable": line})
    if proc.returncode == 101 or proc.returncode < 0:
        note = f"trace --batch crashed (exit {proc.returncode}) after {len(parsed)} of {total} lines; stderr: {proc.stderr[-1500:]}"
        return parsed, note
    if len(parsed) != total:
        note = f"trace --batch printed {len(parsed)} lines for {total} cases (exit {proc.returncode}); stderr: {proc.stderr[-1500:]}"
        return parsed, note
    return parsed, None


def write_cases(path, cases):
    with open(path, "w", encoding="utf-8") as fh:
        for case in cases:
            fh.write(json.dumps(case) + "\n")


def localise(command, labelled, tmp):
    """After a broken full run: one batch per group, and one process per case inside a group that still breaks.

    A case whose process prints nothing is recorded as {"crash": ...} so the report names it."""
    groups = []
    for label, case in labelled:
        if not groups or groups[-1][0] != label:
            groups.append((label, []))
        groups[-1][1].append(case)
    outcomes = []
    path = os.path.join(tmp, "part.jsonl")
    for label, cases in groups:
        write_cases(path, cases)
        got, problem = run_trace(command, path, len(cases))
        if not problem:
            outcomes.extend(got)
            continue
        if not got:
            # nothing at all came back (a missing subcommand, a crash at start-up): no point in going case by case
            outcomes.extend({"crash": problem} for _ in cases)
            continue
        for case in cases:
            write_cases(path, [case])
            one, problem = run_trace(command, path, 1)
            outcomes.append(one[0] if not problem else {"crash": problem})
    return outcomes, None


def gather_cases(args):
    """[(group label, case dict)] for the pool and the extra-cases file."""
    labelled = []
    if not args.no_pool:
        for entry in load_pool(args.functions_dir):
            for kwargs in conformance_kwargs(entry, args.cases):
                labelled.append((entry["file"], {"source": entry["source"], "function": entry["function"], "kwargs": kwargs}))
    if args.extra_cases:
        with open(args.extra_cases, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    case = json.loads(line)
                    label = case.get("name") or f"{os.path.basename(args.extra_cases)}:{n}"
                    labelled.append((label, {"source": case["source"], "function": case["function"], "kwargs": case["kwargs"]}))
    if args.fuzz:
        labelled.extend(fuzz_cases(args.fuzz))
    return labelled


def compare_main(args):
    labelled = gather_cases(args)
    if not labelled:
        print("no cases to run")
        return 1
    with tempfile.TemporaryDirectory(prefix="pyconf-") as tmp:
        cases_path = os.path.join(tmp, "cases.jsonl")
        write_cases(cases_path, [case for _, case in labelled])
        started = time.time()
        expected = cpython_outcomes(cases_path, len(labelled), args.call_seconds)
        cpython_secs = time.time() - started
        if args.self_test:
            command = [sys.executable, os.path.abspath(__file__), "--fake-trace"]
        else:
            command = [args.arbigraph]
        started = time.time()
        got, problem = run_trace(command, cases_path, len(labelled))
        if problem:
            print(f"PROBLEM: {problem}")
            print("re-running the cases in smaller batches to localise the problem")
            got, _ = localise(command, labelled, tmp)
        trace_secs = time.time() - started
    print(f"{len(labelled)} cases; cpython {cpython_secs:.1f}s, trace {trace_secs:.1f}s")
    got = list(got or [])
    got += [{"missing": True}] * (len(labelled) - len(got))

    failures = {}
    order = []
    passed = 0
    for (label, case), exp, out in zip(labelled, expected, got):
        if agrees(exp, out):
            passed += 1
            continue
        if label not in failures:
            failures[label] = []
            order.append(label)
        failures[label].append((case, exp, out))
    failed = len(labelled) - passed
    for label in order:
        items = failures[label]
        print(f"--- {label}: {len(items)} disagreement(s) (function {items[0][0]['function']})")
        for case, exp, out in items[: args.show]:
            print(f"    kwargs  {json.dumps(case['kwargs'])}")
            print(f"    cpython {describe(exp)}")
            print(f"    trace   {json.dumps(out)}")
    if problem:
        print(f"PROBLEM (the whole batch run broke; the counts below come from smaller batches): {problem}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and not problem else 1


# ---------------------------------------------------------------- pool statistics

FORBIDDEN_NODES = (ast.ClassDef, ast.Try, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Yield,
                   ast.YieldFrom, ast.Lambda, ast.JoinedStr, ast.Div, ast.AsyncFunctionDef, ast.With, ast.Raise,
                   ast.Delete, ast.Assert)


def lint(entry):
    """Problems with a pool file's format: header lines, one def, annotations, the §4.5 subset."""
    problems = []
    lines = entry["source"].splitlines()
    if len(lines) < 3 or not lines[0].startswith("# difficulty: ") or not lines[1].startswith("# topic: "):
        problems.append("header must be '# difficulty: ...' then '# topic: ...'")
    if entry["difficulty"] not in ("Easy", "Medium", "Hard"):
        problems.append(f"difficulty {entry['difficulty']!r}")
    tree = ast.parse(entry["source"])
    fn = [n for n in tree.body if isinstance(n, ast.FunctionDef)][0]
    if len(tree.body) != 1:
        problems.append("the file must hold exactly one top-level statement, the def")
    for arg in fn.args.args + [fn]:
        note = arg.annotation if isinstance(arg, ast.arg) else arg.returns
        text = ast.unparse(note) if note is not None else None
        if text not in ("List[int]", "int"):
            problems.append(f"annotation {text!r}")
    for node in ast.walk(tree):
        if isinstance(node, FORBIDDEN_NODES):
            problems.append(f"line {getattr(node, 'lineno', '?')}: {type(node).__name__} is outside the subset")
        if isinstance(node, ast.Constant) and not isinstance(node.value, int):
            problems.append(f"line {node.lineno}: constant {node.value!r} is not an int")
        if isinstance(node, ast.Name) and node.id in ("print", "input", "open", "eval", "exec"):
            problems.append(f"line {node.lineno}: {node.id}")
    for n, line in enumerate(lines, 1):
        indent = len(line) - len(line.lstrip(" "))
        if "\t" in line or indent % 4:
            problems.append(f"line {n}: indentation is not a multiple of 4 spaces")
    return problems


def degenerate(value):
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value in (0, 1, -1)
    if isinstance(value, (list, tuple)):
        return len(value) == 0 or len(set(value)) == 1
    return True


def stats_main(args):
    import typing
    pool = load_pool(args.functions_dir)
    rng = random.Random(SEED)
    print(f"{'file':40} {'sig':16} {'topic':20} {'diff':6} {'degen':>6} {'err':>6} {'uniq':>5} {'p95_us':>7}")
    problems = 0
    for entry in pool:
        namespace = {"List": typing.List}
        exec(compile(entry["source"], entry["file"], "exec"), namespace)
        fn = namespace[entry["function"]]
        degen = errors = 0
        seen = set()
        times = []
        error_kinds = {}
        for _ in range(args.cases):
            kwargs = pool_kwargs(entry, rng)
            t0 = time.perf_counter()
            try:
                out = fn(**kwargs)
            except Exception as exc:
                errors += 1
                error_kinds[type(exc).__name__] = error_kinds.get(type(exc).__name__, 0) + 1
                continue
            finally:
                times.append(time.perf_counter() - t0)
            if degenerate(out):
                degen += 1
            seen.add(json.dumps(normalise(out)))
        n = args.cases
        times.sort()
        worst = times[int(0.95 * (len(times) - 1))] if times else 0.0
        problems_here = lint(entry)
        flag = "  <-- " + "; ".join(problems_here) if problems_here else ""
        if degen > 0.15 * n or errors > 0.1 * n or len(seen) < 10 or worst > 0.001:
            flag += "  <-- check"
        if flag:
            problems += 1
        extra = f" {error_kinds}" if error_kinds else ""
        print(f"{entry['file']:40} {signature(entry):16} {entry['topic']:20} {entry['difficulty']:6} "
              f"{degen / n:6.1%} {errors / n:6.1%} {len(seen):5} {worst * 1e6:7.0f}{flag}{extra}")
    counts = {}
    for key in ("signature", "topic", "difficulty"):
        tally = {}
        for entry in pool:
            value = signature(entry) if key == "signature" else entry[key]
            tally[value] = tally.get(value, 0) + 1
        counts[key] = tally
        print(f"{key}: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    print(f"{len(pool)} functions, {problems} flagged")
    return 0


# ---------------------------------------------------------------- entry point

def main(argv):
    if argv[:1] == ["--fake-trace"]:
        # invoked as: --fake-trace trace --batch FILE
        return fake_trace_main(argv[-1])
    parser = argparse.ArgumentParser(description="Compare arbigraph's Python interpreter with CPython.")
    parser.add_argument("--arbigraph", help="path to the arbigraph binary")
    parser.add_argument("--functions-dir", default="data/python")
    parser.add_argument("--cases", type=int, default=200, help="argument sets per pool function")
    parser.add_argument("--extra-cases", help="JSON lines of extra {source, function, kwargs} cases")
    parser.add_argument("--no-pool", action="store_true", help="run only the extra cases")
    parser.add_argument("--fuzz", type=int, default=0, help="also compare N seeded random expressions")
    parser.add_argument("--self-test", action="store_true", help="use a CPython stand-in for trace --batch")
    parser.add_argument("--pool-stats", action="store_true", help="report degenerate/error rates and timings")
    parser.add_argument("--show", type=int, default=3, help="failing cases shown per function")
    parser.add_argument("--call-seconds", type=float, default=CALL_SECONDS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.call_seconds)
        return 0
    if args.pool_stats:
        return stats_main(args)
    if not args.self_test and not args.arbigraph:
        parser.error("give --arbigraph PATH or --self-test")
    return compare_main(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
