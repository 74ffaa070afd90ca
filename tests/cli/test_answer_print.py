"""`ark answer`'s printout: offline, a note says how weak the answer line is."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from answer.result import AnswerResult
from cli.answer_cmds import OFFLINE_NOTE, print_answer


@pytest.mark.parametrize(("model", "noted"), [("offline", True), ("openai:qwen", False)])
def test_offline_answers_say_what_they_are_good_for(model: str, noted: bool) -> None:
    result = AnswerResult(
        question="q?", answer="40", method="sarg", model=model, timings={"construct_s": 0.1}
    )
    out = io.StringIO()
    print_answer(result, snapshot=None, console=Console(file=out, width=400))  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    assert lines[0] == "Answer: 40"
    assert (lines[1] == OFFLINE_NOTE) is noted
