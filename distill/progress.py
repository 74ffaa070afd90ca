"""Trainer callbacks: progress and losses through `logging`, and a wall-time limit."""

from __future__ import annotations

import logging
import time
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


class TimeLimit(TrainerCallback):
    """Stop training once `max_minutes` of wall time have passed since training began."""

    def __init__(self, max_minutes: float | None) -> None:
        self.max_minutes = max_minutes
        self._started = time.monotonic()

    def on_train_begin(self, args: Any, state: Any, control: Any, **_: Any) -> None:
        """Start the clock."""
        self._started = time.monotonic()

    def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> None:
        """Ask the trainer to stop when the time is up."""
        if self.max_minutes is None:
            return
        if time.monotonic() - self._started >= self.max_minutes * 60:
            logger.info(
                "time limit of %.1f min reached at step %d", self.max_minutes, state.global_step
            )
            control.should_training_stop = True
            control.should_save = True
