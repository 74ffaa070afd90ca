"""A real public graph for the search benchmarks: ICD-10-CM (PyPI `simple-icd-10-cm`).

Nodes are the classification's chapters, blocks, categories and subcategories (98,466
distinct codes), named by their description; a node's text is what the tables say about it besides
its name (inclusion terms, includes, notes, excludes, code-first/also hints). Edges link
each item to its parent (`parent_of`). Known-item questions are written from a node's
text without its name: 10-30 words, gold = that node.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

_SECTIONS: tuple[tuple[str, str], ...] = (
    ("get_inclusion_term", "Inclusion terms"),
    ("get_includes", "Includes"),
    ("get_notes", "Notes"),
    ("get_seven_chr_note", "7th character note"),
    ("get_code_first", "Code first"),
    ("get_code_also", "Code also"),
    ("get_use_additional_code", "Use additional code"),
    ("get_excludes1", "Excludes1"),
    ("get_excludes2", "Excludes2"),
)
_ABOUT_ITSELF = ("get_inclusion_term", "get_includes", "get_notes")
_ABOUT_LABELS = tuple(f"{label}: " for getter, label in _SECTIONS if getter in _ABOUT_ITSELF)
_TEMPLATES = (
    "Which diagnosis code covers {body}?",
    "What is the right classification for a patient presenting with {body}?",
    "I am looking for the entry that describes {body}, which one is it?",
    "Find the category used when the record mentions {body}.",
    "Where in the classification would I put {body}?",
)


def _kind(icd: object, code: str) -> str:
    for kind in ("chapter", "block", "category", "subcategory"):
        if getattr(icd, f"is_{kind}")(code):
            return kind
    return "code"


def icd_rows() -> list[dict[str, str]]:
    """One dict per ICD-10-CM item: id, type, name, text and parent."""
    import simple_icd_10_cm as icd

    rows = []
    # 39 codes name both a one-category block and its category: one node, no self-loop edge
    for code in dict.fromkeys(icd.get_all_codes(with_dots=True)):
        sections = []
        for getter, label in _SECTIONS:
            found = getattr(icd, getter)(code)
            # a getter returns a list, or one string (the 7th character note): never its letters
            values = [found] if isinstance(found, str) else list(found)
            values = [value for value in values if value]
            if values:
                sections.append(f"{label}: " + "; ".join(values))
        rows.append(
            {
                "id": code,
                "type": _kind(icd, code),
                "name": icd.get_description(code),
                "text": "\n".join(sections),
                "parent": "" if icd.get_parent(code) == code else icd.get_parent(code),
            }
        )
    return rows


def build_icd_snapshot(out: Path, analyzer: str) -> Path:
    """Write the ICD-10-CM snapshot at `out` (kept when it already exists)."""
    if (out / "manifest.json").is_file():
        return out
    rows = icd_rows()
    nodes = pa.table({key: [row[key] for row in rows] for key in ("id", "type", "name", "text")})
    edges = pa.table(
        {
            "src": [row["parent"] for row in rows if row["parent"]],
            "dst": [row["id"] for row in rows if row["parent"]],
            "relation": ["parent_of"] * sum(1 for row in rows if row["parent"]),
        }
    )
    options = BuildOptions(allow_empty_text=True, analyzer=analyzer)
    return build_snapshot(nodes, edges, out, name="icd10cm", options=options)


def icd_questions(nodes: pa.Table, count: int, seed: int) -> list[tuple[str, str]]:
    """Known-item questions (text, gold id) from the self-describing text of random items.

    `nodes` is the snapshot's node table (id, name, text). The body is a run of 6-24 words of
    the item's inclusion terms/includes/notes (never its name) put into one of a few question
    phrasings, so that each question has 10-30 words.
    """
    rng = np.random.default_rng(seed)
    pool = []
    for code, text in zip(
        nodes.column("id").to_pylist(), nodes.column("text").to_pylist(), strict=True
    ):
        about = [
            line.split(": ", 1)[1] for line in text.split("\n") if line.startswith(_ABOUT_LABELS)
        ]
        body = "; ".join(about).split()
        if len(body) >= 6:
            pool.append((code, body))
    questions = []
    for index in rng.permutation(len(pool)).tolist():
        code, body = pool[index]
        template = _TEMPLATES[int(rng.integers(len(_TEMPLATES)))]
        fixed = len(template.split()) - 1
        size = int(rng.integers(6, min(len(body), 30 - fixed) + 1))
        start = int(rng.integers(0, len(body) - size + 1))
        question = template.format(body=" ".join(body[start : start + size]).strip(" ;,"))
        if 10 <= len(question.split()) <= 30:
            questions.append((question, code))
        if len(questions) == count:
            break
    return questions
