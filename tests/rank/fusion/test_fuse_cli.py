"""`ark fuse` end to end: rule-policy and BM25 runs on val + test, grid on val, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from evals.runs.store import read_config, read_results
from tests.evals.eval_graph import build_tiny

runner = CliRunner()


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(build_app(), [str(a) for a in args])
    return result.exit_code, result.output


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny snapshot with val/test splits and agent + BM25 runs over both."""
    root = tmp_path_factory.mktemp("fuse")
    snapshot, qa_file = build_tiny(root)
    lines = qa_file.read_text().splitlines()
    qa = root / "qa"
    qa.mkdir()
    (qa / "val.jsonl").write_text("\n".join(lines[::2]) + "\n")
    (qa / "test.jsonl").write_text("\n".join(lines[1::2]) + "\n")
    paths: dict[str, Path] = {"snapshot": snapshot, "qa": qa}
    for split in ("val", "test"):
        agent = root / f"rules-{split}"
        code, output = invoke(
            "eval", snapshot, "--qa", qa, "--split", split, "--out", agent, "--agents", "2",
            "--json",
        )  # fmt: skip
        assert code == 0, output
        bm25 = root / f"bm25-{split}"
        code, output = invoke(
            "baseline", "bm25", snapshot, "--qa", qa, "--split", split, "--out", bm25, "--json"
        )
        assert code == 0, output
        paths[f"rules-{split}"], paths[f"bm25-{split}"] = agent, bm25
    return paths


def sources(runs: dict[str, Path]) -> list[str]:
    return [f"{runs['rules-val']},{runs['rules-test']}", f"{runs['bm25-val']},{runs['bm25-test']}"]


def test_fuse_grid_writes_a_reportable_run(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "fused"
    code, output = invoke("fuse", *sources(runs), "--qa", runs["qa"], "--out", out, "--grid")
    assert code == 0, output
    assert "validation static" in output and "validation agents" in output
    records = read_results(out)
    test_ids = {json.loads(line)["id"] for line in (runs["qa"] / "test.jsonl").open()}
    assert {r.question_id for r in records} == test_ids
    assert all(len(r.result.config["scores"]) == len(r.result.fused) for r in records)
    assert read_config(out)["fusion"]["tuned_on"] == "val"
    spec = json.loads((out / "fusion.json").read_text())
    val_lines = (runs["qa"] / "val.jsonl").read_text().splitlines()
    assert spec["validation"]["questions"] == len(val_lines)
    assert len(spec["validation"]["heatmap"]["hit@1"]) == 21
    assert (out / "fusion_heatmap.png").stat().st_size > 0
    code, output = invoke("eval", "report", runs["rules-test"], runs["bm25-test"], out)
    assert code == 0, output
    assert "rrf-" in output


def test_fused_bm25_alone_keeps_its_order(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "one"
    code, output = invoke(
        "fuse", runs["bm25-test"], "--qa", runs["qa"], "--out", out, "--weights", "1", "--json"
    )
    assert code == 0, output
    baseline = {r.question_id: r.result.fused for r in read_results(runs["bm25-test"])}
    for record in read_results(out):
        assert record.result.fused == baseline[record.question_id][:100]


def test_spec_reuse_gives_the_same_lists(runs: dict[str, Path], tmp_path: Path) -> None:
    tuned = tmp_path / "tuned"
    assert invoke("fuse", *sources(runs), "--qa", runs["qa"], "--out", tuned, "--grid")[0] == 0
    again = tmp_path / "again"
    code, output = invoke(
        "fuse", *sources(runs), "--qa", runs["qa"], "--out", again, "--spec", tuned / "fusion.json"
    )
    assert code == 0, output
    assert [r.result.fused for r in read_results(again)] == [
        r.result.fused for r in read_results(tuned)
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--weights", "0.5"], "1 weights given for 2 sources"),
        (["--weights", "a,b"], "numbers separated by commas"),
        (["--mode", "max", "--grid"], "best, static, dynamic or agents"),
    ],
)
def test_bad_options_say_how_to_fix(
    runs: dict[str, Path], tmp_path: Path, extra: list[str], message: str
) -> None:
    code, output = invoke(
        "fuse", *sources(runs), "--qa", runs["qa"], "--out", tmp_path / "o", *extra
    )
    assert code == 2
    assert message in flat(output)


def test_source_without_the_tuning_split_is_an_error(runs: dict[str, Path], tmp_path: Path) -> None:
    code, output = invoke(
        "fuse", runs["rules-test"], runs["bm25-test"], "--qa", runs["qa"],
        "--out", tmp_path / "o", "--grid",
    )  # fmt: skip
    assert code == 2
    assert "ranks none of the" in flat(output) and "joined by a comma" in flat(output)


def test_existing_output_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "x"
    assert invoke("fuse", runs["bm25-test"], "--qa", runs["qa"], "--out", out)[0] == 0
    code, output = invoke("fuse", runs["bm25-test"], "--qa", runs["qa"], "--out", out)
    assert code == 2
    assert "not empty" in flat(output) and "choose a new --out" in flat(output)
    assert "--resume" not in flat(output)  # fuse takes none
