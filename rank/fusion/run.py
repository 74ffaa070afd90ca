"""`ark fuse`: fuse ranking sources by RRF (tuned on validation when asked) into a run directory.

Layout of the output (a run directory like any other, so `ark eval report` compares it)::

    OUT/config.json     {"fusion": {"method", "spec", "sources", ...}, "snapshot", "qa", "split"}
    OUT/results.jsonl   one RunRecord per question of the split (fused list; scores in
                        result.config["scores"])
    OUT/fusion.json     the frozen spec and, after --grid, the validation scores and heatmap
    OUT/fusion_heatmap.png   Hit@1 over (graph weight, k) on validation (after --grid)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.trajectory import QuestionResult
from evals.metrics import CandidateFilter, CandidateTest
from evals.qa.sets import QAItem, load_qa
from evals.runs.scoring import scored_record
from evals.runs.store import CONFIG_FILE, RunStore, check_run_dir, read_config, read_results
from rank.fusion.fuse import (
    DEFAULT_K,
    FusionSpec,
    PlanSignals,
    Signals,
    StaticRRF,
    apply_spec,
    spec_from_record,
    spec_record,
)
from rank.fusion.grid import GridResult, Question, grid_search, prepare_question
from rank.rankings import RankingError, RankingSet, read_all

logger = logging.getLogger(__name__)

SPEC_FILE = "fusion.json"
HEATMAP_FILE = "fusion_heatmap.png"
DEFAULT_DEPTH = 100
PROTOCOL_CHOICES = ("ark", "stark")


@dataclass(frozen=True, kw_only=True)
class FuseRequest:
    """One `ark fuse` invocation.

    Attributes:
        sources: Ranking sources (run dirs or JSONL, comma-joined per source); the first
            is the graph branch that dynamic RRF weighs per question (a plan run for mode
            dynamic, an agent run for mode agents).
        qa: Question file or directory (gold answers, families, splits).
        out: Output run directory.
        split: Split written to `out`.
        tune_split: Split the grid search scores on.
        grid: Grid-search static and dynamic RRF on `tune_split` (else use `spec` or
            `weights`/`k`).
        modes: Variants the grid may choose.
        weights: Static weights, one per source (default: equal).
        k: Static RRF constant.
        spec_file: A fusion.json to reuse (frozen earlier, e.g. to fuse the train split).
        snapshot: Snapshot for the STaRK protocol's candidate types (default: the sources').
        protocol: Protocol whose Hit@1 the grid maximises.
        depth: Length of each fused list.
        limit: Only the first N questions of each split.
    """

    sources: Sequence[str]
    qa: Path
    out: Path
    split: str = "test"
    tune_split: str = "val"
    grid: bool = False
    modes: Sequence[str] = ("static", "dynamic", "agents")
    weights: Sequence[float] | None = None
    k: float = DEFAULT_K
    spec_file: Path | None = None
    snapshot: Path | None = None
    protocol: str = "stark"
    depth: int = DEFAULT_DEPTH
    limit: int | None = None


@dataclass
class FuseOutcome:
    """What `run_fusion` did.

    Attributes:
        spec: The configuration applied.
        grid: The grid search, if one ran.
        written: Questions written to the output run.
        notes: Things the user should know (questions a source lacked, skipped variants).
    """

    spec: FusionSpec
    grid: GridResult | None
    written: int
    notes: list[str] = field(default_factory=list)


def _candidate_test(request: FuseRequest, sources: Sequence[RankingSet]) -> CandidateTest:
    from graphs.snapshot import Snapshot

    path = request.snapshot or next((Path(s.snapshot) for s in sources if s.snapshot), None)
    if path is None:
        if request.protocol == "stark":
            raise RankingError(
                "no snapshot known for the STaRK protocol's candidate types (JSONL sources "
                "name none); pass --snapshot DIR"
            )
        return lambda node: True
    return CandidateFilter.from_snapshot(Snapshot.open(path))


def _coverage(sources: Sequence[RankingSet], items: Sequence[QAItem], split: str) -> list[str]:
    """Notes on questions a source lacks; raises when a source covers none of the split."""
    notes = []
    ids = [item.id for item in items]
    for source in sources:
        missing = source.missing(ids)
        if ids and len(missing) == len(ids):
            raise RankingError(
                f"{source.name} ranks none of the {len(ids)} {split} questions; add a run "
                f"over the {split} split to that source, joined by a comma (a,b)"
            )
        if missing:
            notes.append(
                f"{source.name} lacks {len(missing)} of {len(ids)} {split} questions "
                f"(e.g. {missing[0]}); they count as an empty ranking there"
            )
    return notes


def _rankings_of(sources: Sequence[RankingSet], question_id: str) -> list[list[str]]:
    return [list(s.rankings[question_id].ids) if question_id in s.rankings else [] for s in sources]


def plan_signals(spec: str) -> dict[str, PlanSignals]:
    """n_cand and risk_level per question of a plan run source (empty for any other source)."""
    found: dict[str, PlanSignals] = {}
    for part in (p for p in str(spec).split(",") if p.strip()):
        path = Path(part)
        if not (path / CONFIG_FILE).is_file() or "plan" not in read_config(path):
            continue
        for record in read_results(path):
            meta = record.result.config
            found[record.question_id] = PlanSignals(
                n_cand=int(meta.get("n_cand", 0)), risk_level=str(meta.get("risk_level", "normal"))
            )
    return found


@dataclass(frozen=True)
class GraphSignals:
    """What dynamic fusion reads of the first source: its plan metadata or agent signals."""

    source: RankingSet
    plans: dict[str, PlanSignals]

    def of(self, question_id: str) -> Signals | None:
        """The question's plan signals if the source is a plan run, else its agent signals."""
        if question_id in self.plans:
            return self.plans[question_id]
        ranking = self.source.rankings.get(question_id)
        return ranking.signals if ranking else None


