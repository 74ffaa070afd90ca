"""SARG's answer as terminal text: the answer, its chains and cited passages, the time split."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from answer.result import AnswerResult
    from graphs.snapshot import Snapshot

OFFLINE_NOTE = (
    "offline (no -m): the answer above is a span the offline reader picked from the passages "
    "below (the kind of answer the question asks for, nearest its words); it is right about a "
    "third of the time (hotpotqa-dev20: EM 0.35, F1 0.44). The chains and passages are the "
    "evidence to read; give -m a served model to have the answer written from them."
)


def time_split(load_s: float, setup_s: float, answer_s: float) -> Text:
    """One dim line: how much of the setup was loading models, and how long answering took."""
    return Text(
        f"loading {load_s:.1f} s of {setup_s:.1f} s setup (encoder, KeyBERT, spaCy: once per "
        f"process; the REPL's :answer and `ark serve` keep them loaded), answering "
        f"{answer_s:.1f} s",
        style="dim",
    )


def print_answer(result: AnswerResult, snapshot: Snapshot, console: Console) -> None:
    """The answer, then each chain with its score, then the cited passages / nodes.

    Offline (no model), a note says how weak the answer read from a chain is and that the
    chains and passages are the result to read.
    """
    console.print(f"Answer: {result.answer or '(none)'}", highlight=False, markup=False)
    if result.model == "offline":
        reading = result.reading or {}
        if reading.get("source"):
            asked = reading["asked"] + (
                f" ({', '.join(reading['labels'])})" if reading["labels"] else ""
            )
            console.print(
                f"read from {reading['source']}; the question asks for: {asked}",
                style="dim",
                highlight=False,
                markup=False,
            )
        console.print(OFFLINE_NOTE, style="yellow", highlight=False, markup=False)
    if result.fallback == "no-chain":
        console.print(
            "no chain was found (no entry node, or no fact links the passages): the answer "
            "rests on the top passages alone",
            style="yellow",
            highlight=False,
            markup=False,
        )
    console.print(
        f"direction {result.direction or '-'} · query graph {result.graph_nodes} nodes, "
        f"{result.graph_triples} triples · construction {result.timings['construct_s']:.2f} s",
        style="dim",
        highlight=False,
    )
    for number, chain in enumerate(result.chains, start=1):
        line = f"chain {number} (score {chain.score:.3f}): {chain.text}"
        console.print(line, highlight=False, markup=False)
    for cited in result.citations:
        text = " ".join(snapshot.text(snapshot.internal_id(cited)).split())
        console.print(f"  [{cited}] {text[:160]}", highlight=False, markup=False)
