"""The offline answerer: an answer read from the best chain (or top passage) with no model.

Honest and simple: the question's expected answer type is guessed from its wording; a
yes/no question is answered "yes" (the more frequent answer in HotpotQA); a year, date or
number question takes the first such span in the chain's end node, then in its evidence;
anything else is the end node's name. Without a chain, the top passage stands in for it.
A typed span is looked for in the end node's name, then in the other nodes of the chains
(end to start, best chain first), then in the chains' source texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

AnswerType = Literal["yesno", "year", "number", "entity"]

YESNO_START = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I
)
YEAR_CUE = re.compile(r"\b(?:what|which) year\b|\bwhen\b|\byear\b", re.I)
NUMBER_CUE = re.compile(r"\bhow (?:many|much|old|long|tall|far)\b", re.I)
YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
NUMBER = re.compile(r"\b\d[\d,.]*\b")


def answer_type(question: str) -> AnswerType:
    """The kind of answer the wording asks for."""
    if YESNO_START.search(question):
        return "yesno"
    if NUMBER_CUE.search(question):
        return "number"
    if YEAR_CUE.search(question):
        return "year"
    return "entity"


def read_answer(question: str, end_label: str, evidence: Sequence[str]) -> str:
    """The answer span for `question` from a chain's end node and its evidence texts.

    Args:
        question: The question.
        end_label: The name of the chain's end node (or of the top passage).
        evidence: Texts behind the chain, most specific first.
    """
    kind = answer_type(question)
    if kind == "yesno":
        return "yes"
    pattern = YEAR if kind == "year" else NUMBER if kind == "number" else None
    if pattern is not None:
        for text in (end_label, *evidence):
            found = pattern.search(text)
            if found:
                return found.group(0)
    return end_label
