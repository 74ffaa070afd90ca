"""Benchmark ARK's BM25 index (numpy postings, numba kernels) against bm25s and rank_bm25.

A Zipfian synthetic corpus with short agent-like and frequent-word queries; for the questions
users type on real text see bench_search_questions.py.
"""

from __future__ import annotations

import argparse
import logging
import resource
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TypeVar

import bm25s
import numpy as np
import rank_bm25

from benchmarks.harness import latencies, make_corpus, make_queries, timed
from graphs.bm25.build import build_index
from graphs.bm25.index import BM25Index
from graphs.bm25.tokenize import Tokenizer

NODE_TYPE_SHARES = [0.5, 0.3, 0.15, 0.05]
T = TypeVar("T")
STOPWORDS = 100
MIXES = ("agent", "frequent")


def overlap_at(first: Sequence[Sequence[int]], second: Sequence[Sequence[int]], k: int) -> float:
    """Mean |top-k ∩ top-k| / k over queries (queries with no hits on both sides skipped)."""
    values = [
        len(set(a[:k]) & set(b[:k])) / max(min(len(a), k), 1)
        for a, b in zip(first, second, strict=True)
        if len(a) or len(b)
    ]
    return float(np.mean(values))


def shared_tokens(tokenizer: Tokenizer, texts: list[str]) -> list[list[str]]:
    """Token lists whose equal tokens share one str object (50M tokens otherwise take GBs)."""
    shared: dict[str, str] = {}
    out = []
    for start in range(0, len(texts), 50_000):
        for tokens in tokenizer.tokenize_many(texts[start : start + 50_000]):
            out.append([shared.setdefault(token, token) for token in tokens])
    return out


def bm25s_index(token_lists: list[list[str]]) -> bm25s.BM25:
    """bm25s configured like ARK's BM25 (Okapi idf, k1 = 0.9, b = 0.4)."""
    retriever = bm25s.BM25(k1=0.9, b=0.4, method="robertson")
    retriever.index(token_lists, show_progress=False)
    return retriever


def bm25s_top(retriever: bm25s.BM25, tokens: list[str], k: int) -> list[int]:
    """Top-k doc ids of bm25s for one tokenised query: its fastest single-query path.

    ``get_scores`` and a numpy top-k, which is what ``retrieve`` computes; ``retrieve`` itself
    adds a thread pool round trip that costs 10-250 ms per single query here.
    """
    known = [token for token in tokens if token in retriever.vocab_dict]
    if not known:
        return []
    scores = retriever.get_scores(known)
    top = np.argpartition(-scores, min(k, scores.size - 1))[:k]
    top = top[np.lexsort((top, -scores[top]))]
    return [int(i) for i in top if scores[i] > 0]


def bm25s_retrieve(retriever: bm25s.BM25, tokenizer: Tokenizer, query: str) -> object:
    """bm25s top-20 through its public ``retrieve`` API."""
    known = [token for token in tokenizer.query_tokens(query) if token in retriever.vocab_dict]
    if not known:
        return None
    return retriever.retrieve([known], k=20, show_progress=False, n_threads=1)


def bm25s_query(retriever: bm25s.BM25, tokenizer: Tokenizer, query: str, k: int) -> list[int]:
    """bm25s top-k for raw query text, tokenised (and de-duplicated) as ARK does."""
    return bm25s_top(retriever, tokenizer.query_tokens(query), k)


def ark_search(index: BM25Index, query: str, k: int) -> list[int]:
    """ARK top-k ids for raw query text."""
    return index.search(query, k)[0].tolist()


def ark_typed(index: BM25Index, types: list[int], query: str) -> list[int]:
    """ARK top-20 restricted to some node types."""
    return index.search(query, 20, node_types=types)[0].tolist()


def score_set(index: BM25Index, sets: dict[str, np.ndarray], query: str) -> np.ndarray:
    """score_nodes of the node set paired with ``query``."""
    return index.score_nodes(query, sets[query])


