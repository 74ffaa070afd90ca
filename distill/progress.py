"""Trainer callback that reports training progress and losses through `logging`."""

from __future__ import annotations

import logging
from typing import Any

from transformers import TrainerCallback

logger = logging.getLogger("distill.train")


class LossLogger(TrainerCallback):
    """Log step, loss, val loss and learning rate each time the trainer logs."""

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **_: Any
    ) -> None:
        """Write one line per trainer log event."""
        if not logs:
            return
        shown = ", ".join(
            f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}"
            for key, value in logs.items()
            if key in ("loss", "eval_loss", "learning_rate", "grad_norm", "epoch")
        )
        logger.info("step %d/%d: %s", state.global_step, state.max_steps, shown)
