"""`--update`: only new and changed documents are extracted; the result equals a full rebuild."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.app import build_app
from graphs.importers.documents.build import build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.model import Extraction, ExtractionFailure, Mention, Triple
from graphs.importers.documents.summary import read_summary
from graphs.importers.documents.update import (
    WriterBusyError,
    update_document_snapshot,
    writer_lock,
)
from graphs.snapshot import Snapshot


class WordExtractor:
    """Capitalised words are people; 'A knows B' for consecutive names in a sentence."""

    name, model, prompt_version, batch_size = "words", "words", "1", 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        self.seen += texts
        out: list[Extraction | ExtractionFailure] = []
        for text in texts:
            names = [w.strip(".,") for w in text.split() if w[:1].isupper()]
            triples = tuple(
                Triple(a, "person", "knows", b, "person", 0, text)
                for a, b in itertools.pairwise(names)
            )
            out.append(Extraction(tuple(Mention(n, "person") for n in names), triples))
        return out


def write_docs(folder: Path, docs: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for existing in folder.iterdir():
        existing.unlink()
    for name, text in docs.items():
        (folder / name).write_text(text)
    return folder


def graph_content(snapshot: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    nodes = pq.read_table(snapshot / "nodes.parquet").to_pylist()
    edges = pq.read_table(snapshot / "edges.parquet").to_pylist()
    return (
        sorted(tuple(str(v) for v in row.values()) for row in nodes),
        sorted(tuple(str(v) for v in row.values()) for row in edges),
    )


FIRST = {
    "a.txt": "Ada met Grace. Ada wrote notes.",
    "b.txt": "Alan met Grace in Bletchley.",
    "c.txt": "Claude met Edsger.",
}
SECOND = {
    "a.txt": "Ada met Grace. Ada wrote notes.",
    "b.txt": "Alan met Barbara in Bletchley.",  # changed
    "d.txt": "Donald met Ada.",  # added; c.txt removed
}


def test_update_equals_full_rebuild_and_extracts_only_changes(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", FIRST)
    snap, full = tmp_path / "snap", tmp_path / "full"
    extractor = WordExtractor()
    with ExtractionCache(tmp_path / "cache.sqlite") as cache:
        first = update_document_snapshot([docs], snap, extractor=extractor, cache=cache)
        assert first.update is not None and first.update["counts"]["added"] == 3
        opened_before = Snapshot.open(snap)  # a reader holding the old snapshot
        write_docs(docs, SECOND)
        extractor.seen.clear()
        summary = update_document_snapshot([docs], snap, extractor=extractor, cache=cache)
        build_document_snapshot([docs], full, extractor=WordExtractor(), cache=cache)
    assert sorted(extractor.seen) == sorted([SECOND["b.txt"], SECOND["d.txt"]])
    update = summary.update
    assert update is not None
    assert (update["added"], update["changed"], update["removed"]) == (
        ["d.txt"],
        ["b.txt"],
        ["c.txt"],
    )
    assert update["counts"]["unchanged"] == 1
    removed_names = {i.split(":")[-1] for i in update["removed_entities"]}
    assert {"claude", "edsger"} <= removed_names, update["removed_entities"]
    assert any(e["name"] == "Donald" for e in update["new_entities"])
    assert graph_content(snap) == graph_content(full)
    ids = set(pq.read_table(snap / "nodes.parquet").column("id").to_pylist())
    assert not any("Claude" in i or "claude" in i for i in ids)  # no orphan of c.txt
    assert not any(i.startswith("doc:c.txt") or "c.txt#" in i for i in ids)
    # the reader that opened the old snapshot still reads it
    assert opened_before.name(opened_before.internal_id("doc:c.txt")) == "Claude met Edsger."


def test_exclusions_are_kept_by_the_next_update(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", FIRST)
    snap = tmp_path / "snap"
    with ExtractionCache(tmp_path / "cache.sqlite") as cache:
        update_document_snapshot([docs], snap, extractor=WordExtractor(), cache=cache)
        update_document_snapshot(
            [docs], snap, extractor=WordExtractor(), cache=cache, exclude={"c.txt"}
        )
        again = update_document_snapshot([docs], snap, extractor=WordExtractor(), cache=cache)
    assert (read_summary(snap) or {})["excluded_documents"] == ["c.txt"]
    assert again.update is not None and again.update["counts"]["unchanged"] == 2


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    busy = pytest.raises(WriterBusyError, match="another writer")
    with writer_lock(snap), busy, writer_lock(snap):  # a second open: another writer
        pass
    with writer_lock(snap):  # released
        pass


def test_update_refuses_a_snapshot_not_built_from_documents(tmp_path: Path) -> None:
    from graphs.errors import GraphImportError

    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "nodes.parquet").write_bytes(b"")
    with (
        ExtractionCache(tmp_path / "c.sqlite") as cache,
        pytest.raises(GraphImportError, match="not built from documents"),
    ):
        update_document_snapshot(
            [write_docs(tmp_path / "docs", FIRST)], snap, extractor=WordExtractor(), cache=cache
        )


def test_cli_update_prints_what_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import graphs.importers.documents.spacy_extractor as spacy_extractor

    monkeypatch.setattr(spacy_extractor, "SpacyExtractor", WordExtractor)
    docs = write_docs(tmp_path / "docs", FIRST)
    snap = tmp_path / "snap"
    args = ["graph", "extract", str(docs), "--out", str(snap), "--update", "--cache",
            str(tmp_path / "c.sqlite")]  # fmt: skip
    assert CliRunner().invoke(build_app(), args).exit_code == 0
    write_docs(docs, SECOND)
    result = CliRunner().invoke(build_app(), args)
    assert result.exit_code == 0, result.output
    assert "1 documents added, 1 changed, 1 removed, 1 unchanged" in result.output
