import logging
import random
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphs.bm25 import ingest as ingest_module
from graphs.bm25.build import build_index, build_index_streaming
from graphs.bm25.index import BM25Index
from graphs.bm25.params import BM25Params
from graphs.errors import GraphError

WORDS = [f"w{i}" for i in range(60)] + ["graph", "ΣΟΦΟΣ", "über", "İstanbul", "東京", "x" * 45]
WORDS += ["the", "of", "and", "connected", "connections", "running", "😀", "naïve", "Straße"]


def _corpus(num_nodes: int, seed: int, max_words: int = 40) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    names = [f"{rng.choice(WORDS)} {i}" if rng.random() < 0.8 else "" for i in range(num_nodes)]
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(0, max_words))) for _ in range(num_nodes)]
    return names, texts


def _batches(
    names: list[str], texts: list[str], size: int
) -> Iterator[tuple[list[str], list[str]]]:
    for start in range(0, len(names), size):
        yield names[start : start + size], texts[start : start + size]


def _assert_same_files(expected: Path, actual: Path) -> None:
    names = sorted(path.name for path in expected.iterdir())
    assert sorted(path.name for path in actual.iterdir()) == names
    for name in names:
        assert (actual / name).read_bytes() == (expected / name).read_bytes(), name


def _both_ways(
    tmp_path: Path,
    names: list[str],
    texts: list[str],
    *,
    batch: int,
    limit: int,
    analyzer: str = "english",
    params: BM25Params | None = None,
) -> tuple[Path, Path]:
    codes = (np.arange(len(names)) % 5).astype(np.int16)
    expected, actual = tmp_path / "memory", tmp_path / "streamed"
    spill = tmp_path / "spill"
    spill.mkdir()
    meta = {"content_hash": "abc"}
    build_index(expected, names, texts, codes, meta=meta, analyzer=analyzer, params=params)
    build_index_streaming(
        actual,
        _batches(names, texts, batch),
        codes,
        meta=meta,
        analyzer=analyzer,
        params=params,
        memory_limit_bytes=limit,
        spill_dir=spill,
        workers=1,
    )
    assert list(spill.iterdir()) == []  # segments are removed
    return expected, actual


CORPORA = {
    "empty": ([], []),
    "one doc": (["alpha"], ["beta beta gamma"]),
    "only empty docs": ([""] * 5, ["", "the of", "", "!!", "and"]),
    "unicode": (["ΣΟΦΟΣ", "İİ", "東京 tower"], ["σοφος über naïve", "Straße 😀 STRASSE", "東京"]),
    "huge tf": (["big", "small"], ["w1 " * 70_000 + "w2", "w1 w2"]),
    "random": _corpus(700, seed=1),
    "long texts": (  # more characters than a chunk holds: chunks are cut by size
        ["long", "", "longer"],
        [" ".join(WORDS) * 5_000, "w1 w2", " ".join(f"t{i % 70_000}" for i in range(400_000))],
    ),
}


@pytest.mark.parametrize("corpus", list(CORPORA), ids=list(CORPORA))
@pytest.mark.parametrize(
    ("batch", "limit"),
    [(1_000_000, 1 << 30), (7, 1 << 30), (3, 4_000), (64, 20_000)],
    ids=["one segment", "small batches", "tiny limit", "small limit"],
)
def test_streamed_index_is_byte_identical(
    tmp_path: Path, corpus: str, batch: int, limit: int
) -> None:
    names, texts = CORPORA[corpus]
    expected, actual = _both_ways(tmp_path, names, texts, batch=batch, limit=limit)
    _assert_same_files(expected, actual)


@pytest.mark.parametrize("analyzer", ["plain", "english-stem"])
def test_analyzers_and_params_are_kept(tmp_path: Path, analyzer: str) -> None:
    names, texts = _corpus(300, seed=2)
    params = BM25Params(k1=1.5, b=0.75, idf="lucene")
    expected, actual = _both_ways(
        tmp_path, names, texts, batch=50, limit=30_000, analyzer=analyzer, params=params
    )
    _assert_same_files(expected, actual)
    found = BM25Index.open(actual).search("w1 graph", k=5)
    wanted = BM25Index.open(expected).search("w1 graph", k=5)
    assert found[0].size == 5
    np.testing.assert_array_equal(found[0], wanted[0])
    np.testing.assert_array_equal(found[1], wanted[1])


