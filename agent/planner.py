"""Planners (GRASP stage 1): a question to a `GraphPlan`, by an LLM or by the offline rules.

The LLM planner's prompt is GRASP's four modules, each a file under prompts/: the role
(plan_role), the snapshot's own schema (plan_schema), the plan's structure with optional
worked examples (plan_structure) and the fusion control asking for a risk level
(plan_fusion); the question goes in plan_user. A reply that is not a valid plan for this
snapshot (malformed JSON, a missing slot, an unknown type or relation) is a `PlanError`: the
planner asks again once with the error (it is recoverable), and after that falls back to the
text plan (one doc anchor, risk level no_trade, GRASP's "skip"), counting the plan invalid.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.models.base import Message, Model
from agent.models.structured import SchemaModel, StructuredMode, StructuredStats, ask_structured
from prompts.loader import render_prompt
from tools.config import ToolConfig
from tools.listing_parse import ListedNode, NamedListed
from tools.plans.errors import PlanError
from tools.plans.model import GraphPlan
from tools.plans.plan_schema import (
    SCHEMA_NAME,
    is_path_plan,
    path_plan_json_schema,
    plan_from_paths,
    plan_json_schema,
    read_schema_plan,
)
from tools.plans.rule_planner import FIRST_SEARCH_K, RulePlanner
from tools.plans.validate import check_plan, plan_from_json
from tools.plans.vocabulary import TermStats
from tools.search import named_nodes, search_hits

if TYPE_CHECKING:
    from graphs.manifest import Manifest
    from graphs.snapshot import Snapshot

PROMPT_MODULES = (
    "plan_role.md.j2",
    "plan_schema.md.j2",
    "plan_structure.md.j2",
    "plan_fusion.md.j2",
)
PATH_STRUCTURE = "plan_structure_paths.md.j2"
"""The structure module for a schema-enforcing backend (one path per anchor)."""


@dataclass(frozen=True, kw_only=True)
class PlannerConfig:
    """How an LLM planner asks.

    Attributes:
        retries: Times a rejected plan is asked for again, with the reason (GRASP: none).
        temperature: Sampling temperature of the planning call.
        examples: Worked (question, plan) examples appended to the structure module.
        structured: How the plan's JSON is asked for: `auto` (the snapshot's schema where
            the backend takes one, else the prompt), `schema` or `prompt`.
    """

    retries: int = 1
    temperature: float = 0.0
    examples: tuple[dict[str, str], ...] = ()
    structured: StructuredMode = StructuredMode.auto


@dataclass
class Planned:
    """One question's plan and how it was obtained.

    Attributes:
        plan: The plan to execute (the text fallback when `invalid`).
        invalid: No valid plan came back within the retries.
        errors: Why each rejected reply was rejected.
        latency_s: Wall time of the planning (all attempts).
        attempts: Model calls made (0 for the offline planner).
        asked_as: How each attempt's JSON was asked for (`schema`, `prompt`).
        repaired: Attempts whose JSON was read only after lenient repair.
    """

    plan: GraphPlan
    invalid: bool = False
    errors: list[str] = field(default_factory=list)
    latency_s: float = 0.0
    attempts: int = 0
    asked_as: list[str] = field(default_factory=list)
    repaired: int = 0


class Planner(Protocol):
    """Anything that writes a plan for a question."""

    name: str

    async def plan(self, question: str) -> Planned:
        """The question's plan."""
        ...


class OfflinePlanner:
    """`-m rules`: the offline planner over the question's first BM25 search (k=20)."""

    name = "rules"

    def __init__(self, snapshot: Snapshot, tools: ToolConfig | None = None) -> None:
        self.snapshot = snapshot
        self.tools = tools or ToolConfig()
        """The tool settings the rule agent's search shows its hits with (snippets)."""
        self.writer = RulePlanner(snapshot.manifest, TermStats.of(snapshot))

    def hits(self, question: str) -> list[ListedNode]:
        """The question's first search, as the rule agent sees it (with its snippets)."""
        nodes, scores = self.snapshot.index.search(question, FIRST_SEARCH_K)
        return [
            ListedNode(hit.node.node_id, hit.node.name, hit.node.type, hit.score, (), hit.snippet)
            for hit in search_hits(self.snapshot, nodes, scores, question, self.tools)
        ]

    def names(self, question: str) -> list[NamedListed]:
        """The nodes the question names, as the rule agent's search shows them."""
        return [
            NamedListed(
                row.words,
                ListedNode(row.node.node_id, row.node.name, row.node.type, row.score),
                row.usage,
            )
            for row in named_nodes(self.snapshot, question)
        ]

    async def plan(self, question: str) -> Planned:
        """The offline plan (never invalid)."""
        started = time.perf_counter()
        written = self.writer.plan(question, self.hits(question), self.names(question))
        return Planned(written.plan, latency_s=time.perf_counter() - started)


