from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphs.build.options import BuildOptions
from graphs.errors import GraphImportError
from graphs.importers.table_files import read_table
from graphs.importers.tabular import TabularColumns, import_tabular
from graphs.snapshot import Snapshot

NAME_AS_TEXT = BuildOptions(allow_empty_text=True)

COLUMNS = TabularColumns(
    id_col="node_id",
    type_col="kind",
    name_col="title",
    text_cols=("abstract", "year"),
    src_col="from",
    dst_col="to",
    relation_col="label",
)

NODE_ROWS: list[dict[str, object]] = [
    {"node_id": "007", "kind": "paper", "title": "Bond", "abstract": "spy story", "year": 1962},
    {"node_id": "42", "kind": "paper", "title": "Answer", "abstract": "", "year": 1979},
    {"node_id": "x", "kind": "author", "title": "Ian", "abstract": "writer", "year": None},
]
EDGE_ROWS: list[dict[str, object]] = [
    {"from": "x", "to": "007", "label": "wrote", "weight": 1.5},
    {"from": "007", "to": "42", "label": "cites", "weight": 0.5},
]


def write_delimited(path: Path, rows: list[dict[str, object]], delimiter: str) -> Path:
    header = delimiter.join(rows[0])
    body = [delimiter.join("" if v is None else str(v) for v in row.values()) for row in rows]
    path.write_text("\n".join([header, *body]) + "\n", encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict[str, object]]) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


WRITERS = {
    "csv": lambda p, r: write_delimited(p.with_suffix(".csv"), r, ","),
    "tsv": lambda p, r: write_delimited(p.with_suffix(".tsv"), r, "\t"),
    "jsonl": lambda p, r: write_jsonl(p.with_suffix(".jsonl"), r),
    "parquet": lambda p, r: write_parquet(p.with_suffix(".parquet"), r),
}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_differently_named_columns_import_through_flags(tmp_path: Path, fmt: str) -> None:
    nodes = WRITERS[fmt](tmp_path / "people", NODE_ROWS)
    edges = WRITERS[fmt](tmp_path / "links", EDGE_ROWS)
    out = import_tabular(
        nodes, edges, tmp_path / "snap", columns=COLUMNS, candidate_types=["paper"]
    )
    snap = Snapshot.open(out)
    assert snap.manifest.name == "snap"
    assert snap.manifest.sources == [str(nodes), str(edges)]
    assert (snap.num_nodes, snap.num_edges) == (3, 2)
    bond = snap.internal_id("007")  # leading zeros survive: ids are read as text
    assert snap.name(bond) == "Bond"
    assert snap.text(bond) == "abstract: spy story\nyear: 1962"
    assert snap.text(snap.internal_id("42")) == "year: 1979"
    assert snap.text(snap.internal_id("x")) == "abstract: writer"
    assert snap.manifest.relations == {"cites": 1, "wrote": 1}
    assert snap.manifest.extra_columns == []
    wrote = snap.neighbors(snap.internal_id("x"))
    assert [snap.external_id(int(n)) for n in wrote.nodes] == ["007"]


