"""LoRA SFT of a student on teacher trajectories with TRL's SFTTrainer (assistant-only loss)."""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from distill.config import EMBEDDING_MODULES, TrainConfig
from distill.dataset import load_sft_dataset
from distill.errors import ChatTemplateError, TrainConfigError
from distill.labelled_head import labelled_positions_only
from distill.memory import MemoryPlan, plan_memory, read_shape, return_freed_memory
from distill.preflight import check_truncation, resolve_base_model
from distill.template import check_generation_markers, inference_template, load_training_template

logger = logging.getLogger(__name__)

CHECKPOINTS_DIR = "checkpoints"
TRAINING_RECORD = "ark_training.json"


@dataclass(frozen=True)
class TrainResult:
    """What a training run produced.

    Attributes:
        adapter_dir: Where the adapter and the student's tokenizer were saved.
        global_step: Optimizer steps done (resumed steps included).
        losses: (step, training loss) as logged.
        eval_losses: (step, val loss) as evaluated.
        best_checkpoint: The checkpoint loaded at the end (best val loss), if any.
    """

    adapter_dir: Path
    global_step: int
    losses: list[tuple[int, float]] = field(default_factory=list)
    eval_losses: list[tuple[int, float]] = field(default_factory=list)
    best_checkpoint: str | None = None


def resolve_template(config: TrainConfig, tokenizer: Any) -> str:
    """The training chat template `config.chat_template` names, checked for markers.

    Raises:
        ChatTemplateError: The template is missing or has no generation markers.
    """
    if config.chat_template == "qwen":
        return load_training_template()
    if config.chat_template == "tokenizer":
        template = tokenizer.chat_template
        check_generation_markers(template, origin="the base tokenizer's chat template")
        return str(template)
    path = Path(config.chat_template)
    if not path.is_file():
        raise ChatTemplateError(
            f"chat_template {config.chat_template!r} is neither 'qwen', 'tokenizer' nor a file"
        )
    source = path.read_text(encoding="utf-8")
    check_generation_markers(source, origin=str(path))
    return source


def _has_gpu() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def lora_config(config: TrainConfig, model: Any) -> Any:
    """The PEFT LoraConfig for `model` (embeddings and head trained in full when asked).

    Raises:
        TrainConfigError: `train_embeddings` on a model whose embeddings are tied.
    """
    from peft import LoraConfig

    modules_to_save = None
    if config.lora.train_embeddings:
        if getattr(model.config, "tie_word_embeddings", False):
            raise TrainConfigError(
                "lora.train_embeddings needs untied embeddings, but this base ties its input "
                "embeddings to the LM head; turn the option off or untie them in the base"
            )
        modules_to_save = list(EMBEDDING_MODULES)
    return LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        target_modules=list(config.lora.target_modules),
        modules_to_save=modules_to_save,
        task_type="CAUSAL_LM",
    )


def sft_config(config: TrainConfig, out: Path, *, has_val: bool, plan: MemoryPlan) -> Any:
    """TRL's SFTConfig for `config`, with the dtype and checkpointing `plan` settled."""
    from trl import SFTConfig

    gpu = _has_gpu()
    return SFTConfig(
        output_dir=str(out / CHECKPOINTS_DIR),
        learning_rate=config.learning_rate,
        num_train_epochs=config.num_train_epochs,
        max_steps=config.max_steps or -1,
        max_length=config.max_length,
        per_device_train_batch_size=config.batch_size,
        per_device_eval_batch_size=config.batch_size,
        gradient_accumulation_steps=config.gradient_accumulation_steps,
        optim=config.optimizer,
        weight_decay=config.weight_decay,
        lr_scheduler_type=config.lr_scheduler,
        warmup_steps=config.warmup_steps,
        logging_steps=config.logging_steps,
        eval_strategy="steps" if has_val else "no",
        eval_steps=config.eval_steps,
        save_strategy="steps",
        save_steps=config.eval_steps,
        save_total_limit=config.save_total_limit,
        load_best_model_at_end=has_val,
        metric_for_best_model="eval_loss",
        greater_is_better=False,
        seed=config.seed,
        bf16=plan.bf16,
        **_checkpointing(SFTConfig, plan.gradient_checkpointing),
        assistant_only_loss=config.assistant_only_loss,
        report_to="none",
        packing=False,
        dataloader_num_workers=0,
        dataloader_pin_memory=gpu,
    )


def _checkpointing(arguments: type, enabled: bool) -> dict[str, Any]:
    """Checkpointing under the names this transformers takes (`activation_*` from 5.x on).

    Non-reentrant checkpointing needs no input gradients on a frozen, LoRA-wrapped base.
    """
    names = {item.name for item in dataclasses.fields(arguments)}
    prefix = (
        "activation_checkpointing"
        if "activation_checkpointing" in names
        else "gradient_checkpointing"
    )
    return {prefix: enabled, f"{prefix}_kwargs": {"use_reentrant": False}}


