"""Dense retrieval: encoders, node embeddings, their build, exact and HNSW top-k, and GME."""
