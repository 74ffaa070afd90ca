"""The REPL's `:commands`: inspect nodes, run tools by hand, show and save trajectories."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from cli.output.safe_text import for_markup, printable
from graphs.errors import ArkError
from tools.format import edge_arrow
from tools.node import edge_groups
from tools.toolset import Toolset

if TYPE_CHECKING:
    from cli.repl.session import ReplSession

HELP = """\
Type a question to run the agents, or a command:
  :node ID                 a node's text and its neighbourhood by relation
  :search QUERY            global search, exactly as the model sees it
  :neighbors ID [QUERY] [type=T] [edge=R] [k=N]
                           neighbourhood exploration, exactly as the model sees it
  :answer QUESTION         SARG's answer with its chains and passages (offline, or with
                           the session's model when it is served or hf:); the encoder,
                           KeyBERT and spaCy load on the first :answer and stay loaded
  :trace                   the last question's full trajectories
  :save RUN_DIR            append the last result to a run directory (as `ark eval`
                           and `ark ask --save` write; `ark eval report` reads it)
  :set agents=N steps=T model=M k=K nk=K
                           change settings (k: search k, nk: neighbors k)
  :schema                  node and edge types with counts
  :help                    this text
  :quit                    leave (Ctrl-D too; Ctrl-C cancels a running question)"""


class CommandError(ArkError):
    """A REPL command was used wrongly; the message says the right form."""


class ReplCommands:
    """Handlers of the REPL's commands, each taking the text after the command name."""

    def __init__(self, session: ReplSession, console: Console) -> None:
        self.session = session
        self.console = console

    @property
    def toolset(self) -> Toolset:
        """The tools as the agents see them (current config)."""
        return self.session.current_agent().toolset

    def help(self, rest: str) -> None:
        """Show the commands."""
        self.console.print(HELP, highlight=False, markup=False)

    def node(self, rest: str) -> None:
        """Show a node's text and a summary of its neighbourhood by relation."""
        if not rest:
            raise CommandError("usage: :node ID")
        snapshot = self.session.snapshot
        node = snapshot.internal_id(rest)
        title = f"[{rest}] {snapshot.name(node)} ({snapshot.type_name(node)})"
        self.console.print(printable(title), style="bold", highlight=False, markup=False)
        self.console.print(printable(snapshot.text(node)), highlight=False, markup=False)
        groups = edge_groups(snapshot, node)
        total = sum(group.count for group in groups)
        table = Table(title=f"{total:,} neighbours")
        for column in ("relation", "neighbour type", "count"):
            table.add_column(column)
        for group in groups:
            arrow = edge_arrow(group.relation, outgoing=group.outgoing)
            table.add_row(for_markup(arrow), for_markup(group.node_type), f"{group.count:,}")
        self.console.print(table)

    def search(self, rest: str) -> None:
        """Run global search by hand."""
        if not rest:
            raise CommandError("usage: :search QUERY")
        self._show(self.toolset.call("search", {"query": rest}))

    def neighbors(self, rest: str) -> None:
        """Run neighbourhood exploration by hand."""
        words = shlex.split(rest)
        if not words:
            raise CommandError("usage: :neighbors ID [QUERY] [type=T] [edge=R] [k=N]")
        arguments: dict[str, Any] = {"node_id": words[0]}
        query: list[str] = []
        for word in words[1:]:
            key, sep, value = word.partition("=")
            if sep and key == "type":
                arguments.setdefault("node_types", []).append(value)
            elif sep and key == "edge":
                arguments.setdefault("edge_types", []).append(value)
            elif sep and key == "k":
                arguments["k"] = _int(value, "k")
            else:
                query.append(word)
        if query:
            arguments["query"] = " ".join(query)
        self._show(self.toolset.call("neighbors", arguments))

    def answer(self, rest: str) -> None:
        """Answer with SARG, reusing the parts loaded by earlier :answer commands."""
        import asyncio
        import time

        from answer.config import SargConfig
        from cli.output.answer_text import print_answer, time_split
        from evals.qa.records import check_question

        if not rest:
            raise CommandError("usage: :answer QUESTION")
        question = check_question(rest)
        config = self.session.config
        model = None if config.model == "rules" else config.model
        endpoint = {
            "base_url": config.base_url,
            "request_timeout_s": config.request_timeout_s,
            "max_retries": config.max_retries,
            "call_deadline_s": config.call_deadline_s,
        }
        started = time.perf_counter()
        loaded = self.session.answerers.load_s
        answerer = self.session.answerers.answerer(
            self.session.snapshot, SargConfig(), model, endpoint=endpoint
        )
        answering = time.perf_counter()
        result = asyncio.run(answerer.answer(question))
        print_answer(result, self.session.snapshot, self.console)
        load_s = self.session.answerers.load_s - loaded
        self.console.print(time_split(load_s, answering - started, time.perf_counter() - answering))

    def trace(self, rest: str) -> None:
        """Print the last question's trajectories, message by message."""
        last = self._last()
        for trajectory in last.trajectories:
            self.console.rule(f"agent {trajectory.agent_index + 1}: {trajectory.stop_reason}")
            for message in trajectory.messages[1:]:
                self._message(message)

    def save(self, rest: str) -> None:
        """Append the last result to a run directory, in the `ark eval` record format."""
        from evals.answers.log import answer_run_config, save_answer
        from evals.runs.store import RunStoreError

        if not rest:
            raise CommandError("usage: :save RUN_DIR")
        last = self._last()
        run_dir = Path(rest).expanduser()
        config = answer_run_config(last.config, self.session.snapshot.path)
        try:
            outcome = save_answer(run_dir, last, config)
        except RunStoreError as exc:
            raise CommandError(str(exc)) from None
        kept = "failure" if outcome == "failure" else f"{len(last.trajectories)} trajectories"
        self.console.print(
            printable(f"saved {last.question_id} ({kept}) to {run_dir}"),
            highlight=False,
            markup=False,
        )

    def set(self, rest: str) -> None:
        """Change settings: agents=N steps=T model=M k=K nk=K."""
        config = self.session.config
        for item in rest.split():
            key, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"expected key=value, got {item!r} (see :help)")
            if key == "agents":
                config = replace(config, n_agents=_int(value, key))
            elif key == "steps":
                config = replace(config, max_steps=_int(value, key))
            elif key == "model":
                config = replace(config, model=value)
            elif key == "k":
                config = replace(config, tools=replace(config.tools, search_k=_int(value, key)))
            elif key == "nk":
                config = replace(config, tools=replace(config.tools, neighbors_k=_int(value, key)))
            else:
                raise CommandError(f"unknown setting {key!r}; use agents, steps, model, k or nk")
        self.session.reconfigure(config)
        tools = config.tools
        self.console.print(
            printable(
                f"model={config.model} agents={config.n_agents} steps={config.max_steps} "
                f"k={tools.search_k} nk={tools.neighbors_k}"
            ),
            highlight=False,
            markup=False,
        )

    def schema(self, rest: str) -> None:
        """Show node types and relations with their counts."""
        manifest = self.session.snapshot.manifest
        types = Table(title="node types")
        types.add_column("type")
        types.add_column("count", justify="right")
        for name, count in manifest.node_types.items():
            types.add_row(for_markup(name), f"{count:,}")
        relations = Table(title="relations")
        for column in ("relation", "source", "target", "count"):
            relations.add_column(column)
        for sig in manifest.signatures:
            relations.add_row(
                *(for_markup(x) for x in (sig.relation, sig.source_type, sig.target_type)),
                f"{sig.count:,}",
            )
        self.console.print(types)
        self.console.print(relations)

    def _last(self) -> Any:
        if self.session.last is None:
            raise CommandError("no question asked yet in this session")
        return self.session.last

    def _show(self, observation: Any) -> None:
        style = "red" if observation.error else None
        text = printable(observation.text)
        self.console.print(text, style=style, highlight=False, markup=False)

    def _message(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if message.get("content"):
            self.console.print(f"[bold]{for_markup(role)}:[/] ", end="")
            self.console.print(printable(message["content"]), highlight=False, markup=False)
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            self.console.print(
                f"  [bold]call[/] {for_markup(function.get('name'))} "
                f"{for_markup(function.get('arguments'))}",
                highlight=False,
            )


def _int(value: str, key: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise CommandError(f"{key} must be a whole number, got {value!r}") from None
    if number < 1:
        raise CommandError(f"{key} must be at least 1, got {number}")
    return number


COMMANDS: dict[str, Callable[[ReplCommands, str], None]] = {
    "help": ReplCommands.help,
    "node": ReplCommands.node,
    "search": ReplCommands.search,
    "neighbors": ReplCommands.neighbors,
    "answer": ReplCommands.answer,
    "trace": ReplCommands.trace,
    "save": ReplCommands.save,
    "set": ReplCommands.set,
    "schema": ReplCommands.schema,
}
