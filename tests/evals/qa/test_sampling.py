"""Seeded random question samples (`--sample N`, `--sample-fraction F`) and the shared request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from evals.qa.sampling import QuestionSample, SampleError
from evals.qa.sets import load_qa
from evals.runs.request import RunRequest
from evals.runs.store import read_results
from tests.evals.eval_graph import build_tiny

ITEMS = list(range(100))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_tiny(tmp_path_factory.mktemp("evals-sampling"))


def invoke(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(), [str(a) for a in args])
    return result.exit_code, " ".join(result.output.split())


def test_a_sample_is_random_seeded_and_keeps_the_set_order() -> None:
    picked = QuestionSample(size=10, seed=0).apply(ITEMS)
    assert len(picked) == 10 and picked == sorted(picked)
    assert picked != ITEMS[:10]  # random, not the first N
    assert QuestionSample(size=10, seed=0).apply(ITEMS) == picked
    assert QuestionSample(size=10, seed=1).apply(ITEMS) != picked


def test_with_one_seed_a_smaller_sample_is_inside_a_larger_one() -> None:
    # The 600-query student's questions are among the 6,000-query student's.
    small = set(QuestionSample(size=6, seed=3).apply(ITEMS))
    large = set(QuestionSample(size=60, seed=3).apply(ITEMS))
    assert small < large


@pytest.mark.parametrize(
    ("fraction", "total", "count"), [(0.1, 100, 10), (0.1, 280, 28), (0.1, 4, 1), (1.0, 7, 7)]
)
def test_fraction_rounds_and_keeps_at_least_one(fraction: float, total: int, count: int) -> None:
    assert len(QuestionSample(fraction=fraction).apply(list(range(total)))) == count


def test_no_sample_keeps_everything_and_a_large_size_keeps_all() -> None:
    assert QuestionSample().apply(ITEMS) == ITEMS and not QuestionSample().active
    assert QuestionSample(size=500).apply(ITEMS) == ITEMS
    assert QuestionSample().to_record() is None
    assert QuestionSample(fraction=0.1, seed=2).to_record() == {
        "size": None,
        "fraction": 0.1,
        "seed": 2,
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 0}, "positive integer"),
        ({"fraction": 0.0}, "(0, 1]"),
        ({"fraction": 1.5}, "(0, 1]"),
        ({"fraction": float("nan")}, "(0, 1]"),
        ({"size": 5, "fraction": 0.1}, "not both"),
    ],
)
def test_bad_samples_say_what_to_fix(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(SampleError, match=message.replace("(", r"\(").replace("]", r"\]")):
        QuestionSample(**kwargs)  # type: ignore[arg-type]


def test_the_request_samples_then_limits(tmp_path: Path) -> None:
    request = RunRequest(
        snapshot=tmp_path, qa=tmp_path, out=tmp_path, sample=QuestionSample(size=20), limit=5
    )
    assert request.select(ITEMS) == QuestionSample(size=20).apply(ITEMS)[:5]


def test_eval_and_baseline_take_the_same_sample_of_the_split(tiny, tmp_path: Path) -> None:
    snapshot, qa = tiny
    total = len(load_qa(qa))
    flags = ("--qa", qa, "--sample-fraction", "0.5", "--seed", "3", "--json")
    code, output = invoke("eval", snapshot, *flags, "--out", tmp_path / "agent", "--agents", "1")
    assert code == 0, output
    code, output = invoke("baseline", "bm25", snapshot, *flags, "--out", tmp_path / "bm25")
    assert code == 0, output
    agent_ids = sorted(r.question_id for r in read_results(tmp_path / "agent"))
    assert len(agent_ids) == round(total * 0.5)
    assert agent_ids == sorted(r.question_id for r in read_results(tmp_path / "bm25"))
    config = json.loads((tmp_path / "agent" / "config.json").read_text())
    assert config["sample"] == {"size": None, "fraction": 0.5, "seed": 3}
    # Another seed is another question set: resuming with it is refused, naming the change.
    code, output = invoke(
        "eval", snapshot, *flags[:-2], "4", "--out", tmp_path / "agent", "--agents", "1", "--resume"
    )
    assert code == 2 and "sample.seed: 3 -> 4" in output


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--sample", "3", "--sample-fraction", "0.1"), "not both"),
        (("--sample-fraction", "2"), "must be in (0, 1]"),
        (("--sample", "0"), "greater than or equal to 1"),
    ],
)
def test_cli_rejects_bad_samples(
    tiny, tmp_path: Path, flags: tuple[str, ...], message: str
) -> None:
    snapshot, qa = tiny
    code, output = invoke("eval", snapshot, "--qa", qa, "--out", tmp_path / "run", *flags)
    assert code == 2 and message in output and "Traceback" not in output
    assert not (tmp_path / "run").exists()