def test_extra_node_columns_are_kept(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = [{**row, "name": "clash", "venue": "V"} for row in NODE_ROWS]
    nodes = write_jsonl(tmp_path / "n.jsonl", rows)
    edges = write_jsonl(tmp_path / "e.jsonl", EDGE_ROWS)
    columns = TabularColumns(
        id_col="node_id",
        type_col="kind",
        name_col="title",
        text_cols=("abstract",),
        src_col="from",
        dst_col="to",
        relation_col="label",
    )
    out = import_tabular(
        nodes,
        edges,
        tmp_path / "snap",
        columns=columns,
        options=NAME_AS_TEXT,
    )
    snap = Snapshot.open(out)
    assert snap.manifest.extra_columns == ["year", "attr_name", "venue"]
    saved = pq.read_table(out / "nodes.parquet")
    assert saved.column("venue").to_pylist() == ["V", "V", "V"]
    assert saved.column("attr_name").to_pylist() == ["clash"] * 3
    assert snap.text(snap.internal_id("x")) == "writer"  # a single text column is used as is
    assert snap.text(snap.internal_id("42")) == "Answer"  # empty abstract: the name is used


def test_default_type_and_relation_for_files_without_them(tmp_path: Path) -> None:
    nodes = write_delimited(
        tmp_path / "n.csv", [{"id": "1", "name": "one"}, {"id": "2", "name": "two"}], ","
    )
    edges = write_delimited(tmp_path / "e.csv", [{"src": "1", "dst": "2"}], ",")
    columns = TabularColumns(default_type="thing", default_relation="related_to")
    with pytest.raises(GraphImportError) as raised:
        import_tabular(nodes, edges, tmp_path / "s", columns=columns)
    message = str(raised.value)
    assert message.startswith(f"file {nodes}: no 'text' column and no --text-cols")
    assert "--allow-empty-text (Python: BuildOptions(allow_empty_text=True))" in message
    assert "the file's columns are: id, name" in message
    assert not (tmp_path / "s").exists()
    out = import_tabular(nodes, edges, tmp_path / "s", columns=columns, options=NAME_AS_TEXT)
    snap = Snapshot.open(out)
    assert snap.manifest.node_types == {"thing": 2}
    assert snap.manifest.relations == {"related_to": 1}
    assert snap.text(snap.internal_id("1")) == "one"  # allowed empty text: the name is used


def test_missing_column_names_file_columns_and_flag(tmp_path: Path) -> None:
    nodes = WRITERS["csv"](tmp_path / "people", NODE_ROWS)
    edges = WRITERS["csv"](tmp_path / "links", EDGE_ROWS)
    with pytest.raises(GraphImportError) as raised:
        import_tabular(nodes, edges, tmp_path / "snap")
    message = str(raised.value)
    assert message.startswith(f"file {nodes}: no column 'id' (set it with --id-col)")
    assert "no column 'type' (set it with --type-col (or --default-type))" in message
    assert "the file's columns are: node_id, kind, title, abstract, year" in message
    columns = TabularColumns(
        id_col="node_id", type_col="kind", name_col="title", text_cols=("abstract",), src_col="src"
    )
    with pytest.raises(GraphImportError, match="no column 'src' \\(set it with --src-col\\)"):
        import_tabular(nodes, edges, tmp_path / "snap", columns=columns)


def test_non_utf8_bytes_name_file_row_and_column(tmp_path: Path) -> None:
    nodes = tmp_path / "n.csv"
    nodes.write_bytes(b"id,type,name,text\n1,t,one,fine\n2,t,caf\xe9,latin-1 here\n3,t,x,y\n")
    with pytest.raises(GraphImportError) as raised:
        read_table(nodes, string_columns=["id"])
    assert (raised.value.file, raised.value.row) == (str(nodes), 2)
    assert "column 'name' holds bytes that are not UTF-8" in str(raised.value)
    jsonl = tmp_path / "n.jsonl"
    jsonl.write_bytes(b'{"id": "1"}\n{"id": "caf\xe9"}\n')
    with pytest.raises(GraphImportError) as raised:
        read_table(jsonl)
    assert (raised.value.file, raised.value.row) == (str(jsonl), 2)
    assert "not UTF-8" in str(raised.value)


def test_skip_invalid_skips_non_utf8_rows_and_keeps_row_numbers(tmp_path: Path) -> None:
    """--skip-invalid skips a row whose bytes are not UTF-8 as one more invalid row; the rows
    after it keep their own numbers in the report, and nothing of the bad row is imported."""
    nodes, edges = tmp_path / "n.csv", tmp_path / "e.csv"
    nodes.write_bytes(
        b"id,type,name,text\n1,t,one,fine\n2,t,caf\xe9,latin-1 here\n3,t,x,y\n,t,z,no id\n"
    )
    edges.write_bytes(b"src,dst,relation\n1,3,r\n1,2\xff,r\n1,9,r\n3,1,r\n")
    with pytest.raises(GraphImportError, match=r"not UTF-8.*--skip-invalid"):
        import_tabular(nodes, edges, tmp_path / "strict")
    assert not (tmp_path / "strict").exists()
    report = tmp_path / "skipped.jsonl"
    options = BuildOptions(skip_invalid=True, report_path=report)
    snapshot = Snapshot.open(import_tabular(nodes, edges, tmp_path / "snap", options=options))
    assert snapshot.num_nodes == 2 and snapshot.num_edges == 2
    assert [snapshot.external_id(n) for n in range(2)] == ["1", "3"]
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    problems = {(Path(r["file"]).name, r["row"], r["problem"].split(" (")[0]) for r in rows}
    assert problems == {
        ("n.csv", 2, "bytes that are not UTF-8"),
        ("n.csv", 4, "empty node id"),
        ("e.csv", 2, "bytes that are not UTF-8"),
        ("e.csv", 3, "dst is not the id of a valid node"),
    }
    assert snapshot.manifest.skipped_rows == 4


def test_malformed_csv_row_is_located(tmp_path: Path) -> None:
    nodes = tmp_path / "n.csv"
    nodes.write_text("id,type,name\n1,t,one\n2,t,two,extra\n", encoding="utf-8")
    with pytest.raises(GraphImportError) as raised:
        read_table(nodes)
    assert raised.value.row == 2
    assert "Expected 3 columns, got 4" in str(raised.value)


def test_unknown_extension_and_missing_file(tmp_path: Path) -> None:
    odd = tmp_path / "nodes.xlsx"
    odd.write_text("x")
    with pytest.raises(GraphImportError, match=r"unknown file format '\.xlsx'.*--delimiter"):
        read_table(odd)
    with pytest.raises(GraphImportError, match="file not found"):
        read_table(tmp_path / "absent.csv")
    odd.write_text("id|name\n1|one\n")
    assert read_table(odd, delimiter="|").column("name").to_pylist() == ["one"]


def test_duplicate_edges_and_self_loops_are_counted_not_errors(tmp_path: Path) -> None:
    nodes = write_delimited(
        tmp_path / "n.csv",
        [{"id": "1", "type": "t", "name": "one", "text": "x"},
         {"id": "2", "type": "t", "name": "two", "text": "y"}],
        ",",
    )  # fmt: skip
    rows = [("1", "2", "r"), ("1", "2", "r"), ("2", "2", "r"), ("2", "1", "r")]
    edges = write_delimited(
        tmp_path / "e.csv", [{"src": s, "dst": d, "relation": r} for s, d, r in rows], ","
    )
    snap = Snapshot.open(import_tabular(nodes, edges, tmp_path / "s"))
    assert snap.num_edges == 3
    assert (snap.manifest.duplicate_edges, snap.manifest.self_loops) == (1, 1)
    with pytest.raises(GraphImportError, match=r"row 2: duplicate edge") as raised:
        import_tabular(nodes, edges, tmp_path / "strict", options=BuildOptions(strict=True))
    assert "row 3: self-loop (src == dst): '2'" in str(raised.value)


def test_cli_maps_the_shared_import_flags_and_prints_the_summary(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    nodes = write_delimited(
        tmp_path / "n.csv",
        [{"id": "1", "type": "t", "name": "one", "text": ""},
         {"id": "2", "type": "t", "name": "two", "text": "y"}],
        ",",
    )  # fmt: skip
    rows = [("1", "2", "r"), ("1", "2", "r"), ("1", "1", "r"), ("1", "9", "r")]
    edges = write_delimited(
        tmp_path / "e.csv", [{"src": s, "dst": d, "relation": r} for s, d, r in rows], ","
    )
    base = ["graph", "import", "tabular", "--nodes", str(nodes), "--edges", str(edges)]
    report = tmp_path / "skipped.jsonl"
    flags = ["--allow-empty-text", "--skip-invalid", "--report", str(report)]
    result = CliRunner().invoke(build_app(), [*base, "--out", str(tmp_path / "s"), *flags])
    assert result.exit_code == 0, result.output
    assert "2 nodes, 2 edges" in result.stdout
    assert "collapsed 1 duplicate edges (same src, dst, relation); kept 1 self-loops" in (
        result.stdout
    )
    assert f"skipped 1 invalid rows; every one is listed in {report}" in result.stdout
    assert json.loads(report.read_text())["value"] == "9"
    info = CliRunner().invoke(build_app(), ["graph", "info", str(tmp_path / "s"), "--json"])
    summary = json.loads(info.stdout)
    assert (summary["duplicate_edges"], summary["self_loops"]) == (1, 1)
    out = str(tmp_path / "strict")
    strict = CliRunner().invoke(build_app(), [*base, "--out", out, *flags, "--strict"])
    assert strict.exit_code == 0, strict.output
    assert "skipped 3 invalid rows" in strict.stdout  # duplicate, self-loop, dangling
    assert "collapsed" not in strict.stdout
