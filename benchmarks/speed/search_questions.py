"""Global search speed on the queries users type: 10-30-word questions and short keywords.

One run times, on the same corpus and queries, ARK's search (default ``english`` analyzer,
and ``plain``, i.e. stopwords kept, side by side), ``bm25s.BM25.retrieve`` (its public API),
bm25s' numba backend, and bm25s' fastest single-query path (``get_scores`` + numpy top-k),
all given ARK's tokens and ARK's formula (Okapi idf, k1 = 0.9, b = 0.4: configured
alike); overlap@20 of ARK against that reference; and ``score_nodes`` (neighbour ranking)
on 1,000-node sets. Corpora: ICD-10-CM (real, 98,505 nodes, benchmarks/datasets/icd10.py) and a
synthetic domain at any size (its text-only questions). Snapshots and extra indexes are
cached under --cache (build once).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import bm25s
import numpy as np
import pyarrow.parquet as pq

from benchmarks.datasets.icd10 import build_icd_snapshot, icd_questions
from benchmarks.harness import latencies
from graphs.bm25.build import build_index, document_text
from graphs.bm25.index import BM25Index
from graphs.bm25.params import BM25Params
from graphs.bm25.tokenize import Tokenizer
from graphs.build.options import BuildOptions
from graphs.synth.generate import generate

K = 20


def load_corpus(spec: str, cache: Path, count: int) -> tuple[Path, list[str], list[str]]:
    """Snapshot path, questions and short queries of ``icd10cm`` or ``DOMAIN:NODES``."""
    if spec == "icd10cm":
        out = build_icd_snapshot(cache / "icd10cm", "english")
        nodes = pq.read_table(out / "nodes.parquet", columns=["id", "name", "text"])
        pairs = icd_questions(nodes, count, seed=0)
        position = {node: i for i, node in enumerate(nodes.column("id").to_pylist())}
        golds = [position[gold] for _, gold in pairs]
        questions = [question for question, _ in pairs]
    else:
        domain, size = spec.split(":")
        out = cache / f"{domain}-{size}"
        if not (out / "manifest.json").is_file():
            generate(domain, 0, out, int(size), options=BuildOptions(overwrite=True))
        nodes = pq.read_table(out / "nodes.parquet", columns=["id", "name", "text"])
        position = {node: i for i, node in enumerate(nodes.column("id").to_pylist())}
        rows = [
            json.loads(line)
            for split in ("train", "val", "test")
            for line in (out / "qa" / f"{split}.jsonl").read_text().splitlines()
        ]
        rows = [row for row in rows if row["family"] == "text_only"][:count]
        questions = [row["query"] for row in rows]
        golds = [position[row["answer_ids"][0]] for row in rows]
    names = nodes.column("name").to_pylist()
    # an agent's search call: a few keywords, here the first three words of the gold's name
    short = [" ".join(names[gold].split()[:3]) for gold in golds]
    return out, questions, short


def bm25s_reference(snapshot: Path, tokenizer: Tokenizer, backend: str) -> bm25s.BM25:
    nodes = pq.read_table(snapshot / "nodes.parquet", columns=["name", "text"])
    documents = [
        document_text(n, t)
        for n, t in zip(
            nodes.column("name").to_pylist(), nodes.column("text").to_pylist(), strict=True
        )
    ]
    shared: dict[str, str] = {}  # equal tokens share one str: 1M token lists fit in memory
    tokens = [
        [shared.setdefault(token, token) for token in tokenizer.tokenize(document)]
        for document in documents
    ]
    retriever = bm25s.BM25(k1=0.9, b=0.4, method="robertson", backend=backend)
    retriever.index(tokens, show_progress=False)
    return retriever


def bm25s_retrieve(retriever: bm25s.BM25, tokenizer: Tokenizer, query: str) -> list[int]:
    known = [t for t in tokenizer.query_tokens(query) if t in retriever.vocab_dict]
    if not known:
        return []
    ids, _ = retriever.retrieve(
        [known], k=min(K, retriever.scores["num_docs"]), show_progress=False
    )
    return [int(i) for i in ids[0]]


def bm25s_fast(retriever: bm25s.BM25, tokenizer: Tokenizer, query: str) -> list[int]:
    known = [t for t in tokenizer.query_tokens(query) if t in retriever.vocab_dict]
    if not known:
        return []
    scores = retriever.get_scores(known)
    top = np.argpartition(-scores, K)[:K]
    top = top[np.lexsort((top, -scores[top]))]
    return [int(i) for i in top if scores[i] > 0]


def ark(index: BM25Index, query: str) -> list[int]:
    return index.search(query, K)[0].tolist()


def overlap(first: Sequence[list[int]], second: Sequence[list[int]]) -> float:
    pairs = [(a, b) for a, b in zip(first, second, strict=True) if a or b]
    return float(np.mean([len(set(a) & set(b)) / min(K, max(len(a), 1)) for a, b in pairs]))


def current_index(snapshot: Path, analyzer: str) -> BM25Index:
    """The snapshot's documents indexed as this ARK builds them (cached next to the snapshot)."""
    index = BM25Index.open(snapshot / "index")
    if analyzer == index.analyzer and index.params == BM25Params():
        return index
    path = snapshot.parent / f"{snapshot.name}.{analyzer}-v3-index"
    if not (path / "meta.json").is_file():
        nodes = pq.read_table(snapshot / "nodes.parquet", columns=["name", "text"])
        names, texts = nodes.column("name").to_pylist(), nodes.column("text").to_pylist()
        build_index(path, names, texts, np.zeros(len(names), np.int16), analyzer=analyzer)
    return BM25Index.open(path)


