"""Constrained decoding for in-process models: a JSON schema enforced token by token.

`LocalHFModel.generate_structured` masks, at every step, the tokens that cannot continue a
JSON value fitting the schema, so the reply is valid by construction, as a schema-enforcing
server's is. The grammar engine is llguidance (the one llama.cpp, vLLM and transformers'
own structured generation use; no dependencies of its own). xgrammar was the other
candidate; on Linux x86_64 it requires triton (about 1 GB), so it stays out of the extra.

Each schema is compiled once per tokenizer and kept; a `GrammarMask` is made per generation
(the matcher holds the parse state). Whitespace between JSON tokens is not allowed: a small
model free to write it can spend its whole token budget on blank lines.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Collection
from typing import Any

import numpy as np


def grammars_available() -> bool:
    """Whether llguidance is installed (the `distill` extra brings it)."""
    return importlib.util.find_spec("llguidance") is not None


class SchemaGrammars:
    """JSON schemas compiled into grammars over one tokenizer's vocabulary, each once.

    Args:
        tokenizer: The model's fast transformers tokenizer.
        vocab_size: The width of the model's logits (may exceed the tokenizer's length).
        stop_ids: Token ids that end a generation (allowed once the JSON is complete).
    """

    def __init__(self, tokenizer: Any, vocab_size: int, stop_ids: Collection[int]) -> None:
        from llguidance.hf import from_tokenizer

        stops = sorted(stop_ids)
        self._tokenizer = from_tokenizer(tokenizer, n_vocab=vocab_size, eos_token=stops or None)
        self._grammars: dict[str, str] = {}
        self.vocab_size = vocab_size

    def mask(self, schema: dict[str, Any]) -> GrammarMask:
        """A fresh logits processor holding one generation to `schema`.

        Raises:
            ValueError: the schema cannot be compiled (the message says why).
        """
        from llguidance import LLMatcher

        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            grammar = LLMatcher.grammar_from_json_schema(
                key, defaults={"whitespace_flexible": False}
            )
            self._grammars[key] = grammar
        matcher = LLMatcher(self._tokenizer, grammar, log_level=0)
        if matcher.is_error():
            raise ValueError(f"the JSON schema cannot be enforced: {matcher.get_error()}")
        return GrammarMask(matcher, self.vocab_size)


class GrammarMask:
    """A transformers logits processor: tokens the grammar does not allow next get -inf.

    transformers calls it before each token is chosen, with the sequence so far; from the
    second call on, the last token of that sequence is the one chosen after the previous
    call, and the matcher consumes it first. Batches of one sequence (the adapter's turns).
    """

    def __init__(self, matcher: Any, vocab_size: int) -> None:
        self.matcher = matcher
        self.vocab_size = vocab_size
        self.started = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        """Mask `scores` (shape [1, vocab]) to the tokens the grammar allows next."""
        import torch

        if self.started:
            self.matcher.consume_token(int(input_ids[0, -1]))
        self.started = True
        bits = np.frombuffer(self.matcher.compute_bitmask(), dtype=np.uint8)
        allowed = np.unpackbits(bits, bitorder="little")[: scores.shape[-1]].astype(bool)
        blocked = np.ones(scores.shape[-1], dtype=bool)
        blocked[: allowed.size] = ~allowed
        return scores.masked_fill(torch.from_numpy(blocked).to(scores.device), float("-inf"))
