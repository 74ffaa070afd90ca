"""Toolset: the agent's tools over one snapshot, built once per run with its ablation switches."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tools.answers import run_finish, run_select
from tools.arguments import parse_arguments
from tools.config import ToolConfig
from tools.dense import DenseSearch, run_dense_search
from tools.errors import ToolCallError, UnknownToolError
from tools.neighbors import NeighborOrder, run_neighbors
from tools.node import run_node
from tools.observation import Observation
from tools.schemas import (
    DenseSearchArgs,
    FinishArgs,
    NeighborsArgs,
    NodeArgs,
    SearchArgs,
    SelectArgs,
    ToolArgs,
    disabled_fields,
    signature,
    tool_schemas,
)
from tools.search import run_search
from tools.vocab import Vocabulary

if TYPE_CHECKING:
    from graphs.snapshot import Snapshot


class Toolset:
    """The tools an agent may call on `snapshot`, under `config`'s defaults and ablations.

    `call` never raises on a bad call: unknown tools, malformed or invalid arguments, unknown
    ids and unknown type names come back as observations with `error` set. Anything else that
    goes wrong is a bug and propagates.

    Leniency, where the intent is unambiguous: empty arguments mean `{}`; numbers are accepted
    as ids and numeric strings as k; type and relation names also match case-insensitively. A
    parameter switched off by an ablation is ignored and the observation says so. k above
    `max_k` is capped with a note. Wrong types are errors that show the right form: a lone
    string where a list is expected (`node_types="paper"`, `node_ids="P1"`), a query that is
    not a string, k below 1, true/false, fractional or non-numeric k.
    """

    def __init__(
        self,
        snapshot: Snapshot,
        config: ToolConfig | None = None,
        *,
        dense: DenseSearch | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.config = config or ToolConfig()
        if self.config.enable_dense_search and dense is None:
            raise ValueError(
                "dense_search is switched on but no DenseSearch was given; build one with "
                "tools.dense.DenseSearch.open(snapshot, TextEncoder.load(PATH))"
            )
        self.dense = dense if self.config.enable_dense_search else None
        self.vocabulary = Vocabulary(snapshot.node_type_names, snapshot.relation_names)
        self._order = NeighborOrder(snapshot.relation_names, snapshot.degrees)
        self._schemas = tool_schemas(
            self.config,
            node_types=snapshot.node_type_names,
            relations=snapshot.relation_names,
            candidate_types=snapshot.manifest.candidate_types,
        )
        self._signatures = {
            schema["function"]["name"]: signature(schema) for schema in self._schemas
        }

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered in this run, in schema order."""
        return list(self._signatures)

    def schemas(self) -> list[dict[str, Any]]:
        """The OpenAI `tools=` list (a fresh copy): the single source for every consumer."""
        return copy.deepcopy(self._schemas)

    def call(
        self,
        name: str,
        arguments: str | Mapping[str, Any] | None,
        *,
        answers: Sequence[str] = (),
        shown: Collection[str] | None = None,
    ) -> Observation:
        """Run one tool call.

        Args:
            name: The tool the model called.
            arguments: The call's arguments as JSON text (as models send them) or a mapping;
                empty text or None means no arguments.
            answers: The agent's answer list so far (select reports duplicates against it).
            shown: Ids shown by the trajectory's earlier tool calls (`Observation.node_ids`),
                in the order first shown: select accepts only these. None for a call outside
                any trajectory (a one-off CLI call): then any existing id is selectable.

        Returns:
            The observation; `error` is set when the call was bad.
        """
        try:
            return self._dispatch(name, arguments, answers, shown)
        except ToolCallError as error:
            return Observation.from_error(error)

    def _dispatch(
        self,
        name: str,
        arguments: str | Mapping[str, Any] | None,
        answers: Sequence[str],
        shown: Collection[str] | None,
    ) -> Observation:
        if name not in self._signatures:
            raise UnknownToolError(name, self.tool_names)
        args, notes = parse_arguments(
            name,
            arguments,
            disabled=disabled_fields(name, self.config),
            signature=self._signatures[name],
        )
        return self._run(args, notes, answers, shown)

    def _run(
        self,
        args: ToolArgs,
        notes: list[str],
        answers: Sequence[str],
        shown: Collection[str] | None,
    ) -> Observation:
        # select and finish have no parameter an ablation can switch off, hence no notes
        if isinstance(args, SearchArgs):
            return run_search(self.snapshot, self.vocabulary, self.config, args, notes)
        if isinstance(args, DenseSearchArgs) and self.dense is not None:
            return run_dense_search(
                self.snapshot, self.vocabulary, self.config, self.dense, args, notes
            )
        if isinstance(args, NeighborsArgs):
            return run_neighbors(
                self.snapshot, self.vocabulary, self._order, self.config, args, notes
            )
        if isinstance(args, NodeArgs):
            return run_node(self.snapshot, args)
        if isinstance(args, SelectArgs):
            return run_select(self.snapshot, args, answers, shown)
        if isinstance(args, FinishArgs):
            return run_finish(args, answers)
        raise TypeError(f"no runner for {type(args).__name__}")
