"""`ark eval answers --executor ray`: answers from a pool of Ray workers, recorded as locally."""

from __future__ import annotations

import asyncio
import functools
import json
import pickle
from collections.abc import Sequence
from pathlib import Path

import pytest

from answer.config import SargConfig
from answer.result import AnswerResult
from cli.commands.answer import Wiring, worker_answerer
from evals.answers.run import load_answer_qa, read_answers, run_answers


class Echo:
    """Answers with the question's last word (no model: the workers start in a second)."""

    async def answer(self, question: str, supporting: Sequence[str] = ()) -> AnswerResult:
        return AnswerResult(
            question=question, answer=question.rstrip("?").split()[-1], method="sarg",
            model="offline", timings={"construct_s": 0.0},
        )  # fmt: skip


def make_echo(index: int) -> Echo:
    return Echo()


def _qa(tmp_path: Path) -> Path:
    rows = [{"id": f"q{i}", "question": f"Say word{i}?", "answer": f"word{i}"} for i in range(6)]
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.slow
def test_answers_on_ray_workers_equal_a_local_run(ray_cluster: str, tmp_path: Path) -> None:
    from evals.answers.ray_workers import RayAnswers

    items = load_answer_qa(_qa(tmp_path))
    local = asyncio.run(run_answers(Echo().answer, items, tmp_path / "local", {}))
    pool = RayAnswers(make_echo, 2)
    try:
        on_ray = asyncio.run(run_answers(pool.answer, items, tmp_path / "ray", {}, concurrency=2))
    finally:
        pool.close()
    key = {r.question_id: (r.answer, r.em, r.f1) for r in local}
    assert {r.question_id: (r.answer, r.em, r.f1) for r in on_ray} == key
    assert all(r.em == 1.0 for r in read_answers(tmp_path / "ray")) and len(key) == 6


def test_the_cli_worker_factory_travels_to_workers_and_takes_its_endpoint(tmp_path: Path) -> None:
    """What `ark eval answers --executor ray` sends to each worker pickles (Ray needs that)."""
    wiring = Wiring(SargConfig(), "openai:m", None, "rules", {"base_url": "http://a/v1"})
    make = functools.partial(worker_answerer, tmp_path, wiring, ("http://b/v1", "http://c/v1"))
    assert pickle.loads(pickle.dumps(make)).args[1] == wiring
