"""Question sets: JSONL, STaRK CSV + split index files, directory layouts, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from evals.qa.records import MAX_QUESTION_CHARS, QuestionError, check_question
from evals.qa.sets import (
    QAError,
    QAFormatError,
    QAItem,
    QASplitError,
    has_split_index,
    load_jsonl,
    load_qa,
    load_stark_csv,
    read_split_index,
    validate_against,
)

STARK_CSV = (
    "id,query,answer_ids\n"
    '0,What drug treats lung cancer?,"[2, 7]"\n'
    '1,"Which gene, on chromosome 17,\nsuppresses tumors?",[0]\n'
    "2,Find anatomy expressing TP53,[3]\n"
    "3,Any pathway?,\"['P1']\"\n"
)


def write_stark_qa(root: Path) -> Path:
    """qa/<dataset>/stark_qa/stark_qa.csv and qa/<dataset>/split/*.index, as STaRK ships them."""
    (root / "stark_qa").mkdir(parents=True)
    (root / "split").mkdir()
    (root / "stark_qa" / "stark_qa.csv").write_text(STARK_CSV, encoding="utf-8")
    (root / "split" / "train.index").write_text("0\n3\n", encoding="utf-8")
    (root / "split" / "val.index").write_text("2\n", encoding="utf-8")
    (root / "split" / "test.index").write_text("2\n1\n\n", encoding="utf-8")
    human = "id,query,answer_ids\n9,Something a person asked,[3]\n"
    (root / "stark_qa" / "stark_qa_human_generated_eval.csv").write_text(human, encoding="utf-8")
    return root


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_stark_csv_parses_list_literals_and_multiline_queries(tmp_path: Path) -> None:
    root = write_stark_qa(tmp_path / "prime")
    items = load_stark_csv(root / "stark_qa" / "stark_qa.csv")
    assert [item.id for item in items] == ["0", "1", "2", "3"]
    assert items[0].answer_ids == ["2", "7"]
    assert items[1].query == "Which gene, on chromosome 17,\nsuppresses tumors?"
    assert items[3].answer_ids == ["P1"]
    assert items[0].family is None


def test_split_follows_the_index_file_order(tmp_path: Path) -> None:
    root = write_stark_qa(tmp_path / "prime")
    csv_path = root / "stark_qa" / "stark_qa.csv"
    assert [item.id for item in load_qa(root, "test")] == ["2", "1"]
    assert [item.id for item in load_qa(csv_path, "train")] == ["0", "3"]
    assert [item.id for item in load_qa(root / "stark_qa", "val")] == ["2"]
    assert len(load_qa(root)) == 4
    assert [item.id for item in load_qa(root, "human_generated_eval")] == ["9"]
    assert read_split_index(root / "split" / "test.index") == [(1, "2"), (2, "1")]


def test_unknown_split_lists_available_ones(tmp_path: Path) -> None:
    root = write_stark_qa(tmp_path / "prime")
    with pytest.raises(QASplitError, match=r"no split 'dev'.*available splits: test, train, val"):
        load_qa(root, "dev")


def test_jsonl_with_families_and_int_ids(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"id": 5, "query": " Which brand makes mugs? ", "answer_ids": [1, "b2"], "family": "x"},
            {"id": "q6", "query": "Trail shoes", "answer_ids": ["3"]},
        ],
    )
    assert load_qa(path) == [
        QAItem(id="5", query="Which brand makes mugs?", answer_ids=["1", "b2"], family="x"),
        QAItem(id="q6", query="Trail shoes", answer_ids=["3"]),
    ]
    assert load_qa(tmp_path / "q.jsonl", "q") == load_jsonl(path)


def test_directory_of_split_jsonl_and_snapshot_qa_folder(tmp_path: Path) -> None:
    snapshot = tmp_path / "snap"
    for split in ("train", "val", "test"):
        write_jsonl(snapshot / "qa" / f"{split}.jsonl",
                    [{"id": f"{split}-1", "query": "q", "answer_ids": ["1"]}])  # fmt: skip
    assert [item.id for item in load_qa(snapshot, "val")] == ["val-1"]
    assert [item.id for item in load_qa(snapshot / "qa", "test")] == ["test-1"]
    with pytest.raises(QASplitError, match="no split 'dev'; available splits: test, train, val"):
        load_qa(snapshot, "dev")
    with pytest.raises(QASplitError, match="no split given; available splits: test, train, val"):
        load_qa(snapshot)
    with pytest.raises(QASplitError, match="asked of a single JSONL file"):
        load_qa(snapshot / "qa" / "val.jsonl", "test")


def test_repeated_gold_id_is_counted_once_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "query": "q", "answer_ids": [4, "4"]}])
    assert load_jsonl(path)[0].answer_ids == ["4"]
    assert "gold id '4' repeats" in caplog.text


CSV_CASES = [
    ("id,query\n0,q\n", r"row 1: missing column\(s\) answer_ids"),
    ("id,query,answer_ids\n0,q,[1\n", r"row 2: answer_ids '\[1' is not a list literal"),
    ("id,query,answer_ids\n0,q,__import__('os')\n", "row 2: answer_ids .* is not a list literal"),
    ("id,query,answer_ids\n0,q,5\n", "row 2: answer_ids must be a list of node ids, got int"),
    ("id,query,answer_ids\n0,q,[]\n", "row 2: answer_ids is empty"),
    ("id,query,answer_ids\n0,q,[1.5]\n", r"row 2: answer id 1\.5 is not an int"),
    ("id,query,answer_ids\n0,  ,[1]\n", "row 2: query is empty"),
    ("id,query,answer_ids\n,q,[1]\n", "row 2: id '' is not an int or a non-empty string"),
    ("id,query,answer_ids\n0,a,[1]\n0,b,[2]\n", "row 3: duplicate question id '0'"),
    ("id,query,answer_ids\n", "holds a header but no questions"),
    ('id,query,answer_ids\n0,"q\n', "malformed CSV"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "message"), CSV_CASES)
def test_bad_stark_csv_names_file_row_and_problem(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "stark_qa.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(QAFormatError, match=message) as caught:
        load_qa(path)
    assert caught.value.file == str(path)
    assert str(caught.value).startswith(f"file {path}")


JSONL_CASES = [
    ('{"id": 1, "query": "q"\n', "row 1: not valid JSON"),
    ("[1, 2]\n", "row 1: each line must be a JSON object"),
    ('\n{"id": 1, "query": "q"}\n', r"row 2: missing field\(s\) answer_ids"),
    ('{"id": 1, "query": "q", "answer_ids": "1"}\n', "answer_ids must be a list of node ids"),
    ('{"id": true, "query": "q", "answer_ids": [1]}\n', "id True is not an int"),
    ('{"id": 1, "query": "q", "answer_ids": [1], "family": 3}\n', "family must be a string"),
    ('{"id": 1, "query": 7, "answer_ids": [1]}\n', "query is empty"),
    ("\n\n", "the file holds no questions"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "message"), JSONL_CASES)
def test_bad_jsonl_names_file_row_and_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(QAFormatError, match=message):
        load_qa(path)


def test_bad_split_index_files(tmp_path: Path) -> None:
    root = write_stark_qa(tmp_path / "prime")
    (root / "split" / "test.index").write_text("2\n99\n", encoding="utf-8")
    with pytest.raises(QASplitError, match=r"test\.index, row 2: query id '99' is not in"):
        load_qa(root, "test")
    (root / "split" / "test.index").write_text("2\n2\n", encoding="utf-8")
    with pytest.raises(QASplitError, match="query id '2' repeats line 1"):
        load_qa(root, "test")
    (root / "split" / "test.index").write_text("\n", encoding="utf-8")
    with pytest.raises(QASplitError, match="holds no query ids"):
        load_qa(root, "test")


def test_unreadable_inputs(tmp_path: Path) -> None:
    (tmp_path / "latin.csv").write_bytes(b"id,query,answer_ids\n0,caf\xe9,[1]\n")
    with pytest.raises(QAFormatError, match="not UTF-8 text"):
        load_qa(tmp_path / "latin.csv")
    with pytest.raises(QAFormatError, match="question file does not exist"):
        load_qa(tmp_path / "missing.jsonl")
    (tmp_path / "q.txt").write_text("x", encoding="utf-8")
    with pytest.raises(QAFormatError, match=r"unknown question file type '\.txt'"):
        load_qa(tmp_path / "q.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(QAFormatError, match="no questions found"):
        load_qa(tmp_path / "empty")
    assert issubclass(QAFormatError, QAError)
    assert issubclass(QAError, ValueError)


def test_validate_against_reports_unknown_and_non_candidate_gold(tmp_path: Path) -> None:
    from graphs.build.memory import build_snapshot
    from graphs.snapshot import Snapshot

    nodes = pa.table(
        {
            "id": ["p1", "p2", "b1"],
            "type": ["product", "product", "brand"],
            "name": ["Mug", "Shoe", "Acme"],
            "text": ["a mug", "a shoe", "a brand"],
        }
    )
    edges = pa.table({"src": ["p1"], "dst": ["b1"], "relation": ["has_brand"]})
    out = build_snapshot(nodes, edges, tmp_path / "snap", name="t", candidate_types=["product"])
    items = [
        QAItem(id="q1", query="mug", answer_ids=["p1", "zz"]),
        QAItem(id="q2", query="acme", answer_ids=["b1", "p2"]),
    ]
    report = validate_against(Snapshot.open(out), items)
    assert (report.num_questions, report.num_gold) == (2, 4)
    assert report.unknown == (("q1", "zz"),)
    assert report.non_candidate == (("q2", "b1"),)
    assert not report.ok
    assert "1 gold ids unknown to the snapshot (question:gold q1:zz)" in report.summary()
    clean = validate_against(Snapshot.open(out), [items[1]])
    assert clean.ok


def test_split_all_takes_every_question_of_a_file_or_directory(tmp_path: Path) -> None:
    root = write_stark_qa(tmp_path / "prime")
    every = ["0", "1", "2", "3"]
    assert [item.id for item in load_qa(root, "all")] == every
    assert [item.id for item in load_qa(root / "stark_qa" / "stark_qa.csv", "all")] == every
    snapshot = tmp_path / "snap"
    for split in ("train", "val", "test"):
        write_jsonl(snapshot / "qa" / f"{split}.jsonl",
                    [{"id": f"{split}-1", "query": "q", "answer_ids": ["1"]}])  # fmt: skip
    assert [item.id for item in load_qa(snapshot, "all")] == ["test-1", "train-1", "val-1"]
    assert [item.id for item in load_qa(snapshot / "qa" / "val.jsonl", "all")] == ["val-1"]


def test_split_all_refuses_an_id_found_in_two_split_files(tmp_path: Path) -> None:
    for split in ("train", "test"):
        write_jsonl(tmp_path / f"{split}.jsonl", [{"id": "same", "query": "q", "answer_ids": [1]}])
    with pytest.raises(QAFormatError, match=r"'same' is in both test\.jsonl and train\.jsonl"):
        load_qa(tmp_path, "all")


def test_missing_split_names_each_place_once_and_suggests_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("q.csv").write_text(STARK_CSV, encoding="utf-8")
    with pytest.raises(QASplitError) as info:
        load_qa("q.csv", "test")
    message = str(info.value)
    assert "looked for test.index in split; available splits: none" in message
    assert "--split all" in message
    root = write_stark_qa(tmp_path / "prime")
    with pytest.raises(QASplitError) as info:
        load_qa(root / "stark_qa" / "stark_qa.csv", "dev")
    places = f"{root / 'stark_qa' / 'split'} and {root / 'split'}; available splits: test, "
    assert places in str(info.value)


def test_has_split_index(tmp_path: Path) -> None:
    root = write_stark_qa(tmp_path / "prime")
    assert has_split_index(root) and has_split_index(root / "stark_qa" / "stark_qa.csv")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "q.csv").write_text(STARK_CSV, encoding="utf-8")
    (bare / "split").mkdir()  # an empty split folder holds no split
    assert not has_split_index(bare / "q.csv")
    assert not has_split_index(write_jsonl(tmp_path / "q.jsonl", []))
    assert not has_split_index(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("x" * (MAX_QUESTION_CHARS + 1), f"over the limit of {MAX_QUESTION_CHARS:,}"),
        ("caf\udce9 menu", "not UTF-8 text"),  # a lone surrogate written as a JSON escape
    ],
)
def test_a_question_too_long_or_not_utf8_names_its_row(
    tmp_path: Path, query: str, message: str
) -> None:
    path = tmp_path / "questions.jsonl"
    rows = [
        {"id": 1, "query": "fine", "answer_ids": [1]},
        {"id": 2, "query": query, "answer_ids": [2]},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    with pytest.raises(QAFormatError, match=message) as raised:
        load_qa(path)
    assert raised.value.row == 2 and str(raised.value).startswith(f"file {path}, row 2: query")


def test_a_question_at_the_limit_loads() -> None:
    assert check_question(" " + "x" * MAX_QUESTION_CHARS + "\n") == "x" * MAX_QUESTION_CHARS
    with pytest.raises(QuestionError, match="empty"):
        check_question(" \t")
