"""LoRA fine-tuning of a causal LM as a listwise yes/no reranker (GRASP §3.3, Appendix 7).

Each training example is a group of `group_size` chats for one question: one positive drawn
uniformly from its stored positives and `group_size - 1` negatives drawn uniformly from its
stored hard negatives (with replacement only when fewer are stored), re-drawn on every
visit. The model scores each chat by the margin ``logsumexp(yes) - logsumexp(no)`` of its
first answer token (rank/rerank/models.py, the same function that scores at inference);
the loss is the cross-entropy of picking the positive among the group's margins.

Training uses transformers' Trainer with a PEFT LoRA adapter (TRL has no listwise reranker
trainer; its SFT and reward trainers optimise other losses). Defaults are GRASP's: LoRA
r 32, alpha 64 on all linear layers, cosine schedule from lr 3e-5 with 5% warm-up, 2
epochs, a global batch of 16 groups of 24, chats of at most 1,024 tokens (2,048 for Prime:
`rank.rerank.doc.grasp_limits`). A chat over the limit loses the end of its document, never
its question (`rank.rerank.doc.fit_document`). The warm-up is passed to the Trainer as a whole
number of steps computed here (:func:`warmup_steps`): transformers 4.x reads a fractional
``warmup_steps`` as 0 steps and only 5.x as a ratio, so the ratio itself is never passed.
"""

from __future__ import annotations

