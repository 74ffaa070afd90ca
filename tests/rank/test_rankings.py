"""Ranking sources: JSONL forms and their errors, run directories, agent signals, joins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.trajectory import QuestionResult, StepRecord, Trajectory
from evals.runs.store import RunRecord, RunStore
from rank.rankings import RankingError, agent_signals, read_rankings


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_jsonl_accepts_ids_pairs_and_objects(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            {"id": "q1", "ranking": ["a", "b", "a"], "query": "what?"},
            {"id": "q2", "ranking": [["a", 2.5], ["b", 1.0]]},
            {"id": 3, "ranking": [{"id": "c", "score": 0.9}]},
        ],
    )
    source = read_rankings(path)
    assert source.rankings["q1"].ids == ("a", "b")
    assert source.rankings["q1"].scores == (2.0, 1.0)
    assert source.rankings["q2"].scores == (2.5, 1.0)
    assert source.rankings["3"].ids == ("c",)
    assert source.queries == {"q1": "what?"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", '"id" and "ranking"'),
        ('{"id": "q"}', '"ranking" must be a list'),
        ('{"id": "q", "ranking": "a b"}', '"ranking" must be a list'),
        ('{"id": "q", "ranking": [1]}', "is not an id"),
        ('{"id": "q", "ranking": [["a", "high"]]}', "not a number"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "ok", "ranking": ["a"]}\n' + line + "\n")
    with pytest.raises(RankingError, match=r"bad\.jsonl:2") as error:
        read_rankings(path)
    assert message in str(error.value)


def test_duplicate_question_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [{"id": "q", "ranking": []}] * 2)
    with pytest.raises(RankingError, match="twice"):
        read_rankings(path)


def test_missing_source_and_plain_directory(tmp_path: Path) -> None:
    with pytest.raises(RankingError, match="does not exist"):
        read_rankings(tmp_path / "nope")
    with pytest.raises(RankingError, match="not a run directory"):
        read_rankings(tmp_path)


def _trajectory(answers: list[str], neighbor_calls: int, *, error: bool = False) -> Trajectory:
    steps = [
        StepRecord(index=i, kind="tool", tool_name="neighbors", wall_s=0.0)
        for i in range(neighbor_calls)
    ]
    return Trajectory(
        question="q?", model="rules", steps=steps, answers=answers,
        stop_reason="error" if error else "finish",
    )  # fmt: skip


def _agent_run(run_dir: Path, question_ids: list[str]) -> Path:
    with RunStore.open(run_dir, {"agent": {"model": "rules"}, "split": "val"}, resume=False) as s:
        for qid in question_ids:
            result = QuestionResult(
                question="q?",
                model="rules",
                trajectories=[
                    _trajectory(["a", "b"], 2),
                    _trajectory(["a"], 4),
                    _trajectory([], 0, error=True),
                ],
                fused=["a", "b"],
                votes={"a": 2, "b": 1},
            )
            s.append_result(
                RunRecord(question_id=qid, query="q?", gold=["a"], result=result, metrics={})
            )
    return run_dir


def test_agent_run_gives_votes_as_scores_and_signals(tmp_path: Path) -> None:
    source = read_rankings(_agent_run(tmp_path / "run", ["q1"]))
    ranking = source.rankings["q1"]
    assert ranking.ids == ("a", "b")
    assert ranking.scores == (2.0, 1.0)
    assert source.method == "rules" and source.has_signals
    assert ranking.signals is not None
    assert ranking.signals.agents == 2  # the failed agent does not count
    assert ranking.signals.agreement == 1.0
    assert ranking.signals.neighbor_calls == 3.0
    assert 0.9 < ranking.signals.vote_entropy < 0.92  # H(2/3, 1/3) / log 2


def test_signals_of_an_unanimous_single_answer() -> None:
    result = QuestionResult(question="q", model="m", fused=["a"], votes={"a": 3},
                            trajectories=[_trajectory(["a"], 0)] * 3)  # fmt: skip
    record = RunRecord(question_id="q", query="q", gold=[], result=result, metrics={})
    meta = agent_signals(record)
    assert (meta.agreement, meta.vote_entropy, meta.fused_length) == (1.0, 0.0, 1)


def test_comma_join_merges_runs_and_rejects_overlap(tmp_path: Path) -> None:
    val = _agent_run(tmp_path / "val", ["v1", "v2"])
    test = write_jsonl(tmp_path / "t.jsonl", [{"id": "t1", "ranking": ["z"]}])
    merged = read_rankings(f"{val},{test}")
    assert set(merged.rankings) == {"v1", "v2", "t1"}
    clash = write_jsonl(tmp_path / "c.jsonl", [{"id": "v1", "ranking": ["z"]}])
    with pytest.raises(RankingError, match="disjoint"):
        read_rankings(f"{val},{clash}")
