"""The BM25 index: analyzers, postings, bitmaps, parameters, build, scorer and kernels."""
