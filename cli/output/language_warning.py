"""One warning, once, when questions are not in the language the snapshot's analyzer reads."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from cli.output.safe_text import printable
from graphs.bm25.language import LanguageCheck
from graphs.snapshot import Snapshot


class LanguageWarning:
    """Prints `warning: ...` (graphs/bm25/language.py) for the first foreign question only.

    Args:
        snapshot: The snapshot questions are asked of (its analyzer decides).
        console: Where the warning goes (standard error by default).
    """

    def __init__(self, snapshot: Snapshot, console: Console | None = None) -> None:
        self.check = LanguageCheck(snapshot.index.tokenizer)
        self.console = console or Console(stderr=True)
        self.warned = False

    def note(self, question: str) -> None:
        """Warn about `question` if it is foreign and no warning was printed yet."""
        if self.warned:
            return
        message = self.check.warning(question)
        if message is None:
            return
        self.warned = True
        line = Text("warning: ", style="bold yellow")
        line.append(printable(message))
        self.console.print(line, highlight=False, soft_wrap=True)
