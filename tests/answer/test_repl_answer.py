"""The REPL's `:answer`: SARG's answer in the session, its heavy parts loaded once."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from agent.config import AgentConfig
from agent.factory import make_agent
from answer.config import SargConfig
from cli.answerers import WarmAnswerers
from cli.repl.lines import StreamReader
from cli.repl.loop import Repl
from cli.repl.session import ReplSession
from graphs.snapshot import Snapshot
from tests.answer.conftest import QUESTION


def test_answer_in_the_repl_reuses_what_the_first_answer_loaded(
    bridge_kg: Path, encoder_dir: Path
) -> None:
    warm = WarmAnswerers(str(encoder_dir))
    session = ReplSession(
        snapshot=Snapshot.open(bridge_kg), config=AgentConfig(), agent_factory=make_agent,
        answerers=warm,
    )  # fmt: skip
    output = io.StringIO()
    console = Console(file=output, width=120, force_terminal=False, color_system=None)
    lines = [f":answer {QUESTION}", ":answer", f":answer {QUESTION}", ":quit"]
    Repl(session, StreamReader(io.StringIO("\n".join(lines) + "\n")), console).run()
    text = output.getvalue()
    assert text.count("Answer: ") == 2 and text.count("chain 1 (score") == 2
    assert "usage: :answer QUESTION" in text
    assert text.count("loading ") == 2 and "answering " in text
    encoder, reader = warm._encoder, warm._reader
    assert encoder is not None and reader is not None
    warm.answerer(session.snapshot, SargConfig(), None)
    assert warm._encoder is encoder and warm._reader is reader  # loaded once, kept
