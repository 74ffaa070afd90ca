"""`ark plan`: a question as a GRASP plan, executed on the snapshot; or a question set as a run."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from cli.flags.agent import EndpointFlags, structured_mode
from cli.flags.executor import ExecutorFlags
from cli.flags.groups import with_flags
from cli.flags.run import OptionalOutOpt, OptionalQaOpt, ResumeOpt, SampleFlags, SplitOpt
from cli.guards import user_errors
from evals.qa.records import check_question

if TYPE_CHECKING:
    from agent.planner import Planned, Planner, PlannerConfig
    from evals.runs.executor import ExecutorConfig
    from graphs.snapshot import Snapshot
    from tools.dense import DenseSearch
    from tools.plans.execute import PlanOutcome

ModelOpt = Annotated[
    str,
    typer.Option(
        "--model", "-m", envvar="ARK_MODEL",
        help="Planner: rules (offline) | hf:PATH | openai:NAME or a served model name.",
    ),
]  # fmt: skip


def _planner(
    snapshot: Snapshot, model: str, endpoint: EndpointFlags, config: PlannerConfig, max_tokens: int
) -> Planner:
    from agent.config import AgentConfig
    from agent.models.registry import load_model
    from agent.planner import LLMPlanner, OfflinePlanner

    if model == "rules":
        return OfflinePlanner(snapshot)
    # A plan is one long prompt on possibly slow local servers: unless the flags say otherwise,
    # one request may take 600 s and a call has no deadline.
    given = {"request_timeout_s": 600.0, "call_deadline_s": None, **endpoint.endpoint()}
    spec = AgentConfig(model=model, max_tokens=max_tokens, **given)
    llm = load_model(spec, manifest=snapshot.manifest)
    return LLMPlanner(llm, snapshot.manifest, config)


def _dense(snapshot: Snapshot, encoder: Path | None) -> DenseSearch | None:
    if encoder is None:
        return None
    from graphs.dense.encoder import TextEncoder
    from tools.dense import DenseSearch

    return DenseSearch.open(snapshot, TextEncoder.load(encoder))


def _show(console: Console, planned: Planned, outcome: PlanOutcome, top: int, cypher: bool) -> None:
    from tools.plans.cypher import to_cypher

    plan = planned.plan
    console.print(
        "[bold]plan[/]" + ("  [red](invalid: text fallback)[/]" if planned.invalid else "")
    )
    console.print(json.dumps(plan.model_dump(by_alias=True), indent=2), markup=False)
    for error in planned.errors:
        console.print(f"[yellow]rejected[/]: {error}", markup=False)
    for var, rows in outcome.bindings.items():
        shown = ", ".join(f"[{i}] {name} {score:.3f}" for i, name, score in rows[:10])
        console.print(f"{var} binds {len(rows)}: {shown}", markup=False, highlight=False)
    console.print(f"n_cand {outcome.n_cand}  risk_level {outcome.risk_level}  "
                  f"planned in {planned.latency_s:.2f} s")  # fmt: skip
    for rank, c in enumerate(outcome.ranking[:top], start=1):
        console.print(f"{rank:3d}. [{c.node_id}] {c.name} ({c.type})  {c.score:.3f} "
                      f"= anchors {c.anchor_score:.3f} + text {c.relevance:.3f}",
                      markup=False, highlight=False)  # fmt: skip
    if cypher:
        console.print("[bold]cypher[/]")
        console.print(to_cypher(plan), markup=False, highlight=False)


@with_flags()
def plan(
    snapshot: Annotated[Path, typer.Argument(help="Snapshot directory.")],
    question: Annotated[str | None, typer.Argument(help="The question (omit with --qa).")] = None,
    *,
    endpoint: EndpointFlags,
    where: ExecutorFlags,
    questions: SampleFlags,
    model: ModelOpt = "rules",
    examples: Annotated[
        Path | None,
        typer.Option("--examples", help='Worked examples: JSONL of {"question", "plan"}.'),
    ] = None,
    retries: Annotated[int, typer.Option("--retries", min=0, help="Re-asks on a bad plan.")] = 1,
    structured: Annotated[
        str,
        typer.Option(
            "--structured",
            help="How the plan's JSON is asked for: auto (the snapshot's JSON schema where the "
            "endpoint takes response_format, else the prompt), schema, or prompt.",
        ),
    ] = "auto",
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="Cap on a plan reply's tokens.")
    ] = 384,
    depth: Annotated[int, typer.Option("--depth", min=1, help="Candidates ranked.")] = 100,
    top: Annotated[int, typer.Option("--top", min=1, help="Candidates printed.")] = 10,
    encoder: Annotated[
        Path | None,
        typer.Option(
            "--encoder",
            help="Link anchors and rescore by cosine over the snapshot's embeddings, encoding "
            "with this sentence-transformers directory (the one `ark graph embed` used); "
            "default BM25.",
        ),
    ] = None,
    cypher: Annotated[
        bool, typer.Option("--cypher", help="Also print the equivalent Cypher.")
    ] = False,
    qa: OptionalQaOpt = None,
    out: OptionalOutOpt = None,
    split: SplitOpt = None,
    resume: ResumeOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Plan a question as a graph query (GRASP stage 1), execute it, show the ranking.

    With --qa and --out, plan every question of a split into a run directory (rankings, plan,
    n_cand, risk_level per question) for `ark eval report` and `ark fuse --mode dynamic`.
    """
    from agent.planner import PlannerConfig, load_examples
    from graphs.snapshot import Snapshot
    from rank.baselines.plan_run import plan_record
    from tools.plans.errors import PlanError
    from tools.plans.execute import PlanExecutor

    err = Console(stderr=True)
    if (question is None) == (qa is None):
        raise typer.BadParameter("give either a QUESTION or --qa FILE --out DIR")
    if qa is not None and out is None:
        raise typer.BadParameter("--qa writes a run directory: add --out DIR")
    with user_errors(err, PlanError):
        config = PlannerConfig(
            retries=retries,
            examples=load_examples(examples) if examples else (),
            structured=structured_mode(structured),
        )
        if qa is not None and out is not None:
            _batch(
                snapshot,
                qa,
                out,
                model,
                endpoint,
                config,
                max_tokens,
                encoder,
                depth,
                split,
                questions,
                resume,
                where.config(),
            )
            _print_plan_counts(out)
            Console().print(f"results in {out}", style="dim")
            return
        opened = Snapshot.open(snapshot)
        planner = _planner(opened, model, endpoint, config, max_tokens)
        planned = asyncio.run(planner.plan(check_question(str(question))))
        outcome = PlanExecutor(opened, dense=_dense(opened, encoder), depth=depth).run(planned.plan)
    if as_json:
        record = plan_record(planned, outcome)
        record["ranking"] = [c.node_id for c in outcome.ranking]
        print(json.dumps(record))
        return
    _show(Console(), planned, outcome, top, cypher)


