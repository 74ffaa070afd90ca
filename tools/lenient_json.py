"""JSON as small models write it: unescaped quotes in strings, brackets left open or doubled.

`loads_lenient` reads text that `json.loads` rejects when a few mechanical edits make it
valid, and records each edit so callers can tell the model what was read:

- a `"` inside a string that the model forgot to escape
  (`{"query": "papers citing "Deep Learning" in 2019"}`) is escaped;
- quotes and brackets still open at the end (a turn cut off by its token limit) are closed;
- closing brackets after the complete value (`{...}}`) are dropped;
- a raw control character inside a string (a line break copied from the passage) is escaped.

Anything else (a missing comma, prose, a bare word) is still an error: the caller reports the
original `json.loads` message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_MAX_EDITS = 16
_CLOSERS = {"{": "}", "[": "]"}


@dataclass(frozen=True)
class LenientJson:
    """A value read by `loads_lenient` and the edits that made its text valid JSON.

    Attributes:
        value: The decoded value.
        text: The JSON text that was decoded: the input with the edits applied.
        escaped: How many quotes inside strings were escaped.
        closed: What was appended at the end to close open strings and brackets ("" if none).
        controls: How many raw control characters inside strings were escaped.
        dropped: The surplus closing brackets removed after the value ("" if none).
        origin: For each character of `text`, its index in the input, then the input's
            length (empty when nothing was repaired); read it through `source_index`.
    """

    value: Any
    text: str
    escaped: int = 0
    closed: str = ""
    dropped: str = ""
    origin: tuple[int, ...] = ()
    controls: int = 0

    @property
    def repaired(self) -> bool:
        """True when the input was not valid JSON as written."""
        return bool(self.escaped or self.closed or self.dropped or self.controls)

    def describe(self) -> str:
        """The edits in words, e.g. "escaped 2 quotes inside a string and added '}' at the end"."""
        edits = []
        if self.escaped:
            noun = "quote" if self.escaped == 1 else "quotes"
            edits.append(f"escaped {self.escaped} {noun} inside a string")
        if self.closed:
            edits.append(f"added {self.closed!r} at the end")
        if self.dropped:
            edits.append(f"removed a surplus {self.dropped!r} at the end")
        if self.controls:
            noun = "character" if self.controls == 1 else "characters"
            edits.append(f"escaped {self.controls} control {noun} inside a string")
        return " and ".join(edits)

    def source_index(self, index: int) -> int:
        """The index in the input of `text[index]` (an inserted character maps to the next one).

        `index == len(text)` maps to the input's end; an index in an appended closer maps there
        too.
        """
        if not self.origin or index >= len(self.origin):
            return self.origin[-1] if self.origin else index
        return self.origin[index]


def loads_lenient(text: str) -> LenientJson:
    """Decode `text` as JSON, repairing the mistakes small models make (see the module doc).

    Raises:
        json.JSONDecodeError: The error `json.loads(text)` raises, when no repair helps.
        RecursionError: For nesting too deep to decode, as `json.loads` does.
    """
    try:
        return LenientJson(value=json.loads(text), text=text)
    except json.JSONDecodeError as error:
        original = error
    chars = list(text)
    origin = list(range(len(text)))
    escaped = controls = 0
    closed = dropped = ""
    for _ in range(_MAX_EDITS):
        current = "".join(chars)
        try:
            value = json.loads(current)
        except json.JSONDecodeError as error:
            edit = _next_edit(current, error, closing_allowed=not closed)
        else:
            return LenientJson(
                value=value,
                text=current,
                escaped=escaped,
                closed=closed,
                dropped=dropped,
                origin=(*origin, len(text)),
                controls=controls,
            )
        if edit is None:
            break
        kind, position, extra = edit
        if kind == "escape":
            chars.insert(position, "\\")
            origin.insert(position, origin[position])
            escaped += 1
        elif kind == "control":
            escape = json.dumps(chars[position])[1:-1]  # "\n", "\t", "\u0001", ...
            chars[position : position + 1] = list(escape)
            origin[position : position + 1] = [origin[position]] * len(escape)
            controls += 1
        elif kind == "close":
            chars.extend(extra)
            origin.extend([len(text)] * len(extra))
            closed = extra
        else:
            del chars[position:]
            del origin[position:]
            dropped = extra
    raise original


def _next_edit(
    text: str, error: json.JSONDecodeError, *, closing_allowed: bool
) -> tuple[str, int, str] | None:
    """The one edit that gets past `error`: ("escape" | "close" | "drop", position, text)."""
    position = error.pos
    rest = text[position:]
    if error.msg.startswith("Invalid control character"):
        return ("control", position, "")
    if error.msg.startswith("Extra data"):
        surplus = "".join(rest.split())
        if surplus and set(surplus) <= set("}]"):
            return ("drop", position, surplus)
        return None
    if not rest.strip() or error.msg.startswith("Unterminated string"):
        closers = _open_closers(text) if closing_allowed else ""
        return ("close", len(text), closers) if closers else None
    quote = _last_closing_quote(text, position)
    return ("escape", quote, "") if quote is not None else None


def _scan(text: str, end: int) -> tuple[list[str], bool, int | None]:
    """Brackets open, whether inside a string, and the last string-closing quote before `end`."""
    stack: list[str] = []
    in_string = escaped = False
    last_close: int | None = None
    for index in range(end):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                last_close = index
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in "]}" and stack and stack[-1] == char:
            stack.pop()
    return stack, in_string, last_close


def _last_closing_quote(text: str, position: int) -> int | None:
    """The quote that closed the last string before `position`, if a string was closed there.

    A string that ended too early leaves the decoder stuck on its next characters, so the quote
    before them is the one to escape. Only quotes closing a string since the last `,`, `:`,
    bracket or brace qualify, and not one followed by space and another string (`"a" "b"`
    lacks a comma).
    """
    _, in_string, last_close = _scan(text, position)
    if in_string or last_close is None:
        return None
    between = text[last_close + 1 : position]
    if any(char in "{}[]:" for char in between):
        return None
    if between and text[position] == '"':  # `"a" "b"`: a comma is missing, not an escape
        return None
    return last_close


def _open_closers(text: str) -> str:
    stack, in_string, _ = _scan(text, len(text))
    stripped = text.rstrip()
    if not in_string and stripped.endswith((",", ":")):
        return ""
    return ('"' if in_string else "") + "".join(reversed(stack))


def json_span(text: str) -> str:
    """The JSON object in a model's reply: from its first `{` on, prose and fences cut.

    A closing fence after the last `}` ends it there; without one the rest is kept (a reply cut
    off by its token limit still holds the start of the object, which `loads_lenient` closes).
    Text without a `{` comes back stripped.
    """
    start = text.find("{")
    if start < 0:
        return text.strip()
    end = text.rfind("}")
    fenced = text.rfind("```")
    body = text[start : end + 1] if end > start and fenced > end else text[start:]
    return body.strip()
