"""Rich rendering shared by `ark ask` and the REPL: live tool-call traces and the answer table.

Every string taken from data (node ids, names, observations, errors) goes through
`cli.output.safe_text.printable`, so escape sequences in a graph print as text.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from agent.events import AgentEvent
from agent.vote import chosen_and_tail, chosen_answers, identical_agents, select_reasons
from cli.output.safe_text import printable

if TYPE_CHECKING:
    from agent.trajectory import QuestionResult
    from graphs.snapshot import Snapshot

AGENT_STYLES = ("cyan", "magenta", "green", "yellow", "blue")
TEXT_PREVIEW = 160
"""Characters of a model's text shown per turn in the live trace."""
WIDE = 100
"""Columns from which answers are a table; narrower terminals get one entry per answer (a
table of id, name, type and reason collapses at 80 columns)."""

Signature = tuple[str, str | None, str | None, str | None, str | None, str | None, int | None]


class TracePrinter:
    """Prints each model turn, tool call and nudge, with a compact view of each observation.

    A turn without a tool call shows what the model wrote and the nudge it got, so a model that
    never calls a tool is visible at once instead of ending in a bare `stopped: max_steps`.
    Agents that do exactly what another agent already did (the deterministic rule policy: all
    of them) are not repeated: one line says so, and an agent that departs from the shared
    path is shown from there on. Model failures are not printed per agent: the caller reports
    them once, after the run.

    Args:
        console: Where to print.
        observation_lines: How many lines of each observation to show.
    """

    def __init__(self, console: Console, *, observation_lines: int = 4) -> None:
        self.console = console
        self.observation_lines = observation_lines
        self._path: list[Signature] = []
        self._position: dict[int, int] = {}
        self._departed: set[int] = set()
        self._mirroring: set[int] = set()
        self._silent_turns: dict[int, int] = {}

    def __call__(self, event: AgentEvent) -> None:
        """Print one event (or nothing, when another agent already did exactly this)."""
        if event.without_tool_call:
            self._silent_turns[event.agent_index] = self._silent_turns.get(event.agent_index, 0) + 1
        if self._repeats(event):
            return
        tag = self._tag(event.agent_index)
        if event.kind == "tool":
            line = (
                tag
                + Text(printable(event.tool_name), style="bold")
                + Text(printable(f" {event.arguments or ''}"))
            )
            self.console.print(line, overflow="ellipsis", no_wrap=True)
            self._observation(event)
        elif event.kind == "model":
            self._model_turn(tag, event)
        elif event.kind == "nudge":
            nudge = Text(printable(f"nudged: {event.content or ''}"), style="yellow")
            self.console.print(tag + nudge, overflow="ellipsis", no_wrap=True)
        elif event.kind == "done":
            self.console.print(tag + Text(printable(self._stopped(event)), style="dim"))

    def _repeats(self, event: AgentEvent) -> bool:
        """True when this agent is still on the path another agent already took."""
        agent = event.agent_index
        if agent in self._departed:
            return False
        position = self._position.get(agent, 0)
        self._position[agent] = position + 1
        signature = _signature(event)
        if position == len(self._path):
            self._path.append(signature)
            return False
        if self._path[position] == signature:
            if agent not in self._mirroring:
                self._mirroring.add(agent)
                note = "same steps as the agent shown so far; not repeated"
                self.console.print(self._tag(agent) + Text(note, style="dim"))
            return True
        self._departed.add(agent)
        if agent in self._mirroring:
            note = "departs from the shared path here:"
            self.console.print(self._tag(agent) + Text(note, style="dim"))
        return False

    def _tag(self, agent: int) -> Text:
        return Text(f"[agent {agent + 1}] ", style=AGENT_STYLES[agent % len(AGENT_STYLES)])

    def _model_turn(self, tag: Text, event: AgentEvent) -> None:
        if event.error is not None:
            return
        text = printable(" ".join((event.content or "").split()))
        if event.tool_calls == 0:
            said = _preview(text) if text else "(an empty reply)"
            line = Text(f"turn {event.step}, no tool call: ", style="yellow") + Text(said)
            self.console.print(tag + line, overflow="ellipsis", no_wrap=True)
        elif text:
            line = tag + Text(_preview(text), style="italic dim")
            self.console.print(line, overflow="ellipsis", no_wrap=True)

    def _stopped(self, event: AgentEvent) -> str:
        silent = self._silent_turns.get(event.agent_index, 0)
        text = f"stopped: {event.content} after {_plural(event.step, 'turn')}"
        if silent:
            text += f", {silent} of them without a tool call"
        return text

    def _observation(self, event: AgentEvent) -> None:
        if event.error:
            self.console.print(
                Text(printable(f"    ! {event.error}"), style="red"), overflow="fold"
            )
            return
        lines = printable(event.observation or "").splitlines()
        for line in lines[: self.observation_lines]:
            self.console.print(Text(f"    {line}", style="dim"), overflow="ellipsis", no_wrap=True)
        if len(lines) > self.observation_lines:
            more = len(lines) - self.observation_lines
            self.console.print(Text(f"    ... {_plural(more, 'more line')}", style="dim"))


