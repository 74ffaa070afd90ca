"""Relational retrieval per question family: BM25, generic reference, plans, rule agent.

For each graph (the three synthetic domains, world geography, ICD-10-CM), on a seeded sample
of the test split: BM25 (`ark baseline bm25`), the generic link-and-expand reference
(benchmarks/quality/generic_reference.py, not a product path), the offline plan executor
(`ark plan --qa -m rules`) and the rule agent (`ark eval run -m rules`, 3 agents, 20 steps).
`--before DIR` also runs the rule agent of an older checkout (e.g. `git worktree add
/tmp/base 7f5ead0`) on the same sample. `--fusion` adds `ark fuse` of plan + agents (+ BM25),
static and dynamic RRF, tuned on the val split (Hit@1, STaRK protocol) and applied to test.
Tables: Hit@1 / Hit@5 / R@20 / MRR per family, both protocols.

The graph `debian` is the frozen final test (benchmarks/datasets/debian.py): its 120
questions are all run (split `final`, no sample, no fusion); run it once, at the end, and
report it apart. `debian-dev` is the same graph with 100 development questions
(benchmarks/datasets/debian/dev.jsonl, written by a helper that did not read the policy):
all run (split `dev`), to be read and developed on. `wordnet` is Princeton WordNet 3.0
(benchmarks/datasets/wordnet.py: 117,659 synsets, names disambiguated as `glass (container)`)
with 100 development questions (wordnet/dev.jsonl, written the same way), run whole too.
`debian-text` and `wordnet-text` are 24 more text-only development questions on each of those
graphs; `wordnet-2`, `hpo-2` and `debian-2` are 100 more questions on each of those graphs,
20 per family, written later by other helpers that did not read the policy, first run before
any change they could prompt (`QUESTION_SETS`). `hpo` is the Human Phenotype Ontology
(benchmarks/datasets/hpo.py: 36,259 phenotypes, diseases and genes, typed and
non-hierarchical, names disambiguated as `Marfan syndrome (OMIM)`) with 100 development
questions (hpo/dev.jsonl, written the same way), run whole too. `pystdlib` is the Python 3.11
standard library's public API (benchmarks/datasets/pystdlib.py: 11,625 modules, classes,
exceptions, functions and methods; their docstrings as text; `defined_in`, `method_of`,
`inherits_from`, `imports`, `raises`), a code graph, with 100 development questions
(pystdlib/dev.jsonl, written by a helper that did not read the policy), run whole too.

    nice -n 10 .venv/bin/python -m benchmarks.quality.plan_families --work /tmp/plan-bench \
        --sample 80 --before /tmp/base
    nice -n 10 .venv/bin/python -m benchmarks.quality.plan_families --work /tmp/plan-bench \
        --graphs debian --before /tmp/base
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from benchmarks.datasets.debian import DATA as DEBIAN_DATA
from benchmarks.datasets.debian import build_debian
from benchmarks.datasets.geography import build_geography
from benchmarks.datasets.hpo import build_hpo
from benchmarks.datasets.icd10 import build_icd_snapshot
from benchmarks.datasets.pystdlib import build_pystdlib
from benchmarks.datasets.wordnet import build_wordnet
from evals.summary import summarize_run
from graphs.build.options import BuildOptions
from graphs.synth.generate import DOMAINS, generate

METRICS = ("hit@1", "hit@5", "recall@20", "mrr")
DATASETS = Path(__file__).parents[1] / "datasets"
QUESTION_SETS = {
    "debian-text": ("debian-dev", DATASETS / "debian" / "dev-text.jsonl"),
    "wordnet-text": ("wordnet", DATASETS / "wordnet" / "dev-text.jsonl"),
    "wordnet-2": ("wordnet", DATASETS / "wordnet" / "dev2.jsonl"),
    "hpo-2": ("hpo", DATASETS / "hpo" / "dev2.jsonl"),
    "debian-2": ("debian-dev", DATASETS / "debian" / "dev2.jsonl"),
    "debian-3t": ("debian-dev", DATASETS / "debian" / "dev3-text.jsonl"),
    "hpo-text": ("hpo", DATASETS / "hpo" / "dev-text.jsonl"),
    "debian-4": ("debian-dev", DATASETS / "debian" / "dev4.jsonl"),
    "wordnet-3": ("wordnet", DATASETS / "wordnet" / "dev3.jsonl"),
    "hpo-3": ("hpo", DATASETS / "hpo" / "dev3.jsonl"),
}
"""More development questions (written by helpers that did not read the policy: text-only
ones, 24 to 40, 100 of every family, 40 intersections and chains, or 40 and 32 in the style
of STaRK: a relation from a node named with its disambiguator, kept by a property of the
answer's text), run on the snapshot of the graph named first (its files linked, not
copied)."""


def ark(args: list[str], log: Path, *, root: Path | None = None) -> None:
    """Run `ark ARGS` (from `root`'s checkout when given); skipped when its --out exists."""
    if "--out" in args and (Path(args[args.index("--out") + 1]) / "config.json").is_file():
        return
    env = dict(os.environ)
    code = "import sys; from cli.app import main; sys.argv[0] = 'ark'; main()"
    if root is not None:
        env["PYTHONPATH"] = str(root)
    with log.open("a") as handle:
        handle.write("$ ark " + " ".join(args) + (f"   # from {root}" if root else "") + "\n")
        handle.flush()
        subprocess.run([sys.executable, "-c", code, *args], check=True, stdout=handle,
                       stderr=subprocess.STDOUT, env=env, cwd=root)  # fmt: skip


def icd_questions(graph: Path, per_family: int, seed: int) -> None:
    """text_only, one_hop (scoped by the parent) and neighbour_set (a code's children)."""
    nodes = pq.read_table(graph / "nodes.parquet", columns=["id", "name", "text"]).to_pylist()
    edges = pq.read_table(graph / "edges.parquet", columns=["src", "dst"]).to_pylist()
    parent = {e["dst"]: e["src"] for e in edges}
    children: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        children[e["src"]].append(e["dst"])
    names = {n["id"]: n["name"] for n in nodes}
    rng = np.random.default_rng(seed)
    pool = [
        n
        for n in nodes
        if n["text"] != n["name"] and len(n["text"].split()) >= 6 and n["id"] in parent
    ]
    rows = []
    for i, index in enumerate(rng.permutation(len(pool))[: 4 * per_family].tolist()):
        node = pool[index]
        words = node["text"].split()
        size = int(rng.integers(6, min(len(words), 16) + 1))
        start = int(rng.integers(0, len(words) - size + 1))
        body = " ".join(words[start : start + size]).strip(" ;,")
        if i % 2 == 0:
            rows.append(
                {
                    "query": f"Which diagnosis code covers {body}?",
                    "family": "text_only",
                    "answer_ids": [node["id"]],
                }
            )
        else:
            query = f"Under {names[parent[node['id']]]}, which entry is used for {body}?"
            rows.append({"query": query, "family": "one_hop", "answer_ids": [node["id"]]})
    sets = [c for c, kids in sorted(children.items()) if 2 <= len(kids) <= 20]
    for index in rng.permutation(len(sets))[: 2 * per_family].tolist():
        code = sets[index]
        query = f"Which codes are listed directly under {names[code]} in the classification?"
        rows.append(
            {"query": query, "family": "neighbour_set", "answer_ids": sorted(children[code])}
        )
    qa = graph / "qa"
    qa.mkdir(exist_ok=True)
    by_family: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_family[row["family"]].append(row)
    halves: dict[str, list[dict]] = {"val": [], "test": []}
    for found in by_family.values():
        halves["val"] += found[::2]
        halves["test"] += found[1::2]
    for split, part in halves.items():
        text = "".join(
            json.dumps({"id": f"icd-{split}-{i:05d}", **r}) + "\n" for i, r in enumerate(part)
        )
        (qa / f"{split}.jsonl").write_text(text)


DEV_GRAPHS: dict[str, Callable[[Path], Path]] = {
    "wordnet": lambda out: build_wordnet(out, Path.home() / ".cache" / "ark" / "wordnet"),
    "hpo": lambda out: build_hpo(out, Path.home() / ".cache" / "ark" / "hpo"),
    "pystdlib": build_pystdlib,
}
"""Real graphs built with their development questions in qa/dev.jsonl."""


def build_graph(name: str, work: Path, per_family: int) -> Path:
    """The graph `name` with val/test questions in its qa/ directory."""
    out = work / name
    if name in DOMAINS:
        if not (out / "manifest.json").is_file():
            generate(name, 0, out, options=BuildOptions(overwrite=True))
    elif name == "geography":
        build_geography(out)
    elif name == "debian":
        if not (out / "qa" / "final.jsonl").is_file():
            build_debian(out)
    elif name == "debian-dev":
        if not (out / "qa" / "dev.jsonl").is_file():
            build_debian(out)
            (out / "qa" / "final.jsonl").unlink()
            shutil.copyfile(DEBIAN_DATA / "dev.jsonl", out / "qa" / "dev.jsonl")
    elif name in DEV_GRAPHS:
        if not (out / "qa" / "dev.jsonl").is_file():
            DEV_GRAPHS[name](out)
    elif name in QUESTION_SETS:
        question_set(name, work, per_family)
    elif not (out / "qa" / "test.jsonl").is_file():
        build_icd_snapshot(out, "english")
        icd_questions(out, per_family, seed=0)
    return out


def question_set(name: str, work: Path, per_family: int) -> None:
    """A `QUESTION_SETS` set: the files of its graph's snapshot linked, its own qa/."""
    out = work / name
    base = build_graph(QUESTION_SETS[name][0], work, per_family)
    if not (out / "qa" / "dev.jsonl").is_file():
        (out / "qa").mkdir(parents=True, exist_ok=True)
        for item in base.iterdir():
            if item.name != "qa" and not (out / item.name).exists():
                (out / item.name).symlink_to(item.resolve())
        shutil.copyfile(QUESTION_SETS[name][1], out / "qa" / "dev.jsonl")


def splits_of(graph: Path) -> tuple[str, ...]:
    """The splits run: the final test's or the development questions' one, else val and test."""
    for whole in ("final", "dev"):
        if (graph / "qa" / f"{whole}.jsonl").is_file():
            return (whole,)
    return ("val", "test")


def sampled_qa(graph: Path, work: Path, sample: int, seed: int = 0) -> Path:
    """A seeded random `sample` of each split, written once: every method runs on it.

    The final test is run whole.
    """
    qa = work / "qa" / graph.name
    qa.mkdir(parents=True, exist_ok=True)
    for split in splits_of(graph):
        if split in ("final", "dev"):
            (qa / f"{split}.jsonl").write_text((graph / "qa" / f"{split}.jsonl").read_text())
            continue
        path = qa / f"{split}.jsonl"
        if not path.is_file():
            lines = (graph / "qa" / f"{split}.jsonl").read_text().splitlines()
            order = np.random.default_rng(seed).permutation(len(lines))[:sample]
            path.write_text("".join(lines[i] + "\n" for i in sorted(order.tolist())))
    return qa


def run_graph(
    graph: Path, work: Path, sample: int, before: Path | None, *, fusion: bool = False
) -> dict[str, Path]:
    """Every run of one graph; returns the evaluated split's run of each method."""
    runs, log = work / "runs" / graph.name, work / "commands.log"
    qa = sampled_qa(graph, work, sample)
    runs.mkdir(parents=True, exist_ok=True)
    splits = splits_of(graph)
    evaluated = splits[-1]
    for split in splits if fusion else (evaluated,):
        common = [str(graph), "--qa", str(qa), "--split", split]
        ark(["baseline", "bm25", *common, "--out", str(runs / f"bm25-{split}")], log)
        generic = runs / f"generic-{split}"
        if not (generic / "config.json").is_file():
            with log.open("a") as handle:
                handle.write(
                    f"$ python -m benchmarks.quality.generic_reference {' '.join(common)}\n"
                )
            subprocess.run(
                [sys.executable, "-m", "benchmarks.quality.generic_reference", *common,
                 "--out", str(generic)],
                check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
        ark(["plan", *common, "-m", "rules", "--out", str(runs / f"plan-{split}")], log)
        if before is not None:
            old = ["eval", "run", *common, "-m", "rules", "--out", str(runs / f"before-{split}")]
            ark(old, log, root=before)
        ark(["eval", "run", *common, "-m", "rules", "--out", str(runs / f"rules-{split}")], log)
    methods = ["bm25", "generic", "plan", *(["before"] if before else []), "rules"]
    out = {name: runs / f"{name}-{evaluated}" for name in methods}
    if not fusion:
        return out
    for label, sources in (
        ("plan+agents", ("plan", "rules")),
        ("plan+agents+bm25", ("plan", "rules", "bm25")),
    ):
        joined = [f"{runs / f'{s}-val'},{runs / f'{s}-test'}" for s in sources]
        for mode in ("static", "dynamic"):
            fused = runs / f"fuse-{label}-{mode}"
            ark(
                ["fuse", *joined, "--qa", str(qa), "--out", str(fused), "--grid", "--mode", mode],
                log,
            )
            out[f"{label} {mode}"] = fused
    return out


def table(graph: str, runs: dict[str, Path], protocol: str) -> list[str]:
    """One markdown table: a row per family and method."""
    summaries = {name: summarize_run(path) for name, path in runs.items()}
    families = sorted({f for s in summaries.values() for f in s.groups})
    title = f"\n**{graph}** ({protocol} protocol; Hit@1 / Hit@5 / R@20 / MRR)\n"
    header = "| family | " + " | ".join(summaries) + " |"
    lines = [title, header, "|---|" + "---|" * len(summaries)]
    for family in families:
        cells = []
        for summary in summaries.values():
            group = summary.groups.get(family)
            means = group.means()[protocol] if group else None
            cells.append(" / ".join(f"{means[m]:.3f}" for m in METRICS) if means else "-")
        count = next(iter(summaries.values())).groups[family].questions
        lines.append(f"| {family} ({count}) | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    """Build the graphs, run every method, print and write the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/plan-bench"))
    parser.add_argument("--graphs", default="products,academic,biomed,geography,icd10cm")
    parser.add_argument("--sample", type=int, default=80, help="Questions per split (seeded).")
    parser.add_argument("--before", type=Path, default=None, help="An older checkout.")
    parser.add_argument("--out", type=Path, default=None, help="Markdown file for the tables.")
    parser.add_argument("--fusion", action="store_true", help="Also fuse plan + agents (+ BM25).")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for name in args.graphs.split(","):
        graph = build_graph(name, args.work, per_family=args.sample)
        runs = run_graph(graph, args.work, args.sample, args.before, fusion=args.fusion)
        shown = [line for protocol in ("stark", "ark") for line in table(name, runs, protocol)]
        print("\n".join(shown), flush=True)
        lines += shown
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
