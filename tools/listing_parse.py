"""Reading back the node rows of a `search` or `neighbors` observation, as any model could.

The observation text names every node it lists as ``[id] name (type)`` (tools/format.py), with
`` score S`` after it when the list is ranked and `` | snippet`` at the end of the line. A model
that plans from what it has seen (the rule policy) reads those rows here, from the text alone:
the same text an LLM reads, with no side channel. Header lines (``neighbours of [id] ...:``) and
notes are not rows: a row's label is followed by its score, its snippet or the end of the line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tools.format import NAMES_HEADER, USAGE_TEXT
from tools.mentions import loose

_USAGE = re.compile(
    re.escape(USAGE_TEXT)
    .replace(r"\{texts\}", r"(?P<texts>\d+)")
    .replace(r"\{near\}", r"(?P<near>\d+)")
    + "$"
)


@dataclass(frozen=True)
class ListedNode:
    """One node row of an observation: its id, name and type as shown, and its score if ranked."""

    node_id: str
    name: str
    type: str
    score: float | None = None
    links: tuple[Link, ...] = ()
    snippet: str = ""
    """The start of the node's text as the row shows it (after ` | `), if it does."""


@dataclass(frozen=True)
class Link:
    """One relation linking a `neighbors` row to the listed anchor, as its arrow shows it.

    Attributes:
        relation: The relation name.
        outgoing: An edge anchor -> this node exists (`-[r]->`).
        incoming: An edge this node -> anchor exists (`<-[r]-`).
    """

    relation: str
    outgoing: bool
    incoming: bool


_ARROW = re.compile(r"(<)?-\[([^\]]+)\]-(>)?")


@lru_cache(maxsize=32)
def _row_pattern(node_types: tuple[str, ...]) -> re.Pattern[str]:
    types = "|".join(re.escape(t) for t in sorted(node_types, key=len, reverse=True)) or r"[^()]+"
    return re.compile(
        r"(?:^|(?<=\s))\[(?P<id>[^\]\n]+)\] (?P<name>.*?) \((?P<type>" + types + r")\)"
        r"(?: score (?P<score>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?))?(?= \| |$)"
    )


def parse_listing(text: str, node_types: Sequence[str] = ()) -> list[ListedNode]:
    """The node rows of an observation text, in the order shown.

    Args:
        text: A `search` or `neighbors` observation (any other text yields no rows or the nodes
            it lists, e.g. `select`'s accepted ids).
        node_types: The graph's node-type names; given, a type must be one of them (robust to
            names that hold parentheses). Empty: any parenthesised word is taken as the type.

    Returns:
        One ListedNode per row; no rows for an error, an empty result or a header-only text.
    """
    listing, _ = _split_names(text)
    pattern = _row_pattern(tuple(node_types))
    rows = []
    for line in listing[1:] if _has_header(text) else listing:
        row = _row(pattern, line)
        if row is not None:
            rows.append(row)
    return rows


@dataclass(frozen=True)
class NamedListed:
    """A row of `search`'s "names in the query" block: the query's words and the node.

    `usage`: (texts holding the words, those near the node) where the row shows it.
    """

    words: str
    node: ListedNode
    usage: tuple[int, int] | None = None

    @property
    def loose(self) -> bool:
        """Whether the graph's text mostly uses these words away from the node (mentions.py)."""
        return self.usage is not None and loose(*self.usage)


def parse_names(text: str, node_types: Sequence[str] = ()) -> list[NamedListed]:
    """The rows of a search observation's "names in the query" block (none if it has none)."""
    _, block = _split_names(text)
    pattern = _row_pattern(tuple(node_types))
    rows = []
    for line in block:
        words, sep, rest = line.rpartition('": [')
        row = _row(pattern, "[" + rest) if sep and words.startswith('"') else None
        if row is not None:
            used = _USAGE.search(rest)
            usage = (int(used.group("texts")), int(used.group("near"))) if used else None
            rows.append(NamedListed(words[1:], row, usage))
    return rows


def _split_names(text: str) -> tuple[list[str], list[str]]:
    lines = text.splitlines()
    if NAMES_HEADER in lines:
        at = lines.index(NAMES_HEADER)
        return lines[:at], lines[at + 1 :]
    return lines, []


def _row(pattern: re.Pattern[str], line: str) -> ListedNode | None:
    match = pattern.search(line)
    if match is None:
        return None
    score = match.group("score")
    arrows = _ARROW.findall(line[: match.start()])
    return ListedNode(
        node_id=match.group("id"),
        name=match.group("name"),
        type=match.group("type"),
        score=float(score) if score is not None else None,
        links=tuple(Link(rel, outgoing=bool(out), incoming=bool(inc)) for inc, rel, out in arrows),
        snippet=line[match.end() + 3 :] if line[match.end() :].startswith(" | ") else "",
    )


def _has_header(text: str) -> bool:
    """Listings open with one header line ending in ':' (`N results for ...:`, `neighbours of`)."""
    first = text.split("\n", 1)[0]
    return first.endswith(":")
