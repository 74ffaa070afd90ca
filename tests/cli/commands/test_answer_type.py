"""`--answer-type`: a run's answers restricted to node types without rebuilding the snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from graphs.errors import GraphError
from graphs.snapshot import Snapshot
from tests.evals.eval_graph import build_tiny


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny(tmp_path_factory.mktemp("answer-type"))[0]


def test_a_runs_answers_have_the_type_asked_for(tiny: Path) -> None:
    snapshot = Snapshot.open(tiny)
    types = {t: snapshot.type_code(t) for t in snapshot.manifest.node_types}
    for wanted, question in (("brand", "Who makes home appliances?"),
                             ("product", "Which electric kettle is there?")):  # fmt: skip
        argv = ["ask", str(tiny), question, "--agents", "1", "--json", "--answer-type", wanted]
        result = CliRunner().invoke(build_app(), argv)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["fused"] and data["config"]["answer_types"] == [wanted]
        kinds = {snapshot.type_name(snapshot.internal_id(node)) for node in data["fused"]}
        assert kinds == {wanted}, (wanted, kinds, types)


def test_an_unknown_answer_type_is_one_line_naming_the_types(tiny: Path) -> None:
    result = CliRunner().invoke(build_app(), ["ask", str(tiny), "x?", "--answer-type", "bogus"])
    assert result.exit_code == 2
    assert "no node type 'bogus'" in result.output and "its types are:" in result.output
    with pytest.raises(GraphError):
        Snapshot.open(tiny).with_candidate_types(["bogus"])
    view = Snapshot.open(tiny).with_candidate_types(["brand"])
    assert view.manifest.candidate_types == ["brand"]
    assert Snapshot.open(tiny).manifest.candidate_types != ["brand"]  # the files are untouched
