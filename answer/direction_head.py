"""The learned direction classifier (SARG Sec. 3.4): a logistic head over the sentence encoder.

The paper distils a teacher LLM's labels into DistilBERT with SetFit. Here the student is a
multinomial logistic regression over the all-MiniLM-L6-v2 vectors SARG already computes for
the question (one matrix product per question), trained by `ark distill direction-head`
from labelled questions. The head ships with the project (`answer/direction_head.json`,
its training data and held-out accuracy inside) and is the default classifier.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from answer.encoding import Embedder
from answer.errors import AnswerConfigError
from answer.query_graph import Direction

SHIPPED_HEAD = Path(__file__).with_name("direction_head.json")
HEAD_FORMAT = 1


@dataclass(frozen=True)
class DirectionHead:
    """Weights of the logistic head and how they were made.

    Attributes:
        classes: The directions, in the order of the weight rows.
        weights: float[len(classes), dim].
        bias: float[len(classes)].
        encoder: Name of the encoder the vectors came from (dims must match at load).
        about: Training data, held-out accuracy per class and settings, as trained.
    """

    classes: tuple[Direction, ...]
    weights: np.ndarray
    bias: np.ndarray
    encoder: str
    about: dict[str, Any] = field(default_factory=dict)

    @property
    def dim(self) -> int:
        """Width of the vectors the head reads."""
        return int(self.weights.shape[1])

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """float[n, len(classes)]: the softmax of the head over `vectors` (float[n, dim])."""
        logits = np.asarray(vectors, dtype=np.float64) @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))

    def predict(self, vectors: np.ndarray) -> list[Direction]:
        """The most probable direction of each vector."""
        best = self.probabilities(vectors).argmax(axis=1)
        return [self.classes[int(i)] for i in best]

    def save(self, path: Path) -> None:
        """Write the head as JSON (small: 3 × 384 numbers for MiniLM)."""
        record = {
            "format": HEAD_FORMAT,
            "classes": [c.value for c in self.classes],
            "encoder": self.encoder,
            "weights": np.round(self.weights, 7).tolist(),
            "bias": np.round(self.bias, 7).tolist(),
            "about": self.about,
        }
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> DirectionHead:
        """Read a head written by `save`.

        Raises:
            AnswerConfigError: the file is missing or not a direction head.
        """
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            classes = tuple(Direction(c) for c in record["classes"])
            weights = np.asarray(record["weights"], dtype=np.float64)
            bias = np.asarray(record["bias"], dtype=np.float64)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise AnswerConfigError(
                f"cannot read the direction head {path}: {error}; train one with "
                "`ark distill direction-head`, or use --direction rule"
            ) from error
        if weights.ndim != 2 or weights.shape[0] != len(classes) or bias.shape != (len(classes),):
            raise AnswerConfigError(f"{path} is not a direction head (shapes do not agree)")
        return cls(classes, weights, bias, str(record.get("encoder", "")), record.get("about", {}))


class LearnedDirection:
    """The trained head over the question's encoder vector (the paper's distilled student)."""

    def __init__(self, head: DirectionHead, encoder: Embedder) -> None:
        """Check the encoder's width against the head's.

        Args:
            head: The trained head.
            encoder: The encoder it was trained over (checked by vector width).

        Raises:
            AnswerConfigError: the encoder's vectors are not as wide as the head's.
        """
        width = int(np.asarray(encoder.encode(["direction"])).shape[1])
        if width != head.dim:
            raise AnswerConfigError(
                f"the direction head reads {head.dim}-d vectors of {head.encoder}, but the "
                f"encoder gives {width}-d ones; train a head over this encoder with "
                "`ark distill direction-head --encoder DIR`, or use --direction rule"
            )
        self.head = head
        self.encoder = encoder

    def predict_many(self, questions: Sequence[str]) -> list[Direction]:
        """The direction of each question."""
        return self.head.predict(np.asarray(self.encoder.encode(list(questions))))

    async def classify(self, question: str) -> Direction:
        """The head's direction for `question`."""
        return self.predict_many([question])[0]
