"""A question that names a node but no relation: asking about it, or for something like it.

"Is there a simple stopwatch application?" names the package `stopwatch`; the answer is a
package *described* as a stopwatch, not what `stopwatch` depends on. With no relation named
and named nodes that could be answers themselves, the whole question's first hit rivals
them when its text uses the name's words and it matches clearly better than they do.
Agreement with a loose anchor (its words mostly used away from it) counts for nothing, in the
rule agent and the plan executor alike.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from offline_answers import ask
from tiny_graph import tiny_snapshot

from agent.models.rules.turns import MAX_ANSWERS
from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot
from tools.listing_parse import ListedNode, parse_listing, parse_names
from tools.plans.reach import Reach, named_first
from tools.plans.rivals import TAIL
from tools.plans.rule_plan import RulePlan
from tools.plans.rule_planner import RulePlanner
from tools.toolset import Toolset

NODES = [
    ("stopwatch", "package", "stopwatch", "virtual stopwatch and timer"),
    ("kronometer", "package", "kronometer", "simple stopwatch application for the desktop"),
    ("clocks", "package", "clocks", "clock app with a stopwatch and alarms"),
    ("libtimer", "package", "libtimer", "timer library"),
    ("libc", "package", "libc", "the C library"),
    ("edit", "package", "edit", "a simple text editor application"),
    ("paint", "package", "paint", "a simple drawing application"),
    ("utils", "section", "utils", "utilities"),
]
EDGES = [
    ("stopwatch", "libtimer", "depends"),
    ("stopwatch", "libc", "depends"),
    ("kronometer", "libc", "depends"),
    ("stopwatch", "utils", "in_section"),
    ("kronometer", "utils", "in_section"),
]


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    out = tmp_path_factory.mktemp("graphs") / "packages"
    return tiny_snapshot(out, NODES, EDGES, candidate_types=["package"])


def test_a_question_for_something_like_the_named_node_is_answered_by_its_text(
    packages: Snapshot,
) -> None:
    question = "Is there a simple stopwatch application?"
    assert packages.external_id(int(packages.index.search(question, 1)[0][0])) == "kronometer"
    assert ask(packages, question)[0] == "kronometer"  # not libtimer, reached from stopwatch


def test_a_question_naming_a_relation_walks_from_the_named_node(packages: Snapshot) -> None:
    assert ask(packages, "Which packages does stopwatch depend on?")[:2] in (
        ["libtimer", "libc"],
        ["libc", "libtimer"],
    )


def planned(
    snapshot: Snapshot, question: str, types: list[str] | None = None
) -> tuple[RulePlan, list[ListedNode]]:
    """The offline plan of `question` and its first search's hits, as the rule agent reads them."""
    types = types or ["package", "section"]
    text = Toolset(snapshot).call("search", {"query": question, "k": 20}).text
    hits = parse_listing(text, types)
    plan = RulePlanner(snapshot.manifest).plan(question, hits, parse_names(text, types))
    return plan, hits


def test_the_rival_is_the_first_hit_whose_text_uses_the_names_words(packages: Snapshot) -> None:
    writer = RulePlanner(packages.manifest)
    plan, hits = planned(packages, "Is there a simple stopwatch application?")
    assert [route.node.node_id for route in plan.routes] == ["stopwatch"]
    assert hits[0].node_id == "kronometer" and "stopwatch" in hits[0].snippet
    assert writer.rivals.describing_rival(plan, hits) == hits[0]
    assert writer.rivals.describing_rival(plan, hits, reached={"kronometer"}) is None
    # a relation named: the question asks for a walk, no rival
    walk, walk_hits = planned(packages, "Which simple application does stopwatch depend on?")
    assert walk.relations == ("depends",) and walk_hits[0].node_id != "stopwatch"
    assert writer.rivals.describing_rival(walk, walk_hits) is None
    # the named node first: the question is about it
    about, about_hits = planned(packages, "stopwatch timer")
    assert about_hits[0].node_id == "stopwatch"
    assert writer.rivals.describing_rival(about, about_hits) is None
    # a first hit that matches only the question's other words does not rival the name
    other, other_hits = planned(packages, "Is there a simple drawing application like stopwatch?")
    assert other_hits[0].node_id == "paint"
    assert writer.rivals.describing_rival(other, other_hits) is None


def test_the_named_node_must_be_matched_clearly_better_to_lose() -> None:
    assert named_first(10.0, 10.9)  # within the margin: the named nodes
    assert not named_first(10.0, 11.5)
    assert named_first(0.0, 0.0)


