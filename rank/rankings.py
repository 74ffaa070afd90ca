"""Rankings: per-question ordered node ids with scores, read from run directories or JSONL.

A ranking source is a run directory (`ark eval`, `ark baseline bm25|dense`, `ark fuse`,
`ark rerank`), a JSON-lines file of ``{"id": QUESTION_ID, "ranking": [...]}`` rows, or
several of either joined with commas (``val_run,test_run``: one source spread over runs,
e.g. one run per split). A JSONL ranking is a list of ids, of ``[id, score]`` pairs or of
``{"id": ..., "score": ...}`` objects, best first.

Agent runs also carry the metadata dynamic RRF conditions on (`AgentSignals`): how many
agents answered and agreed on the top node, the entropy of the vote, the fused-list length
and the number of neighbour calls.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.runs.store import CONFIG_FILE, RunRecord, read_config, read_results
from graphs.errors import ArkError

SOURCE_SEPARATOR = ","
NEIGHBOR_TOOL = "neighbors"


class RankingError(ArkError, ValueError):
    """A ranking source cannot be read or does not fit the question set (message says why)."""


@dataclass(frozen=True)
class AgentSignals:
    """What the agents' own run says about how far to trust their fused list.

    Attributes:
        agents: Agents that finished without a model error.
        top_votes: Votes of the fused list's first node (0 for an empty list).
        vote_entropy: Entropy of the vote distribution over the fused list, normalised to
            [0, 1] by log(list length); 0 when one node holds every vote or the list is short.
        fused_length: Length of the fused list.
        neighbor_calls: Neighbour calls per answering agent (mean).
    """

    agents: int
    top_votes: int
    vote_entropy: float
    fused_length: int
    neighbor_calls: float

    @property
    def agreement(self) -> float:
        """Share of the answering agents that voted for the top node (0 when none did)."""
        return self.top_votes / self.agents if self.agents else 0.0


@dataclass(frozen=True)
class Ranking:
    """One question's ranking, best first.

    Attributes:
        question_id: The question.
        ids: External node ids, unique, best first.
        scores: One score per id (higher is better); ranks are what fusion uses.
        signals: Agent metadata, for agent runs only.
    """

    question_id: str
    ids: tuple[str, ...]
    scores: tuple[float, ...]
    signals: AgentSignals | None = None


@dataclass
class RankingSet:
    """A source's rankings by question id, plus what the source knows about each question.

    Attributes:
        name: A label (the directories or files it was read from).
        rankings: Question id -> ranking.
        queries: Question id -> question text, where the source records it.
        snapshot: The snapshot the source's run used, if it says.
        method: The method or model that produced it ("rules", "bm25", "fusion", ...).
    """

    name: str
    rankings: dict[str, Ranking] = field(default_factory=dict)
    queries: dict[str, str] = field(default_factory=dict)
    snapshot: str | None = None
    method: str = "ranking"

    @property
    def has_signals(self) -> bool:
        """True when every ranking carries agent metadata (an agent run)."""
        return bool(self.rankings) and all(r.signals for r in self.rankings.values())

    def missing(self, question_ids: Iterable[str]) -> list[str]:
        """The ids among `question_ids` this source has no ranking for."""
        return [qid for qid in question_ids if qid not in self.rankings]


def agent_signals(record: RunRecord) -> AgentSignals:
    """The dynamic-RRF metadata of one agent-run question."""
    result = record.result
    answering = [t for t in result.trajectories if t.stop_reason != "error"]
    calls = sum(t.tool_call_counts().get(NEIGHBOR_TOOL, 0) for t in answering)
    votes = [result.votes.get(node, 0) for node in result.fused]
    total = sum(votes)
    entropy = 0.0
    if total and len(votes) > 1:
        shares = [v / total for v in votes if v]
        entropy = -sum(p * math.log(p) for p in shares) / math.log(len(votes))
    return AgentSignals(
        agents=len(answering),
        top_votes=votes[0] if votes else 0,
        vote_entropy=round(entropy, 6),
        fused_length=len(result.fused),
        neighbor_calls=calls / len(answering) if answering else 0.0,
    )


def _record_ranking(record: RunRecord, *, with_signals: bool) -> Ranking:
    ids = tuple(dict.fromkeys(record.result.fused))
    stored = record.result.config.get("scores")
    if isinstance(stored, list) and len(stored) == len(ids):
        scores = tuple(float(s) for s in stored)
    elif record.result.votes:
        scores = tuple(float(record.result.votes.get(node, 0)) for node in ids)
    else:
        scores = tuple(float(len(ids) - rank) for rank in range(len(ids)))
    signals = agent_signals(record) if with_signals else None
    return Ranking(record.question_id, ids, scores, signals)


def _run_method(config: Mapping[str, Any]) -> tuple[str, bool]:
    """(method label, is an agent run) from a run's config.json."""
    if isinstance(config.get("agent"), Mapping):
        return str(config["agent"].get("model", "agent")), True
    for key in ("baseline", "fusion", "rerank"):
        section = config.get(key)
        if isinstance(section, Mapping):
            return str(section.get("method", key)), False
    return "ranking", False


