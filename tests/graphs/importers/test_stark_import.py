"""STaRK SKB import from fixtures written in STaRK's processed on-disk format."""

from __future__ import annotations

import math
import pickle
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

torch = pytest.importorskip("torch")

from graphs.build.options import BuildOptions  # noqa: E402
from graphs.errors import GraphImportError  # noqa: E402
from graphs.importers.stark import import_stark, stark_tables  # noqa: E402
from graphs.importers.stark_files import find_processed_dir, load_stark_files  # noqa: E402
from graphs.importers.stark_text import StarkTextConfig  # noqa: E402
from graphs.manifest import read_manifest  # noqa: E402
from graphs.snapshot import Snapshot  # noqa: E402

PRIME_TYPES = [
    "disease", "gene/protein", "molecular_function", "drug", "pathway",
    "anatomy", "effect/phenotype", "biological_process", "cellular_component", "exposure",
]  # fmt: skip
PRIME_RELATIONS = [
    "ppi", "carrier", "enzyme", "target", "transporter", "contraindication",
    "indication", "off-label use", "synergistic interaction", "associated with",
    "parent-child", "phenotype absent", "phenotype present", "side effect",
    "interacts with", "linked to", "expression present", "expression absent",
]  # fmt: skip


def _save(directory: Path, **files: object) -> None:
    """Write files the way stark_qa.tools.io.save_files does: dicts as .pkl, tensors as .pt."""
    directory.mkdir(parents=True, exist_ok=True)
    for key, value in files.items():
        if isinstance(value, dict):
            with (directory / f"{key}.pkl").open("wb") as handle:
                pickle.dump(value, handle)
        else:
            torch.save(value, directory / f"{key}.pt")


def write_prime(root: Path, *, edges: list[list[int]] | None = None) -> Path:
    node_info = {
        0: {"id": 7157, "type": "gene/protein", "name": "TP53", "source": "NCBI",
            "details": {"name": "TP53", "alias": ["p53"], "entrez_id": 7157}},
        1: {"id": "MONDO:1", "type": "disease", "name": "lung cancer", "source": "MONDO",
            "details": {"mondo_definition": "A cancer of the lung.", "umls_description": math.nan}},
        2: {"id": "DB1", "type": "drug", "name": "aspirin", "source": "DrugBank"},
        3: {"id": "U1", "type": "anatomy", "name": "lung", "source": "UBERON"},
    }  # fmt: skip
    edge_list = edges if edges is not None else [[0, 1, 9], [1, 0, 9], [2, 1, 6], [3, 0, 16]]
    _save(
        root / "processed",
        node_info=node_info,
        edge_index=torch.LongTensor([[e[0] for e in edge_list], [e[1] for e in edge_list]]),
        edge_types=torch.LongTensor([e[2] for e in edge_list]),
        edge_type_dict=dict(enumerate(PRIME_RELATIONS)),
        node_types=torch.LongTensor([1, 0, 3, 5]),
        node_type_dict=dict(enumerate(PRIME_TYPES)),
    )
    return root


def write_mag(root: Path) -> Path:
    unknown = {"OriginalVenue": -1, "JournalDisplayName": -1, "ConferenceSeriesDisplayName": -1,
               "ConferenceInstancesDisplayName": -1}  # fmt: skip
    node_info = {
        0: {"id": 10, "mag_id": 111, "type": "author", "DisplayName": "Ada Lovelace",
            "PaperCount": 12, "CitationCount": -1},
        1: {"id": 3, "mag_id": 222, "type": "institution", "DisplayName": "Stanford",
            "PaperCount": 50, "CitationCount": 90},
        2: {"id": 4, "mag_id": 333, "type": "field_of_study", "DisplayName": "Graph theory",
            "PaperCount": -1, "CitationCount": -1},
        3: {"id": 5, "mag_id": 444, "type": "paper", "title": "Knowledge graphs",
            "abstract": "We study graphs.\r\n", "Date": "2020-01-01", **unknown,
            "JournalDisplayName": "JMLR"},
        4: {"id": 6, "mag_id": 555, "type": "paper", "title": "Retrieval agents",
            "abstract": "Agents search.", "Date": -1, **unknown, "OriginalVenue": "SIGIR"},
    }  # fmt: skip
    # author writes paper, author affiliated_with institution, paper cites paper, has_topic
    edge_list = [[0, 3, 3], [0, 1, 0], [3, 4, 1], [3, 2, 2]]
    _save(
        root / "processed",
        node_info=node_info,
        edge_index=torch.LongTensor([[e[0] for e in edge_list], [e[1] for e in edge_list]]),
        edge_types=torch.LongTensor([e[2] for e in edge_list]),
        node_types=torch.tensor([0, 1, 2, 3, 3]),
    )
    return root


