"""Rankers without an agent, scored like an agent run: BM25, STaRK's BM25, dense (GME), plans."""
