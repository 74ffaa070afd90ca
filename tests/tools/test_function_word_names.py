"""Function words a lexical graph names (`through (direct)`, `both`) give way to real names.

WordNet names nearly every English word, the closed class of function words among them; a
question writes those as grammar. Only three mentions anchor a plan; a mention made only of
function words gives its place to a name the question writes with confidence (not loose),
and is no anchor at all beside one; it keeps its place only when every other mention is
loose too (either may be words).
"""

from __future__ import annotations

from tools.listing_parse import ListedNode, NamedListed
from tools.plans.anchors import MAX_ANCHORS, AnchorReader
from tools.plans.schema_paths import SchemaPaths
from tools.plans.vocabulary import QuestionReader

LOOSE = (1000, 1)
"""(texts holding the words, those near the node): used away from the node."""
NAMED = (10, 9)


def reader() -> AnchorReader:
    question_reader = QuestionReader.build("english", ["noun", "adj"], ["part_holonym"])
    return AnchorReader(question_reader, SchemaPaths.from_signatures([]))


def row(words: str, score: float, usage: tuple[int, int]) -> NamedListed:
    node = ListedNode(words.lower(), words.lower(), "noun", score)
    return NamedListed(words, node, usage)


def anchored(question: str, rows: list[NamedListed]) -> list[str]:
    return [words for words, _, _ in reader().named(question, None, rows)]


def test_a_function_word_gives_its_place_to_a_confident_name() -> None:
    question = "List every country that the Danube flows through."
    rows = [
        row("List", 10.0, NAMED),
        row("country", 6.5, NAMED),
        row("Danube", 20.2, NAMED),
        row("through", 7.2, LOOSE),
    ]
    assert len(rows) > MAX_ANCHORS
    assert anchored(question, rows) == ["List", "country", "Danube"]


def test_a_function_word_gives_way_to_the_best_name_left_out() -> None:
    question = "Which river flows through both Germany and Austria?"
    rows = [
        row("river", 7.6, NAMED),
        row("through", 7.2, LOOSE),
        row("both", 8.5, LOOSE),
        row("Germany", 10.0, NAMED),
        row("Austria", 11.0, NAMED),
    ]
    assert anchored(question, rows) == ["river", "Germany", "Austria"]


def test_function_words_are_no_anchors_beside_a_name_written_with_confidence() -> None:
    question = "Which other animals are in the same genus as the wolf (canine)?"
    rows = [
        row("other", 10.3, LOOSE),
        row("same", 12.6, LOOSE),
        row("genus", 4.3, LOOSE),
        row("wolf (canine)", 21.5, NAMED),
    ]
    assert anchored(question, rows) == ["wolf (canine)"]


def test_function_words_keep_their_place_when_every_other_name_is_loose() -> None:
    question = "Which other animals are in the same genus?"
    rows = [row("other", 10.3, LOOSE), row("same", 12.6, LOOSE), row("genus", 4.3, LOOSE)]
    assert anchored(question, rows) == ["other", "same", "genus"]
