"""Answer-level metrics: exact match and token F1 with HotpotQA's official normalisation.

Ported from HotpotQA's `hotpot_evaluate_v1.py` (Yang et al., 2018): lower-case, drop
punctuation, drop the articles a/an/the, collapse whitespace; F1 is 0 when either side is
yes / no / noanswer and the two differ.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

SPECIAL_ANSWERS = ("yes", "no", "noanswer")
_PUNCTUATION = frozenset(string.punctuation)


@dataclass(frozen=True)
class AnswerScore:
    """EM and token F1 (with its precision and recall) of one prediction against one gold."""

    em: float
    f1: float
    precision: float
    recall: float


def normalize_answer(text: str) -> str:
    """HotpotQA's normalize_answer: lower, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> tuple[float, float, float]:
    """HotpotQA's f1_score: (F1, precision, recall) over normalised tokens."""
    predicted, expected = normalize_answer(prediction), normalize_answer(gold)
    if predicted != expected and (predicted in SPECIAL_ANSWERS or expected in SPECIAL_ANSWERS):
        return 0.0, 0.0, 0.0
    predicted_tokens, expected_tokens = predicted.split(), expected.split()
    same = sum((Counter(predicted_tokens) & Counter(expected_tokens)).values())
    if same == 0:
        return 0.0, 0.0, 0.0
    precision = same / len(predicted_tokens)
    recall = same / len(expected_tokens)
    return 2 * precision * recall / (precision + recall), precision, recall


def score_answer(prediction: str, golds: Iterable[str]) -> AnswerScore:
    """EM and F1 against the best-matching gold answer (HotpotQA has one; others may list more)."""
    best = AnswerScore(0.0, 0.0, 0.0, 0.0)
    for gold in golds:
        f1, precision, recall = token_f1(prediction, gold)
        candidate = AnswerScore(exact_match(prediction, gold), f1, precision, recall)
        if (candidate.em, candidate.f1) > (best.em, best.f1):
            best = candidate
    return best
