"""SARG's generation prompt (Eq. 6) and the baselines' prompts, rendered from prompts/sarg_*."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent.models.base import Message
from answer.beam import Chain
from answer.query_graph import QueryGraph
from prompts.loader import prompt_template

INSTRUCTION = "sarg_instruction.md.j2"
SARG_PROMPT = "sarg_prompt.md.j2"
FLAT_PROMPT = "sarg_flat.md.j2"
DIRECT_PROMPT = "sarg_direct.md.j2"


@dataclass(frozen=True)
class Evidence:
    """One source text shown to the generator (a passage or a node's text)."""

    id: str
    text: str


def serialize_chain(chain: Chain, labels: Mapping[str, str]) -> str:
    """One chain as text: `A --[rel]--> B <--[rel]-- C` (an arrow points from head to tail)."""
    parts = [labels.get(chain.start, chain.start)]
    for hop in chain.hops:
        relation = hop.triple.relation.replace("_", " ")
        arrow = f"--[{relation}]-->" if hop.forward else f"<--[{relation}]--"
        parts += [arrow, labels.get(hop.target, hop.target)]
    sources = chain.sources()
    cited = f"  (sources: {', '.join(sources)})" if sources else ""
    return " ".join(parts) + cited


def chain_evidence(chains: Sequence[Chain], graph: QueryGraph, *, chars: int) -> list[Evidence]:
    """D_P: the source texts behind the chains' triples, in chain order, each once."""
    ids = list(dict.fromkeys(s for chain in chains for s in chain.sources()))
    return [Evidence(i, clip(graph.sources[i], chars)) for i in ids if i in graph.sources]


def clip(text: str, chars: int) -> str:
    """`text` cut to at most `chars` characters at a word boundary, marked with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    cut = text[:chars].rsplit(" ", 1)[0]
    return cut + " …"


class PromptBuilder:
    """Renders the system instruction and the user message for every method."""

    def __init__(self) -> None:
        self._templates = {
            name: prompt_template(name)
            for name in (INSTRUCTION, SARG_PROMPT, FLAT_PROMPT, DIRECT_PROMPT)
        }

    def _system(self, *, grounded: bool, chains: bool, step_by_step: bool) -> Message:
        text = self._templates[INSTRUCTION].render(
            grounded=grounded, chains=chains, step_by_step=step_by_step
        )
        return {"role": "system", "content": _tidy(text)}

    def sarg(
        self, question: str, chains: Sequence[str], evidence: Sequence[Evidence]
    ) -> list[Message]:
        """P_gen = P_inst ⊕ P_query ⊕ Serialize(C_relevant) ⊕ D_P (Eq. 6), as two messages."""
        user = self._templates[SARG_PROMPT].render(
            question=question, chains=list(chains), evidence=list(evidence)
        )
        system = self._system(grounded=True, chains=True, step_by_step=False)
        return [system, {"role": "user", "content": _tidy(user)}]

    def flat(
        self, question: str, evidence: Sequence[Evidence], *, step_by_step: bool = False
    ) -> list[Message]:
        """Standard RAG (or CoT-RAG with `step_by_step`): the evidence as flat context."""
        user = self._templates[FLAT_PROMPT].render(question=question, evidence=list(evidence))
        system = self._system(grounded=True, chains=False, step_by_step=step_by_step)
        return [system, {"role": "user", "content": _tidy(user)}]

    def direct(self, question: str) -> list[Message]:
        """Direct: the question alone."""
        user = self._templates[DIRECT_PROMPT].render(question=question)
        system = self._system(grounded=False, chains=False, step_by_step=False)
        return [system, {"role": "user", "content": _tidy(user)}]


def _tidy(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def parse_answer(text: str) -> str:
    """The short answer in a reply: after the last `Answer:`, else its last non-empty line."""
    found = re.findall(r"answer(?: is)?\s*:[ \t]*(\S.*)", text, flags=re.IGNORECASE)
    if found:
        line = found[-1]
    else:
        lines = [line for line in text.splitlines() if line.strip()]
        line = lines[-1] if lines else ""
    return line.strip().strip("*").strip().rstrip(".").strip()
