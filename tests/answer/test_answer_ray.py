"""`ark eval answers --executor ray`: the same records as a local run, answered by Ray workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from tests.answer.conftest import QUESTION

TIMINGS = {"timings", "wall_s", "construct_s", "generate_s", "extract_s"}


def scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


@pytest.mark.slow
def test_answers_on_ray_equal_a_local_run(
    ray_cluster: str, bridge_kg: Path, encoder_dir: Path, tmp_path: Path
) -> None:
    qa = tmp_path / "qa.jsonl"
    rows = [{"id": f"q{i}", "question": QUESTION, "answer": "1755"} for i in range(1)]
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    app, runner = build_app(), CliRunner()
    records = {}
    for kind in ("local", "ray"):
        out = tmp_path / kind
        args = ["eval", "answers", str(bridge_kg), "--qa", str(qa), "--out", str(out)]
        args += ["--encoder", str(encoder_dir), "--tau", "-1"]
        if kind == "ray":
            args += ["--executor", "ray", "--workers", "1"]  # models load once per worker
        done = runner.invoke(app, args)
        assert done.exit_code == 0, done.output
        lines = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
        records[kind] = {line["question_id"]: scrub(line) for line in lines}
    assert len(records["ray"]) == 1 and records["ray"] == records["local"]
