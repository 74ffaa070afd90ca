"""The rule policy end to end on a generated snapshot, and its question analysis."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.factory import make_agent
from graphs.manifest import RelationSignature
from graphs.snapshot import Snapshot
from graphs.synth.generate import generate
from tools.config import ToolConfig
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader, find_span


@pytest.fixture(scope="module")
def academic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, list[dict]]:
    out = tmp_path_factory.mktemp("synth") / "academic"
    generate("academic", 3, out)
    questions = [json.loads(line) for line in (out / "qa" / "test.jsonl").open()]
    return Snapshot.open(out), questions


def recall20(predicted: list[str], gold: list[str]) -> float:
    return len(set(predicted[:20]) & set(gold)) / len(gold)


def test_rule_policy_beats_bm25_on_relational_questions(
    academic: tuple[Snapshot, list[dict]],
) -> None:
    snapshot, questions = academic
    agent = make_agent(snapshot, AgentConfig(n_agents=1))
    relational = [q for q in questions if q["family"] in ("one_hop", "multi_answer")][:40]
    rules, bm25 = [], []
    for q in relational:
        result = asyncio.run(agent.ask(q["query"], question_id=q["id"]))
        (trajectory,) = result.trajectories
        assert trajectory.stop_reason == "finish"
        assert not trajectory.tool_errors
        ids, _ = snapshot.index.search(q["query"], 100)
        rules.append(recall20(result.fused, q["answer_ids"]))
        bm25.append(recall20([snapshot.external_id(int(i)) for i in ids], q["answer_ids"]))
    assert sum(rules) / len(rules) > sum(bm25) / len(bm25) + 0.3


def test_rule_trajectory_is_anchor_then_expand(academic: tuple[Snapshot, list[dict]]) -> None:
    snapshot, questions = academic
    question = next(q for q in questions if q["family"] == "one_hop")
    agent = make_agent(snapshot, AgentConfig(n_agents=1))
    (trajectory,) = asyncio.run(agent.ask(question["query"])).trajectories
    calls = [
        call["function"]
        for message in trajectory.messages
        if message["role"] == "assistant"
        for call in message.get("tool_calls", [])
    ]
    assert [c["name"] for c in calls][:2] == ["search", "neighbors"]
    assert calls[-1]["name"] == "finish" and calls[-2]["name"] == "select"
    neighbors = json.loads(calls[1]["arguments"])
    assert neighbors["node_types"] == ["paper"]
    assert snapshot.type_name(snapshot.internal_id(neighbors["node_id"])) != ""


def test_rule_policy_respects_ablations_and_small_budgets(
    academic: tuple[Snapshot, list[dict]],
) -> None:
    snapshot, questions = academic
    question = next(q for q in questions if q["family"] == "one_hop")["query"]
    no_neighbors = AgentConfig(n_agents=1, tools=ToolConfig(enable_neighbors=False))
    (trajectory,) = asyncio.run(make_agent(snapshot, no_neighbors).ask(question)).trajectories
    assert "neighbors" not in trajectory.tool_call_counts()
    assert not trajectory.tool_errors and trajectory.answers
    no_filters = AgentConfig(n_agents=1, tools=ToolConfig(type_filters=False))
    (trajectory,) = asyncio.run(make_agent(snapshot, no_filters).ask(question)).trajectories
    assert not trajectory.tool_errors and trajectory.answers
    tight = AgentConfig(n_agents=1, max_steps=3)
    (trajectory,) = asyncio.run(make_agent(snapshot, tight).ask(question)).trajectories
    assert trajectory.stop_reason == "finish"
    assert sum(1 for s in trajectory.steps if s.kind == "model") <= 3


def test_schema_words_are_matched_by_the_snapshot_stemmer() -> None:
    reader = QuestionReader.build(
        "english",
        ["paper", "author", "gene/protein"],
        ["cites", "writes", "has_topic", "has_brand"],
    )
    question = "Which authors wrote papers citing proteins?"
    assert reader.mentioned_types(question) == ["author", "paper", "gene/protein"]
    assert reader.label_matches(question).named(0.5) == ["cites"]
    assert reader.label_matches("papers cited by it").named(0.5) == ["cites"]
    # "has" is shared by two relations: it weighs half of "topic" and names neither alone
    assert reader.label_matches("which one has it").named(0.5) == []
    assert reader.label_matches("a paper on this topic").named(0.5) == ["has_topic"]


def test_a_word_several_type_names_share_names_none_of_them() -> None:
    types = ["adj.all", "adv.all", "noun.artifact", "verb.communication", "noun.communication"]
    reader = QuestionReader.build("english", [*types, "package", "source package"], [])
    assert reader.mentioned_types("List all the parts of a bicycle.") == []
    assert reader.mentioned_types("which artifact is it?") == ["noun.artifact"]
    assert reader.mentioned_types("Verbs of communication meaning to speak softly?") == [
        "verb.communication"
    ]
    # every word of a name names it, and a word of its own names it alone
    assert reader.mentioned_types("which packages built from a source package") == [
        "package",
        "source package",
    ]


def test_residual_text_drops_the_analyzers_stopwords_and_the_anchor() -> None:
    reader = QuestionReader.build("english", ["paper"], ["cites"])
    residual = reader.residual(
        "Which papers of Ada Lovelace are about the engine?", ["Ada Lovelace"]
    )
    assert residual == "Which papers about engine"


def test_find_span() -> None:
    assert find_span(["papers", "by", "ada", "lovelace"], ["ada", "lovelace"]) == 2
    assert find_span(["ada"], ["ada", "lovelace"]) is None
    assert find_span(["x"], []) is None


def test_schema_paths_bridge_and_entry() -> None:
    paths = SchemaPaths.from_signatures(
        [
            RelationSignature(
                relation="writes", source_type="author", target_type="paper", count=9
            ),
            RelationSignature(relation="cites", source_type="paper", target_type="paper", count=20),
            RelationSignature(
                relation="affiliated_with", source_type="author", target_type="institution", count=5
            ),
        ]
    )
    assert paths.linked("paper", "author") and not paths.linked("institution", "paper")
    assert paths.bridge("institution", "paper") == "author"
    assert paths.entry_type(["cites"], "author") == "paper"
    assert paths.touches("cites", "paper") and not paths.touches("cites", "author")


def test_rule_policy_cli_ask(academic: tuple[Snapshot, list[dict]], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    snapshot, questions = academic
    runner = CliRunner()
    question = questions[0]["query"]
    shown = runner.invoke(build_app(), ["ask", str(snapshot.path), question, "--agents", "2"])
    assert shown.exit_code == 0, shown.output
    assert "[agent 2] same steps as the agent shown so far" in shown.output  # identical agents
    assert "[agent 1] search" in shown.output and "Answers" in shown.output
    as_json = runner.invoke(build_app(), ["ask", str(snapshot.path), question, "--json"])
    assert as_json.exit_code == 0
    assert len(json.loads(as_json.output)["trajectories"]) == 3
    missing = runner.invoke(build_app(), ["ask", str(tmp_path / "nope"), question])
    assert missing.exit_code == 2 and "error" in missing.output
    empty = runner.invoke(build_app(), ["ask", str(snapshot.path), "  "])
    assert empty.exit_code == 2 and "question is empty" in empty.output
