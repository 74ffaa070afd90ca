"""`ark graph extract` core: a hand-written document set through the offline spaCy extractor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.summary import read_summary
from graphs.importers.documents.vocabulary import VocabularyConfig
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.toolset import Toolset

spacy_extractor = pytest.importorskip("graphs.importers.documents.spacy_extractor")


@pytest.fixture(scope="module")
def extractor() -> object:
    try:
        return spacy_extractor.SpacyExtractor()
    except Exception as error:  # the `documents` extra is optional
        pytest.skip(f"spaCy model missing: {error}")


def write_corpus(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "marie.txt").write_text(
        "Marie Curie was a Polish physicist. She was born in Warsaw in 1867. "
        "Curie worked at the University of Paris.\n"
    )
    (docs / "pierre.md").write_text(
        "# Pierre Curie\n\nPierre Curie was a French physicist. He married Marie Curie in 1895.\n"
    )
    rows = [{"id": "up", "title": "University of Paris", "text": "The University of Paris (UP) "
             "is a university in Paris. It was founded in 1150.", "lang": "en"}]  # fmt: skip
    (docs / "more.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return docs


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, extractor: object) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("documents")
    docs = write_corpus(root)
    out = root / "snap"
    with ExtractionCache(root / "cache.sqlite") as cache:
        summary = build_document_snapshot(
            [docs],
            out,
            extractor=extractor,  # type: ignore[arg-type]
            cache=cache,
            config=DocumentBuildConfig(vocabulary=VocabularyConfig(min_count=1)),
        )
    return out, summary.model_dump()


def neighbour_ids(snapshot: Snapshot, node_id: str, relation: str) -> set[str]:
    hood = snapshot.neighbors(
        snapshot.internal_id(node_id), relations=[snapshot.relation_code(relation)]
    )
    return {snapshot.external_id(int(node)) for node in hood.nodes}


def test_entities_are_typed_and_resolved_across_documents(built: tuple[Path, dict]) -> None:
    snapshot = Snapshot.open(built[0])
    marie = snapshot.internal_id("entity:marie curie")
    assert snapshot.type_name(marie) == "person"
    # named in marie.txt and in pierre.md: one node linked to both passages
    assert neighbour_ids(snapshot, "entity:marie curie", "mentioned_in") == {
        "passage:marie.txt#0",
        "passage:pierre.md#0",
    }
    assert snapshot.type_name(snapshot.internal_id("entity:warsaw")) == "place"


def test_relation_edges_between_entities(built: tuple[Path, dict]) -> None:
    snapshot = Snapshot.open(built[0])
    assert "entity:warsaw" in neighbour_ids(snapshot, "entity:marie curie", "born_in")
    assert "entity:marie curie" in neighbour_ids(snapshot, "entity:pierre curie", "marry")
    assert "entity:1150" in neighbour_ids(snapshot, "entity:university of paris", "founded_in")


def test_relation_provenance_reaches_passage_and_sentence(built: tuple[Path, dict]) -> None:
    snapshot = Snapshot.open(built[0])
    facts = neighbour_ids(snapshot, "entity:warsaw", "has_object")
    (fact,) = [f for f in facts if "born_in" in snapshot.name(snapshot.internal_id(f))]
    text = snapshot.text(snapshot.internal_id(fact))
    assert "She was born in Warsaw in 1867." in text
    assert neighbour_ids(snapshot, fact, "stated_in") == {"passage:marie.txt#0"}
    # the tools show it: `node` on the fact prints the evidence, neighbors reach the passage
    tools = Toolset(snapshot, ToolConfig(enable_node=True))
    assert "She was born in Warsaw" in tools.call("node", {"node_id": fact}).text
    listing = tools.call("neighbors", {"node_id": fact, "edge_types": ["stated_in"]})
    assert "passage:marie.txt#0" in listing.text


def test_merges_are_counted(built: tuple[Path, dict]) -> None:
    snapshot, summary = Snapshot.open(built[0]), built[1]
    # "the University of Paris" / "The University of Paris" fold by normalisation; "UP" is
    # the acronym of the only name whose initials spell it
    assert summary["merges"]["normalised"] >= 1
    assert summary["merges"]["alias"] >= 1
    assert neighbour_ids(snapshot, "entity:university of paris", "mentioned_in") == {
        "passage:marie.txt#0",
        "passage:up#0",
    }
    assert "UP" in snapshot.text(snapshot.internal_id("entity:university of paris"))


def test_summary_is_stored_beside_the_manifest(built: tuple[Path, dict]) -> None:
    stored = read_summary(built[0])
    assert stored is not None
    assert stored["documents"] == 3 and stored["passages"] == 3
    assert stored["extracted"] == 3 and stored["failed"] == 0
    assert stored["entities_by_type"]["person"] >= 2
    assert stored["relation_types"]["born_in"] >= 1
    manifest = Snapshot.open(built[0]).manifest
    assert manifest.node_types["document"] == 3 and manifest.node_types["passage"] == 3


def test_rare_labels_fall_to_the_generic_type(tmp_path: Path, extractor: object) -> None:
    docs = write_corpus(tmp_path)
    with ExtractionCache(tmp_path / "cache.sqlite") as cache:
        summary = build_document_snapshot(
            [docs],
            tmp_path / "snap",
            extractor=extractor,  # type: ignore[arg-type]
            cache=cache,
            config=DocumentBuildConfig(vocabulary=VocabularyConfig(max_types=1, min_count=1)),
        )
    relations = Snapshot.open(tmp_path / "snap").manifest.relations
    structural = {"has_passage", "mentioned_in", "stated_in", "has_subject", "has_object"}
    typed = set(relations) - structural - {"related_to"}
    assert len(typed) == 1  # only the most frequent label keeps a type of its own
    assert summary.relation_types["related_to"] >= 4
    assert summary.generic_labels >= 4


def test_urls_paths_flags_and_verbs_are_no_entities(extractor: object) -> None:
    text = (
        "Files live in ~/.cache/ark/gguf and docs/graphs.md explains them. Use --max-file-mb to "
        "skip files. See https://example.com/guide now. Marie Curie was born in Warsaw."
    )
    (extraction,) = extractor.extract([text])  # type: ignore[attr-defined]
    names = {mention.name for mention in extraction.mentions}
    assert {"Marie Curie", "Warsaw"} <= names
    arguments = {t.subject for t in extraction.triples} | {t.object for t in extraction.triples}
    for text_seen in names | arguments:
        assert not any(mark in text_seen for mark in ("/", "--", "://", "~")), text_seen


def test_a_lone_word_tagged_as_a_verb_is_no_name() -> None:
    import spacy
    from spacy.tokens import Doc, Span

    doc = Doc(spacy.blank("en").vocab, words=["Requires", "French", "Python"])
    for token, pos in zip(doc, ["VERB", "ADJ", "PROPN"], strict=True):
        token.pos_ = pos
    usable = spacy_extractor._usable
    assert not usable(Span(doc, 0, 1, label="PERSON"))  # a verb at the head of a line
    assert usable(Span(doc, 1, 2, label="NORP")) and usable(Span(doc, 2, 3, label="PRODUCT"))


def test_graph_info_says_how_many_edges_are_generic_and_why(built: tuple[Path, dict]) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    stored = read_summary(built[0])
    assert stored is not None
    total = sum(stored["relation_types"].values())
    generic = stored["relation_types"].get("related_to", 0)
    result = CliRunner().invoke(build_app(), ["graph", "info", str(built[0])])
    out = " ".join(result.output.split())
    assert f"{generic:,} of {total:,} ({generic / total:.0%}) are `related_to`" in out
    assert "--relation-types and --relation-min" in out
