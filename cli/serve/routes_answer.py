"""`POST /api/answer` (SARG: answer, chains, citations) and `POST /api/plan` (GRASP plan, ranking).

Both run in a worker thread (cli/serve/runs.py) and stop when the client disconnects.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from cli.serve.context import ServeContext
from cli.serve.routes_graph import node_card
from cli.serve.runs import ThreadedRun
from cli.serve.state import ServedGraph
from evals.qa.records import MAX_QUESTION_CHARS, check_question

_POLL_S = 0.25


class AnswerBody(BaseModel):
    """A question for SARG (the `ark answer` settings a client may set; paper defaults)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question.")
    snapshot: str | None = Field(default=None, description="Snapshot label (default: the first).")
    model: str | None = Field(
        default=None, description="Generator (openai:NAME, hf:PATH); none: answer offline."
    )
    method: str = Field(default="sarg", description="sarg | direct | rag | cot-rag | flat-chains")
    passages: int = Field(default=10, ge=1, le=100, description="Passages / nodes retrieved.")
    direction: str = Field(default="rule", description="rule | learned | forward | backward | …")
    beam_width: int = Field(default=3, ge=1, le=20, description="β, chains kept per depth.")
    top_k: int = Field(default=3, ge=1, le=20, description="Chains given to the generator.")
    max_depth: int = Field(default=4, ge=1, le=8, description="Hops per chain at most.")
    extraction: str = Field(default="auto", description="auto | per-query | snapshot")


class PlanBody(BaseModel):
    """A question for GRASP's planner (the `ark plan` settings a client may set)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question.")
    snapshot: str | None = Field(default=None, description="Snapshot label (default: the first).")
    model: str = Field(default="rules", description="Planner: rules (offline) or a model spec.")
    depth: int = Field(default=100, ge=1, le=1000, description="Candidates ranked.")
    top: int = Field(default=20, ge=1, le=200, description="Candidates returned.")


async def run_cancellable(request: Request, work: Any) -> Any:
    """Await `work()` in a worker thread; cancel it if the client disconnects."""
    run: ThreadedRun[Any] = ThreadedRun(lambda _emit: work())
    while not run.future.done():
        if await request.is_disconnected():
            run.cancel()
        await asyncio.wait({run.future}, timeout=_POLL_S)
    return run.future.result()


def _cards(served: ServedGraph, ids: list[str]) -> dict[str, dict[str, Any]]:
    cards = {}
    for node_id in dict.fromkeys(ids):
        card = node_card(served, node_id).model_dump(exclude={"score"})
        card["text"] = served.snapshot.text(served.snapshot.internal_id(node_id))
        cards[node_id] = card
    return cards


def router(ctx: ServeContext) -> APIRouter:
    """The answer and plan routes over `ctx`."""
    api = APIRouter(prefix="/api", tags=["answer"])

    @api.post("/answer", summary="SARG: the answer, its chains and the passages they cite")
    async def answer(body: AnswerBody, request: Request) -> dict[str, Any]:
        from answer.config import SargConfig

        question = check_question(body.question)
        served = ctx.graphs.get(body.snapshot)
        settings = body.model_dump(exclude={"question", "snapshot", "model"})
        config = SargConfig(**settings)

        async def work() -> Any:
            answerer = ctx.deps.answerer(served.snapshot, config, body.model)
            return await answerer.answer(question)

        result = await run_cancellable(request, work)
        chain_ids = [node for chain in result.chains for node in chain.nodes]
        return {
            "snapshot": served.label,
            **result.model_dump(mode="json", exclude={"messages"}),
            "nodes": _cards(served, chain_ids + list(result.citations)),
        }

    @api.post("/plan", summary="GRASP: the question as a graph plan, executed, and its ranking")
    async def plan(body: PlanBody, request: Request) -> dict[str, Any]:
        from rank.baselines.plan_run import plan_record
        from tools.plans.execute import PlanExecutor

        question = check_question(body.question)
        served = ctx.graphs.get(body.snapshot)

        async def work() -> Any:
            planned = await _planner(served, body.model).plan(question)
            outcome = PlanExecutor(served.snapshot, depth=body.depth).run(planned.plan)
            return planned, outcome

        planned, outcome = await run_cancellable(request, work)
        ranking = [
            {
                "id": c.node_id, "name": c.name, "type": c.type, "score": round(c.score, 4),
                "anchor_score": round(c.anchor_score, 4), "relevance": round(c.relevance, 4),
            }
            for c in outcome.ranking[: body.top]
        ]  # fmt: skip
        return {"snapshot": served.label, **plan_record(planned, outcome), "ranking": ranking}

    return api


def _planner(served: ServedGraph, model: str) -> Any:
    from agent.config import AgentConfig
    from agent.models.registry import load_model
    from agent.planner import LLMPlanner, OfflinePlanner, PlannerConfig

    if model == "rules":
        return OfflinePlanner(served.snapshot)
    spec = AgentConfig(model=model, max_tokens=384, request_timeout_s=600.0, call_deadline_s=None)
    llm = load_model(spec, manifest=served.snapshot.manifest)
    return LLMPlanner(llm, served.snapshot.manifest, PlannerConfig())
