"""The REPL driven through its input and output streams with scripted models."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agent.ark import ArkAgent
from agent.config import AgentConfig
from agent.factory import make_agent
from agent.models.base import Message, ModelError, ModelReply
from agent.models.scripted import tool_call_message
from cli.repl.lines import StreamReader
from cli.repl.loop import Repl
from cli.repl.session import ReplSession
from evals.runs.store import read_results
from graphs.snapshot import Snapshot


class InterruptibleModel:
    """Answers questions by script; a question containing "hang" gets a Ctrl-C mid-call."""

    name = "scripted-repl"

    def __init__(self) -> None:
        self.interrupted = False

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        question = messages[1]["content"]
        if "hang" in question:
            if not self.interrupted:  # one Ctrl-C, even with several agents on the question
                self.interrupted = True
                os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(5)
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn == 0:
            # k=5: with one BM25 document per node the short f1 outranks p2 for this question
            return ModelReply(tool_call_message("search", {"query": question, "k": 5}))
        if turn == 1:
            return ModelReply(tool_call_message("select", {"node_ids": ["p4", "p2"]}))
        return ModelReply(tool_call_message("finish", {}))


def drive(snapshot: Snapshot, lines: list[str]) -> str:
    def factory(graph: Snapshot, config: AgentConfig, *, model: Any = None) -> ArkAgent:
        return make_agent(graph, config, model=model or InterruptibleModel())

    session = ReplSession(snapshot=snapshot, config=AgentConfig(n_agents=2), agent_factory=factory)
    output = io.StringIO()
    console = Console(file=output, width=80, force_terminal=False, color_system=None)
    Repl(session, StreamReader(io.StringIO("\n".join(lines) + "\n")), console).run()
    return output.getvalue()


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT as Python sets it up in a terminal, even when the runner inherited it ignored
    (a shell starts background jobs with SIGINT ignored, and Python keeps that)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c_raises")
def test_a_session(tiny_snapshot: Snapshot, tmp_path: Path) -> None:
    saved = tmp_path / "run"
    shown = drive(
        tiny_snapshot,
        [
            "sparse retrieval papers",
            ":node a1",
            ":search dense retrieval",
            ":neighbors a1 type=paper k=2",
            ":trace",
            f":save {saved}",
            f":save {saved}",
            "dense retrieval papers",
            f":save {saved}",
            ":bogus",
            ":node nope",
            "please hang",
            ":schema",
            ":quit",
            "never read",
        ],
    )
    # the question: live trace per agent, then the fused table
    # identical agents (the rule policy) are traced once, their votes left out
    assert "[agent 1] search" in shown and "[agent 2] same steps as the agent shown" in shown
    assert "Sparse retrieval revisited" in shown
    assert "2 agents with identical answer lists: votes left out" in shown
    # :node shows the text and a summary by relation
    assert "Researcher in retrieval and graphs." in shown
    assert "-[writes]->" in shown and "-[affiliated_with]->" in shown
    # :search and :neighbors print the model's view
    assert "Dense passage retrieval (paper)" in shown
    assert "showing 2 of 3" in shown
    # :trace prints the assistant's calls
    assert 'call select {"node_ids": ["p4", "p2"]}' in shown
    # :save appends eval-format records with both trajectories; saving one twice is refused
    first, second = read_results(saved)
    assert (first.query, second.query) == ("sparse retrieval papers", "dense retrieval papers")
    assert len(first.result.trajectories) == 2 and first.result.fused == ["p4", "p2"]
    assert first.question_id.startswith("repl-") and first.question_id != second.question_id
    assert first.result.question_id == first.question_id
    assert "is already saved" in " ".join(shown.split())
    # errors are one line and the session goes on
    assert "unknown command :bogus" in shown
    assert "unknown node id 'nope'" in shown
    # Ctrl-C during a question cancels it and returns to the prompt
    assert "cancelled" in shown
    assert "institution" in shown  # :schema ran after the cancelled question
    assert shown.rstrip().endswith("bye")
    assert max(len(line) for line in shown.splitlines()) <= 80


def test_ctrl_d_exits_and_set_changes_config(tiny_snapshot: Snapshot) -> None:
    shown = drive(tiny_snapshot, [":set agents=1 steps=4 k=7", ":set agents=zero", ":trace"])
    assert "agents=1 steps=4 k=7" in shown
    assert "agents must be a whole number" in shown
    assert "no question asked yet" in shown
    assert shown.rstrip().endswith("bye")


def test_history_lives_under_xdg_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cli.repl.lines import history_path

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert history_path() == tmp_path / "ark" / "repl_history"


class DownModel:
    """An endpoint that is down: every call fails the way the HTTP adapter reports it."""

    name = "down"

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        raise ModelError("cannot reach http://127.0.0.1:9/v1 (connection refused)")


def test_endpoint_down_is_one_line_and_the_session_goes_on(tiny_snapshot: Snapshot) -> None:
    def factory(graph: Snapshot, config: AgentConfig, *, model: Any = None) -> ArkAgent:
        return make_agent(graph, config, model=DownModel())

    session = ReplSession(
        snapshot=tiny_snapshot, config=AgentConfig(n_agents=3), agent_factory=factory
    )
    output = io.StringIO()
    console = Console(file=output, width=200, force_terminal=False, color_system=None)
    lines = io.StringIO("which papers?\n:search sparse\n")
    Repl(session, StreamReader(lines), console).run()
    shown = output.getvalue().splitlines()
    errors = [line for line in shown if "connection refused" in line]
    assert errors == [
        "error: every agent failed: cannot reach http://127.0.0.1:9/v1 (connection refused)"
    ]
    assert any("Sparse retrieval revisited" in line for line in shown)
