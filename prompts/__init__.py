"""Prompt files (Jinja templates) and their one loader (`prompts.loader`), read by every layer."""
