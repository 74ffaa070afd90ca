"""The one factory of rerank scorers: a -m spec to a local or a served yes/no scorer."""

from __future__ import annotations

from agent.config import AgentConfig
from agent.models.registry import parse_model_spec
from rank.rerank.models import LocalScorer, RerankError, Scorer
from rank.rerank.served import OpenAIScorer


def make_scorer(
    spec: str,
    *,
    endpoint: AgentConfig | None = None,
    api_key: str | None = None,
    batch_size: int = 8,
) -> Scorer:
    """A scorer for model spec `spec`, parsed as every `-m` is (agent/models/registry.py).

    Args:
        spec: The -m value.
        endpoint: A served scorer's endpoint: base_url, request_timeout_s, max_retries and
            call_deadline_s (the agent flags' values; None: AgentConfig's defaults).
        api_key: The endpoint's key (None: OPENAI_API_KEY, then a placeholder).
        batch_size: Chats per forward pass, or requests in flight.

    Raises:
        RerankError: `rules` (it cannot score relevance).
        ModelSpecError: a bad spec (e.g. a bare name without a base URL: use hf:PATH).
    """
    endpoint = endpoint or AgentConfig()
    parsed = parse_model_spec(spec, base_url=endpoint.base_url)
    if parsed.backend == "openai":
        return OpenAIScorer(
            parsed.target, base_url=endpoint.base_url, api_key=api_key, concurrency=batch_size,
            timeout_s=endpoint.request_timeout_s, max_retries=endpoint.max_retries,
            call_deadline_s=endpoint.call_deadline_s,
        )  # fmt: skip
    if parsed.backend == "hf":
        return LocalScorer(str(parsed.path), batch_size=batch_size)
    raise RerankError(
        "the rule policy cannot score relevance; rerank with -m hf:PATH (a local causal LM, "
        "GGUF or `ark distill reranker` adapter) or -m openai:NAME with --base-url"
    )
