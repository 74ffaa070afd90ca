"""Questions that name a relation by a phrase of the graph's own texts ("kinds of glass").

Many of WordNet's hyponyms' texts say "a kind of bottle"; the build keeps `kind` as a phrase
of `hypernym` whose text's node is the edge's source (graphs/snapshot/phrases.py). A question
writing "kinds of X" asks for the nodes whose text could say "a kind of X" (the hypernym
edges coming in to X), even where their own texts do not say it; "X is a kind of what" for
the one it goes out to.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from offline_answers import ask, plan_of
from tiny_graph import tiny_snapshot

from graphs.layout import MANIFEST_FILE
from graphs.snapshot import Snapshot
from tools.plans.vocabulary import QuestionReader

GLASSES = {
    "beer_glass": ("beer glass", "a tall glass for serving beer"),
    "shot_glass": ("shot glass", "a small glass for a single measure of spirits"),
    "goblet": ("goblet", "a drinking glass with a base and stem"),
    "tumbler": ("tumbler", "a flat glass with no handle"),
}
NODES = [
    ("glass", "noun", "glass (container)", "a container for holding liquids while drinking"),
    ("container", "noun", "container", "any object that can be used to hold things"),
    ("kind", "noun", "kind (category)", "a category of things distinguished by some trait"),
    ("material", "noun", "glass (material)", "a brittle transparent solid"),
    *((key, "noun", name, text) for key, (name, text) in GLASSES.items()),
    ("list", "noun", "list (database)", "a database containing an ordered array of items"),
    ("inventory", "noun", "inventory (list)", "a detailed list of all the items in stock"),
    # the graph's texts say "a kind of bottle": not those of the kinds of glass
    ("bottle", "noun", "bottle", "a vessel with a narrow neck"),
    *(
        (f"b{i}", "noun", f"{what} bottle", f"a kind of bottle for {what}")
        for i, what in enumerate(["wine", "water", "milk"])
    ),
]
EDGES = [
    ("glass", "container", "hypernym"),
    ("glass", "material", "made_of"),
    ("bottle", "container", "hypernym"),
    ("inventory", "list", "hypernym"),
    *((key, "glass", "hypernym") for key in GLASSES),
    *((f"b{i}", "bottle", "hypernym") for i in range(3)),
]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "lexicon", NODES, EDGES)


def test_kinds_of_a_node_walk_the_relation_its_kinds_texts_name(lexicon: Snapshot) -> None:
    assert lexicon.manifest.relation_phrases == {"hypernym": {"kind": "out"}}
    assert ask(lexicon, "Name every kind of glass (container).")[0] in GLASSES
    assert ask(lexicon, "What is a goblet a kind of?")[0] == "glass"


def test_the_phrase_word_names_the_relation_not_a_node(lexicon: Snapshot) -> None:
    plan = plan_of(lexicon, "What kinds of glass (container) are there?")
    assert [route.node.name for route in plan.routes] == ["glass (container)"]
    assert plan.relations == ("hypernym",)
    assert [hop.direction for hop in plan.routes[0].hops] == ["in"]


def test_the_name_a_phrase_is_written_about_is_what_the_question_asks_about(
    lexicon: Snapshot,
) -> None:
    # "List" names the node `list (database)` too, whose kinds' texts hold "all"
    question = "What kinds of glass (container) are there? List them all."
    plan = plan_of(lexicon, question)
    assert [route.node.name for route in plan.routes] == ["glass (container)"]
    assert ask(lexicon, question)[0] in GLASSES


def test_without_the_phrases_the_kinds_are_not_first(lexicon: Snapshot, tmp_path: Path) -> None:
    """The same graph as a snapshot built before phrases were mined: the walk goes every way."""
    older = tmp_path / "older"
    shutil.copytree(lexicon.path, older)
    manifest = json.loads((older / MANIFEST_FILE).read_text())
    manifest["relation_phrases"] = {}
    (older / MANIFEST_FILE).write_text(json.dumps(manifest))
    assert ask(Snapshot.open(older), "Name every kind of glass (container).")[0] == "container"


def test_a_phrase_names_its_relation_only_before_of() -> None:
    reader = QuestionReader.build(
        "english", ["noun"], ["hypernym", "antonym"], {"hypernym": {"kind": "out"}}
    )
    assert reader.phrase_uses("kinds of glass").relations == ("hypernym",)
    assert reader.phrase_uses("a kind man").relations == ()
    assert reader.phrase_uses("What is a goblet a kind of?").relations == ("hypernym",)
    uses = reader.phrase_uses("the kinds of the glass")
    assert uses.about("the kinds of the glass", "glass")
    assert not uses.about("the kinds of the glass", "kinds")
    assert reader.direction("kinds of glass", "glass", ["hypernym"]) == "in"
    assert reader.direction("a goblet is a kind of what", "goblet", ["hypernym"]) == "out"


def test_a_phrase_of_the_edges_target_turns_the_direction_around() -> None:
    # "a lack of sober judgement" is in the text of the antonym edge's target
    reader = QuestionReader.build("english", ["adj"], ["antonym"], {"antonym": {"lack": "in"}})
    assert reader.direction("the lack of sober", "sober", ["antonym"]) == "out"
    assert reader.direction("sober is a lack of what", "sober", ["antonym"]) == "in"
    # a label word of the relation decides first, the phrases are not read
    assert reader.direction("the antonym of sober, a lack of", "sober", ["antonym"]) == "in"


def test_a_name_written_with_its_disambiguator_beside_the_phrase_s_name_is_an_anchor_too(
    tmp_path: Path,
) -> None:
    """The phrase "kinds of" is written about `glass (container)`; `pub (tavern)`, written
    whole with its disambiguator, is named too, and walked along every relation (the phrase
    says nothing of it): the kind of glass the pub's terms hold answers."""
    nodes = [
        *NODES,
        ("pub", "noun", "pub (tavern)", "a tavern where alcoholic drinks are served"),
        ("keeper", "noun", "publican", "the keeper of a public house"),
    ]
    edges = [*EDGES, ("beer_glass", "pub", "topic_domain"), ("keeper", "pub", "topic_domain")]
    pubs = tiny_snapshot(tmp_path / "pubs", nodes, edges)
    assert pubs.manifest.relation_phrases == {"hypernym": {"kind": "out"}}
    question = "Which kinds of glass (container) are terms used in a pub (tavern)?"
    plan = plan_of(pubs, question)
    assert [route.node.name for route in plan.routes] == ["glass (container)", "pub (tavern)"]
    assert [hop.relations for hop in plan.routes[1].hops] == [()]
    assert ask(pubs, question)[0] == "beer_glass"


