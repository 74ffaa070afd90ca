"""Flag groups, each declared once and mapped onto one config.

Agent and endpoint flags (agent.py), run, import, SARG, reranker and executor flags; the
snapshot argument and `--out DIR` parser (paths.py), local model options (local_models.py)
and FlagError (errors.py) that many commands share.
"""
