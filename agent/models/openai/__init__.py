"""OpenAI-compatible HTTP models: the adapter, its requests, replies and retry policy."""
