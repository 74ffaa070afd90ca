"""Rich rendering shared by `ark ask` and the REPL: live tool-call traces and the answer table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from agent.events import AgentEvent

if TYPE_CHECKING:
    from agent.trajectory import QuestionResult
    from graphs.snapshot import Snapshot

AGENT_STYLES = ("cyan", "magenta", "green", "yellow", "blue")


class TracePrinter:
    """Prints each tool call and a compact view of its observation as it happens.

    Model failures are not printed per agent: the caller reports them once, after the run.

    Args:
        console: Where to print.
        observation_lines: How many lines of each observation to show.
    """

    def __init__(self, console: Console, *, observation_lines: int = 4) -> None:
        self.console = console
        self.observation_lines = observation_lines

    def __call__(self, event: AgentEvent) -> None:
        """Print one event."""
        style = AGENT_STYLES[event.agent_index % len(AGENT_STYLES)]
        tag = Text(f"[agent {event.agent_index + 1}] ", style=style)
        if event.kind == "tool":
            line = (
                tag + Text(f"{event.tool_name}", style="bold") + Text(f" {event.arguments or ''}")
            )
            self.console.print(line, overflow="ellipsis", no_wrap=True)
            self._observation(event)
        elif event.kind == "done":
            self.console.print(tag + Text(f"stopped: {event.content}", style="dim"))

    def _observation(self, event: AgentEvent) -> None:
        if event.error:
            self.console.print(Text(f"    ! {event.error}", style="red"), overflow="fold")
            return
        lines = (event.observation or "").splitlines()
        for line in lines[: self.observation_lines]:
            self.console.print(Text(f"    {line}", style="dim"), overflow="ellipsis", no_wrap=True)
        if len(lines) > self.observation_lines:
            more = len(lines) - self.observation_lines
            self.console.print(Text(f"    ... {more} more lines", style="dim"))


def answer_table(result: QuestionResult, snapshot: Snapshot, *, limit: int = 20) -> Table:
    """The fused answer list as a table: rank, id, name, type, votes."""
    table = Table(title=f"Answers ({len(result.fused)})", expand=False)
    table.add_column("#", justify="right")
    table.add_column("id", overflow="fold", max_width=14)
    table.add_column("name", overflow="ellipsis", max_width=36)
    table.add_column("type", max_width=12)
    table.add_column("votes", justify="right")
    n_agents = len(result.trajectories)
    for rank, node_id in enumerate(result.fused[:limit], start=1):
        node = snapshot.internal_id(node_id)
        table.add_row(
            str(rank),
            escape(node_id),
            escape(snapshot.name(node)),
            escape(snapshot.type_name(node)),
            f"{result.votes.get(node_id, 0)}/{n_agents}",
        )
    return table


def result_summary(result: QuestionResult) -> str:
    """One line: agents, stop reasons, steps, time, errors."""
    reasons = ", ".join(t.stop_reason for t in result.trajectories)
    steps = sum(len(t.steps) for t in result.trajectories)
    errors = sum(len(t.tool_errors) for t in result.trajectories)
    summary = (
        f"{len(result.trajectories)} agents ({reasons}), {steps} steps, "
        f"{errors} rejected tool calls, {result.wall_s:.2f}s"
    )
    if result.errors:
        summary += f"; model errors: {'; '.join(result.errors)}"
    return summary
