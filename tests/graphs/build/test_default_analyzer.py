"""The build's default analyzer keeps words as written; `english-stem` finds inflections."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.build.options import DEFAULT_BUILD_ANALYZER, BuildOptions
from graphs.snapshot import Snapshot

NODES = {
    "id": ["F1", "F2"],
    "type": ["film", "film"],
    "name": ["Inception", "Heat"],
    "text": ["A thief steals secrets by entering people's dreams.", "A crew plans a bank job."],
}
EDGES = {"src": ["F1"], "dst": ["F2"], "relation": ["similar_to"]}


def _search(tmp_path: Path, options: BuildOptions | None) -> tuple[str, list[str]]:
    out = tmp_path / "snapshot"
    build_snapshot(pa.table(NODES), pa.table(EDGES), out, name="films", options=options)
    snapshot = Snapshot.open(out)
    ids, _ = snapshot.index.search("dream heist", 5)
    return snapshot.manifest.analyzer, [snapshot.external_id(int(node)) for node in ids]


def test_snapshots_keep_words_as_written_by_default(tmp_path: Path) -> None:
    assert BuildOptions().analyzer == DEFAULT_BUILD_ANALYZER == "english"
    analyzer, hits = _search(tmp_path, None)
    assert analyzer == "english"
    assert hits == []  # "dream" is not "dreams"


def test_the_stemming_analyzer_finds_the_inflected_word(tmp_path: Path) -> None:
    analyzer, hits = _search(tmp_path, BuildOptions(analyzer="english-stem"))
    assert analyzer == "english-stem"
    assert hits == ["F1"]
