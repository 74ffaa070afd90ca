"""Entry nodes above τ (Eq. 3), KeyBERT phrases, prompt assembly (Eq. 6), answer parsing."""

from __future__ import annotations

import numpy as np
import pytest

from answer.beam import Chain
from answer.direction import RuleDirection, parse_direction
from answer.encoding import KeyBertPhrases
from answer.entry import entry_nodes
from answer.prompt import Evidence, PromptBuilder, clip, parse_answer, serialize_chain
from answer.query_graph import Direction, Hop, Triple
from tests.answer.word_encoder import WordEncoder

PHRASES = ["alpha", "beta"]
PHRASE_VECTORS = np.array([[1.0, 0.0], [0.0, 1.0]])
NODES = ["same", "between", "opposite"]
NODE_VECTORS = np.array([[2.0, 0.0], [1.0, 1.0], [-1.0, 0.1]])  # cos to alpha: 1, .707, <0


@pytest.mark.parametrize(
    ("tau", "expected"),
    [(0.5, ["same", "between"]), (0.71, ["same"]), (1.0, []), (-1.0, NODES)],
)
def test_entry_nodes_exceed_tau_strictly(tau: float, expected: list[str]) -> None:
    found = entry_nodes(PHRASES, PHRASE_VECTORS, NODES, NODE_VECTORS, tau=tau)
    assert [m.node for m in found] == expected


def test_entry_node_records_its_best_phrase() -> None:
    between = entry_nodes(PHRASES, PHRASE_VECTORS, NODES, NODE_VECTORS, tau=0.5)[1]
    assert between.similarity == pytest.approx(2**-0.5)
    assert between.phrase == "alpha"  # ties keep the first phrase
    opposite = entry_nodes(PHRASES, PHRASE_VECTORS, NODES, NODE_VECTORS, tau=-1.0)[-1]
    assert opposite.phrase == "beta"


def test_no_phrases_or_nodes_gives_no_entries() -> None:
    assert entry_nodes([], np.zeros((0, 2)), NODES, NODE_VECTORS, tau=0.0) == []
    assert entry_nodes(PHRASES, PHRASE_VECTORS, [], np.zeros((0, 2)), tau=0.0) == []


def test_keybert_phrases_come_from_the_question_without_stop_words() -> None:
    phrases = KeyBertPhrases(WordEncoder(), max_words=2).extract(
        "Which university did Sergei Tokarev teach at?", 3
    )
    assert 1 <= len(phrases) <= 3
    for phrase in phrases:
        assert 1 <= len(phrase.split()) <= 2
        assert set(phrase.split()) <= {"university", "did", "sergei", "tokarev", "teach"}
        assert not {"which", "at"} & set(phrase.split())  # English stop words are dropped


def _chain() -> Chain:
    first = Hop(Triple("t", "professor_at", "u", ("p1",)), True)
    second = Hop(Triple("y", "founded", "u", ("p2", "p1")), False)
    return Chain("t", (first, second), 0.5)


def test_chain_serialisation_shows_directions_and_sources() -> None:
    labels = {"t": "Tokarev", "u": "MSU", "y": "1755"}
    text = serialize_chain(_chain(), labels)
    assert text == "Tokarev --[professor at]--> MSU <--[founded]-- 1755  (sources: p1, p2)"


def test_sarg_prompt_is_instruction_question_chains_then_sources() -> None:
    messages = PromptBuilder().sarg(
        "When?", ["A --[r]--> B", "C --[s]--> D"], [Evidence("p1", "first"), Evidence("p2", "x")]
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "reasoning chains" in messages[0]["content"]
    user = messages[1]["content"]
    order = ["Question: When?", "1. A --[r]--> B", "2. C --[s]--> D", "[p1] first", "[p2] x"]
    positions = [user.index(part) for part in order]
    assert positions == sorted(positions)


def test_empty_chains_are_said_so() -> None:
    user = PromptBuilder().sarg("Q?", [], [])[1]["content"]
    assert "(no chain was found)" in user and "(none)" in user


def test_clip_cuts_at_a_word() -> None:
    assert clip("one two three", 100) == "one two three"
    assert clip("one two three", 9) == "one two …"


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("Answer: 1755", "1755"),
        ("Reasoning.\nAnswer: the Dutch.", "the Dutch"),
        ("answer: yes\nAnswer: **no**", "no"),
        ("Kevin Spacey", "Kevin Spacey"),
        ("The answer is: Kevin Spacey.", "Kevin Spacey"),
        ("The answer is:\nKevin Spacey", "Kevin Spacey"),
        ("", ""),
    ],
)
def test_parse_answer(reply: str, answer: str) -> None:
    assert parse_answer(reply) == answer


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Why did the price of bitcoin fall in 2024?", Direction.backward),
        ("What caused the outage?", Direction.backward),
        ("What are the effects of inflation on rates?", Direction.forward),
        ("What does a rate hike lead to?", Direction.forward),
        ("In what year was the university founded?", Direction.bidirectional),
    ],
)
def test_rule_direction(question: str, direction: Direction) -> None:
    assert RuleDirection().predict(question) is direction


def test_parse_direction() -> None:
    assert parse_direction("I think BACKWARD.") is Direction.backward
    assert parse_direction("no idea") is None
