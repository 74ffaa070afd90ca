"""Commands of the `ark` CLI: `ark fuse` (rank fusion) and `ark rerank` (stage-3 reranking)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cli.flags.agent import EndpointFlags
from cli.flags.groups import with_flags
from cli.flags.rerank import RerankDocFlags
from cli.flags.run import JsonOpt, LimitOpt, NewRunFlags, SampleFlags
from cli.guards import user_errors
from graphs.cache_dir import cache_path

SourcesArg = Annotated[
    list[str],
    typer.Argument(
        help="Ranking sources: run directories (ark eval / baseline / fuse / rerank) or JSONL "
        'files of {"id", "ranking"}; join runs of one source with commas (val_run,test_run). '
        "The first is the graph branch (dynamic RRF weighs it per question)."
    ),
]
TuneSplitOpt = Annotated[str, typer.Option("--tune-split", help="Split the grid is tuned on.")]
SnapshotOpt = Annotated[
    Path | None,
    typer.Option("--snapshot", help="Snapshot for candidate types (default: the runs' own)."),
]
ProtocolOpt = Annotated[
    str, typer.Option("--protocol", help="Protocol whose Hit@1 the grid maximises: ark or stark.")
]


def _parse_weights(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        weights = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise typer.BadParameter(
            f"--weights must be numbers separated by commas (one per source), got {text!r}"
        ) from None
    if not all(math.isfinite(w) and w >= 0 for w in weights) or not any(weights):
        raise typer.BadParameter(
            f"--weights must be finite and not negative, at least one above 0, got {text!r}"
        )
    return weights


def _finite_k(value: float) -> float:
    if not math.isfinite(value):
        raise typer.BadParameter(f"--k must be a finite number (the RRF constant), got {value}")
    return value


def _summary_lines(out: Path) -> list[str]:
    from evals.summary import summarize_run

    summary = summarize_run(out)
    lines = []
    for protocol in ("ark", "stark"):
        means = summary.overall.means()[protocol]
        cells = "  ".join(f"{name} {value:.3f}" for name, value in means.items())
        lines.append(f"{protocol:5s} {cells}  ({summary.overall.questions} questions)")
    return lines


@with_flags()
def fuse(
    sources: SourcesArg,
    *,
    run: NewRunFlags,
    grid: Annotated[
        bool,
        typer.Option("--grid", help="Grid-search static and dynamic RRF on --tune-split, freeze."),
    ] = False,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="With --grid: best, static, dynamic (GRASP: the first source is a plan run, "
            "keyed on n_cand and risk_level) or agents (an agent run's own signals).",
        ),
    ] = "best",
    weights: Annotated[
        str | None,
        typer.Option("--weights", help="Static weights, one per source (default equal)."),
    ] = None,
    k: Annotated[
        float, typer.Option("--k", min=0.0, callback=_finite_k, help="Static RRF constant.")
    ] = 60.0,
    spec: Annotated[
        Path | None,
        typer.Option("--spec", help="Reuse a frozen fusion.json (e.g. to fuse the train split)."),
    ] = None,
    tune_split: TuneSplitOpt = "val",
    snapshot: SnapshotOpt = None,
    protocol: ProtocolOpt = "stark",
    depth: Annotated[int, typer.Option("--depth", min=1, help="Length of each fused list.")] = 100,
    limit: LimitOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fuse rankings by reciprocal rank fusion into a new run directory (GRASP stage 2)."""
    from rank.fusion.fuse import FusionError, spec_record
    from rank.fusion.run import FuseRequest, run_fusion
    from rank.rankings import RankingError

    modes = {"best": ("static", "dynamic", "agents"), "static": ("static",),
             "dynamic": ("dynamic",), "agents": ("agents",)}  # fmt: skip
    if mode not in modes:
        raise typer.BadParameter(f"--mode must be best, static, dynamic or agents, got {mode!r}")
    if grid and spec is not None:
        raise typer.BadParameter("--grid tunes a new spec; drop --spec (or drop --grid)")
    request = FuseRequest(
        sources=sources, qa=run.qa, out=run.out, split=run.split, tune_split=tune_split,
        grid=grid, modes=modes[mode], weights=_parse_weights(weights), k=k, spec_file=spec,
        snapshot=snapshot, protocol=protocol, depth=depth, limit=limit,
    )  # fmt: skip
    err = Console(stderr=True)
    with user_errors(err, RankingError, FusionError):
        outcome = run_fusion(request)
    for note in outcome.notes:
        err.print(f"[yellow]note[/]: {note}")
    if as_json:
        print(json.dumps({"spec": spec_record(outcome.spec), "written": outcome.written,
                          "out": str(run.out)}))  # fmt: skip
        return
    console = Console()
    if outcome.grid is not None:
        static, hit, mrr = outcome.grid.static
        console.print(f"validation static  Hit@1 {hit:.3f} MRR {mrr:.3f}  {spec_record(static)}")
        if outcome.grid.dynamic is not None:
            dynamic, hit, mrr = outcome.grid.dynamic
            console.print(
                f"validation dynamic Hit@1 {hit:.3f} MRR {mrr:.3f}  {spec_record(dynamic)}"
            )
        if outcome.grid.agents is not None:
            agents, hit, mrr = outcome.grid.agents
            console.print(
                f"validation agents  Hit@1 {hit:.3f} MRR {mrr:.3f}  {spec_record(agents)}"
            )
    console.print(f"applied {outcome.spec.mode} RRF to {outcome.written} {run.split} questions")
    for line in _summary_lines(run.out):
        console.print(line)
    console.print(f"results in {run.out}", style="dim")


