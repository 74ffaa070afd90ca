"""A real typed graph of Debian packages (bookworm main, amd64) and its frozen final-test questions.

Source: the apt Packages index of Debian 12 "bookworm" main for amd64 (the file this machine's
apt keeps under /var/lib/apt/lists; see debian/SOURCE.md for its checksum and date). The parsed
node and edge tables are frozen in debian/nodes.parquet and debian/edges.parquet, so the
snapshot never changes with the archive; ``--from-apt`` re-derives them from the apt list.

Nodes (ids are type-prefixed):

* package (``pkg:NAME``): a binary package; its text is the Description (the Packages index
  holds only the short line; a long description, where present, is kept to TEXT_CHARS) with
  its section and priority;
* section (``sec:NAME``): an archive section (python, devel, libs, ...);
* maintainer (``mnt:SLUG``): a person or team of the Maintainer field, name without the email
  (spellings that differ only in case or spacing are one node, named by the commonest);
* source (``src:NAME``): a source package that builds at least one binary of another name;
* virtual (``virt:NAME``): a name only ever Provided, never a real package, kept where another
  field names it or two packages provide it (the ~28,500 names one package provides and
  nothing mentions, mostly Rust and Go library versions and features, are left out);
* tag (``tag:FACET::VALUE``): a Debtags tag of the Tag field.

Where names of two nodes coincide, ignoring case (the section ``perl`` and the package
``perl``, the source and the binary ``openssl``, the maintainer ``Kea`` and the package
``kea``), each non-package one is named with its type in parentheses: ``perl (section)``,
``openssl (source package)``, ``Kea (maintainer)``. (A few maintainers' own names hold
parentheses, e.g. ``Natural Language Processing (Japanese)``.)

Edges, directed as the field reads (package -> named package): depends, pre_depends,
recommends, suggests, provides, conflicts, breaks, replaces, enhances (one edge per
alternative of ``a | b``; versions, architecture qualifiers and restrictions dropped; names
that are neither a package nor a virtual name dropped; self-loops and duplicates dropped),
and in_section, maintained_by, built_from (package -> source) and has_tag.

Questions: debian/final.jsonl, 120 questions in five families (one_hop, two_hop,
intersection, neighbour_set, text_only), written by hand; each line keeps the `spec` its gold
answers were derived from.

    .venv/bin/python -m benchmarks.datasets.debian --out /tmp/debian
    .venv/bin/python -m benchmarks.datasets.debian --from-apt --out /tmp/debian
    .venv/bin/python -m benchmarks.datasets.debian --check-questions
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.datasets.tables import exit_with_problems, frozen_parser
from graphs.build.memory import build_snapshot
from graphs.build.options import BuildOptions

DATA = Path(__file__).with_name("debian")
APT_LISTS = Path("/var/lib/apt/lists")
PACKAGES_LIST = APT_LISTS / "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4"
IN_RELEASE = APT_LISTS / "deb.debian.org_debian_dists_bookworm_InRelease"
TEXT_CHARS = 600
"""The most characters of description a package's text keeps (before its section words)."""

RELATIONS = {
    "Depends": "depends",
    "Pre-Depends": "pre_depends",
    "Recommends": "recommends",
    "Suggests": "suggests",
    "Provides": "provides",
    "Conflicts": "conflicts",
    "Breaks": "breaks",
    "Replaces": "replaces",
    "Enhances": "enhances",
}
TYPES = ["package", "section", "maintainer", "source", "virtual", "tag"]
LABELS = {
    "section": "section",
    "maintainer": "maintainer",
    "source": "source package",
    "virtual": "virtual package",
    "tag": "tag",
}
"""The parenthesised disambiguator of each non-package type."""

_QUALIFIERS = re.compile(r"\([^)]*\)|\[[^\]]*\]|<[^>]*>")


def read_stanzas(text: str) -> Iterator[dict[str, str]]:
    """The deb822 stanzas of `text`, continuation lines joined to their field with newlines."""
    for block in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if line[:1] in (" ", "\t"):
                if key is not None:
                    fields[key] += "\n" + line[1:]
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if fields:
            yield fields


def relation_names(field: str) -> list[str]:
    """Package names of a relationship field, every alternative, without versions or arches."""
    names = []
    for part in _QUALIFIERS.sub(" ", field).replace("\n", " ").split(","):
        for alternative in part.split("|"):
            name = alternative.strip().split(":")[0].strip()
            if name:
                names.append(name)
    return names


def maintainer_name(field: str) -> str:
    """The Maintainer field's name, without the email address and quotes."""
    return field.split("<")[0].strip().strip('"').strip() or field.strip()


