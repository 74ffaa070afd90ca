"""Shared benchmark helpers: timing, synthetic corpora, relevance sets and running `ark`."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
import pyarrow.parquet as pq

from benchmarks.datasets.icd10 import build_icd_snapshot, icd_questions
from graphs.build.options import BuildOptions
from graphs.synth.generate import generate

T = TypeVar("T")
NODE_TYPE_SHARES = [0.5, 0.3, 0.15, 0.05]
STOPWORDS = 100
ARK = [sys.executable, "-c", "from cli.app import main; main()"]


def ark(*args: object, log: Path) -> float:
    """Run one `ark` command (skipped when its --out exists); returns its wall time."""
    argv = [str(a) for a in args]
    if "--out" in argv and (Path(argv[argv.index("--out") + 1]) / "config.json").is_file():
        return 0.0
    began = time.perf_counter()
    with log.open("a") as handle:
        handle.write("$ ark " + " ".join(argv) + "\n")
        handle.flush()
        subprocess.run([*ARK, *argv], check=True, stdout=handle, stderr=subprocess.STDOUT)
    return time.perf_counter() - began


def load_set(name: str, cache: Path, questions: int) -> tuple[list[str], list[str], list, list]:
    """Names, texts, ids and (question, gold internal ids) pairs of one benchmark set."""
    out = cache / name
    if name == "icd10cm":
        build_icd_snapshot(out, "english")
    elif not (out / "manifest.json").is_file():
        generate(name, 0, out, options=BuildOptions(overwrite=True))
    nodes = pq.read_table(out / "nodes.parquet", columns=["id", "name", "text"])
    ids = nodes.column("id").to_pylist()
    position = {node: i for i, node in enumerate(ids)}
    if name == "icd10cm":
        pairs = [(q, [position[g]]) for q, g in icd_questions(nodes, questions, seed=0)]
    else:
        pairs = []
        for split in ("train", "val", "test"):
            for line in (out / "qa" / f"{split}.jsonl").read_text().splitlines():
                row = json.loads(line)
                if row["family"] == "text_only":
                    pairs.append((row["query"], [position[a] for a in row["answer_ids"]]))
        pairs = pairs[:questions]
    return nodes.column("name").to_pylist(), nodes.column("text").to_pylist(), ids, pairs


def make_corpus(
    num_nodes: int, vocab_size: int, seed: int
) -> tuple[list[str], list[str], np.ndarray]:
    """Text-like synthetic nodes: Zipfian words, 2-6 name tokens, 20-80 text tokens."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = np.array(
        list(
            dict.fromkeys(
                "".join(rng.choice(letters, rng.integers(3, 11)))
                for _ in range(int(vocab_size * 1.1))
            )
        )[:vocab_size],
        dtype=object,
    )
    weights = 1.0 / np.arange(1, len(words) + 1) ** 1.07
    cdf = np.cumsum(weights / weights.sum())
    # names are made of content words: the same Zipf law without the most frequent words
    name_cdf = np.cumsum(weights[STOPWORDS:] / weights[STOPWORDS:].sum())
    text_lengths = rng.integers(20, 81, num_nodes)
    name_lengths = rng.integers(2, 7, num_nodes)
    text_draws = np.searchsorted(cdf, rng.random(int(text_lengths.sum())))
    text_words = words[np.minimum(text_draws, len(words) - 1)]
    name_draws = np.searchsorted(name_cdf, rng.random(int(name_lengths.sum())))
    name_words = words[STOPWORDS + np.minimum(name_draws, len(name_cdf) - 1)]
    texts = _join(text_words, text_lengths)
    names = [name.capitalize() for name in _join(name_words, name_lengths)]
    types = rng.choice(len(NODE_TYPE_SHARES), num_nodes, p=NODE_TYPE_SHARES).astype(np.int16)
    return names, texts, types


def _join(words: np.ndarray, lengths: np.ndarray) -> list[str]:
    ends = np.cumsum(lengths)
    return [
        " ".join(words[end - n : end])
        for end, n in zip(ends.tolist(), lengths.tolist(), strict=True)
    ]


def make_queries(names: list[str], texts: list[str], count: int, seed: int, mix: str) -> list[str]:
    """Queries about a random target node.

    ``agent``: 1-2 words of its name, 1-2 distinct content words of its text (the most
    frequent words excluded) and, half of the time, one of those frequent words, like the
    "the"/"of" of a real question. ``frequent``: its first name word and 1-3 text words drawn
    by occurrence, so mostly very frequent words: the worst case for any BM25 engine.
    """
    rng = np.random.default_rng(seed + 1)
    stopwords = _most_frequent(texts[:10_000], STOPWORDS)
    queries = []
    for node in rng.integers(0, len(texts), count).tolist():
        name_words, words = names[node].split(), texts[node].split()
        if mix == "frequent":
            picked = [name_words[0], *rng.choice(words, int(rng.integers(1, 4)), replace=False)]
        else:
            content = sorted(set(words) - stopwords) or words
            picked = [*rng.choice(name_words, int(rng.integers(1, 3)), replace=False)]
            picked += [
                *rng.choice(content, min(len(content), int(rng.integers(1, 3))), replace=False)
            ]
            if rng.random() < 0.5:
                picked.append(sorted(stopwords)[int(rng.integers(len(stopwords)))])
        queries.append(" ".join(str(word) for word in picked))
    return queries


def _most_frequent(texts: list[str], count: int) -> set[str]:
    counts: dict[str, int] = {}
    for text in texts:
        for word in text.split():
            counts[word] = counts.get(word, 0) + 1
    return set(sorted(counts, key=counts.__getitem__, reverse=True)[:count])


def timed(function: Callable[[], T]) -> tuple[float, T]:
    """Seconds one call of ``function`` took, and what it returned."""
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def latencies(
    function: Callable[[str], object], queries: Sequence[str]
) -> tuple[float, float, float]:
    """Wall-clock p50, p95 and CPU-time p50 in ms of ``function`` over the queries.

    The process CPU time (all threads) is reported too because the benchmark machine is
    shared: it is close to what a call costs when it has the cores to itself.
    """
    for query in queries[:20]:
        function(query)
    wall, cpu = [], []
    for query in queries:
        started, started_cpu = time.perf_counter(), time.process_time()
        function(query)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    p50, p95 = np.percentile(np.array(wall) * 1e3, [50, 95])
    return float(p50), float(p95), float(np.median(cpu) * 1e3)
