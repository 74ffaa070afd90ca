"""Which runs of a question's words name the schema (a type or a relation), not a node.

Linking (tools/mentions.py) leaves such a run to the planner: the words of a type's name or
of a relation's label say what is asked, not which node. Both sets hold stemmed word tuples,
as the name index stems a question's words (graphs/snapshot/name_keys.py):

- a type is named by its whole name (`source package` -> ("sourc", "packag")) and, alone, by
  each word of a longer name no other type's name holds: WordNet's `noun.animal` by
  "animals" ("anim",), as the planner reads type words (tools/plans/type_words.py); a word
  several types share ("noun") names none. Linking reads them only for a run matched after
  stemming: "animals" names the type, "animal" as written still names `animal (organism)`;
  and, by its whole name (`whole_type_stems`), for a run that names nodes only without their
  disambiguators: "module" in "the json module" names Python's type `module`, not the class
  `Module (modulefinder)`, which "Module (modulefinder)" written whole still names;
- a relation is named by its whole label (`causes` -> ("caus",), `has_onset` -> ("has",
  "onset"): underscores split words) and, alone, by the word that tells its label from its
  siblings: no other label holds it, other labels hold each of its label's other words, and
  it is no word of a type's name. WordNet's `topic_domain` is named by "topic" ("the topic
  of tennis", beside `region_domain` and `usage_domain`), `member_holonym` by "members";
  "domain", in three labels, names none, nor does "see" (`also_see`: no other label holds
  "also"). The planner reads a label's distinguishing words the same way
  (`QuestionReader.told_apart`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from graphs.snapshot.name_keys import NameForms, name_words

Stems = frozenset[tuple[str, ...]]
"""Stemmed word runs, each naming one part of the schema."""


def _stemmed(forms: NameForms, names: Iterable[str]) -> list[tuple[str, ...]]:
    """Each schema name's words, stemmed as the name index stems a question's words."""
    return [tuple(forms.stems(name_words(name))) for name in names]


def type_stems(forms: NameForms, node_types: Iterable[str]) -> Stems:
    """The stemmed word runs that name a node type (see the module doc)."""
    names = _stemmed(forms, node_types)
    holders = Counter(stem for stems in names for stem in set(stems))
    alone = {(stem,) for stems in names if len(stems) > 1 for stem in stems}
    return frozenset(names) | {one for one in alone if holders[one[0]] == 1}


def whole_type_stems(forms: NameForms, node_types: Iterable[str]) -> Stems:
    """Each node type's whole name, stemmed (`source package` -> ("sourc", "packag"))."""
    return frozenset(_stemmed(forms, node_types))


def relation_stems(forms: NameForms, relations: Iterable[str], typed: Stems) -> Stems:
    """The stemmed word runs that name a relation (see the module doc).

    `typed`: the runs that name a type (`type_stems`); no word of them names a relation.
    """
    labels = _stemmed(forms, relations)
    holders = Counter(stem for stems in labels for stem in set(stems))
    type_words = {stem for stems in typed for stem in stems}
    alone = {
        (stem,)
        for stems in labels
        if len(stems) > 1
        for stem in stems
        if holders[stem] == 1
        and stem not in type_words
        and all(holders[other] > 1 for other in stems if other != stem)
    }
    return frozenset(labels) | alone