def long_description(description: str) -> tuple[str, str]:
    """The short line and the long description (paragraph dots removed) of a Description."""
    short, _, rest = description.partition("\n")
    lines = [line.strip() for line in rest.splitlines()]
    return short.strip(), " ".join(line for line in lines if line and line != ".")


def package_text(stanza: dict[str, str]) -> str:
    """A package's description (at most TEXT_CHARS) followed by its section and priority."""
    short, rest = long_description(stanza.get("Description", ""))
    text = short if not rest else f"{short}. {rest}"
    if len(text) > TEXT_CHARS:
        text = text[:TEXT_CHARS].rsplit(" ", 1)[0] + " ..."
    if text and text[-1] not in ".!?":
        text += "."
    section = stanza.get("Section", "unknown")
    return f"{text} Section: {section}. Priority: {stanza.get('Priority', 'unknown')}."


def apt_packages_text(path: Path = PACKAGES_LIST) -> str:
    """The decompressed Packages index (apt-helper reads lz4, xz, gz or plain files)."""
    helper = "/usr/lib/apt/apt-helper"
    return subprocess.run(
        [helper, "cat-file", str(path)], check=True, capture_output=True, text=True
    ).stdout


Nodes = dict[str, tuple[str, str, str]]
"""Node id -> (type, bare name, text)."""
Edges = set[tuple[str, str, str]]


def debian_tables(packages_text: str) -> tuple[pa.Table, pa.Table]:
    """Nodes (id, type, name, text) and edges (src, dst, relation) of a Packages index."""
    # A name listed twice (linux-doc, linux-source: two kernel versions) keeps its last
    # stanza, the newer version in the index.
    stanzas = {s["Package"]: s for s in read_stanzas(packages_text) if "Package" in s}
    virtual = _virtual_names(stanzas)
    sources: dict[str, set[str]] = defaultdict(set)
    for name, stanza in stanzas.items():
        sources[_source(stanza)].add(name)
    nodes: Nodes = {}
    edges: Edges = set()
    for name, stanza in sorted(stanzas.items()):
        nodes[f"pkg:{name}"] = ("package", name, package_text(stanza))
        edges |= _package_edges(stanza, stanzas.keys(), virtual, sources)
    _add_other_nodes(nodes, edges, stanzas, sources, virtual)
    return _node_table(nodes), _edge_table(edges)


def _source(stanza: dict[str, str]) -> str:
    return stanza.get("Source", stanza["Package"]).split("(")[0].strip()


def _package_edges(
    stanza: dict[str, str], packages, virtual: set[str], sources: dict[str, set[str]]
) -> Edges:
    """The edges out of one package."""
    pid = f"pkg:{stanza['Package']}"
    edges: Edges = set()
    for field, relation in RELATIONS.items():
        for other in relation_names(stanza.get(field, "")):
            dst = f"pkg:{other}" if other in packages else f"virt:{other}"
            if (other in packages or other in virtual) and dst != pid:
                edges.add((pid, dst, relation))
    if section := stanza.get("Section"):
        edges.add((pid, f"sec:{section}", "in_section"))
    if person := maintainer_name(stanza.get("Maintainer", "")):
        edges.add((pid, f"mnt:{_slug(person)}", "maintained_by"))
    source = _source(stanza)
    if sources[source] != {source}:
        edges.add((pid, f"src:{source}", "built_from"))
    for tag in stanza.get("Tag", "").replace("\n", " ").split(","):
        if tag := tag.strip():
            edges.add((pid, f"tag:{tag}", "has_tag"))
    return edges


def _add_other_nodes(
    nodes: Nodes,
    edges: Edges,
    stanzas: dict[str, dict[str, str]],
    sources: dict[str, set[str]],
    virtual: set[str],
) -> None:
    """The section, maintainer, source, virtual and tag nodes, each with a one-line text."""
    degree = Counter((rel, dst) for _, dst, rel in edges)
    spellings: dict[str, Counter] = defaultdict(Counter)
    for stanza in stanzas.values():
        if person := maintainer_name(stanza.get("Maintainer", "")):
            spellings[_slug(person)][person] += 1
    for (rel, dst), n in degree.items():
        name = dst.split(":", 1)[1]
        if rel == "in_section":
            text = f"The Debian archive section {name}, holding {_count(n, 'binary package')}"
            nodes[dst] = ("section", name, f"{text} of bookworm main.")
        elif rel == "has_tag":
            facet, _, value = name.partition("::")
            text = f"The Debtags tag {name} (facet {facet}, value {value})"
            nodes[dst] = ("tag", name, f"{text}, carried by {_count(n, 'package')}.")
    for slug, names in spellings.items():
        person = names.most_common(1)[0][0]
        text = f"{person}, the Debian maintainer of {_count(names.total(), 'binary package')}"
        nodes[f"mnt:{slug}"] = ("maintainer", person, f"{text} of bookworm main.")
    for source, binaries in sources.items():
        if binaries != {source}:
            built = f"{_count(len(binaries), 'binary package')} of bookworm main"
            text = f"The Debian source package {source}, from which {built}"
            verb = "is" if len(binaries) == 1 else "are"
            nodes[f"src:{source}"] = ("source", source, f"{text} {verb} built.")
    for name in virtual:
        text = f"The virtual package {name}: a name no real package has, provided by"
        count = _count(degree["provides", f"virt:{name}"], "package")
        nodes[f"virt:{name}"] = ("virtual", name, f"{text} {count}.")