AMAZON_SHOE = {
    "asin": "B001", "title": "Trail Running Shoe", "brand": "Acme",
    "description": ["Light shoe."], "feature": ["Breathable mesh", "ASIN: B001"],
    "review": [{"summary": "ok", "reviewText": "fine", "vote": math.nan},
               {"summary": "great", "reviewText": "love it", "vote": "12"}],
    "qa": [{"question": "Waterproof?", "answer": "No"}],
    "category": ["running"], "color": ["red"],
}  # fmt: skip
AMAZON_MUG = {"asin": "B002", "title": "Camping Mug", "description": [], "feature": [],
              "review": [], "qa": []}  # fmt: skip


def write_amazon(root: Path, *, edges: list[list[int]] | None = None) -> Path:
    node_info = {0: AMAZON_SHOE, 1: AMAZON_MUG, 2: {"brand_name": "Acme"},
                 3: {"category_name": "running"}, 4: {"color_name": "red"}}  # fmt: skip
    edge_list = edges or [[0, 1, 0], [1, 0, 1], [0, 2, 2], [0, 3, 3], [0, 4, 4]]
    _save(
        root / "processed" / "cache" / "brand-category-color",
        node_info=node_info,
        edge_index=torch.LongTensor([[e[0] for e in edge_list], [e[1] for e in edge_list]]),
        edge_types=torch.LongTensor([e[2] for e in edge_list]),
        edge_type_dict={0: "also_buy", 1: "also_view", 2: "has_brand", 3: "has_category",
                        4: "has_color"},
        node_types=torch.LongTensor([0, 0, 1, 2, 3]),
        node_type_dict={0: "product", 1: "brand", 2: "category", 3: "color"},
    )  # fmt: skip
    return root


def _nodes(snapshot_dir: Path) -> dict[str, dict]:
    table = pq.read_table(snapshot_dir / "nodes.parquet")
    return {row["id"]: row for row in table.to_pylist()}


def _edges(snapshot_dir: Path) -> list[tuple[str, str, str]]:
    rows = pq.read_table(snapshot_dir / "edges.parquet").to_pylist()
    return sorted((row["src"], row["dst"], row["relation"]) for row in rows)


def test_prime_import_text_types_relations_and_directions(tmp_path: Path) -> None:
    out = import_stark(write_prime(tmp_path / "prime"), "prime", tmp_path / "snap")
    nodes = _nodes(out)
    assert nodes["0"]["text"] == (
        "- name: TP53\n- type: gene/protein\n- source: NCBI\n- details:\n"
        "  - name (gene name): TP53\n  - alias (other gene names): ['p53']\n"
    )
    assert nodes["1"]["text"] == (
        "- name: lung cancer\n- type: disease\n- source: MONDO\n"
        "- details:\n  - mondo_definition: A cancer of the lung.\n"
    )
    assert nodes["2"]["text"] == "- name: aspirin\n- type: drug\n- source: DrugBank\n"
    assert (nodes["1"]["name"], nodes["1"]["type"], nodes["1"]["source_id"]) == (
        "lung cancer", "disease", "MONDO:1",
    )  # fmt: skip
    assert _edges(out) == [
        ("0", "1", "associated with"),
        ("1", "0", "associated with"),
        ("2", "1", "indication"),
        ("3", "0", "expression present"),
    ]
    manifest = read_manifest(out)
    assert manifest.name == "stark-prime"
    assert manifest.candidate_types == ["disease", "gene/protein", "drug", "anatomy"]
    assert manifest.node_types == {"disease": 1, "gene/protein": 1, "drug": 1, "anatomy": 1}
    assert manifest.relations["associated with"] == 2
    assert {"source", "source_id"} <= set(manifest.extra_columns)
    assert any(source.endswith("node_info.pkl") for source in manifest.sources)


