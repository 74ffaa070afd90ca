"""Yes/no relevance scorers: their interface and the local transformers model (+ LoRA adapter).

The served scorer (an OpenAI-compatible endpoint) is rank/rerank/served.py, and
rank/rerank/scorer.py picks one for a -m spec. Both score a (query, candidate) chat by P(yes) =
softmax over the "yes" and "no" answer tokens of the first generated token, as GRASP's
reranker does. Locally the logit margin
``logsumexp(yes tokens) - logsumexp(no tokens)`` is also what the listwise training in
distill/reranker_train.py optimises, so a trained adapter is scored exactly as it learned.

Model specs are the agent's (agent/models/registry.py): ``hf:PATH`` for a local model
directory, a ``.gguf`` file (dequantised once into the shared cache) or a directory written by
``ark distill reranker`` (base + LoRA adapter), loaded by the one local loader
(agent/models/hf/loader.py); ``openai:MODEL`` (or a bare name with a base URL) for an endpoint.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent.models.hf.loader import ADAPTER_CONFIG, adapter_base
from graphs.errors import ArkError

logger = logging.getLogger(__name__)

YES_VARIANTS = ("yes", " yes", "Yes", " Yes", "YES")
NO_VARIANTS = ("no", " no", "No", " No", "NO")
ADAPTER_RECORD = "ark_reranker.json"

Messages = list[dict[str, str]]


class RerankError(ArkError):
    """A reranker model cannot be loaded or cannot score (the message says how to fix it)."""


class Scorer(Protocol):
    """Scores chats by P(yes); `identity` names the model in cache keys."""

    identity: str
    endpoint: dict[str, Any] | None
    """The served endpoint's settings as recorded in config.json (None: a local model)."""

    def score(self, chats: Sequence[Messages]) -> list[float]:
        """P(yes) for every chat, in order."""
        ...


@dataclass(frozen=True)
class ModelSource:
    """A local model path: a model or adapter directory, or a GGUF file (or a folder of one)."""

    path: str

    @classmethod
    def parse(cls, spec: str) -> ModelSource:
        """A local path as written (an `hf:` prefix is accepted); it must exist."""
        path = spec.removeprefix("hf:")
        if not Path(path).expanduser().exists():
            raise RerankError(
                f"no such model directory or .gguf file: {path}; pass a local model directory, "
                "a .gguf file or an adapter written by `ark distill reranker`"
            )
        return cls(path)


def load_causal_lm(
    source: ModelSource, *, base: str | None = None, dtype: Any = None
) -> tuple[Any, Any]:
    """(tokenizer, model) of `source` through the shared loader, tokenizer left-padded.

    Args:
        source: The model, adapter or GGUF path.
        base: An adapter's base model, overriding its adapter_config.json.
        dtype: torch dtype (float32 by default: scores stay comparable across devices).

    Raises:
        ModelError: the distill extra is missing or the model cannot be loaded.
    """
    from agent.models.hf.loader import load_causal_lm as load_local

    if dtype is None:
        import torch

        dtype = torch.float32
    loaded = load_local(source.path, base=base, dtype=dtype)
    tokenizer = loaded.tokenizer
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, loaded.model


def answer_token_ids(tokenizer: Any) -> tuple[list[int], list[int]]:
    """Single-token ids of the yes and no answers.

    Raises:
        RerankError: the tokenizer has no single token for "yes" or for "no".
    """

    def single(variants: Sequence[str]) -> list[int]:
        ids = []
        for text in variants:
            encoded = tokenizer.encode(text, add_special_tokens=False)
            if len(encoded) == 1 and encoded[0] not in ids:
                ids.append(int(encoded[0]))
        return ids

    yes, no = single(YES_VARIANTS), single(NO_VARIANTS)
    if not yes or not no:
        raise RerankError(
            "the tokenizer has no single token for 'yes' or 'no'; use a base model whose "
            "vocabulary has them (any chat LM does)"
        )
    return yes, no


def chat_text(tokenizer: Any, messages: Messages) -> str:
    """The chat rendered up to the assistant's first token (plain fallback without template)."""
    if getattr(tokenizer, "chat_template", None):
        return str(
            tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True, enable_thinking=False
            )
        )
    turns = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
    return "\n\n".join([*turns, "Assistant:"])


def yes_no_margin(model: Any, batch: Any, yes: list[int], no: list[int]) -> Any:
    """logsumexp(yes) - logsumexp(no) of the next token, one per row of a left-padded batch."""
    import torch

    mask = batch["attention_mask"]
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    # logits_to_keep=1: only the answer position goes through the vocabulary projection.
    logits = model(
        input_ids=batch["input_ids"], attention_mask=mask, position_ids=positions,
        logits_to_keep=1,
    ).logits[:, -1, :]  # fmt: skip
    return torch.logsumexp(logits[:, yes], -1) - torch.logsumexp(logits[:, no], -1)


class LocalScorer:
    """P(yes) from a local causal LM, optionally with a LoRA adapter, in batches.

    The weights load on the first `score` call (or `load`), so a rerun answered entirely
    from the cache never loads the model.
    """

    endpoint: dict[str, Any] | None = None

    def __init__(self, spec: str, *, batch_size: int = 8, max_length: int = 1024) -> None:
        if batch_size < 1:
            raise RerankError(f"batch size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.max_length = max_length
        self.spec = spec
        adapter = Path(spec) / ADAPTER_CONFIG
        self.base: str | None = None
        if adapter.is_file():
            record_path = Path(spec) / ADAPTER_RECORD
            record = json.loads(record_path.read_text()) if record_path.is_file() else {}
            self.base = str(record.get("base_model") or adapter_base(adapter))
            self.identity = f"{self.base}+lora:{Path(spec).resolve()}"
        else:
            ModelSource.parse(spec)  # a missing path fails here, before any work
            self.identity = str(Path(spec).resolve()) if Path(spec).exists() else spec
        self.model: Any = None

    def load(self) -> None:
        """Load the tokenizer and weights (idempotent).

        Raises:
            RerankError: the model cannot be loaded or has no yes/no tokens.
        """
        if self.model is not None:
            return
        # An adapter is merged once at load: scoring then costs what the base costs.
        self.tokenizer, model = load_causal_lm(ModelSource(self.spec), base=self.base)
        self.tokenizer.truncation_side = "left"  # keep the answer position, as in training
        self.yes, self.no = answer_token_ids(self.tokenizer)
        self.model = model.eval()

    def score(self, chats: Sequence[Messages]) -> list[float]:
        """P(yes) per chat; batches are formed from chats of similar length."""
        import torch

        self.load()
        texts = [chat_text(self.tokenizer, chat) for chat in chats]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        scores = [0.0] * len(texts)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                batch = self.tokenizer(
                    [texts[i] for i in rows], return_tensors="pt", padding=True,
                    add_special_tokens=False, truncation=True, max_length=self.max_length,
                )  # fmt: skip
                margin = yes_no_margin(self.model, batch, self.yes, self.no)
                for row, value in zip(rows, torch.sigmoid(margin).tolist(), strict=True):
                    scores[row] = float(value)
        return scores
