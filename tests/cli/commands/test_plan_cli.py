"""`ark plan` end to end: one question shown, a question set as a run, fused by dynamic RRF."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from evals.runs.store import read_config, read_results
from graphs.synth.generate import generate

runner = CliRunner()


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(build_app(), [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plan") / "academic"
    generate("academic", 5, out, nodes=800)
    return out


def first(graph: Path, family: str) -> dict:
    rows = [json.loads(line) for line in (graph / "qa" / "test.jsonl").open()]
    return next(r for r in rows if r["family"] == family)


def test_plan_prints_the_plan_bindings_count_ranking_and_cypher(graph: Path) -> None:
    question = first(graph, "one_hop")["query"]
    code, output = invoke("plan", graph, question, "--cypher", "--top", "3")
    assert code == 0, output
    assert '"anchors"' in output and '"risk_level": "normal"' in output
    assert "A1 binds 1:" in output and "n_cand " in output
    assert "  1. [" in output and "MATCH (A1)-[" in output


def test_plan_json_records_what_fusion_reads(graph: Path) -> None:
    row = first(graph, "one_hop")
    code, output = invoke("plan", graph, row["query"], "--json")
    assert code == 0, output
    record = json.loads(output)
    assert record["n_cand"] >= 1 and record["risk_level"] == "normal"
    assert record["ranking"][0] in row["answer_ids"]
    assert record["invalid_plan"] is False and record["plan"]["target"]["labels"] == ["paper"]


def test_plan_needs_a_question_or_a_question_set(graph: Path) -> None:
    code, output = invoke("plan", graph)
    assert code == 2 and "QUESTION or --qa" in " ".join(output.split())


def test_a_plan_run_fuses_by_n_cand_and_risk_level(graph: Path, tmp_path: Path) -> None:
    qa = graph / "qa"
    for split in ("val", "test"):
        code, output = invoke("plan", graph, "--qa", qa, "--split", split,
                              "--out", tmp_path / f"plan-{split}")  # fmt: skip
        assert code == 0, output
        code, output = invoke("baseline", "bm25", graph, "--qa", qa, "--split", split,
                              "--out", tmp_path / f"bm25-{split}")  # fmt: skip
        assert code == 0, output
    records = read_results(tmp_path / "plan-test")
    assert len(records) == len((qa / "test.jsonl").read_text().splitlines())
    assert {r.result.config["risk_level"] for r in records} >= {"normal", "no_trade"}
    assert all(isinstance(r.result.config["n_cand"], int) for r in records)
    assert read_config(tmp_path / "plan-test")["plan"]["planner"] == "rules"
    sources = [f"{tmp_path / 'plan-val'},{tmp_path / 'plan-test'}",
               f"{tmp_path / 'bm25-val'},{tmp_path / 'bm25-test'}"]  # fmt: skip
    out = tmp_path / "fused"
    code, output = invoke("fuse", *sources, "--qa", qa, "--out", out, "--grid", "--mode", "dynamic")
    assert code == 0, output
    assert "validation dynamic" in output and "applied dynamic RRF" in output
    spec = json.loads((out / "fusion.json").read_text())["spec"]
    assert spec["mode"] == "dynamic" and len(spec["bucket_weights"]) == 5
    assert len(spec["risk_multipliers"]) == 4
    assert spec["bucket_weights"][0] in (1.0, 1.2, 1.4, 1.6, 2.0)
    code, output = invoke("eval", "report", tmp_path / "plan-test", out, "--out", tmp_path / "rep")
    assert code == 0, output


def test_a_served_plan_run_counts_how_its_plans_came_back(graph: Path, tmp_path: Path) -> None:
    """Replies that are no plan: each question falls back to text, counted and printed."""
    from tests.agent.fake_openai_server import FakeOpenAIServer, text_reply

    with FakeOpenAIServer([text_reply("I would search.")] * 4) as server:
        code, output = invoke(
            "plan", graph, "--qa", graph / "qa", "--split", "test", "--limit", "2",
            "--out", tmp_path / "served", "-m", "openai:fake", "--base-url", server.base_url,
        )  # fmt: skip
        sent = [request.body for request in server.requests]
    assert code == 0, output
    assert "plans: 2 planned, 2 invalid (text fallback), 0 repaired; asked as schema 4" in output
    assert all(body["response_format"]["type"] == "json_schema" for body in sent)
    records = read_results(tmp_path / "served")
    assert all(r.result.config["plan_asked_as"] == ["schema", "schema"] for r in records)


def test_an_unknown_structured_mode_is_refused(graph: Path) -> None:
    code, output = invoke("plan", graph, "q", "--structured", "grammar")
    assert code == 2 and "choose one of: auto, schema, prompt" in " ".join(
        output.replace("│", " ").split()
    )
