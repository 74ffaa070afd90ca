"""The BM25 + NER reference of issue 38 (a benchmark row, not a product path).

As the issue describes it: the top 3 BM25 passages; spaCy entities of the type the question
word asks for; the one nearest to the question's words. Written from that description
alone, so that ARK's offline reader is compared with the method the issue measured.
"""

from __future__ import annotations

from typing import Any

from graphs.snapshot import Snapshot

TYPES = {
    "who": {"PERSON"},
    "whom": {"PERSON"},
    "where": {"GPE", "LOC", "FAC"},
    "when": {"DATE"},
    "year": {"DATE"},
    "many": {"CARDINAL", "QUANTITY"},
    "much": {"MONEY", "QUANTITY", "CARDINAL"},
}
PASSAGES = 3


def reference_answer(snapshot: Snapshot, nlp: Any, question: str) -> str:
    """The entity of the asked type nearest to the question's words in BM25's top 3."""
    passage_type = snapshot.type_code("passage")
    nodes, _ = snapshot.index.search(question, PASSAGES, node_types=[passage_type])
    qdoc = nlp(question)
    words = {t.lower_ for t in qdoc if not (t.is_stop or t.is_punct or t.is_space)}
    asked: set[str] = set()
    for token in qdoc:
        asked |= TYPES.get(token.lower_, set())
    if qdoc[0].pos_ == "AUX":
        return "yes"
    best: tuple[float, str] = (float("inf"), "")
    for rank, node in enumerate(nodes.tolist()):
        doc = nlp(snapshot.text(int(node)))
        spots = [t.i for t in doc if t.lower_ in words]
        for ent in doc.ents:
            if (asked and ent.label_ not in asked) or ent.text.lower() in question.lower():
                continue
            distance = min((abs(s - ent.start) for s in spots), default=1000)
            best = min(best, (distance + 5 * rank, ent.text))
    return best[1]
