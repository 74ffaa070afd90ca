"""The agent's tools over a graph snapshot: search, neighbors, select, finish."""