def test_prime_snapshot_serves_both_directions_without_symmetrising(tmp_path: Path) -> None:
    out = import_stark(write_prime(tmp_path / "prime"), "prime", tmp_path / "snap")
    snapshot = Snapshot.open(out)
    hood = snapshot.neighbors(snapshot.internal_id("1"))
    pairs = {
        (snapshot.external_id(int(n)), snapshot.relation_names[int(r)], int(d))
        for n, r, d in zip(hood.nodes, hood.relations, hood.directions, strict=True)
    }
    assert pairs == {("0", "associated with", 1), ("0", "associated with", -1),
                     ("2", "indication", -1)}  # fmt: skip
    assert snapshot.num_edges == 4


def test_mag_import_uses_hard_coded_type_dicts_and_paper_candidates(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = write_mag(tmp_path / "mag")
    _save(root / "processed", edge_type_dict={0: "x", 1: "y", 2: "z", 3: "w"})
    out = import_stark(root, "mag", tmp_path / "snap")
    assert "edge_type_dict.pkl ignored: MagSKB hard-codes" in caplog.text
    nodes = _nodes(out)
    assert nodes["0"]["text"] == "- author name: Ada Lovelace\n- author paper count: 12\n"
    assert nodes["1"]["text"] == (
        " - institution: Stanford\n- institution paper count: 50\n"
        "- institution citation count: 90\n"
    )
    assert nodes["2"]["text"] == " - field of study: Graph theory\n"
    assert nodes["3"]["text"] == (
        " - paper title: Knowledge graphs\n - abstract: We study graphs.\n"
        " - publication date: 2020-01-01\n - journal: JMLR\n"
    )
    assert nodes["4"]["text"] == (
        " - paper title: Retrieval agents\n - abstract: Agents search.\n - venue: SIGIR\n"
    )
    assert [nodes[i]["name"] for i in "01234"] == [
        "Ada Lovelace", "Stanford", "Graph theory", "Knowledge graphs", "Retrieval agents",
    ]  # fmt: skip
    assert nodes["3"]["mag_id"] == "444"
    assert _edges(out) == [
        ("0", "1", "author___affiliated_with___institution"),
        ("0", "3", "author___writes___paper"),
        ("3", "2", "paper___has_topic___field_of_study"),
        ("3", "4", "paper___cites___paper"),
    ]
    manifest = read_manifest(out)
    assert manifest.candidate_types == ["paper"]
    assert manifest.node_types["paper"] == 2
    signature = next(s for s in manifest.signatures if s.relation == "author___writes___paper")
    assert (signature.source_type, signature.target_type) == ("author", "paper")


def test_amazon_import_reads_the_meta_link_cache(tmp_path: Path) -> None:
    root = write_amazon(tmp_path / "amazon")
    assert find_processed_dir(root, "amazon").name == "brand-category-color"
    out = import_stark(root, "amazon", tmp_path / "snap")
    nodes = _nodes(out)
    assert nodes["0"]["text"] == (
        "- product: Trail Running Shoe\n- brand: Acme\n- description: Light shoe.\n"
        "- features: \n#1: Breathable mesh\n"
        '- reviews: \n#2:\nsummary: great\ntext: "love it"\n#1:\nsummary: ok\ntext: "fine"\n'
        '- Q&A: \n#1:\nquestion: "Waterproof?"\nanswer: "No"\n'
    )
    assert nodes["1"]["text"] == "- product: Camping Mug\n"
    assert [nodes[i]["text"] for i in "234"] == [
        "brand name: Acme", "category name: running", "color name: red",
    ]  # fmt: skip
    assert (nodes["0"]["asin"], nodes["2"]["asin"]) == ("B001", None)
    assert [nodes[i]["name"] for i in "01234"] == [
        "Trail Running Shoe", "Camping Mug", "Acme", "running", "red",
    ]  # fmt: skip
    assert ("0", "2", "has_brand") in _edges(out)
    manifest = read_manifest(out)
    assert manifest.candidate_types == ["product"]
    assert manifest.node_types == {"product": 2, "brand": 1, "category": 1, "color": 1}


def test_amazon_product_only_layout_makes_every_node_a_product(tmp_path: Path) -> None:
    _save(
        tmp_path / "amazon" / "processed",
        node_info={0: AMAZON_SHOE, 1: AMAZON_MUG},
        edge_index=torch.LongTensor([[0], [1]]),
        edge_types=torch.LongTensor([0]),
        edge_type_dict={0: "also_buy", 1: "also_view"},
    )
    nodes, edges = stark_tables(
        load_stark_files(tmp_path / "amazon", "amazon"), "amazon", StarkTextConfig()
    )
    assert nodes.column("type").to_pylist() == ["product", "product"]
    assert edges.to_pylist() == [{"src": "0", "dst": "1", "relation": "also_buy"}]


def test_root_may_be_the_data_root_or_the_processed_dir(tmp_path: Path) -> None:
    write_prime(tmp_path / "data" / "prime")
    expected = tmp_path / "data" / "prime" / "processed"
    assert find_processed_dir(tmp_path / "data", "prime") == expected
    assert find_processed_dir(expected, "prime") == expected


def test_compact_option_applies_compact_text(tmp_path: Path) -> None:
    files = load_stark_files(write_prime(tmp_path / "prime"), "prime")
    nodes, _ = stark_tables(files, "prime", StarkTextConfig(compact=True))
    assert nodes.column("text")[2].as_py() == "name: aspirin. type: drug. source: DrugBank. "


def test_missing_torch_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_prime(tmp_path / "prime")
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(GraphImportError, match=r"pip install 'ark-kg\[distill\]'"):
        load_stark_files(root, "prime")


# The mess real STaRK data has: PrimeKG repeats rows, a product is in its own also_buy and
# also_buy lists repeat entries. STaRK's own graph builder keeps all of it.
MESSY_PRIME = [[0, 1, 9], [1, 0, 9], [0, 1, 9], [2, 1, 6], [2, 1, 6], [2, 2, 14], [3, 0, 16]]
MESSY_AMAZON = [[0, 1, 0], [0, 1, 0], [0, 0, 0], [1, 0, 1], [0, 2, 2], [0, 3, 3], [0, 4, 4]]


def test_prime_with_duplicate_edges_and_self_loops_imports_without_flags(tmp_path: Path) -> None:
    root = write_prime(tmp_path / "prime", edges=MESSY_PRIME)
    out = import_stark(root, "prime", tmp_path / "snap")
    assert _edges(out) == [
        ("0", "1", "associated with"),
        ("1", "0", "associated with"),
        ("2", "1", "indication"),
        ("2", "2", "interacts with"),  # the self-loop is data: kept
        ("3", "0", "expression present"),
    ]
    manifest = read_manifest(out)
    assert (manifest.duplicate_edges, manifest.self_loops, manifest.skipped_rows) == (2, 1, 0)


def test_amazon_self_loop_and_repeated_also_buy_import_without_flags(tmp_path: Path) -> None:
    out = import_stark(
        write_amazon(tmp_path / "amazon", edges=MESSY_AMAZON), "amazon", tmp_path / "s"
    )
    assert [edge for edge in _edges(out) if edge[2] == "also_buy"] == [
        ("0", "0", "also_buy"),
        ("0", "1", "also_buy"),
    ]
    manifest = read_manifest(out)
    assert (manifest.duplicate_edges, manifest.self_loops, manifest.skipped_rows) == (1, 1, 0)
    snapshot = Snapshot.open(out)
    assert snapshot.num_edges == 6


def test_strict_makes_duplicates_and_self_loops_errors(tmp_path: Path) -> None:
    root = write_prime(tmp_path / "prime", edges=MESSY_PRIME)
    with pytest.raises(GraphImportError) as caught:
        import_stark(root, "prime", tmp_path / "snap", options=BuildOptions(strict=True))
    message = str(caught.value)
    assert "edge_index.pt (row = edge column + 1), row 3: duplicate edge" in message
    assert "row 6: self-loop (src == dst): '2'" in message
    assert "3 invalid rows in all" in message
    assert not (tmp_path / "snap").exists()
    report = tmp_path / "skipped.csv"
    options = BuildOptions(strict=True, skip_invalid=True, report_path=report)
    out = import_stark(root, "prime", tmp_path / "snap", options=options)
    assert ("2", "2", "interacts with") not in _edges(out)
    assert read_manifest(out).skipped_rows == 3
    assert "self-loop" in report.read_text(encoding="utf-8")


def test_dangling_edges_stay_errors_without_flags(tmp_path: Path) -> None:
    root = write_prime(tmp_path / "prime", edges=[[0, 1, 9], [0, 7, 9]])
    with pytest.raises(GraphImportError, match="dst is not the id of a valid node: '7'"):
        import_stark(root, "prime", tmp_path / "snap")


def test_cli_prints_what_was_collapsed_and_strict_fails(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    root = write_prime(tmp_path / "prime", edges=MESSY_PRIME)
    args = ["graph", "import", "stark", "--root", str(root), "--dataset", "prime"]
    result = CliRunner().invoke(build_app(), [*args, "--out", str(tmp_path / "snap")])
    assert result.exit_code == 0, result.output
    assert "4 nodes, 5 edges" in result.output
    assert "collapsed 2 duplicate edges (same src, dst, relation); kept 1 self-loops" in (
        result.output
    )
    strict = CliRunner().invoke(build_app(), [*args, "--out", str(tmp_path / "s2"), "--strict"])
    assert strict.exit_code == 2
    assert "duplicate edge" in strict.output and "Traceback" not in strict.output


def test_cli_memory_limit_builds_the_same_snapshot_and_rejects_a_bad_size(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app
    from graphs.snapshot import Snapshot

    root = write_prime(tmp_path / "prime", edges=MESSY_PRIME)
    args = ["graph", "import", "stark", "--root", str(root), "--dataset", "prime"]
    plain = CliRunner().invoke(build_app(), [*args, "--out", str(tmp_path / "plain")])
    bounded = CliRunner().invoke(
        build_app(), [*args, "--out", str(tmp_path / "bounded"), "--memory-limit", "64MB"]
    )
    assert plain.exit_code == 0 and bounded.exit_code == 0, bounded.output
    assert "memory: peak" in bounded.output and "limit 64 MB (--memory-limit)" in bounded.output
    one, two = Snapshot.open(tmp_path / "plain"), Snapshot.open(tmp_path / "bounded")
    assert one.manifest.content_hash == two.manifest.content_hash
    assert one.manifest.num_edges == two.manifest.num_edges == 5
    bad = CliRunner().invoke(
        build_app(), [*args, "--out", str(tmp_path / "x"), "--memory-limit", "lots"]
    )
    assert bad.exit_code == 2 and "--memory-limit" in bad.output and "Traceback" not in bad.output


def _break(root: Path, name: str, value: object) -> None:
    _save(root / "processed", **{name: value})


@pytest.mark.parametrize(
    ("name", "value", "file", "message"),
    [
        (
            "edge_types",
            [9, 99, 6, 16],
            "edge_types.pt",
            r"relation code with no name.*code 99.*0=ppi",
        ),
        ("edge_types", [9, 9], "edge_types.pt", "2 edge types for 4 edges"),
        ("edge_index", [0, 1, 2], "edge_index.pt", r"shape \[3\], expected \[2, num_edges\]"),
        ("edge_index", {"not": "a tensor"}, "edge_index.pt", "expected a tensor, found dict"),
        (
            "node_types",
            [1, 0, 3],
            "node_info.pkl",
            "node_info has 4 records but node_types.pt has 3",
        ),
        ("node_types", [1, 0, 3, 42], "node_types.pt", r"node type code with no name.*code 42"),
        ("node_type_dict", {0: ""}, "node_type_dict.pkl", "bad entry 0: ''"),
        ("node_type_dict", [1, 2], "node_type_dict.pkl", "expected a non-empty dict"),
    ],
)
def test_malformed_files_name_the_file_and_problem(
    tmp_path: Path, name: str, value: object, file: str, message: str
) -> None:
    processed = write_prime(tmp_path / "prime") / "processed"
    if name.endswith("_dict"):
        with (processed / f"{name}.pkl").open("wb") as handle:
            pickle.dump(value, handle)
    else:
        torch.save(
            torch.LongTensor(value) if isinstance(value, list) else value, processed / f"{name}.pt"
        )
    with pytest.raises(GraphImportError, match=message) as caught:
        import_stark(processed.parent, "prime", tmp_path / "snap")
    assert caught.value.file is not None
    assert Path(caught.value.file).name == file
    assert not (tmp_path / "snap").exists()


def test_missing_and_corrupt_files(tmp_path: Path) -> None:
    root = write_prime(tmp_path / "prime")
    (root / "processed" / "edge_types.pt").unlink()
    with pytest.raises(GraphImportError, match=r"edge_types\.pt: file is missing"):
        load_stark_files(root, "prime")
    (root / "processed" / "node_info.pkl").write_bytes(b"not a pickle")
    with pytest.raises(GraphImportError, match=r"node_info\.pkl: not a readable pickle"):
        load_stark_files(root, "prime")


def test_unknown_dataset_and_empty_root(tmp_path: Path) -> None:
    with pytest.raises(GraphImportError, match="unknown STaRK dataset 'wiki'"):
        load_stark_files(tmp_path, "wiki")
    with pytest.raises(GraphImportError, match=r"no node_info\.pkl for STaRK mag; looked in"):
        load_stark_files(tmp_path, "mag")
    with pytest.raises(GraphImportError, match="is not a directory"):
        load_stark_files(tmp_path / "nope", "mag")


def test_node_info_with_a_gap_names_the_missing_index(tmp_path: Path) -> None:
    root = write_prime(tmp_path / "prime")
    with (root / "processed" / "node_info.pkl").open("rb") as handle:
        node_info = pickle.load(handle)
    node_info[7] = node_info.pop(2)
    _break(root, "node_info", node_info)
    with pytest.raises(GraphImportError, match="no record for node index 2") as caught:
        load_stark_files(root, "prime")
    assert caught.value.row == 3


def test_cli_imports_and_reports_counts(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    root = write_mag(tmp_path / "mag")
    args = ["graph", "import", "stark", "--root", str(root), "--dataset", "mag"]
    result = CliRunner().invoke(build_app(), [*args, "--out", str(tmp_path / "snap")])
    assert result.exit_code == 0, result.output
    assert "5 nodes, 4 edges" in result.output
    assert "candidate types: paper" in result.output
    again = CliRunner().invoke(build_app(), [*args, "--out", str(tmp_path / "snap")])
    assert again.exit_code == 2
    assert "overwrite" in again.output
    assert "Traceback" not in again.output


def test_cli_bad_root_exits_2_with_message(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.app import build_app

    args = ["graph", "import", "stark", "--root", str(tmp_path), "--dataset", "prime"]
    result = CliRunner().invoke(build_app(), [*args, "--out", str(tmp_path / "snap")])
    assert result.exit_code == 2
    assert "no node_info.pkl for STaRK prime" in result.output
