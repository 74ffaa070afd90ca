"""Line readers for the REPL: prompt_toolkit with history on a TTY, plain streams otherwise."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Protocol, TextIO


class LineReader(Protocol):
    """Reads one line; raises EOFError on Ctrl-D / end of input, KeyboardInterrupt on Ctrl-C."""

    def read(self, prompt: str) -> str:
        """Return the next line without its newline."""
        ...


def history_path() -> Path:
    """Where the REPL keeps its history: $XDG_STATE_HOME/ark/repl_history (per user)."""
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "ark" / "repl_history"


class PromptToolkitReader:
    """Line editing and history across sessions (prompt_toolkit)."""

    def __init__(self, history_file: Path) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        history_file.parent.mkdir(parents=True, exist_ok=True)
        self._session: PromptSession[str] = PromptSession(history=FileHistory(str(history_file)))

    def read(self, prompt: str) -> str:
        """Prompt for a line with editing and history."""
        return self._session.prompt(prompt)


class StreamReader:
    """Reads lines from a stream (pipes, tests); echoes nothing."""

    def __init__(self, stream: TextIO, output: TextIO | None = None) -> None:
        if isinstance(stream, io.TextIOWrapper):
            # bytes that are not UTF-8 reach the question check as surrogates, not as a crash
            stream.reconfigure(errors="surrogateescape")
        self._stream = stream
        self._output = output

    def read(self, prompt: str) -> str:
        """Return the next line; EOFError at the end of the stream."""
        if self._output is not None:
            self._output.write(prompt)
            self._output.flush()
        line = self._stream.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")
