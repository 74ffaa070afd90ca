"""English function words: a relation label's joining words, which name no relation alone.

The Snowball project's English stop list (https://snowballstem.org/algorithms/english/stop.txt),
its contractions left out, as a question's words are alphanumeric runs: pronouns, auxiliaries,
determiners, common prepositions and conjunctions, a closed class of the language, not of any
graph or question. A graph's relation labels use them to join their content words
(`built_from`, `has_tag`, `named_after`) and a question writes them in every sentence
("commands from a file"), so a question holding only such words of a longer label does not
name it, unless they tell it from another label holding its other words
(`QuestionReader.label_matches`, `label_joins`). A lexical graph names some of them too
(WordNet's `through (direct)`, `both`): a mention made only of them gives its anchor place to
a name the question writes with confidence (`AnchorReader.capped`). The planner's analyzer
(`english-stem`) drops only the shorter Lucene list (`the`, `of`, `by`, `with`...): it keeps
`from` and `has`.
"""

from __future__ import annotations

_SNOWBALL_ENGLISH = """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves what which who whom
    this that these those am is are was were be been being have has had having do does did
    doing would should could ought cannot a an the and but if or because as until while of at
    by for with about against between into through during before after above below to from up
    down in out on off over under again further then once here there when where why how all
    any both each few more most other some such no nor not only own same so than too very
"""
FUNCTION_WORDS = frozenset(_SNOWBALL_ENGLISH.split())
"""The Snowball English stop list's words (its contractions left out)."""
