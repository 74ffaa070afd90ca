"""Two relations a question chains in order, between nodes of one kind (tools/plans/chains.py).

In a lexical graph every node is a noun or a verb: the types cannot say that "A car door is
part of something. What is that something a kind of?" asks for two hops. The question's two
relation words say it, the one nearest the named node walked first: onward from it ("part
of something", then "a kind of" that), or nested around it ("the kinds of the parts of a
car"). A question whose relation words meet two names asks for their intersection instead.
"""

from __future__ import annotations

import pytest
from offline_answers import ask, plan_of
from tiny_graph import tiny_snapshot

from agent.planner import OfflinePlanner
from graphs.manifest import RelationSignature
from graphs.snapshot import Snapshot
from tools.plans.chains import ChainReader
from tools.plans.execute import PlanExecutor
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader

NODES = [
    ("car", "noun", "car", "a kind of motor vehicle with four wheels"),
    ("motor_vehicle", "noun", "motor vehicle", "a self-propelled wheeled vehicle"),
    ("truck", "noun", "truck", "a kind of motor vehicle for hauling loads"),
    ("bus", "noun", "bus", "a kind of motor vehicle carrying passengers"),
    ("door", "noun", "car door", "the door that is part of a car"),
    ("wheel", "noun", "car wheel", "a wheel that is part of a car"),
    ("engine", "noun", "car engine", "the motor that is part of a car"),
    ("barrier", "noun", "movable barrier", "a barrier that can be moved"),
    ("hatch", "noun", "hatchback door", "a kind of car door that opens upward"),
]
EDGES = [
    ("car", "motor_vehicle", "hypernym"),
    ("truck", "motor_vehicle", "hypernym"),
    ("bus", "motor_vehicle", "hypernym"),
    ("door", "car", "part_holonym"),
    ("wheel", "car", "part_holonym"),
    ("engine", "car", "part_holonym"),
    ("door", "barrier", "hypernym"),
    ("hatch", "door", "hypernym"),
]
ONWARD = "A car door is part of something. What is that something a kind of?"
NESTED = "What are the kinds of the parts of a car?"


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "cars", NODES, EDGES)


def test_the_graph_texts_name_both_relations(lexicon: Snapshot) -> None:
    assert lexicon.manifest.relation_phrases == {
        "hypernym": {"kind": "out"},
        "part_holonym": {"part": "out"},
    }


def test_a_chain_written_onward_walks_the_nearer_relation_first(lexicon: Snapshot) -> None:
    plan = plan_of(lexicon, ONWARD)
    assert [route.node.name for route in plan.routes] == ["car door"]
    hops = plan.routes[0].hops
    assert [(hop.relations, hop.direction) for hop in hops] == [
        (("part_holonym",), "out"),
        (("hypernym",), "out"),
    ]
    assert ask(lexicon, ONWARD)[0] == "motor_vehicle"  # not `car`, the door's whole


def test_a_chain_written_nested_walks_from_the_inner_name_outward(lexicon: Snapshot) -> None:
    hops = plan_of(lexicon, NESTED).routes[0].hops
    assert [(hop.relations, hop.direction) for hop in hops] == [
        (("part_holonym",), "in"),
        (("hypernym",), "in"),
    ]
    assert ask(lexicon, NESTED)[0] == "hatch"  # a kind of car door, not a part of the car


def test_the_executor_walks_the_same_chain(lexicon: Snapshot) -> None:
    planner = OfflinePlanner(lexicon)
    plan = planner.writer.plan(ONWARD, planner.hits(ONWARD), planner.names(ONWARD)).plan
    assert PlanExecutor(lexicon).run(plan).ranking[0].node_id == "motor_vehicle"


def test_relation_words_meeting_two_names_are_no_chain(lexicon: Snapshot) -> None:
    reader = OfflinePlanner(lexicon).writer.chains
    names = [("car door", False)]
    assert reader.chain(ONWARD, [("car door", "noun")], names, None) is not None
    question = "Which kinds of movable barrier are part of a car?"  # two names met
    names = [("movable barrier", False), ("car", False)]
    assert reader.chain(question, [("car", "noun")], names, None) is None


def test_one_relation_word_or_another_answer_type_is_no_chain(lexicon: Snapshot) -> None:
    reader = OfflinePlanner(lexicon).writer.chains
    names = [("car door", False)]
    assert reader.chain("A car door is part of what?", [("car door", "noun")], names, None) is None
    assert reader.chain(ONWARD, [("car door", "noun")], names, "noun") is not None  # its own
    assert reader.chain(ONWARD, [("car door", "noun")], names, "verb") is None  # another


