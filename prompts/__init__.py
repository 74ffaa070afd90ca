"""Prompt files (Jinja templates) read by agent/ and distill/."""
