"""Non-agent rankers and what combines rankings: BM25 and dense baselines, RRF fusion, reranking."""
