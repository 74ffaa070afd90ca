"""Reranker training data: per question, its positives and hardest negatives from a fused pool.

GRASP §3.3: the pool is the top-100 of the stage-2 fused list; each question keeps every
positive in the pool and the 30 highest-ranked negatives ("hardest"), all serialised as the
reranker will see them. A question with no positive or no negative in its pool teaches the
listwise loss nothing and is skipped (counted in the stats).

Layout::

    DATA/reranker.jsonl   {"graph", "question_id", "query", "positives": [doc], "negatives": [doc]}
    DATA/meta.json        the prompt (system text, user template) and the build options
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from distill.errors import DistillError
from evals.qa.sets import QAItem
from rank.rankings import RankingSet
from rank.rerank.doc import DocConfig, RerankPrompt, serialize_node

RECORDS_FILE = "reranker.jsonl"
META_FILE = "meta.json"


class RerankerDataError(DistillError):
    """Reranker training data cannot be built or read (the message says how to fix it)."""


@dataclass(frozen=True, kw_only=True)
class RerankDataOptions:
    """How pools become training records (GRASP's defaults).

    Attributes:
        pool_depth: Candidates taken from the top of the stage-2 list.
        hard_negatives: Highest-ranked negatives kept per question.
        doc: Candidate serialisation.
    """

    pool_depth: int = 100
    hard_negatives: int = 30
    doc: DocConfig = field(default_factory=DocConfig)


@dataclass
class RerankDataStats:
    """Questions kept and skipped while building the data."""

    kept: int = 0
    no_positive: int = 0
    no_negative: int = 0
    missing: int = 0
    positives: int = 0
    negatives: int = 0


def build_records(
    source: RankingSet,
    items: Sequence[QAItem],
    snapshot: Any,
    options: RerankDataOptions,
    tokenizer: Any = None,
) -> tuple[list[dict[str, Any]], RerankDataStats]:
    """One record per usable question (see the module docstring).

    With the base model's `tokenizer`, text fields are cut in its tokens (GRASP counts
    tokens: 300, 512 for MAG), else in whitespace words.
    """
    records, stats = [], RerankDataStats()
    for item in items:
        ranking = source.rankings.get(item.id)
        if ranking is None:
            stats.missing += 1
            continue
        gold = set(item.answer_ids)
        pool = [node for node in ranking.ids[: options.pool_depth]]
        positives = [node for node in pool if node in gold]
        negatives = [node for node in pool if node not in gold][: options.hard_negatives]
        if not positives:
            stats.no_positive += 1
            continue
        if not negatives:
            stats.no_negative += 1
            continue

        def document(node_id: str) -> str:
            return serialize_node(snapshot, snapshot.internal_id(node_id), options.doc, tokenizer)

        records.append(
            {
                "graph": snapshot.manifest.name,
                "question_id": item.id,
                "query": item.query,
                "positives": [document(node) for node in positives],
                "negatives": [document(node) for node in negatives],
            }
        )
        stats.kept += 1
        stats.positives += len(positives)
        stats.negatives += len(negatives)
    return records, stats


def write_data(
    out: Path, records: Sequence[dict[str, Any]], prompt: RerankPrompt, options: RerankDataOptions
) -> Path:
    """Write the records and meta.json to `out` (created)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / RECORDS_FILE).open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    meta = {"system": prompt.system, "user_template": prompt.user_template, **asdict(options)}
    (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return out


def read_data(data_dir: Path) -> tuple[list[dict[str, Any]], RerankPrompt]:
    """The records and prompt written by `write_data`.

    Raises:
        RerankerDataError: missing files, malformed lines, or no record at all.
    """
    data_dir = Path(data_dir)
    try:
        meta = json.loads((data_dir / META_FILE).read_text(encoding="utf-8"))
        lines = (data_dir / RECORDS_FILE).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError) as error:
        raise RerankerDataError(
            f"{data_dir} is not reranker training data ({error}); build it with "
            "`ark distill reranker`"
        ) from error
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except ValueError as error:
            raise RerankerDataError(f"{data_dir / RECORDS_FILE}:{number}: {error}") from error
        if not (record.get("positives") and record.get("negatives")):
            raise RerankerDataError(
                f"{data_dir / RECORDS_FILE}:{number}: needs non-empty positives and negatives"
            )
        records.append(record)
    if not records:
        raise RerankerDataError(
            f"{data_dir} holds no training question: no pool had both a positive and a "
            "negative; fuse more recall into the pool (a larger --depth or more sources)"
        )
    return records, RerankPrompt(meta["system"], meta["user_template"])
