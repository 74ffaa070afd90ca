"""The ARK state machine: model and tool nodes alternating until finish or the step limit."""

from __future__ import annotations

import time
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agent.events import AgentEvent
from agent.models.base import ContextLengthError, ModelError
from agent.models.toolcall_parse import ensure_call_ids
from agent.reply_limit import bounded_reply
from agent.state import AgentState, RunContext, extend_unique

NO_TOOL_CALL_NUDGE = (
    "You did not call a tool. Call `search` or `neighbors` to explore, `select` to add answers, "
    "or `finish` when your answer list is complete."
)
AFTER_FINISH = "Ignored: `finish` was already called in this turn."


async def call_model(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Ask the model for the next turn; a model failure ends the agent with the error recorded."""
    ctx = runtime.context
    step = state.get("step", 0) + 1
    seed = ctx.config.seed + ctx.agent_index
    started = time.perf_counter()
    try:
        reply = await ctx.model.generate(
            state["messages"], ctx.tools, temperature=ctx.config.temperature, seed=seed
        )
    except ModelError as exc:
        record = _step(state, "model", started, error_kind=exc.kind, error=str(exc))
        _emit(ctx, AgentEvent(ctx.agent_index, "model", step, error=str(exc)))
        # A conversation that outgrew the context ends like one out of steps, answers kept;
        # a first turn that does not fit is a failure like any other.
        reason = "context_full" if isinstance(exc, ContextLengthError) and step > 1 else "error"
        return {"step": step, "steps": [record], "stop_reason": reason, "error": str(exc)}
    message, cut = bounded_reply({**reply.message, "role": "assistant"})
    message = ensure_call_ids(message, state["messages"])
    record = _step(state, "model", started, usage=reply.usage, truncated_chars=cut or None)
    if reply.turn_as:
        record["turn_as"] = reply.turn_as
    calls = len(message.get("tool_calls") or [])
    _emit(
        ctx,
        AgentEvent(
            ctx.agent_index, "model", step, content=message.get("content"), tool_calls=calls
        ),
    )
    return {"step": step, "messages": [message], "steps": [record]}


async def run_tools(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Execute the last assistant turn's tool calls in order; bad calls become observations."""
    ctx = runtime.context
    answers = list(state.get("answers", []))
    shown = list(state.get("shown", []))
    finished = False
    messages: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    for call in state["messages"][-1].get("tool_calls") or []:
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        arguments = function.get("arguments")
        started = time.perf_counter()
        error_kind: str | None
        error: str | None
        if finished:
            text, error_kind, error = AFTER_FINISH, "after_finish", AFTER_FINISH
        else:
            observation = ctx.toolset.call(name, arguments or "", answers=answers, shown=shown)
            answers.extend(observation.selected)
            shown = extend_unique(shown, observation.node_ids)
            finished = observation.finished
            text = observation.text
            error_kind = observation.error.kind if observation.error else None
            error = observation.error.message if observation.error else None
        messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": text})
        records.append(
            _step(state, "tool", started, tool_name=name, error_kind=error_kind, error=error)
            | {"index": len(state.get("steps", [])) + len(records)}
        )
        _emit(
            ctx,
            AgentEvent(
                ctx.agent_index,
                "tool",
                state.get("step", 0),
                tool_name=name,
                arguments=arguments if isinstance(arguments, str) else None,
                observation=text,
                error=error,
            ),
        )
    update: dict[str, Any] = {
        "messages": messages,
        "steps": records,
        "answers": answers[len(state.get("answers", [])) :],
        "shown": shown[len(state.get("shown", [])) :],
    }
    if finished:
        update |= {"finished": True, "stop_reason": "finish"}
    return update


async def nudge(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Answer a turn without tool calls with one short corrective user message."""
    step = state.get("step", 0)
    _emit(
        runtime.context,
        AgentEvent(runtime.context.agent_index, "nudge", step, content=NO_TOOL_CALL_NUDGE),
    )
    return {"messages": [{"role": "user", "content": NO_TOOL_CALL_NUDGE}]}


async def route_after_model(
    state: AgentState, runtime: Runtime[RunContext]
) -> Literal["tools", "nudge", "__end__"]:
    """Tools if the model called any; otherwise stop on error, full context or step limit."""
    if state.get("stop_reason") in ("error", "context_full"):
        return "__end__"
    if state["messages"][-1].get("tool_calls"):
        return "tools"
    return "__end__" if _out_of_steps(state, runtime) else "nudge"


async def route_after_tools(
    state: AgentState, runtime: Runtime[RunContext]
) -> Literal["model", "__end__"]:
    """Back to the model unless `finish` was called or the step limit is reached."""
    if state.get("finished") or _out_of_steps(state, runtime):
        return "__end__"
    return "model"


def build_agent_graph() -> CompiledStateGraph[AgentState, RunContext, AgentState, AgentState]:
    """Compile the ARK state machine (model ⇄ tools, with a corrective nudge)."""
    graph = StateGraph(AgentState, context_schema=RunContext)
    graph.add_node("model", call_model)
    graph.add_node("tools", run_tools)
    graph.add_node("nudge", nudge)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route_after_model, ["tools", "nudge", END])
    graph.add_conditional_edges("tools", route_after_tools, ["model", END])
    graph.add_edge("nudge", "model")
    return graph.compile()


def _out_of_steps(state: AgentState, runtime: Runtime[RunContext]) -> bool:
    return state.get("step", 0) >= runtime.context.config.max_steps


def _step(
    state: AgentState,
    kind: str,
    started: float,
    *,
    tool_name: str | None = None,
    usage: dict[str, int] | None = None,
    error_kind: str | None = None,
    error: str | None = None,
    truncated_chars: int | None = None,
) -> dict[str, Any]:
    return {
        "index": len(state.get("steps", [])),
        "kind": kind,
        "tool_name": tool_name,
        "wall_s": time.perf_counter() - started,
        "usage": usage,
        "error_kind": error_kind,
        "error": error,
        "truncated_chars": truncated_chars,
    }


def _emit(ctx: RunContext, event: AgentEvent) -> None:
    if ctx.on_event is not None:
        ctx.on_event(event)
