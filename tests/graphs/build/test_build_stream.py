"""The bounded-memory build writes the same snapshot as the in-memory build, bad rows and all."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError
from graphs.snapshot import Snapshot
from graphs.verify import verify_snapshot

sys.path.insert(0, str(Path(__file__).parent))
from stream_compare import build_both, differing_files

NODES = pa.table(
    {
        "id": ["a", "b", "c", "a", "", "d", "e", "f", "g", "h", "  ", "i", "é", "Z"],
        "type": ["T", "U", "T", "T", "T", "", "T", "U", "U", "T", "T", "V", "T", "U"],
        "name": ["A", "B", "C", "A2", "X", "D", "E", "", "G", "", "S", "I", "É", "Zed"],
        "text": ["ta", "tb", "", "x", "y", "z", "te", "tf", " \t", "", "s", "ti", "té", "tz"],
        "extra": list(range(14)),
        "tag": ["x", None, "y", "z", None, "q", "r", "s", "t", "u", "v", "w", "é", "z"],
    }
)
"""Duplicate id (row 4), empty id, whitespace id, empty type, empty text (c, g: blank),
neither name nor text (h), non-ASCII ids, an int and a nullable extra column."""
EDGES = pa.table(
    {
        "src": ["a", "a", "b", "a", "zz", "c", "b", "", "e", "i", "a", "b", "é", "Z", "a"],
        "dst": ["b", "b", "c", "a", "a", "a", "q", "a", "", "i", "é", "Z", "a", "b", "b"],
        "relation": ["r", "r", "s", "r", "r", "", "s", "r", "r", "t", "s", "r", "r", "s", "s"],
    }
)
"""Duplicate edge (row 2), self-loops (a-a, i-i), dangling src and dst, empty src, dst and
relation, the same pair under another relation (last row)."""
UNREADABLE_NODES = np.array([False] * 13 + [True])
UNREADABLE_EDGES = np.array([False] * 14 + [True])

OPTION_SETS = {
    "skip": BuildOptions(skip_invalid=True),
    "skip+empty-text": BuildOptions(skip_invalid=True, allow_empty_text=True),
    "skip+strict": BuildOptions(skip_invalid=True, strict=True),
    "all": BuildOptions(skip_invalid=True, strict=True, allow_empty_text=True),
    "jsonl-report": BuildOptions(skip_invalid=True, report_path=Path("skipped.jsonl")),
}


@pytest.mark.parametrize("label", OPTION_SETS)
def test_bad_rows_give_identical_files(tmp_path: Path, label: str) -> None:
    memory, stream = build_both(NODES, EDGES, tmp_path, options=OPTION_SETS[label])
    assert differing_files(memory, stream) == []
    assert Snapshot.open(stream).manifest.skipped_rows > 0
    reports = sorted(tmp_path.glob("*skipped*")) or [
        memory / "skipped_rows.csv",
        stream / "skipped_rows.csv",
    ]
    assert len(reports) == 2
    assert reports[0].read_text() == reports[1].read_text()
    assert "duplicate node id" in reports[0].read_text()


def test_unreadable_rows_give_identical_files(tmp_path: Path) -> None:
    memory, stream = build_both(
        NODES,
        EDGES,
        tmp_path,
        options=BuildOptions(skip_invalid=True, allow_empty_text=True),
        unreadable_nodes=UNREADABLE_NODES,
        unreadable_edges=UNREADABLE_EDGES,
    )
    assert differing_files(memory, stream) == []
    report = (stream / "skipped_rows.csv").read_text()
    assert "not UTF-8" in report and ",14," in report and ",15," in report


@pytest.mark.parametrize("strict", [False, True])
def test_invalid_rows_fail_with_the_same_message(tmp_path: Path, strict: bool) -> None:
    messages = []
    for streaming in (False, True):
        options = BuildOptions(streaming=streaming, strict=strict)
        with pytest.raises(GraphImportError) as raised:
            build_snapshot(NODES, EDGES, tmp_path / f"s{streaming}", name="g", options=options)
        messages.append(str(raised.value))
        assert not (tmp_path / f"s{streaming}").exists()
    assert messages[0] == messages[1]
    assert "invalid rows in all" in messages[0]


def test_clean_graph_over_row_groups_gives_identical_files(tmp_path: Path) -> None:
    """Several batches, a duplicate per thousand edges; every file equal, queries too."""
    rng = np.random.default_rng(3)
    count, edges = 3000, 20000
    ids = [f"n{i:05d}" for i in rng.permutation(count)]
    nodes = pa.table(
        {
            "id": ids,
            "type": [f"t{i % 3}" for i in range(count)],
            "name": [f"node {i}" for i in range(count)],
            "text": [f"word{i % 97} word{i % 13} text" for i in range(count)],
        }
    )
    pick = rng.integers(0, count, (2, edges))
    edge_table = pa.table(
        {
            "src": [ids[i] for i in pick[0]],
            "dst": [ids[i] for i in pick[1]],
            "relation": [f"r{i % 4}" for i in range(edges)],
        }
    )
    memory, stream = build_both(nodes, edge_table, tmp_path)
    assert differing_files(memory, stream) == []
    left, right = Snapshot.open(memory), Snapshot.open(stream)
    node = right.internal_id(ids[7])
    assert np.array_equal(left.neighbors(node).nodes, right.neighbors(node).nodes)
    assert left.text(node) == right.text(node) and right.external_id(node) == ids[7]


def test_empty_graph_gives_identical_files(tmp_path: Path) -> None:
    nodes = pa.table({name: pa.array([], pa.string()) for name in ("id", "type", "name", "text")})
    edges = pa.table({name: pa.array([], pa.string()) for name in ("src", "dst", "relation")})
    memory, stream = build_both(nodes, edges, tmp_path)
    assert differing_files(memory, stream) == []


def test_graphs_too_big_for_one_sort_key_give_identical_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond 2^62 (node, relation, node) keys, both builds group and sort by columns."""
    import graphs.build.stream.checks
    import graphs.build.stream.csr_out
    import graphs.snapshot.csr

    for module in (graphs.snapshot.csr, graphs.build.stream.checks, graphs.build.stream.csr_out):
        monkeypatch.setattr(module, "KEY_LIMIT", 1)
    options = BuildOptions(skip_invalid=True, allow_empty_text=True)
    memory, stream = build_both(NODES, EDGES, tmp_path, options=options)
    assert differing_files(memory, stream) == []


