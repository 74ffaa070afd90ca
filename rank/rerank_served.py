"""The served reranker: P(yes) from an OpenAI-compatible endpoint's first-token logprobs."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agent.models.openai.client import async_client
from agent.models.openai.failures import silent_error
from agent.models.openai.liveness import PROBE_TIMEOUT_S, endpoint_answers
from agent.models.openai.retry import RetryPolicy
from agent.models.openai.url import redact_url
from rank.rerank_models import Messages, RerankError


class _DeadlinePassed(Exception):
    """The call deadline passed before another attempt could start."""


class _Skipped(Exception):
    """A chat not sent because an earlier one failed."""


class OpenAIScorer:
    """P(yes) from an OpenAI-compatible endpoint's top logprobs of one generated token.

    Each chat is one call: attempts wait `timeout_s` at most, are retried under
    `RetryPolicy.for_max_retries(max_retries)` (as the agent's adapter retries), and all of
    them, backoff waits included, stay within `call_deadline_s`. A timed-out attempt is
    followed by the agent's liveness check (GET /models): an endpoint that never answered and
    fails it accepts connections but answers nothing, and the chat fails at once. The first
    chat that fails stops the batch: chats not yet sent are dropped, so a dead or silent
    endpoint costs one timeout and one check, not one per chat.

    Attributes:
        endpoint: The settings recorded in the run's configuration (URL credentials redacted).
    """

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str | None = None,
        concurrency: int = 4, timeout_s: float = 60.0, max_retries: int = 6,
        call_deadline_s: float | None = 180.0,
        clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
    ) -> None:  # fmt: skip
        from agent.models.openai.client import endpoint, sync_client

        url, key = endpoint(base_url, api_key)
        if not url:
            raise RerankError("openai: rerankers need --base-url (or OPENAI_BASE_URL)")
        self.url = redact_url(url)
        self.identity = f"openai:{model}@{self.url}"
        self.model = model
        self.concurrency = max(1, concurrency)
        self.timeout_s = timeout_s
        self.call_deadline_s = call_deadline_s
        self.retry = RetryPolicy.for_max_retries(max_retries)
        self.endpoint: dict[str, Any] | None = {
            "base_url": self.url, "request_timeout_s": timeout_s, "max_retries": max_retries,
            "call_deadline_s": call_deadline_s,
        }  # fmt: skip
        self.client = sync_client(url, key, timeout_s=timeout_s)
        self._clock = clock
        self._sleep = sleep
        self._probe_s = min(PROBE_TIMEOUT_S, timeout_s)
        self._answered = False  # the endpoint has answered a chat of this scorer

    def _one(self, chat: Messages) -> float:
        import openai

        from agent.models.openai.client import call_with_retries

        deadline = None if self.call_deadline_s is None else self._clock() + self.call_deadline_s

        def left() -> float:
            return float("inf") if deadline is None else deadline - self._clock()

        def call() -> Any:
            if left() <= 0:
                raise _DeadlinePassed
            try:
                completion = self.client.chat.completions.create(
                    model=self.model, messages=chat, max_tokens=1, temperature=0.0,  # type: ignore[arg-type]
                    logprobs=True, top_logprobs=20, timeout=min(self.timeout_s, left()),
                )  # fmt: skip
            except openai.APITimeoutError:
                self._check_alive()
                raise
            self._answered = True
            return completion

        try:
            completion = call_with_retries(
                call, self.retry, sleep=lambda delay: self._sleep(max(min(delay, left()), 0.0))
            )
        except (_DeadlinePassed, openai.APITimeoutError):
            raise self._no_answer() from None
        except openai.APIConnectionError as error:
            raise RerankError(f"cannot reach the reranker endpoint {self.url}: {error}") from error
        except openai.APIStatusError as error:
            raise RerankError(
                f"the reranker endpoint answered {error.status_code}: {error.message}"
            ) from error
        return yes_probability(completion)

    def _check_alive(self) -> None:
        """After a timeout: raise at once for an endpoint that accepts and never answers.

        The agent's adapter decides alike (agent/models/openai/model.py): one that answered
        before is taken as busy (a single-slot server queues GET /models behind its requests)
        and retried within the call deadline.
        """
        if self._answered or asyncio.run(self._answers()):
            return
        where = f"reranker {self.model!r} at {self.url}"
        raise silent_error(where, self.url, self.timeout_s, self._probe_s)

    async def _answers(self) -> bool:
        client = async_client(str(self.client.base_url), self.client.api_key, timeout_s=1.0)
        try:
            return await endpoint_answers(client, timeout_s=self._probe_s)
        finally:
            await client.close()

    def _no_answer(self) -> RerankError:
        deadline = "none" if self.call_deadline_s is None else f"{self.call_deadline_s:g}s"
        return RerankError(
            f"the reranker endpoint {self.url} gave no answer in time (--request-timeout "
            f"{self.timeout_s:g}s, --max-retries {self.retry.max_retries}, --call-deadline "
            f"{deadline}); check that the server is up and not stuck, or raise those flags "
            "for a slow one"
        )

    def score(self, chats: Sequence[Messages]) -> list[float]:
        """P(yes) per chat, `concurrency` requests in flight; the first failure stops all."""
        failed = threading.Event()

        def guarded(chat: Messages) -> float:
            if failed.is_set():  # only chats after the failed one are skipped: it raises first
                raise _Skipped
            try:
                return self._one(chat)
            except BaseException:
                failed.set()
                raise

        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            return list(pool.map(guarded, chats))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


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
