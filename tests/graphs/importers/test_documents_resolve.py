"""Entity resolution, relation vocabulary and resume after a stopped extractor."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from graphs.importers.documents.build import build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.extractor import ExtractorDownError
from graphs.importers.documents.model import Extraction, ExtractionFailure, Mention, Triple
from graphs.importers.documents.resolve import ResolveConfig, normalise, resolve
from graphs.importers.documents.vocabulary import build_vocabulary, canonical_label
from graphs.snapshot import Snapshot


@pytest.mark.parametrize(
    ("name", "key"),
    [("The Beatles", "beatles"), ("Coty, Inc.", "coty inc"), ("Curie's", "curie"),
     ("  “Black Book” ", "black book"), ("U.S.", "us")],
)  # fmt: skip
def test_normalise(name: str, key: str) -> None:
    assert normalise(name) == key


def test_aliases_merge_only_when_unambiguous() -> None:
    names = [
        ("Mikhail Lomonosov", "person"), ("Lomonosov", "person"),
        ("Marie Curie", "person"), ("Pierre Curie", "person"), ("Curie", "person"),
        ("Moscow State University", "organisation"), ("MSU", "organisation"),
        ("the Moscow State University", "organisation"),
    ]  # fmt: skip
    result = resolve(names)
    assert result.by_name["Lomonosov"] is result.by_name["Mikhail Lomonosov"]
    assert result.by_name["MSU"] is result.by_name["Moscow State University"]
    assert result.by_name["Curie"] is not result.by_name["Marie Curie"]  # two Curies: kept
    assert result.merges == {"normalised": 1, "alias": 2, "embedding": 0}
    assert resolve(names, ResolveConfig(aliases=False)).merges["alias"] == 0


def test_encoder_merges_close_names_of_one_type() -> None:
    vectors = {"carice van houten": [1.0, 0.0], "carice vanhouten": [0.99, 0.141],
               "paul verhoeven": [0.0, 1.0]}  # fmt: skip

    def encode(texts: Sequence[str]) -> np.ndarray:
        rows = np.asarray([vectors[text] for text in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    names = [("Carice van Houten", "person"), ("Carice vanHouten", "person"),
             ("Paul Verhoeven", "person")]  # fmt: skip
    result = resolve(names, encode=encode)
    assert result.by_name["Carice vanHouten"] is result.by_name["Carice van Houten"]
    assert result.by_name["Paul Verhoeven"] is not result.by_name["Carice van Houten"]
    assert result.merges["embedding"] == 1


def test_entity_type_is_the_majority_named_type() -> None:
    names = [("Paris", "place"), ("Paris", "place"), ("Paris", "person"), ("Paris", "concept")]
    assert resolve(names).by_name["Paris"].type == "place"


def test_vocabulary_keeps_the_head_and_maps_the_tail() -> None:
    labels = ["born_in"] * 5 + ["directed_by"] * 3 + ["married"] * 2 + ["once"]
    vocabulary = build_vocabulary(labels)  # min_count 3
    assert vocabulary.edge_type("born_in") == "born_in"
    assert vocabulary.edge_type("married") == "related_to"
    assert vocabulary.generic_labels == 2
    assert canonical_label("Founded By") == "founded_by"
    assert canonical_label("mentioned in") == "mentioned_in_rel"  # never a structural type


class StoppingExtractor:
    """Extracts one passage per batch and stops (like an unreachable endpoint) after `limit`."""

    name, model, prompt_version, batch_size = "stopping", "m", "1", 1

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.calls = 0

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        self.calls += 1
        if self.calls > self.limit:
            raise ExtractorDownError("endpoint down")
        return [Extraction(mentions=(Mention(text.split()[0], "person"),)) for text in texts]


def test_a_stopped_build_resumes_from_the_cache(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("Ada", "Alan", "Grace"):
        (docs / f"{name}.txt").write_text(f"{name} wrote programs.")
    with ExtractionCache(tmp_path / "c.sqlite") as cache:
        with pytest.raises(ExtractorDownError):
            build_document_snapshot(
                [docs], tmp_path / "snap", extractor=StoppingExtractor(2), cache=cache
            )
        assert not (tmp_path / "snap").exists()
        resumed = StoppingExtractor(10)
        summary = build_document_snapshot([docs], tmp_path / "snap", extractor=resumed, cache=cache)
    assert summary.cache_hits == 2 and summary.extracted == 1 and resumed.calls == 1


def test_display_name_drops_articles_and_stray_quotes() -> None:
    names = [("the Alaska Legislature", "organisation")] * 2 + [
        ("Alaska Legislature", "organisation"),
        ('"Black Book', "work"),
    ]
    result = resolve(names)
    assert result.by_name["the Alaska Legislature"].name == "Alaska Legislature"
    assert result.by_name['"Black Book'].name == "Black Book"


class RepeatingExtractor:
    """States the same triple three times, as small local models do."""

    name, model, prompt_version, batch_size = "repeating", "m", "1", 4

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        triple = Triple("Ada Lovelace", "person", "wrote", "Notes", "work", 0, texts[0])
        return [Extraction(triples=(triple, triple, triple)) for _ in texts]


def test_a_repeated_triple_is_one_fact(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Ada Lovelace wrote the Notes.")
    with ExtractionCache(tmp_path / "c.sqlite") as cache:
        build_document_snapshot(
            [docs], tmp_path / "snap", extractor=RepeatingExtractor(), cache=cache
        )
    assert Snapshot.open(tmp_path / "snap").manifest.node_types["fact"] == 1
