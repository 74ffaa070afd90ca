"""Building a snapshot: options, row rules, validation, one skeleton and its two writers.

The in-memory writer is memory.py; the streaming one (bounded memory) is stream/writer.py.
"""
