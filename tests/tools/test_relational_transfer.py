"""Linking from the graph's names and the one ranking rule (issue: relational transfer)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from offline_answers import ask, plan_of
from tiny_graph import tiny_snapshot

from agent.planner import OfflinePlanner
from graphs.snapshot import Snapshot
from graphs.snapshot.name_keys import STEMMED, inflection_alike
from graphs.snapshot.names import NameIndex
from tools.listing_parse import ListedNode, parse_listing, parse_names
from tools.mentions import find_mentions
from tools.plans.execute import PlanExecutor
from tools.plans.reach import Reach, graph_first
from tools.plans.vocabulary import QuestionReader
from tools.toolset import Toolset

NODES = [
    ("gc", "synset", "glass (container)", "a container for holding liquids while drinking"),
    ("gm", "synset", "glass (material)", "a brittle transparent solid with irregular structure"),
    ("hb", "synset", "highball glass", "a tall narrow glass for serving mixed drinks"),
    ("tb", "synset", "tumbler", "a short flat glass with no handle"),
    ("tl", "synset", "tall", "great in vertical dimension"),
    ("pt", "synset", "Paris (Texas)", "a city in Lamar County Texas"),
    ("pf", "synset", "Paris", "the capital and largest city of France"),
    ("dc", "synset", "Dr. No", "a film of the spy series"),
    ("sk", "synset", "spacy package", "a name holding a type word"),
    ("sn", "synset", "brandy glass", "a short glass with a wide bowl narrowing at the top"),
    ("rq", "package", "requests", "an http library for humans"),
    ("sp", "package", "spacy", "industrial strength natural language processing"),
    ("tk", "package", "tokenizers", "fast state of the art tokenizers"),
    ("tf", "package", "transformers", "state of the art machine learning models"),
]
EDGES = [
    ("hb", "gc", "hypernym"),
    ("tb", "gc", "hypernym"),
    ("gc", "gm", "made_of"),
    ("sp", "rq", "requires"),
    ("tf", "tk", "requires"),
    ("tk", "rq", "requires"),
    ("sp", "tk", "optionally_requires"),
]


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "lexical", NODES, EDGES)


def named(snapshot: Snapshot, question: str) -> list[tuple[str, list[str]]]:
    return [
        (m.text, [snapshot.external_id(n) for n in m.nodes])
        for m in find_mentions(snapshot, question)
    ]


def test_a_disambiguated_name_links_whole_and_its_base_names_every_homonym(
    graph: Snapshot,
) -> None:
    assert named(graph, "the sort of glass (container) that is tall") == [
        ("glass (container)", ["gc"]),
        ("tall", ["tl"]),
    ]
    # the base names both homonyms; the question's other words order them
    assert named(graph, "which glass is a brittle solid?")[0] == ("glass", ["gm", "gc"])
    assert named(graph, "which glass holds liquids for drinking?")[0] == ("glass", ["gc", "gm"])


DOGS = [
    ("canine", "synset", "dog (canine)", "dog: a member of the genus Canis, domesticated"),
    ("chap", "synset", "dog (chap)", "dog: informal term for a man; you lucky dog"),
    ("pug", "synset", "pug", "small dog with a wrinkled face"),
    ("corgi", "synset", "corgi", "short-legged herding dog"),
    ("hound", "synset", "hound", "dog that hunts by scent"),
    ("man", "synset", "man", "an adult person who is male"),
]
DOG_EDGES = [
    ("pug", "canine", "hypernym"),
    ("corgi", "canine", "hypernym"),
    ("hound", "canine", "hypernym"),
    ("chap", "man", "hypernym"),
]


def test_homonyms_the_questions_other_words_do_not_choose_come_by_their_links(
    tmp_path: Path,
) -> None:
    dogs = tiny_snapshot(tmp_path / "dogs", DOGS, DOG_EDGES)
    # the whole question scores `dog (chap)` higher (its short text says "dog" twice); the
    # name's words choose nothing between homonyms, the other words neither: the links do
    scores = dogs.index.score_nodes("Which kinds of dog are there?", [0, 1])
    assert scores[1] > scores[0]
    assert named(dogs, "Which kinds of dog are there?") == [("dog", ["canine", "chap"])]
    # the other words choose when they can
    assert named(dogs, "which dog is an informal term?") == [("dog", ["chap", "canine"])]


def test_plurals_punctuation_and_case_link_and_the_longest_match_wins(graph: Snapshot) -> None:
    assert named(graph, "Which Highball Glasses are there?") == [("Highball Glasses", ["hb"])]
    assert named(graph, "who made dr no")[0] == ("dr no", ["dc"])
    assert named(graph, "a city called Paris (Texas)") == [("Paris (Texas)", ["pt"])]
    assert named(graph, "Is Paris in France?")[0][1] == ["pf", "pt"]


CANALS = [
    ("cw", "noun.artifact", "canal (watercourse)", "long and narrow strip of water made for boats"),
    ("cs", "verb.possession", "canal (supply)", "provide with a waterway"),
    ("cz", "noun.act", "canalization", "the production of canals for irrigation or shipping"),
    ("an", "noun.act", "animation", "the making of cartoons"),
    ("wf", "noun.animal", "wolf", "a wild carnivorous mammal"),
    ("ek", "noun.artifact", "Erie Canal", "a canal in New York"),
    ("nn", "noun.communication", "noun", "a content word that refers to a person, place or thing"),
]
CANAL_EDGES = [("ek", "cw", "instance_hypernym"), ("cz", "cs", "derivation")]


def test_a_plural_links_the_name_it_inflects_before_one_derived_from_its_stem(
    tmp_path: Path,
) -> None:
    canals = tiny_snapshot(tmp_path / "canals", CANALS, CANAL_EDGES)
    # "canals" and "canalization" share the Snowball stem "canal"; only `canal` takes "-s"
    assert canals.names.name_forms.stems(["canals"]) == canals.names.name_forms.stems(
        ["canalization"]
    )
    assert named(canals, "Name the individual canals there are") == [("canals", ["cw", "cs"])]
    # with no inflected name among them, the stem still links
    assert named(canals, "Which canalizations are there?") == [("canalizations", ["cz"])]


def test_regular_inflections_alone_make_names_alike() -> None:
    assert inflection_alike(["highball", "glasses"], ["highball", "glass"])
    assert inflection_alike(["allergy"], ["allergies"])
    assert inflection_alike(["canals"], ["canal"])
    assert not inflection_alike(["canals"], ["canalization"])
    assert not inflection_alike(["canals", "of"], ["canal"])
    assert not inflection_alike(["busy"], ["bus"])
    assert inflection_alike(["measuring"], ["measure"])
    assert inflection_alike(["spotted", "dogs"], ["spot", "dog"])
    assert inflection_alike(["carried"], ["carry"])
    assert not inflection_alike(["measurement"], ["measure"])
    assert not inflection_alike(["sleeplessness"], ["sleeplessly"])
    # "-es" only after a sibilant or "-o"; "-ie" takes "-ying"; no doubled "x"
    assert inflection_alike(["boxes", "heroes", "lying"], ["box", "hero", "lie"])
    assert not inflection_alike(["belles"], ["bell"])
    assert not inflection_alike(["clothes"], ["cloth"])
    assert inflection_alike(["stopped", "quizzes"], ["stop", "quiz"])
    assert not inflection_alike(["fixxed"], ["fix"])


def test_a_word_only_one_type_s_name_holds_names_that_type_not_a_node(tmp_path: Path) -> None:
    canals = tiny_snapshot(tmp_path / "types", CANALS, CANAL_EDGES)
    # "animals" is, stemmed, `animation`'s name, and the one word of `noun.animal` no other
    # type holds: it names the type (as the planner reads it), not the node
    assert canals.names.name_forms.stems(["animals"]) == canals.names.name_forms.stems(
        ["animation"]
    )
    assert named(canals, "Which animals live near the wolf?") == [("wolf", ["wf"])]
    # a word several types' names hold ("noun") names no type alone: "nouns", matched only
    # after stemming as "animals" is, still links the node it inflects
    assert ("nouns", ["nn"]) in named(canals, "Which nouns name an animation?")


DOMAINS = [
    ("tn", "noun.act", "tennis", "a game played with rackets by two or four players"),
    ("lb", "noun.act", "lob", "an arching hit over the opponent"),
    ("fr", "noun.location", "France", "a republic in western Europe"),
    ("cr", "noun.artifact", "croissant", "a flaky crescent-shaped roll"),
    ("tp", "noun.cognition", "topic", "the subject matter of a conversation"),
    ("dm", "noun.location", "domain", "territory over which rule is exercised"),
    ("sl", "noun.communication", "slang", "informal language"),
]
DOMAIN_EDGES = [
    ("lb", "tn", "topic_domain"),
    ("cr", "fr", "region_domain"),
    ("lb", "sl", "usage_domain"),
]


def test_a_word_only_one_relation_label_holds_names_that_relation_not_a_node(
    tmp_path: Path,
) -> None:
    domains = tiny_snapshot(tmp_path / "domains", DOMAINS, DOMAIN_EDGES)
    # "topic" is the word of `topic_domain` no other label holds: the relation, not the node
    assert named(domains, "Which terms belong to the topic of tennis?") == [("tennis", ["tn"])]
    plan = plan_of(domains, "Which terms belong to the topic of tennis?")
    assert plan.relations == ("topic_domain",)
    assert ask(domains, "Which terms belong to the topic of tennis?")[0] == "lb"
    # "domain", in three labels, names none of them alone: the node stays linked
    assert ("domain", ["dm"]) in named(domains, "Which terms belong to the domain of tennis?")


def test_a_label_word_that_does_not_tell_its_label_apart_is_still_a_name(
    tmp_path: Path,
) -> None:
    nodes = [
        ("see", "verb", "see", "perceive by sight"),
        ("look", "verb", "look", "perceive with attention"),
        ("on", "onset", "Onset", "the age at which a disease first shows"),
        ("in", "onset", "Infantile onset", "onset in the first year of life"),
        ("dz", "disease", "Rett syndrome", "a disorder of brain development"),
        ("ph", "phenotype", "Seizure", "an episode of abnormal brain activity"),
    ]
    edges = [
        ("see", "look", "also_see"),
        ("see", "look", "entails"),
        ("dz", "in", "has_onset"),
        ("dz", "ph", "has_phenotype"),
        ("in", "on", "is_a"),
    ]
    schema = tiny_snapshot(tmp_path / "schema", nodes, edges)
    # no other label holds `also_see`'s "also": "see" does not tell it apart, it is a name
    assert ("see", ["see"]) in named(schema, "What does see entail?")
    # "onset" is the type `onset`'s word: it is no word of `has_onset` alone, the node links
    assert ("onset", ["on"]) in named(schema, "Which terms are kinds of onset?")


def test_the_name_index_is_stored_and_matches_one_built_in_memory(graph: Snapshot) -> None:
    assert (graph.path / "names" / "keys.npy").is_file()
    memory = NameIndex.from_names([graph.name(i) for i in range(graph.num_nodes)], "english-stem")
    assert (memory.keys == graph.names.keys).all() and (memory.nodes == graph.names.nodes).all()


def test_a_key_that_points_at_a_node_of_another_name_links_nothing(graph: Snapshot) -> None:
    """Keys are 64-bit hashes: a node is checked against its own name before it is linked."""
    snapshot = Snapshot.open(graph.path)
    names = [graph.name(i) for i in range(graph.num_nodes)]
    gc, tb = graph.internal_id("gc"), graph.internal_id("tb")
    names[gc], names[tb] = names[tb], names[gc]  # the keys of each point at the other
    snapshot.__dict__["names"] = NameIndex.from_names(names, "english-stem")
    # "tumbler" finds `glass (container)`, "glass container" finds `tumbler`: neither links;
    # "glass" finds both homonyms' nodes and links the one that bears the name
    assert named(snapshot, "the glass (container) and a tumbler") == [("glass", ["gm"])]
    assert named(graph, "the glass (container) and a tumbler") == [
        ("glass (container)", ["gc"]),
        ("tumbler", ["tb"]),
    ]
    # "glasses" as written finds the tumbler (a key of another name), after stemming the
    # glasses: the mention is of the stemmed form, the only one that bears the name
    names = [graph.name(i) for i in range(graph.num_nodes)]
    names[tb] = "glasses"
    snapshot = Snapshot.open(graph.path)
    snapshot.__dict__["names"] = NameIndex.from_names(names, "english-stem")
    (glasses,) = find_mentions(snapshot, "which glasses")
    assert glasses.stemmed and tb not in glasses.nodes


def test_an_entry_stored_under_the_other_form_is_not_a_run_s_node(graph: Snapshot) -> None:
    """An exact key equal to a stemmed one (two key spaces, one sorted array) is not a match."""
    index = NameIndex.from_names([graph.name(i) for i in range(graph.num_nodes)], "english-stem")
    (run,) = index.runs(["tumbler"])
    assert index.matches(run).nodes == (graph.internal_id("tb"),)
    forms = index.forms.copy()
    for _, low, high in run.entries:
        forms[low:high] ^= STEMMED  # each entry flagged as the other form's
    flipped = NameIndex(replace(index.arrays, forms=forms), index.name_forms)
    (run,) = flipped.runs(["tumbler"])
    assert flipped.matches(run).nodes == ()


def test_search_shows_the_names_and_a_listing_reads_them_back(graph: Snapshot) -> None:
    observation = Toolset(graph).call("search", {"query": "a tall glass (container)", "k": 3})
    names = parse_names(observation.text)
    assert [(row.words, row.node.node_id) for row in names] == [
        ("tall", "tl"),
        ("glass (container)", "gc"),
    ]
    assert "tl" not in [row.node_id for row in parse_listing(observation.text)][3:]


def test_a_question_naming_an_anchor_verbatim_expands_from_it(graph: Snapshot) -> None:
    question = "Can you find the sort of glass (container) that can be characterized as tall?"
    plan = plan_of(graph, question)
    assert plan.relational and "gc" in {n.node_id for n in plan.anchor_nodes.values()}
    outcome = PlanExecutor(graph).run(plan.plan)
    assert outcome.ranking[0].node_id == "hb"  # glass (container)'s neighbour that is tall


def test_whole_labels_choose_the_relation_and_word_order_its_direction(graph: Snapshot) -> None:
    writer = OfflinePlanner(graph).writer
    reader = writer.reader
    assert reader.label_matches("What does spacy require?").named(0.5) == ["requires"]
    assert reader.label_matches("What does spacy optionally require?").named(0.5) == [
        "optionally_requires"
    ]
    assert (
        reader.direction("Which packages require tokenizers?", "tokenizers", ["requires"]) == "in"
    )
    assert reader.direction("What does tokenizers require?", "tokenizers", ["requires"]) == "out"


def test_a_label_read_in_the_passive_turns_the_word_order_around(graph: Snapshot) -> None:
    """In "required by tokenizers", tokenizers requires them, though the label's word comes
    first; a label that holds "by" (`maintained_by`) is written that way in the active."""
    reader = OfflinePlanner(graph).writer.reader
    question = "Which packages are required by tokenizers?"
    assert reader.direction(question, "tokenizers", ["requires"]) == "out"
    assert reader.direction("Is tokenizers required by anything?", "tokenizers", ["requires"]) == (
        "in"
    )
    assert ask(graph, question)[0] == "rq"  # tokenizers -> requests, not transformers -> it
    # "by" after a word that is no participle, the anchor not after it: no passive
    assert reader.direction(
        "What does tokenizers require by default?", "tokenizers", ["requires"]
    ) == ("out")
    assert reader.direction(
        "Which packages require by name tokenizers?", "tokenizers", ["requires"]
    ) == ("in")
    maintained = QuestionReader.build("english", ["package", "maintainer"], ["maintained_by"])
    assert maintained.direction("What is maintained by Ann?", "Ann", ["maintained_by"]) == "in"


def test_reasons_name_the_path_in_its_direction(graph: Snapshot) -> None:
    question = "Which packages require tokenizers?"
    plan = OfflinePlanner(graph).writer.plan(question, OfflinePlanner(graph).hits(question))
    outcome = PlanExecutor(graph).run(plan.plan)
    assert outcome.ranking[0].node_id == "tf"  # tf -> tk, before tk's own dependency rq
    reach = Reach()
    for node_id, name in (("tf", "transformers"), ("rq", "requests")):
        reach.add(
            node_id,
            name=name,
            type="package",
            anchor="A1",
            anchor_score=1.0,
            relevance=0.0,
            on_path=2 if node_id == "tf" else 1,
            path="transformers -[requires]-> tokenizers" if node_id == "tf" else "",
        )
    assert reach.reasons() == {"tf": "transformers -[requires]-> tokenizers"}


def test_text_keeps_the_search_first_unless_a_path_explains_more() -> None:
    reach = Reach()
    reach.add(
        "x", name="x", type="t", anchor="A1", anchor_score=1.0, relevance=0.5, on_path=0, path=""
    )
    # a rival's score for the remaining words against the best reached node's (0.5)
    assert not graph_first(reach, text_best=4.0)  # clearly better: the text wins
    assert graph_first(reach, text_best=0.52)  # within TEXT_MARGIN: the path wins
    assert graph_first(reach, text_best=None)  # no rival at all
    reach.add(
        "x", name="x", type="t", anchor="A2", anchor_score=1.0, relevance=0.0, on_path=0, path=""
    )
    assert graph_first(reach, text_best=9.0)  # two anchors agree on x: the intersection
    assert not graph_first(Reach(), text_best=None)


def test_executor_and_rule_agent_rank_a_reached_set_by_one_rule() -> None:
    """Both feed tools.plans.reach.Reach; its order is agreement, path, words, anchors."""
    reach = Reach()
    entries = [
        ("a", "A1", 0, 3.0, 1.0),
        ("b", "A1", 1, 0.0, 1.0),
        ("c", "A1", 0, 1.0, 1.0),
        ("c", "A2", 0, 1.0, 0.5),
        ("d", "A1", 0, 3.0, 2.0),
    ]
    for node, anchor, on, relevance, score in entries:
        reach.add(node, name=node, type="t", anchor=anchor, anchor_score=score,
                  relevance=relevance, on_path=on, path="")  # fmt: skip
    assert reach.ranking() == ["c", "b", "d", "a"]


def test_at_equal_words_a_name_written_with_its_disambiguator_reaches_first(
    tmp_path: Path,
) -> None:
    """ "List every term of ballet (dance)": what `ballet (dance)` reaches comes before what
    the word "List" reaches, when the remaining words tell them apart no more."""
    nodes = [
        ("ballet", "noun", "ballet (dance)", "a story told by dancers on a stage with music"),
        ("ballet2", "noun", "ballet (music)", "music written for a ballet"),
        ("plie", "noun", "plie", "a movement in which the knees are bent"),
        ("entrechat", "noun", "entrechat", "a leap straight upward"),
        ("list", "verb", "list", "list: term by term"),
        ("itemize", "verb", "itemize", "name individually"),
        ("catalog", "verb", "catalog", "make an itemized record of"),
    ]
    edges = [
        ("plie", "ballet", "topic_domain"),
        ("entrechat", "ballet", "topic_domain"),
        ("itemize", "list", "hypernym"),
        ("catalog", "list", "hypernym"),
    ]
    snapshot = tiny_snapshot(tmp_path / "lexicon", nodes, edges)
    answers = ask(snapshot, "List every term of ballet (dance).")
    assert {"plie", "entrechat", "itemize"} <= set(answers)
    assert max(answers.index("plie"), answers.index("entrechat")) < answers.index("itemize")
    reach = Reach(sure=frozenset({"A2"}))
    for node, anchor, relevance in (("x", "A1", 0.0), ("y", "A2", 0.0), ("z", "A1", 1.0)):
        reach.add(node, name=node, type="t", anchor=anchor, anchor_score=1.0,
                  relevance=relevance, on_path=0, path="")  # fmt: skip
    assert reach.ranking() == ["z", "y", "x"]  # the remaining words still come first


def test_the_better_named_anchors_reach_comes_before_the_named_nodes_kind() -> None:
    """ "List every country that the Danube flows through": `Danube` (the question's best
    name) reaches the countries; the word "country" reaches other locations, of its kind."""
    reach = Reach(anchor_types={"A1": "noun.object", "A2": "noun.location"})
    rows = (("germany", "A1", 20.0), ("european_country", "A2", 6.0))
    for node, anchor, score in rows:
        reach.add(node, name=node, type="noun.location", anchor=anchor, anchor_score=score,
                  relevance=0.0, on_path=0, path="")  # fmt: skip
    assert reach.ranking() == ["germany", "european_country"]


SHOP_PRODUCTS = 70
"""More products of one colour than a neighbors listing shows (MAX_LISTED = 50)."""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    """Black products (a hub), a small Dog Beds category, brands and also_buy links."""
    out: Path = tmp_path_factory.mktemp("graphs") / "shop"
    nodes = [
        ("black", "color", "black", "the colour black"),
        ("beds", "category", "Dog Beds", "beds for dogs"),
        ("heaters", "category", "Space Heaters", "heaters for rooms"),
        ("acme", "brand", "Acme", "a brand"),
        ("zeta", "brand", "Zeta", "a brand"),
    ]
    edges = []
    for i in range(SHOP_PRODUCTS):  # black things, all words shared, none a dog bed
        nodes.append((f"p{i}", "product", f"Thing {i}", "a black thing with a soft cover"))
        edges.append((f"p{i}", "black", "has_color"))
    nodes += [
        ("bed1", "product", "Cosy Bed", "a plain cushion"),  # black, in Dog Beds
        ("bed2", "product", "Warm Bed", "a soft cover cushion"),  # not black
        ("h1", "product", "Acme Heater One", "a heater"),
        ("h2", "product", "Zeta Heater Two", "a heater"),
        ("k1", "product", "Acme Kettle", "a kettle"),
    ]
    edges += [
        ("bed1", "black", "has_color"),
        ("bed1", "beds", "has_category"),
        ("bed2", "beds", "has_category"),
        ("h1", "heaters", "has_category"),
        ("h2", "heaters", "has_category"),
        ("k1", "acme", "has_brand"),
        ("h1", "zeta", "has_brand"),
        ("h2", "acme", "has_brand"),
        ("k1", "h1", "also_buy"),  # Acme's kettle is bought with Zeta's heater
    ]
    return tiny_snapshot(out, nodes, edges, candidate_types=["product"])


def test_a_hub_anchor_agrees_on_nodes_its_listing_cut(shop: Snapshot) -> None:
    # black lists 50 of its 71 products; the check finds Cosy Bed linked to it anyway
    assert ask(shop, "Which black Dog Beds have a soft cover?")[0] == "bed1"


def test_every_node_a_full_listing_showed_is_checked_against_the_hub(tmp_path: Path) -> None:
    """beta's 63 dependants fill its listing, so the bridges, which depend on alpha too, may
    be cut from it; alpha lists all 48 of its own, the bridges last (the least linked).
    Checking only the 20 best reached nodes against beta misses them; checking every node
    two full listings can show (`MAX_CHECKED`) finds them, and they agree."""
    nodes = [(n, "package", n, f"the {n} runtime") for n in ("alpha", "beta", "gamma", "delta")]
    edges = []
    for hub, count in (("alpha", 45), ("beta", 60)):
        for i in range(count):  # each also depends on gamma and delta: better linked
            nodes.append((f"{hub}{i}", "package", f"{hub}-tool{i}", f"tool number {i}"))
            edges += [(f"{hub}{i}", other, "depends") for other in (hub, "gamma", "delta")]
    bridges = [f"bridge{i}" for i in range(3)]
    nodes += [(b, "package", b, "a bridge") for b in bridges]
    edges += [(b, hub, "depends") for b in bridges for hub in ("alpha", "beta")]
    archive = tiny_snapshot(tmp_path / "archive", nodes, edges)
    assert set(ask(archive, "Which packages depend on both alpha and beta?")[:3]) == set(bridges)


def test_the_named_relation_is_walked_once_the_other_anchor_constrains(shop: Snapshot) -> None:
    question = "People who buy Acme gear also buy which Space Heaters?"
    plan = OfflinePlanner(shop).writer.plan(question, OfflinePlanner(shop).hits(question))
    hops = {route.node.name: [hop.relations for hop in route.hops] for route in plan.routes}
    assert hops == {"Acme": [(), ("also_buy",)], "Space Heaters": [()]}
    assert ask(shop, question)[0] == "h1"  # not h2, Acme's own heater


def test_type_words_inside_a_name_do_not_set_the_answer_type(graph: Snapshot) -> None:
    planner = OfflinePlanner(graph)
    question = "What is linked to the spacy package?"
    plan = planner.writer.plan(question, planner.hits(question))
    assert [n.node_id for n in plan.anchor_nodes.values()] == ["sk"]
    assert plan.plan.target.labels == []  # "package" is in the name: no type is named
    question = "Which package is linked to the spacy package?"
    plan = planner.writer.plan(question, planner.hits(question))
    assert plan.plan.target.labels == ["package"]


def test_a_text_question_keeps_the_search_top_hit(graph: Snapshot) -> None:
    # "glass" names the glasses; walking from them reaches tumbler ("short"), but the
    # brandy glass, named like them and not reached, matches the other words far better
    question = "Which short glass has a wide bowl?"
    top = graph.external_id(int(graph.index.search(question, 1)[0][0]))
    assert top == "sn"
    assert ask(graph, question)[0] == "sn"


@pytest.mark.parametrize(
    "question",
    ["Which packages require tokenizers?", "What does spacy require?", "Which glass is tall?"],
)
def test_the_executor_and_the_agent_rank_what_they_reach_alike(
    graph: Snapshot, question: str
) -> None:
    plan = plan_of(graph, question)
    executed = [c.node_id for c in PlanExecutor(graph).run(plan.plan).ranking]
    assert executed  # the walk reached something
    assert ask(graph, question)[: len(executed)] == executed


def test_a_node_named_twice_is_one_anchor(graph: Snapshot) -> None:
    plan = plan_of(graph, "Tumbler or tumbler: which glass is like it?")
    assert [route.node.node_id for route in plan.routes].count("tb") == 1


def test_only_a_hit_of_the_answer_types_rivals_the_walk(graph: Snapshot) -> None:
    plan = plan_of(graph, "Which package does spacy require?")
    assert plan.plan.target.labels == ["package"]
    writer = OfflinePlanner(graph).writer
    named_like = ListedNode("sk", "spacy package", "synset", 9.0)
    assert writer.rivals.rival_score(plan, [named_like]) is None  # not a package
    as_package = ListedNode("sk", "spacy package", "package", 9.0)
    assert writer.rivals.rival_score(plan, [as_package]) == 9.0


def test_a_type_the_walk_does_not_confirm_does_not_filter_the_answers(graph: Snapshot) -> None:
    # "packaged" names the type `package` by its stem (as "topped" names WordNet's
    # `noun.Tops`), but no package is linked to the glasses named: the search ranking stands
    question = "Which packaged glass is short with a wide bowl?"
    plan = plan_of(graph, question)
    assert plan.plan.target.labels == ["package"]
    assert ask(graph, question)[0] == "sn"


def test_a_relation_no_named_node_has_leaves_the_text_its_top_hit(tmp_path: Path) -> None:
    # "members" names `member_holonym`, which no named node has: the walk from `steps`
    # reaches its neighbours by other relations, and the description's own top hit stands
    nodes = [
        ("ld", "noun", "ladder", "steps made of two parallel members connected by rungs"),
        ("st", "noun", "steps", "a flight of stairs"),
        ("pa", "noun", "path", "a line along which climbing walkers travel"),
        ("tr", "noun", "tree", "a tall woody plant"),
        ("fo", "noun", "forest", "land covered by trees"),
        *[(f"f{i}", "noun", f"filler {i}", "a word of no use") for i in range(20)],
    ]
    edges = [("st", "pa", "derivation"), ("tr", "fo", "member_holonym")]
    snapshot = tiny_snapshot(tmp_path / "lexicon", nodes, edges)
    question = "What are the climbing steps made of parallel members joined by rungs called?"
    plan = plan_of(snapshot, question)
    assert plan.relations == ("member_holonym",)
    assert [route.node.node_id for route in plan.routes] == ["st"]
    assert ask(snapshot, question)[0] == "ld"


def test_a_relation_half_named_beyond_the_anchors_does_not_make_a_chain(
    tmp_path: Path,
) -> None:
    # "also" is half of `also_see`, a relation between adjectives only: with no answer type
    # named, the anchors walk their own neighbourhoods (every relation) and intersect
    nodes = [
        ("pn", "noun.person", "painter (artist)", "an artist who paints"),
        ("sc", "noun.person", "sculptor (artist)", "an artist who makes sculptures"),
        ("pi", "noun.person", "Picasso", "Spanish painter and sculptor who lived in France"),
        ("ve", "noun.person", "Vermeer", "Dutch painter of interiors"),
        ("ar", "adj.all", "artistic", "relating to art"),
        ("ae", "adj.all", "aesthetic", "concerning beauty"),
    ]
    edges = [
        ("pi", "pn", "instance_hypernym"),
        ("pi", "sc", "instance_hypernym"),
        ("ve", "pn", "instance_hypernym"),
        ("ar", "ae", "also_see"),
        ("pn", "ar", "derivation"),
    ]
    snapshot = tiny_snapshot(tmp_path / "lexicon", nodes, edges)
    question = "Who worked as a painter (artist) and also as a sculptor (artist)?"
    plan = plan_of(snapshot, question)
    assert plan.relations == ("also_see",)
    assert all(len(route.hops) == 1 for route in plan.routes)
    assert ask(snapshot, question)[0] == "pi"


def test_a_loose_word_does_not_let_text_outrank_the_walk_from_the_named_top_hit(
    tmp_path: Path,
) -> None:
    # "Name" is loose (most texts use the word away from the node `name`), but the whole
    # question's top hit is `pollutant`, named with confidence: the question is about it,
    # and what its walk reaches with "nitric" beats a text hit that only holds "nitric"
    nodes = [
        ("nm", "noun", "name", "a language unit by which a thing is known"),
        ("po", "noun", "pollutant", "a pollutant is waste that makes air or water unclean"),
        ("no", "noun", "nitrogen oxide", "an oxide of nitrogen; nitric oxide is one"),
        ("ni", "noun", "nitre", "nitric salt, nitric"),
        ("so", "noun", "sulfur oxide", "an oxide of sulfur"),
        *[(f"f{i}", "noun", f"filler {i}", f"a word to name thing {i}") for i in range(40)],
    ]
    edges = [("no", "po", "hypernym"), ("so", "po", "hypernym"), ("nm", "f0", "hypernym")]
    snapshot = tiny_snapshot(tmp_path / "lexicon", nodes, edges)
    question = "Name a variety of pollutant that is nitric."
    plan = plan_of(snapshot, question)
    assert [route.loose for route in plan.routes] == [True, False]
    assert ask(snapshot, question)[0] == "no"


@pytest.fixture(scope="module")
def clinic(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    """A drug, two diseases, phenotypes: side effects of the drug, symptoms of a disease."""
    nodes = [
        ("sh", "drug", "Shaichavir", "an antiviral drug"),
        ("nv", "disease", "Novakberg disease", "a rare disease of the skin"),
        ("es", "disease", "Esterard disease", "a rare disease of the heart"),
        ("p1", "phenotype", "Chronic scarring", "lasting scars"),
        ("p2", "phenotype", "Hegral reflex", "a reflex"),
        ("p3", "phenotype", "Cardiac lesions", "lesions of the heart"),
    ]
    edges = [
        ("sh", "p1", "side_effect"),
        ("sh", "p2", "side_effect"),
        ("p1", "nv", "phenotype_of"),
        ("p3", "nv", "phenotype_of"),
        ("p2", "es", "phenotype_of"),
        ("sh", "es", "indication"),
    ]
    return tiny_snapshot(tmp_path_factory.mktemp("graphs") / "clinic", nodes, edges)


def test_a_type_word_inside_another_anchors_name_is_no_step_of_the_walk(
    clinic: Snapshot,
) -> None:
    # "disease" in "Novakberg disease" names no type: Shaichavir walks straight to phenotypes
    question = (
        "Which phenotype is a side effect of Shaichavir and also a symptom of Novakberg disease?"
    )
    plan = plan_of(clinic, question)
    hops = {route.node.node_id: len(route.hops) for route in plan.routes}
    assert hops == {"sh": 1, "nv": 1}
    assert ask(clinic, question)[0] == "p1"


def test_a_relation_named_whole_gives_the_answer_type_its_far_end(clinic: Snapshot) -> None:
    question = "What symptom of Novakberg disease can Shaichavir cause as a side effect?"
    plan = plan_of(clinic, question)
    assert plan.plan.target.labels == ["phenotype"]  # side_effect leads a drug there
    assert all(len(route.hops) == 1 for route in plan.routes)
    assert ask(clinic, question)[0] == "p1"


def test_anchors_agreeing_through_an_inflected_name_do_not_outrank_the_described_hit(
    tmp_path: Path,
) -> None:
    # "shell" names the section `shells` only by its stem: bash and shells agree on
    # bash-completion, but the question describes shellcheck, the search's clear top hit
    nodes = [
        ("bash", "package", "bash", "GNU Bourne Again SHell"),
        ("shells", "section", "shells", "the archive section shells"),
        ("devel", "section", "devel", "the archive section devel"),
        ("comp", "package", "bash-completion", "programmable completion for the bash shell"),
        ("check", "package", "shellcheck", "lint tool for shell scripts, catches mistakes"),
        ("bashate", "package", "bashate", "a lint tool for scripts"),
        ("zsh", "package", "zsh", "a shell with lots of features"),
        *[(f"p{i}", "package", f"tool{i}", f"a program number {i}") for i in range(30)],
    ]
    edges = [
        ("bash", "shells", "in_section"),
        ("comp", "shells", "in_section"),
        ("zsh", "shells", "in_section"),
        ("comp", "bash", "depends"),
        ("check", "devel", "in_section"),
    ]
    snapshot = tiny_snapshot(tmp_path / "archive", nodes, edges, candidate_types=["package"])
    question = "Is there a lint tool that finds mistakes in my bash shell scripts?"
    plan = plan_of(snapshot, question)
    assert {route.node.node_id: route.inflected for route in plan.routes} == {
        "bash": False,
        "shells": True,
    }
    hits = OfflinePlanner(snapshot).hits(question)
    assert hits[0].node_id == "check" and 1.5 * (hits[1].score or 0) > (hits[0].score or 0)
    assert ask(snapshot, question)[0] == "check"  # no clear winner: the described hit's check


def test_a_clear_winner_of_the_question_s_search_answers_a_question_asking_no_walk(
    tmp_path: Path,
) -> None:
    # `make` and the section `text` agree on daps, but nothing asks for a walk and the
    # whole question's first hit, figlet, scores over 1.5 times the next: it answers
    nodes = [
        ("make", "package", "make", "utility for directing compilation"),
        ("text", "section", "text", "the archive section text"),
        ("figlet", "package", "figlet", "make large character ASCII banners out of ordinary text"),
        ("daps", "package", "daps", "DocBook authoring and publishing suite"),
        ("psgml", "package", "psgml", "major mode for editing SGML documents"),
        *[(f"p{i}", "package", f"tool{i}", f"a program number {i}") for i in range(30)],
    ]
    edges = [
        ("figlet", "text", "in_section"),
        ("daps", "text", "in_section"),
        ("psgml", "text", "in_section"),
        ("daps", "make", "depends"),
    ]
    snapshot = tiny_snapshot(tmp_path / "archive", nodes, edges, candidate_types=["package"])
    question = "how do i make big ASCII banners out of normal text"
    plan = plan_of(snapshot, question)
    assert {route.node.node_id for route in plan.routes} == {"make", "text"}
    assert not plan.relations
    assert ask(snapshot, question)[0] == "figlet"


def test_a_clear_winner_leads_the_hits_the_question_does_not_name(tmp_path: Path) -> None:
    # `loch (inlet)` scores close to fjord because the question writes its name; over the
    # next hit it does not name, fjord leads clearly, and `lake`, which two anchors reach
    # (`loch (lake)` and `inlet`), describes nothing the question says
    nodes = [
        ("fjord", "noun", "fjord", "a long narrow inlet of the sea between steep cliffs"),
        ("li", "noun", "loch (inlet)", "a long narrow inlet of the sea in Scotland"),
        ("ll", "noun", "loch (lake)", "Scottish word for a lake"),
        ("inlet", "noun", "inlet", "an arm off of a larger body of water"),
        ("lake", "noun", "lake", "a body of water surrounded by land"),
        ("bay", "noun", "bay", "an indentation of a shoreline larger than a cove"),
        ("steep", "adj", "steep", "having a sharp inclination"),
        *[(f"w{i}", "noun", f"water {i}", f"a body of water number {i}") for i in range(30)],
    ]
    edges = [
        ("fjord", "inlet", "hypernym"),
        ("li", "inlet", "hypernym"),
        ("ll", "lake", "hypernym"),
        ("inlet", "lake", "part_holonym"),
        ("bay", "inlet", "hypernym"),
    ]
    snapshot = tiny_snapshot(tmp_path / "lexicon", nodes, edges)
    question = "Like a Scottish loch, but a long narrow sea inlet between steep cliffs?"
    hits = OfflinePlanner(snapshot).hits(question)
    assert [hit.node_id for hit in hits[:2]] == ["fjord", "li"]
    assert 1.5 * (hits[1].score or 0) > (hits[0].score or 0)  # no lead over the named loch
    assert ask(snapshot, question)[0] == "fjord"


def test_a_node_the_question_names_is_no_clear_winner_of_its_search(tmp_path: Path) -> None:
    # "obesity" names the phenotype and the disease `Obesity (OMIM)`: the disease tops the
    # search, but it is named, so the walks' agreement (Narcolepsy 7 has both) answers
    nodes = [
        ("cat", "phenotype", "Cataplexy", "sudden loss of muscle tone"),
        ("obe", "phenotype", "Obesity", "accumulation of excess body fat"),
        (
            "omim",
            "disease",
            "Obesity (OMIM)",
            "Obesity, obesity: OMIM disease, which patients have",
        ),
        ("nar", "disease", "Narcolepsy 7", "OMIM disease"),
        ("ns", "disease", "Niemann-Pick disease", "OMIM disease"),
        *[(f"p{i}", "phenotype", f"Finding {i}", f"a finding number {i}") for i in range(30)],
    ]
    edges = [
        ("nar", "cat", "has_phenotype"),
        ("nar", "obe", "has_phenotype"),
        ("ns", "cat", "has_phenotype"),
        ("omim", "obe", "has_phenotype"),
    ]
    snapshot = tiny_snapshot(tmp_path / "hpo", nodes, edges, candidate_types=["disease"])
    question = "Patient with cataplexy and obesity - which diseases have both?"
    hits = OfflinePlanner(snapshot).hits(question)
    assert hits[0].node_id == "omim"
    plan = plan_of(snapshot, question)
    assert "omim" in plan.named_ids and not plan.relations
    assert ask(snapshot, question)[0] == "nar"


def test_a_type_word_beside_a_name_says_what_the_named_node_is(tmp_path: Path) -> None:
    # "the LRP4 gene": "gene" names LRP4's own type, so neither the answer type nor the
    # relation `gene_of`; "gene" after "same ... as" stays a word of the question
    nodes = [
        ("lrp4", "gene", "LRP4", "LRP4 gene"),
        ("cls", "disease", "Cenani-Lenz syndactyly syndrome", "OMIM disease"),
        ("syn", "phenotype", "Syndactyly", "fused digits"),
    ]
    edges = [("lrp4", "cls", "gene_of"), ("lrp4", "syn", "associated_with")]
    snapshot = tiny_snapshot(tmp_path / "hpo", nodes, edges)
    planner = OfflinePlanner(snapshot).writer.reader
    assert planner.apposition("Which conditions is the LRP4 gene in?", "LRP4", "gene") == (
        "LRP4 gene"
    )
    assert planner.apposition("Is gene LRP4 known?", "LRP4", "gene") == "gene LRP4"
    assert planner.apposition("the same gene as LRP4", "LRP4", "gene") == "LRP4"
    assert planner.apposition("LRP4, gene", "LRP4", "gene") == "LRP4"
    assert planner.apposition("a LRP4-gene test", "LRP4", "gene") == "LRP4-gene"
    assert planner.apposition("LRP4 - genes with it?", "LRP4", "gene") == "LRP4"
    plan = plan_of(snapshot, "Which conditions is the LRP4 gene implicated in?")
    assert plan.plan.target.labels != ["gene"]
    assert plan.relations == () and len(plan.routes[0].hops) == 1


def test_a_run_of_type_words_beside_a_name_that_holds_its_own_type_says_what_it_is(
    tmp_path: Path,
) -> None:
    """In "the virtual package news-transport-system", `virtual`, written with the word of
    `package`, says what the named node is; the answers are what the relation leads to (the
    packages providing it), not the virtual packages."""
    nodes = [
        ("nts", "virtual", "news-transport-system", "a name no real package has"),
        ("inn", "package", "inn2", "a news server"),
        ("other", "virtual", "mail-transport-agent", "a name no real package has"),
    ]
    edges = [("inn", "nts", "provides"), ("inn", "other", "provides")]
    snapshot = tiny_snapshot(tmp_path / "archive", nodes, edges)
    reader = OfflinePlanner(snapshot).writer.reader
    question = "What provides the virtual package news-transport-system?"
    name = "news-transport-system"
    assert reader.apposition(question, name, "virtual") == f"virtual package {name}"
    # a run of type words without the node's own type's word says nothing of it
    assert reader.apposition(f"the package {name}", name, "virtual") == name
    # after the name, up to the own type's word: the type word beyond it is the question's
    assert reader.apposition(f"{name} virtual packages", name, "virtual") == f"{name} virtual"
    plan = plan_of(snapshot, question)
    assert plan.plan.target.labels == ["package"]
    assert ask(snapshot, question)[0] == "inn"


def test_a_named_nodes_own_type_named_first_across_a_relation_is_a_round_trip(
    tmp_path: Path,
) -> None:
    # `gene_of` links genes to diseases only: other diseases of Alpha syndrome's own kind
    # lie across it and back; `depends`, within packages, asks for no round trip
    nodes = [
        ("alpha", "disease", "Alpha syndrome", "OMIM disease"),
        ("beta", "disease", "Beta syndrome", "OMIM disease"),
        ("gamma", "disease", "Gamma syndrome", "OMIM disease"),
        ("g1", "gene", "ABC1", "ABC1 gene"),
        ("g2", "gene", "XYZ2", "XYZ2 gene"),
        ("pkg", "package", "spacy", "industrial NLP"),
        ("dep", "package", "thinc", "a deep learning library"),
    ]
    edges = [
        ("g1", "alpha", "gene_of"),
        ("g1", "beta", "gene_of"),
        ("g2", "gamma", "gene_of"),
        ("pkg", "dep", "depends"),
    ]
    snapshot = tiny_snapshot(tmp_path / "mixed", nodes, edges)
    writer = OfflinePlanner(snapshot).writer
    assert writer.answers.round_trip(["disease", "gene"], ["disease"], ["gene_of"])
    assert not writer.answers.round_trip(["gene", "disease"], ["disease"], ["gene_of"])
    assert not writer.answers.round_trip(["package", "gene"], ["package"], ["depends"])
    question = "What other diseases are caused by the same gene as Alpha syndrome?"
    plan = plan_of(snapshot, question)
    assert plan.plan.target.labels == ["disease"]
    assert [hop.node_type for hop in plan.routes[0].hops] == ["gene", "disease"]
    assert ask(snapshot, question)[0] == "beta"


def test_with_nothing_else_to_choose_the_named_nodes_own_kind_comes_first(
    tmp_path: Path,
) -> None:
    # no relation, no type named, no remaining word in any neighbour's text: the parent
    # phenotype comes before the genes linked to projectile vomiting, in both interpreters
    nodes = [
        ("pv", "phenotype", "Projectile vomiting", "forceful vomiting"),
        ("vo", "phenotype", "Vomiting", "ejection of the contents of the stomach"),
        *[(f"g{i}", "gene", f"GENE{i}", f"GENE{i} gene") for i in range(6)],
    ]
    edges = [("pv", "vo", "is_a"), *[(f"g{i}", "pv", "associated_with") for i in range(6)]]
    snapshot = tiny_snapshot(tmp_path / "hpo", nodes, edges)
    question = "Projectile vomiting is a more specific kind of which symptom?"
    plan = plan_of(snapshot, question)
    assert not plan.relations and len(plan.routes) == 1
    assert ask(snapshot, question)[0] == "vo"
    outcome = PlanExecutor(snapshot).run(plan.plan)
    assert outcome.ranking[0].node_id == "vo"


FINGERS = [
    ("HP:1", "phenotype", "Arachnodactyly", "abnormally long and slender fingers and toes"),
    ("HP:2", "phenotype", "Long fingers", "fingers longer than usual"),
    ("HP:3", "phenotype", "Slender finger", "fingers thinner than usual"),
    (
        "HP:4",
        "phenotype",
        "Diagnostic behavioral phenotype",
        "terms describe specific phenotypic abnormalities under broader classified terms",
    ),
    (
        "HP:5",
        "phenotype",
        "Fetal anomaly",
        "an abnormality of the fetus, classified under broader terms",
    ),
    ("D:1", "disease", "Marfan syndrome", "a disorder of connective tissue"),
    ("D:2", "disease", "Beals syndrome", "congenital contractural arachnodactyly"),
    *(
        (f"HP:{i}", "phenotype", f"Finding {i}", f"a phenotype finding, number {i}")
        for i in range(10, 30)
    ),
]
FINGER_EDGES = [
    ("HP:1", "HP:2", "is_a"),
    ("HP:1", "HP:3", "is_a"),
    ("D:1", "HP:1", "has_phenotype"),
    ("D:2", "HP:1", "has_phenotype"),
    ("D:1", "HP:4", "has_phenotype"),
    *(("D:1", f"HP:{i}", "has_phenotype") for i in range(10, 30)),
]


def test_the_walk_of_a_named_relation_keeps_the_tail_when_the_search_comes_first(
    tmp_path: Path,
) -> None:
    fingers = tiny_snapshot(tmp_path / "fingers", FINGERS, FINGER_EDGES)
    question = "Under which broader phenotype terms is Arachnodactyly classified?"
    assert plan_of(fingers, question).relations == ("has_phenotype",)
    answers = ask(fingers, question)
    # no walk along the named relation reaches a phenotype, and the walk over every relation
    # reaches nothing the words describe: the search comes first, with twenty hits
    assert answers[0] == "HP:4" and len(answers) == 20
    # the question asked for a walk: its nodes keep the list's last places
    assert {"HP:2", "HP:3"} <= set(answers[-5:])
