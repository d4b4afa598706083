"""The Inspect task against `arbigraph probe-server`, through Inspect's OpenAI-compatible provider: the log's
accuracy equals what the engine's own driver (`arbigraph eval`) gets from the same probe, sample for sample."""

import json
import os
import socket
import subprocess
import sysconfig

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from conftest import binary, cli


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inspect")
    flags = ["--family", "math", "--samples-per-target", "1", "--seed", "0", "--target", "math.ConvolutionTask", "--target", "math.PolyQuotientTask", "--target", "math.PermutationInversionsTask"]
    cli("generate", "--topology", "baseline", *flags, "-o", str(folder / "baseline.json"))
    cli("generate", "--topology", "chain", *flags, "-o", str(folder / "chain.json"))
    return folder


def start_probe(folder, *extra):
    port = free_port()
    server = subprocess.Popen([str(binary()), "probe-server", "--dataset", str(folder / "baseline.json"), "--dataset", str(folder / "chain.json"), "--port", str(port), *extra],
                              stderr=subprocess.PIPE, text=True)
    # It prints its address once it listens.
    line = server.stderr.readline()
    assert "listening" in line, line
    return server, f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def probe(datasets):
    server, url = start_probe(datasets)
    yield url
    server.kill()
    server.wait()


@pytest.fixture(scope="module")
def forgetful_probe(datasets):
    server, url = start_probe(datasets, "--noise", "2")
    yield url
    server.kill()
    server.wait()


def run_inspect(dataset, url, log_dir, strategy=None, service="probe"):
    # Inspect keeps one client per model name in a process: each probe is its own service.
    os.environ[f"{service.upper()}_BASE_URL"] = url
    os.environ[f"{service.upper()}_API_KEY"] = "none"
    args = {"dataset": str(dataset)}
    if strategy:
        args["strategy"] = strategy
    [log] = inspect_eval("arbigraph/arbigraph", task_args=args, model=f"openai-api/{service}/probe", log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return read_eval_log(log.location)


def run_engine(dataset, url, out, strategy="full"):
    cli("eval", "--dataset", str(dataset), "--base-url", url, "--model", "probe", "--strategy", strategy, "-o", str(out))
    return json.loads(out.read_text())


def metrics(log):
    return {score.name: {name: m.value for name, m in score.metrics.items()} for score in log.results.scores}


@pytest.mark.parametrize("topology", ["baseline", "chain"])
def test_the_task_scores_the_probes_expected_accuracy(datasets, probe, tmp_path, topology):
    dataset = datasets / f"{topology}.json"
    log = run_inspect(dataset, probe, tmp_path / "logs")
    engine = run_engine(dataset, probe, tmp_path / "engine.json")
    expected = engine["summary"]["overall_accuracy"]
    assert expected == 1.0, "the probe is a perfect solver when it sees everything"
    found = metrics(log)
    assert found["correct"]["accuracy"] == expected
    assert found["nodes"]["mean"] == 1.0
    assert 0.0 < found["correct"]["arbigraph/wilson_lower"] < 1.0 and found["correct"]["arbigraph/wilson_upper"] == 1.0
    assert len(log.samples) == len(engine["samples"]) == 3
    for sample in log.samples:
        record = sample.store["arbigraph:result"]
        assert record["agent_status"] == "success"
        assert sample.scores["arbigraph_scorer"].metadata["node_status"] == engine["samples"][sample.metadata["index"]]["node_status"]
        # The engine's calculator answered every call the probe made.
        assert any(m.role == "tool" and m.text.startswith('{"results"') for m in sample.messages)


def test_a_strategy_that_loses_values_scores_what_the_engines_driver_scores(datasets, forgetful_probe, tmp_path):
    dataset = datasets / "chain.json"
    log = run_inspect(dataset, forgetful_probe, tmp_path / "logs", strategy="window:exchanges=1", service="forgetful")
    engine = run_engine(dataset, forgetful_probe, tmp_path / "engine.json", strategy="window:exchanges=1")
    assert engine["summary"]["overall_accuracy"] < 1.0, "a one-exchange window should lose the chain's values"
    assert metrics(log)["correct"]["accuracy"] == engine["summary"]["overall_accuracy"]
    for sample in log.samples:
        mine = sample.store["arbigraph:result"]
        theirs = engine["samples"][sample.metadata["index"]]
        assert (mine["correct"], mine["node_status"], mine["turn_outputs"]) == (theirs["correct"], theirs["node_status"], theirs["turn_outputs"])
    # The log Inspect just wrote, imported: our grader on its transcripts gives the log's own scores.
    imported = tmp_path / "imported.json"
    cli("import-inspect", log.location, "--dataset", str(dataset), "-o", str(imported))
    results = json.loads(imported.read_text())
    assert len(results["samples"]) == len(log.samples)
    for sample in log.samples:
        ours = results["samples"][sample.metadata["index"]]
        assert ours["correct"] == sample.scores["arbigraph_scorer"].value["correct"]
        assert ours["node_status"] == sample.store["arbigraph:result"]["node_status"]


def test_the_task_is_found_through_the_entry_point():
    from inspect_ai._util.registry import registry_find  # noqa: PLC0415

    from inspect_ai._util.entrypoints import ensure_entry_points  # noqa: PLC0415

    ensure_entry_points("arbigraph")
    assert registry_find(lambda info: info.type == "task" and info.name == "arbigraph/arbigraph")


def test_the_inspect_command_line_runs_the_task_as_documented(datasets, probe, tmp_path):
    inspect = os.path.join(sysconfig.get_path("scripts"), "inspect")
    env = {**os.environ, "CLIPROBE_BASE_URL": probe, "CLIPROBE_API_KEY": "none"}
    done = subprocess.run(
        [inspect, "eval", "arbigraph/arbigraph", "-T", f"dataset={datasets / 'baseline.json'}", "--model", "openai-api/cliprobe/probe",
         "--log-dir", str(tmp_path), "--log-format", "json", "--display", "none"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = list(tmp_path.glob("*.json"))
    log = read_eval_log(str(path))
    assert log.eval.task_registry_name == "arbigraph/arbigraph"
    assert metrics(log)["correct"]["accuracy"] == 1.0
    assert [s.id for s in log.samples] == [1, 2, 3]
