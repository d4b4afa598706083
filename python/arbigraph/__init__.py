"""ArbiGraph Studio's engine in Python.

Generate task-graph benchmark datasets (the same bytes as ``arbigraph generate``), validate custom graphs, grade
answers with the engine's own answer collection and grader, read and write dataset and results files, and use the
calculator the agent is given. The Inspect AI task lives in :mod:`arbigraph.inspect_task`.

Every function is a thin layer over the Rust engine; refusals raise :class:`ArbiGraphError` subclasses (all of
them ``ValueError``) whose message is the engine's, located (``samples[3].prompt: missing``, ``node `b`: …``).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _engine
from ._engine import (
    ArbiGraphError,
    CalculatorError,
    DatasetError,
    GenerateError,
    GradeError,
    GraphError,
    Session,
)

__all__ = [
    "ArbiGraphError",
    "CalculatorError",
    "DatasetError",
    "GenerateError",
    "GradeError",
    "GraphError",
    "Session",
    "GENERATOR",
    "CALCULATOR_TOOL",
    "agent_config",
    "calculate",
    "calculator",
    "generate",
    "generate_text",
    "grade",
    "grade_results",
    "graph_to_node_link",
    "inspect_file",
    "read_dataset",
    "read_results",
    "topology_of",
    "validate",
    "write_dataset",
    "write_results",
]

__version__ = "0.1.0"

#: The generator's name and version, as datasets record it in ``summary.generator``.
GENERATOR: str = _engine.GENERATOR

#: The calculator tool exactly as the agent offers it (a chat-completions ``tools`` entry).
CALCULATOR_TOOL: Dict[str, Any] = json.loads(_engine.calculator_tool())

GraphLike = Union[Mapping[str, Any], "os.PathLike[str]", str, Any]
PathLike = Union[str, "os.PathLike[str]"]


def _graph_error(message: str) -> GraphError:
    error = GraphError(message)
    error.problems = [{"severity": "error", "node": None, "path": "$", "message": message, "text": f"error: {message}"}]
    return error


def graph_to_node_link(graph: GraphLike) -> Dict[str, Any]:
    """Returns ``graph`` as a node-link dict the engine reads.

    ``graph`` is a node-link dict (the reference's ``edges`` with ``source``/``destination`` or NetworkX's
    ``links`` with ``source``/``target``), a path to such a JSON file, or a NetworkX ``DiGraph`` whose node
    attributes are the node fields (``kind``, ``family``, ``task_id``, ``op``, …), whose edge attributes are the
    edge fields (``slot``) and whose ``graph.graph["target_node"]`` names the target.
    """
    if isinstance(graph, Mapping):
        return dict(graph)
    if isinstance(graph, (str, os.PathLike)):
        name = os.fspath(graph)
        try:
            with open(graph, encoding="utf-8") as file:
                loaded = json.load(file)
        except OSError as e:
            raise _graph_error(f"cannot read {name}: {e.strerror}") from e
        except json.JSONDecodeError as e:
            raise _graph_error(f"{name}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from e
        if not isinstance(loaded, dict):
            raise _graph_error(f"{os.fspath(graph)}: expected a JSON object with `nodes` and `edges`")
        return loaded
    if hasattr(graph, "nodes") and hasattr(graph, "edges") and hasattr(graph, "is_directed"):
        if not graph.is_directed():
            raise _graph_error("graph: a task graph must be directed (a networkx.DiGraph)")
        if graph.is_multigraph():
            raise _graph_error("graph: a task graph cannot be a multigraph (use one edge per slot)")
        nodes = [{"id": str(node), **dict(data)} for node, data in graph.nodes(data=True)]
        edges = [{"source": str(u), "destination": str(v), **dict(data)} for u, v, data in graph.edges(data=True)]
        return {"directed": True, "multigraph": False, "graph": dict(graph.graph), "nodes": nodes, "edges": edges}
    raise _graph_error(f"graph: expected a node-link dict, a file path or a networkx.DiGraph, got {type(graph).__name__}")


def validate(graph: GraphLike) -> List[Dict[str, Any]]:
    """Every problem of a custom graph, located; an empty list means it generates.

    Each problem is a dict with ``severity`` (``error`` or ``warning``), ``node`` (the node id, or ``None`` for the
    graph as a whole), ``path`` (where in the JSON a reading problem is, else ``None``), ``message``, and ``text``
    (the one-line form the CLI prints).
    """
    problems: List[Dict[str, Any]] = json.loads(_engine.validate(json.dumps(graph_to_node_link(graph))))
    return problems


def generate_text(
    topology: str = "baseline",
    family: str = "math",
    samples_per_target: int = 16,
    seed: int = 0,
    *,
    graph: Optional[GraphLike] = None,
    length: int = 4,
    distractors: int = 3,
    structure: Optional[str] = None,
    targets: Iterable[str] = (),
    max_attempts: int = 100,
    creation_time: Optional[str] = None,
    format: str = "json",
) -> str:
    """The dataset file's text, byte for byte what ``arbigraph generate`` writes with the same settings.

    ``format`` is ``json`` (the reference layout) or ``jsonl`` (one ``{id, prompt, answer, metadata}`` line per
    sample). The settings are those of the CLI: ``topology`` (baseline, forgetting, chain, multichain, custom),
    ``family`` (math, gsm, python, image, mixed, or a comma-separated list), ``samples_per_target``, ``seed``,
    ``length`` (chain), ``distractors`` (forgetting), ``structure`` (multichain, e.g. ``m,m,[m,m],m``),
    ``graph`` (custom), ``targets`` (task keys or names), ``max_attempts`` and ``creation_time``.
    """
    graph_json = None if graph is None else json.dumps(graph_to_node_link(graph))
    return _engine.generate_text(
        topology, family, samples_per_target, seed, length, distractors, structure, graph_json,
        list(targets), max_attempts, creation_time, format,
    )


def generate(
    topology: str = "baseline",
    family: str = "math",
    samples_per_target: int = 16,
    seed: int = 0,
    *,
    graph: Optional[GraphLike] = None,
    length: int = 4,
    distractors: int = 3,
    structure: Optional[str] = None,
    targets: Iterable[str] = (),
    max_attempts: int = 100,
    creation_time: Optional[str] = None,
) -> Dict[str, Any]:
    """A dataset as a dict (``summary`` and ``samples``), equal to the file ``arbigraph generate`` writes.

    ``generate(topology="chain", family="math", samples_per_target=2, seed=0)``;
    ``generate(topology="custom", graph=networkx_digraph)`` for a custom graph. See :func:`generate_text` for the
    settings. Raises :class:`GraphError` (with ``problems``) for a graph with errors and :class:`GenerateError`
    for settings the generator refuses.
    """
    text = generate_text(
        topology, family, samples_per_target, seed, graph=graph, length=length, distractors=distractors,
        structure=structure, targets=targets, max_attempts=max_attempts, creation_time=creation_time, format="json",
    )
    dataset: Dict[str, Any] = json.loads(text)
    return dataset


def _json_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def grade(sample: Mapping[str, Any], response_text: Union[str, Sequence[str]], *, index: int = 0) -> Dict[str, Any]:
    """Grades a response against a dataset (or results) sample exactly as the engine grades a run.

    ``response_text`` is the whole response, or the texts of a multi-turn trajectory's turns in order (answers
    are collected turn by turn, the latest box per output name winning). Returns a dict with ``correct`` (the
    reference verdict of the target), ``lenient`` (also accepting LaTeX powers, fractions, thousands separators),
    ``target``, ``expected`` (output names the prompt asks for), ``answers`` (``{name: {"answer", "turn"}}``),
    ``node_status`` (``{name: "correct" | "wrong" | "missing"}`` for every node with a stored truth) and
    ``first_breaks`` (failed nodes whose inputs were all correct: where the chain broke). ``index`` only
    locates errors.
    """
    turns = [response_text] if isinstance(response_text, str) else list(response_text)
    graded: Dict[str, Any] = json.loads(_engine.grade(_json_of(sample), turns, index))
    return graded


def _read_text(path: PathLike) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except OSError as e:
        raise DatasetError(f"cannot read {os.fspath(path)}: {e.strerror}") from e


def read_dataset(path: PathLike) -> Dict[str, Any]:
    """Reads a dataset file (the reference's JSON layout, or JSONL) as ``{"summary": …, "samples": [...]}``.

    Malformed JSON is located by file, line and column, schema problems by JSON path (:class:`DatasetError`).
    """
    name = os.fspath(path)
    dataset: Dict[str, Any] = json.loads(_engine.read_dataset(name, _read_text(path)))
    return dataset


def inspect_file(data: Mapping[str, Any]) -> Dict[str, Any]:
    """What a parsed dataset or results file holds (``kind``, ``mode``, ``topology``, counts) and its schema
    ``problems``, each located."""
    found: Dict[str, Any] = json.loads(_engine.inspect_file(_json_of(data)))
    return found


def read_results(path: PathLike) -> Dict[str, Any]:
    """Reads a results file (the reference harness's or ``arbigraph eval``'s) and checks its schema."""
    name = os.fspath(path)
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DatasetError(f"{name}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from e
    found = inspect_file(data)
    if found["problems"]:
        raise DatasetError(f"{name}: not a results file: " + "; ".join(found["problems"][:5]))
    if found["kind"] != "results":
        raise DatasetError(f"{name}: a dataset, not a results file (no `summary.generation_params` and no `agent_status`)")
    results: Dict[str, Any] = data
    return results


def write_dataset(path: PathLike, dataset: Mapping[str, Any]) -> None:
    """Writes a dataset dict in the reference layout, pretty-printed as the engine prints it (a ``.json`` file)."""
    _write_pretty(path, dataset)


def write_results(path: PathLike, results: Mapping[str, Any]) -> None:
    """Writes a results dict in the reference layout, pretty-printed as the engine prints it."""
    _write_pretty(path, results)


def _write_pretty(path: PathLike, data: Mapping[str, Any]) -> None:
    name = os.fspath(path)
    if name.endswith(".jsonl"):
        raise DatasetError(f"{name}: a dict is written in the reference layout (.json); generate_text(format='jsonl') gives JSONL")
    if "samples" not in data:
        raise DatasetError(f"{name}: samples: missing (a file has `summary` and `samples`)")
    text = _engine.pretty(json.dumps(data))
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)


def grade_results(results: Union[Mapping[str, Any], PathLike], *, replay: bool = False) -> List[Dict[str, Any]]:
    """Grades every sample of a results file (a dict or a path) as ``arbigraph grade`` does: from the stored
    ``task_answers``, or with ``replay`` re-collected from the stored ``turn_outputs``. One dict per sample, as
    :func:`grade` returns."""
    data = results if isinstance(results, Mapping) else read_results(results)
    graded: List[Dict[str, Any]] = json.loads(_engine.grade_results(json.dumps(data), replay))
    return graded


def calculate(expression: str) -> str:
    """Evaluates one arithmetic expression in Python syntax with the agent's calculator (exact integers of any
    size, floats as Python prints them). Raises :class:`CalculatorError` for what it refuses."""
    return _engine.calculate(expression)


def calculator(arguments: Union[Mapping[str, Any], str]) -> str:
    """Answers one calculator tool call (``{"expressions": [...]}`` or ``{"expression": ...}``) with the exact
    text the agent's tool message carries (``{"results": [...]}``, errors as ``Error: …`` strings)."""
    return _engine.calculator_call(_json_of(arguments))


def agent_config(topology: str) -> Dict[str, Any]:
    """The agent loop's settings for a topology: turn limit, completion limits, the repair budgets
    (``initial_tool``, ``final_answer``, ``cutoff``), sampling and the system prompt."""
    config: Dict[str, Any] = json.loads(_engine.agent_config(topology))
    return config


def topology_of(sample: Mapping[str, Any]) -> str:
    """The topology of a dataset or results sample (``baseline``, ``forgetting``, ``chain``, ``multichain`` or
    ``custom``)."""
    return _engine.topology_of(_json_of(sample))