def system_prompt(
    manifest: Manifest, examples: Sequence[dict[str, str]] = (), *, paths: bool = False
) -> str:
    """The four prompt modules rendered for `manifest`'s schema.

    `paths`: the structure module describes the path shape that a schema-enforcing backend is
    held to (tools/plans/plan_schema.py) instead of GRASP's anchors and hops; worked
    examples, written in GRASP's shape, are then left out.
    """
    modules = [
        PATH_STRUCTURE if paths and m == "plan_structure.md.j2" else m for m in PROMPT_MODULES
    ]
    variables: dict[str, Any] = {
        "graph_name": manifest.name,
        "node_types": list(manifest.node_types.items()),
        "signatures": manifest.signatures,
        "candidate_types": manifest.candidate_types,
        "examples": [] if paths else list(examples),
    }
    return "\n".join(render_prompt(name, **variables).strip() + "\n" for name in modules)


class LLMPlanner:
    """Asks a chat model (any `Model`: openai:, hf:, a served name) for the plan.

    Args:
        model: The chat model.
        manifest: The snapshot's schema (shown in the prompt, checked in the reply).
        config: Retries, temperature, worked examples.
    """

    def __init__(
        self, model: Model, manifest: Manifest, config: PlannerConfig | None = None
    ) -> None:
        self.model = model
        self.name = model.name
        self.manifest = manifest
        self.config = config or PlannerConfig()
        self.fallback = RulePlanner(manifest)
        types, relations = list(manifest.node_types), list(manifest.relations)
        self.paths = self.config.structured is not StructuredMode.prompt and (
            isinstance(model, SchemaModel) and model.takes_response_format()
        )
        """Whether the backend enforces schemas: then the plan is asked in the path shape,
        every instance of which is a valid plan (tools/plans/plan_schema.py)."""
        self.system = system_prompt(manifest, self.config.examples, paths=self.paths)
        self.schema = (
            path_plan_json_schema(types, relations)
            if self.paths
            else plan_json_schema(types, relations)
        )
        self.stats = StructuredStats()
        """How this planner's asks went out and came back, over all questions."""

    def messages(self, question: str, error: str | None = None) -> list[Message]:
        """The planning conversation for `question` (with the last rejection, if any)."""
        user = render_prompt("plan_user.md.j2", question=question, error=error)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    async def plan(self, question: str) -> Planned:
        """Ask, validate, ask again on a rejected plan; fall back to the text plan.

        Raises:
            ModelError: the model could not answer at all (endpoint down, ...).
        """
        started = time.perf_counter()
        errors: list[str] = []
        asked_as: list[str] = []
        repaired = 0
        for attempt in range(1, self.config.retries + 2):
            reply = await ask_structured(
                self.model,
                self.messages(question, errors[-1] if errors else None),
                self.schema,
                name=SCHEMA_NAME,
                mode=self.config.structured,
                stats=self.stats,
                temperature=self.config.temperature,
            )
            asked_as.append(reply.mode.value)
            repaired += int(reply.repaired)
            try:
                if reply.value is None:
                    raise PlanError(f"{reply.error}; answer with one plan object")
                plan = self.checked_value(reply.value, question)
            except PlanError as error:
                errors.append(str(error))
                continue
            return Planned(
                plan, errors=errors, latency_s=time.perf_counter() - started,
                attempts=attempt, asked_as=asked_as, repaired=repaired,
            )  # fmt: skip
        fallback = self.fallback.text_plan(question).plan
        return Planned(
            fallback,
            invalid=True,
            errors=errors,
            latency_s=time.perf_counter() - started,
            attempts=self.config.retries + 1,
            asked_as=asked_as,
            repaired=repaired,
        )

    def checked_value(self, value: object, question: str) -> GraphPlan:
        """A decoded JSON value (either shape) as a plan, if well formed and fitting the schema.

        Raises:
            PlanError: naming what is wrong.
        """
        if isinstance(value, dict) and is_path_plan(value):
            value = plan_from_paths(value, question)
        plan = plan_from_json(read_schema_plan(value))
        return check_plan(plan, list(self.manifest.node_types), list(self.manifest.relations))


def load_examples(path: Path) -> tuple[dict[str, str], ...]:
    """Worked examples from a JSONL file of {"question": ..., "plan": {...}} rows.

    Raises:
        PlanError: a row that is not such an object or whose plan is invalid.
    """
    examples = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            plan = GraphPlan.model_validate(row["plan"])
            question = str(row["question"])
        except (ValueError, KeyError, TypeError) as error:
            raise PlanError(
                f"{path}:{number}: an example is one JSON object "
                f'{{"question": "...", "plan": {{...}}}} with a valid plan ({error})'
            ) from error
        examples.append({"question": question, "plan": plan.model_dump_json(by_alias=True)})
    return tuple(examples)