def _batch(
    snapshot: Path, qa: Path, out: Path, model: str, endpoint: EndpointFlags, config: PlannerConfig,
    max_tokens: int, encoder: Path | None, depth: int, split: str | None,
    questions: SampleFlags, resume: bool, executor: ExecutorConfig,
) -> None:  # fmt: skip
    from evals.runs.request import RunRequest
    from rank.baselines.plan_run import run_plans

    request = RunRequest(
        snapshot=snapshot, qa=qa, out=out, split=split,
        sample=questions.question_sample(), limit=questions.limit, resume=resume,
        concurrency=1,
    )  # fmt: skip
    run_plans(
        request,
        lambda opened: _planner(opened, model, endpoint, config, max_tokens),
        planner_name=model,
        depth=depth,
        make_dense=(lambda opened: _dense(opened, encoder)) if encoder else None,
        executor=executor,
        make_planner_at=lambda opened, url: _planner(
            opened, model, replace(endpoint, base_url=url), config, max_tokens
        ),
    )


def _print_plan_counts(out: Path) -> None:
    """One line: how the run's plans came back (invalid, repaired, how they were asked)."""
    from evals.summary import summarize_run

    counts = summarize_run(out).plans
    if counts:
        asked = ", ".join(
            f"{key.removeprefix('asked_as_')} {value}"
            for key, value in sorted(counts.items())
            if key.startswith("asked_as_")
        )
        Console().print(
            f"plans: {counts['planned']} planned, {counts['invalid']} invalid (text fallback), "
            f"{counts['repaired']} repaired" + (f"; asked as {asked}" if asked else ""),
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add `ark plan`."""
    app.command("plan")(plan)
