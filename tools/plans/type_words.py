"""Reading which node types a question names: type words, their compounds and appositions.

A type is named by the words of its name (Snowball stems, so "packages" names `package`),
unless the question writes them in a compound the graph's texts write too ("source control":
the head of an English compound is its last word) or beside a name they describe ("the LRP4
gene", "the virtual package news-transport-system"). `QuestionReader`
(tools/plans/vocabulary.py) reads relations and the remaining words on top of this.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from graphs.bm25.tokenize import Tokenizer
from tools.plans.function_words import FUNCTION_WORDS

MIN_CONTENT_CHARS = 3
"""Shorter words never name a type or relation, nor make a name worth anchoring on."""
WORD = re.compile(r"[^\W_]+", re.UNICODE)
"""A word: letters and digits."""
WH = re.compile(r"\b(?:which|what)\b", re.IGNORECASE)
"""The wh-determiners: the type words after one name what is asked (`asked_type`)."""
CLAUSE_END = re.compile(r"[.?!;:,\u2014-]")
"""A mark after which a wh-word opens a clause (`asked_type`)."""
CLAUSE_MARK = re.compile(r"[.?!;:,\u2014]")
"""A mark that ends a phrase's words (`CLAUSE_END` without the hyphen, which joins words:
the words a relation phrase is written about run on over "X-linked")."""
BY = re.compile(r"\s+by\b", re.IGNORECASE)
"""The agent of a passive: "cited by X", "maintained by X"."""
SAME = re.compile(r"\bsame\s+", re.IGNORECASE)
"""The determiner of identity: "the same gene" is shared, not asked for (`shared_types`)."""


def written_at(question: str, words: str) -> int:
    """Where `words` are first written in `question` as words of their own, case aside.

    -1: nowhere ("give" is not written in "Forgive").
    """
    spans = written_spans(question, words)
    return spans[0][0] if spans else -1


def written_spans(question: str, words: str) -> list[tuple[int, int]]:
    """Every place `words` are written in `question` as words of their own, case aside."""
    if not words:
        return []
    pattern = rf"(?<!\w){re.escape(words)}(?!\w)"
    return [found.span() for found in re.finditer(pattern, question, re.IGNORECASE)]


@dataclass(frozen=True)
class TypeReader:
    """The snapshot's analyzer and the stems of its node types' names.

    Attributes:
        analyzer: The snapshot's own analyzer (decides which words are content words).
        stemmer: Tantivy's English stemming analyzer (matches inflected schema words).
        type_words: Stems of each node type's name.
        type_holders: Each type-name stem -> how many types' names hold it.
    """

    analyzer: Tokenizer
    stemmer: Tokenizer
    type_words: dict[str, frozenset[str]]
    type_holders: dict[str, int]

    def mentioned_types(self, question: str) -> list[str]:
        """Node types named in the question, in order of first mention.

        A type is named by every word of its name, or by one word of it that no other
        type's name holds: `source package` by "source", `noun.artifact` by "artifact";
        a word several types' names share names none of them alone ("all" in WordNet's
        `adj.all` and `adv.all`, "verb" in its fifteen `verb.*` types). A participle written
        before "by" names no type: it names the relation of the node after "by"
        ("enhancements for musescore maintained by Thorsten Glaser" asks for packages, not
        maintainers). Nor does a word of a longer type name written right before another
        content word that is no word of the schema: an English compound's head is its last
        word, so "clinical features" are features (phenotypes), not HPO's
        `clinical_course`, which "the clinical course" names.
        """
        first: dict[str, int] = {}
        spans = self.stemmer.word_spans(question)
        heads: dict[str, list[tuple[str, str] | None]] = {}
        for position, (start, end, stem) in enumerate(spans):
            if passive(question, start, end):
                continue  # "packages maintained by X": the maintainer is X, not the answers
            if self._hyphen_modifier(question, spans, position):
                continue  # "module-level functions": functions, not modules
            first.setdefault(stem, position)
            head = None
            if position + 1 < len(spans) and question[end : spans[position + 1][0]] in (" ", "-"):
                after, stop, next_stem = spans[position + 1]
                head = (question[after:stop].lower(), next_stem)
            heads.setdefault(stem, []).append(head)
        named: dict[str, int] = {}
        for name, stems in self.type_words.items():
            held = [stem for stem in stems if stem in first]
            content = [s for s in held if not self.kind_word(s)]
            if (
                0 < len(held) < len(stems)
                and content
                and all(self._modifies(head, stems) for s in content for head in heads[s])
            ):
                continue  # "clinical features": a modifier of another head, not `clinical_course`
            if held and (len(held) == len(stems) or any(not self.kind_word(s) for s in held)):
                named[name] = min(first[stem] for stem in held)
        return sorted(named, key=named.__getitem__)

    def _hyphen_modifier(
        self, question: str, spans: Sequence[tuple[int, int, str]], position: int
    ) -> bool:
        """Whether the word at `position` begins a hyphenated compound with a non-type word.

        English writes a compound modifier with a hyphen before the noun it modifies
        ("module-level functions", "module-defined functions"): its words name no type, as
        `type_run` reads them too.
        """
        if position + 1 >= len(spans):
            return False
        _, end, _ = spans[position]
        after, _, stem = spans[position + 1]
        return question[end:after] == "-" and stem not in self.type_stems

    def _modifies(self, head: tuple[str, str] | None, stems: frozenset[str]) -> bool:
        """Whether a type word stands before `head`, a content word of no schema name."""
        if head is None:
            return False
        word, stem = head
        return (
            word not in FUNCTION_WORDS
            and len(word) >= MIN_CONTENT_CHARS
            and stem not in stems
            and stem not in self.schema_stems
        )

    def shared_types(self, question: str) -> tuple[list[str], str]:
        """The types the question writes right after "same", and the question without them.

        "the same gene", "the same virtual packages": the determiner says the node of that
        type is shared by the named node and the answers, the middle of a round trip, not
        what is asked for. Returns the types of each run of type words written right after
        "same" (`type_run`), and `question` with those runs blanked.
        """
        shared: list[str] = []
        for same in SAME.finditer(question):
            end = self.type_run(question, same.end(), skip_function_words=False)
            if end > same.end():
                run = question[same.end() : end]
                shared += [t for t in self.mentioned_types(run) if t not in shared]
                question = question[: same.end()] + " " * len(run) + question[end:]
        return shared, question

    def asked_type(self, question: str) -> str | None:
        """The type the question's wh-phrase asks for: "Which genes cause those diseases?".

        The type words written right after an interrogative "which" or "what" (one opening
        the question or a clause: after a punctuation mark or a function word, as "In which
        family"; not the relative "the diseases which genes cause"), function words between
        ("which other genes", "what is the gene"), are the head of the phrase the question
        asks about; None when no type word follows one.
        """
        for wh in WH.finditer(question):
            before = WORD.findall(question[: wh.start()])
            gap = question[: wh.start()][-3:]
            opens = (
                not before or bool(CLAUSE_END.search(gap)) or before[-1].lower() in FUNCTION_WORDS
            )
            end = self.type_run(question, wh.end(), skip_function_words=True) if opens else 0
            found = self.mentioned_types(question[wh.end() : end]) if end > wh.end() else []
            if found:
                return found[0]
        return None

    def type_run(self, question: str, start: int, *, skip_function_words: bool) -> int:
        """Where the run of type words written from `start` ends (`start`: none).

        Words joined by spaces or a hyphen only (a punctuation mark ends the run), each
        naming only type stems; leading function words skipped when `skip_function_words`.
        A type word joined by a hyphen to a word of no type is a compound modifier
        ("module-level functions"): the run reads on past it to its head.
        """
        place = end = before = start
        leading = skip_function_words
        for word in WORD.finditer(question, start):
            gap = question[place : word.start()]
            if not joined(gap) and place != start:
                break
            if place == start and gap.strip():
                break
            place = word.end()
            if leading and word.group().lower() in FUNCTION_WORDS:
                continue
            leading = False
            if not self._names_only(word.group(), self.type_stems):
                if gap == "-" and end > start:
                    end = before  # the type word before it modifies what follows
                    continue
                break
            before, end = end, word.end()
        return end

    def compound_type_words(self, question: str, texts: Sequence[str]) -> list[tuple[int, int]]:
        """Spans of type words the question writes as the first word of a compound of `texts`.

        A type's word written before another content word, as the leading search hits' texts
        write the pair ("source control" in gource's "graphical source control
        visualisation"), modifies that word (an English compound's head is its last word): it
        is a word of the compound, not the type `source`. A type word written last ("binary
        packages"), or before another type's or a relation label's word ("source package",
        "package provides"), still names its type. Only `texts` are read: what the question's
        first search shows.
        """
        written = [f" {' '.join(WORD.findall(text.lower()))} " for text in texts]
        spans = self.stemmer.word_spans(question)
        kept = {start for start, _, _ in self.analyzer.word_spans(question)}
        found = []
        for (start, end, stem), (after, stop, other) in itertools.pairwise(spans):
            if stem not in self.type_stems or other in self.schema_stems or after not in kept:
                continue
            if stop - after < MIN_CONTENT_CHARS or question[end:after] not in (" ", "-"):
                continue  # one phrase as written (not across a blanked name)
            pair = f" {question[start:end].lower()} {question[after:stop].lower()} "
            if any(pair in text for text in written):
                found.append((start, end))
        return found

    @cached_property
    def type_stems(self) -> frozenset[str]:
        """Every stem of every type's name."""
        return frozenset().union(*self.type_words.values())

    @cached_property
    def schema_stems(self) -> frozenset[str]:
        """The schema's stems a type word may stand before and still name its type."""
        return self.type_stems

    def kind_word(self, stem: str) -> bool:
        """Whether several types' names hold `stem`.

        Such a word is the schema's word for a kind of node ("verb" in WordNet's
        `verb.motion`, `verb.body`...), which names no one type alone.
        """
        return self.type_holders.get(stem, 0) > 1

    def apposition(self, question: str, words: str, node_type: str) -> str:
        """`words` with the type words right beside them (before, after) that say what it is.

        A type word written next to a name, with only spaces or one hyphen between, says what
        the named node is ("the LRP4 gene", "package spacy", "games-section packages"): it
        names the node's own type, not the answer's, nor a relation. So does a run of type
        words beside the name that holds its own type's word ("the virtual package
        news-transport-system": `virtual`, written with the word of `package`). `words` as
        they are when no such word stands beside them.
        """
        at = written_at(question, words)
        own = self.type_words.get(node_type, frozenset())
        if at < 0 or not own:
            return words
        end = at + len(words)
        before = list(WORD.finditer(question, 0, at))
        after = list(WORD.finditer(question, end))
        return question[
            self._described(question, before[::-1], at, own, -1) : (
                self._described(question, after, end, own, 1)
            )
        ]

    def _described(
        self, question: str, beside: list[re.Match[str]], edge: int, own: frozenset[str], way: int
    ) -> int:
        """How far the type words beside a name reach, up to its own type's last word.

        Read outward from `edge` (`way` -1: before the name, 1: after it) over adjacent type
        words; the run ends at the farthest word of the node's own type (a type word beyond
        it belongs to the rest of the question: "the zope section packages"); `edge` when
        the run holds no such word.
        """
        reach, place = edge, edge
        for word in beside:
            gap = question[word.end() : place] if way < 0 else question[place : word.start()]
            if not joined(gap) or not self._names_only(word.group(), self.type_stems):
                break
            place = word.start() if way < 0 else word.end()
            if self._names_only(word.group(), own):
                reach = place
        return reach

    def _names_only(self, word: str, stems: frozenset[str]) -> bool:
        found = {stem for _, _, stem in self.stemmer.word_spans(word)}
        return bool(found) and found <= stems


def passive(question: str, start: int, end: int) -> bool:
    """Whether the word at `start:end` is a participle written before "by" ("maintained by")."""
    participle = question[start:end].lower().endswith(("ed", "en"))
    return participle and BY.match(question, end) is not None


def joined(gap: str) -> bool:
    """Whether two words with `gap` between are written as one phrase (spaces or a hyphen)."""
    return bool(gap) and (gap.isspace() or gap == "-")
