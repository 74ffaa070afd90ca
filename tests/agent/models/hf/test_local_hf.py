"""The hf: adapter on tiny Qwen3 models saved to disk and loaded through from_pretrained."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig
from agent.models.base import ContextLengthError, Model, ModelError, ModelReply
from agent.models.hf.model import LocalHFModel, renders_string_arguments, template_messages
from agent.models.registry import load_model

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

MAX_TOKENS = 16
MARKUP = ["<tool_call>", "</tool_call>", "<think>", "</think>"]
# The chain model answers the generation prompt (ending in "assistant") with these tokens.
SEARCH_CHAIN = [
    "assistant",
    "<tool_call>",
    '{"name":',
    '"search",',
    '"arguments":',
    '{"query":',
    '"alien"}}',
    "</tool_call>",
    "<|im_end|>",
]
# Qwen2.5-style: arguments always go through tojson, so string arguments must become dicts.
TOJSON_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n# Tools\n<tools>{% for t in tools %}\n{{ t | tojson }}"
    "{% endfor %}\n</tools><|im_end|>\n{% endif %}"
    "{%- for m in messages %}"
    "{%- if m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n"
    "</tool_response><|im_end|>\n"
    "{%- else %}<|im_start|>{{ m.role }}\n{{ m.content }}"
    "{%- for c in m.tool_calls or [] %}\n<tool_call>\n"
    '{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}'
    "\n</tool_call>{% endfor %}<|im_end|>\n{% endif %}{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the graph.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Query."}},
            },
        },
    }
]
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "You search a graph."},
    {"role": "user", "content": "Who directed Alien?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "alien"}'},
            },
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": '},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": "n1 Alien (film)"},
    {"role": "tool", "tool_call_id": "call_1", "content": "bad arguments"},
]


def chain_tokenizer() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    core = Tokenizer(models.WordLevel(unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    specials = ["<unk>", "<pad>", "<|im_start|>", "<|im_end|>", *MARKUP]
    # Markup goes in as trainer "special" tokens so it splits off adjacent text; the
    # transformers wrapper does not declare it special, so decoding keeps it (as Qwen's).
    trainer = trainers.WordLevelTrainer(
        special_tokens=specials,
        show_progress=False,
    )
    words = [token for token in SEARCH_CHAIN if token not in specials]
    # (A special token repeated in the corpus would be counted again, leaving holes in the ids.)
    corpus = [" ".join(words), '"finish", system user tool # Tools <tools> </tools>']
    core.train_from_iterator(corpus, trainer=trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="<|im_end|>"
    )
    tokenizer.chat_template = TOJSON_TEMPLATE
    assert sorted(tokenizer.get_vocab().values()) == list(range(len(tokenizer)))
    return tokenizer


def wire_chain(lm_head: Any, tokenizer: Any, chain: list[str]) -> None:
    """Make token chain[i] predict chain[i + 1] (the residual stream carries only the input)."""
    ids = tokenizer.convert_tokens_to_ids(chain)
    with torch.no_grad():
        for current, following in itertools.pairwise(ids):
            lm_head.weight[:, current] = 0.0
            lm_head.weight[following, current] = 1.0


def build_chain_model(out: Path) -> Path:
    """A Qwen3 whose layers are silenced, one-hot embeddings and a wired head: greedy output
    follows SEARCH_CHAIN, so a real tool call comes out of the real generate path."""
    tokenizer = chain_tokenizer()
    width = -(-len(tokenizer) // 4) * 4
    config = transformers.Qwen3Config(
        vocab_size=len(tokenizer), hidden_size=width, intermediate_size=8, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=2, head_dim=width // 4,
        max_position_embeddings=512, tie_word_embeddings=False,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    model = transformers.Qwen3ForCausalLM(config)
    with torch.no_grad():
        model.model.embed_tokens.weight.copy_(torch.eye(len(tokenizer), width))
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.lm_head.weight.zero_()
    wire_chain(model.lm_head, tokenizer, SEARCH_CHAIN)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def build_finish_adapter(base: Path, out: Path) -> Path:
    """A LoRA adapter whose saved lm_head copy swaps the tool name `search` for `finish`."""
    model = transformers.AutoModelForCausalLM.from_pretrained(base)
    tokenizer = transformers.AutoTokenizer.from_pretrained(base)
    config = peft.LoraConfig(r=2, target_modules=["q_proj", "v_proj"], modules_to_save=["lm_head"])
    wrapped = peft.get_peft_model(model, config)
    chain = [token if token != '"search",' else '"finish",' for token in SEARCH_CHAIN]
    wire_chain(wrapped.base_model.model.lm_head.modules_to_save["default"], tokenizer, chain)
    wrapped.save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def chain_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_chain_model(tmp_path_factory.mktemp("chain") / "base")


@pytest.fixture(scope="module")
def scratch_model(tmp_path_factory: pytest.TempPathFactory) -> LocalHFModel:
    scratch = pytest.importorskip("distill.scratch")
    # The corpus holds the prompt's own text so BPE keeps the prompt short (fast on CPU).
    texts = [json.dumps(HISTORY), json.dumps(TOOLS), "# Tools <tools> function call"] * 20
    spec = scratch.ScratchSpec(vocab_size=600, hidden_size=32, intermediate_size=64)
    path = scratch.save_scratch_base(tmp_path_factory.mktemp("scratch") / "m", texts, spec)
    return LocalHFModel.load(path, max_tokens=MAX_TOKENS)


def generate(model: Model, **kw: Any) -> ModelReply:
    return asyncio.run(model.generate(HISTORY, TOOLS, **kw))


def test_chain_model_emits_a_parsed_tool_call(chain_dir: Path) -> None:
    model = LocalHFModel.load(chain_dir, max_tokens=16)
    assert isinstance(model, Model) and model.name == f"hf:{chain_dir}"
    reply = generate(model)
    assert reply.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "alien"}'},
            }
        ],
    }
    assert reply.usage is not None and reply.usage["completion_tokens"] == 8
    assert reply.usage["prompt_tokens"] > 20


@pytest.mark.parametrize("temperature", [None, 1.0])  # batched greedy, and generate
def test_turns_stop_at_the_context_window_and_a_full_one_is_an_error(
    chain_dir: Path, temperature: float | None
) -> None:
    model = LocalHFModel.load(chain_dir, max_tokens=16)
    assert model.context_length == 512  # max_position_embeddings of the config
    prompt = len(model.prompt_ids(HISTORY, TOOLS))
    model.context_length = prompt + 3
    reply = generate(model, temperature=temperature, seed=1)
    assert reply.usage is not None and reply.usage["completion_tokens"] == 3
    model.context_length = prompt
    with pytest.raises(ContextLengthError, match=f"{prompt} tokens.*--max-steps"):
        generate(model, temperature=temperature, seed=1)


def test_tojson_templates_get_dict_arguments(chain_dir: Path) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(chain_dir)
    assert not renders_string_arguments(tokenizer)
    prompt = tokenizer.apply_chat_template(
        template_messages(HISTORY, decode_arguments=True), tools=TOOLS, tokenize=False
    )
    assert '"arguments": {"query": "alien"}}' in prompt
    assert '"arguments": "{\\"query\\": "}' in prompt  # malformed stays a string
    assert "None" not in prompt


def test_template_messages_copies_and_converts() -> None:
    prepared = template_messages(HISTORY, decode_arguments=True)
    calls = prepared[2]["tool_calls"]
    assert calls[0]["function"]["arguments"] == {"query": "alien"}
    assert calls[1]["function"]["arguments"] == '{"query": '
    assert prepared[2]["content"] == ""
    assert HISTORY[2]["tool_calls"][0]["function"]["arguments"] == '{"query": "alien"}'
    kept = template_messages(HISTORY, decode_arguments=False)
    assert kept[2]["tool_calls"] == HISTORY[2]["tool_calls"]


def test_peft_adapter_loads_on_its_base(chain_dir: Path, tmp_path: Path) -> None:
    adapter = build_finish_adapter(chain_dir, tmp_path / "adapter")
    assert json.loads((adapter / "adapter_config.json").read_text())["base_model_name_or_path"]
    model = load_model(AgentConfig(model=f"hf:{adapter}", max_tokens=16))
    assert isinstance(model, LocalHFModel)
    [call] = generate(model).message["tool_calls"]
    assert call["function"] == {"name": "finish", "arguments": '{"query": "alien"}'}


def test_adapter_without_base_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA"}))
    with pytest.raises(ModelError, match="base_model_name_or_path"):
        LocalHFModel.load(tmp_path)


def test_missing_distill_extra_says_how_to_install(
    chain_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(ModelError, match=r"pip install 'ark-kg\[distill\]'"):
        LocalHFModel.load(chain_dir)


def test_tokenizer_without_chat_template_is_rejected() -> None:
    class Bare:
        chat_template = None

    with pytest.raises(ModelError, match="no chat template"):
        LocalHFModel(object(), Bare(), name="hf:x")


@pytest.mark.parametrize("temperature", [None, 1.5])
def test_random_model_garbage_is_still_a_well_formed_turn(
    scratch_model: LocalHFModel, temperature: float | None
) -> None:
    assert renders_string_arguments(scratch_model._tokenizer)
    reply = generate(scratch_model, temperature=temperature, seed=7)
    message = reply.message
    assert message["role"] == "assistant"
    assert set(message) <= {"role", "content", "tool_calls"}
    assert message["content"] is None or isinstance(message["content"], str)
    for index, call in enumerate(message.get("tool_calls", []), start=2):
        assert call["id"] == f"call_{index}" and call["type"] == "function"
        assert isinstance(call["function"]["name"], str)
        assert isinstance(call["function"]["arguments"], str)
    assert reply.usage is not None and 1 <= reply.usage["completion_tokens"] <= MAX_TOKENS


def test_seeded_sampling_is_reproducible_under_concurrency(scratch_model: LocalHFModel) -> None:
    async def three() -> list[ModelReply]:
        calls = [scratch_model.generate(HISTORY, TOOLS, temperature=1.0, seed=s) for s in (1, 2, 1)]
        return list(await asyncio.gather(*calls))

    first, second, again = asyncio.run(three())
    assert first.message == again.message
    assert generate(scratch_model, temperature=1.0, seed=2).message == second.message


def test_kv_reuse_keeps_greedy_outputs_identical(scratch_model: LocalHFModel) -> None:
    """Three turns of two trajectories through `generate` (the path of sampled turns): reused
    caches give token-identical greedy turns."""
    plain = LocalHFModel(
        scratch_model._model, scratch_model._tokenizer, name="plain", max_tokens=MAX_TOKENS,
        reuse_kv=False,
    )  # fmt: skip
    cached = LocalHFModel(
        scratch_model._model, scratch_model._tokenizer, name="cached", max_tokens=MAX_TOKENS
    )
    assert plain.prefix_cache is None and cached.prefix_cache is not None
    for question in ("who directed alien", "which films did ridley scott direct"):
        histories = {"plain": [*HISTORY[:-1], {"role": "user", "content": question}]}
        histories["cached"] = list(histories["plain"])
        for turn in range(3):
            replies = {}
            for label, model in (("plain", plain), ("cached", cached)):
                reply = asyncio.run(model.generate(histories[label], TOOLS, temperature=0))
                replies[label] = reply
                histories[label] += [
                    {**reply.message, "content": reply.message["content"] or ""},
                    {"role": "user", "content": f"turn {turn} result"},
                ]
            assert replies["cached"].message == replies["plain"].message
            assert replies["cached"].usage == replies["plain"].usage
    # Later turns and the second question's shared prefix were not recomputed.
    assert cached.prefix_cache.reused_tokens > cached.prefix_cache.computed_tokens


def test_load_tokenizer_is_the_full_loaders_tokenizer(chain_dir: Path, tmp_path: Path) -> None:
    """The reranker's training data counts fields in the tokenizer the model loads with."""
    from agent.models.hf.loader import LocalModelError, load_causal_lm, load_tokenizer

    adapter = build_finish_adapter(chain_dir, tmp_path / "adapter")
    for path in (chain_dir, adapter):
        alone, full = load_tokenizer(path), load_causal_lm(path).tokenizer
        text = "Which films did Ridley Scott direct?"
        assert alone(text)["input_ids"] == full(text)["input_ids"]
        assert alone.chat_template == full.chat_template
    with pytest.raises(LocalModelError, match="not a local model"):
        load_tokenizer(tmp_path / "nothing-here")