def _signature(event: AgentEvent) -> Signature:
    return (
        event.kind,
        event.tool_name,
        event.arguments,
        event.observation,
        event.error,
        event.content,
        event.tool_calls,
    )


def _preview(text: str) -> str:
    return text if len(text) <= TEXT_PREVIEW else text[: TEXT_PREVIEW - 1] + "…"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def answer_table(result: QuestionResult, snapshot: Snapshot, *, limit: int = 20) -> Group:
    """The answers the agents chose as a table, then one line about the tail kept for recall."""
    chosen, tail = chosen_and_tail(
        result.fused[:limit],
        [chosen_answers(t.messages, t.answers) for t in result.trajectories],
    )
    if not result.fused[:limit]:
        stops = ", ".join(sorted({t.stop_reason for t in result.trajectories}))
        return Group(Text(f"No answers: no agent selected a node (stopped: {stops})."))
    note = _identical_note(result)
    parts: list[AnswerList | Text] = [Text(note, style="dim")] if note else []
    parts.append(AnswerList(result, snapshot, limit=limit, only=chosen))
    shared = {_reasons(result).get(node_id) for node_id in chosen}
    if len(shared) == 1 and None not in shared:
        reason = printable(str(shared.pop()))
        parts.append(
            Text(f"why: {reason}" if len(chosen) == 1 else f"why, for all {len(chosen)}: {reason}")
        )
    if tail:
        parts.append(
            Text(
                f"+ {_plural(len(tail), 'more answer')} only filling the list to {limit} for "
                "Recall@20 (selected without a reason; --json lists them)",
                style="dim",
            )
        )
    return Group(*parts)


def answers_table(
    result: QuestionResult,
    snapshot: Snapshot,
    *,
    limit: int = 20,
    only: list[str] | None = None,
) -> Table:
    """The fused answer list as a table: rank, id, name, type, and votes when they tell.

    Ids are never wrapped, so they can be copied into `ark node`. When every agent returned
    the same list (or there is one agent), votes say nothing and are left out.

    Args:
        result: The question's result.
        snapshot: The graph, for names and types.
        limit: Rows at most.
        only: Show only these ids (in fused order), e.g. the chosen answers.
    """
    rows = result.fused[:limit] if only is None else only[:limit]
    lists = [t.answers for t in result.trajectories]
    show_votes = len(lists) > 1 and not identical_agents(lists)
    table = Table(title=f"Answers ({len(rows)})", title_justify="left", expand=False)
    table.add_column("#", justify="right")
    table.add_column("id", no_wrap=True, overflow="ignore")
    table.add_column("name", overflow="ellipsis", max_width=40)
    table.add_column("type", no_wrap=True)
    if show_votes:
        table.add_column("votes", justify="right")
    reasons = _reasons(result)
    if len({reasons.get(node_id) for node_id in rows}) < 2:
        reasons = {}  # one reason for every row: said once, under the table (answer_table)
    if reasons:
        table.add_column("reason", overflow="fold", max_width=40)
    for node_id in rows:
        node = snapshot.internal_id(node_id)
        cells = [
            str(result.fused.index(node_id) + 1),
            escape(printable(node_id)),
            escape(printable(snapshot.name(node))),
            escape(printable(snapshot.type_name(node))),
        ]
        if show_votes:
            cells.append(f"{result.votes.get(node_id, 0)}/{len(lists)}")
        if reasons:
            cells.append(escape(printable(reasons.get(node_id, ""))))
        table.add_row(*cells)
    return table