@with_flags()
def rerank(
    source: Annotated[
        str,
        typer.Argument(
            help="The stage-2 ranking: a run dir (e.g. from `ark fuse`) or JSONL; join the "
            "tuning and output splits' runs with a comma (val_run,test_run)."
        ),
    ],
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            help="Reranker: a transformers model dir or name, a .gguf file, an adapter dir "
            "from `ark distill reranker`, or openai:MODEL with --base-url.",
        ),
    ],
    *,
    run: NewRunFlags,
    endpoint: EndpointFlags,
    doc: RerankDocFlags,
    questions: SampleFlags,
    depth: Annotated[
        int, typer.Option("--depth", min=1, help="Candidates reranked per question (GRASP: 100).")
    ] = 100,
    batch_size: Annotated[
        int,
        typer.Option("--batch-size", min=1, help="Chats per forward pass / requests in flight."),
    ] = 8,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            help="Score cache (SQLite; default rerank.sqlite in ARK's cache, ~/.cache/ark); "
            "reruns read scores from it.",
        ),
    ] = None,
    tune_split: Annotated[
        str,
        typer.Option("--tune-split", help="Split the final RRF is tuned on; 'none': no fusion."),
    ] = "val",
    snapshot: SnapshotOpt = None,
    protocol: ProtocolOpt = "stark",
    as_json: JsonOpt = False,
) -> None:
    """Rerank a ranking's top candidates by P(yes) and fuse back by tuned RRF (GRASP stage 3)."""
    import os

    from agent.config import AgentConfig
    from rank.rankings import RankingError
    from rank.rerank.cache import RerankCacheError
    from rank.rerank.models import RerankError
    from rank.rerank.run import RerankRequest, run_rerank
    from rank.rerank.scorer import make_scorer

    request = RerankRequest(
        source=source, qa=run.qa, out=run.out, split=run.split,
        tune_split=None if tune_split == "none" else tune_split, depth=depth,
        limit=questions.limit, sample=questions.question_sample(),
        cache=(cache or cache_path("rerank")).expanduser(),
        snapshot=snapshot, protocol=protocol,
        doc=doc.doc(),
    )  # fmt: skip
    err = Console(stderr=True)
    with user_errors(err, RankingError, RerankError, RerankCacheError):
        scorer = make_scorer(
            model, endpoint=AgentConfig(**endpoint.endpoint()),
            api_key=os.environ.get("OPENAI_API_KEY"), batch_size=batch_size,
        )  # fmt: skip
        outcome = run_rerank(request, scorer)
    summary = {
        "spec": {"weights": outcome.spec.weights, "k": outcome.spec.k},
        "validation": outcome.validation,
        "scored": outcome.scored,
        "candidates_per_s": round(outcome.candidates_per_second, 2),
        "cache_hit_rate": round(outcome.cache.hit_rate, 4),
        "written": outcome.written,
    }
    if as_json:
        print(json.dumps(summary))
        return
    console = Console()
    console.print(
        f"scored {outcome.scored} candidates ({summary['candidates_per_s']}/s); cache hit "
        f"rate {outcome.cache.hit_rate:.1%}; final RRF (reranker w, k) = "
        f"({outcome.spec.weights[0]}, {outcome.spec.k:g})"
    )
    for name, value in outcome.validation.items():
        console.print(f"validation {name} {value:.3f}")
    for line in _summary_lines(run.out):
        console.print(line)
    console.print(f"results in {run.out}", style="dim")


def register(app: typer.Typer) -> None:
    """Add `ark fuse` and `ark rerank`."""
    app.command("fuse")(fuse)
    app.command("rerank")(rerank)