def packages() -> ChainReader:
    relations = ["depends", "pre_depends", "has_phenotype"]
    reader = QuestionReader.build("english", ["package", "phenotype"], relations)
    signatures = [RelationSignature(relation=r, source_type="package", target_type="package",
                                    count=1) for r in relations]  # fmt: skip
    return ChainReader(reader, SchemaPaths.from_signatures(signatures))


def test_words_of_one_label_written_together_are_one_use() -> None:
    names = [("slrn", False)]
    reader = packages()
    assert reader.chain("What does slrn depend on? And what depends on that?",
                        [("slrn", "package")], names, None) is not None  # fmt: skip
    question = "What does slrn pre-depend on?"  # `pre_depends`, not two relations
    assert reader.chain(question, [("slrn", "package")], names, None) is None


def test_a_type_word_is_no_relation_use() -> None:
    question = "Which phenotype does slrn depend on?"  # the type, not `has_phenotype`
    assert [use.relation for use in packages().uses(question)] == ["depends"]


DEB_NODES = [
    ("bbdb3", "package", "bbdb3", "an address book for emacs"),
    ("mailer", "package", "mailer", "a mail reader"),
    ("libmail", "package", "libmail", "the mail library"),
    ("libc", "package", "libc", "the C library"),
    ("docs", "package", "bbdb-docs", "documentation"),
]
DEB_EDGES = [
    ("bbdb3", "mailer", "recommends"),
    ("bbdb3", "libc", "depends"),
    ("mailer", "libmail", "depends"),
    ("bbdb3", "docs", "suggests"),
]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "deb", DEB_NODES, DEB_EDGES)


def test_a_chain_within_the_answer_type_walks_both_relations(archive: Snapshot) -> None:
    """Packages to packages: the types cannot tell `recommends` then `depends` apart."""
    question = "What are the dependencies of the packages that bbdb3 recommends?"
    hops = plan_of(archive, question).routes[0].hops
    assert [(hop.relations, hop.direction) for hop in hops] == [
        (("recommends",), "out"),
        (("depends",), "out"),
    ]
    assert ask(archive, question)[0] == "libmail"  # not libc, bbdb3's own dependency


def test_one_relation_restated_within_the_answer_type_is_one_hop(archive: Snapshot) -> None:
    question = "Suggestions of bbdb3: list all the packages it suggests."
    assert len(plan_of(archive, question).routes[0].hops) == 1
    assert ask(archive, question)[0] == "docs"


def test_two_names_or_coordinated_relations_within_the_answer_type_are_no_chain(
    archive: Snapshot,
) -> None:
    reader = OfflinePlanner(archive).writer.chains
    chained = "What are the dependencies of the packages that bbdb3 recommends?"
    assert reader.chain(chained, [("bbdb3", "package")], [("bbdb3", False)], "package")
    # both relations link the answers to the one named package
    coordinated = "Which packages both suggest and recommend bbdb3?"
    assert reader.chain(coordinated, [("bbdb3", "package")], [("bbdb3", False)], "package") is None
    # another package named: the answers meet both (an intersection)
    met = "Which packages depend on libmail that bbdb3 recommends?"
    names = [("libmail", False), ("bbdb3", False)]
    anchors = [("libmail", "package"), ("bbdb3", "package")]
    assert reader.chain(met, anchors, names, "package") is None


def test_a_second_package_the_chain_would_pass_is_met(archive: Snapshot) -> None:
    reader = OfflinePlanner(archive).writer.chains
    question = "Which packages does libmail depend on that bbdb3 recommends?"
    names = [("libmail", False), ("bbdb3", False)]
    anchors = [("libmail", "package"), ("bbdb3", "package")]
    assert reader.chain(question, anchors, names, "package") is None


def test_without_the_names_block_the_hits_named_are_the_names(lexicon: Snapshot) -> None:
    question = "Name the kinds of movable barrier that are part of a car."
    planner = OfflinePlanner(lexicon)
    plan = planner.writer.plan(question, planner.hits(question), None)
    assert all(len(route.hops) == 1 for route in plan.routes)


def test_a_relation_word_inside_a_name_written_again_is_no_use() -> None:
    question = "Is depend-x old? What does depend-x depend on?"  # each depend-x names it
    reader = packages()
    assert reader.chain(question, [("depend-x", "package")], [("depend-x", False)], None) is None


def test_a_phrase_word_right_after_a_wh_word_is_the_wh_phrase(lexicon: Snapshot) -> None:
    reader = OfflinePlanner(lexicon).writer.chains
    uses = reader.uses("What kind of thing is a car door part of?")
    assert [use.relation for use in uses] == ["part_holonym"]
