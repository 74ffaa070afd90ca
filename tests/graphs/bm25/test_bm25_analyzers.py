import json
from pathlib import Path

import numpy as np
import pytest
import tantivy

from graphs.bm25.build import build_index
from graphs.bm25.index import BM25Index
from graphs.bm25.postings import PostingsBuilder
from graphs.bm25.tokenize import ANALYZERS, Tokenizer
from graphs.errors import GraphError, SnapshotError

NAMES = ["Connection pool", "The runner", "Of mice and men"]
TEXTS = ["Pools of connected sockets.", "A person who runs.", "A novel by the author."]


def _build(path: Path, analyzer: str) -> BM25Index:
    build_index(path, NAMES, TEXTS, np.zeros(3, np.int16), analyzer=analyzer)
    return BM25Index.open(path)


def test_english_is_the_default_and_drops_stopwords(tmp_path: Path) -> None:
    build_index(tmp_path / "index", NAMES, TEXTS, np.zeros(3, np.int16))
    index = BM25Index.open(tmp_path / "index")
    assert index.analyzer == "english"
    assert json.loads((tmp_path / "index" / "meta.json").read_text())["analyzer"] == "english"
    assert index.tokenize("The mice of the author") == ["mice", "author"]
    assert index.search("the of and", 5)[0].size == 0  # only stopwords: nothing to match


def test_plain_keeps_every_word(tmp_path: Path) -> None:
    index = _build(tmp_path / "index", "plain")
    assert index.tokenize("The mice of") == ["the", "mice", "of"]
    assert sorted(index.search("of", 5)[0].tolist()) == [0, 2]


def test_stemming_matches_inflected_forms(tmp_path: Path) -> None:
    stemmed = _build(tmp_path / "stem", "english-stem")
    assert stemmed.search("connections running", 5)[0].tolist() == [0, 1]
    unstemmed = _build(tmp_path / "plain", "english")
    assert unstemmed.search("connections running", 5)[0].size == 0


@pytest.mark.parametrize("analyzer", sorted(ANALYZERS))
def test_search_and_score_nodes_agree_under_every_analyzer(tmp_path: Path, analyzer: str) -> None:
    index = _build(tmp_path / "index", analyzer)
    for query in ("connected pools of the runner", "mice, men and novels", "a person"):
        ids, scores = index.search(query, 10)
        np.testing.assert_allclose(index.score_nodes(query, ids), scores, rtol=1e-5)


def test_unknown_analyzer_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(GraphError, match=r"unknown analyzer 'klingon'.*english-stem"):
        build_index(tmp_path / "index", ["a"], ["b"], np.zeros(1, np.int16), analyzer="klingon")
    assert not (tmp_path / "index").exists()


def test_word_spans_give_offsets_of_analysed_words() -> None:
    text = "The Connections, of running!"
    spans = Tokenizer("english-stem").word_spans(text)
    assert [(text[start:end], token) for start, end, token in spans] == [
        ("Connections", "connect"),
        ("running", "run"),
    ]


def _write_format_1_index(path: Path, names: list[str], texts: list[str]) -> None:
    """An index as ARK wrote it before analyzers: name and text fields, default tokenizer."""
    builder = tantivy.SchemaBuilder()
    for field in ("name", "text"):
        builder.add_text_field(field, stored=False, tokenizer_name="default", index_option="freq")
    builder.add_unsigned_field("node_id", stored=True, indexed=True, fast=True)
    builder.add_unsigned_field("type", indexed=True, fast=True)
    schema = builder.build()
    (path / "tantivy").mkdir(parents=True)
    writer = tantivy.Index(schema, path=str(path / "tantivy")).writer(50_000_000, 1)
    for node, (name, text) in enumerate(zip(names, texts, strict=True)):
        doc = {"name": name, "text": text, "node_id": node, "type": 0}
        writer.add_document(tantivy.Document.from_dict(doc, schema))
    writer.commit()
    writer.wait_merging_threads()
    postings = PostingsBuilder(("name", "text"))
    plain = Tokenizer("plain")
    postings.add_chunk("name", 0, plain.tokenize_many(names))
    postings.add_chunk("text", 0, plain.tokenize_many(texts))
    totals = postings.write(path)
    np.save(path / "types.npy", np.zeros(len(names), np.int16))
    info = {
        "format_version": 1,
        "num_docs": len(names),
        "total_tokens": totals,
        "boosts": {"name": 2.0, "text": 1.0},
        "type_counts": [len(names)],
        "meta": {},
    }
    (path / "meta.json").write_text(json.dumps(info))


def test_format_1_indexes_are_refused_with_the_rebuild_hint(tmp_path: Path) -> None:
    _write_format_1_index(tmp_path / "old", ["alpha", "beta"], ["beta", "alpha of"])
    with pytest.raises(SnapshotError, match=r"format version 1, this ARK reads version 3.*rebuild"):
        BM25Index.open(tmp_path / "old")


def test_unknown_analyzer_in_meta_is_a_snapshot_error(tmp_path: Path) -> None:
    _build(tmp_path / "index", "english")
    meta = tmp_path / "index" / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "analyzer": "klingon"}))
    with pytest.raises(SnapshotError, match="unknown analyzer 'klingon'"):
        BM25Index.open(tmp_path / "index")
