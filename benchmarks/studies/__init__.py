"""Studies that informed a design choice (BM25 variants, distillation budget, dense fusions)."""
