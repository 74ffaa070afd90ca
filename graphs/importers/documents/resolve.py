"""Entity resolution: one node per entity across documents (normalised names, aliases, encoder)."""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

CONCEPT = "concept"
_STOP = frozenset({"of", "the", "and", "for", "in", "on", "at", "de", "a", "an"})
_STRIP = "\"'“”‘’`.,;:()[]{}-–—!?"
_ALIAS_TYPES = frozenset({"organisation", "place", "group", "event", "work", "product"})

Encode = Callable[[Sequence[str]], np.ndarray]
"""Texts -> L2-normalised vectors (e.g. graphs.dense.encoder.TextEncoder.encode)."""


def normalise(name: str) -> str:
    """The resolution key of a name.

    NFKC, case-folded; quotes, a leading article, a trailing possessive and inner full stops
    removed; whitespace collapsed.
    """
    text = unicodedata.normalize("NFKC", name).casefold().strip().strip(_STRIP)
    text = text.replace(".", "").replace(",", "")
    if text.endswith(("'s", "’s")):
        text = text[:-2]
    words = text.split()
    if len(words) > 1 and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


@dataclass(frozen=True, kw_only=True)
class ResolveConfig:
    """How mentions are merged into entities.

    Attributes:
        aliases: Merge a one-word person name into the only longer person name ending in it
            (`Lomonosov` -> `Mikhail Lomonosov`) and an acronym into the only name whose
            initials it spells (`MSU` -> `Moscow State University`) (--no-aliases turns off).
        similarity: With an encoder, same-type names whose embeddings have at least this
            cosine are merged (--merge-similarity); 0.92 merges spelling variants
            ("Carice van Houten" / "Carice Van Houten") but not siblings ("Red Book" /
            "Black Book" score ~0.8 with MiniLM).
    """

    aliases: bool = True
    similarity: float = 0.92


@dataclass
class Entity:
    """A resolved entity: its id, canonical name, type and every surface form merged into it."""

    entity_id: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)


@dataclass
class Resolution:
    """Surface name -> entity, the entities, and how many names each rule merged."""

    by_name: dict[str, Entity]
    entities: list[Entity]
    merges: dict[str, int]


def resolve(
    names: Iterable[tuple[str, str]],
    config: ResolveConfig | None = None,
    *,
    encode: Encode | None = None,
) -> Resolution:
    """Resolve (surface name, type) occurrences into entities.

    Names with the same `normalise` key are one entity first (`merges['normalised']` counts the
    surface forms folded in); then aliases and, with `encode`, embedding neighbours are merged.
    An entity's type is its mentions' most frequent non-concept type; its name its most
    frequent surface form.
    """
    config = config or ResolveConfig()
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    types: dict[str, Counter[str]] = defaultdict(Counter)
    for name, kind in names:
        key = normalise(name)
        if key:
            forms[key][name] += 1
            types[key][kind] += 1
    keys = sorted(forms)
    parent = {key: key for key in keys}
    merges = {"normalised": sum(len(forms[key]) - 1 for key in keys), "alias": 0, "embedding": 0}
    kind_of = {key: _type(types[key]) for key in keys}
    if config.aliases:
        merges["alias"] = _merge_aliases(keys, kind_of, parent)
    if encode is not None:
        merges["embedding"] = _merge_similar(keys, kind_of, parent, encode, config.similarity)
    return _entities(keys, forms, types, parent, merges)


def _type(counts: Counter[str]) -> str:
    named = [(count, kind) for kind, count in counts.items() if kind != CONCEPT]
    return max(named)[1] if named else CONCEPT


def _preference(item: tuple[str, int]) -> tuple[bool, int, int, str]:
    """Rank surface forms: without a leading article, then most frequent, then longest."""
    name, count = item
    return (not name.lower().startswith(("the ", "a ", "an ")), count, len(name), name)


def _display(name: str) -> str:
    """A surface form without the unmatched quote NER spans often carry (`"Black Book`)."""
    text = name.strip()
    for quote in ('"', "“", "”"):
        if text.count(quote) % 2:
            text = text.replace(quote, "").strip()
    return text or name


def _find(parent: dict[str, str], key: str) -> str:
    while parent[key] != key:
        parent[key] = parent[parent[key]]
        key = parent[key]
    return key


def _union(parent: dict[str, str], keep: str, other: str) -> bool:
    a, b = _find(parent, keep), _find(parent, other)
    if a == b:
        return False
    parent[b] = a
    return True


def _merge_aliases(keys: list[str], kind_of: dict[str, str], parent: dict[str, str]) -> int:
    last_names: dict[str, list[str]] = defaultdict(list)
    initials: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        words = key.split()
        if len(words) > 1 and kind_of[key] == "person":
            last_names[words[-1]].append(key)
        content = [word for word in words if word not in _STOP]
        if len(content) > 1 and kind_of[key] in _ALIAS_TYPES:
            initials["".join(word[0] for word in content)].append(key)
    merged = 0
    for key in keys:
        if " " in key:
            continue
        if kind_of[key] == "person" and len(last_names.get(key, ())) == 1:
            merged += _union(parent, last_names[key][0], key)
        elif 2 <= len(key) <= 6 and len(initials.get(key, ())) == 1:
            merged += _union(parent, initials[key][0], key)
    return merged


def _merge_similar(
    keys: list[str],
    kind_of: dict[str, str],
    parent: dict[str, str],
    encode: Encode,
    threshold: float,
) -> int:
    by_type: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        if kind_of[key] not in (CONCEPT, "date"):
            by_type[kind_of[key]].append(key)
    merged = 0
    for group in by_type.values():
        if len(group) < 2:
            continue
        vectors = np.asarray(encode(group), dtype=np.float32)
        scores = vectors @ vectors.T
        rows, cols = np.nonzero(np.triu(scores, k=1) >= threshold)
        for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
            merged += _union(parent, group[row], group[col])
    return merged


def _entities(
    keys: list[str],
    forms: dict[str, Counter[str]],
    types: dict[str, Counter[str]],
    parent: dict[str, str],
    merges: dict[str, int],
) -> Resolution:
    members: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        members[_find(parent, key)].append(key)
    by_name: dict[str, Entity] = {}
    entities = []
    for root, group in sorted(members.items()):
        surface: Counter[str] = Counter()
        kinds: Counter[str] = Counter()
        for key in group:
            surface.update(forms[key])
            kinds.update(types[key])
        # The root is the full name an alias was merged into: "Moscow State University", not
        # "MSU", even where the acronym is used more often.
        name = _display(max(forms[root].items(), key=_preference)[0])
        entity = Entity(f"entity:{root}", name, _type(kinds), sorted(set(surface) - {name}))
        entities.append(entity)
        for form in surface:
            by_name[form] = entity
    return Resolution(by_name=by_name, entities=entities, merges=merges)
