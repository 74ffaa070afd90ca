"""`POST /api/ask`: ARK's agents on a question, streamed as server-sent events or answered as JSON.

The run happens in a worker thread (cli/serve/runs.py); a client that disconnects, or a
`DELETE /api/runs/{id}`, cancels it. Every run is recorded like `ark ask --save` (a cancelled
one as a `Cancelled` failure), one run directory per snapshot and configuration under
`--runs`, so `ark eval report` reads them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from agent.config import AgentConfig
from agent.events import AgentEvent
from agent.trajectory import QuestionResult, new_question_id
from agent.vote import chosen_and_tail, chosen_answers, select_reasons
from cli.flags.agent import agent_config
from cli.serve.context import ServeContext
from cli.serve.routes_graph import node_card
from cli.serve.runs import ThreadedRun
from cli.serve.state import ServedGraph, ServeError
from evals.answers.log import answer_run_config, save_answer, save_cancelled
from evals.qa.records import MAX_QUESTION_CHARS, check_question
from graphs.errors import ArkError

EVENT_STREAM = "text/event-stream"
_DISCONNECT_POLL_S = 0.25


class AskBody(BaseModel):
    """A question for ARK's agents (the `ark ask` flags a client may set)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question.")
    snapshot: str | None = Field(default=None, description="Snapshot label (default: the first).")
    model: str = Field(
        default="rules",
        description="Model spec: rules (offline), hf:PATH, openai:NAME or a served NAME (the "
        "server's OPENAI_BASE_URL / OPENAI_API_KEY say where).",
    )
    agents: int = Field(default=3, ge=1, description="Parallel agents fused by vote.")
    max_steps: int = Field(default=20, ge=1, description="Model turns per agent at most.")
    temperature: float = Field(default=0.7, ge=0.0, le=2.0, description="Sampling temperature.")
    answer_types: list[str] = Field(default_factory=list, description="Answer node types.")
    save: bool = Field(default=True, description="Record the run under the server's --runs.")


def _config(body: AskBody, ctx: ServeContext) -> AgentConfig:
    limits = ctx.options
    if body.agents > limits.max_agents or body.max_steps > limits.max_steps:
        raise ServeError(
            f"at most {limits.max_agents} agents and {limits.max_steps} steps per agent on "
            f"this server (asked {body.agents} and {body.max_steps}); ask for fewer"
        )
    return agent_config(
        model=body.model,
        agents=body.agents,
        max_steps=body.max_steps,
        temperature=body.temperature,
        answer_types=body.answer_types or None,
    )


def run_dir(runs: Path, label: str, config: AgentConfig) -> Path:
    """The run directory of `label`'s answers under `config` (one configuration per directory)."""
    record = json.dumps(config.to_record(), sort_keys=True, default=str)
    digest = hashlib.sha256(record.encode("utf-8")).hexdigest()[:8]
    model = "".join(c if c.isalnum() or c in "-_." else "-" for c in config.model)
    return runs / f"{label}-{model}-{digest}"


def answers_json(result: QuestionResult, served: ServedGraph) -> list[dict[str, Any]]:
    """The fused answers with names, types, votes and the reason an agent gave."""
    reasons: dict[str, str] = {}
    for trajectory in result.trajectories:
        for node_id, reason in select_reasons(trajectory.messages).items():
            reasons.setdefault(node_id, reason)
    chosen, _ = chosen_and_tail(
        result.fused, [chosen_answers(t.messages, t.answers) for t in result.trajectories]
    )
    rows = []
    for node_id in result.fused:
        card = node_card(served, node_id).model_dump(exclude={"score"})
        card |= {
            "votes": result.votes.get(node_id, 0),
            "reason": reasons.get(node_id, ""),
            "chosen": node_id in chosen,
        }
        rows.append(card)
    return rows


def result_json(result: QuestionResult, served: ServedGraph, record: Path | None) -> dict[str, Any]:
    """The final result of an ask, as the API returns it."""
    return {
        "question_id": result.question_id,
        "question": result.question,
        "snapshot": served.label,
        "model": result.model,
        "answers": answers_json(result, served),
        "votes": result.votes,
        "failed": result.failed,
        "errors": result.errors,
        "agents": [
            {"agent": t.agent_index, "steps": len(t.steps), "stop_reason": t.stop_reason}
            for t in result.trajectories
        ],
        "wall_s": round(result.wall_s, 3),
        "record": str(record) if record else None,
    }


def sse(event: str, data: Any) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def router(ctx: ServeContext) -> APIRouter:
    """The ask route and run cancellation over `ctx`."""
    api = APIRouter(prefix="/api", tags=["ask"])

    @api.post(
        "/ask",
        summary="Ask ARK's agents (SSE with Accept: text/event-stream, else JSON)",
        responses={200: {"content": {EVENT_STREAM: {}, "application/json": {}}}},
    )
    async def ask(body: AskBody, request: Request) -> Any:
        question = check_question(body.question)
        served = ctx.graphs.get(body.snapshot)
        config = _config(body, ctx)
        ark = await asyncio.to_thread(ctx.deps.agent, served.snapshot, config)  # loads a model
        question_id = new_question_id("serve")
        record = run_dir(ctx.options.runs_dir, served.label, config) if body.save else None
        stored = answer_run_config(config.to_record(), served.path)

        async def work(emit: Any) -> QuestionResult:
            result = await ark.ask(question, question_id=question_id, on_event=emit)
            if record is not None:
                save_answer(record, result, stored)
            return result

        def cancelled() -> None:
            if record is not None:
                reason = "cancelled: the client disconnected or stopped the run"
                save_cancelled(record, question_id, question, stored, reason)

        run: ThreadedRun[QuestionResult] = ThreadedRun(work, on_cancel=cancelled)
        ctx.runs.add(run)
        head = {"run_id": run.id, "question_id": question_id, "snapshot": served.label}
        if EVENT_STREAM in request.headers.get("accept", ""):
            return StreamingResponse(
                _stream(run, head, served, record),
                media_type=EVENT_STREAM,
                headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            )
        return JSONResponse({**head, **await _wait(run, request, served, record)})

    @api.delete("/runs/{run_id}", summary="Cancel a run in flight (its record says so)")
    def cancel(run_id: str) -> dict[str, str]:
        ctx.runs.cancel(run_id)
        return {"run_id": run_id, "state": "cancelling"}

    return api


async def _wait(
    run: ThreadedRun[QuestionResult], request: Request, served: ServedGraph, record: Path | None
) -> dict[str, Any]:
    while not run.future.done():
        if await request.is_disconnected():
            run.cancel()
        await asyncio.wait({run.future}, timeout=_DISCONNECT_POLL_S)
    return result_json(run.future.result(), served, record)


async def _stream(
    run: ThreadedRun[QuestionResult],
    head: dict[str, Any],
    served: ServedGraph,
    record: Path | None,
) -> AsyncIterator[str]:
    try:
        yield sse("start", head)
        async for event in run.events():
            if isinstance(event, AgentEvent):
                yield sse("turn", asdict(event))
        result = await run.future
        yield sse("result", {**head, **result_json(result, served, record)})
    except ArkError as error:
        yield sse("error", {"error": type(error).__name__, "detail": str(error)})
    finally:
        if not run.future.done():
            run.cancel()  # the client went away: stop the agents, the record says cancelled
