"""`ark answer` and `ark eval answers` / `ark eval answers-report`: SARG's grounded answers."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from answer.config import SargConfig
from cli.answerers import WarmAnswerers
from cli.flags.agent import EndpointFlags
from cli.flags.executor import ExecutorFlags
from cli.flags.groups import with_flags
from cli.flags.run import AnswerQaOpt, OutOpt, ResumeOpt, SampleFlags
from cli.flags.sarg import SargFlags
from cli.guards import fail
from cli.output.answer_text import print_answer, time_split
from cli.output.language_warning import LanguageWarning
from evals.qa.records import check_question

if TYPE_CHECKING:
    from answer.pipeline import Answerer
    from graphs.snapshot import Snapshot

SnapshotArg = Annotated[Path, typer.Argument(help="Snapshot directory (documents or a typed KG).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@dataclass(frozen=True)
class Wiring:
    """What both commands build from their flags."""

    config: SargConfig
    model_spec: str | None
    encoder: Path | None
    agent_model: str
    endpoint: dict[str, Any]
    """The generator's endpoint settings given as flags (AgentConfig field -> value)."""
    spacy_model: str | None = None
    """The offline reader's spaCy pipeline (None: en_core_web_sm)."""

    def warm(self) -> WarmAnswerers:
        """The once-loaded parts these flags ask for (encoder, spaCy pipeline, endpoint)."""
        encoder = str(self.encoder) if self.encoder else None
        return WarmAnswerers(encoder, self.endpoint, spacy_model=self.spacy_model)

    def endpoint_record(self) -> dict[str, Any]:
        """The endpoint settings as stored in a run's configuration (credentials redacted)."""
        from agent.models.endpoint_url import redact_url

        record = dict(self.endpoint)
        if record.get("base_url"):
            record["base_url"] = redact_url(record["base_url"])
        return record


@with_flags()
def answer_cmd(
    snapshot: SnapshotArg,
    question: Annotated[str, typer.Argument(help="The question, in natural language.")],
    *,
    sarg: SargFlags,
    endpoint: EndpointFlags,
    as_json: JsonOpt = False,
) -> None:
    """Answer QUESTION over SNAPSHOT with SARG: the answer, its chains and their sources."""
    question = check_question(question)  # before any model loads
    wiring = _wiring(sarg, endpoint)
    if wiring.config.retrieval == "gold":
        fail(
            "--retrieval gold answers from the passages a QA row names; it is for "
            "`ark eval answers --qa FILE` (use --retrieval search here)"
        )
    warm = wiring.warm()
    started = time.perf_counter()
    opened, answerer = _answerer(snapshot, wiring, warm)
    LanguageWarning(opened).note(question)
    answering = time.perf_counter()
    result = asyncio.run(answerer.answer(question))
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    console = Console()
    print_answer(result, opened, console)
    console.print(time_split(warm.load_s, answering - started, time.perf_counter() - answering))


def worker_answerer(
    snapshot: Path, wiring: Wiring, endpoints: tuple[str, ...], index: int
) -> Answerer:
    """Ray worker `index`'s answerer: the driver's, on `endpoints[index % n]` when given."""
    if endpoints:
        wiring = replace(
            wiring, endpoint={**wiring.endpoint, "base_url": endpoints[index % len(endpoints)]}
        )
    return _answerer(snapshot, wiring)[1]


def _wiring(sarg: SargFlags, endpoint_flags: EndpointFlags) -> Wiring:
    config = sarg.config()
    return Wiring(
        config, sarg.model, sarg.encoder, sarg.agent_model, endpoint_flags.endpoint(),
        sarg.spacy_model,
    )  # fmt: skip


def _answerer(
    snapshot_path: Path, wiring: Wiring, warm: WarmAnswerers | None = None
) -> tuple[Snapshot, Answerer]:
    from agent.config import AgentConfig
    from graphs.snapshot import Snapshot

    snapshot = Snapshot.open(snapshot_path)
    agent = None
    if wiring.config.retriever == "agents":
        from agent.factory import make_agent

        agent = make_agent(snapshot, AgentConfig(model=wiring.agent_model))
    warm = warm or wiring.warm()
    answerer = warm.answerer(snapshot, wiring.config, wiring.model_spec, agent=agent)
    return snapshot, answerer


