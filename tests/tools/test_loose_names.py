"""Names the graph's text mostly uses as words (`tree` among packages): linked, but loose.

A question may use such a name's words to describe something else; the search's leading hits
then rival what the walk from the name reached, and agreement with such an anchor is not
taken on trust. Words naming the schema (types, the relations the question names) are left
out of the words that rank and judge what the walk reached.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from offline_answers import ask
from tiny_graph import tiny_snapshot

from agent.config import AgentConfig
from agent.factory import make_agent
from graphs.snapshot import Snapshot
from tools.listing_parse import ListedNode, parse_names
from tools.mentions import find_mentions, usage
from tools.plans.reach import Reach, graph_first
from tools.plans.vocabulary import QuestionReader
from tools.plans.walk import AnchorWalk, WalkHop, walk
from tools.toolset import Toolset

FILLER = [
    "a balanced binary search tree library",
    "a widget showing a tree view of items",
    "prints the parse tree of a grammar",
    "a merkle tree for content addressed storage",
    "an interval tree in C",
    "a trie and radix tree implementation",
    "a red black tree for the kernel",
    "an abstract syntax tree explorer",
    "the family tree editor",
    "a suffix tree builder",
    "a decision tree learner",
    "a quad tree for spatial data",
    "a kd tree for nearest neighbours",
    "a tree diff tool for directories",
    "the b tree database engine",
    "a fenwick tree for sums",
    "a tree shaking bundler",
    "a segment tree library",
    "a heap and tree collection",
    "a dependency tree viewer",
    "a phylogenetic tree drawer",
    "a tree of plugins loader",
    "a tree walker for documents",
    "a splay tree implementation",
    "an avl tree implementation",
]
NODES = [
    ("tree", "package", "tree", "displays an indented directory tree listing"),
    ("psmisc", "package", "psmisc", "utilities: pstree shows running processes as a tree"),
    ("sisu", "package", "sisu", "a documents publishing framework"),
    ("fileman", "package", "fileman", "a two pane manager for the desktop"),
    *((f"f{i}", "package", f"lib{i}", text) for i, text in enumerate(FILLER)),
]
EDGES = [("sisu", "tree", "recommends"), ("fileman", "tree", "recommends")]


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out = tmp_path_factory.mktemp("graphs") / "packages"
    return tiny_snapshot(out, NODES, EDGES, candidate_types=["package"])


def test_holding_all_is_the_documents_holding_every_word(packages: Snapshot) -> None:
    texts = [f"{name} {text}".lower().split() for _, _, name, text in NODES]
    for query in ("tree", "running processes", "tree library", "radix"):
        wanted = [i for i, words in enumerate(texts) if all(w in words for w in query.split())]
        held = packages.index.holding_all(query)
        assert [packages.external_id(n) for n in held] == [NODES[i][0] for i in wanted]
    assert packages.index.holding_all("the of").size == 0  # stopwords only
    assert packages.index.holding_all("tree zebra").size == 0  # a word no document holds


def test_a_name_the_text_uses_as_a_word_is_loose(packages: Snapshot) -> None:
    (mention,) = find_mentions(packages, "What program shows a tree of running processes?")
    assert (mention.text, mention.texts, mention.near) == ("tree", 27, 1)
    assert mention.loose
    (named,) = find_mentions(packages, "Which packages recommend sisu?")
    assert not named.loose  # its words are used only by the node itself
    assert find_mentions(packages, "What is the name of it?") == []


def test_search_shows_how_the_words_are_used_and_a_listing_reads_it(packages: Snapshot) -> None:
    observation = Toolset(packages).call("search", {"query": "a tree of processes", "k": 2})
    assert "words in 27 texts, 1 near it" in observation.text
    (row,) = parse_names(observation.text, ["package"])
    assert (row.words, row.node.node_id, row.usage, row.loose) == ("tree", "tree", (27, 1), True)


def test_a_question_using_a_loose_name_as_a_word_is_answered_by_its_text(
    packages: Snapshot,
) -> None:
    question = "What program shows a tree of running processes?"
    top = packages.external_id(int(packages.index.search(question, 1)[0][0]))
    assert top == "psmisc"
    # the walk from `tree` reaches sisu and fileman; the search's leading hit is not reached
    # and describes the remaining words far better
    assert ask(packages, question)[0] == "psmisc"


def test_a_question_naming_a_loose_name_through_a_relation_walks_it(packages: Snapshot) -> None:
    # every word besides the name names the schema: nothing is left for the text to judge by
    assert sorted(ask(packages, "Which packages recommend tree?")[:2]) == ["fileman", "sisu"]


def test_schema_words_leave_the_words_that_judge_the_answers() -> None:
    reader = QuestionReader.build("english", ["package", "section"], ["recommends", "in_section"])
    assert reader.schema_free("packages recommended for desktop", ["recommends"]) == "desktop"
    # a relation the question does not name keeps its words
    assert reader.schema_free("packages recommended for desktop", []) == "recommended desktop"


def test_agreement_with_a_loose_anchor_is_weighed_against_the_text() -> None:
    reach = Reach()
    for anchor in ("A1", "A2"):
        reach.add(
            "x", name="x", type="t", anchor=anchor, anchor_score=1.0, relevance=0.5, on_path=0,
            path="",
        )  # fmt: skip
    assert graph_first(reach, text_best=9.0)  # two trusted anchors agree: the intersection
    assert not graph_first(reach, text_best=9.0, trust_agreement=False)
    assert graph_first(reach, text_best=0.5, trust_agreement=False)
    assert np.isclose(reach.nodes["x"].strength, 2.5)


def test_a_type_word_that_only_stems_like_a_name_names_the_type(tmp_path) -> None:
    """`packages` is the type `package`, not the node `packaging`; `packaging` as written is."""
    nodes = [
        ("packaging", "package", "packaging", "core utilities for Python packages"),
        ("tokenizers", "package", "tokenizers", "fast tokenizers"),
        ("transformers", "package", "transformers", "models"),
        ("mit", "license", "MIT", "the MIT licence"),
    ]
    edges = [
        ("transformers", "tokenizers", "requires"),
        ("transformers", "packaging", "requires"),
        ("tokenizers", "mit", "licensed_under"),
    ]
    snapshot = tiny_snapshot(tmp_path / "pkgs", nodes, edges)
    linked = [m.text for m in find_mentions(snapshot, "Which packages depend on tokenizers?")]
    assert linked == ["tokenizers"]
    assert [m.text for m in find_mentions(snapshot, "Which tools need packaging?")] == ["packaging"]
    result = asyncio.run(
        make_agent(snapshot, AgentConfig(n_agents=1)).ask("Which packages are licensed under MIT?")
    )
    assert result.fused[0] == "tokenizers"  # the type word kept its meaning: packages answer


def test_a_word_that_is_a_whole_relation_label_names_the_relation(tmp_path) -> None:
    """A lexical graph names concepts like its relations: `attribute` is both.

    "Which attribute of a sound is loud about?" asks for the walk along `attribute` from
    `loud`; read as the concept `attribute`, the question named no relation and the walk's
    closest neighbour in the text (`clarion`) came first.
    """
    nodes = [
        ("attr", "noun", "attribute", "an abstraction belonging to or characteristic of an entity"),
        ("size", "noun", "size", "the physical magnitude of something, an attribute"),
        ("loud", "adj", "loud", "characterized by or producing sound of great volume"),
        ("clarion", "adj", "clarion", "loud and clear sound, the sound of a clarion"),
        ("volume", "noun", "volume (sound property)", "the magnitude of sound"),
        ("soft", "adj", "soft", "quiet, low in volume"),
        ("grammar", "noun", "attribute grammar", "a grammar whose symbols carry attributes"),
    ]
    edges = [
        ("size", "attr", "hypernym"),
        ("loud", "clarion", "similar_to"),
        ("loud", "volume", "attribute"),
        ("soft", "volume", "attribute"),
        ("loud", "soft", "antonym"),
    ]
    snapshot = tiny_snapshot(tmp_path / "lexicon", nodes, edges)
    question = "Which attribute of a sound is loud about?"
    assert [m.text for m in find_mentions(snapshot, question)] == ["loud"]
    assert ask(snapshot, question)[0] == "volume"
    # a name that holds a label's word among others is still a name
    linked = find_mentions(snapshot, "Which attribute grammar has size?")
    assert [m.text for m in linked] == ["attribute grammar", "size"]


PARTS_FILLER = [f"spare parts of machine {i}, sold in parts" for i in range(30)]
HOUSE = [
    ("parts", "noun", "parts", "the local environment: he is not from these parts"),
    ("house", "noun", "house (dwelling)", "a dwelling that serves as living quarters"),
    ("porch", "noun", "porch", "a structure attached to the outside of a house"),
    ("loft", "noun", "loft", "floor consisting of an open space at the top of a house"),
    ("building", "noun", "building", "a structure that has a roof and walls"),
    ("villa", "noun", "villa", "a country house"),
    *((f"m{i}", "noun", f"machine {i}", text) for i, text in enumerate(PARTS_FILLER)),
]
HOUSE_EDGES = [
    ("porch", "house", "part_holonym"),
    ("loft", "house", "part_holonym"),
    ("house", "building", "hypernym"),
    ("villa", "house", "hypernym"),
]


def test_a_loose_names_words_may_name_the_schema(tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("graphs") / "house"
    # "part" is in two labels here, so "parts" stays a (loose) name; half of part_holonym's
    # weight ("holonym" is in two as well), its word still names that relation
    others = [("parts", "building", "part_of_speech"), ("villa", "building", "member_holonym")]
    house = tiny_snapshot(out, HOUSE, [*HOUSE_EDGES, *others])
    question = "What are the parts of a house (dwelling)?"
    (parts, named) = find_mentions(house, question)
    assert parts.text == "parts" and parts.loose and named.text == "house (dwelling)"
    # "parts", the node, is used as a word: the word names part_holonym, walked first
    assert sorted(ask(house, question)[:2]) == ["loft", "porch"]


def test_a_word_of_one_label_is_no_name_and_names_its_relation(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    out = tmp_path_factory.mktemp("graphs") / "house-one-label"
    house = tiny_snapshot(out, HOUSE, [*HOUSE_EDGES, ("villa", "building", "member_holonym")])
    question = "What are the parts of a house (dwelling)?"
    # "part" tells `part_holonym` from `member_holonym` (both hold "holonym"): the node
    # `parts` is not linked, the relation is walked
    assert [m.text for m in find_mentions(house, question)] == ["house (dwelling)"]
    assert sorted(ask(house, question)[:2]) == ["loft", "porch"]


def test_usage_counts_the_texts_near_the_node_exactly(packages: Snapshot) -> None:
    for name in ("tree", "sisu", "fileman", "psmisc"):
        node = packages.internal_id(name)
        holding = set(packages.index.holding_all(name).tolist())
        around = set(packages.neighbors(node).nodes.tolist()) | {node}
        texts, near = usage(packages, name, node)
        assert texts == len(holding)
        assert near is None or near == len(holding & around)
    # 27 texts use "tree"; near it only its own (sisu and fileman, its neighbours, do not)
    assert usage(packages, "tree", packages.internal_id("tree")) == (27, 1)


def test_words_left_that_are_all_function_words_judge_no_walk(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The words the names leave ("does", "what", "more") say nothing for the text's side.

    "To embezzle is a more specific way of doing what?" named `embezzle` and the loose `way`;
    searched alone, the words left found `virtue` ("the quality of doing what is right"), a
    leading hit of the question the walk did not reach, and the search came first.
    """
    saying = [
        ("doer", "package", "doer", "which does what it says, as it does"),
        ("doer2", "package", "doer2", "does what which one says, as it does"),
    ]
    out = tmp_path_factory.mktemp("graphs") / "saying"
    snapshot = tiny_snapshot(out, NODES + saying, EDGES, candidate_types=["package"])
    for question in ("What does sisu have with tree?", "What more does sisu do with tree?"):
        assert ask(snapshot, question)[0] == "tree"  # sisu recommends tree