def _virtual_names(stanzas: dict[str, dict[str, str]]) -> set[str]:
    """Names Provided but no real package: those another field names or two packages provide.

    A name that one package provides and nothing else mentions (most of them are the
    versioned and feature names of Rust and Go library packages) would be a node with one
    edge and nothing to ask about; it is left out with its provides edge.
    """
    providers: Counter = Counter()
    mentioned: set[str] = set()
    for stanza in stanzas.values():
        providers.update(set(relation_names(stanza.get("Provides", ""))))
        for field in RELATIONS.keys() - {"Provides"}:
            mentioned.update(relation_names(stanza.get(field, "")))
    return {
        name
        for name, n in providers.items()
        if name not in stanzas and (n > 1 or name in mentioned)
    }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _slug(person: str) -> str:
    return re.sub(r"[\s\-_.,]+", "-", person.casefold()).strip("-")


def _node_table(nodes: dict[str, tuple[str, str, str]]) -> pa.Table:
    """Nodes sorted by id, a non-package name that another node shares given its type label."""
    shared = Counter(name.casefold() for _, name, _ in nodes.values())
    rows = []
    for nid in sorted(nodes):
        kind, name, text = nodes[nid]
        if kind != "package" and shared[name.casefold()] > 1:
            name = f"{name} ({LABELS[kind]})"
        rows.append((nid, kind, name, text))
    return pa.table({k: [r[i] for r in rows] for i, k in enumerate(("id", "type", "name", "text"))})


def _edge_table(edges: set[tuple[str, str, str]]) -> pa.Table:
    rows = sorted(edges, key=lambda e: (e[2], e[0], e[1]))
    return pa.table({k: [r[i] for r in rows] for i, k in enumerate(("src", "dst", "relation"))})


def freeze(nodes: pa.Table, edges: pa.Table, data: Path = DATA) -> None:
    """Write the tables as zstd parquet files in `data`."""
    data.mkdir(parents=True, exist_ok=True)
    for table, name in ((nodes, "nodes"), (edges, "edges")):
        pq.write_table(table, data / f"{name}.parquet", compression="zstd", compression_level=19)