@with_flags(without={"where": ("shard_size",)})
def eval_answers(
    snapshot: SnapshotArg,
    qa: AnswerQaOpt,
    out: OutOpt,
    *,
    sarg: SargFlags,
    endpoint: EndpointFlags,
    where: ExecutorFlags,
    questions: SampleFlags,
    resume: ResumeOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Answer a QA file into a resumable run directory, scored by EM and token F1.

    A question whose attempt failed scores 0 in the means (and is listed); --resume retries it.
    """
    from evals.answers.run import load_answer_qa, run_answers, summarise, unresolved_failures

    wiring = _wiring(sarg, endpoint)
    console = Console(stderr=True)
    limit = questions.limit
    if limit is not None and questions.sample is not None:
        fail("give --limit N (the first N) or --sample N (a random N), not both")
    drawn = questions.question_sample()
    items = drawn.apply(load_answer_qa(qa))[:limit]
    executor = where.config()
    run_config = {
        "baseline": {
            **wiring.config.to_record(),
            "model": wiring.model_spec or "offline",
            **wiring.endpoint_record(),
        },
        "snapshot": str(snapshot.resolve()),
        "qa": str(qa.resolve()),
        "sample": drawn.to_record(),
        "limit": limit,
    }

    def progress(record: Any) -> None:
        mark = f"EM {record.em:.0f} F1 {record.f1:.2f}" if hasattr(record, "em") else "failed"
        console.print(f"{record.question_id}: {mark}", highlight=False)

    pool = None
    try:
        if executor.kind == "ray":
            from evals.answers.ray_workers import RayAnswers

            make = functools.partial(worker_answerer, snapshot, wiring, executor.endpoints)
            pool = RayAnswers(make, executor.workers)
            answer_fn = pool.answer
        else:
            answer_fn = _answerer(snapshot, wiring)[1].answer
        records = asyncio.run(
            run_answers(
                answer_fn, items, out, run_config, resume=resume, on_record=progress,
                concurrency=executor.workers if pool is not None else 1,
            )
        )  # fmt: skip
    finally:
        if pool is not None:
            pool.close()
    summary = summarise(records, unresolved_failures(out, records))
    if as_json:
        print(json.dumps({"out": str(out), **summary}))
        return
    failed = summary["failed"]
    print(
        f"{out}: {summary['answered']} of {summary['n']} answered, EM {summary['em']:.3f}, "
        f"F1 {summary['f1']:.3f} (a failed question scores 0), no chain {summary['no_chain']}, "
        f"construction {summary['construct_s']:.2f} s/q, generation {summary['generate_s']:.2f} s/q"
    )
    if failed:
        print(f"failed ({len(failed)}; --resume retries them): {', '.join(failed)}")


def answers_report(
    runs: Annotated[list[Path], typer.Argument(help="Answers run directories.")],
    out: Annotated[Path | None, typer.Option("--out", help="Write the Markdown here.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Answers runs side by side: EM, F1 and timings per run, then every question's answers."""
    from evals.answers.report import load_answer_runs, markdown_answers_report

    loaded = load_answer_runs(runs)
    if as_json:
        print(json.dumps([{"run": run.label, **run.summary()} for run in loaded]))
        return
    text = markdown_answers_report(loaded)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    print(text)


EVAL_COMMANDS: dict[str, Callable[..., None]] = {
    "answers": eval_answers,
    "answers-report": answers_report,
}
"""Sub-commands this module adds to `ark eval`."""


def register(app: typer.Typer) -> None:
    """Add `ark answer`, and `answers` / `answers-report` to `ark eval` (registered before)."""
    app.command("answer")(answer_cmd)
    for group in app.registered_groups:
        if group.name == "eval" and group.typer_instance is not None:
            for name, command in EVAL_COMMANDS.items():
                group.typer_instance.command(name)(command)
