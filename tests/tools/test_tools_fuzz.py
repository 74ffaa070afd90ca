"""Fuzz: thousands of random and malformed tool calls against a real snapshot, zero exceptions."""

from __future__ import annotations

import json
import random
import string
from typing import Any

from graphs.snapshot import Snapshot
from tools.config import ToolConfig
from tools.schemas import TOOL_ARGS
from tools.toolset import Toolset

CALLS = 12_000
KINDS = {
    None,
    "unknown_tool",
    "bad_json",
    "bad_arguments",
    "unknown_node",
    "unknown_type",
    "unknown_relation",
}
LIST_FIELDS = ("node_types", "edge_types", "node_ids")
FIELDS = sorted({field for model in TOOL_ARGS.values() for field in model.model_fields})
TRICKY_TEXT = [
    "",
    " ",
    '"',
    'title:(graph AND NOT neural) OR "x"~2^3',
    "*",
    "\\",
    "\x00",
    "\u00e9t\u00e9 \u56fe\u795e\u7ecf \U0001f600",
    "ΣΑΣ",
    "N0",
    "[N0]",
    "graph " * 300,
    "a" * 5000,
]


class CallFactory:
    """Random tool calls: well-formed, subtly wrong and garbage, from one seeded generator."""

    def __init__(self, snapshot: Snapshot, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ids = [snapshot.external_id(i) for i in range(0, snapshot.num_nodes, 7)]
        self.names = snapshot.node_type_names + snapshot.relation_names

    def text(self) -> str:
        rng = self.rng
        pick = rng.random()
        if pick < 0.3:
            return rng.choice(TRICKY_TEXT)
        if pick < 0.6:
            return " ".join(rng.choices(self.names + self.ids + ["graph", "hub"], k=3))
        alphabet = string.printable + "é中🙂\u200b"
        return "".join(rng.choices(alphabet, k=rng.randint(0, 40)))

    def value(self, depth: int = 0) -> Any:
        rng = self.rng
        pick = rng.randrange(12)
        if pick == 0:
            return rng.choice([-(10**30), -1, 0, 1, 5, 50, 51, 10**9, 2**63])
        if pick == 1:
            return rng.choice([0.5, 2.0, -3.5, float("inf"), float("nan"), 1e300])
        if pick == 2:
            return rng.choice([True, False, None])
        if pick in (3, 4):
            return rng.choice([*self.ids, "missing", "N-1"])
        if pick in (5, 6):
            return rng.choice([*self.names, "Paper", "citess", ""])
        if pick == 7 and depth < 3:
            return [self.value(depth + 1) for _ in range(rng.randint(0, 4))]
        if pick == 8 and depth < 3:
            return {self.text(): self.value(depth + 1) for _ in range(rng.randint(0, 3))}
        return self.text()

    def plausible(self, field: str) -> Any:
        """A value of the right shape for `field` (still often wrong in content)."""
        rng = self.rng
        if field in ("query", "comment"):
            return self.text()
        if field == "k":
            return rng.choice([1, 3, 5, 20, 50, 80, 0, -2, "7"])
        if field == "node_id":
            return rng.choice([*self.ids, *self.ids, "missing", "[N0]"])
        if field in ("node_ids", "node_types", "edge_types") and rng.random() < 0.05:
            return rng.choice(self.ids if field == "node_ids" else self.names)  # lone string
        if field == "node_ids":
            return rng.sample(self.ids, rng.randint(1, 4)) + rng.choice([[], [], ["nope"]])
        if field in ("node_types", "edge_types"):
            return rng.sample(self.names, rng.randint(0, 2)) + rng.choice([[], [], ["papr"]])
        if field == "reasons":
            return {rng.choice(self.ids): self.text()}
        return self.value()

    def arguments(self, name: str) -> dict[str, Any]:
        rng = self.rng
        own = list(TOOL_ARGS[name].model_fields) if name in TOOL_ARGS else FIELDS
        arguments = {
            field: self.plausible(field) if rng.random() < 0.8 else self.value()
            for field in own
            if rng.random() < 0.6
        }
        for field in ("query", "node_id", "node_ids"):
            if field in own and rng.random() < 0.7:
                arguments[field] = self.plausible(field)
        if rng.random() < 0.1:
            arguments[rng.choice([*FIELDS, self.text()])] = self.value()
        return arguments

    def call(self) -> tuple[str, Any]:
        rng = self.rng
        name = rng.choice(
            [*TOOL_ARGS, *TOOL_ARGS, *TOOL_ARGS, "Search", "neighbours", "", self.text()]
        )
        arguments: Any = self.arguments(name)
        shape = rng.random()
        if shape < 0.5:
            arguments = json.dumps(arguments)
        elif shape < 0.6:
            text = json.dumps(arguments)
            arguments = text[: rng.randint(0, len(text))]
        elif shape < 0.7:
            arguments = json.dumps(self.value())
        elif shape < 0.75:
            arguments = rng.choice([None, "", "[[[[[[", "{}" * 3, "[" * 5000 + "]" * 5000])
        return name, arguments


def sends_a_lone_string(toolset: Toolset, name: str, arguments: Any) -> bool:
    """Whether the call gives an offered tool a bare string where it expects a list."""
    if name not in toolset.tool_names:
        return False
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return False
    fields = [field for field in LIST_FIELDS if field in TOOL_ARGS[name].model_fields]
    return isinstance(arguments, dict) and any(isinstance(arguments.get(f), str) for f in fields)


def test_random_and_malformed_calls_never_raise(generated_snapshot: Snapshot) -> None:
    toolsets = [
        Toolset(generated_snapshot),
        Toolset(generated_snapshot, ToolConfig(neighbor_query_ranking=False, type_filters=False)),
        Toolset(generated_snapshot, ToolConfig(enable_neighbors=False)),
    ]
    factory = CallFactory(generated_snapshot, seed=20260101)
    seen_kinds: set[str | None] = set()
    answers: list[str] = []
    lone_strings = 0
    for index in range(CALLS):
        name, arguments = factory.call()
        toolset = toolsets[index % 3]
        observation = toolset.call(name, arguments, answers=answers)
        kind = observation.error.kind if observation.error else None
        if sends_a_lone_string(toolset, name, arguments):
            lone_strings += 1
            assert kind == "bad_arguments", (name, arguments, observation)
        seen_kinds.add(kind)
        assert kind in KINDS, (name, arguments, observation)
        assert isinstance(observation.text, str) and observation.text.strip()
        assert not observation.scores or len(observation.scores) == len(observation.node_ids)
        assert not set(observation.selected) & set(answers)
        answers.extend(observation.selected)
        if len(answers) > 200:
            answers.clear()
    assert seen_kinds == KINDS  # the generator reaches every outcome
    assert lone_strings > 100  # ... and often sends a bare string where a list belongs
