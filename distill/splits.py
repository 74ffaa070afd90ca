"""Which SFT questions validate: the question set's official val split, else a random share.

The paper selects its checkpoint "via early stopping on the official validation split". A run
directory records its question set and split (config.json), so the questions that belong to
the set's official `val` split are known: every question of a run made with `--split val`
(or on a `val.jsonl` file), and the val questions of a run made with `--split all`. Run the
teacher on the val split too (`ark eval ... --split val`) and pass both run directories.
Runs without such a split (a single JSONL file, `ark ask --save`) fall back to a random share
of their questions when the source is `auto`.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from distill.errors import SFTDataError

logger = logging.getLogger(__name__)

ValSource = Literal["auto", "official", "random"]
VAL_SOURCES: tuple[str, ...] = ("auto", "official", "random")
OFFICIAL_SPLIT = "val"


def official_val_ids(config: dict[str, Any], question_ids: Iterable[str]) -> set[str]:
    """The questions of one run that belong to its question set's official val split.

    Args:
        config: The run's config.json (its `qa` and `split`).
        question_ids: The ids of the run's finished questions.

    Returns:
        The ids among `question_ids` in the official val split (empty when none are, or the
        run records no question set).
    """
    ids = set(question_ids)
    qa, split = config.get("qa"), config.get("split")
    if qa is None:
        return set()
    path = Path(qa)
    if split == OFFICIAL_SPLIT or (split is None and path.stem == OFFICIAL_SPLIT):
        return ids
    if split not in (None, "all"):
        return set()
    from evals.qa.sets import QAError, load_qa

    try:
        val = load_qa(path, OFFICIAL_SPLIT)
    except QAError as error:
        logger.info("no official val split for %s (%s)", path, error)
        return set()
    return ids & {item.id for item in val}


def random_split(
    question_ids: Sequence[str], val_fraction: float, seed: int
) -> tuple[set[str], set[str]]:
    """Split question ids into (train, val) sets at random; every trajectory follows its question.

    At least one question goes to val when `val_fraction` > 0 and there are two or more.
    """
    unique = sorted(set(question_ids))
    random.Random(seed).shuffle(unique)
    n_val = round(len(unique) * val_fraction)
    if val_fraction > 0 and len(unique) > 1:
        n_val = min(max(n_val, 1), len(unique) - 1)
    return set(unique[n_val:]), set(unique[:n_val])


def assign_splits(
    question_ids: Sequence[str],
    official_val: set[str],
    *,
    source: ValSource,
    val_fraction: float,
    seed: int,
) -> tuple[set[str], set[str], str]:
    """(train ids, val ids, the source used: "official" or "random").

    Raises:
        SFTDataError: `source` is "official" but no question is in an official val split,
            or every question is (nothing would be left to train on).
    """
    present = set(question_ids)
    val = present & official_val
    if source == "official" or (source == "auto" and val):
        if not val:
            raise SFTDataError(
                "none of the runs holds questions of an official validation split; run the "
                "teacher on it too (`ark eval SNAPSHOT --qa QA --split val --out RUN_DIR`) and "
                "pass that run directory, or use --val-source random"
            )
        if val == present:
            raise SFTDataError(
                "every question is in the official validation split, leaving none to train on; "
                "pass the teacher's run on the train split too"
            )
        return present - val, val, "official"
    if source == "auto" and val_fraction > 0:
        logger.warning(
            "no official validation split among the runs; holding out a random %.0f%% of the "
            "questions for validation (run the teacher with --split val for the paper's setting)",
            100 * val_fraction,
        )
    train, held_out = random_split(question_ids, val_fraction, seed)
    return train, held_out, "random"
