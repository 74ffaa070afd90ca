"""ArkAgent: runs n agents on a question concurrently and fuses their answer lists by vote."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig

from agent.events import AgentEvent, EventHandler
from agent.graph import build_agent_graph
from agent.state import AgentState, RunContext
from agent.trajectory import QuestionResult, StepRecord, StopReason, Trajectory
from agent.vote import fuse

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.models.base import Model
    from tools.toolset import Toolset


class ArkAgent:
    """The ARK retriever: an LLM alternating global search and neighbourhood exploration.

    Args:
        toolset: The tools over one snapshot (shared, read-only).
        model: The model every agent uses.
        config: Run configuration (number of agents, step limit, sampling).
        system_prompt: The rendered system prompt (see agent/prompt.py).
    """

    def __init__(
        self, toolset: Toolset, model: Model, config: AgentConfig, *, system_prompt: str
    ) -> None:
        self.toolset = toolset
        self.model = model
        self.config = config
        self.system_prompt = system_prompt
        self.tools = toolset.schemas()
        self._graph = build_agent_graph()

    async def run_one(
        self,
        question: str,
        *,
        agent_index: int = 0,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> Trajectory:
        """Run one agent to completion and return its trajectory."""
        context = RunContext(
            toolset=self.toolset,
            model=self.model,
            config=self.config,
            tools=self.tools,
            agent_index=agent_index,
            on_event=on_event,
        )
        initial: AgentState = {
            "messages": [
                {"role": "system", "content": self.system_prompt},
                {"role": "user", "content": question},
            ],
            "answers": [],
            "steps": [],
            "step": 0,
        }
        started = time.perf_counter()
        # Each model turn takes at most three graph super-steps (model, tools or nudge).
        limit = RunnableConfig(recursion_limit=3 * self.config.max_steps + 10)
        final: dict[str, Any] = await self._graph.ainvoke(initial, limit, context=context)
        stop_reason: StopReason = final.get("stop_reason") or "max_steps"
        if on_event is not None:
            on_event(AgentEvent(agent_index, "done", final.get("step", 0), content=stop_reason))
        return Trajectory(
            question_id=question_id,
            question=question,
            agent_index=agent_index,
            model=self.model.name,
            config=self.config.to_record(),
            tools=self.tools,
            messages=final["messages"],
            steps=[StepRecord(**step) for step in final.get("steps", [])],
            answers=final.get("answers", []),
            stop_reason=stop_reason,
            error=final.get("error"),
            wall_s=time.perf_counter() - started,
        )

    async def ask(
        self,
        question: str,
        *,
        question_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> QuestionResult:
        """Run `config.n_agents` agents concurrently and fuse their answers by vote.

        Model failures never raise: the failing agent's trajectory has stop_reason "error", and
        the result is `failed` only when every agent failed. Genuine bugs propagate.
        """
        started = time.perf_counter()
        trajectories = await asyncio.gather(
            *(
                self.run_one(question, agent_index=i, question_id=question_id, on_event=on_event)
                for i in range(self.config.n_agents)
            )
        )
        fused, votes = fuse([t.answers for t in trajectories])
        return QuestionResult(
            question_id=question_id,
            question=question,
            model=self.model.name,
            config=self.config.to_record(),
            trajectories=list(trajectories),
            fused=fused,
            votes=votes,
            wall_s=time.perf_counter() - started,
        )
