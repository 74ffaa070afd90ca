"""Search relevance: ARK's global search vs bm25s and rank_bm25 on known-item questions.

Sets: the text-only family of each synthetic domain (all splits) and ICD-10-CM, a real
public graph (benchmarks/datasets/icd10.py). Every engine answers the raw question; top-1/5/20 =
share of questions whose gold node is in the top 1/5/20; overlap@20 = mean |top-20 ∩
ARK's top-20| / 20. "Alike" peers get ARK's exact documents (name + text) and tokens (the
``english`` analyzer) and ARK's k1 = 0.9, b = 0.4; each peer also runs with its own defaults.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import bm25s
import numpy as np
import rank_bm25

from benchmarks.harness import load_set
from graphs.bm25.build import build_index, document_text
from graphs.bm25.index import BM25Index
from graphs.bm25.params import BM25Params
from graphs.bm25.tokenize import Tokenizer
from graphs.synth.generate import DOMAINS

Ranker = Callable[[str], list[int]]
K = 20


def ark_ranker(index: BM25Index) -> Ranker:
    return lambda query: index.search(query, K)[0].tolist()


def bm25s_top(retriever: bm25s.BM25, tokens: Sequence[str]) -> list[int]:
    """bm25s' top K for distinct query tokens, positive scores only, lower id first on ties."""
    known = [t for t in tokens if t in retriever.vocab_dict]
    if not known:
        return []
    scores = retriever.get_scores(known)
    top = np.argpartition(-scores, min(K, scores.size - 1))[:K]
    top = top[np.lexsort((top, -scores[top]))]
    return [int(i) for i in top if scores[i] > 0]


def bm25s_ranker(tokens: list[list[str]], tokenizer: Tokenizer, **params: object) -> Ranker:
    retriever = bm25s.BM25(**params)  # type: ignore[arg-type]
    retriever.index(tokens, show_progress=False)
    return lambda query: bm25s_top(retriever, tokenizer.query_tokens(query))


def bm25s_own_ranker(documents: list[str]) -> Ranker:
    """bm25s as its README sets it up: its own tokenizer, English stopwords, k1 = 1.5."""
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    options = {"stopwords": "en", "show_progress": False, "return_ids": False}
    retriever.index(bm25s.tokenize(documents, **options), show_progress=False)
    return lambda query: bm25s_top(
        retriever, list(dict.fromkeys(bm25s.tokenize([query], **options)[0]))
    )


def rank_bm25_ranker(tokens: list[list[str]], tokenizer: Tokenizer, k1: float, b: float) -> Ranker:
    okapi = rank_bm25.BM25Okapi(tokens, k1=k1, b=b)

    def rank(query: str) -> list[int]:
        scores = okapi.get_scores(tokenizer.query_tokens(query))
        top = np.argsort(-scores, kind="stable")[:K]
        return [int(i) for i in top if scores[i] > 0]

    return rank


def evaluate(rankings: Sequence[list[int]], golds: Sequence[list[int]]) -> list[float]:
    """Top-1, top-5 and top-20 hit rates."""
    return [
        float(np.mean([bool(set(r[:k]) & set(g)) for r, g in zip(rankings, golds, strict=True)]))
        for k in (1, 5, 20)
    ]


def overlap(first: Sequence[list[int]], second: Sequence[list[int]]) -> float:
    return float(np.mean([len(set(a) & set(b)) / K for a, b in zip(first, second, strict=True)]))


def bench_set(name: str, args: argparse.Namespace, work: Path) -> list[str]:
    started = time.perf_counter()
    names, texts, _, pairs = load_set(name, args.cache, args.questions)
    questions, golds = [q for q, _ in pairs], [g for _, g in pairs]
    documents = [document_text(n, t) for n, t in zip(names, texts, strict=True)]
    english = Tokenizer("english")
    tokens = english.tokenize_many(documents)
    codes = np.zeros(len(names), np.int16)
    engines: dict[str, Ranker] = {}
    for analyzer in ("english", "english-stem", "plain"):
        build_index(work / f"{name}-{analyzer}", names, texts, codes, analyzer=analyzer)
        label = "**ARK** (default: english, Okapi k1 0.9 b 0.4)"
        if analyzer != "english":
            label = f"ARK, analyzer {analyzer}"
        engines[label] = ark_ranker(BM25Index.open(work / f"{name}-{analyzer}"))
    previous = BM25Params(k1=1.2, b=0.75, idf="lucene")
    build_index(work / f"{name}-previous", names, texts, codes, params=previous)
    engines["ARK before (english, Lucene idf k1 1.2 b 0.75, as tantivy)"] = ark_ranker(
        BM25Index.open(work / f"{name}-previous")
    )
    engines["bm25s alike (same tokens, Okapi idf, k1 0.9, b 0.4)"] = bm25s_ranker(
        tokens, english, k1=0.9, b=0.4, method="robertson"
    )
    engines["bm25s alike but Lucene idf (k1 0.9, b 0.4)"] = bm25s_ranker(
        tokens, english, k1=0.9, b=0.4, method="lucene"
    )
    engines["bm25s same tokens, its defaults (Lucene, k1 1.5, b 0.75)"] = bm25s_ranker(
        tokens, english, k1=1.5, b=0.75, method="lucene"
    )
    engines["bm25s own tokenizer, stopwords en, k1 1.5"] = bm25s_own_ranker(documents)
    engines["rank_bm25 BM25Okapi alike (same tokens, k1 0.9, b 0.4)"] = rank_bm25_ranker(
        tokens, english, 0.9, 0.4
    )
    engines["rank_bm25 BM25Okapi same tokens, its defaults (k1 1.5, b 0.75)"] = rank_bm25_ranker(
        tokens, english, 1.5, 0.75
    )
    lines = [
        f"\n### {name}: {len(names):,} nodes, {len(questions)} questions "
        f"(mean {np.mean([len(q.split()) for q in questions]):.1f} words)\n",
        "| engine | top-1 | top-5 | top-20 | overlap@20 with ARK |",
        "|---|---|---|---|---|",
    ]
    reference: list[list[int]] = []
    for label, rank in engines.items():
        rankings = [rank(q) for q in questions]
        reference = reference or rankings
        hits = evaluate(rankings, golds)
        lines.append(
            f"| {label} | {hits[0]:.3f} | {hits[1]:.3f} | {hits[2]:.3f} | "
            f"{overlap(rankings, reference):.3f} |"
        )
    logging.info("%s done in %.0f s", name, time.perf_counter() - started)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", default=",".join([*DOMAINS, "icd10cm"]))
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/search"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_relevance_") as tmp:
        for name in args.sets.split(","):
            lines += bench_set(name, args, Path(tmp))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