def apt_source_lines(path: Path = PACKAGES_LIST) -> list[str]:
    """The Packages file's sha256 and the InRelease Date line, for SOURCE.md."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    date = next(
        (line for line in IN_RELEASE.read_text().splitlines() if line.startswith("Date:")),
        "Date: unknown",
    )
    return [f"{path.name} sha256 {digest}", f"InRelease {date}"]


Graph = tuple[dict[str, tuple[str, str]], dict, dict]
"""Node id -> (type, text), and (node, relation) -> neighbours out of and into the node."""


def spec_gold(spec: dict, graph: Graph) -> set[str]:
    """The gold answers of a question's `spec`, re-derived from the graph (for audits).

    A spec is one of: ``hop`` (the neighbours of ``from`` by ``rel`` in direction ``dir``,
    "out" following the edge, "in" against it); ``chain`` (``steps`` of such hops from
    ``from``, optionally without ``from`` itself: ``minus_from``); ``and`` (the nodes every
    spec in ``of`` finds); ``text`` (the nodes of ``type`` whose text holds every word).
    ``words`` on a hop, step or ``and`` keeps the nodes whose text holds every word
    (case-insensitive substrings). ``bare`` lists anchors the question names without their
    parenthesised type.
    """
    texts, out, into = graph

    def keep(ids: set[str], words: list[str]) -> set[str]:
        return {i for i in ids if all(w.lower() in texts[i][1].lower() for w in words)}

    def hop(ids: set[str], step: dict) -> set[str]:
        side = out if step["dir"] == "out" else into
        found = {n for i in ids for n in side.get((i, step["rel"]), ())}
        return keep(found, step.get("words", []))

    if spec["op"] == "hop":
        return hop({spec["from"]}, spec)
    if spec["op"] == "chain":
        ids = {spec["from"]}
        for step in spec["steps"]:
            ids = hop(ids, step)
        return ids - {spec["from"]} if spec.get("minus_from") else ids
    if spec["op"] == "and":
        found = set.intersection(*(spec_gold(part, graph) for part in spec["of"]))
        return keep(found, spec.get("words", []))
    if spec["op"] == "text":
        of_type = {i for i, (kind, _) in texts.items() if kind == spec.get("type", "package")}
        return keep(of_type, spec["words"])
    raise ValueError(f"unknown spec op {spec['op']!r}")


def load_graph(data: Path = DATA) -> tuple[Graph, dict[str, str]]:
    """The frozen tables as adjacency maps for `spec_gold`, and node names by id."""
    nodes = pq.read_table(data / "nodes.parquet").to_pydict()
    edges = pq.read_table(data / "edges.parquet").to_pydict()
    texts = {i: (t, x) for i, t, x in zip(nodes["id"], nodes["type"], nodes["text"], strict=True)}
    out: dict = defaultdict(set)
    into: dict = defaultdict(set)
    for src, dst, rel in zip(edges["src"], edges["dst"], edges["relation"], strict=True):
        out[src, rel].add(dst)
        into[dst, rel].add(src)
    return (texts, out, into), dict(zip(nodes["id"], nodes["name"], strict=True))


def check_questions(data: Path = DATA) -> list[str]:
    """Problems of every question file in `data` (final.jsonl, the development sets)."""
    graph, names = load_graph(data)
    return [
        problem
        for questions in sorted(data.glob("*.jsonl"))
        for problem in question_problems(questions.read_text().splitlines(), graph, names)
    ]


def question_problems(
    lines: Iterable[str], graph: Graph, names: dict[str, str], *, anchors: bool = True
) -> list[str]:
    """Problems of question rows (JSON lines): gold that its spec does not re-derive, unknown
    ids, gold sets outside 1..20 and (with `anchors`) anchors the question does not name
    (without the parenthesised part where the spec lists them as `bare`)."""
    problems = []
    for line in lines:
        row = json.loads(line)
        spec, gold = row["spec"], row["answer_ids"]
        if set(gold) != spec_gold(spec, graph) or not 0 < len(gold) <= 20:
            problems.append(f"{row['id']}: gold differs from its spec or has {len(gold)} ids")
        problems += [f"{row['id']}: unknown id {i}" for i in gold if i not in names]
        for anchor in _anchors(spec) if anchors else ():
            name = names[anchor]
            if anchor in spec.get("bare", []):
                name = re.sub(r" \([^)]*\)$", "", name)
            if name.casefold() not in row["query"].casefold():
                problems.append(f"{row['id']}: the question does not name {anchor} ({name})")
    return problems


def _anchors(spec: dict) -> Iterator[str]:
    if "from" in spec:
        yield spec["from"]
    for part in spec.get("of", []):
        yield from _anchors(part)


def build_debian(out: Path, *, from_apt: bool = False, packages: Path = PACKAGES_LIST) -> Path:
    """Write the snapshot at `out` (replacing it) and copy the questions to out/qa/final.jsonl.

    Args:
        out: the snapshot directory.
        from_apt: re-derive the frozen tables from the apt Packages list first (rewriting
            debian/nodes.parquet and debian/edges.parquet) instead of reading them.
        packages: the Packages list `from_apt` reads.
    """
    if from_apt:
        nodes, edges = debian_tables(apt_packages_text(packages))
        freeze(nodes, edges)
        print("\n".join(apt_source_lines(packages)))
    nodes = pq.read_table(DATA / "nodes.parquet")
    edges = pq.read_table(DATA / "edges.parquet")
    build_snapshot(
        nodes,
        edges,
        out,
        name="debian",
        candidate_types=TYPES,
        sources=[f"benchmarks/datasets/debian/{name}.parquet" for name in ("nodes", "edges")],
        options=BuildOptions(overwrite=True),
    )
    (out / "qa").mkdir(exist_ok=True)
    shutil.copyfile(DATA / "final.jsonl", out / "qa" / "final.jsonl")
    return out


def main() -> None:
    """Build the Debian snapshot and copy its final-test questions into it."""
    parser = frozen_parser(
        __doc__ or "",
        "--from-apt",
        "re-derive the frozen parquet tables from the apt Packages list first",
    )
    parser.add_argument("--packages", type=Path, default=PACKAGES_LIST)
    args = parser.parse_args()
    if args.check_questions:
        exit_with_problems(check_questions())
    if args.out is None:
        parser.error("--out is required to build the snapshot")
    start = time.perf_counter()
    out = build_debian(args.out, from_apt=args.from_apt, packages=args.packages)
    print(f"{out} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
