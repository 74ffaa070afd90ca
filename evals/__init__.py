"""Evaluation: question sets (qa/), runs (runs/), answer runs (answers/), metrics and reports."""