def test_agreement_with_a_loose_anchor_does_not_rank_first() -> None:
    reach = Reach(loose=frozenset({"A2"}))
    reach.add(
        "both", name="both", type="t", anchor="A1", anchor_score=1.0, relevance=1.0,
        on_path=0, path="",
    )  # fmt: skip
    reach.add(
        "both", name="both", type="t", anchor="A2", anchor_score=1.0, relevance=1.0,
        on_path=0, path="",
    )  # fmt: skip
    reach.add(
        "better", name="better", type="t", anchor="A1", anchor_score=1.0, relevance=5.0,
        on_path=0, path="",
    )  # fmt: skip
    assert reach.ranking() == ["better", "both"]
    reach.add(
        "by-loose", name="by-loose", type="t", anchor="A2", anchor_score=9.0, relevance=9.0,
        on_path=0, path="",
    )  # fmt: skip
    assert reach.ranking() == ["better", "both", "by-loose"]  # only a loose anchor reached it
    assert not reach.agreed()
    trusted = Reach(nodes=reach.nodes)
    assert trusted.ranking() == ["both", "by-loose", "better"] and trusted.agreed()


SHOP = [
    ("cat-carrier", "category", "Pet Carriers", "pet carriers"),
    ("fold", "product", "Flat Carrier", "a pet carrier that folds flat, 33 inches"),
    ("rigid", "product", "Rigid Carrier", "a rigid pet carrier, 20 inches"),
    ("bowl", "product", "Bowl", "a feeding bowl"),
    ("mat", "product", "Mat", "a yoga mat"),
]
SHOP_EDGES = [
    ("fold", "cat-carrier", "has_category"),
    ("rigid", "cat-carrier", "has_category"),
    ("fold", "bowl", "also_buy"),
    ("rigid", "mat", "also_buy"),
]


