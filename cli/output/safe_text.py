"""Text from data made safe to print: control characters and escape sequences shown, not obeyed.

Node text, names, ids, questions, tool arguments and error messages come from files the user
may not have written. Printed raw, an escape sequence in them could set the terminal's title,
clear the screen, move the cursor or hide text. Every printing path of the CLI passes such
text through `printable` first; what is stored (snapshots, run directories, JSON output) is
never changed.
"""

from __future__ import annotations

from types import MappingProxyType

from rich.markup import escape

_KEPT = frozenset("\n\t")
_BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
"""Bidirectional overrides and isolates, which can make printed text read differently."""

_VISIBLE = MappingProxyType(
    {
        code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        for code in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI_CONTROLS)
        if chr(code) not in _KEPT
    }
)


def printable(text: object) -> str:
    r"""`text` as a string whose control characters are shown as escapes (``\x1b``).

    Newlines and tabs are kept; every other C0 and C1 control character, DEL, the
    bidirectional override characters and lone surrogates become their backslash escape, so
    an ESC ] 0 ; ... BEL (set title) or ESC [ 2 J (clear screen) sequence prints as visible
    text.
    """
    shown = str(text).translate(_VISIBLE)
    # lone surrogates (undecodable input bytes) cannot be printed: show them as escapes too
    return shown.encode("utf-8", "backslashreplace").decode("utf-8")


def for_markup(text: object) -> str:
    """`printable(text)` with rich markup escaped, for table cells and marked-up lines."""
    return escape(printable(text))