def test_kept_rows_come_back_in_order_across_odd_batches(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from graphs.build.stream.parquet_out import kept_batches, kept_rows_bitmap

    rng = np.random.default_rng(0)
    count = 10_007
    table = pa.table({"x": np.arange(count)})
    pq.write_table(table, tmp_path / "staged.parquet", row_group_size=333)  # batches of 333
    keep = np.sort(rng.choice(count, 4000, replace=False))
    unordered = pa.record_batch([pa.array(rng.permutation(keep))], names=["row"])
    reader = pa.RecordBatchReader.from_batches(unordered.schema, [unordered])
    bits = kept_rows_bitmap(reader, count)
    batches = kept_batches(tmp_path / "staged.parquet", table.schema, bits, 1000)
    assert np.array_equal(np.concatenate([b.column(0).to_numpy() for b in batches]), keep)


def test_a_null_name_is_an_empty_name_in_both_builds(tmp_path: Path) -> None:
    # Parquet can hold a null name; it used to reach the BM25 build and fail there ("node 0
    # has a NoneType name"). Now it is an empty name, like an empty CSV cell.
    nodes = pa.table(
        {
            "id": ["a", "b", "c"],
            "type": ["T", "T", "T"],
            "name": [None, "B", None],
            "text": ["hello world", "bye", None],
        }
    )
    edges = pa.table({"src": ["a"], "dst": ["b"], "relation": ["r"]})
    options = BuildOptions(skip_invalid=True)
    memory, stream = build_both(nodes, edges, tmp_path, options=options)
    assert differing_files(memory, stream) == []
    snapshot = Snapshot.open(stream)
    assert snapshot.manifest.num_nodes == 2  # c has neither name nor text: skipped
    first = snapshot.internal_id("a")
    assert snapshot.name(first) == "" and snapshot.text(first) == "hello world"
    assert snapshot.index.search("hello", 5)[0].tolist() == [first]


def test_a_slice_of_a_larger_table_gives_identical_files_that_verify(tmp_path: Path) -> None:
    """A sliced table's columns share their parent's buffers; the store holds only its own."""
    table = NODES.slice(0, 2).drop_columns(["extra", "tag"])  # valid rows of a larger table
    memory, stream = build_both(table, EDGES.slice(0, 1), tmp_path)
    assert differing_files(memory, stream) == []
    checks = verify_snapshot(memory)
    assert [check.problem for check in checks] == [None] * len(checks)
