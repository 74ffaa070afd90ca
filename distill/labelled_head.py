"""Project only the labelled positions through the LM head in training, on CPUs too.

TRL's SFTTrainer computes the loss with a fused LM head (`trl.trainer.utils.add_fused_lm_head`).
On CUDA or XPU with Triton it projects only the positions whose next-token label is not -100
(the assistant tokens); on any other device it projects every position, so that tile shapes stay
fixed for graph compilers such as Neuron's. Eager PyTorch on a CPU compiles nothing, and there
the projection of every prompt, tool and system token through a 49K-token head, with its
entropy and top-1 metrics, is a third of the step. Scoring only the labelled positions gives the
same loss, gradients and metrics (`tests/distill/test_labelled_head.py`) in fewer FLOPs: on
real SFT rows of SmolLM2-135M (1,691 tokens, 14.5% of them labelled) a step takes 16.3 s
instead of 24.4 s on 2 cores (`benchmarks/speed/labelled_head.py`; BENCHMARKS.md, "Pretrained
student", run 4).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

logger = logging.getLogger(__name__)


@contextmanager
def labelled_positions_only() -> Iterator[bool]:
    """While active, TRL's fused LM head scores only labelled positions on CPUs as well.

    Yields:
        True when the installed TRL has the fused head's device switch (and it was changed for
        the block), False when it does not (older or newer TRL: training runs as TRL decides).
    """
    try:
        from trl.trainer import utils as trl_utils
    except ImportError:
        yield False
        return
    original = getattr(trl_utils, "_use_triton", None)
    if not callable(original) or not hasattr(trl_utils, "add_fused_lm_head"):
        logger.debug("this TRL has no fused LM head switch; every position is scored")
        yield False
        return

    def compact(device: Any) -> bool:
        return getattr(device, "type", None) == "cpu" or bool(original(device))

    trl_utils._use_triton = compact
    try:
        yield True
    finally:
        trl_utils._use_triton = original
