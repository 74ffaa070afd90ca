"""`--executor ray`: the same run directory as a local run, surviving killed workers and drivers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from evals.runs.executor import ExecutorConfig
from evals.runs.request import RunRequest
from evals.runs.store import RESULTS_FILE
from evals.summary import summarize_run
from graphs.errors import ConfigError
from rank.baselines.plan_run import run_plans
from tests.evals.eval_graph import build_tiny
from tests.evals.ray_planners import RulesPlanners

REPO = Path(__file__).resolve().parents[3]
TIMINGS = {"wall_s", "plan_s"}


def _records(run_dir: Path) -> dict[str, Any]:
    """Question id -> record without wall-clock fields (they differ between any two runs)."""

    def scrub(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items() if k not in TIMINGS}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    lines = (run_dir / RESULTS_FILE).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len({r["question_id"] for r in records}) == len(records), "a question ran twice"
    return {r["question_id"]: scrub(r) for r in records}


def _metrics(run_dir: Path) -> dict[str, Any]:
    summary = summarize_run(run_dir).to_dict()
    skip = ("wall", "latency", "run_dir")
    return {k: v for k, v in summary.items() if not any(word in k for word in skip)}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kind": "spark"}, "choose from local, ray"),
        ({"workers": 0}, "workers must be >= 1"),
        ({"shard_size": -1}, "shard_size >= 0"),
        ({"endpoints": ("http://a",)}, "add --executor ray"),
    ],
)
def test_bad_executor_configs_say_how_to_fix_them(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ExecutorConfig(**changes)


def test_shards_keep_order_and_endpoints_rotate() -> None:
    config = ExecutorConfig(kind="ray", shard_size=2, endpoints=("http://a", "http://b"))
    assert config.shards(list(range(5)), concurrency=4) == [[0, 1], [2, 3], [4]]
    assert ExecutorConfig(kind="ray").shards(list(range(5)), concurrency=4) == [[0, 1, 2, 3], [4]]
    assert [config.endpoint_of(i) for i in range(3)] == ["http://a", "http://b", "http://a"]
    assert ExecutorConfig().endpoint_of(5) is None


def test_local_runs_never_import_ray(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    code = (
        "import sys; from typer.testing import CliRunner; from cli.app import build_app; "
        f"r = CliRunner().invoke(build_app(), ['plan', {str(snapshot)!r}, '--qa', {str(qa)!r}, "
        f"'--out', {str(tmp_path / 'run')!r}]); assert r.exit_code == 0, r.output; "
        "assert 'ray' not in sys.modules, 'the local path imported ray'"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_endpoints_without_ray_is_a_usage_error(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    args = ["plan", str(snapshot), "--qa", str(qa), "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(build_app(), [*args, "--endpoints", "http://a,http://b"])
    assert result.exit_code == 2 and "--executor ray" in result.output


def test_a_bad_model_spec_fails_before_ray_starts_or_the_run_dir_exists(tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    out = tmp_path / "run"
    args = ["eval", str(snapshot), "--qa", str(qa), "--out", str(out), "--executor", "ray"]
    result = CliRunner().invoke(build_app(), [*args, "--model", f"hf:{tmp_path / 'nothing'}"])
    assert result.exit_code == 2 and "no such directory" in result.output
    assert not out.exists()


@pytest.mark.slow
def test_ray_plan_and_eval_runs_equal_local_runs(ray_cluster: str, tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    app, runner = build_app(), CliRunner()
    for command, extra in (("plan", []), ("eval", ["--model", "rules", "--agents", "2"])):
        outs = {kind: tmp_path / f"{command}-{kind}" for kind in ("local", "ray")}
        for kind, out in outs.items():
            args = [command, str(snapshot), "--qa", str(qa), "--out", str(out), "--limit", "9"]
            args += extra
            spread = ["--executor", "ray", "--workers", "2", "--shard-size", "3"]
            result = runner.invoke(app, [*args, *(spread if kind == "ray" else [])])
            assert result.exit_code == 0, result.output
        assert _records(outs["ray"]) == _records(outs["local"]), command
        assert _metrics(outs["ray"]) == _metrics(outs["local"]), command
        assert len(_records(outs["ray"])) == 9


@pytest.mark.slow
def test_a_worker_killed_mid_shard_is_rerun_and_the_run_completes(
    ray_cluster: str, tmp_path: Path
) -> None:
    snapshot, qa = build_tiny(tmp_path)
    marker = tmp_path / "died"
    request = RunRequest(snapshot=snapshot, qa=qa, out=tmp_path / "ray", concurrency=2, limit=8)
    run_plans(
        request,
        RulesPlanners(die_once=str(marker)),
        planner_name="rules",
        executor=ExecutorConfig(kind="ray", shard_size=3),
    )
    assert marker.exists()  # a worker did die mid-shard
    run_plans(request.elsewhere(tmp_path / "local"), RulesPlanners(), planner_name="rules")
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")


_DRIVER = """
import sys
from pathlib import Path
from evals.runs.executor import ExecutorConfig
from evals.runs.request import RunRequest
from rank.baselines.plan_run import run_plans
from tests.evals.ray_planners import RulesPlanners
snapshot, qa, out = map(Path, sys.argv[1:4])
run_plans(
    RunRequest(snapshot=snapshot, qa=qa, out=out, concurrency=1, limit=12),
    RulesPlanners(delay_s=0.4), planner_name="rules",
    executor=ExecutorConfig(kind="ray", shard_size=1),
)
"""


@pytest.mark.slow
def test_a_killed_driver_resumes_to_the_same_run(ray_cluster: str, tmp_path: Path) -> None:
    snapshot, qa = build_tiny(tmp_path)
    out = tmp_path / "ray"
    driver = subprocess.Popen(
        [sys.executable, "-c", _DRIVER, str(snapshot), str(qa), str(out)],
        cwd=REPO,
        env={**os.environ, "RAY_ADDRESS": ray_cluster},
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 180
    results = out / RESULTS_FILE
    while not results.exists() or results.read_bytes().count(b"\n") < 3:
        assert driver.poll() is None, driver.stderr.read() if driver.stderr else ""
        assert time.monotonic() < deadline, "the driver never wrote a result"
        time.sleep(0.1)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    written = results.read_bytes().count(b"\n")
    total = 12
    assert 3 <= written < total
    request = RunRequest(snapshot=snapshot, qa=qa, out=out, concurrency=1, resume=True, limit=12)
    plan = run_plans(
        request,
        RulesPlanners(),
        planner_name="rules",
        executor=ExecutorConfig(kind="ray", shard_size=2),
    )
    assert plan.already_done >= written and plan.total == total
    run_plans(
        request.elsewhere(tmp_path / "local", resume=False), RulesPlanners(), planner_name="rules"
    )
    assert _records(out) == _records(tmp_path / "local")


@pytest.mark.slow
def test_extraction_on_ray_builds_the_snapshot_a_local_build_does(
    ray_cluster: str, tmp_path: Path
) -> None:
    """`ark graph extract --executor ray`: passages spread over 2 workers, the same graph."""
    pytest.importorskip("spacy")
    import pyarrow.parquet as pq

    docs = tmp_path / "docs"
    docs.mkdir()
    texts = {
        "ada.txt": "Ada Lovelace was born in London. She worked with Charles Babbage.",
        "babbage.txt": "Charles Babbage designed the Analytical Engine in London.",
        "turing.txt": "Alan Turing was born in London. He studied at Cambridge.",
    }
    for name, text in texts.items():
        (docs / name).write_text(text)
    app, runner = build_app(), CliRunner()
    for kind in ("local", "ray"):
        spread = ["--executor", "ray", "--workers", "2"] if kind == "ray" else []
        args = ["graph", "extract", str(docs), "--out", str(tmp_path / kind)]
        args += ["--cache", str(tmp_path / f"{kind}.sqlite"), *spread]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    for table in ("nodes.parquet", "edges.parquet"):
        local = pq.read_table(tmp_path / "local" / table)
        assert pq.read_table(tmp_path / "ray" / table).equals(local), table