def _checkpoint_to_resume(out: Path, resume: bool) -> str | None:
    from transformers.trainer_utils import get_last_checkpoint

    checkpoints = out / CHECKPOINTS_DIR
    last = get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None
    if resume and last is None:
        raise TrainConfigError(
            f"--resume given but {checkpoints} holds no checkpoint; drop --resume"
        )
    if not resume and (last is not None or (out / "adapter_config.json").exists()):
        raise TrainConfigError(
            f"{out} already holds a training run; pass --resume to continue it or choose "
            "another --out"
        )
    return last


def build_trainer(
    data_dir: str | Path,
    base_model: str,
    out: str | Path,
    config: TrainConfig,
    *,
    gguf_cache: Path | None = None,
) -> tuple[Any, str]:
    """An SFTTrainer wired for ARK's student (exposed so tests can inspect its dataset).

    Args:
        data_dir: Directory written by `ark distill dataset`.
        base_model: Hub name, model directory or GGUF file (see `resolve_base_model`).
        out: Adapter directory.
        config: Training settings.
        gguf_cache: Cache of dequantised GGUF checkpoints (None: the default cache).

    Returns:
        (trainer, training chat template source).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTTrainer

    from distill.progress import LossLogger, TimeLimit

    data = load_sft_dataset(data_dir)
    base = resolve_base_model(base_model, gguf_cache=gguf_cache)
    plan = plan_memory(config, read_shape(base), gpu=_has_gpu())
    logger.info(
        "memory: %s attention, gradient checkpointing %s, estimated peak %s (limit %.1f GB)",
        plan.attention,
        "on" if plan.gradient_checkpointing else "off",
        plan.estimate.describe(),
        plan.limit_gb,
    )
    if config.return_freed_memory and not return_freed_memory():
        logger.info("this C library has no mallopt; freed memory is returned as it decides")
    tokenizer = AutoTokenizer.from_pretrained(base)
    template = resolve_template(config, tokenizer)
    tokenizer.chat_template = template
    model = AutoModelForCausalLM.from_pretrained(
        base,
        dtype=torch.bfloat16 if plan.bf16 else torch.float32,
        attn_implementation=plan.attention,
    )
    args = sft_config(config, Path(out), has_val=data["val"] is not None, plan=plan)
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=data["train"],
        eval_dataset=data["val"],
        processing_class=tokenizer,
        peft_config=lora_config(config, model),
        callbacks=[LossLogger(), TimeLimit(config.max_minutes)],
    )
    check_truncation(trainer, data, config)
    return trainer, template


def train_student(
    data_dir: str | Path,
    base_model: str,
    out: str | Path,
    config: TrainConfig | None = None,
    *,
    resume: bool = False,
    gguf_cache: Path | None = None,
) -> TrainResult:
    """Train a LoRA adapter on an SFT dataset and save it with the student's tokenizer.

    `out` then holds the adapter (loadable with `-m hf:OUT`), the tokenizer carrying the
    marker-free chat template (inference renders exactly what training saw), and
    `ark_training.json` (config, base model, log history); checkpoints live in
    `out/checkpoints/`.

    Args:
        data_dir: Directory written by `ark distill dataset`.
        base_model: Hub name or local path of the base model: a model directory, or a GGUF
            file (or a directory holding one), dequantised once into `gguf_cache` (a random
            base must be saved to disk first, see `distill.scratch.save_scratch_base`).
        out: Adapter directory.
        config: Training settings (paper defaults when None).
        resume: Continue from the last checkpoint in `out/checkpoints/`.
        gguf_cache: Cache of dequantised GGUF checkpoints (None: `default_cache_dir()`).

    Raises:
        TrainConfigError: Bad settings, nothing to resume, or `out` already used.
        ChatTemplateError: The chat template cannot mask assistant tokens.
        SFTDataError: `data_dir` is not a dataset directory.
        BaseModelError: `base_model` is a path to a directory that does not exist.
        EmptyTrainingSetError: Truncation to `max_length` left nothing to train on.
    """
    config = config or TrainConfig()
    target = Path(out)
    checkpoint = _checkpoint_to_resume(target, resume)
    trainer, template = build_trainer(data_dir, base_model, target, config, gguf_cache=gguf_cache)
    logger.info(
        "training %s on %d conversations (%s)",
        base_model,
        len(trainer.train_dataset),
        "resuming " + checkpoint if checkpoint else "from the base",
    )
    with labelled_positions_only():
        trainer.train(resume_from_checkpoint=checkpoint)
    trainer.save_model(str(target))
    tokenizer = trainer.processing_class
    tokenizer.chat_template = inference_template(template)
    tokenizer.save_pretrained(str(target))
    history = trainer.state.log_history
    record = {
        "base_model": base_model,
        "data_dir": str(data_dir),
        "config": config.to_record(),
        "best_checkpoint": trainer.state.best_model_checkpoint,
        "log_history": history,
    }
    (target / TRAINING_RECORD).write_text(json.dumps(record, indent=2, default=str) + "\n")
    return TrainResult(
        adapter_dir=target,
        global_step=trainer.state.global_step,
        losses=[(h["step"], h["loss"]) for h in history if "loss" in h],
        eval_losses=[(h["step"], h["eval_loss"]) for h in history if "eval_loss" in h],
        best_checkpoint=trainer.state.best_model_checkpoint,
    )
