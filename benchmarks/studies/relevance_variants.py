"""BM25 variants that could close ARK's top-1 gap, measured with bm25s on ARK's own tokens.

ARK's search equals bm25s configured alike up to length quantisation (bench_relevance.py), so
bm25s stands in for ARK here: top-1 on the same sets and questions as bench_relevance.py for
k1 1.2 (ARK) vs 1.5, without one-character tokens, and without query terms held by more than
50 % / 10 % of nodes.

.venv/bin/python -m benchmarks.studies.relevance_variants products academic biomed icd10cm
"""

from __future__ import annotations

import sys
from pathlib import Path

import bm25s
import numpy as np

from benchmarks.harness import load_set
from graphs.bm25.build import document_text
from graphs.bm25.tokenize import Tokenizer


def top1(
    docs: list[list[str]], queries: list[list[str]], golds: list, k1: float, cut: float
) -> float:
    """Top-1 hit rate of bm25s (Lucene idf, b 0.75) dropping query terms with df > cut * N."""
    retriever = bm25s.BM25(k1=k1, b=0.75, method="lucene")
    retriever.index(docs, show_progress=False)
    vocab = retriever.vocab_dict
    df = np.zeros(len(vocab), np.int64)
    for doc in docs:
        df[list({vocab[token] for token in doc})] += 1
    hits = []
    for query, gold in zip(queries, golds, strict=True):
        known = [token for token in query if token in vocab]
        known = [token for token in known if df[vocab[token]] <= cut * len(docs)] or known
        scores = retriever.get_scores(known) if known else np.zeros(1)
        best = int(np.argmax(scores))
        hits.append(bool(scores[best] > 0 and best in gold))
    return float(np.mean(hits))


def main() -> None:
    tokenizer = Tokenizer("english")
    print("| set | k1 1.2 (ARK) | k1 1.5 | no 1-char tokens | drop df > 50 % | drop df > 10 % |")
    print("|---|---|---|---|---|---|")
    for name in sys.argv[1:] or ["products", "academic", "biomed", "icd10cm"]:
        names, texts, _, pairs = load_set(name, Path("/work/cache/search"), 300)
        docs = tokenizer.tokenize_many(
            [document_text(n, t) for n, t in zip(names, texts, strict=True)]
        )
        queries = [tokenizer.query_tokens(q) for q, _ in pairs]
        golds = [gold for _, gold in pairs]
        short_docs = [[t for t in doc if len(t) > 1] for doc in docs]
        short_queries = [[t for t in query if len(t) > 1] for query in queries]
        cells = [
            top1(docs, queries, golds, 1.2, 1.0),
            top1(docs, queries, golds, 1.5, 1.0),
            top1(short_docs, short_queries, golds, 1.2, 1.0),
            top1(docs, queries, golds, 1.2, 0.5),
            top1(docs, queries, golds, 1.2, 0.1),
        ]
        print(f"| {name} | " + " | ".join(f"{cell:.3f}" for cell in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
