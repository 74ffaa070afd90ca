"""Traversal-direction classifiers (SARG Sec. 3.4): a rule default and an LLM option.

The paper distils a GPT-4o-mini teacher into a DistilBERT student (Eq. 4); ARK's trained
student is the logistic head of answer/direction_head.py. `RuleDirection` reads the
question's wording; `LLMDirection` asks the answering model, and falls back to the rule on an
unusable reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from agent.models.base import Model
from answer.query_graph import Direction
from prompts.loader import prompt_template

DIRECTION_PROMPT = "sarg_direction.md.j2"

BACKWARD_CUES = (
    r"\bwhy\b",
    r"\bwhat (?:causes?|caused|leads? to|led to|results? in|resulted in|triggers?|explains?)\b",
    r"\bhow come\b",
    r"\b(?:cause|causes|reason|reasons|origin|source|explanation) (?:of|for|behind)\b",
    r"\bdue to what\b",
)
FORWARD_CUES = (
    r"\bwhat (?:happens|happened|follows|followed)\b",
    r"\b(?:effects?|consequences?|impacts?|results?|outcomes?) of\b",
    r"\bwhat (?:does|did|do|will|would|can|could) .{1,60}? (?:lead to|cause|result in|affect)\b",
    r"\bhow (?:does|did|do|will|would|can|could) .{1,60}? (?:affect|impact|influence|change)\b",
    r"\bleads? to what\b",
)


class DirectionClassifier(Protocol):
    """Predicts the traversal direction m for a question (Eq. 4)."""

    async def classify(self, question: str) -> Direction:
        """The direction to traverse for `question`."""
        ...


@dataclass(frozen=True)
class FixedDirection:
    """Always the same direction (the blind-bidirectional ablation, or a forced one)."""

    direction: Direction

    async def classify(self, question: str) -> Direction:
        """`direction`, whatever the question."""
        return self.direction


class RuleDirection:
    """Wording rules: asking for a cause walks backward, for an effect forward, else both.

    "Why ..." / "what caused ..." look for what precedes the named state (predecessors);
    "what happens ..." / "effects of ..." for what follows it (successors). Factoid and
    bridge questions ("In what year was the university where X taught founded?") name no
    causal direction and traverse both ways.
    """

    def __init__(self) -> None:
        self._backward = [re.compile(p, re.IGNORECASE) for p in BACKWARD_CUES]
        self._forward = [re.compile(p, re.IGNORECASE) for p in FORWARD_CUES]

    def predict(self, question: str) -> Direction:
        """The direction the wording asks for (synchronous)."""
        if any(p.search(question) for p in self._backward):
            return Direction.backward
        if any(p.search(question) for p in self._forward):
            return Direction.forward
        return Direction.bidirectional

    async def classify(self, question: str) -> Direction:
        """See `predict`."""
        return self.predict(question)


class LLMDirection:
    """Asks `model` to label the question forward / backward / bidirectional.

    Attributes:
        last_fallback: True when the last reply named no direction and the rule answered.
    """

    def __init__(self, model: Model, *, fallback: RuleDirection | None = None) -> None:
        self.model = model
        self.fallback = fallback or RuleDirection()
        self.last_fallback = False
        self._template = prompt_template(DIRECTION_PROMPT)

    async def classify(self, question: str) -> Direction:
        """The model's label; the rule's when the reply names none of the three."""
        prompt = self._template.render(question=question)
        reply = await self.model.generate(
            [{"role": "user", "content": prompt}], [], temperature=0.0
        )
        label = parse_direction(reply.message.get("content") or "")
        self.last_fallback = label is None
        return label if label is not None else self.fallback.predict(question)


def parse_direction(text: str) -> Direction | None:
    """The first of forward / backward / bidirectional named in `text`, if any."""
    found = re.search(r"\b(bidirectional|forward|backward)\b", text, re.IGNORECASE)
    return Direction(found.group(1).lower()) if found else None