import json
import logging
import math
import random
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from distill.errors import TrainConfigError
from distill.reranker_data import read_data
from rank.rerank.doc import RerankPrompt, fit_document, grasp_limits
from rank.rerank.models import (
    ADAPTER_RECORD,
    ModelSource,
    answer_token_ids,
    chat_text,
    load_causal_lm,
    yes_no_margin,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class RerankerTrainConfig:
    """Reranker fine-tuning settings; defaults are GRASP's Appendix 7.

    Attributes:
        learning_rate: Peak learning rate (cosine decay after warm-up).
        num_train_epochs: Passes over the questions.
        warmup_ratio: Share of steps spent warming up.
        lora_r: LoRA rank.
        lora_alpha: LoRA scaling.
        lora_dropout: LoRA dropout.
        group_size: Chats per group (1 positive + group_size - 1 negatives).
        groups_per_device: Groups per forward pass.
        gradient_accumulation_steps: Passes per optimizer step (global batch =
            groups_per_device x this).
        max_length: Tokens per chat; None (the default) takes GRASP's limit for the data's
            graph (2,048 for Prime, 1,024 otherwise: `rank.rerank.doc.grasp_limits`). A
            longer chat loses the end of its document, never the instruction or the question.
        max_steps: Stop after this many optimizer steps (None: the epochs decide).
        max_minutes: Stop after this much wall time (None: no limit).
        seed: Seed of sampling and initialisation.
    """

    learning_rate: float = 3e-5
    num_train_epochs: float = 2.0
    warmup_ratio: float = 0.05
    lora_r: int = 32
    lora_alpha: int = 64
    lora_dropout: float = 0.05
    group_size: int = 24
    groups_per_device: int = 1
    gradient_accumulation_steps: int = 16
    max_length: int | None = None
    max_steps: int | None = None
    max_minutes: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise TrainConfigError(
                f"group_size must be >= 2 (a positive and a negative), got {self.group_size}"
            )
        for name in ("groups_per_device", "gradient_accumulation_steps", "lora_r", "max_length"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise TrainConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0 < self.learning_rate < 1 or not 0 <= self.warmup_ratio < 1:
            raise TrainConfigError("learning_rate must be in (0, 1) and warmup_ratio in [0, 1)")

    def with_overrides(self, **values: Any) -> RerankerTrainConfig:
        """A copy with the non-None `values` applied (CLI flags)."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})


class ListwiseGroups:
    """A map-style dataset: item i is a freshly sampled group of question i, tokenised."""

    def __init__(
        self, records: list[dict[str, Any]], prompt: RerankPrompt, tokenizer: Any,
        config: RerankerTrainConfig,
    ) -> None:  # fmt: skip
        self.records = records
        self.prompt = prompt
        self.tokenizer = tokenizer
        self.config = config
        self.rng = random.Random(config.seed)

    def __len__(self) -> int:
        return len(self.records)

    def sample(self, index: int) -> list[str]:
        """The documents of one group, positive first."""
        record = self.records[index]
        negatives = record["negatives"]
        wanted = self.config.group_size - 1
        if len(negatives) >= wanted:
            drawn = self.rng.sample(negatives, wanted)
        else:
            drawn = [self.rng.choice(negatives) for _ in range(wanted)]
        return [self.rng.choice(record["positives"]), *drawn]

    def __getitem__(self, index: int) -> dict[str, Any]:
        record = self.records[index]
        query = record["query"]
        limit = self.config.max_length or grasp_limits(record.get("graph", "")).max_length
        texts = [
            chat_text(
                self.tokenizer,
                self.prompt.messages(
                    query, fit_document(self.tokenizer, self.prompt, query, document, limit)
                ),
            )
            for document in self.sample(index)
        ]
        encoded = self.tokenizer(texts, add_special_tokens=False, truncation=True, max_length=limit)
        return {"input_ids": encoded["input_ids"]}


def collate_groups(pad_id: int) -> Any:
    """A collator that left-pads every chat of every group into one batch."""
    import torch

    def collate(groups: list[dict[str, Any]]) -> dict[str, Any]:
        rows = [ids for group in groups for ids in group["input_ids"]]
        width = max(len(ids) for ids in rows)
        input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for row, ids in enumerate(rows):
            input_ids[row, width - len(ids) :] = torch.tensor(ids, dtype=torch.long)
            mask[row, width - len(ids) :] = 1
        return {"input_ids": input_ids, "attention_mask": mask, "groups": len(groups)}

    return collate


def listwise_loss(margins: Any, groups: int) -> Any:
    """Cross-entropy of the positive (column 0) among each group's margins."""
    import torch

    scores = margins.view(groups, -1)
    target = torch.zeros(groups, dtype=torch.long, device=scores.device)
    return torch.nn.functional.cross_entropy(scores.float(), target)


def _trainer_class() -> Any:
    from transformers import Trainer

    class ListwiseTrainer(Trainer):
        """Trainer whose loss is `listwise_loss` over the yes/no margins."""

        answer_ids: tuple[list[int], list[int]] = ([], [])

        def compute_loss(
            self, model: Any, inputs: dict[str, Any], return_outputs: bool = False,
            num_items_in_batch: Any = None,
        ) -> Any:  # fmt: skip
            yes, no = self.answer_ids
            margins = yes_no_margin(model, inputs, yes, no)
            loss = listwise_loss(margins, int(inputs["groups"]))
            return (loss, {"margins": margins}) if return_outputs else loss

    return ListwiseTrainer


def optimizer_steps(config: RerankerTrainConfig, questions: int) -> int:
    """Optimizer steps of a run over `questions` groups: `max_steps`, else the epochs'.

    Counted as transformers 5 counts them (a partial accumulation at the end of an epoch is
    a step; 4.x drops it, one step less per epoch at most).
    """
    if config.max_steps:
        return config.max_steps
    batches = math.ceil(questions / config.groups_per_device)
    per_epoch = max(math.ceil(batches / config.gradient_accumulation_steps), 1)
    return math.ceil(config.num_train_epochs * per_epoch)


def warmup_steps(config: RerankerTrainConfig, questions: int) -> int:
    """Warm-up steps: `warmup_ratio` of the optimizer steps, rounded up (>= 1 when > 0).

    Passed to the Trainer as an integer so that every supported transformers version warms
    up for the same number of steps (4.x ignores a fractional ``warmup_steps``).
    """
    return math.ceil(config.warmup_ratio * optimizer_steps(config, questions))


@dataclass(frozen=True)
class RerankerTrainResult:
    """What training produced: the adapter directory, steps and the logged losses."""

    adapter_dir: Path
    global_step: int
    losses: list[tuple[int, float]]


def train_reranker(
    data_dir: Path, base_model: str, out: Path, config: RerankerTrainConfig | None = None
) -> RerankerTrainResult:
    """Fine-tune `base_model` with LoRA on reranker data; save the adapter to `out`.

    `out` then holds the adapter, the tokenizer and ark_reranker.json (base model, config,
    losses); score with it by `ark rerank ... --model OUT`.

    Raises:
        RerankerDataError: `data_dir` is not reranker data.
        RerankError: the base model cannot be loaded or lacks yes/no tokens.
        TrainConfigError: `out` already holds an adapter.
    """
    from peft import LoraConfig, get_peft_model
    from transformers import TrainingArguments

    from distill.progress import LossLogger, TimeLimit

    config = config or RerankerTrainConfig()
    out = Path(out)
    if (out / "adapter_config.json").exists():
        raise TrainConfigError(f"{out} already holds an adapter; choose another --out")
    records, prompt = read_data(data_dir)
    tokenizer, model = load_causal_lm(ModelSource.parse(base_model))
    tokenizer.truncation_side = "left"  # a last resort: fit_document already cut the document
    lora = LoraConfig(
        r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
        target_modules="all-linear", task_type="CAUSAL_LM",
    )  # fmt: skip
    model = get_peft_model(model, lora)
    args = TrainingArguments(
        output_dir=str(out / "checkpoints"), learning_rate=config.learning_rate,
        num_train_epochs=config.num_train_epochs, max_steps=config.max_steps or -1,
        per_device_train_batch_size=config.groups_per_device,
        gradient_accumulation_steps=config.gradient_accumulation_steps,
        lr_scheduler_type="cosine", warmup_steps=warmup_steps(config, len(records)),
        logging_steps=1,
        save_strategy="no", report_to="none", remove_unused_columns=False, seed=config.seed,
        dataloader_num_workers=0, dataloader_pin_memory=False,
    )  # fmt: skip
    trainer_class = _trainer_class()
    trainer_class.answer_ids = answer_token_ids(tokenizer)
    trainer = trainer_class(
        model=model, args=args, train_dataset=ListwiseGroups(records, prompt, tokenizer, config),
        data_collator=collate_groups(int(tokenizer.pad_token_id)),
        callbacks=[LossLogger(), TimeLimit(config.max_minutes)],
    )  # fmt: skip
    logger.info("training a reranker on %d questions from %s", len(records), base_model)
    trainer.train()
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    history = trainer.state.log_history
    losses = [(int(h["step"]), float(h["loss"])) for h in history if "loss" in h]
    base = str(Path(base_model).resolve()) if Path(base_model).exists() else base_model
    record = {"base_model": base, "data_dir": str(data_dir), "config": asdict(config),
              "questions": len(records), "losses": losses}  # fmt: skip
    (out / ADAPTER_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return RerankerTrainResult(out, trainer.state.global_step, losses)