def _graph_signals(request: FuseRequest, sources: Sequence[RankingSet]) -> GraphSignals:
    return GraphSignals(sources[0], plan_signals(request.sources[0]))


def _choose_spec(
    request: FuseRequest,
    sources: Sequence[RankingSet],
    is_candidate: CandidateTest,
    signals: GraphSignals,
) -> tuple[FusionSpec, GridResult | None, list[str]]:
    n = len(sources)
    if request.grid:
        items = load_qa(request.qa, request.tune_split)[: request.limit]
        notes = _coverage(sources, items, request.tune_split)
        eligible = is_candidate if request.protocol == "stark" else (lambda node: True)
        questions: list[Question] = [
            prepare_question(
                _rankings_of(sources, item.id),
                item.answer_ids,
                eligible,
                signals.of(item.id),
            )
            for item in items
        ]
        result = grid_search(questions, n, modes=request.modes)
        return result.best, result, notes + result.notes
    if request.spec_file is not None:
        record = json.loads(Path(request.spec_file).read_text(encoding="utf-8"))
        return spec_from_record(record.get("spec", record)), None, []
    weights = tuple(request.weights) if request.weights else tuple([1.0 / n] * n)
    if len(weights) != n:
        raise RankingError(f"{len(weights)} weights given for {n} sources; give one per source")
    return StaticRRF(weights=weights, k=request.k), None, []


def run_fusion(request: FuseRequest) -> FuseOutcome:
    """Read the sources, choose (or tune) the fusion, and write the fused split to `out`.

    Raises:
        RankingError: a source is unreadable or covers none of a split.
        FusionError: the spec does not fit the sources.
        RunStoreError: `out` is not empty.
        QAError, GraphError: the question file or snapshot cannot be read.
    """
    if not request.sources:
        raise RankingError("give at least one ranking source (a run directory or JSONL)")
    if request.protocol not in PROTOCOL_CHOICES:
        raise RankingError(f"protocol must be one of {', '.join(PROTOCOL_CHOICES)}")
    check_run_dir(Path(request.out), hint="choose a new --out directory (fusing is quick to rerun)")
    sources = read_all(request.sources)
    is_candidate = _candidate_test(request, sources)
    signals = _graph_signals(request, sources)
    spec, grid, notes = _choose_spec(request, sources, is_candidate, signals)
    items = load_qa(request.qa, request.split)[: request.limit]
    notes += _coverage(sources, items, request.split)
    written = write_fused(request, sources, spec, items, is_candidate, signals)
    _write_spec_file(request, sources, spec, grid, notes)
    if grid is not None:
        from rank.fusion.plot import heatmap_png

        heatmap_png(grid, Path(request.out) / HEATMAP_FILE)
    for note in notes:
        logger.info("%s", note)
    return FuseOutcome(spec=spec, grid=grid, written=written, notes=notes)


def fusion_config(request: FuseRequest, sources: Sequence[RankingSet], spec: FusionSpec) -> dict:
    """The output run's config.json."""
    method = "+".join(s.method for s in sources)
    snapshot = request.snapshot or next((s.snapshot for s in sources if s.snapshot), None)
    return {
        "fusion": {
            "method": f"rrf-{spec.mode}({method})",
            "spec": spec_record(spec),
            "sources": [s.name for s in sources],
            "tuned_on": request.tune_split if request.grid else None,
            "depth": request.depth,
        },
        "limit": request.limit,
        "snapshot": str(Path(snapshot).resolve()) if snapshot else None,
        "qa": str(Path(request.qa).resolve()),
        "split": request.split,
    }


def write_fused(
    request: FuseRequest,
    sources: Sequence[RankingSet],
    spec: FusionSpec,
    items: Sequence[QAItem],
    is_candidate: CandidateTest,
    signals: GraphSignals,
) -> int:
    """Fuse every question of `items` and append it to the run directory `request.out`."""
    config = fusion_config(request, sources, spec)
    with RunStore.open(request.out, config, resume=False) as store:
        for item in items:
            ids, scores = apply_spec(
                spec,
                _rankings_of(sources, item.id),
                signals.of(item.id),
                depth=request.depth,
            )
            result = QuestionResult(
                question_id=item.id,
                question=item.query,
                model=config["fusion"]["method"],
                config={"scores": scores},
                fused=ids,
            )
            store.append_result(scored_record(item, result, is_candidate))
    return len(items)


def _write_spec_file(
    request: FuseRequest,
    sources: Sequence[RankingSet],
    spec: FusionSpec,
    grid: GridResult | None,
    notes: Sequence[str],
) -> None:
    record: dict[str, Any] = {"spec": spec_record(spec), "sources": [s.name for s in sources]}
    if grid is not None:
        static, s_hit, s_mrr = grid.static
        record["validation"] = {
            "split": request.tune_split,
            "protocol": request.protocol,
            "questions": grid.questions,
            "static": {"spec": spec_record(static), "hit@1": s_hit, "mrr": s_mrr},
            "dynamic": None
            if grid.dynamic is None
            else {
                "spec": spec_record(grid.dynamic[0]),
                "hit@1": grid.dynamic[1],
                "mrr": grid.dynamic[2],
            },
            "agents": None
            if grid.agents is None
            else {
                "spec": spec_record(grid.agents[0]),
                "hit@1": grid.agents[1],
                "mrr": grid.agents[2],
            },
            "heatmap": {
                "graph_weights": grid.weights_axis,
                "ks": grid.ks,
                "hit@1": grid.heatmap.round(4).tolist(),
            },
        }
    record["notes"] = list(notes)
    path = Path(request.out) / SPEC_FILE
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