WEIGHERS = [f"a weighing scale model {i} for the kitchen, on a large scale" for i in range(30)]
MUSIC = [
    ("music", "noun", "music", "an artistic form of auditory communication"),
    ("note", "noun", "note", "a notation representing the pitch and duration of a musical sound"),
    ("scale", "noun", "scale", "(music) a series of notes: first note, third note, others"),
    ("mediant", "noun", "mediant", "the third note of a diatonic scale"),
    ("tonic", "noun", "tonic", "the first note of a diatonic scale"),
    *((f"w{i}", "noun", f"weigher {i}", text) for i, text in enumerate(WEIGHERS)),
]
MUSIC_EDGES = [
    ("scale", "music", "topic_domain"),
    ("mediant", "music", "topic_domain"),
    ("tonic", "music", "topic_domain"),
    ("note", "scale", "member_holonym"),
    ("mediant", "note", "hypernym"),
    ("tonic", "note", "hypernym"),
]


def test_a_node_a_loose_name_names_is_not_what_the_anchors_agree_on(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """`music` and `note` both reach `scale` and `mediant`; "scale" is written as a word."""
    out = tmp_path_factory.mktemp("graphs") / "music"
    snapshot = tiny_snapshot(out, MUSIC, MUSIC_EDGES)
    question = "music terms for a note that's described as the third of a scale"
    assert [(m.text, m.loose) for m in find_mentions(snapshot, question)] == [
        ("music", False),
        ("note", False),
        ("scale", True),
    ]
    assert ask(snapshot, question)[:2] == ["mediant", "tonic"]


def test_among_nodes_the_same_anchors_agree_on_a_loose_anchors_own_node_comes_last() -> None:
    reach = Reach(loose=frozenset({"A3"}))
    reach.loose_bests.add("scale")
    for node, relevance in (("scale", 9.0), ("mediant", 5.0), ("coda", 7.0)):
        anchors = ("A1", "A2") if node != "coda" else ("A1",)
        for anchor in anchors:
            reach.add(
                node, name=node, type="noun", anchor=anchor, anchor_score=1.0,
                relevance=relevance, on_path=0, path="",
            )  # fmt: skip
    # agreement first; then the loose anchor's own node after the others the same anchors reach
    assert reach.ranking() == ["mediant", "scale", "coda"]


def test_only_the_node_a_loose_anchor_names_best_is_held_back() -> None:
    """The executor binds a loose "national parks" to `national park` and to nodes named like
    it (`Sequoia National Park`, an answer): only the first is the name used as words."""
    park = ListedNode("park", "national park", "noun", 9.0)
    sequoia = ListedNode("sequoia", "Sequoia National Park", "noun", 6.0)
    state = ListedNode("ca", "California", "noun", 9.0)
    hop = (WalkHop(()),)
    walks = [
        AnchorWalk("A1", ((park, 9.0), (sequoia, 6.0)), hop),
        AnchorWalk("A2", ((state, 9.0),), hop),
    ]
    reach = Reach(loose=frozenset({"A1"}))
    next(walk(walks, reach))
    assert reach.loose_bests == {"park"}
