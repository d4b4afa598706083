"""Generation through the package equals `arbigraph generate`, byte for byte, and refusals are located."""

import json

import networkx as nx
import pytest

import arbigraph
from conftest import ROOT, cli

DIAMOND = ROOT / "public" / "examples" / "diamond.json"


@pytest.mark.parametrize(
    "settings, flags",
    [
        (dict(topology="chain", family="math", samples_per_target=2, seed=0), ["--topology", "chain", "--family", "math", "--samples-per-target", "2", "--seed", "0"]),
        (dict(topology="baseline", family="gsm", samples_per_target=1, seed=7), ["--topology", "baseline", "--family", "gsm", "--samples-per-target", "1", "--seed", "7"]),
        (dict(topology="forgetting", family="python", samples_per_target=1, seed=3, distractors=2), ["--topology", "forgetting", "--family", "python", "--samples-per-target", "1", "--seed", "3", "--distractors", "2"]),
        (dict(topology="baseline", family="image", samples_per_target=1, seed=2), ["--topology", "baseline", "--family", "image", "--samples-per-target", "1", "--seed", "2"]),
        (dict(topology="multichain", family="math", samples_per_target=1, seed=5, structure="m,[m,m],[m,m],m"), ["--topology", "multichain", "--family", "math", "--samples-per-target", "1", "--seed", "5", "--structure", "m,[m,m],[m,m],m"]),
    ],
)
def test_generation_is_byte_identical_to_the_cli(tmp_path, settings, flags):
    for fmt in ["json", "jsonl"]:
        out = tmp_path / f"cli.{fmt}"
        cli("generate", *flags, "-o", str(out))
        assert arbigraph.generate_text(**settings, format=fmt).encode() == out.read_bytes()
    assert arbigraph.generate(**settings) == json.loads((tmp_path / "cli.json").read_text())


def test_the_interface_contract_call_gives_the_cli_dataset(tmp_path):
    out = tmp_path / "math_chain.json"
    cli("generate", "--topology", "chain", "--family", "math", "--samples-per-target", "2", "--seed", "0", "-o", str(out))
    dataset = arbigraph.generate(topology="chain", family="math", samples_per_target=2, seed=0)
    assert dataset == json.loads(out.read_text())
    assert dataset["summary"]["mode"] == "math_chain"
    assert len(dataset["samples"]) == 2 * dataset["summary"]["num_tasks"]


def without_graph_path(dataset):
    """The CLI names the graph's file in `summary.graph_path`; a graph given as data has none."""
    summary = dict(dataset["summary"])
    summary.pop("graph_path")
    return {**dataset, "summary": summary}


def diamond_digraph() -> nx.DiGraph:
    """public/examples/diamond.json, built with NetworkX calls."""
    g = nx.DiGraph(target_node="combine")
    g.add_node("seed", kind="task", family="math", task_id=28, input_kind="scalar", output_kind="list")
    g.add_node("first", kind="adapter", op="pick", index=2)
    g.add_node("second", kind="adapter", op="pick", index=5)
    g.add_node("left", kind="task", family="math", task_id=31, input_kind="scalar", output_kind="scalar")
    g.add_node("right", kind="task", family="math", task_id=39, input_kind="scalar", output_kind="scalar")
    g.add_node("merge", kind="adapter", op="pack")
    g.add_node("combine", kind="task", family="math", task_id=16, input_kind="list", output_kind="scalar")
    g.add_edges_from([("seed", "first"), ("seed", "second"), ("first", "left"), ("second", "right"), ("merge", "combine")])
    g.add_edge("left", "merge", slot=0)
    g.add_edge("right", "merge", slot=1)
    return g


def test_a_networkx_graph_generates_what_the_cli_makes_of_the_same_graph_file(tmp_path):
    out = tmp_path / "dag.json"
    cli("generate", "--topology", "custom", "--graph", str(DIAMOND), "--samples-per-target", "3", "--seed", "11", "-o", str(out))
    from_networkx = arbigraph.generate(topology="custom", graph=diamond_digraph(), samples_per_target=3, seed=11)
    assert len(from_networkx["samples"]) == 3
    assert from_networkx["summary"]["target_node"] == "combine"
    assert without_graph_path(from_networkx) == without_graph_path(json.loads(out.read_text()))
    # A dict and a path give the same dataset too.
    assert arbigraph.generate(topology="custom", graph=json.loads(DIAMOND.read_text()), samples_per_target=3, seed=11) == from_networkx
    assert arbigraph.generate(topology="custom", graph=DIAMOND, samples_per_target=3, seed=11) == from_networkx


def test_validate_lists_located_problems_and_nothing_for_a_good_graph():
    assert arbigraph.validate(diamond_digraph()) == []
    broken = diamond_digraph()
    broken.nodes["left"]["family"] = "chemistry"
    broken.add_edge("combine", "seed")
    problems = arbigraph.validate(broken)
    assert {"severity": "error", "node": "left"} in [{k: p[k] for k in ("severity", "node")} for p in problems]
    assert any("chemistry" in p["message"] for p in problems)
    assert any("cycle" in p["message"] for p in problems), problems
    unreadable = arbigraph.validate({"nodes": [{"kind": "task"}], "edges": []})
    assert unreadable and unreadable[0]["path"].startswith("$.nodes[0]"), unreadable


def test_a_graph_with_errors_is_refused_with_every_problem():
    broken = diamond_digraph()
    broken.nodes["left"]["family"] = "chemistry"
    with pytest.raises(arbigraph.GraphError) as refused:
        arbigraph.generate(topology="custom", graph=broken)
    assert "node `left`" in str(refused.value)
    assert [p["node"] for p in refused.value.problems] == ["left"]
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize(
    "settings, message",
    [
        (dict(topology="ring"), "topology: unknown topology `ring`"),
        (dict(family="chemistry"), "family: unknown family `chemistry`"),
        (dict(topology="custom"), "graph: topology=\"custom\" needs a graph"),
        (dict(topology="multichain", structure="m,[m"), "structure \"m,[m\""),
    ],
)
def test_bad_settings_are_refused_with_what_and_where(settings, message):
    with pytest.raises(arbigraph.GenerateError) as refused:
        arbigraph.generate(**settings)
    assert message in str(refused.value)


def test_networkx_graphs_that_cannot_be_task_graphs_are_refused():
    with pytest.raises(arbigraph.GraphError, match="must be directed"):
        arbigraph.generate(topology="custom", graph=nx.Graph())
    with pytest.raises(arbigraph.GraphError, match="expected a node-link dict"):
        arbigraph.generate(topology="custom", graph=42)
