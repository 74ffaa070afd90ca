"""Rule-policy teacher on a synthetic graph → dataset → LoRA student → `ark eval -m hf:`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app

runner = CliRunner(env={"COLUMNS": "400"})


def invoke(*args: str | Path) -> str:
    result = runner.invoke(build_app(), [str(a) for a in args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


def failing(*args: str | Path) -> str:
    result = runner.invoke(build_app(), [str(a) for a in args])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return " ".join(result.output.split())


def test_cli_reports_bad_input_without_traceback(tmp_path: Path) -> None:
    assert "not a run directory" in failing("distill", "dataset", tmp_path, "--out", "x")
    assert "adapter_config.json" in failing("distill", "merge", tmp_path, "--out", "x")
    config = tmp_path / "bad.yaml"
    config.write_text("learning_rat: 1\n")
    output = failing(
        "distill",
        "train",
        tmp_path,
        "--base-model",
        "b",
        "--out",
        tmp_path / "o",
        "--config",
        config,
    )
    assert "unknown key 'learning_rat'" in output and "learning_rate" in output
    assert "train.parquet does not exist" in failing(
        "distill", "train", tmp_path, "--base-model", "b", "--out", tmp_path / "o"
    )
    assert "keep must be" in failing(
        "distill", "dataset", tmp_path, "--out", tmp_path / "d", "--keep", "some"
    )


@pytest.mark.slow
def test_teacher_to_student_to_eval(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from distill.scratch import ScratchSpec, save_scratch_base

    snap, teacher, data = tmp_path / "snap", tmp_path / "teacher", tmp_path / "data"
    invoke("graph", "synth", "--domain", "academic", "--nodes", "400", "--out", snap)
    qa = snap / "qa" / "train.jsonl"
    invoke(
        "eval", snap, "--qa", qa, "--out", teacher, "-m", "rules", "--limit", "6", "--agents", "1"
    )
    output = invoke("distill", "dataset", teacher, "--out", data, "--val-fraction", "0.2")
    assert "questions read: 6" in output and "model_error" not in output

    graph_text = [
        f"{r['name']}\n{r['text']}" for r in pq.read_table(snap / "nodes.parquet").to_pylist()
    ]
    rows = [json.dumps(r) for r in pq.read_table(data / "train.parquet").to_pylist()]
    base = save_scratch_base(
        tmp_path / "base",
        graph_text + rows,
        ScratchSpec(vocab_size=3000, hidden_size=32, num_layers=1),
    )
    config = tmp_path / "fast.yaml"
    config.write_text(
        "learning_rate: 0.005\ngradient_accumulation_steps: 1\nlogging_steps: 1\n"
        "lora: {r: 4, alpha: 8, train_embeddings: true}\n"
    )
    adapter = tmp_path / "adapter"
    output = invoke(
        "distill",
        "train",
        data,
        "--base-model",
        base,
        "--out",
        adapter,
        "--config",
        config,
        "--max-steps",
        "2",
    )
    assert "trained 2 steps" in output

    student = tmp_path / "student"
    invoke(
        "eval",
        snap,
        "--qa",
        snap / "qa" / "test.jsonl",
        "--out",
        student,
        "-m",
        f"hf:{adapter}",
        "--limit",
        "3",
        "--agents",
        "1",
        "--max-steps",
        "2",
    )
    records = [json.loads(line) for line in (student / "results.jsonl").read_text().splitlines()]
    assert len(records) == 3
    for record in records:
        for trajectory in record["result"]["trajectories"]:
            assert trajectory["stop_reason"] in ("finish", "max_steps")
            assistant_turns = [m for m in trajectory["messages"] if m["role"] == "assistant"]
            assert assistant_turns, "the student produced no turn"
            # every call the student made, well-formed or not, was answered by a tool message
            calls = sum(len(m.get("tool_calls") or []) for m in assistant_turns)
            answered = sum(1 for m in trajectory["messages"] if m["role"] == "tool")
            assert answered == calls

    # Greedy turns of 3 agents x 2 questions at once go through the batched decoder.
    greedy = tmp_path / "greedy"
    invoke(
        "eval", snap, "--qa", snap / "qa" / "test.jsonl", "--out", greedy, "-m", f"hf:{adapter}",
        "--limit", "2", "--agents", "3", "--max-steps", "2", "--temperature", "0",
    )  # fmt: skip
    records = [json.loads(line) for line in (greedy / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        trajectories = record["result"]["trajectories"]
        assert len(trajectories) == 3
        assert all(t["stop_reason"] in ("finish", "max_steps") for t in trajectories)
        # greedy agents with one conversation write the same turns
        assert (
            trajectories[0]["messages"]
            == trajectories[1]["messages"]
            == trajectories[2]["messages"]
        )
