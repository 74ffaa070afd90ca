"""A query over the length limit is cut to it, with a note in the observation, for every model."""

from __future__ import annotations

import json

import pytest

from graphs.snapshot import Snapshot
from tools.arguments import cut_query
from tools.schemas import MAX_QUERY_CHARS
from tools.toolset import Toolset

LONG = "engine " + "word " * 400 + "tail"


@pytest.mark.parametrize("tool", ["search", "neighbors"])
def test_an_over_long_query_is_cut_with_a_note(tiny_snapshot: Snapshot, tool: str) -> None:
    toolset = Toolset(tiny_snapshot)
    arguments = {"query": LONG} if tool == "search" else {"node_id": "P1", "query": LONG}
    observation = toolset.call(tool, json.dumps(arguments))
    assert observation.error is None
    assert f"the query had {len(LONG):,} characters" in observation.text
    assert f"searched its first {MAX_QUERY_CHARS:,}" in observation.text
    if tool == "search":
        assert observation.node_ids  # the cut query still finds nodes


def test_cut_query_keeps_whole_words_within_the_limit() -> None:
    cut = cut_query(LONG)
    assert len(cut) <= MAX_QUERY_CHARS and LONG.startswith(cut) and cut.endswith("word")
    assert cut_query("short") == "short"
    assert len(cut_query("x" * 5000)) == MAX_QUERY_CHARS
