"""Runs warn before starting when questions exceed the search query limit."""

from __future__ import annotations

from evals.qa.records import QAItem
from evals.runs.runner import long_question_warnings

LONG = "engine " + "word " * 400 + "tail"


def test_runs_warn_about_long_questions_before_starting() -> None:
    items = [
        QAItem(id=f"q{i}", query=LONG if i % 2 else "short", answer_ids=["a"]) for i in range(10)
    ]
    (warning,) = long_question_warnings(items)
    assert warning.startswith("5 question(s) are longer than the 1,000-character search limit")
    assert "q1, q3, q5, ..." in warning
    assert long_question_warnings(items[:1]) == ()
