"""`ark` in a child process whose agents stop for good after given questions (not a test file).

The kill and Ctrl-C tests need the run to be mid-way when the signal lands, on any machine
load. This entry point runs the real `ark` command, but the model of every agent it builds
answers only the questions listed in $ARK_TEST_ANSWERABLE (a JSON list); any other question
prints `blocked` on stderr and waits forever, so the run cannot get past them by itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import agent.factory
from agent.models.base import Message, ModelReply
from cli.app import main as ark_main

ANSWERABLE_ENV = "ARK_TEST_ANSWERABLE"


class GatedModel:
    """Delegates to `inner` for answerable questions; blocks forever on the others."""

    def __init__(self, inner: Any, answerable: set[str]) -> None:
        self.inner = inner
        self.name = inner.name
        self.answerable = answerable

    async def generate(
        self, messages: list[Message], tools: list[dict[str, Any]], **kw: Any
    ) -> ModelReply:
        question = next(m["content"] for m in messages if m.get("role") == "user")
        if question not in self.answerable:
            print("blocked", file=sys.stderr, flush=True)
            await asyncio.Event().wait()
        reply: ModelReply = await self.inner.generate(messages, tools, **kw)
        return reply


def main() -> None:
    """Run `ark` with gated models."""
    answerable = set(json.loads(os.environ[ANSWERABLE_ENV]))
    make_agent = agent.factory.make_agent

    def gated(*args: Any, **kwargs: Any) -> Any:
        built = make_agent(*args, **kwargs)
        built.model = GatedModel(built.model, answerable)
        return built

    agent.factory.make_agent = gated  # type: ignore[assignment]
    sys.argv[0] = "ark"
    ark_main()


if __name__ == "__main__":
    main()
