"""Local transformers models: the adapter, chat-template messages and prefix KV reuse."""
