"""Model adapter for a local transformers model, PEFT adapter or merged student (`hf:PATH`)."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

from agent.models.base import ContextLengthError, Message, ModelError, ModelReply
from agent.models.hf.chat_messages import renders_string_arguments, template_messages
from agent.models.hf.chat_template import (
    ChatTemplateError,
    missing_template_message,
    turn_end_ids,
)
from agent.models.hf.constrained import SchemaGrammars, grammars_available
from agent.models.hf.kv_reuse import PrefixCache
from agent.models.hf.loader import load_causal_lm
from agent.models.toolcall_parse import (
    THINK_CLOSE,
    THINK_OPEN,
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    count_tool_calls,
    parse_tool_call_text,
)

logger = logging.getLogger(__name__)

_PARSER_TAGS = frozenset({TOOL_CALL_OPEN, TOOL_CALL_CLOSE, THINK_OPEN, THINK_CLOSE})


class LocalHFModel:
    """A causal LM run in-process with transformers; tool calls parsed from its text.

    One model object is shared by all agents: each turn runs `generate` in a worker thread
    under a lock, starting from the longest KV cache kept from an earlier turn that prefixes
    its prompt (`PrefixCache`: the trajectory's previous turn, or the system prompt, tools
    and question the agents share). For throughput serve the model with llama.cpp's server
    or vLLM and use `openai:` (README, "Run a local model").
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str,
        max_tokens: int = 1024,
        reuse_kv: bool = True,
        kv_entries: int = 8,
    ) -> None:
        """Wrap an already loaded model and tokenizer (use `load` to read them from disk).

        Args:
            model: A transformers causal LM (or a PEFT-wrapped one), in eval mode.
            tokenizer: Its tokenizer; must carry a chat template (`load` takes one from a
                file: agent/models/hf/chat_template.py).
            name: Reported model name (`hf:PATH`).
            max_tokens: max_new_tokens per turn.
            reuse_kv: Reuse KV caches of earlier turns (same greedy outputs, less compute).
            kv_entries: Caches kept for reuse (one per live trajectory is enough).
        """
        if not getattr(tokenizer, "chat_template", None):
            raise ChatTemplateError(
                f"{name}: the tokenizer has no chat template; save the model's template as "
                "chat_template.jinja in the model directory (tokenizer.chat_template = ...; "
                "tokenizer.save_pretrained(PATH)) or set tokenizer.chat_template"
            )
        self.name = name
        self.max_tokens = max_tokens
        self._model = model
        self._tokenizer = tokenizer
        self.context_length: int | None = getattr(
            getattr(model, "config", None), "max_position_embeddings", None
        )
        self._lock = threading.Lock()
        self.prefix_cache = PrefixCache(kv_entries) if reuse_kv else None
        self._cache_field = _cache_field()
        self._eos_ids = _eos_ids(model, tokenizer) | turn_end_ids(tokenizer)
        eos_texts = tokenizer.convert_ids_to_tokens(sorted(self._eos_ids))
        self._stop_texts = [text for text in eos_texts if isinstance(text, str)]
        self._decode_arguments = not renders_string_arguments(tokenizer)
        self._strip_texts = [
            token for token in tokenizer.all_special_tokens if token not in _PARSER_TAGS
        ]
        self._grammars: SchemaGrammars | None = None
        self._constrains = grammars_available()

    def _model_error(self, exc: Exception) -> Exception:
        """A CUDA out-of-memory becomes a ModelError (caches dropped); other errors stay."""
        import torch

        if not isinstance(exc, torch.cuda.OutOfMemoryError):
            return exc
        if self.prefix_cache is not None:
            self.prefix_cache.clear()
        return ModelError(
            f"{self.name}: out of memory while generating; lower max_tokens, the "
            "number of agents or max_steps"
        )

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        max_tokens: int = 1024,
        device: str | None = None,
        gguf_cache: Path | None = None,
        chat_template: str | Path | None = None,
    ) -> LocalHFModel:
        """Load `path` with the shared loader (agent/models/hf/loader.py).

        `path` is a model directory, a PEFT adapter directory (merged on load; its base is
        read from adapter_config.json) or a `.gguf` file (dequantised once into the cache
        training uses, then loaded from there).

        Args:
            path: Directory with config.json or adapter_config.json, or a .gguf file.
            max_tokens: max_new_tokens per turn.
            device: torch device; None picks cuda when available, else cpu.
            gguf_cache: Where a GGUF file is dequantised (default: the shared cache).
            chat_template: A Jinja chat template file replacing the model's own; None takes
                the model's, else one kept beside it (`NAME.jinja` or `chat_template.jinja`
                next to a GGUF file, `chat_template.jinja` in a model directory).

        Raises:
            ModelError: The distill extra is missing, or the files cannot be loaded.
            ChatTemplateError: The model has no chat template and none was supplied (the
                message says where to put one), or the file is not a template.
        """
        loaded = load_causal_lm(
            path, device=device, gguf_cache=gguf_cache, chat_template=chat_template
        )
        if not getattr(loaded.tokenizer, "chat_template", None):
            raise ChatTemplateError(missing_template_message(Path(path).expanduser()))
        name = f"hf:{Path(path).expanduser()}"
        return cls(loaded.model, loaded.tokenizer, name=name, max_tokens=max_tokens)

    async def generate(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> ModelReply:
        """Render the chat template, generate in a worker thread, parse `<tool_call>` blocks.

        Greedy when temperature is None or 0; sampling seeded through torch when `seed` is set.
        """
        return await asyncio.to_thread(self._generate_sync, messages, tools, temperature, seed)

    def _generate_sync(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float | None,
        seed: int | None,
    ) -> ModelReply:
        import torch

        ids = self.prompt_ids(messages, tools)
        prompt_len = len(ids)
        options = self._sampling_options(temperature) | {"max_new_tokens": self._room(prompt_len)}
        with self._lock:
            if seed is not None:
                torch.manual_seed(seed)
            try:
                sequence = self._run_generate(torch, ids, options)
            except torch.cuda.OutOfMemoryError as exc:
                raise self._model_error(exc) from exc
        new_ids = sequence[prompt_len:]
        usage = {"prompt_tokens": prompt_len, "completion_tokens": len(new_ids)}
        return ModelReply(message=self.parse_turn(new_ids, messages), usage=usage)

    def takes_response_format(self) -> bool:
        """Whether a JSON schema can be enforced while decoding (xgrammar is installed)."""
        return self._constrains

    async def generate_structured(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        *,
        name: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """One turn constrained to JSON fitting `schema` (agent/models/hf/constrained.py).

        Args:
            messages: The conversation (no tools are offered).
            schema: The JSON schema the reply must fit.
            name: The schema's name (unused in-process; the served door's field).
            temperature: Sampling temperature (greedy when None or 0).
            max_tokens: Cap on the reply (None: the model's own).
        """
        del name
        return await asyncio.to_thread(
            self._structured_sync, messages, schema, temperature, max_tokens
        )

    def _structured_sync(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        temperature: float | None,
        max_tokens: int | None,
    ) -> ModelReply:
        import torch

        ids = self.prompt_ids(messages, [])
        cap = min(max_tokens or self.max_tokens, self._room(len(ids)))
        with self._lock:
            if self._grammars is None:
                vocab = getattr(self._model.config, "vocab_size", None) or len(self._tokenizer)
                self._grammars = SchemaGrammars(self._tokenizer, vocab, self._eos_ids)
            options = self._sampling_options(temperature) | {
                "max_new_tokens": cap,
                "logits_processor": [self._grammars.mask(schema)],
            }
            try:
                sequence = self._run_generate(torch, ids, options)
            except torch.cuda.OutOfMemoryError as exc:
                raise self._model_error(exc) from exc
        new_ids = sequence[len(ids) :]
        usage = {"prompt_tokens": len(ids), "completion_tokens": len(new_ids)}
        return ModelReply({"role": "assistant", "content": self._decode(new_ids)}, usage=usage)

    def _room(self, prompt_len: int) -> int:
        """The turn's token limit, cut to what the context window has left after the prompt."""
        if not isinstance(self.context_length, int):
            return self.max_tokens
        room = self.context_length - prompt_len
        if room <= 0:
            raise ContextLengthError(
                f"{self.name}: the conversation is {prompt_len} tokens, the model's context "
                f"window {self.context_length}; lower --max-steps or --max-tokens"
            )
        return min(self.max_tokens, room)

    def prompt_ids(self, messages: list[Message], tools: list[dict[str, Any]]) -> list[int]:
        """The token ids the model continues from: the chat template with a generation prompt.

        With the template a student was trained with (saved beside it), this is exactly the
        start of that conversation's training row up to the assistant turn.
        """
        prompt = self._tokenizer.apply_chat_template(
            template_messages(messages, decode_arguments=self._decode_arguments),
            tools=tools or None,
            add_generation_prompt=True,
            tokenize=False,
        )
        return list(self._tokenizer(prompt, add_special_tokens=False)["input_ids"])

    def parse_turn(self, new_ids: list[int], messages: list[Message]) -> Message:
        """The assistant message generated tokens `new_ids` stand for, after `messages`."""
        text = self._decode(new_ids)
        return parse_tool_call_text(text, first_call_index=count_tool_calls(messages))

    def _run_generate(self, torch: Any, ids: list[int], options: dict[str, Any]) -> list[int]:
        """Generate from `ids`, starting from a reused KV cache when one holds a prefix."""
        cache, _ = self.prefix_cache.take(ids) if self.prefix_cache else (None, 0)
        input_ids = torch.tensor([ids], device=self._model.device)
        extra = {self._cache_field: cache} if cache is not None else {}
        with torch.inference_mode():
            output = self._model.generate(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                return_dict_in_generate=True,
                **extra,
                **options,
            )
        sequence: list[int] = output.sequences[0].tolist()
        returned = getattr(output, self._cache_field, None)
        if self.prefix_cache is not None and returned is not None:
            self.prefix_cache.put(sequence, returned)
        return sequence

    def _sampling_options(self, temperature: float | None) -> dict[str, Any]:
        options: dict[str, Any] = {
            "max_new_tokens": self.max_tokens,
            "eos_token_id": sorted(self._eos_ids) or None,
            "pad_token_id": self._tokenizer.pad_token_id
            if self._tokenizer.pad_token_id is not None
            else next(iter(sorted(self._eos_ids)), None),
        }
        if temperature:
            options.update(do_sample=True, temperature=float(temperature))
        else:
            options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        return options

    def _decode(self, ids: list[int]) -> str:
        text = self._tokenizer.decode(ids, skip_special_tokens=False)
        for stop in self._stop_texts:
            text = text.split(stop, 1)[0]
        for token in self._strip_texts:
            text = text.replace(token, "")
        return text


def _cache_field() -> str:
    """`generate`'s name for the KV cache: `cache` in transformers >= 5.x, else the old one."""
    try:
        from transformers.generation.utils import GenerateDecoderOnlyOutput
    except ImportError:
        return "past_key_values"
    fields = getattr(GenerateDecoderOnlyOutput, "__dataclass_fields__", {})
    return "cache" if "cache" in fields else "past_key_values"


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    generation_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    for candidate in (generation_eos, tokenizer.eos_token_id):
        if isinstance(candidate, int):
            ids.add(candidate)
        elif isinstance(candidate, (list, tuple)):
            ids.update(int(item) for item in candidate)
    return ids
