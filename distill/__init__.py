"""Distillation into a LoRA student, and reranker training (needs the `distill` extra)."""
