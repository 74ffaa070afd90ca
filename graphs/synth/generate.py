"""Entry point: generate a synthetic domain, write its snapshot and train/val/test questions."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions
from graphs.errors import GraphError
from graphs.manifest import read_manifest
from graphs.synth import academic, biomed, products
from graphs.synth.questions import FAMILIES, Question, QuestionMaker
from graphs.synth.recipes import Domain

logger = logging.getLogger(__name__)

BUILDERS: dict[str, Callable[[np.random.Generator, int | None], Domain]] = {
    "products": products.build,
    "academic": academic.build,
    "biomed": biomed.build,
}
DOMAINS = tuple(BUILDERS)
SPLITS = (("train", 0.6), ("val", 0.15), ("test", 0.25))
QUESTIONS_PER_FAMILY = 280
QA_DIR = "qa"


class SynthError(GraphError):
    """Bad arguments to the synthetic generator (unknown domain, size too small, ...)."""


@dataclass(frozen=True)
class SynthResult:
    """What :func:`generate` wrote.

    Attributes:
        snapshot: The snapshot directory.
        domain: The domain name.
        num_nodes: Nodes in the graph.
        num_edges: Edges in the graph.
        split_counts: Questions per split name.
        family_counts: Questions per family, over all splits.
        qa_files: Path of each split's JSONL file.
    """

    snapshot: Path
    domain: str
    num_nodes: int
    num_edges: int
    split_counts: dict[str, int]
    family_counts: dict[str, int]
    qa_files: dict[str, Path]


def build_domain(domain: str, seed: int, nodes: int | None = None) -> tuple[Domain, list[Question]]:
    """Generate a domain graph and its questions in memory (no files).

    Args:
        domain: One of :data:`DOMAINS`.
        seed: Seed of the random generator; the same seed and size give the same output.
        nodes: Approximate node count; None for the domain's default (the bundled demo size).

    Returns:
        The domain (graph, traits, recipes) and every question, family by family.

    Raises:
        SynthError: Unknown domain or bad size.
    """
    if domain not in BUILDERS:
        raise SynthError(f"unknown domain {domain!r}; choose one of: {', '.join(DOMAINS)}")
    if nodes is not None and nodes <= 0:
        raise SynthError(f"--nodes must be a positive number of nodes, got {nodes}")
    rng = np.random.default_rng(seed)
    try:
        built = BUILDERS[domain](rng, nodes)
    except SynthError:
        raise
    except GraphError as error:
        raise SynthError(str(error)) from error
    maker = QuestionMaker(built, rng)
    questions: list[Question] = []
    for family in FAMILIES:
        made = maker.make(family, QUESTIONS_PER_FAMILY)
        if len(made) < QUESTIONS_PER_FAMILY:
            logger.warning(
                "%s: only %d %s questions fit this graph (wanted %d); use a larger --nodes",
                domain,
                len(made),
                family,
                QUESTIONS_PER_FAMILY,
            )
        questions += made
    return built, questions


def split_questions(questions: list[Question], seed: int) -> dict[str, list[Question]]:
    """Split questions into train/val/test, stratified by family, shuffled with `seed`."""
    rng = np.random.default_rng([seed, 1])
    splits: dict[str, list[Question]] = {name: [] for name, _ in SPLITS}
    for family in FAMILIES:
        members = [q for q in questions if q.family == family]
        order = rng.permutation(len(members))
        cuts = np.cumsum([round(share * len(members)) for _, share in SPLITS])[:-1]
        for (name, _), part in zip(SPLITS, np.split(order, cuts), strict=True):
            splits[name] += [members[i] for i in part]
    for name in splits:
        order = rng.permutation(len(splits[name]))
        splits[name] = [splits[name][i] for i in order]
    return splits


def question_rows(domain: Domain, split: str, questions: list[Question]) -> list[dict[str, object]]:
    """The JSONL rows of one split: id, query, answer_ids (external ids), family."""
    ids = domain.graph.ids
    return [
        {
            "id": f"{domain.name}-{split}-{k:05d}",
            "query": q.query,
            "answer_ids": [ids[n] for n in q.answers],
            "family": q.family,
        }
        for k, q in enumerate(questions)
    ]


def generate(
    domain: str,
    seed: int,
    out: Path,
    nodes: int | None = None,
    *,
    options: BuildOptions | None = None,
) -> SynthResult:
    """Generate a synthetic benchmark graph: a snapshot at `out` plus `out/qa/{split}.jsonl`.

    Each question line is ``{"id", "query", "answer_ids", "family"}``; gold answers are exact
    (computed from the generated edges). `out/qa/provenance.jsonl` records, per question id,
    the anchor, filter node, trait and relation steps the gold was derived from.

    Args:
        domain: ``products``, ``academic`` or ``biomed``.
        seed: Random seed; the same seed and size give byte-identical question files.
        out: Snapshot directory to create.
        nodes: Approximate node count (None: the default demo size of a few thousand).
        options: Snapshot build settings (overwrite, strict, ...), as for every importer.

    Returns:
        A summary of what was written.

    Raises:
        SynthError: Bad arguments.
        GraphError: The snapshot could not be written (e.g. `out` exists without overwrite).
    """
    out = Path(out)
    built, questions = build_domain(domain, seed, nodes)
    graph = built.graph
    build_snapshot(
        graph.node_table(),
        graph.edge_table(),
        out,
        name=f"synth-{domain}-seed{seed}-n{graph.num_nodes}",
        candidate_types=graph.candidate_types,
        sources=(f"synth:{domain}?seed={seed}&nodes={nodes or 'default'}",),
        options=options,
    )
    manifest = read_manifest(out)
    splits = split_questions(questions, seed)
    qa_files = _write_qa(out, built, splits)
    return SynthResult(
        snapshot=out,
        domain=domain,
        num_nodes=graph.num_nodes,
        num_edges=manifest.num_edges,
        split_counts={name: len(qs) for name, qs in splits.items()},
        family_counts=dict(Counter(q.family for q in questions)),
        qa_files=qa_files,
    )


def _write_qa(out: Path, built: Domain, splits: dict[str, list[Question]]) -> dict[str, Path]:
    """Write the question files into a temporary folder, then move it into place."""
    staging = Path(tempfile.mkdtemp(prefix=".qa-", dir=out))
    files: dict[str, Path] = {}
    provenance: list[str] = []
    for split, questions in splits.items():
        rows = question_rows(built, split, questions)
        lines = [json.dumps(row, ensure_ascii=False) for row in rows]
        (staging / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[split] = out / QA_DIR / f"{split}.jsonl"
        provenance += [
            json.dumps({"id": row["id"], **q.provenance}, ensure_ascii=False)
            for row, q in zip(rows, questions, strict=True)
        ]
    (staging / "provenance.jsonl").write_text("\n".join(provenance) + "\n", encoding="utf-8")
    target = out / QA_DIR
    if target.exists():
        shutil.rmtree(target)
    os.replace(staging, target)
    return files
