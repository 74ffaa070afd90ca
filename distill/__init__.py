"""Distillation of teacher trajectories into a LoRA student (needs the `distill` extra)."""
