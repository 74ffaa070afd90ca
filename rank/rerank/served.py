"""The served reranker: P(yes) from an OpenAI-compatible endpoint's first-token logprobs."""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Sequence
from typing import Any

from agent.models.openai import OpenAIChatModel, RetryPolicy
from rank.rerank.models import Messages, RerankError


class OpenAIScorer:
    """P(yes) from an OpenAI-compatible endpoint's top logprobs of one generated token.

    Each chat is one call of the agent's adapter (agent/models/openai/model.py,
    `OpenAIChatModel.first_token_logprobs`): the same retries, deadline, liveness and busy
    rule as every other model call, the reading of the reply included. `concurrency` chats
    are in flight at once; the first chat that fails stops the batch (chats not yet sent are
    dropped), so a dead or silent endpoint costs one timeout and one check, not one per chat.

    Attributes:
        endpoint: The settings recorded in the run's configuration (URL credentials redacted).
    """

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None = None,
        concurrency: int = 4, timeout_s: float = 60.0, max_retries: int = 6,
        call_deadline_s: float | None = 180.0, **adapter: Any,
    ) -> None:  # fmt: skip
        """`adapter`: further OpenAIChatModel arguments (its clocks and sleep, in tests)."""
        if not (base_url or _env_base_url()):
            raise RerankError("openai: rerankers need --base-url (or OPENAI_BASE_URL)")
        self.chat = OpenAIChatModel(
            model, base_url=base_url, api_key=api_key, max_tokens=1, timeout_s=timeout_s,
            call_deadline_s=call_deadline_s, retry=RetryPolicy.for_max_retries(max_retries),
            **adapter,
        )  # fmt: skip
        self.url = self.chat.base_url.rstrip("/")  # redacted by the adapter
        self.identity = f"openai:{model}@{self.url}"
        self.model = model
        self.concurrency = max(1, concurrency)
        self.endpoint: dict[str, Any] | None = {
            "base_url": self.url, "request_timeout_s": timeout_s, "max_retries": max_retries,
            "call_deadline_s": call_deadline_s,
        }  # fmt: skip

    def score(self, chats: Sequence[Messages]) -> list[float]:
        """P(yes) per chat, `concurrency` requests in flight; the first failure stops all."""
        return asyncio.run(self._score(chats))

    async def _score(self, chats: Sequence[Messages]) -> list[float]:
        from openai.types.chat import ChatCompletion

        slots = asyncio.Semaphore(self.concurrency)
        failed = asyncio.Event()

        async def one(chat: Messages) -> float:
            async with slots:
                if failed.is_set():  # waited for a slot the failed chat held: not sent
                    raise asyncio.CancelledError
                try:
                    body = await self.chat.first_token_logprobs(list(chat))
                    return yes_probability(ChatCompletion.model_validate(body))
                except Exception:
                    failed.set()
                    raise

        try:
            async with asyncio.TaskGroup() as group:  # the first failure cancels the rest
                tasks = [group.create_task(one(chat)) for chat in chats]
        except ExceptionGroup as failures:
            raise _first(failures) from None
        finally:
            await self.chat.aclose()
        return [task.result() for task in tasks]


def _first(group: BaseExceptionGroup[Exception]) -> Exception:
    """The first failure of a task group (the others were cancelled by it or failed alike)."""
    error = group.exceptions[0]
    return _first(error) if isinstance(error, BaseExceptionGroup) else error


def _env_base_url() -> str | None:
    return os.environ.get("OPENAI_BASE_URL") or None


def yes_probability(completion: Any) -> float:
    """P(yes) among yes/no from a chat completion's first-token top logprobs.

    Raises:
        RerankError: no logprobs, or neither answer among the top tokens.
    """
    choice = completion.choices[0] if completion.choices else None
    content = choice.logprobs.content if choice is not None and choice.logprobs else None
    if not content:
        raise RerankError(
            "the endpoint returned no logprobs; serve the model with logprobs support "
            "(vLLM, llama.cpp server, ...) or use a local model"
        )
    mass = {"yes": 0.0, "no": 0.0}
    for entry in content[0].top_logprobs or []:
        word = entry.token.strip().lower()
        if word in mass:
            mass[word] += math.exp(entry.logprob)
    if mass["yes"] + mass["no"] == 0.0:
        raise RerankError(
            "neither 'yes' nor 'no' is among the first token's top logprobs; the model does "
            "not follow the yes/no instruction, try another model"
        )
    return mass["yes"] / (mass["yes"] + mass["no"])
