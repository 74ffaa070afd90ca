"""Flag groups, each declared once and mapped onto one config.

Agent and endpoint flags (agent.py), run, import, SARG, reranker and executor flags.
"""
