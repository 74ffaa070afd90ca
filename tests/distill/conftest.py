"""Fixtures for distill tests: hand-built run directories and a tiny scratch student."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.trajectory import QuestionResult, StepRecord, Trajectory
from evals.runs.store import RunRecord, RunStore

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Full-text search over node names and text.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for."},
                    "k": {"type": "integer", "description": "How many hits."},
                },
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "neighbors",
            "description": "Neighbours of a node, optionally filtered by edge type.",
            "parameters": {
                "type": "object",
                "properties": {
                    "node_id": {"type": "string", "description": "Anchor node."},
                    "edge_types": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Relations to follow.",
                    },
                },
                "required": ["node_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "select",
            "description": "Add nodes to the answer list, best first.",
            "parameters": {
                "type": "object",
                "properties": {
                    "node_ids": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Ids.",
                    }
                },
                "required": ["node_ids"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "finish",
            "description": "Stop exploring.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]

SYSTEM = "You answer questions over a knowledge graph. Use the tools."


def _call(index: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def make_trajectory(
    question: str, anchor: str, answers: list[str], *, agent_index: int = 0, stop: str = "finish"
) -> Trajectory:
    """A search → neighbors → select+finish trajectory in OpenAI format."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": question},
        {
            "role": "assistant",
            "content": "Search for the anchor.",
            "tool_calls": [_call(0, "search", {"query": question, "k": 5})],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": f"1. {anchor} (paper) score 3.2"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call(1, "neighbors", {"node_id": anchor, "edge_types": ["cites"]})],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "\n".join(answers)},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call(2, "select", {"node_ids": answers}), _call(3, "finish", {})],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": f"selected {len(answers)}"},
        {"role": "tool", "tool_call_id": "call_3", "content": "finished"},
    ]
    steps = [
        StepRecord(index=0, kind="model", wall_s=0.01),
        StepRecord(index=0, kind="tool", tool_name="search", wall_s=0.001),
        StepRecord(index=1, kind="model", wall_s=0.01),
        StepRecord(
            index=1, kind="tool", tool_name="neighbors", wall_s=0.001, error_kind="unknown_node"
        ),
        StepRecord(index=2, kind="model", wall_s=0.01),
        StepRecord(index=2, kind="tool", tool_name="select", wall_s=0.001),
        StepRecord(index=2, kind="tool", tool_name="finish", wall_s=0.001),
    ]
    return Trajectory(
        question=question,
        agent_index=agent_index,
        model="rules",
        tools=TOOLS,
        messages=messages if stop != "error" else messages[:2],
        steps=steps,
        answers=answers,
        stop_reason=stop,  # type: ignore[arg-type]
        error="endpoint down" if stop == "error" else None,
    )


def write_run(
    run_dir: Path,
    questions: list[tuple[str, list[str], list[Trajectory]]],
    config: dict[str, Any] | None = None,
) -> Path:
    """Write a run directory through the real RunStore (config: split train, no qa file)."""
    config = config or {"agent": {"model": "rules"}, "split": "train"}
    with RunStore.open(run_dir, config, resume=False) as store:
        for question_id, gold, trajectories in questions:
            result = QuestionResult(
                question_id=question_id,
                question=trajectories[0].question,
                model="rules",
                trajectories=trajectories,
                fused=trajectories[0].answers,
            )
            store.append_result(
                RunRecord(
                    question_id=question_id,
                    query=trajectories[0].question,
                    gold=gold,
                    result=result,
                    metrics={},
                )
            )
    return run_dir


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """Six questions, two agents each (agent 1 finds the gold); one model error."""
    questions = []
    for q in range(6):
        text = f"Which papers does paper P{q} cite about topic {q}?"
        gold = [f"n{q}0", f"n{q}1"]
        wrong = make_trajectory(text, f"P{q}", [f"x{q}"], agent_index=0)
        right = make_trajectory(text, f"P{q}", gold, agent_index=1)
        trajectories = [wrong, right]
        if q == 0:
            trajectories.append(make_trajectory(text, f"P{q}", [], agent_index=2, stop="error"))
        questions.append((f"q{q}", gold, trajectories))
    return write_run(tmp_path / "run", questions)


@pytest.fixture
def error_run_dir(tmp_path: Path) -> Path:
    """One question whose only agent failed with a model error."""
    failed = make_trajectory("Which paper?", "P0", [], stop="error")
    return write_run(tmp_path / "failed_run", [("q0", ["n0"], [failed])])


@pytest.fixture(scope="session")
def scratch_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3 + BPE tokenizer saved to disk (shared by the session)."""
    from distill.scratch import ScratchSpec, save_scratch_base

    corpus = [SYSTEM, json.dumps(TOOLS)] + [
        f"Which papers does paper P{q} cite about topic {q}? n{q}0 n{q}1 x{q}" for q in range(6)
    ]
    out = tmp_path_factory.mktemp("scratch") / "base"
    return save_scratch_base(out, corpus * 4, ScratchSpec(vocab_size=600, hidden_size=32))


@pytest.fixture(scope="session")
def sft_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SFT dataset of six questions (one trajectory each) with a val split."""
    from distill.dataset import DatasetOptions, build_sft_dataset

    root = tmp_path_factory.mktemp("sft")
    questions = []
    for q in range(6):
        text = f"Which papers does paper P{q} cite about topic {q}?"
        gold = [f"n{q}0", f"n{q}1"]
        questions.append((f"q{q}", gold, [make_trajectory(text, f"P{q}", gold)]))
    run = write_run(root / "run", questions)
    build_sft_dataset([run], root / "data", DatasetOptions(val_fraction=0.34))
    return root / "data"
