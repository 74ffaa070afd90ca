"""RunSummary: one run directory reduced to metrics per family, failures, latency and tool use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evals.metrics import OVERALL, Aggregate, aggregate
from evals.runs.store import FailureRecord, RunRecord, read_config, read_failures, read_results


@dataclass
class RunSummary:
    """What a report or the final table shows about one run.

    Attributes:
        run_dir: The run directory.
        label: Short display name (model, agents, steps, ablations).
        config: The run's config.json.
        groups: "all" and each family -> Aggregate (both protocols, failures beside).
        failed_ids: Questions whose latest attempt failed and that have no result.
        latency_s: Per-question wall time of the successful questions.
        tool_calls: Tool name -> number of calls over all trajectories.
        unlabelled_ids: Saved questions without gold answers (`ark ask --save`, `:save`):
            read and counted, but not scored.
        plans: For a plan run: questions planned, plans invalid (the text fallback ran),
            plans read only after lenient repair, and planning attempts by how their JSON
            was asked (`asked_as_schema`, `asked_as_prompt`); empty for other runs.
    """

    run_dir: Path
    label: str
    config: dict[str, Any]
    groups: dict[str, Aggregate]
    failed_ids: list[str] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)
    tool_calls: dict[str, int] = field(default_factory=dict)
    unlabelled_ids: list[str] = field(default_factory=list)
    plans: dict[str, int] = field(default_factory=dict)

    @property
    def overall(self) -> Aggregate:
        """The aggregate over every question."""
        return self.groups[OVERALL]

    @property
    def n_agents(self) -> int | None:
        """Number of agents, None for a baseline."""
        return self.config.get("agent", {}).get("n_agents")

    @property
    def max_steps(self) -> int | None:
        """Step budget, None for a baseline."""
        return self.config.get("agent", {}).get("max_steps")

    def latency(self) -> dict[str, float]:
        """Mean, median and p95 of per-question wall time in seconds (0 when empty)."""
        if not self.latency_s:
            return {"mean": 0.0, "p50": 0.0, "p95": 0.0}
        values = np.asarray(self.latency_s)
        return {
            "mean": float(values.mean()),
            "p50": float(np.percentile(values, 50)),
            "p95": float(np.percentile(values, 95)),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``ark eval --json``)."""
        return {
            "run_dir": str(self.run_dir),
            "label": self.label,
            "questions": self.overall.questions,
            "failures": self.overall.failures,
            "failed_ids": self.failed_ids,
            "groups": {name: group.to_dict() for name, group in self.groups.items()},
            "latency_s": self.latency(),
            "tool_calls": self.tool_calls,
            "unlabelled_ids": self.unlabelled_ids,
            **({"plans": self.plans} if self.plans else {}),
        }


def run_label(config: dict[str, Any]) -> str:
    """A short name for a run: ``rules n=3 T=20`` (+ ablations), or the baseline's name."""
    for key in ("baseline", "fusion", "rerank"):
        if isinstance(config.get(key), dict):
            return str(config[key].get("method", key))
    agent = config.get("agent", {})
    label = f"{agent.get('model', '?')} n={agent.get('n_agents', '?')} T={agent.get('max_steps')}"
    tools = agent.get("tools", {})
    ablations = [
        name
        for name, key in (
            ("no-neighbors", "enable_neighbors"),
            ("no-query-ranking", "neighbor_query_ranking"),
            ("no-type-filters", "type_filters"),
        )
        if tools.get(key) is False
    ]
    return " ".join([label, *ablations])


def unresolved_failures(
    records: Sequence[RunRecord], failures: Sequence[FailureRecord]
) -> dict[str, FailureRecord]:
    """Latest failure of every question that has no result yet."""
    done = {record.question_id for record in records}
    latest: dict[str, FailureRecord] = {}
    for failure in failures:
        if failure.question_id not in done:
            latest[failure.question_id] = failure
    return latest


def summarize_records(
    run_dir: Path,
    config: dict[str, Any],
    records: Sequence[RunRecord],
    failures: Sequence[FailureRecord],
) -> RunSummary:
    """Summarise already-read results and failures of one run."""
    pending = unresolved_failures(records, failures)
    groups = aggregate(
        ((record.family, record.metrics) for record in records if record.gold),
        (failure.family for failure in pending.values()),
    )
    tool_calls: dict[str, int] = {}
    for record in records:
        for trajectory in record.result.trajectories:
            for name, count in trajectory.tool_call_counts().items():
                tool_calls[name] = tool_calls.get(name, 0) + count
    return RunSummary(
        run_dir=Path(run_dir),
        label=run_label(config),
        config=config,
        groups=groups,
        failed_ids=sorted(pending),
        latency_s=[record.result.wall_s for record in records],
        tool_calls=dict(sorted(tool_calls.items())),
        unlabelled_ids=[record.question_id for record in records if not record.gold],
        plans=plan_counts(records),
    )


def plan_counts(records: Sequence[RunRecord]) -> dict[str, int]:
    """How a plan run's plans came back (see `RunSummary.plans`); {} for other runs."""
    configs = [r.result.config for r in records if "invalid_plan" in r.result.config]
    if not configs:
        return {}
    counts = {
        "planned": len(configs),
        "invalid": sum(bool(c["invalid_plan"]) for c in configs),
        "repaired": sum(int(c.get("plan_repaired", 0)) for c in configs),
    }
    for config in configs:
        for mode in config.get("plan_asked_as", []):
            counts[f"asked_as_{mode}"] = counts.get(f"asked_as_{mode}", 0) + 1
    return counts


def summarize_run(run_dir: Path) -> RunSummary:
    """Read and summarise a run directory.

    Raises:
        RunStoreError: not a run directory, or a corrupt results file.
    """
    return summarize_records(
        run_dir, read_config(run_dir), read_results(run_dir), read_failures(run_dir)
    )