class AnswerList:
    """The answers as a table in a wide terminal, as entries in a narrow one.

    A narrow entry is `  1. [id] name (type)  votes 2/3`, then `     why: reason` on its own
    line: nothing is cut, ids stay whole and copyable.
    """

    def __init__(
        self, result: QuestionResult, snapshot: Snapshot, *, limit: int, only: list[str]
    ) -> None:
        self.result = result
        self.snapshot = snapshot
        self.limit = limit
        self.only = only

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The table from `WIDE` columns on, else the entries."""
        if options.max_width >= WIDE:
            yield answers_table(self.result, self.snapshot, limit=self.limit, only=self.only)
            return
        rows = self.only[: self.limit]
        lists = [t.answers for t in self.result.trajectories]
        show_votes = len(lists) > 1 and not identical_agents(lists)
        reasons = _reasons(self.result)
        if len({reasons.get(node_id) for node_id in rows}) < 2:
            reasons = {}  # said once, under the list (answer_table)
        yield Text(f"Answers ({len(rows)})", style="italic")
        for node_id in rows:
            node = self.snapshot.internal_id(node_id)
            line = Text(f"{self.result.fused.index(node_id) + 1:>3}. ")
            line.append(f"[{printable(node_id)}]", style="bold")
            line.append(f" {printable(self.snapshot.name(node))}")
            line.append(f" ({printable(self.snapshot.type_name(node))})", style="dim")
            if show_votes:
                line.append(f"  votes {self.result.votes.get(node_id, 0)}/{len(lists)}")
            yield line
            if node_id in reasons:  # wrapped by hand: continuation lines stay indented
                why = textwrap.fill(
                    printable(reasons[node_id]), width=options.max_width,
                    initial_indent="     why: ", subsequent_indent="     ",
                    break_long_words=False, break_on_hyphens=False,
                )  # fmt: skip
                yield Text(why, style="dim", no_wrap=True, overflow="ignore")


def _identical_note(result: QuestionResult) -> str | None:
    """Why the table shows no votes when several agents returned the same list."""
    agents = len(result.trajectories)
    if agents < 2 or not identical_agents([t.answers for t in result.trajectories]):
        return None
    note = f"{agents} agents with identical answer lists: votes left out"
    if result.model == "rules":
        note += " (the rule policy is deterministic: --agents 1 gives the same answers)"
    return note


def _reasons(result: QuestionResult) -> dict[str, str]:
    """The first reason any agent gave for each id it selected."""
    found: dict[str, str] = {}
    for trajectory in result.trajectories:
        for node_id, reason in select_reasons(trajectory.messages).items():
            found.setdefault(node_id, reason)
    return found


def result_summary(result: QuestionResult) -> str:
    """One line: agents, stop reasons, model turns, time, errors."""
    trajectories = result.trajectories
    reasons = sorted({t.stop_reason for t in trajectories})
    stops = ", ".join(
        f"{reason} ×{sum(t.stop_reason == reason for t in trajectories)}"
        if len(trajectories) > 1
        else reason
        for reason in reasons
    )
    turns = [sum(step.kind == "model" for step in t.steps) for t in trajectories]
    errors = sum(len(t.tool_errors) for t in trajectories)
    summary = (
        f"{_plural(len(trajectories), 'agent')} ({stops}), {_turns_text(turns)}, "
        f"{_plural(errors, 'rejected tool call')}, {result.wall_s:.2f}s"
    )
    if result.errors:
        summary += f"; model errors: {'; '.join(result.errors)}"
    return printable(summary)


def _turns_text(turns: list[int]) -> str:
    """Model turns per agent: "4 model turns each", "3, 5 model turns" or "1 model turn"."""
    if len(turns) == 1:
        return _plural(turns[0], "model turn")
    if len(set(turns)) == 1:
        return f"{_plural(turns[0], 'model turn')} each"
    return ", ".join(str(n) for n in turns) + " model turns"
