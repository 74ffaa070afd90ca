"""Synthetic benchmark graphs with exact gold answers (products, academic, biomed)."""
