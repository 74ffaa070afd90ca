"""Dense retrieval: encoders, node embeddings, their build, cosine top-k and GME."""