def test_a_schema_is_enforced_while_decoding_even_on_a_random_model(
    scratch_model: LocalHFModel,
) -> None:
    """An untrained model under the grammar mask (llguidance) still writes fitting JSON."""
    pytest.importorskip("llguidance")
    import jsonschema

    from agent.models.structured import StructuredMode, StructuredStats, ask_structured

    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": ["forward", "backward", "none"]}},
        "required": ["label"],
        "additionalProperties": False,
    }
    ask = [{"role": "user", "content": "Label it."}]
    unconstrained = asyncio.run(scratch_model.generate(ask, []))
    with pytest.raises(ValueError):  # garbage without the grammar
        json.loads(str(unconstrained.message.get("content")))
    assert scratch_model.takes_response_format()
    stats = StructuredStats()
    replies = [
        asyncio.run(
            ask_structured(scratch_model, ask, schema, name="label", stats=stats, max_tokens=48)
        )
        for _ in range(2)
    ]
    for reply in replies:
        assert reply.mode is StructuredMode.schema and not reply.repaired, reply
        jsonschema.validate(reply.value, schema)
    assert stats.by_mode == {"schema": 2} and stats.failed == 0


def test_action_turns_give_an_untrained_model_valid_tool_calls(
    scratch_model: LocalHFModel,
) -> None:
    """Under the action schema even random weights call an offered tool with fitting args."""
    pytest.importorskip("llguidance")
    import jsonschema

    from agent.models.action_turns import ActionTurns, ToolCallMode

    tools = [
        *TOOLS,
        {"type": "function", "function": {"name": "finish", "description": "Stop.",
                                          "parameters": {"type": "object", "properties": {},
                                                         "additionalProperties": False}}},
    ]  # fmt: skip
    tools[0] = json.loads(json.dumps(tools[0]))
    search = tools[0]["function"]["parameters"]
    search.update(required=["query"], additionalProperties=False)
    search["properties"]["query"]["maxLength"] = 8
    roomy = LocalHFModel(  # the same weights, room for a whole action
        scratch_model._model, scratch_model._tokenizer, name="hf:scratch", max_tokens=96
    )
    model = ActionTurns(roomy, ToolCallMode.action)
    reply = asyncio.run(model.generate(HISTORY[:2], tools))
    assert reply.turn_as == "action" and model.stats.failed == 0, reply
    assert model.stats.repaired == 0 and model.stats.by_mode == {"schema": 1}
    function = reply.message["tool_calls"][0]["function"]
    offered = {tool["function"]["name"]: tool for tool in tools}
    assert function["name"] in offered
    jsonschema.validate(
        json.loads(function["arguments"]), offered[function["name"]]["function"]["parameters"]
    )