def test_a_relation_label_written_before_of_is_written_about_the_name_after_it(
    tmp_path: Path,
) -> None:
    """In "the antonym of curious (inquisitive)" the label's word is written about that
    name; `give (transfer)`, named before it only by its base "Give", is no anchor. A name
    written whole without a disambiguator (`cat`) is named all the same, and stays."""
    nodes = [
        ("curious", "adj", "curious (inquisitive)", "eager to investigate and learn"),
        ("incurious", "adj", "incurious", "showing absence of intellectual inquisitiveness"),
        ("give", "verb", "give (transfer)", "transfer possession of something to someone"),
        ("take", "verb", "take (receive)", "receive willingly something given or offered"),
        ("cat", "noun", "cat", "feline mammal usually having thick soft fur"),
        ("dog", "noun", "dog", "a domesticated carnivorous mammal"),
    ]
    edges = [
        ("curious", "incurious", "antonym"),
        ("incurious", "curious", "antonym"),
        ("give", "take", "antonym"),
        ("take", "give", "antonym"),
        ("cat", "dog", "similar"),
    ]
    words = tiny_snapshot(tmp_path / "words", nodes, edges)
    question = "Give me the antonym of curious (inquisitive)."
    plan = plan_of(words, question)
    assert [route.node.name for route in plan.routes] == ["curious (inquisitive)"]
    assert ask(words, question)[0] == "incurious"
    kept = plan_of(words, "Give me the antonym of curious (inquisitive) a cat shows.")
    assert [route.node.name for route in kept.routes] == ["curious (inquisitive)", "cat"]
    # after the phrase, a name is not outside it: it may say which of the answers are meant
    after = plan_of(words, "What is the antonym of curious (inquisitive)? Give it.")
    assert [route.node.name for route in after.routes] == [
        "curious (inquisitive)",
        "give (transfer)",
    ]
    # where a name is written is found as a word ("Forgive" holds no "give")
    forgive = plan_of(words, "Forgive me: what is the antonym of curious (inquisitive)? Give it.")
    assert [route.node.name for route in forgive.routes] == [
        "curious (inquisitive)",
        "give (transfer)",
    ]
    # a name written with its disambiguator stays, before the phrase word too
    named = plan_of(words, "Does give (transfer) have the antonym of curious (inquisitive)?")
    assert [route.node.name for route in named.routes] == [
        "give (transfer)",
        "curious (inquisitive)",
    ]


def test_a_phrase_written_about_words_no_name_holds_says_nothing_of_the_names(
    tmp_path: Path,
) -> None:
    """ "which of them are kinds of stemware?": the phrase is about "stemware", no node's name,
    so the named `goblet` is walked along every relation, not only `hypernym`.

    "Cafe-au-lait spot is seen in several disorders; which of them are forms of
    neurofibromatosis?" walked HPO's `is_a` from the phenotype, not to its disorders.
    """
    places = [
        ("wine_bar", "noun", "wine bar", "a bar that pours wine into stemware"),
        ("banquet", "noun", "banquet", "a meal with many courses"),
    ]
    edges = [*EDGES, ("goblet", "wine_bar", "served_at"), ("goblet", "banquet", "served_at")]
    snapshot = tiny_snapshot(tmp_path / "lexicon", NODES + places, edges)
    question = "The goblet turns up in several places; which of them are kinds of stemware?"
    plan = plan_of(snapshot, question)
    assert [route.node.name for route in plan.routes] == ["goblet"]
    assert [hop.relations for hop in plan.routes[0].hops] == [()]
    assert ask(snapshot, question)[0] == "wine_bar"
    # a phrase written about the name (after a modifier), or about nothing, names the walk
    for named in ("What is a goblet a kind of?", "Name every kind of tall glass (container)."):
        assert plan_of(snapshot, named).routes[0].hops[0].relations == ("hypernym",)
