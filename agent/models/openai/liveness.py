"""The liveness check that tells a slow endpoint from one that accepts and never answers."""

from __future__ import annotations

import asyncio

import openai

PROBE_TIMEOUT_S = 5.0
"""How long the check waits: a live server lists its models in well under a second."""


async def endpoint_answers(client: openai.AsyncOpenAI, *, timeout_s: float) -> bool:
    """True when the endpoint sends any HTTP reply to GET /models within `timeout_s`.

    llama.cpp's server, vLLM and Ollama answer /models while generating, so a server busy
    with a long completion passes; an error status (404 on a server without the route)
    passes too: only silence, a broken connection or a reply that does not end within
    `timeout_s` (one sent a few bytes at a time) fails.
    """
    probe = client.with_options(timeout=timeout_s, max_retries=0).models.with_raw_response
    try:
        await asyncio.wait_for(probe.list(), timeout_s)
    except (openai.APIConnectionError, TimeoutError):  # includes APITimeoutError
        return False
    except openai.APIError:
        return True
    return True
