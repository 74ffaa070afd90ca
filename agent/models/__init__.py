"""Model adapters behind one interface: OpenAI HTTP, local transformers, rules, scripted."""
