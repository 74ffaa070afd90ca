"""`ark rerank`: score a stage-2 ranking's top candidates by P(yes), fuse back by tuned RRF.

For every question of the tuning and output splits the top `depth` candidates of the source
ranking are serialised (rank/rerank/doc.py) and scored (rank/rerank/models.py) through the
on-disk cache. The reranker's order is then fused with the source ranking by static RRF whose
(w, k) are grid-searched on the tuning split (w weighs the reranker), as GRASP's stage 3. When the
tuned fusion does not beat the source's own Hit@1 there, the source order stands (w = 0).

Output: a run directory of the output split (``config.json`` has a ``"rerank"`` section;
each ``result.config`` holds the final scores and the reranker's own order and scores),
plus ``rerank.json`` (spec, validation scores, throughput, cache hit rate) and
``rerank_heatmap.png``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.trajectory import QuestionResult
from evals.metrics import CandidateFilter, CandidateTest, score_question
from evals.qa.sampling import QuestionSample
from evals.qa.sets import QAItem, load_qa
from evals.runs.scoring import scored_record
from evals.runs.store import RunStore, check_run_dir
from rank.fusion.fuse import StaticRRF, apply_spec, spec_record
from rank.fusion.grid import GridResult, grid_search, prepare_question
from rank.rankings import RankingError, RankingSet, read_rankings
from rank.rerank.cache import CacheStats, ScoreCache, cache_key
from rank.rerank.doc import DocConfig, RerankPrompt, fit_document, grasp_limits, serialize_node
from rank.rerank.models import LocalScorer, Scorer

logger = logging.getLogger(__name__)

SPEC_FILE = "rerank.json"
HEATMAP_FILE = "rerank_heatmap.png"
Progress = Callable[[int], None]


@dataclass(frozen=True, kw_only=True)
class RerankRequest:
    """One `ark rerank` invocation.

    Attributes:
        source: The stage-2 ranking (run dir or JSONL; comma-join val and test runs).
        qa: Questions (gold, splits).
        out: Output run directory (new).
        split: Split written to `out`.
        tune_split: Split the final RRF is tuned on (None: no fusion, the reranker's order).
        depth: Candidates reranked per question (GRASP: 100).
        limit: Only the first N questions of each split (of the sample, if any).
        sample: A seeded random subset of each split (the same questions for every reranker).
        cache: The score cache file.
        snapshot: Snapshot (default: the source's).
        protocol: Protocol whose Hit@1 the grid maximises.
        doc: Candidate serialisation.
        max_length: Tokens per chat for a local reranker (None: GRASP's limit for the graph,
            2,048 for Prime and 1,024 otherwise; `rank.rerank.doc.grasp_limits`). A longer
            chat loses the end of its document, never its question.
    """

    source: str
    qa: Path
    out: Path
    split: str = "test"
    tune_split: str | None = "val"
    depth: int = 100
    limit: int | None = None
    sample: QuestionSample = field(default_factory=QuestionSample)
    cache: Path
    snapshot: Path | None = None
    protocol: str = "stark"
    doc: DocConfig = field(default_factory=DocConfig)
    max_length: int | None = None


@dataclass
class RerankOutcome:
    """What `run_rerank` did (the numbers the benchmark reports)."""

    spec: StaticRRF
    grid: GridResult | None
    written: int
    scored: int
    seconds: float
    cache: CacheStats
    validation: dict[str, float] = field(default_factory=dict)

    @property
    def candidates_per_second(self) -> float:
        """Candidates scored by the model per second (cache hits excluded)."""
        return self.scored / self.seconds if self.seconds > 0 else 0.0


@dataclass
class Pool:
    """One question's candidates, their documents and, once scored, P(yes)."""

    item: QAItem
    ids: list[str]
    documents: list[str]
    scores: list[float] = field(default_factory=list)

    def reranked(self) -> list[str]:
        """Candidates by P(yes), ties in source order."""
        order = sorted(range(len(self.ids)), key=lambda i: -self.scores[i])
        return [self.ids[i] for i in order]


def build_pools(
    items: Sequence[QAItem],
    source: RankingSet,
    snapshot: Any,
    request: RerankRequest,
    tokenizer: Any = None,
) -> list[Pool]:
    """The top `depth` candidates of every question, serialised (unknown ids are skipped).

    With the reranker's `tokenizer` text fields are cut in its tokens, else in words.
    """
    from graphs.errors import UnknownNodeError

    pools = []
    for item in items:
        ranking = source.rankings.get(item.id)
        ids, documents = [], []
        for node_id in ranking.ids[: request.depth] if ranking else ():
            try:
                node = snapshot.internal_id(node_id)
            except UnknownNodeError:
                logger.warning("question %s: %s is not in the snapshot; skipped", item.id, node_id)
                continue
            ids.append(node_id)
            documents.append(serialize_node(snapshot, node, request.doc, tokenizer))
        pools.append(Pool(item, ids, documents))
    return pools


def _fitted(scorer: Scorer, prompt: RerankPrompt, pool: Pool, index: int) -> str:
    """Pool document `index`, cut to fit a local scorer's chat limit (the question kept)."""
    document = pool.documents[index]
    if not isinstance(scorer, LocalScorer):
        return document  # a served model: its server decides
    scorer.load()
    return fit_document(scorer.tokenizer, prompt, pool.item.query, document, scorer.max_length)


def score_pools(
    pools: Sequence[Pool],
    scorer: Scorer,
    prompt: RerankPrompt,
    cache: ScoreCache,
    *,
    chunk: int = 64,
    on_progress: Progress | None = None,
) -> tuple[int, float]:
    """Fill every pool's scores, from the cache where possible.

    Returns:
        (candidates the model scored, seconds it took).
    """
    scored, seconds = 0, 0.0
    for pool in pools:
        keys = [
            cache_key(scorer.identity, prompt.fingerprint, pool.item.query, node, document)
            for node, document in zip(pool.ids, pool.documents, strict=True)
        ]
        known = cache.get_many(keys)
        todo = [i for i, key in enumerate(keys) if key not in known]
        for start in range(0, len(todo), chunk):
            rows = todo[start : start + chunk]
            chats = [
                prompt.messages(pool.item.query, _fitted(scorer, prompt, pool, i)) for i in rows
            ]
            began = time.perf_counter()
            values = scorer.score(chats)
            seconds += time.perf_counter() - began
            scored += len(rows)
            fresh = [(keys[i], value) for i, value in zip(rows, values, strict=True)]
            cache.put_many(fresh)
            known.update(fresh)
        pool.scores = [known[key] for key in keys]
        if on_progress is not None:
            on_progress(len(keys))
    return scored, seconds


def _items(request: RerankRequest, split: str) -> list[QAItem]:
    return request.sample.apply(load_qa(request.qa, split))[: request.limit]


def _tune(
    pools: Sequence[Pool], source: RankingSet, is_candidate: CandidateTest, protocol: str
) -> tuple[GridResult, dict[str, float]]:
    eligible = is_candidate if protocol == "stark" else (lambda node: True)
    questions = []
    alone = {"reranker": 0.0, "source": 0.0}
    key = "stark" if protocol == "stark" else "ark"
    for pool in pools:
        stage2 = list(source.rankings[pool.item.id].ids) if pool.item.id in source.rankings else []
        reranked = pool.reranked()
        questions.append(prepare_question([reranked, stage2], pool.item.answer_ids, eligible))
        for name, ranking in (("reranker", reranked), ("source", stage2)):
            alone[name] += score_question(ranking, pool.item.answer_ids, eligible)[key]["hit@1"]
    grid = grid_search(questions, 2, modes=("static",))
    count = max(len(pools), 1)
    validation = {f"{name} hit@1": value / count for name, value in alone.items()}
    validation["fused hit@1"] = grid.static[1]
    return grid, validation


def _final_spec(grid: GridResult | None, validation: dict[str, float]) -> StaticRRF:
    """The tuned fusion, or the stage-2 list alone when reranking did not earn its place.

    Without a tuning split the reranker's order is the answer. With one, the reranker must
    beat the stage-2 list's own Hit@1 on it: a tie (often reached by a fusion that only
    reshuffles below rank 1, picked by MRR) is not evidence enough to reorder the test
    questions, so the weight of the reranker becomes 0 and the stage-2 order stands.
    """
    if grid is None:
        return StaticRRF(weights=(1.0, 0.0), k=60.0)
    tuned = grid.static[0]
    if validation["fused hit@1"] > validation["source hit@1"]:
        return tuned
    logger.info(
        "reranking did not beat the stage-2 list on the tuning split (Hit@1 %.3f vs %.3f): "
        "keeping the stage-2 order",
        validation["fused hit@1"],
        validation["source hit@1"],
    )
    return StaticRRF(weights=(0.0, 1.0), k=tuned.k)


def run_rerank(
    request: RerankRequest, scorer: Scorer, *, on_progress: Progress | None = None
) -> RerankOutcome:
    """Rerank, tune the final fusion on the tuning split, write the output split.

    Raises:
        RankingError: the source is unreadable or names no snapshot.
        RunStoreError, QAError, GraphError, RerankCacheError: as their modules say.
        RerankError: the model fails to score.
    """
    from graphs.snapshot import Snapshot

    check_run_dir(
        Path(request.out),
        hint="choose a new --out directory (scores are cached: rerunning costs no scoring)",
    )
    source = read_rankings(request.source)
    snapshot_path = request.snapshot or source.snapshot
    if snapshot_path is None:
        raise RankingError("the source names no snapshot; pass --snapshot DIR")
    snapshot = Snapshot.open(snapshot_path)
    is_candidate = CandidateFilter.from_snapshot(snapshot)
    prompt = RerankPrompt.for_snapshot(snapshot)
    tokenizer = None
    if isinstance(scorer, LocalScorer):  # token cuts need its tokenizer, loaded with it
        scorer.max_length = request.max_length or grasp_limits(snapshot.manifest.name).max_length
        scorer.load()
        tokenizer = scorer.tokenizer
    tune_pools = (
        build_pools(_items(request, request.tune_split), source, snapshot, request, tokenizer)
        if request.tune_split
        else []
    )
    out_pools = build_pools(_items(request, request.split), source, snapshot, request, tokenizer)
    with ScoreCache(request.cache) as cache:
        scored, seconds = score_pools(
            [*tune_pools, *out_pools], scorer, prompt, cache, on_progress=on_progress
        )
        stats = cache.stats
    grid, validation = (None, {}) if not tune_pools else _tune(
        tune_pools, source, is_candidate, request.protocol
    )  # fmt: skip
    spec = _final_spec(grid, validation)
    outcome = RerankOutcome(spec, grid, len(out_pools), scored, seconds, stats, validation)
    _write_run(request, source, scorer, spec, out_pools, is_candidate)
    _write_spec_file(request, scorer, outcome)
    if grid is not None:
        from rank.fusion.plot import heatmap_png

        heatmap_png(grid, Path(request.out) / HEATMAP_FILE)
    return outcome


def with_tail(
    ids: list[str], scores: list[float], stage2: Sequence[str]
) -> tuple[list[str], list[float]]:
    """The fused list followed by the rest of the stage-2 list in its order (score 0).

    Only the top `depth` candidates are reranked; the candidates below them keep their
    stage-2 order, so reranking reorders the head without cutting the recall of the tail
    (a fusion that gives the stage-2 list weight 0 would otherwise drop it).
    """
    seen = set(ids)
    tail = [node for node in stage2 if node not in seen]
    return [*ids, *tail], [*scores, *([0.0] * len(tail))]


def _write_run(
    request: RerankRequest,
    source: RankingSet,
    scorer: Scorer,
    spec: StaticRRF,
    pools: Sequence[Pool],
    is_candidate: CandidateTest,
) -> None:
    method = f"rerank({Path(scorer.identity).name or scorer.identity})+rrf"
    snapshot = request.snapshot or source.snapshot  # run_rerank refused a run without one
    config = {
        "rerank": {
            "method": method,
            "model": scorer.identity,
            "source": source.name,
            "spec": spec_record(spec),
            "depth": request.depth,
            "tuned_on": request.tune_split,
            # a served scorer's --base-url (credentials redacted) and timeouts
            **({"endpoint": scorer.endpoint} if scorer.endpoint is not None else {}),
        },
        "snapshot": str(Path(snapshot).resolve()) if snapshot else None,
        "qa": str(Path(request.qa).resolve()),
        "split": request.split,
        "limit": request.limit,
        "sample": request.sample.to_record(),
    }
    with RunStore.open(request.out, config, resume=False) as store:
        for pool in pools:
            stage2 = (
                list(source.rankings[pool.item.id].ids) if pool.item.id in source.rankings else []
            )
            reranked = pool.reranked()
            ids, scores = with_tail(*apply_spec(spec, [reranked, stage2], None), stage2)
            by_id = dict(zip(pool.ids, pool.scores, strict=True))
            result = QuestionResult(
                question_id=pool.item.id, question=pool.item.query, model=method, fused=ids,
                config={"scores": scores, "reranker": reranked,
                        "reranker_scores": [by_id[node] for node in reranked]},
            )  # fmt: skip
            store.append_result(scored_record(pool.item, result, is_candidate))


def _write_spec_file(request: RerankRequest, scorer: Scorer, outcome: RerankOutcome) -> None:
    record: dict[str, Any] = {
        "spec": spec_record(outcome.spec),
        "model": scorer.identity,
        "validation": outcome.validation,
        "throughput": {"scored": outcome.scored, "seconds": round(outcome.seconds, 3),
                       "candidates_per_s": round(outcome.candidates_per_second, 3)},
        "cache": {"file": str(request.cache), "hits": outcome.cache.hits,
                  "misses": outcome.cache.misses, "hit_rate": outcome.cache.hit_rate},
    }  # fmt: skip
    if outcome.grid is not None:
        record["heatmap"] = {"reranker_weights": outcome.grid.weights_axis, "ks": outcome.grid.ks,
                             "hit@1": outcome.grid.heatmap.round(4).tolist()}  # fmt: skip
    path = Path(request.out) / SPEC_FILE
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