def _row(label: str, stats: tuple[float, float, float]) -> str:
    return f"| {label} | {stats[0]:.3f} | {stats[1]:.3f} | {stats[2]:.3f} |"


TABLE_HEAD = ["| {} | p50 ms | p95 ms | CPU p50 ms |", "|---|---|---|---|"]


def bench_ark(args: argparse.Namespace, work: Path, lines: list[str]) -> None:
    """Run every measurement and append markdown lines to ``lines``."""
    started = time.perf_counter()
    names, texts, types = make_corpus(args.nodes, args.vocab, args.seed)
    mixes = {mix: make_queries(names, texts, args.queries, args.seed, mix) for mix in MIXES}
    lines.append(
        f"corpus: {args.nodes:,} nodes, vocabulary {args.vocab:,} (Zipf 1.07), generated in "
        f"{time.perf_counter() - started:.1f} s; {args.queries} queries per mix\n"
    )
    build_cpu = time.process_time()
    build_s, _ = timed(lambda: build_index(work / "ark", names, texts, types))
    build_cpu = time.process_time() - build_cpu
    size_mb = sum(f.stat().st_size for f in (work / "ark").rglob("*") if f.is_file()) / 2**20
    open_s, index = timed(lambda: BM25Index.open(work / "ark"))
    lines.append(
        f"ARK build: {build_s:.1f} s wall, {build_cpu:.1f} s CPU (all threads) = "
        f"{build_s / args.nodes * 1e6:.1f} s wall per million nodes; {size_mb:.0f} MiB on "
        f"disk; open {open_s * 1e3:.1f} ms\n"
    )
    tokenizer = Tokenizer()
    corpus_tokens = shared_tokens(
        tokenizer, [f"{n} {t}" for n, t in zip(names, texts, strict=True)]
    )
    bm25s_build_s, retriever = timed(lambda: bm25s_index(corpus_tokens))
    lines.append(f"bm25s build (pre-tokenised): {bm25s_build_s:.1f} s\n")
    for mix, queries in mixes.items():
        bench_global(index, retriever, tokenizer, mix, queries, lines, args.retrieve_queries)
    sample = mixes["agent"][: args.agree_queries]
    ark_top = [index.search(q, 20)[0].tolist() for q in sample]
    bm_top = [bm25s_query(retriever, tokenizer, q, 20) for q in sample]
    lines.append(
        f"- overlap@20 ARK (one document name + text) vs bm25s (same text, ARK's tokens), agent "
        f"queries: {overlap_at(ark_top, bm_top, 20):.3f}"
    )
    bench_agreement(args, work, names, texts, sample, lines)
    bench_rank_bm25(args, corpus_tokens, mixes["agent"], tokenizer, lines)
    bench_score_nodes(args, index, work, mixes["agent"], lines)


def bench_global(
    index: BM25Index,
    retriever: bm25s.BM25,
    tokenizer: Tokenizer,
    mix: str,
    queries: list[str],
    lines: list[str],
    retrieve_cap: int,
) -> None:
    """Global top-k latency of ARK and bm25s over one query mix."""
    lines += ["", TABLE_HEAD[0].format(f"global search, {mix} queries"), TABLE_HEAD[1]]
    ratios = []
    for k in (5, 20):
        ark = latencies(partial(ark_search, index, k=k), queries)
        other = latencies(partial(bm25s_query, retriever, tokenizer, k=k), queries)
        ratios.append(f"top-{k} {other[0] / ark[0]:.1f}× (CPU {other[2] / ark[2]:.1f}×)")
        lines += [_row(f"ARK top-{k}", ark), _row(f"bm25s top-{k}", other)]
    slow_api = latencies(partial(bm25s_retrieve, retriever, tokenizer), queries[:retrieve_cap])
    lines.append(_row(f"bm25s `retrieve()` top-20 (first {retrieve_cap} queries)", slow_api))
    for types, label in (([1, 3], "types 1+3, 35 % of nodes"), ([3], "type 3, 5 % of nodes")):
        typed = latencies(partial(ark_typed, index, types), queries)
        lines.append(_row(f"ARK top-20, type filter ({label})", typed))
    lines.append("")
    lines.append(f"- ARK vs bm25s at p50 ({mix} queries): " + ", ".join(ratios))


