"""ArbiGraph as an Inspect AI task.

``inspect eval arbigraph/arbigraph -T dataset=FILE --model openai-api/<service>/<model>`` runs any ArbiGraph
dataset file (the reference layout or JSONL) with the engine's own agent loop: the same system prompt, the
calculator tool with the same schema, the repair protocol with its per-topology budgets (initial calculator call,
missing final answers, cut-off) and turn limits, and the engine's answer collection. Inspect sends every request,
so its providers, cache, retries and limits apply. The scorer grades with the engine's grader: the reference
verdict of the target, the lenient verdict, and every node with a stored truth.

Metrics: ``correct`` (accuracy with its standard error and a 95% Wilson interval, ``wilson_lower`` and
``wilson_upper``) and ``nodes`` (the mean share of a sample's nodes answered correctly).

Each log sample's ``metadata`` holds the dataset sample (``sample``) and its position in the file (``index``); its
store holds the engine's results record (``arbigraph:result``) and the score's metadata the grade.
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Optional

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ContentReasoning,
    GenerateConfig,
    ModelOutput,
    get_model,
    messages_from_openai,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Target, accuracy, mean, metric, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolInfo, tool

from . import CALCULATOR_TOOL, Session, calculator as run_calculator, grade, read_dataset, topology_of

#: The store key of the engine's results record of a sample.
RESULT_KEY = "arbigraph:result"


def calculator_info() -> ToolInfo:
    """The calculator's schema as Inspect's ``ToolInfo``, the same the agent offers."""
    return ToolInfo.model_validate(CALCULATOR_TOOL["function"])


@tool(name="calculator")
def calculator() -> Tool:
    """The calculator as an Inspect tool, answered by the engine, for agents of your own."""

    async def execute(expressions: List[str], expression: str = "", requirements: Optional[List[str]] = None) -> str:
        """Evaluates arithmetic expressions written in Python syntax.

        Args:
            expressions: The expressions to evaluate; one result per expression, in order.
            expression: A single expression (prefer `expressions`).
            requirements: Optional: the names of the requested results this call works towards.
        """
        arguments: Dict[str, Any] = {"expressions": expressions}
        if expression:
            arguments["expression"] = expression
        if requirements:
            arguments["requirements"] = requirements
        return run_calculator(arguments)

    return execute


def dataset_samples(path: str) -> MemoryDataset:
    """An ArbiGraph dataset file as an Inspect dataset: one Inspect sample per dataset sample, id = its 1-based
    position, ``input`` = the prompt, ``target`` = the ground truth as text."""
    data = read_dataset(path)
    samples = []
    for index, raw in enumerate(data["samples"]):
        truth = raw.get("ground_truth")
        samples.append(
            Sample(
                id=index + 1,
                input=raw["prompt"],
                target=truth if isinstance(truth, str) else json.dumps(truth),
                metadata={"index": index, "topology": topology_of(raw), "task_name": raw.get("task_name"), "sample": raw},
            )
        )
    return MemoryDataset(samples, name=path, location=path)


def _reply_json(output: ModelOutput) -> Dict[str, Any]:
    """A model's output as the chat-completions reply body the engine's session reads."""
    message = output.message
    reasoning = ""
    if not isinstance(message.content, str):
        reasoning = "\n".join(part.reasoning for part in message.content if isinstance(part, ContentReasoning))
    calls = [
        {"id": call.id, "type": "function", "function": {"name": call.function, "arguments": json.dumps(call.arguments)}}
        for call in (message.tool_calls or [])
    ]
    body: Dict[str, Any] = {"role": "assistant", "content": message.text}
    if calls:
        body["tool_calls"] = calls
    if reasoning:
        body["reasoning_content"] = reasoning
    finish = {"max_tokens": "length", "model_length": "length", "tool_calls": "tool_calls"}.get(output.stop_reason, "stop")
    reply: Dict[str, Any] = {"choices": [{"index": 0, "message": body, "finish_reason": finish}]}
    if output.usage is not None:
        usage: Dict[str, Any] = {"prompt_tokens": output.usage.input_tokens, "completion_tokens": output.usage.output_tokens}
        if output.usage.input_tokens_cache_read:
            usage["prompt_tokens_details"] = {"cached_tokens": output.usage.input_tokens_cache_read}
        if output.usage.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": output.usage.reasoning_tokens}
        reply["usage"] = usage
    return reply


def _transcript_messages(first: List[Dict[str, Any]], transcript: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The engine's transcript as chat-completions messages; the opening system and user messages are taken from
    the first request (which carries the pictures)."""
    out: List[Dict[str, Any]] = list(first[:2])
    for message in transcript[2:]:
        role = message["role"]
        if role == "assistant":
            m: Dict[str, Any] = {"role": "assistant", "content": message.get("content", "")}
            if message.get("tool_calls"):
                m["tool_calls"] = [
                    {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in message["tool_calls"]
                ]
            out.append(m)
        elif role == "tool":
            out.append({"role": "tool", "content": message.get("content", ""), "tool_call_id": message.get("tool_call_id", "")})
        else:
            out.append({"role": role, "content": message.get("content", "")})
    return out


@solver
def arbigraph_agent(strategy: Optional[str] = None) -> Solver:
    """The engine's agent loop for one sample: its requests are sent through Inspect's model, its replies go back
    to the engine, which runs the calculator, the repairs and the answer collection, until the sample ends.

    Args:
        strategy: A context strategy (``full`` by default; e.g. ``window:keep=4``, ``mask``), as ``arbigraph eval
            --strategy`` takes it.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        raw = state.metadata["sample"]
        session = Session(json.dumps(raw), state.metadata["topology"], str(model), strategy)
        body = session.start(state.metadata["index"])
        first: List[Dict[str, Any]] = json.loads(body)["messages"] if body else []
        output: Optional[ModelOutput] = None
        while body is not None:
            request = json.loads(body)
            messages: List[ChatMessage] = await messages_from_openai(request["messages"], str(model))
            tools = [calculator_info()] if "tools" in request else []
            config = GenerateConfig(max_tokens=request.get("max_tokens"), temperature=request.get("temperature"), top_p=request.get("top_p"))
            output = await model.generate(messages, tools=tools, tool_choice="auto" if tools else None, config=config)
            body = session.reply(json.dumps(_reply_json(output)))
        record_text = session.record()
        record: Dict[str, Any] = json.loads(record_text) if record_text else {}
        if first:
            state.messages = await messages_from_openai(_transcript_messages(first, record.get("transcript", [])), str(model))
        if output is not None:
            state.output = output
        # The results record without what the log already holds (the sample, the transcript).
        kept = {k: v for k, v in record.items() if k not in raw and k != "transcript"}
        state.store.set(RESULT_KEY, kept)
        return state

    return solve


def _assistant_turns(state: TaskState) -> List[str]:
    """Turn texts of a run not made by `arbigraph_agent`: each assistant message's text, its calls rendered as
    the engine renders them."""
    turns = []
    for message in state.messages:
        if message.role != "assistant":
            continue
        text = message.text
        for call in message.tool_calls or []:
            text += "\n<tool_call>" + json.dumps({"name": call.function, "arguments": call.arguments}) + "</tool_call>"
        turns.append(text)
    return turns


def _wilson(scores: List[SampleScore], z: float) -> tuple:
    n = len(scores)
    if n == 0:
        return (0.0, 0.0)
    p = sum(s.score.as_float() for s in scores) / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@metric
def wilson_lower(z: float = 1.96) -> Metric:
    """The lower end of the Wilson score interval of the accuracy (95% by default)."""

    def compute(scores: List[SampleScore]) -> float:
        return float(_wilson(scores, z)[0])

    return compute


@metric
def wilson_upper(z: float = 1.96) -> Metric:
    """The upper end of the Wilson score interval of the accuracy (95% by default)."""

    def compute(scores: List[SampleScore]) -> float:
        return float(_wilson(scores, z)[1])

    return compute


@scorer(metrics={"correct": [accuracy(), stderr(), wilson_lower(), wilson_upper()], "nodes": [mean()]})
def arbigraph_scorer() -> Any:
    """Grades a sample with the engine's grader: ``correct`` is the reference verdict of the target (1 or 0),
    ``nodes`` the share of the sample's nodes answered correctly; the metadata holds the whole grade."""

    async def score(state: TaskState, target: Target) -> Score:
        raw = state.metadata["sample"]
        record = state.store.get(RESULT_KEY) or {}
        outputs = record.get("turn_outputs", {}) if record else {}
        turns = [outputs[k] for k in sorted(outputs, key=int)] if record else _assistant_turns(state)
        graded = grade(raw, turns, index=state.metadata.get("index", 0))
        nodes = graded["node_status"]
        share = sum(1 for s in nodes.values() if s == "correct") / len(nodes) if nodes else 0.0
        answer = graded["answers"].get(graded["target"], {}).get("answer")
        metadata = dict(graded)
        if record:
            metadata["agent_status"] = record.get("agent_status")
        return Score(
            value={"correct": 1.0 if graded["correct"] else 0.0, "nodes": share},
            answer=answer,
            explanation=f"{graded['target']}: {nodes.get(graded['target'], 'missing')}; first breaks: {', '.join(graded['first_breaks']) or 'none'}",
            metadata=metadata,
        )

    return score


@task
def arbigraph(dataset: str, strategy: Optional[str] = None) -> Task:
    """An ArbiGraph dataset file run with the engine's agent loop and graded by the engine.

    Args:
        dataset: A dataset file (``arbigraph generate`` output, or the reference release's).
        strategy: A context strategy (``full`` by default), as ``arbigraph eval --strategy`` takes it.
    """
    return Task(dataset=dataset_samples(dataset), solver=arbigraph_agent(strategy), scorer=arbigraph_scorer(), name="arbigraph")
