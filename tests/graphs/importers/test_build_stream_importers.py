"""Every importer that feeds build_snapshot gives the same files through both builds."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphs.build.options import BuildOptions
from graphs.importers.tabular import TabularColumns, import_tabular
from tests.graphs.build.stream_compare import differing_files

NODE_ROWS = [
    {"id": "007", "kind": "person", "title": "Bond", "bio": "agent", "year": 1953},
    {"id": "m", "kind": "person", "title": "M", "bio": "", "year": 1953},
    {"id": "q", "kind": "person", "title": "Q", "bio": "quartermaster", "year": 1962},
    {"id": "007", "kind": "person", "title": "Dup", "bio": "dup", "year": 2000},
    {"id": "spectre", "kind": "org", "title": "SPECTRE", "bio": "villains", "year": 1961},
]
EDGE_ROWS = [
    {"from": "m", "to": "007", "rel": "commands", "weight": 1},
    {"from": "m", "to": "007", "rel": "commands", "weight": 2},
    {"from": "q", "to": "q", "rel": "equips", "weight": 3},
    {"from": "007", "to": "spectre", "rel": "fights", "weight": 4},
    {"from": "007", "to": "blofeld", "rel": "fights", "weight": 5},
]
COLUMNS = TabularColumns(
    type_col="kind", name_col="title", text_cols=("bio",), src_col="from", dst_col="to",
    relation_col="rel",
)  # fmt: skip


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        lines = [sep.join(rows[0])] + [sep.join(str(v) for v in row.values()) for row in rows]
        path.write_text("\n".join(lines) + "\n")
    return path


def both_ways(tmp_path: Path, build: Callable[[Path, BuildOptions], Path], **options: object):
    built = []
    for streaming in (False, True):
        chosen = BuildOptions(streaming=streaming, **options)  # type: ignore[arg-type]
        built.append(build(tmp_path / f"build-{streaming}" / "snap", chosen))
    return built


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".jsonl"])
@pytest.mark.parametrize("flags", ["skip", "skip+empty-text+strict"])
def test_tabular_files(tmp_path: Path, suffix: str, flags: str) -> None:
    nodes = write_rows(tmp_path / f"nodes{suffix}", NODE_ROWS)
    edges = write_rows(tmp_path / f"edges{suffix}", EDGE_ROWS)
    extra = {"allow_empty_text": True, "strict": True} if "strict" in flags else {}
    memory, stream = both_ways(
        tmp_path,
        lambda out, options: import_tabular(nodes, edges, out, columns=COLUMNS, options=options),
        skip_invalid=True,
        **extra,
    )
    assert differing_files(memory, stream) == []
    assert "blofeld" in (stream / "skipped_rows.csv").read_text()


def test_tabular_several_text_columns_and_default_type(tmp_path: Path) -> None:
    nodes = write_rows(tmp_path / "nodes.csv", NODE_ROWS)
    edges = write_rows(tmp_path / "edges.csv", EDGE_ROWS)
    columns = TabularColumns(
        name_col="title", text_cols=("bio", "year"), default_type="thing", src_col="from",
        dst_col="to", default_relation="linked",
    )  # fmt: skip
    memory, stream = both_ways(
        tmp_path,
        lambda out, options: import_tabular(nodes, edges, out, columns=columns, options=options),
        skip_invalid=True,
    )
    assert differing_files(memory, stream) == []


def test_tabular_csv_with_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    nodes = write_rows(tmp_path / "nodes.csv", NODE_ROWS)
    edges = tmp_path / "edges.csv"
    edges.write_bytes(b"from,to,rel\nm,007,commands\nq,m,bad\xff\xfe\n007,q,knows\n")
    memory, stream = both_ways(
        tmp_path,
        lambda out, options: import_tabular(nodes, edges, out, columns=COLUMNS, options=options),
        skip_invalid=True,
    )
    assert differing_files(memory, stream) == []
    assert "not UTF-8" in (stream / "skipped_rows.csv").read_text()


def test_networkx(tmp_path: Path) -> None:
    nx = pytest.importorskip("networkx")
    from graphs.importers.networkx_io import snapshot_from_networkx

    graph = nx.MultiDiGraph()
    for i in range(30):
        graph.add_node(f"v{i}", type=f"t{i % 3}", name=f"V {i}", text=f"text {i}", rank=i)
    for i in range(60):
        graph.add_edge(f"v{i % 30}", f"v{(i * 7) % 30}", relation=f"r{i % 2}")
    memory, stream = both_ways(
        tmp_path, lambda out, options: snapshot_from_networkx(graph, out, options=options)
    )
    assert differing_files(memory, stream) == []


def test_synthetic_generator(tmp_path: Path) -> None:
    from graphs.synth.generate import generate

    memory, stream = both_ways(
        tmp_path,
        lambda out, options: generate("products", 3, out, 400, options=options).snapshot,
    )
    assert differing_files(memory, stream) == []


def test_stark(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from graphs.importers.stark import import_stark
    from tests.graphs.importers.test_stark_import import write_prime

    root = write_prime(tmp_path / "prime", edges=[[0, 1, 9], [0, 1, 9], [1, 1, 6], [3, 0, 16]])
    memory, stream = both_ways(
        tmp_path, lambda out, options: import_stark(root, "prime", out, options=options)
    )
    assert differing_files(memory, stream) == []


def test_documents(tmp_path: Path) -> None:
    from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
    from graphs.importers.documents.cache import ExtractionCache
    from tests.graphs.importers.test_documents_inputs import ScriptedExtractor

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Grace Hopper met Alan Turing. Alan Turing met Grace Hopper.")
    (docs / "b.txt").write_text("Ada Lovelace read Babbage. FAIL here.")

    def build(out: Path, options: BuildOptions) -> Path:
        with ExtractionCache(tmp_path / "c.sqlite") as cache:
            build_document_snapshot(
                [docs],
                out,
                extractor=ScriptedExtractor(),
                cache=cache,
                config=DocumentBuildConfig(options=options),
            )
        return out

    memory, stream = both_ways(tmp_path, build)
    differing = differing_files(memory, stream)
    # extraction.json records each build's own timings; every snapshot file is the same
    assert differing in ([], ["extraction.json"])
    assert json.loads((stream / "extraction.json").read_text())["entities"] > 0
    phases = json.loads((stream / "manifest.json").read_text())["build_seconds"]
    assert "stage" in phases  # the options reached the build: it took the bounded path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_malformed_row_deep_in_a_streamed_file_is_named(tmp_path: Path, suffix: str) -> None:
    from graphs.errors import GraphImportError

    rows = [{"id": f"n{i}", "type": "t", "name": f"N {i}", "text": f"t {i}"} for i in range(3000)]
    nodes = write_rows(tmp_path / f"nodes{suffix}", rows)
    lines = nodes.read_text().splitlines()
    bad_row = 2500  # 1-based record number, as read_table reports it
    lines[bad_row if suffix == ".csv" else bad_row - 1] = (
        "x,y" if suffix == ".csv" else '{"id": "broken"'
    )
    nodes.write_text("\n".join(lines) + "\n")
    edges = write_rows(tmp_path / f"edges{suffix}", [{"src": "n1", "dst": "n2", "relation": "r"}])
    with pytest.raises(GraphImportError) as raised:
        import_tabular(nodes, edges, tmp_path / "snap", options=BuildOptions(streaming=True))
    assert raised.value.row == bad_row, str(raised.value)
    assert not (tmp_path / "snap").exists()