def bench(spec: str, args: argparse.Namespace) -> list[str]:
    snapshot, questions, short = load_corpus(spec, args.cache, args.queries)
    index = current_index(snapshot, "english")
    plain = current_index(snapshot, "plain")
    tokenizer = index.tokenizer
    started = time.perf_counter()
    retriever = bm25s_reference(snapshot, tokenizer, "numpy")
    build_s = time.perf_counter() - started
    compiled = bm25s_reference(snapshot, tokenizer, "numba")
    words = np.mean([len(q.split()) for q in questions])
    lines = [
        f"\n### {spec}: {index.num_docs:,} nodes; {len(questions)} questions "
        f"(mean {words:.1f} words), {len(short)} short queries; load average at start "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; bm25s index {build_s:.0f} s\n",
        "| query shape | engine | p50 ms | p95 ms | CPU p50 ms |",
        "|---|---|---|---|---|",
    ]
    for shape, queries in (("questions", questions), ("short", short)):
        engines = {
            "**ARK** search (english)": partial(ark, index),
            "ARK search, stopwords kept (plain)": partial(ark, plain),
            "bm25s `retrieve`": partial(bm25s_retrieve, retriever, tokenizer),
            "bm25s `retrieve`, numba backend": partial(bm25s_retrieve, compiled, tokenizer),
            "bm25s `get_scores` + top-k": partial(bm25s_fast, retriever, tokenizer),
        }
        timings = {label: latencies(engine, queries) for label, engine in engines.items()}
        for label, (p50, p95, cpu) in timings.items():
            lines.append(f"| {shape} | {label} | {p50:.3f} | {p95:.3f} | {cpu:.3f} |")
        ours = timings["**ARK** search (english)"]
        peers = (
            "bm25s `retrieve`",
            "bm25s `retrieve`, numba backend",
            "bm25s `get_scores` + top-k",
        )
        for peer_label in peers:
            peer = timings[peer_label]
            lines.append(
                f"| {shape} | ARK speed-up vs {peer_label} | **{peer[0] / ours[0]:.1f}×** "
                f"| | **{peer[2] / ours[2]:.1f}×** |"
            )
    ours_top = [ark(index, q) for q in questions]
    peer_top = [bm25s_fast(retriever, tokenizer, q) for q in questions]
    rng = np.random.default_rng(0)
    sets = {q: np.sort(rng.choice(index.num_docs, 1000, replace=False)) for q in questions}
    scoring = latencies(lambda q: index.score_nodes(q, sets[q]), questions)
    lines += [
        "",
        f"- overlap@20 ARK vs bm25s configured alike, questions: "
        f"**{overlap(ours_top, peer_top):.3f}**",
        f"- `score_nodes` (neighbour ranking) of a question over 1,000 nodes: p50 "
        f"{scoring[0]:.3f} ms, p95 {scoring[1]:.3f} ms, CPU p50 {scoring[2]:.3f} ms",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpora", default="icd10cm,academic:100000,academic:1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/search"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    args.cache.mkdir(parents=True, exist_ok=True)
    lines = []
    for spec in args.corpora.split(","):
        lines += bench(spec, args)
        print("\n".join(lines), flush=True)
        lines = []
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
