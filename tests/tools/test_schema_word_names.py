"""Names that are the schema's or the language's words: a code graph's `module` and `what`.

A code graph names its types as English does (`module`, `function`) and some of its nodes as
English's function words (imghdr's function `what`): a question's words may then name a
node by accident, and the question means the type, or the word.
"""

from __future__ import annotations

import pytest
from offline_answers import ask, plan_of
from tiny_graph import tiny_snapshot

from graphs.snapshot import Snapshot
from tools.mentions import find_mentions
from tools.plans.vocabulary import QuestionReader

NODES = [
    ("mod:json", "module", "json", "JSON (JavaScript Object Notation) encoder and decoder."),
    ("mod:imghdr", "module", "imghdr", "Recognize image file formats based on their first bytes."),
    ("mod:modulefinder", "module", "modulefinder", "Find modules used by a script."),
    ("fn:json.dumps", "function", "dumps", "dumps(obj): serialize obj to a JSON formatted str."),
    ("fn:json.loads", "function", "loads", "loads(s): deserialize s to a Python object."),
    ("fn:imghdr.what", "function", "what (imghdr)", "what(file): recognize the image type."),
    ("fn:imghdr.test", "function", "test (imghdr)", "test(): run the image tests."),
    ("cls:modulefinder.Module", "class", "Module (modulefinder)", "A module found by a script."),
    ("cls:json.JSONDecoder", "class", "JSONDecoder", "Simple JSON decoder."),
    ("exc:ValueError", "exception", "ValueError", "Inappropriate argument value."),
]
EDGES = [
    ("fn:json.dumps", "mod:json", "defined_in"),
    ("fn:json.loads", "mod:json", "defined_in"),
    ("fn:imghdr.what", "mod:imghdr", "defined_in"),
    ("fn:imghdr.test", "mod:imghdr", "defined_in"),
    ("cls:modulefinder.Module", "mod:modulefinder", "defined_in"),
    ("cls:json.JSONDecoder", "mod:json", "defined_in"),
    ("fn:json.loads", "exc:ValueError", "raises"),
    ("fn:imghdr.what", "exc:ValueError", "raises"),
]


@pytest.fixture(scope="module")
def stdlib(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    return tiny_snapshot(tmp_path_factory.mktemp("code") / "stdlib", NODES, EDGES)


def linked(snapshot: Snapshot, question: str) -> list[tuple[str, list[str]]]:
    """(words, external ids) of each mention of `question`."""
    return [
        (m.text, [snapshot.external_id(n) for n in m.nodes])
        for m in find_mentions(snapshot, question)
    ]


def test_a_type_s_whole_name_that_names_nodes_only_by_their_base_names_the_type(
    stdlib: Snapshot,
) -> None:
    # "module" is the type `module`'s name and only the base of `Module (modulefinder)`
    assert linked(stdlib, "Which classes does the json module define?") == [("json", ["mod:json"])]
    # written whole with its disambiguator, the class is named
    assert linked(stdlib, "Where is Module (modulefinder) defined?") == [
        ("Module (modulefinder)", ["cls:modulefinder.Module"])
    ]


def test_a_function_word_name_gives_way_to_a_name_written_with_confidence(
    stdlib: Snapshot,
) -> None:
    question = "What functions does the json module define?"
    # the name index links "What" (imghdr's function `what`) as it links any name ...
    assert ("What", ["fn:imghdr.what"]) in linked(stdlib, question)
    # ... but the plan walks from json alone, and the answers are json's functions
    plan = plan_of(stdlib, question)
    assert [route.node.node_id for route in plan.routes] == ["mod:json"]
    assert set(ask(stdlib, question)[:2]) == {"fn:json.dumps", "fn:json.loads"}


def test_a_function_word_name_the_question_names_alone_is_still_an_anchor(
    stdlib: Snapshot,
) -> None:
    plan = plan_of(stdlib, "In which module is what defined?")
    assert [route.node.node_id for route in plan.routes] == ["fn:imghdr.what"]
    assert ask(stdlib, "In which module is what defined?")[0] == "mod:imghdr"


def test_a_type_word_hyphenated_to_another_word_modifies_the_type_after_it(
    stdlib: Snapshot,
) -> None:
    question = "Which module-level functions in json raise ValueError?"
    plan = plan_of(stdlib, question)
    assert plan.answer_type == "function"  # not `module`: "module-level" is a modifier
    assert ask(stdlib, question)[0] == "fn:json.loads"


def test_the_wh_phrase_reads_past_a_hyphenated_modifier_to_its_head() -> None:
    reader = QuestionReader.build("english", ["module", "function"], ["defined_in", "raises"])
    assert reader.asked_type("Which module-level functions in json raise ValueError?") == (
        "function"
    )
    assert reader.asked_type("Which module defines dumps?") == "module"
