"""OpenAI-compatible HTTP models: the adapter, its requests, replies and retry policy.

The door for everything outside agent.models (an import contract in pyproject.toml keeps it
so): `OpenAIChatModel` (its `call` is the one path every served request takes: agents,
planner, extraction, SARG, the reranker) and `RetryPolicy`. The modules behind it (client,
failures, liveness, reply, request, retry) are its internals.
"""

from agent.models.openai.model import OpenAIChatModel
from agent.models.openai.retry import RetryPolicy

__all__ = ["OpenAIChatModel", "RetryPolicy"]
