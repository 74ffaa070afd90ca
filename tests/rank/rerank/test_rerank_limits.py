"""Reranker limits: GRASP's lengths per dataset, token field cuts, the question kept, warm-up."""

from __future__ import annotations

import math
from typing import Any

import pytest

from distill.reranker_train import (
    ListwiseGroups,
    RerankerTrainConfig,
    optimizer_steps,
    warmup_steps,
)
from rank.rerank.doc import RerankPrompt, cut_text, fit_document, grasp_limits
from rank.rerank.models import chat_text


class WordTokenizer:
    """A scripted tokenizer: one token per whitespace word or newline, no chat template."""

    chat_template = None

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.words: list[str] = []

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        ids = []
        for word in text.replace("\n", " \n ").split(" "):
            if word:
                if word not in self.vocab:
                    self.vocab[word] = len(self.words)
                    self.words.append(word)
                ids.append(self.vocab[word])
        return ids

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.words[i] for i in ids).replace(" \n ", "\n")

    def __call__(self, texts: list[str], **kwargs: Any) -> dict[str, list[list[int]]]:
        limit = kwargs.get("max_length")
        encoded = [self.encode(text) for text in texts]
        return {"input_ids": [ids[-limit:] if limit else ids for ids in encoded]}


PROMPT = RerankPrompt.from_names("tiny", "paper")
QUESTION = "which paper by Ada Lovelace describes Bernoulli numbers"


def test_grasp_limits_per_dataset() -> None:
    assert grasp_limits("prime").max_length == 2048
    assert grasp_limits("stark_prime").max_field_tokens == 300
    assert (grasp_limits("mag").max_length, grasp_limits("mag").max_field_tokens) == (1024, 512)
    assert (grasp_limits("amazon").max_length, grasp_limits("films").max_field_tokens) == (
        1024,
        300,
    )
    assert grasp_limits("magazines").max_field_tokens == 300  # a word, not a substring


def test_field_cuts_count_tokens_when_a_tokenizer_is_given() -> None:
    tokenizer = WordTokenizer()
    text = "alpha, beta, gamma, delta, epsilon"
    assert cut_text(text, 2, tokenizer) == "alpha, beta, ..."
    assert cut_text(text, 5, tokenizer) == text
    assert cut_text(text, 2) == "alpha, beta, ..."  # words without a tokenizer


def test_a_long_document_is_cut_and_the_question_kept() -> None:
    tokenizer = WordTokenizer()
    document = "type: paper\nname: Notes\ntext: " + " ".join(f"w{i}" for i in range(3000))
    limit = 400
    fitted = fit_document(tokenizer, PROMPT, QUESTION, document, limit)
    chat = chat_text(tokenizer, PROMPT.messages(QUESTION, fitted))
    assert len(tokenizer.encode(chat)) <= limit
    assert len(tokenizer.encode(chat)) >= limit - 5  # cut only as far as needed
    assert QUESTION in chat
    assert PROMPT.system in chat
    assert fitted.startswith("type: paper\nname: Notes\ntext: w0 w1")
    assert fitted.endswith(" ...")
    assert fit_document(tokenizer, PROMPT, QUESTION, "type: paper", limit) == "type: paper"


def test_training_chats_fit_and_keep_the_question() -> None:
    tokenizer = WordTokenizer()
    long_doc = "type: paper\ntext: " + " ".join(f"x{i}" for i in range(2000))
    records = [{"query": QUESTION, "positives": [long_doc], "negatives": [long_doc, "type: paper"]}]
    config = RerankerTrainConfig(group_size=3, max_length=300)
    groups = ListwiseGroups(records, PROMPT, tokenizer, config)
    question = tokenizer.encode(QUESTION)
    for ids in groups[0]["input_ids"]:
        assert len(ids) <= 300
        text = tokenizer.decode(ids)
        assert tokenizer.decode(question) in text


@pytest.mark.parametrize(
    ("questions", "overrides", "steps", "warmup"),
    [
        (100, {}, 14, 1),  # 100 groups / 16 per step = 7 steps an epoch, 2 epochs
        (1000, {}, 126, 7),  # ceil(0.05 * 126)
        (1000, {"max_steps": 200}, 200, 10),
        (10, {"warmup_ratio": 0.0}, 2, 0),
    ],
)
def test_warmup_is_five_percent_of_the_optimizer_steps(
    questions: int, overrides: dict[str, Any], steps: int, warmup: int
) -> None:
    config = RerankerTrainConfig(**overrides)
    assert optimizer_steps(config, questions) == steps
    assert warmup_steps(config, questions) == warmup
    assert isinstance(warmup_steps(config, questions), int)


def test_the_integer_warmup_warms_up_on_this_transformers() -> None:
    """An int warmup_steps means the same on transformers 4.x and 5.x (a float did not)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = RerankerTrainConfig(max_steps=200)
    warm = warmup_steps(config, 1000)
    parameter = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([parameter], lr=config.learning_rate)
    schedule = transformers.get_cosine_schedule_with_warmup(optimizer, warm, 200)
    rates = []
    for _ in range(warm + 1):
        rates.append(schedule.get_last_lr()[0])
        optimizer.step()
        schedule.step()
    assert rates[0] == 0.0
    assert rates[warm // 2] < config.learning_rate
    assert math.isclose(rates[warm], config.learning_rate)
    args = transformers.TrainingArguments(
        output_dir="unused", warmup_steps=warm, max_steps=200, report_to="none"
    )
    assert args.get_warmup_steps(200) == warm == 10


def test_training_takes_the_graphs_limit_when_none_is_set() -> None:
    tokenizer = WordTokenizer()
    long_doc = "type: paper\ntext: " + " ".join(f"x{i}" for i in range(5000))
    record = {"query": QUESTION, "positives": [long_doc], "negatives": [long_doc]}
    config = RerankerTrainConfig(group_size=2)
    assert config.max_length is None
    lengths = {}
    for graph in ("prime", "mag"):
        groups = ListwiseGroups([{**record, "graph": graph}], PROMPT, tokenizer, config)
        lengths[graph] = max(len(ids) for ids in groups[0]["input_ids"])
    assert lengths["prime"] <= 2048 and lengths["prime"] > 2000
    assert lengths["mag"] <= 1024 and lengths["mag"] > 1000