def test_a_relation_between_other_types_asks_for_no_walk_from_the_named_node(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    out = tmp_path_factory.mktemp("graphs") / "shop"
    shop = tiny_snapshot(out, SHOP, SHOP_EDGES, candidate_types=["product"])
    question = "Looking to buy a pet carrier that folds flat, 33 inches?"
    plan, hits = planned(shop, question, ["product", "category"])
    # "buy" names also_buy, which links products, not the category the question names
    assert plan.relations == ("also_buy",)
    assert [route.node.node_id for route in plan.routes] == ["cat-carrier"]
    assert RulePlanner(shop.manifest).rivals.describing_rival(plan, hits) == hits[0]
    assert hits[0].node_id == "fold"
    assert ask(shop, question)[0] == "fold"  # not bowl, bought with it


def test_a_question_quoting_the_named_nodes_own_text_is_answered_by_it(
    packages: Snapshot,
) -> None:
    # no relation named, and the named node's own text matches the words left best:
    # the node itself is the answer, not what it depends on
    question = "Which package is the virtual stopwatch and timer?"
    plan, hits = planned(packages, question)
    assert [route.node.node_id for route in plan.routes] == ["stopwatch"]
    rivals = parse_listing(
        Toolset(packages).call("search", {"query": plan.plan.target.relevance_text, "k": 20}).text,
        ["package", "section"],
    )
    writer = RulePlanner(packages.manifest)
    assert writer.rivals.rival_score(plan, rivals, reached={"libtimer", "libc"}) is not None
    assert ask(packages, question)[0] == "stopwatch"
    # a question naming a relation leaving it walks from it: the node is no rival
    walk, _ = planned(packages, "Which timer does the stopwatch depend on?")
    assert walk.relations == ("depends",)
    assert writer.rivals.rival_score(walk, hits) is None


def test_a_walk_along_the_named_relation_is_not_rivalled_by_a_name_alike(tmp_path: Path) -> None:
    """The question "Which packages recommend having an info-browser installed?" walks
    `recommends` into info-browser and reaches its recommenders along that relation:
    `install-info`, named like the anchor ("info") and matching the words left
    ("installed"), does not outrank them: the question asks for the relation's nodes, not
    for one named alike."""
    nodes = [
        ("ib", "virtual", "info-browser", "a name no real package has"),
        ("doc", "package", "asymptote-doc", "documentation for asymptote"),
        ("dev", "package", "libcln-dev", "class library for numbers, headers"),
        ("ii", "package", "install-info", "manage installed documentation in info format"),
        ("info", "package", "info", "standalone GNU info documentation browser"),
        *((f"w{i}", "package", name, "web browser") for i, name in enumerate(["lynx", "links"])),
    ]
    edges = [
        ("doc", "ib", "recommends"),
        ("dev", "ib", "recommends"),
        ("info", "ib", "provides"),
        ("ii", "info", "depends"),
    ]
    archive = tiny_snapshot(tmp_path / "archive", nodes, edges)
    question = "Which packages recommend having an info-browser installed?"
    assert ask(archive, question)[0] in {"doc", "dev"}
    # the walk reached them only against the direction the question reads: not confirmed,
    # and the name alike still rivals it
    assert ask(archive, "What does info-browser recommend installed?")[0] == "ii"


def test_a_node_named_only_by_a_stem_of_none_of_the_questions_words_is_a_word(
    tmp_path: Path,
) -> None:
    """ "tune" names the package `tuned` by its stem alone, and `tuned`'s text holds none of
    the question's words: the question uses "tune" as a word. Its first hit, described by
    the question's words, rivals the walk from `tuned` whatever its text says of "tune"
    (`gtkguitune`, "guitar tuner program", leading the next hit by less than a clear lead),
    and comes first; a question naming `tuned` as written still walks from it."""
    nodes = [
        ("tuned", "package", "tuned", "daemon adjusting system settings"),
        ("gtkguitune", "package", "gtkguitune", "guitar tuner program"),
        ("tuxguitar", "package", "tuxguitar", "guitar tablature editor program with a tuner"),
        ("python3", "package", "python3", "interactive language"),
        ("dbus", "package", "dbus", "message bus"),
    ]
    edges = [("tuned", "python3", "depends"), ("tuned", "dbus", "depends")]
    archive = tiny_snapshot(tmp_path / "archive", nodes, edges, candidate_types=["package"])
    question = "How can I tune my guitar with my computer? I need a tuner program."
    assert ask(archive, question)[0] == "gtkguitune"
    assert ask(archive, "Which packages does tuned depend on?")[0] in {"python3", "dbus"}
    # written as named, `tuned` holds a word of the question: the first hit must use its
    # name's words to rival it, and gtkguitune's do not
    planner = OfflinePlanner(archive)
    for asked, rival in (
        (question, "gtkguitune"),
        ("Can tuned help a guitar tuner program?", None),
    ):
        hits = planner.hits(asked)
        plan = planner.writer.plan(asked, hits, planner.names(asked))
        found = planner.writer.rivals.describing_rival(plan, hits)
        assert (found.node_id if found else None) == rival


def test_a_walk_on_the_least_constrained_reading_leaves_the_search_the_lists_tail(
    tmp_path: Path,
) -> None:
    """ "progressive" names the clinical course `Progressive`, which twenty diseases have;
    the question names no answer type and no relation, and its first hits do not hold the
    named node: the walk still ranks first, and the phenotype the words describe keeps one
    of the list's last places (`TAIL`) instead of dropping out of it."""
    nodes = [
        ("prog", "clinical_course", "Progressive", "a clinical course getting worse over time"),
        *(
            (f"d{i}", "disease", f"Dystrophy {i}", f"an inherited dystrophy of muscle type {i}")
            for i in range(20)
        ),
        ("moya", "phenotype", "Moyamoya phenomenon", "narrowing of the carotid arteries in "
         "the skull with a puff of smoke of vessels"),
        ("cata", "phenotype", "Carotid artery tortuosity", "blockage of the carotid arteries "
         "with tiny new vessels"),
        ("cast", "phenotype", "Carotid artery stenosis", "narrow carotid arteries in the skull"),
        ("cvw", "phenotype", "Cerebral vessel web", "a web of tiny new vessels"),
    ]  # fmt: skip
    edges = [(f"d{i}", "prog", "has_course") for i in range(20)]
    clinic = tiny_snapshot(tmp_path / "clinic", nodes, edges)
    question = (
        "progressive blockage of the carotid arteries inside the skull, with a puff-of-smoke "
        "web of tiny new vessels"
    )
    answers = ask(clinic, question)
    assert all(a.startswith("d") for a in answers[: MAX_ANSWERS - TAIL])  # walk first
    assert len(answers) == MAX_ANSWERS and "moya" in answers[-TAIL:]
    assert "prog" not in answers  # the named node is no search hit of the tail
    planner = OfflinePlanner(clinic)
    hits = planner.hits(question)
    plan = planner.writer.plan(question, hits, planner.names(question))
    rivals = planner.writer.rivals
    assert rivals.unanchored(plan, hits)
    named = next(hit for hit in hits if hit.node_id == "prog")
    assert not rivals.unanchored(plan, [named, *hits])  # the text is about the named node
    assert not rivals.unanchored(replace(plan, answer_type="disease"), hits)  # one type asked
    assert not rivals.unanchored(planner.writer.text_plan(question), hits)  # no walk


def test_a_search_first_on_a_question_about_a_named_node_leaves_the_walk_the_tail(
    tmp_path: Path,
) -> None:
    """The question names `glass`, its second hit, and `snifter` answers it clearly: the
    search ranks first and fills the list, and `tumbler`, reached from the named glass,
    keeps one of its last places (`Rivals.about_named`)."""
    nodes = [
        ("snifter", "artifact", "snifter", "a glass with a wide bowl for brandy"),
        ("glass", "artifact", "glass", "a glass container for drinks"),
        ("tumbler", "artifact", "tumbler", "a flat-bottomed drinking vessel"),
        *((f"cup{i}", "artifact", f"cup {i}", f"a bowl number {i}") for i in range(25)),
    ]
    lexicon = tiny_snapshot(tmp_path / "lexicon", nodes, [("tumbler", "glass", "hypernym")])
    answers = ask(lexicon, "Is there a glass with a wide bowl for brandy?")
    assert answers[0] == "snifter" and len(answers) == MAX_ANSWERS
    assert "tumbler" in answers[-TAIL:]
