"""Model adapters behind one interface and the -m spec registry.

openai/ (HTTP), hf/ (local transformers), rules/ (the offline policy), scripted (tests).
"""
