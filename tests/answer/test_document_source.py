"""SARG over a document snapshot: the retrieved passages' facts, each citing its passage."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.models.scripted import ScriptedModel, text_message
from answer.config import SargConfig
from answer.doc_graph import DocumentSource, is_document_snapshot
from answer.factory import make_answerer
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.model import Extraction, ExtractionFailure, Mention, Triple
from graphs.snapshot import Snapshot
from tests.answer.word_encoder import FixedPhrases, WordEncoder

PASSAGES = {
    "tokarev": "Sergei Tokarev was a professor at Moscow State University.",
    "msu": "Moscow State University was founded in 1755.",
    "kosarev": "Sergei Kosarev plays for FC Spartak.",
}
FACTS = {
    "tokarev": (
        "Sergei Tokarev",
        "person",
        "professor_at",
        "Moscow State University",
        "organisation",
    ),
    "msu": ("Moscow State University", "org", "founded_in", "1755", "date"),
    "kosarev": ("Sergei Kosarev", "person", "plays_for", "FC Spartak", "org"),
}


class TableExtractor:
    """Returns one hand-written triple per passage (a scripted extractor)."""

    name, model, prompt_version, batch_size = "table", "table-1", "1", 8

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        out: list[Extraction | ExtractionFailure] = []
        for text in texts:
            key = next(k for k, v in PASSAGES.items() if v in text)
            s, st, r, o, ot = FACTS[key]
            mentions = (Mention(s, st), Mention(o, ot))
            out.append(Extraction(mentions, (Triple(s, st, r, o, ot, 0, PASSAGES[key]),)))
        return out


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    for key, text in PASSAGES.items():
        (root / f"{key}.txt").write_text(text + "\n")
    out = root / "snap"
    with ExtractionCache(root / "cache.sqlite") as cache:
        build_document_snapshot(
            [root], out, extractor=TableExtractor(), cache=cache, config=DocumentBuildConfig()
        )
    return out


def test_the_query_graph_holds_the_retrieved_passages_facts(documents: Path) -> None:
    snapshot = Snapshot.open(documents)
    assert is_document_snapshot(snapshot)
    source = DocumentSource(snapshot)
    passages = snapshot.index.search(
        "Tokarev professor founded", 2, node_types=[source.passage_type]
    )
    graph = asyncio.run(source.query_graph(passages[0].tolist(), "q"))
    relations = {t.relation for t in graph.triples}
    assert relations == {"professor_at", "founded_in"}
    cited = {s for t in graph.triples for s in t.sources}
    assert cited == set(graph.sources) and all(c.startswith("passage:") for c in cited)
    assert set(graph.labels.values()) >= {"Sergei Tokarev", "Moscow State University", "1755"}


def test_sarg_answers_over_documents_with_the_chain_and_its_passages(documents: Path) -> None:
    model = ScriptedModel([text_message("Answer: 1755")])
    answerer = make_answerer(
        Snapshot.open(documents),
        SargConfig(passages=2, extraction="snapshot"),  # the facts `ark graph extract` stored
        model=model,
        encoder=WordEncoder(),
        keyphrases=FixedPhrases(["sergei tokarev"]),
    )
    result = asyncio.run(answerer.answer("In what year was Tokarev's university founded?"))
    assert result.answer == "1755"
    assert result.chains[0].labels == ["Sergei Tokarev", "Moscow State University", "1755"]
    user = model.calls[0].messages[1]["content"]
    assert (
        "Sergei Tokarev --[professor at]--> Moscow State University --[founded in]--> 1755" in user
    )
    assert PASSAGES["msu"] in user and PASSAGES["tokarev"] in user
