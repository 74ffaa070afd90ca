"""Snippets and global search on snapshots built with a non-default analyzer."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from graphs.bm25.tokenize import Tokenizer
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.snippet import make_snippet
from tools.toolset import Toolset


def test_stemmed_snapshot_snippets_find_inflected_words(tmp_path: Path) -> None:
    nodes = pa.table(
        {
            "id": ["N1", "N2"],
            "type": ["note", "note"],
            "name": ["Pools", "Sockets"],
            "text": ["Pools keep sockets that were connected earlier.", "Plain sockets."],
        }
    )
    edges = pa.table({"src": ["N1"], "dst": ["N2"], "relation": ["about"]})
    options = BuildOptions(analyzer="english-stem")
    build_snapshot(nodes, edges, tmp_path / "stem", name="stem", options=options)
    toolset = Toolset(Snapshot.open(tmp_path / "stem"), ToolConfig(snippet_chars=20))
    observation = toolset.call("search", {"query": "connecting", "k": 1})
    assert observation.node_ids == ["N1"]
    assert observation.text.splitlines()[1].endswith("| …were connected…")


def test_stem_matching_needs_the_stemming_tokenizer() -> None:
    text = "Pools keep many open sockets alive for later; some were connected earlier and stay."
    assert make_snippet(text, ["connect"], 24) == "Pools keep many open…"  # no match
    stemmed = make_snippet(text, ["connect"], 24, Tokenizer("english-stem"))
    assert stemmed == "…were connected earlier…"
