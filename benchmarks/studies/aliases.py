"""Linking by aliases (graphs/snapshot/aliases.py): the rule agent with and without them.

WordNet's other lemmas of a synset, HPO's exact synonyms (and a disease's other names) and
the Python standard library's dotted names (``collections.Counter`` for `Counter`) are three
real graphs' aliases (`--aliases` of benchmarks/datasets/wordnet.py, hpo.py and
pystdlib.py). Each graph is built twice, without and with its aliases column, and the rule
agent (3 agents, `ark eval run -m rules`) answers every development question set of the graph
on both:
Hit@1 / Hit@5 / R@20 per set, and the questions whose Hit@1 changed.

    .venv/bin/python -m benchmarks.studies.aliases --work /tmp/aliases
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

from benchmarks.datasets.hpo import HERE as HPO_QUESTIONS
from benchmarks.datasets.hpo import build_hpo
from benchmarks.datasets.pystdlib import DATA as PYSTDLIB_QUESTIONS
from benchmarks.datasets.pystdlib import build_pystdlib
from benchmarks.datasets.wordnet import HERE as WORDNET_QUESTIONS
from benchmarks.datasets.wordnet import build_wordnet
from benchmarks.quality.plan_families import ark

CACHE = Path.home() / ".cache" / "ark"
GRAPHS: dict[str, tuple[Callable[[Path, bool], Path], Path]] = {
    "wordnet": (
        lambda out, aliases: build_wordnet(out, CACHE / "wordnet", aliases=aliases),
        WORDNET_QUESTIONS,
    ),
    "hpo": (lambda out, aliases: build_hpo(out, CACHE / "hpo", aliases=aliases), HPO_QUESTIONS),
    "pystdlib": (lambda out, aliases: build_pystdlib(out, aliases=aliases), PYSTDLIB_QUESTIONS),
}
"""Each graph's builder (snapshot directory, with aliases or not) and question folder."""
VARIANTS = ("names", "aliases")


def snapshot(work: Path, graph: str, variant: str) -> Path:
    """The graph built once in `work`, with its aliases column for the "aliases" variant."""
    out = work / f"{graph}-{variant}"
    if not (out / "manifest.json").is_file():
        build, _ = GRAPHS[graph]
        with contextlib.redirect_stdout(io.StringIO()):  # the builders' counts, not the table
            build(out, variant == "aliases")
    return out


def answers(work: Path, graph: str, questions: Path) -> dict[str, list[dict]]:
    """Each variant's result records for one question file (runs skipped once written)."""
    qa = work / "qa" / f"{graph}-{questions.stem}"
    qa.mkdir(parents=True, exist_ok=True)
    (qa / "dev.jsonl").write_text(questions.read_text())
    found = {}
    for variant in VARIANTS:
        out = work / "runs" / f"{graph}-{questions.stem}-{variant}"
        common = [str(snapshot(work, graph, variant)), "--qa", str(qa), "--split", "dev"]
        ark(["eval", "run", *common, "-m", "rules", "--out", str(out)], work / "commands.log")
        lines = (out / "results.jsonl").read_text().splitlines()
        found[variant] = [json.loads(line) for line in lines]
    return found


def scores(records: list[dict]) -> tuple[float, float, float]:
    """Hit@1, Hit@5 and Recall@20 over the records (gold ids against the fused ranking)."""
    hit1 = hit5 = recall = 0.0
    for record in records:
        gold, ranked = set(record["gold"]), record["result"]["fused"]
        hit1 += bool(ranked[:1]) and ranked[0] in gold
        hit5 += bool(gold & set(ranked[:5]))
        recall += len(gold & set(ranked[:20])) / len(gold)
    count = max(len(records), 1)
    return hit1 / count, hit5 / count, recall / count


def changed(before: list[dict], after: list[dict]) -> list[str]:
    """The questions whose Hit@1 the aliases changed, marked + (gained) or - (lost)."""
    rows = []
    later = {record["question_id"]: record for record in after}  # runs write in any order
    for old in before:
        new, gold = later[old["question_id"]], set(old["gold"])
        was = old["result"]["fused"][:1] and old["result"]["fused"][0] in gold
        now = new["result"]["fused"][:1] and new["result"]["fused"][0] in gold
        if bool(was) != bool(now):
            rows.append(f"{'+' if now else '-'} {old['family']}: {old['query']}")
    return rows


def main() -> None:
    """Print one table row per question set, then the changed questions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/aliases"))
    args = parser.parse_args()
    print("| graph | questions | Hit@1 / Hit@5 / R@20, names only | with aliases | Hit@1 +/- |")
    print("|---|---|---|---|---|")
    notes = []
    for graph, (_, folder) in GRAPHS.items():
        for questions in sorted(folder.glob("*.jsonl")):
            found = answers(args.work, graph, questions)
            before, after = (scores(found[variant]) for variant in VARIANTS)
            rows = changed(found["names"], found["aliases"])
            gained = sum(row.startswith("+") for row in rows)
            print(
                f"| {graph} | {questions.name} ({len(found['names'])}) "
                f"| {' / '.join(f'{x:.3f}' for x in before)} "
                f"| {' / '.join(f'{x:.3f}' for x in after)} | +{gained} / -{len(rows) - gained} |",
                flush=True,
            )
            notes += [f"{graph} {questions.name} {row}" for row in rows]
    print("\n".join(["", *notes]))


if __name__ == "__main__":
    main()