def read_run_rankings(run_dir: Path) -> RankingSet:
    """The fused list of every finished question of a run directory.

    Raises:
        RunStoreError: not a run directory, or a corrupt results file.
    """
    config = read_config(run_dir)
    method, is_agent = _run_method(config)
    records = read_results(run_dir)
    snapshot = config.get("snapshot")
    result = RankingSet(
        name=str(run_dir), method=method, snapshot=str(snapshot) if snapshot else None
    )
    for record in records:
        result.rankings[record.question_id] = _record_ranking(record, with_signals=is_agent)
        result.queries[record.question_id] = record.query
    return result


def _parse_entry(entry: Any, where: str) -> tuple[str, float | None]:
    if isinstance(entry, str):
        return entry, None
    if isinstance(entry, list | tuple) and len(entry) == 2 and isinstance(entry[0], str):
        return entry[0], _number(entry[1], where)
    if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
        return entry["id"], _number(entry.get("score"), where) if "score" in entry else None
    raise RankingError(
        f"{where}: ranking entry {entry!r} is not an id, an [id, score] pair or "
        '{"id": ..., "score": ...}; write e.g. "ranking": [["n1", 2.5], ["n7", 1.0]]'
    )


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RankingError(f"{where}: score {value!r} is not a number")
    return float(value)


def _jsonl_row(raw: str, where: str) -> tuple[str, list[Any], str | None]:
    try:
        row = json.loads(raw)
    except ValueError as error:
        raise RankingError(f"{where}: not valid JSON ({error})") from error
    if not isinstance(row, dict) or not isinstance(row.get("id"), str | int):
        raise RankingError(f'{where}: each line must be an object with "id" and "ranking"')
    ranking = row.get("ranking")
    if not isinstance(ranking, list):
        raise RankingError(f'{where}: "ranking" must be a list of node ids, best first')
    query = row.get("query")
    return str(row["id"]), ranking, query if isinstance(query, str) else None


def read_jsonl_rankings(path: Path) -> RankingSet:
    """Rankings from a JSONL file of ``{"id", "ranking"[, "query"]}`` rows.

    Raises:
        RankingError: a malformed line (the message names the line and the expected form).
    """
    result = RankingSet(name=str(path), method=Path(path).stem)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise RankingError(f"cannot read rankings file {path}: {error}") from error
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        question_id, entries, query = _jsonl_row(raw, where)
        if question_id in result.rankings:
            raise RankingError(f"{where}: question {question_id!r} appears twice")
        parsed = [_parse_entry(entry, where) for entry in entries]
        unique = list(dict.fromkeys(node for node, _ in parsed))
        given = {node: score for node, score in reversed(parsed)}
        scores = [given[node] for node in unique]
        if any(score is None for score in scores):
            scores = [float(len(unique) - rank) for rank in range(len(unique))]
        ranking = Ranking(question_id, tuple(unique), tuple(float(s or 0.0) for s in scores))
        result.rankings[question_id] = ranking
        if query is not None:
            result.queries[question_id] = query
    return result


def read_source(path: Path) -> RankingSet:
    """One source: a run directory or a JSONL file.

    Raises:
        RankingError: the path is neither (the message says what is accepted).
        RunStoreError: a run directory with a corrupt results file.
    """
    path = Path(path)
    if path.is_dir():
        if not (path / CONFIG_FILE).is_file():
            raise RankingError(
                f"{path} is a directory but not a run directory ({CONFIG_FILE} is missing); "
                "pass a directory written by `ark eval`, `ark baseline` or `ark fuse`"
            )
        return read_run_rankings(path)
    if path.is_file():
        return read_jsonl_rankings(path)
    raise RankingError(
        f"ranking source {path} does not exist; pass a run directory or a JSONL file of "
        '{"id": ..., "ranking": [...]} rows'
    )


def read_rankings(spec: str | Path) -> RankingSet:
    """A source named by `spec`: one path, or several joined with commas (merged).

    Raises:
        RankingError: a path is missing or malformed, or two parts rank the same question.
    """
    parts = [part for part in str(spec).split(SOURCE_SEPARATOR) if part.strip()]
    if not parts:
        raise RankingError("empty ranking source; pass a run directory or a JSONL file")
    merged = read_source(Path(parts[0]))
    for part in parts[1:]:
        extra = read_source(Path(part))
        overlap = sorted(set(merged.rankings) & set(extra.rankings))
        if overlap:
            raise RankingError(
                f"{part} ranks question {overlap[0]!r} that {parts[0]} already ranks; "
                "join only runs over disjoint questions (e.g. one per split)"
            )
        merged.rankings.update(extra.rankings)
        merged.queries.update(extra.queries)
        merged.snapshot = merged.snapshot or extra.snapshot
    merged.name = str(spec)
    return merged


def read_all(specs: Sequence[str | Path]) -> list[RankingSet]:
    """Every source in order (see `read_rankings`)."""
    return [read_rankings(spec) for spec in specs]
