"""`ark answer`'s printout: offline, a note says how weak the answer line is."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from answer.result import AnswerResult
from cli.output.answer_text import OFFLINE_NOTE, print_answer


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


def test_the_offline_reading_names_its_passage_and_a_no_chain_answer_says_so() -> None:
    reading = {"asked": "typed", "labels": ["PERSON"], "source": "passage:p1#0"}
    result = AnswerResult(
        question="q?",
        answer="Kevin Spacey",
        method="sarg",
        model="offline",
        timings={"construct_s": 0.1},
        reading=reading,
        fallback="no-chain",
    )
    out = io.StringIO()
    print_answer(result, snapshot=None, console=Console(file=out, width=400))  # type: ignore[arg-type]
    text = out.getvalue()
    assert "read from passage:p1#0; the question asks for: typed (PERSON)" in text
    assert "no chain was found" in text
