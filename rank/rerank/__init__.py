"""Stage-3 reranking: candidate documents, yes/no scorers (local or served), cache, `ark rerank`."""