def test_a_small_limit_spills_many_segments(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    names, texts = _corpus(2_000, seed=3)
    with caplog.at_level(logging.INFO, logger="graphs.bm25.build"):
        expected, actual = _both_ways(tmp_path, names, texts, batch=100, limit=200_000)
    _assert_same_files(expected, actual)
    built = next(r for r in caplog.records if "segments" in r.getMessage())
    assert int(built.getMessage().rsplit("from ", 1)[1].split()[0]) > 3


def test_worker_processes_give_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pools: list[int] = []

    class CountedPool(ProcessPoolExecutor):
        def __init__(self, workers: int, **kwargs: Any) -> None:
            pools.append(workers)
            super().__init__(workers, **kwargs)

    monkeypatch.setattr(ingest_module, "ProcessPoolExecutor", CountedPool)
    names, texts = _corpus(60_000, seed=4, max_words=6)  # above the pool's threshold
    codes = np.zeros(len(names), np.int16)
    build_index(tmp_path / "memory", names, texts, codes)
    seen: list[tuple[str, int, int]] = []
    build_index_streaming(
        tmp_path / "streamed",
        _batches(names, texts, 25_000),
        codes,
        memory_limit_bytes=4 << 20,
        spill_dir=tmp_path,
        workers=2,
        progress=lambda phase, done, total: seen.append((phase, done, total)),
    )
    _assert_same_files(tmp_path / "memory", tmp_path / "streamed")
    assert pools == [2]
    phases = [phase for phase, _, _ in seen]
    assert phases.index("merge") > len(phases) - phases[::-1].index("tokenize") - 1
    assert [s for s in seen if s[0] == "tokenize"][-1] == ("tokenize", 60_000, 60_000)
    last_merge = [s for s in seen if s[0] == "merge"][-1]
    assert last_merge[1] == last_merge[2] > 0


def _stream(tmp_path: Path, batches: list[tuple[list[Any], list[Any]]], num_codes: int) -> None:
    spill = tmp_path / "spill"
    spill.mkdir(exist_ok=True)
    build_index_streaming(
        tmp_path / "index",
        iter(batches),
        np.zeros(num_codes, np.int16),
        memory_limit_bytes=1 << 20,
        spill_dir=spill,
        workers=1,
    )


@pytest.mark.parametrize(
    ("batches", "num_codes", "message"),
    [
        ([(["a", "b"], ["x", "y"])], 3, "hold 2 nodes but 3 type codes"),
        ([(["a", "b"], ["x", "y"])], 1, "more nodes than the 1 type codes"),
        ([(["a", "b"], ["x"])], 2, "2 names and 1 texts"),
        ([(["a"], ["x"]), (["b"], [None])], 2, "node 1 has a NoneType text"),
        ([([3], ["x"])], 1, "node 0 has a int name"),
    ],
    ids=["too few", "too many", "ragged", "none text", "int name"],
)
def test_bad_batches_are_refused_and_spill_is_removed(
    tmp_path: Path,
    batches: list[tuple[list[Any], list[Any]]],
    num_codes: int,
    message: str,
) -> None:
    with pytest.raises(GraphError, match=message):
        _stream(tmp_path, batches, num_codes)
    assert list((tmp_path / "spill").iterdir()) == []


def test_bad_codes_limit_and_directory_are_refused(tmp_path: Path) -> None:
    spill = tmp_path
    batch = [(["a"], ["b"])]
    with pytest.raises(GraphError, match="type codes"):
        build_index_streaming(
            tmp_path / "a", iter(batch), np.array([-1]), memory_limit_bytes=1, spill_dir=spill
        )
    with pytest.raises(GraphError, match="memory limit"):
        build_index_streaming(
            tmp_path / "b",
            iter(batch),
            np.zeros(1, np.int16),
            memory_limit_bytes=0,
            spill_dir=spill,
        )
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "x").write_text("")
    with pytest.raises(GraphError, match="not empty"):
        build_index_streaming(
            tmp_path / "c",
            iter(batch),
            np.zeros(1, np.int16),
            memory_limit_bytes=1 << 20,
            spill_dir=spill,
        )
    with pytest.raises(GraphError, match="unknown analyzer"):
        build_index_streaming(
            tmp_path / "d",
            iter(batch),
            np.zeros(1, np.int16),
            memory_limit_bytes=1 << 20,
            spill_dir=spill,
            analyzer="klingon",
        )


