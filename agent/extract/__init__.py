"""Extractors that read documents through a model (the LLM side of `ark graph extract`)."""
