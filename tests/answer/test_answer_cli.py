"""`ark answer`, `ark eval answers` and `ark eval answers-report` end to end (offline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from tests.answer.conftest import QUESTION


def test_answer_prints_the_answer_its_chains_and_sources(
    bridge_kg: Path, encoder_dir: Path
) -> None:
    runner, app = CliRunner(), build_app()
    args = ["answer", str(bridge_kg), QUESTION, "--encoder", str(encoder_dir), "--tau", "-1"]
    printed = runner.invoke(app, args)
    assert printed.exit_code == 0, printed.output
    assert "Answer:" in printed.output and "chain 1 (score" in printed.output
    assert "--[" in printed.output  # the relation arrows survive the console's markup
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    result = json.loads(as_json.output[as_json.output.index("{") :])
    assert result["chains"] and result["method"] == "sarg" and result["model"] == "offline"
    assert set(result["chains"][0]["sources"]) <= set(result["citations"])


@pytest.mark.slow
def test_eval_answers_writes_a_run_and_the_report_reads_it(
    bridge_kg: Path, encoder_dir: Path, tmp_path: Path
) -> None:
    qa = tmp_path / "qa.jsonl"
    rows = [{"id": "q1", "question": QUESTION, "answer": "1755", "hops": 2}]
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    runner, app = CliRunner(), build_app()
    out = tmp_path / "run"
    args = ["eval", "answers", str(bridge_kg), "--qa", str(qa), "--out", str(out)]
    endpoint = ["--request-timeout", "9", "--call-deadline", "30", "--max-retries", "1"]
    endpoint += ["--base-url", "http://user:secret@127.0.0.1:9/v1"]
    done = runner.invoke(
        app, [*args, "--encoder", str(encoder_dir), "--tau", "-1", "--json", *endpoint]
    )
    assert done.exit_code == 0, done.output
    # The generator's endpoint flags are recorded with the run, credentials redacted.
    stored = json.loads((out / "config.json").read_text())["baseline"]
    assert (stored["request_timeout_s"], stored["call_deadline_s"], stored["max_retries"]) == (
        9.0,
        30.0,
        1,
    )
    assert "secret" not in (out / "config.json").read_text()
    summary = json.loads(done.output.strip().splitlines()[-1])
    assert summary["n"] == 1
    record = json.loads((out / "answers.jsonl").read_text())
    assert record["extra"] == {"hops": 2} and record["result"]["chains"]
    report = runner.invoke(app, ["eval", "answers-report", str(out)])
    assert report.exit_code == 0 and "| run (sarg, offline) | 1 |" in report.output


def test_bad_flags_fail_with_one_line(bridge_kg: Path) -> None:
    runner, app = CliRunner(), build_app()
    bad_method = runner.invoke(app, ["answer", str(bridge_kg), "q", "--method", "magic"])
    assert bad_method.exit_code == 2 and "unknown method 'magic'" in bad_method.output
    rules = runner.invoke(app, ["answer", str(bridge_kg), "q", "-m", "rules"])
    assert rules.exit_code == 2 and "omit -m to answer offline" in rules.output


@pytest.mark.slow
def test_a_seeded_sample_is_the_same_questions_every_time(
    bridge_kg: Path, encoder_dir: Path, tmp_path: Path
) -> None:
    qa = tmp_path / "qa.jsonl"
    rows = [{"id": f"q{i}", "question": f"{QUESTION} ({i})", "answer": "1755"} for i in range(6)]
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    runner, app = CliRunner(), build_app()
    chosen = []
    for name in ("one", "two"):
        out = tmp_path / name
        args = ["eval", "answers", str(bridge_kg), "--qa", str(qa), "--out", str(out)]
        args += ["--sample", "3", "--seed", "7", "--encoder", str(encoder_dir), "--method", "rag"]
        done = runner.invoke(app, args)
        assert done.exit_code == 0, done.output
        lines = (out / "answers.jsonl").read_text().splitlines()
        chosen.append([json.loads(line)["question_id"] for line in lines])
        assert json.loads((out / "config.json").read_text())["sample"]["seed"] == 7
    assert chosen[0] == chosen[1] and len(chosen[0]) == 3


def test_sample_and_limit_together_and_gold_for_one_question_fail_with_one_line(
    bridge_kg: Path, tmp_path: Path
) -> None:
    runner, app = CliRunner(), build_app()
    args = ["eval", "answers", str(bridge_kg), "--qa", str(tmp_path / "qa.jsonl")]
    args += ["--out", str(tmp_path / "o")]
    both = runner.invoke(app, [*args, "--sample", "2", "--limit", "2"])
    assert both.exit_code == 2 and "not both" in both.output
    gold = runner.invoke(app, ["answer", str(bridge_kg), QUESTION, "--retrieval", "gold"])
    assert gold.exit_code == 2 and "ark eval answers --qa FILE" in gold.output