def test_type_codes_may_be_a_memory_map(tmp_path: Path) -> None:
    names, texts = _corpus(500, seed=5)
    codes = (np.arange(500) % 7).astype(np.int16)
    np.save(tmp_path / "codes.npy", codes)
    build_index(tmp_path / "memory", names, texts, codes)
    build_index_streaming(
        tmp_path / "streamed",
        _batches(names, texts, 128),
        np.load(tmp_path / "codes.npy", mmap_mode="r"),
        memory_limit_bytes=50_000,
        spill_dir=tmp_path,
    )
    _assert_same_files(tmp_path / "memory", tmp_path / "streamed")


def test_a_bad_text_in_a_worker_is_reported_with_its_node(tmp_path: Path) -> None:
    names, texts = _corpus(60_000, seed=6, max_words=3)
    texts[55_555] = None  # type: ignore[call-overload]
    with pytest.raises(GraphError, match="node 55555 has a NoneType text"):
        build_index_streaming(
            tmp_path / "index",
            _batches(names, texts, 30_000),
            np.zeros(len(names), np.int16),
            memory_limit_bytes=1 << 24,
            spill_dir=tmp_path,
            workers=2,
        )
    assert [path.name for path in tmp_path.iterdir()] == ["index"]  # no segments left


_PEAK_PROBE = """
import random, sys, tracemalloc
from pathlib import Path
import numpy as np
from graphs.bm25.build import build_index, build_index_streaming

way, num_nodes, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
rng = random.Random(num_nodes)
words = [f"w{i}" for i in range(60)] + ["graph", "the", "of", "and", "connected", "running"]
names = [f"item {i}" for i in range(num_nodes)]  # a new token per node
texts = [" ".join(rng.choices(words, k=8)) for _ in range(num_nodes)]
codes = np.zeros(num_nodes, np.int16)
batches = ((names[s : s + 5_000], texts[s : s + 5_000]) for s in range(0, num_nodes, 5_000))
build_index(out.parent / f"warm-up-{out.name}", names[:100], texts[:100], codes[:100])  # imports
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
if way == "streamed":
    build_index_streaming(
        out, batches, codes, memory_limit_bytes=1 << 20, spill_dir=out.parent, workers=1
    )
else:
    build_index(out, names, texts, codes)
print(tracemalloc.get_traced_memory()[1] - base)
"""


def _traced_peak(way: str, num_nodes: int, out: Path) -> int:
    """Peak bytes Python and numpy allocate while one build runs, in a process of its own.

    A fresh interpreter keeps threads and garbage left by earlier tests out of the trace.
    """
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_PROBE, way, str(num_nodes), str(out)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_memory_stays_flat_as_the_graph_grows(tmp_path: Path) -> None:
    peaks = {n: _traced_peak("streamed", n, tmp_path / f"streamed{n}") for n in (20_000, 80_000)}
    in_memory = _traced_peak("memory", 80_000, tmp_path / "memory")
    assert peaks[80_000] < peaks[20_000] * 1.2
    assert peaks[80_000] * 5 < in_memory


def test_chunks_are_cut_by_documents_and_by_characters() -> None:
    megabyte_texts = ["x" * (1 << 20)] * 5
    assert ingest_module._chunk_ends([""] * 5, megabyte_texts) == [2, 4, 5]
    many = ingest_module.CHUNK_DOCS * 2 + 3
    assert ingest_module._chunk_ends(["a"] * many, ["b"] * many) == [
        ingest_module.CHUNK_DOCS,
        ingest_module.CHUNK_DOCS * 2,
        many,
    ]
    assert ingest_module._chunk_ends(["a", "b"], ["c", None]) == [2]  # type: ignore[list-item]
    assert ingest_module._chunk_ends([], []) == []