def bench_agreement(
    args: argparse.Namespace,
    work: Path,
    names: list[str],
    texts: list[str],
    sample: list[str],
    lines: list[str],
) -> None:
    """Overlap@20 with bm25s when ARK indexes the very same single field (name + text)."""
    count = min(args.agree_nodes, len(texts))
    joined = [f"{n} {t}" for n, t in zip(names[:count], texts[:count], strict=True)]
    build_index(work / "single", [""] * count, joined, np.zeros(count, np.int16))
    single = BM25Index.open(work / "single")
    retriever = bm25s_index(Tokenizer().tokenize_many(joined))
    ark_top = [single.search(q, 20)[0].tolist() for q in sample]
    bm_top = [bm25s_top(retriever, single.matched_terms(q), 20) for q in sample]
    lines.append(
        f"- overlap@20 on the same single field (first {count:,} nodes): "
        f"{overlap_at(ark_top, bm_top, 20):.3f}"
    )


def bench_rank_bm25(
    args: argparse.Namespace,
    corpus_tokens: list[list[str]],
    queries: list[str],
    tokenizer: Tokenizer,
    lines: list[str],
) -> None:
    """rank_bm25 is pure Python and O(nodes) per query token: run it on a subsample."""
    count = min(args.rank_nodes, len(corpus_tokens))
    build_s, okapi = timed(lambda: rank_bm25.BM25Okapi(corpus_tokens[:count], k1=0.9, b=0.4))
    capped = queries[: args.rank_queries]
    p50, p95, _ = latencies(
        lambda q: np.argsort(-okapi.get_scores(tokenizer.query_tokens(q)))[:20], capped
    )
    lines.append(
        f"- rank_bm25 BM25Okapi on the first {count:,} nodes only, {len(capped)} queries "
        f"(build {build_s:.1f} s): top-20 p50 {p50:.1f} ms, p95 {p95:.1f} ms; linear "
        f"in nodes, so about {p50 * len(corpus_tokens) / count:.0f} ms at "
        f"{len(corpus_tokens):,} nodes"
    )


def bench_score_nodes(
    args: argparse.Namespace, index: BM25Index, work: Path, queries: list[str], lines: list[str]
) -> None:
    """score_nodes on random node sets of 10, 1,000 and 20,000 nodes."""
    rng = np.random.default_rng(args.seed + 2)
    lines += ["", TABLE_HEAD[0].format("node-set scoring, agent queries"), TABLE_HEAD[1]]
    for size in (10, 1_000, 20_000):
        size = min(size, index.num_docs)
        sets = [rng.choice(index.num_docs, size, replace=False) for _ in range(32)]
        pairs = {q: sets[i % len(sets)] for i, q in enumerate(queries)}
        lines.append(
            _row(
                f"score_nodes, {size:,} nodes",
                latencies(partial(score_set, index, pairs), list(pairs)),
            )
        )


def main() -> None:
    """Parse flags, run the benchmark, print a markdown report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--vocab", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agree-nodes", type=int, default=200_000)
    parser.add_argument("--agree-queries", type=int, default=100)
    parser.add_argument("--rank-nodes", type=int, default=20_000)
    parser.add_argument("--rank-queries", type=int, default=30)
    parser.add_argument("--retrieve-queries", type=int, default=50)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_search_") as tmp:
        bench_ark(args, Path(tmp), lines)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines.append(f"\npeak RSS of the whole benchmark process: {peak_mb:,.0f} MiB")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
