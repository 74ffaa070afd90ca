"""`ark eval answers`' run directory: records with chains, resume, failures, torn tails, report."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.models.base import EndpointUnreachableError, ModelError
from answer.result import AnswerResult, ChainRecord
from evals.answers.report import load_answer_runs, markdown_answers_report
from evals.answers.run import (
    ANSWERS_FILE,
    AnswerQAError,
    load_answer_qa,
    read_answers,
    run_answers,
    summarise,
    unresolved_failures,
)
from evals.runs.circuit import UNREACHABLE, EndpointDownError
from evals.runs.errors import RunWriteError
from evals.runs.store import RunStoreError, read_failures
from tests.evals.runs.test_runstore import failing_write

CONFIG = {"baseline": {"method": "sarg", "model": "offline"}, "snapshot": "s", "qa": "q"}


def _qa(tmp_path: Path) -> Path:
    rows = [
        {"id": "a", "question": "Capital of France?", "answer": "Paris", "level": "easy"},
        {"id": "b", "question": "Two plus two?", "answer": "4"},
        {"id": "c", "query": "Is the sky blue?", "answers": ["yes"]},
    ]
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


class Oracle:
    """Answers from a table; raises ModelError for questions in `broken`."""

    def __init__(self, table: dict[str, str], broken: frozenset[str] = frozenset()) -> None:
        self.table = table
        self.broken = broken
        self.asked: list[str] = []
        self.supporting: list[list[str]] = []

    async def answer(self, question: str, supporting: Sequence[str] = ()) -> AnswerResult:
        self.asked.append(question)
        self.supporting.append(list(supporting))
        if question in self.broken:
            raise ModelError("endpoint down")
        chain = ChainRecord(
            nodes=["x", "y"],
            labels=["X", "Y"],
            relations=["r"],
            score=0.5,
            sources=["p"],
            text="X --[r]--> Y",
        )
        return AnswerResult(
            question=question,
            answer=self.table[question],
            method="sarg",
            model="offline",
            chains=[chain],
            citations=["p"],
            timings={"construct_s": 0.25},
        )


TABLE = {"Capital of France?": "paris.", "Two plus two?": "five", "Is the sky blue?": "Yes"}


def test_qa_rows_keep_extra_keys_and_accept_query_answers(tmp_path: Path) -> None:
    items = load_answer_qa(_qa(tmp_path))
    assert [i.id for i in items] == ["a", "b", "c"]
    assert items[0].extra == {"level": "easy"} and items[2].answers == ("yes",)


@pytest.mark.parametrize("row", ['{"id": 1}', "[1]", "{bad", '{"id": "x", "question": "q"}'])
def test_bad_qa_rows_say_what_is_needed(tmp_path: Path, row: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(row + "\n")
    with pytest.raises(AnswerQAError, match=r"bad.jsonl:1"):
        load_answer_qa(path)


def test_run_scores_stores_chains_and_resumes(tmp_path: Path) -> None:
    items, out = load_answer_qa(_qa(tmp_path)), tmp_path / "run"
    oracle = Oracle(TABLE)
    records = asyncio.run(run_answers(oracle.answer, items, out, CONFIG))
    assert [(r.question_id, r.em, r.f1) for r in records] == [
        ("a", 1.0, 1.0),
        ("b", 0.0, 0.0),
        ("c", 1.0, 1.0),
    ]
    assert records[0].result.chains[0].text == "X --[r]--> Y" and records[0].extra == {
        "level": "easy"
    }
    again = Oracle(TABLE)
    asyncio.run(run_answers(again.answer, items, out, CONFIG, resume=True))
    assert again.asked == []
    with pytest.raises(RunStoreError, match="not empty"):
        asyncio.run(run_answers(again.answer, items, out, CONFIG))
    other = {**CONFIG, "baseline": {"method": "rag", "model": "offline"}}
    with pytest.raises(RunStoreError, match="another configuration"):
        asyncio.run(run_answers(again.answer, items, out, other, resume=True))


def test_failures_are_recorded_and_retried_on_resume(tmp_path: Path) -> None:
    items, out = load_answer_qa(_qa(tmp_path)), tmp_path / "run"
    asyncio.run(run_answers(Oracle(TABLE, frozenset({"Two plus two?"})).answer, items, out, CONFIG))
    assert [f.question_id for f in read_failures(out)] == ["b"]
    assert [r.question_id for r in read_answers(out)] == ["a", "c"]
    retry = Oracle(TABLE)
    records = asyncio.run(run_answers(retry.answer, items, out, CONFIG, resume=True))
    assert retry.asked == ["Two plus two?"] and len(records) == 3


def test_a_failed_question_scores_zero_in_every_mean_and_is_listed(tmp_path: Path) -> None:
    items, out = load_answer_qa(_qa(tmp_path)), tmp_path / "run"
    broken = Oracle(TABLE, frozenset({"Capital of France?"}))  # "a" would score 1
    records = asyncio.run(run_answers(broken.answer, items, out, CONFIG))
    summary = summarise(records, unresolved_failures(out, records))
    assert summary["n"] == 3 and summary["answered"] == 2 and summary["failed"] == ["a"]
    assert summary["em"] == pytest.approx(1 / 3) and summary["f1"] == pytest.approx(1 / 3)
    text = markdown_answers_report(load_answer_runs([out]))
    assert "| run (sarg, offline) | 3 | 0.333 | 0.333 | 0.25 | 0.00 | 1 | 0 |" in text
    assert "- run (sarg, offline): a" in text


def test_supporting_ids_reach_the_answerer(tmp_path: Path) -> None:
    rows = [
        {"id": "s", "question": "Capital of France?", "answer": "Paris", "supporting": ["d1"]},
        {"id": "c", "question": "Two plus two?", "answer": "4", "context": ["d2", "d3"]},
    ]
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    oracle = Oracle(TABLE)
    asyncio.run(run_answers(oracle.answer, load_answer_qa(qa), tmp_path / "run", CONFIG))
    assert oracle.supporting == [["d1"], ["d2", "d3"]]


def test_supporting_must_be_a_list_of_ids(tmp_path: Path) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "x", "question": "q", "answer": "a", "supporting": "d1"}))
    with pytest.raises(AnswerQAError, match="must be a list of id strings"):
        load_answer_qa(qa)


def test_a_torn_last_line_is_ignored_then_cut_on_resume(tmp_path: Path) -> None:
    items, out = load_answer_qa(_qa(tmp_path)), tmp_path / "run"
    asyncio.run(run_answers(Oracle(TABLE).answer, items[:1], out, CONFIG))
    with (out / ANSWERS_FILE).open("a") as handle:
        handle.write('{"question_id": "b", "quest')
    assert [r.question_id for r in read_answers(out)] == ["a"]
    asyncio.run(run_answers(Oracle(TABLE).answer, items, out, CONFIG, resume=True))
    assert [r.question_id for r in read_answers(out)] == ["a", "b", "c"]


def test_an_unreadable_complete_last_line_is_cut_on_resume(tmp_path: Path) -> None:
    items, out = load_answer_qa(_qa(tmp_path)), tmp_path / "run"
    asyncio.run(run_answers(Oracle(TABLE).answer, items[:1], out, CONFIG))
    with (out / ANSWERS_FILE).open("a") as handle:
        handle.write('{"question_id": "b"}\n')  # a whole line, but not an AnswerRecord
    asyncio.run(run_answers(Oracle(TABLE).answer, items, out, CONFIG, resume=True))
    assert [r.question_id for r in read_answers(out)] == ["a", "b", "c"]


def test_a_full_disk_keeps_every_answer_and_says_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items, out = load_answer_qa(_qa(tmp_path)), tmp_path / "run"
    failing_write(monkeypatch, ANSWERS_FILE, 1, on="write")
    with pytest.raises(RunWriteError, match="no space left") as error:
        asyncio.run(run_answers(Oracle(TABLE).answer, items, out, CONFIG))
    assert "--resume" in str(error.value)
    monkeypatch.undo()
    assert (out / ANSWERS_FILE).read_bytes().endswith(b"\n")
    assert [r.question_id for r in read_answers(out)] == ["a"]


def test_report_puts_runs_side_by_side(tmp_path: Path) -> None:
    items = load_answer_qa(_qa(tmp_path))
    asyncio.run(run_answers(Oracle(TABLE).answer, items, tmp_path / "one", CONFIG))
    better = {**TABLE, "Two plus two?": "4"}
    asyncio.run(run_answers(Oracle(better).answer, items, tmp_path / "two", CONFIG))
    text = markdown_answers_report(load_answer_runs([tmp_path / "one", tmp_path / "two"]))
    assert "| one (sarg, offline) | 3 | 0.667 | 0.667 | 0.25 |" in text
    assert "| two (sarg, offline) | 3 | 1.000 | 1.000 | 0.25 |" in text
    assert "| b | 4 | five (F1 0.00) | 4 (✓) |" in text


def test_report_refuses_an_agent_run(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"agent": {}}')
    with pytest.raises(RunStoreError, match="not an answers run"):
        load_answer_runs([tmp_path])


class Unreachable(Oracle):
    """Every question finds nothing answering at the endpoint."""

    async def answer(self, question: str, supporting: Sequence[str] = ()) -> AnswerResult:
        self.asked.append(question)
        raise EndpointUnreachableError("cannot reach http://127.0.0.1:9/v1", url="x")


def test_an_unreachable_endpoint_stops_the_batch_on_the_one_breaker(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": "x"} for i in range(10)]
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    down, out = Unreachable({}), tmp_path / "run"
    with pytest.raises(EndpointDownError, match="3 questions in a row") as stopped:
        asyncio.run(run_answers(down.answer, load_answer_qa(qa), out, CONFIG))
    assert len(down.asked) == 3  # not one timeout per question of the batch
    assert "the 7 not yet answered stay pending" in str(stopped.value)
    assert [f.error_type for f in read_failures(out)] == [UNREACHABLE] * 3


class Overlapping(Oracle):
    """Counts the questions in flight at once (each answer yields to the loop first)."""

    def __init__(self, table: dict[str, str]) -> None:
        super().__init__(table)
        self.inside = self.most = 0

    async def answer(self, question: str, supporting: Sequence[str] = ()) -> AnswerResult:
        self.inside += 1
        self.most = max(self.most, self.inside)
        await asyncio.sleep(0)
        try:
            return await super().answer(question, supporting)
        finally:
            self.inside -= 1


def test_concurrent_answers_write_every_record_and_stop_on_the_breaker(tmp_path: Path) -> None:
    """Up to `concurrency` questions at once (one per Ray worker); the breaker still stops."""
    overlap = Overlapping(TABLE)
    records = asyncio.run(
        run_answers(overlap.answer, load_answer_qa(_qa(tmp_path)), tmp_path / "run",
                    CONFIG, concurrency=2)
    )  # fmt: skip
    assert overlap.most == 2 and {r.question for r in records} == set(TABLE)
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": "x"} for i in range(10)]
    qa = tmp_path / "down.jsonl"
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    down = Unreachable({})
    with pytest.raises(EndpointDownError):
        asyncio.run(run_answers(down.answer, load_answer_qa(qa), tmp_path / "down", CONFIG,
                                concurrency=2))  # fmt: skip
    assert len(down.asked) <= 4  # no question starts once the breaker has tripped
    assert len(read_failures(tmp_path / "down")) == len(down.asked)
