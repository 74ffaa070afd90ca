"""Model adapters behind one interface: OpenAI-compatible HTTP, local transformers, rules, scripted."""
