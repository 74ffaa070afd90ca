"""`ark demo`: build the bundled synthetic graph, run the agent and BM25 on it, pick an example.

Everything is offline by default: the graph comes from graphs/synth (fixed domain and seed,
reused when already built) and the agent is the rule policy. Each demo run replaces the demo's
own run directories, so the tables always describe the questions just run.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.config import AgentConfig
from agent.trajectory import Trajectory
from evals.runs.outcomes import OutcomeHandler
from evals.runs.request import RunRequest
from evals.runs.runner import StartHandler, evaluate
from evals.runs.store import CONFIG_FILE, RunRecord, RunStoreError, read_results
from evals.summary import RunSummary, summarize_run
from graphs.build.options import BuildOptions
from graphs.synth.generate import DOMAINS, SynthError, generate
from rank.baselines.bm25 import run_baseline

DEFAULT_DOMAIN = "products"
DEFAULT_SEED = 0
DEFAULT_LIMIT = 100
DEFAULT_OUT = Path("ark-demo")
RELATIONAL_FAMILIES = ("one_hop", "two_hop", "multi_answer")

Handlers = Callable[[str], tuple[StartHandler | None, OutcomeHandler | None]]


@dataclass(frozen=True, kw_only=True)
class DemoRequest:
    """What `ark demo` runs.

    Attributes:
        domain: Synthetic domain (products, academic, biomed).
        out: Demo directory: the graph under ``graph-<domain>-seed<seed>``, runs under ``runs/``.
        agent: Agent configuration (rule policy by default).
        limit: Test questions to run (the first N of the split).
        seed: Generator seed.
    """

    domain: str = DEFAULT_DOMAIN
    out: Path = DEFAULT_OUT
    agent: AgentConfig = field(default_factory=AgentConfig)
    limit: int | None = DEFAULT_LIMIT
    seed: int = DEFAULT_SEED


@dataclass
class DemoResult:
    """What the demo produced.

    Attributes:
        graph: The snapshot directory (its questions under qa/).
        built: Whether the graph was generated now (False: reused).
        summaries: Agent run first, then BM25.
        example: A question to show: solved by the agent, missed by BM25, relational if any.
        baseline_example: BM25's result on the same question.
    """

    graph: Path
    built: bool
    summaries: list[RunSummary]
    example: RunRecord | None
    baseline_example: RunRecord | None


def ensure_graph(domain: str, seed: int, out: Path) -> tuple[Path, bool]:
    """The demo snapshot, generated only if it is not already there.

    Returns:
        (snapshot directory, whether it was built now).

    Raises:
        SynthError: unknown domain (a GraphError).
    """
    if domain not in DOMAINS:
        raise SynthError(f"unknown domain {domain!r}; choose one of {', '.join(DOMAINS)}")
    graph = Path(out) / f"graph-{domain}-seed{seed}"
    if (graph / "manifest.json").is_file() and (graph / "qa" / "test.jsonl").is_file():
        return graph, False
    generate(domain, seed, graph, options=BuildOptions(overwrite=True))
    return graph, True


def _fresh(run_dir: Path) -> Path:
    """Remove a previous demo run there (only a run directory: one holding config.json)."""
    if run_dir.is_dir():
        if not (run_dir / CONFIG_FILE).is_file():
            raise RunStoreError(
                f"{run_dir} exists and is not a run directory; choose another demo --out"
            )
        shutil.rmtree(run_dir)
    return run_dir


def run_demo(request: DemoRequest, *, handlers: Handlers | None = None) -> DemoResult:
    """Build (or reuse) the graph, run the agent and BM25 on its test questions.

    Args:
        request: What to run.
        handlers: Given a run's label, its progress handlers.
    """
    graph, built = ensure_graph(request.domain, request.seed, request.out)
    qa = graph / "qa" / "test.jsonl"
    runs = Path(request.out) / "runs"
    agent_dir = _fresh(runs / _slug(request.agent.model))
    bm25_dir = _fresh(runs / "bm25")
    on_start, on_outcome = handlers(request.agent.model) if handlers else (None, None)
    questions = RunRequest(snapshot=graph, qa=qa, out=agent_dir, limit=request.limit)
    evaluate(questions, request.agent, on_start=on_start, on_outcome=on_outcome)
    on_start, on_outcome = handlers("bm25") if handlers else (None, None)
    run_baseline(questions.elsewhere(bm25_dir), on_start=on_start, on_outcome=on_outcome)
    example, baseline_example = pick_example(read_results(agent_dir), read_results(bm25_dir))
    return DemoResult(
        graph=graph,
        built=built,
        summaries=[summarize_run(agent_dir), summarize_run(bm25_dir)],
        example=example,
        baseline_example=baseline_example,
    )


def _slug(model: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in model) or "model"


def pick_example(
    agent: list[RunRecord], baseline: list[RunRecord]
) -> tuple[RunRecord | None, RunRecord | None]:
    """A question the agent got (Hit@1) and BM25 missed, relational if possible; else the best."""
    by_id = {record.question_id: record for record in baseline}

    def rank(record: RunRecord) -> tuple[bool, bool, bool]:
        other = by_id.get(record.question_id)
        bm25_hit = other is not None and other.metrics["ark"]["hit@1"] > 0
        return (
            record.metrics["ark"]["hit@1"] > 0,
            not bm25_hit,
            record.family in RELATIONAL_FAMILIES,
        )

    candidates = [r for r in agent if r.result.trajectories]
    if not candidates:
        return None, None
    best = max(candidates, key=rank)  # max keeps the first of equals: deterministic
    return best, by_id.get(best.question_id)


def trajectory_lines(trajectory: Trajectory, *, observation_lines: int = 3) -> list[str]:
    """A compact transcript: each tool call with its arguments, then the first lines it saw.

    A turn without a tool call shows what the model wrote, and the nudge it got after it.
    """
    lines: list[str] = []
    users = 0
    for message in trajectory.messages:
        role = message.get("role")
        users += role == "user"
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not calls:
                said = " ".join(str(message.get("content") or "").split())
                lines.append(f"said (no tool call): {said or '(an empty reply)'}")
            for call in calls:
                function = call.get("function", {})
                lines.append(f"→ {function.get('name')}({_compact(function.get('arguments'))})")
        elif role == "user" and users > 1:  # the first is the question
            lines.append(f"nudged: {message.get('content')}")
        elif role == "tool":
            observed = str(message.get("content") or "").splitlines()
            lines += [f"    {line}" for line in observed[:observation_lines]]
            if len(observed) > observation_lines:
                lines.append(f"    … {len(observed) - observation_lines} more lines")
    lines.append(f"stopped: {trajectory.stop_reason}; answers: {len(trajectory.answers)}")
    return lines


def _compact(arguments: object) -> str:
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return str(arguments)
    if isinstance(parsed, dict):
        return ", ".join(f"{key}={json.dumps(value)}" for key, value in parsed.items())
    return str(arguments)
