"""Grading matches the engine on the reference's stored trajectories; files, the calculator and the loop settings."""

import json

import pytest

import arbigraph
from conftest import REFERENCE, cli

RESULTS = sorted(REFERENCE.glob("results_*.sample.json"))


def turns_of(sample):
    outputs = sample["turn_outputs"]
    return [outputs[k] for k in sorted(outputs, key=int)]


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_grading_the_stored_turns_reproduces_every_stored_verdict_and_answer_set(path):
    results = json.loads(path.read_text())
    assert results["samples"], path
    for index, sample in enumerate(results["samples"]):
        graded = arbigraph.grade(sample, turns_of(sample), index=index)
        assert graded["correct"] == sample["correct"], (path.name, index)
        assert graded["answers"] == sample["task_answers"], (path.name, index)
        assert set(graded["node_status"]) >= {graded["target"]}


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_grade_results_agrees_with_arbigraph_grade_replay(path):
    per_sample = [json.loads(line) for line in cli("grade", str(path), "--replay", "--per-sample").stdout.splitlines()]
    graded = arbigraph.grade_results(path, replay=True)
    assert len(graded) == len(per_sample) > 0
    for line in per_sample:
        assert graded[line["index"]]["correct"] == line["correct"]


def test_per_node_grading_finds_where_the_chain_broke():
    sample = json.loads((REFERENCE / "math_chain.sample.json").read_text())["samples"][0]
    truths = {f"task_{s['task_number']}_out": s["ground_truth"] for s in sample["chain"]["distractors"] + [sample["chain"]["target"]]}
    assert len(truths) >= 3
    names = sorted(truths, key=lambda n: int(n.split("_")[1]))
    boxes = [f"\\boxed{{{name} = {json.dumps(truths[name])}}}" for name in names]
    boxes[1] = f"\\boxed{{{names[1]} = 123456789}}"
    graded = arbigraph.grade(sample, "\n".join(boxes))
    assert graded["node_status"][names[0]] == "correct"
    assert graded["node_status"][names[1]] == "wrong"
    assert graded["first_breaks"] == [names[1]]
    # The target is graded on its own box: still correct although an earlier node was wrong.
    assert graded["correct"] is True
    # One text or several turns: the last box per name wins.
    assert arbigraph.grade(sample, ["\n".join(boxes), f"\\boxed{{{names[1]} = {json.dumps(truths[names[1]])}}}"])["first_breaks"] == []


def test_lenient_verdicts_are_reported_apart():
    sample = {"prompt": "Give \\boxed{task_1_out = ...}", "ground_truth": 1024}
    strict = arbigraph.grade(sample, "\\boxed{task_1_out = 2^{10}}")
    assert (strict["correct"], strict["lenient"]) == (False, True)
    assert arbigraph.grade(sample, "no box")["node_status"] == {"task_1_out": "missing"}


def test_a_sample_without_a_truth_cannot_be_graded():
    with pytest.raises(arbigraph.GradeError, match="sample 4 has no `ground_truth`"):
        arbigraph.grade({"prompt": "x"}, "", index=4)


def test_datasets_round_trip_through_the_engines_pretty_printing(tmp_path):
    out = tmp_path / "cli.json"
    cli("generate", "--topology", "baseline", "--samples-per-target", "1", "-o", str(out))
    dataset = arbigraph.read_dataset(out)
    assert dataset == json.loads(out.read_text())
    arbigraph.write_dataset(tmp_path / "again.json", dataset)
    assert (tmp_path / "again.json").read_bytes() == out.read_bytes()
    lines = tmp_path / "cli.jsonl"
    cli("generate", "--topology", "baseline", "--samples-per-target", "1", "-o", str(lines))
    assert len(arbigraph.read_dataset(lines)["samples"]) == len(dataset["samples"])


def test_reference_results_files_read_and_write_back_unchanged(tmp_path):
    path = REFERENCE / "results_gsm_baseline.sample.json"
    results = arbigraph.read_results(path)
    assert arbigraph.inspect_file(results)["kind"] == "results"
    arbigraph.write_results(tmp_path / "r.json", results)
    assert json.loads((tmp_path / "r.json").read_text()) == json.loads(path.read_text())


def test_bad_files_are_refused_with_where(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"summary": {},\n "samples": [}')
    with pytest.raises(arbigraph.DatasetError, match=r"broken\.json:2:14: malformed JSON"):
        arbigraph.read_dataset(broken)
    no_prompt = tmp_path / "no_prompt.json"
    no_prompt.write_text(json.dumps({"summary": {}, "samples": [{"prompt": "a", "ground_truth": 1}, {"ground_truth": 2}]}))
    with pytest.raises(arbigraph.DatasetError, match=r"samples\[1\]"):
        arbigraph.read_dataset(no_prompt)
    with pytest.raises(arbigraph.DatasetError, match="a dataset, not a results file"):
        arbigraph.read_results(REFERENCE / "math_chain.sample.json")
    with pytest.raises(arbigraph.DatasetError, match="cannot read"):
        arbigraph.read_dataset(tmp_path / "missing.json")


def test_the_calculator_answers_as_the_agent_tool_does():
    assert arbigraph.calculate("2**100") == "1267650600228229401496703205376"
    assert arbigraph.calculate("7 / 2") == "3.5"
    assert arbigraph.calculate("-7 // 2") == "-4"
    with pytest.raises(arbigraph.CalculatorError, match="1 / 0"):
        arbigraph.calculate("1 / 0")
    assert json.loads(arbigraph.calculator({"expressions": ["17 * 43 + 5", "100 // 7"]})) == {"results": ["736", "14"]}
    assert arbigraph.calculator({"expression": "3 % 2"}) == "1"
    assert arbigraph.CALCULATOR_TOOL["function"]["name"] == "calculator"
    assert arbigraph.CALCULATOR_TOOL["function"]["parameters"]["required"] == ["expressions"]


def test_the_loop_settings_follow_the_topology():
    baseline, chain, custom = (arbigraph.agent_config(t) for t in ("baseline", "chain", "custom"))
    assert baseline["budgets"] == {"initial_tool": 5, "final_answer": 3, "cutoff": 3}
    assert chain["budgets"]["final_answer"] == 12 and chain["max_turns"] == 1200
    assert custom["budgets"]["final_answer"] == 24
    assert "calculator" in baseline["system_prompt"]
