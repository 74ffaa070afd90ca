"""The interactive session: ask questions, run tools by hand, inspect and save trajectories."""

from __future__ import annotations

import asyncio
import logging

from rich.console import Console

from agent.trajectory import new_question_id
from cli.output.language_warning import LanguageWarning
from cli.output.render import TracePrinter, answer_table, result_summary
from cli.output.safe_text import for_markup
from cli.repl.directives import COMMANDS, ReplCommands
from cli.repl.lines import LineReader
from cli.repl.session import ReplSession
from evals.qa.records import check_question
from graphs.errors import ArkError

logger = logging.getLogger(__name__)

PROMPT = "ark> "


class Repl:
    """Read questions and `:commands` until `:quit` or Ctrl-D.

    Args:
        session: Graph, config and agent factory.
        reader: Where lines come from (prompt_toolkit on a TTY, a stream in tests).
        console: Where everything is printed.
    """

    def __init__(self, session: ReplSession, reader: LineReader, console: Console) -> None:
        self.session = session
        self.reader = reader
        self.console = console
        self.commands = ReplCommands(session, console)
        self.language = LanguageWarning(session.snapshot, console)

    def run(self) -> None:
        """The read-eval-print loop; never dies on a bad line."""
        self.console.print(
            f"ARK on [bold]{for_markup(self.session.snapshot.manifest.name)}[/] "
            f"({self.session.snapshot.num_nodes:,} nodes). Ask a question, or :help.",
            highlight=False,
        )
        while True:
            try:
                line = self.reader.read(PROMPT).strip()
            except KeyboardInterrupt:
                continue
            except EOFError:
                self.console.print("bye")
                return
            if not line:
                continue
            if line.startswith(":"):
                if not self._command(line):
                    return
            else:
                self._question(line)

    def _command(self, line: str) -> bool:
        name, _, rest = line[1:].partition(" ")
        if name in ("quit", "exit", "q"):
            self.console.print("bye")
            return False
        handler = COMMANDS.get(name)
        if handler is None:
            known = " ".join(f":{c}" for c in sorted(COMMANDS))
            self.console.print(
                f"[red]unknown command :{for_markup(name)}[/] (known: {known} :quit)"
            )
            return True
        try:
            handler(self.commands, rest.strip())
        except (ArkError, OSError) as exc:
            self._error(exc)
        return True

    def _question(self, line: str) -> None:
        try:
            question = check_question(line)
            self.language.note(question)
            agent = self.session.current_agent()
            trace = TracePrinter(self.console, observation_lines=3)
            question_id = new_question_id("repl")
            result = asyncio.run(agent.ask(question, question_id=question_id, on_event=trace))
        except KeyboardInterrupt:
            self.console.print("[yellow]cancelled[/]")
            return
        except (ArkError, OSError) as exc:
            self._error(exc)
            return
        self.session.last = result
        self.session.history.append(result)
        if result.failed:
            self._error("every agent failed: " + "; ".join(result.errors))
            return
        self.console.print(answer_table(result, self.session.snapshot))
        self.console.print(result_summary(result), style="dim")

    def _error(self, error: object) -> None:
        """One `error: ...` line; the message is data (printable, not markup)."""
        self.console.print(f"[red]error:[/] {for_markup(error)}", highlight=False)
